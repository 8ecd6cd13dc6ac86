//! `spindle torture` end to end: deterministic output, exit statuses, and the stack
//! TOML's `faults` tables (refused, with file and line, where no bytes are carried).

use std::path::PathBuf;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_spindle");

fn spindle(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("the spindle binary runs")
}

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spindle-torture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// `spindle ARGS` (which print JSON), which must exit 0: its JSON and its raw output.
fn json_run(args: &[&str]) -> (serde_json::Value, Vec<u8>) {
    let o = spindle(args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (serde_json::from_slice(&o.stdout).unwrap(), o.stdout)
}

/// `spindle torture --stack f --ops n --json`, which must exit 0: its JSON.
fn torture_stack(f: &std::path::Path, ops: u32) -> serde_json::Value {
    let ops = ops.to_string();
    json_run(&[
        "torture",
        "--stack",
        f.to_str().unwrap(),
        "--ops",
        &ops,
        "--json",
    ])
    .0
}

#[test]
fn same_seed_same_output_byte_for_byte() {
    for extra in [&[][..], &["--json"][..]] {
        let mut args = vec![
            "torture", "--rate", "0.02", "--crash", "0", "--ops", "400", "--seed", "5",
        ];
        args.extend_from_slice(extra);
        let a = spindle(&args);
        let b = spindle(&args);
        assert_eq!(
            a.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&a.stderr)
        );
        assert_eq!(a.stdout, b.stdout);
        let text = String::from_utf8_lossy(&a.stdout);
        assert!(
            text.contains("wrong_bytes") || text.contains("WRONG BYTES"),
            "{text}"
        );
    }
}

#[test]
fn stack_file_runs_with_member_faults() {
    let f = temp(
        "raid4.toml",
        "[workload]\ntrace = \"sample:hplajw\"\n[device]\nkind = \"raid4\"\ncount = 3\nstripe-kib = 64\n\
         [device.member]\nkind = \"disk\"\ndisk = \"wd-re3\"\n\
         faults = { lost = 0.02, torn = 0.02, flips = 0.02, fail-at-ms = 500.0 }\n",
    );
    let v = torture_stack(&f, 400);
    assert_eq!(v["wrong_bytes"], 0);
    assert!(v["stack"].as_str().unwrap().starts_with("2+1 RAID-4"));
    let kinds = v["kinds"].as_array().unwrap();
    for (i, name) in [
        (0, "lost writes"),
        (2, "torn writes"),
        (4, "drive failures"),
    ] {
        assert_eq!(kinds[i]["kind"], name);
        assert!(kinds[i]["injected"].as_u64().unwrap() > 0, "{name}: {v}");
    }
}

/// A scheduled power cut on its own, from the stack file (power cuts combined with
/// other faults are `torture`'s campaign tests in the library).
#[test]
fn stack_file_power_cut_at_a_time() {
    let f = temp(
        "crash.toml",
        "[device]\nkind = \"raid4\"\ncount = 5\n[device.member]\nkind = \"disk\"\ndisk = \"wd-re3\"\nfaults = { crash-at-ms = 300.0 }\n",
    );
    let v = torture_stack(&f, 300);
    assert_eq!(v["wrong_bytes"], 0);
    assert_eq!(v["kinds"][5]["kind"], "power cuts");
    assert_eq!(v["kinds"][5]["injected"], 1);
}

#[test]
fn compositions_that_cannot_work_are_refused_before_the_run() {
    // A timing-only run refuses any faults table, naming the file and the line.
    let run = temp(
        "run.toml",
        "[workload]\ntrace = \"sample:hplajw\"\n[device]\nkind = \"raid5\"\ncount = 4\n[device.member]\nkind = \"disk\"\ndisk = \"wd-re3\"\nfaults = { lost = 0.01 }\n",
    );
    let o = spindle(&["run", "--config", run.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("run.toml:9:") && e.contains("timing-only") && e.contains("lost"),
        "{e}"
    );
    // Torture refuses a timing-only kind and faults the mirror cannot detect.
    let raid0 = temp(
        "raid0.toml",
        &std::fs::read_to_string(&run)
            .unwrap()
            .replace("raid5", "raid0"),
    );
    let o = spindle(&["torture", "--stack", raid0.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("raid0") && e.contains("timing-only"), "{e}");
    let mirror = temp(
        "mirror.toml",
        "[device]\nkind = \"mirror\"\ncount = 2\n[device.member]\nkind = \"disk\"\ndisk = \"wd-re3\"\nfaults = { flips = 0.01 }\n",
    );
    let o = spindle(&["torture", "--stack", mirror.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("mirror.toml:7:") && e.contains("flips"), "{e}");
    // Bad values name the flag and the value.
    for (args, want) in [
        (&["torture", "--lost", "2"][..], "--lost"),
        (&["torture", "--rate", "NaN"][..], "--rate"),
        (&["torture", "--ops", "0"][..], "--ops"),
        (&["torture", "--array", "raid6"][..], "raid6"),
    ] {
        let o = spindle(args);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(want) && !e.contains("panicked"), "{args:?}: {e}");
    }
}

/// The journal and the layout engine under the campaign: short runs exit 0 with no
/// wrong byte, the same seed gives the same output, write faults on the journal's
/// drive are refused reads, and drive failure, which the journal on one drive cannot
/// survive, is refused before anything runs.
#[test]
fn journal_and_dle_campaigns_run_and_refuse_what_they_cannot_survive() {
    for args in [
        &[
            "torture", "--array", "journal", "--crash", "0.05", "--ops", "400",
        ][..],
        &[
            "torture",
            "--array",
            "journal",
            "--log-checksum",
            "--rate",
            "0.05",
            "--ops",
            "400",
        ][..],
        &[
            "torture", "--array", "dle", "--rate", "0.05", "--ops", "400",
        ][..],
    ] {
        let mut a: Vec<&str> = args.to_vec();
        a.push("--json");
        let (v, out) = json_run(&a);
        assert_eq!(spindle(&a).stdout, out, "{args:?}: not deterministic");
        assert_eq!(v["wrong_bytes"], 0, "{args:?}");
        assert!(v["power_cuts"].as_u64().unwrap() > 0, "{args:?}: {v}");
        if args.contains(&"--log-checksum") {
            assert!(v["writes_lost"].as_u64().unwrap() > 0, "{v}");
            assert!(v["reads_refused"].as_u64().unwrap() > 0, "{v}");
        }
    }
    let o = spindle(&["torture", "--array", "journal", "--fail", "0.01"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--fail") && err.contains("one drive"), "{err}");
}

fn example(name: &str) -> String {
    format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The journal over a redundant array, from the command line and from a stack file
/// with a journal `[[layer]]`: members fail and are rebuilt, the RAID-4's members take
/// every write fault, and no read returns a wrong byte.
#[test]
fn journal_over_an_array_survives_member_failures() {
    let journal_file = example("journal-raid4.toml");
    for args in [
        &[
            "torture", "--array", "journal", "--below", "raid4", "--rate", "0.02", "--fail",
            "0.01", "--span", "48",
        ][..],
        &[
            "torture",
            "--array",
            "journal",
            "--below",
            "mirror",
            "--members",
            "2",
            "--fail",
            "0.01",
            "--crash",
            "0.02",
            "--span",
            "48",
        ][..],
        &[
            "torture",
            "--stack",
            &journal_file,
            "--rate",
            "0.01",
            "--fail",
            "0.01",
            "--span",
            "48",
        ][..],
    ] {
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["--ops", "800", "--json"]);
        let (v, _) = json_run(&a);
        assert_eq!(v["wrong_bytes"], 0, "{args:?}");
        assert!(
            v["array"]["drive_failures"].as_u64().unwrap() > 0,
            "{args:?}: {v}"
        );
        assert!(v["stack"].as_str().unwrap().contains("over a"), "{v}");
    }
}

/// `--stack` with a `[layout]` runs the layout engine's campaign over the file's
/// RAID-4; layers that carry no bytes, a layout with layers, and a mirror's write
/// faults given on the command line are refused with the file and line or the flag.
#[test]
fn stack_files_with_layers_and_layouts_run_or_are_refused_clearly() {
    let dle = example("dle-raid4-smtf.toml");
    let (v, _) = json_run(&[
        "torture", "--stack", &dle, "--rate", "0.02", "--ops", "300", "--span", "128", "--json",
    ]);
    assert_eq!(v["wrong_bytes"], 0);
    assert!(v["stack"].as_str().unwrap().contains("4+1 RAID-4"), "{v}");
    let both = temp(
        "both.toml",
        "seed = 1\n[[layer]]\nkind = \"journal\"\n[layout]\nkind = \"dle\"\n[device]\nkind = \"raid4\"\ncount = 5\n[device.member]\nkind = \"disk\"\ndisk = \"wd-re3\"\n",
    );
    let three = temp(
        "three.toml",
        "[layout]\nkind = \"dle\"\ndata-disks = 4\n[device]\nkind = \"raid4\"\ncount = 3\n[device.member]\nkind = \"disk\"\ndisk = \"wd-re3\"\n",
    );
    let staged = temp(
        "staged-baseline.toml",
        "[layout]\nkind = \"update-in-place\"\nstaging-pct = 5.0\n[device]\nkind = \"raid4\"\ncount = 5\n[device.member]\nkind = \"disk\"\ndisk = \"wd-re3\"\n",
    );
    let cache = example("cache-raid5.toml");
    for (args, want) in [
        (
            vec!["torture", "--stack", staged.to_str().unwrap()],
            "staged-baseline.toml:1: [layout]: layout.staging-pct applies to kind = \"dle\"",
        ),
        (vec!["torture", "--stack", &cache], "cache-raid5.toml:19:"),
        (
            vec!["torture", "--stack", both.to_str().unwrap()],
            "both.toml:2:",
        ),
        (
            vec!["torture", "--stack", three.to_str().unwrap()],
            "three.toml:1:",
        ),
        (
            vec![
                "torture", "--array", "journal", "--below", "mirror", "--rate", "0.01",
            ],
            "checksums",
        ),
        (
            vec!["torture", "--array", "journal", "--below", "raid0"],
            "raid0",
        ),
        (
            vec!["torture", "--parity-layout", "left-symmetric"],
            "--array raid5",
        ),
        (
            vec!["torture", "--array", "dle", "--below", "mirror"],
            "raid4 or raid5",
        ),
        (
            vec!["torture", "--array", "raid5", "--parity-layout", "right"],
            "right",
        ),
        (vec!["torture", "--below", "raid4"], "--array journal"),
    ] {
        let o = spindle(&args);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(want) && !e.contains("panicked"), "{args:?}: {e}");
    }
}

/// `--torn-metadata`: power cuts tear the layout engine's flash metadata records; every
/// torn record is found and cut off, no read is wrong, and the same seed gives the same
/// output. Where there is no such metadata (or no power cut to tear it), the flag is
/// refused with exit 2.
#[test]
fn torn_metadata_records_are_cut_off_and_the_flag_is_refused_elsewhere() {
    let args = [
        "torture",
        "--array",
        "dle",
        "--crash",
        "0.05",
        "--torn-metadata",
        "--ops",
        "1500",
        "--seed",
        "4",
        "--json",
    ];
    let (v, out) = json_run(&args);
    assert_eq!(spindle(&args).stdout, out, "not deterministic");
    assert_eq!(v["wrong_bytes"], 0, "{v}");
    let torn = v["metadata_records_torn"].as_u64().unwrap();
    assert!(torn > 0, "{v}");
    assert_eq!(v["metadata_tails_discarded"].as_u64(), Some(torn), "{v}");
    for (bad, says) in [
        (
            &["torture", "--torn-metadata", "--crash", "0.01"][..],
            "--array dle",
        ),
        (
            &["torture", "--array", "journal", "--torn-metadata"][..],
            "--array dle",
        ),
        (
            &["torture", "--array", "dle", "--torn-metadata"][..],
            "--crash",
        ),
    ] {
        let o = spindle(bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("--torn-metadata") && err.contains(says),
            "{err}"
        );
    }
}

/// The byte-exact RAID-5 in both parity layouts (left-symmetric by default, as the
/// stack's) from the command line and from a stack file: every fault kind, member
/// failures and power cuts, no wrong byte.
#[test]
fn raid5_runs_from_the_command_line_and_a_stack_file() {
    for (flag, name) in [
        (None, "left-symmetric"),
        (Some("left-asymmetric"), "left-asymmetric"),
    ] {
        let mut args = vec![
            "torture", "--array", "raid5", "--rate", "0.01", "--ops", "800", "--json",
        ];
        if let Some(l) = flag {
            args.extend(["--parity-layout", l]);
        }
        // The run names the layout it ran and returned no wrong byte.
        let clean = |v: &serde_json::Value, what: &str| {
            assert!(
                v["stack"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("RAID-5 ({name})")),
                "{what}: {v}"
            );
            assert_eq!(v["wrong_bytes"], 0, "{what}: {v}");
        };
        let (v, _) = json_run(&args);
        clean(&v, "raid5");
        let key = flag
            .map(|l| format!("parity-layout = \"{l}\"\n"))
            .unwrap_or_default();
        let f = temp(
            &format!("raid5-{name}.toml"),
            &format!("[device]\nkind = \"raid5\"\ncount = 4\n{key}[device.member]\nkind = \"disk\"\ndisk = \"wd-re3\"\nfaults = {{ lost = 0.01, flips = 0.01 }}\n"),
        );
        clean(&torture_stack(&f, 600), "stack file");
        // The journal and the layout engine over it.
        for over in ["journal", "dle"] {
            let mut args = vec![
                "torture", "--array", over, "--below", "raid5", "--rate", "0.01", "--ops", "600",
                "--json",
            ];
            if let Some(l) = flag {
                args.extend(["--parity-layout", l]);
            }
            clean(&json_run(&args).0, over);
        }
    }
    let f = temp(
        "dle-raid5.toml",
        "[layout]\nkind = \"dle\"\ndata-disks = 4\n[device]\nkind = \"raid5\"\ncount = 5\n[device.member]\nkind = \"disk\"\ndisk = \"wd-re3\"\nfaults = { lost = 0.01, flips = 0.01 }\n",
    );
    let v = torture_stack(&f, 600);
    let stack = v["stack"].as_str().unwrap();
    assert!(
        stack.contains("data layout engine over a 4+1 RAID-5 (left-symmetric)"),
        "{v}"
    );
    assert_eq!(v["wrong_bytes"], 0, "{v}");
}

/// MimdRAID's intra-disk 2 × 2 with `reliable = true` (the example stack) stores real
/// bytes under `spindle torture`: drives fail mid-workload and are rebuilt, and no
/// read is wrong or refused; without `reliable` it is refused before the run.
#[test]
fn reliable_intra_example_survives_drive_failures() {
    let f = example("mimd-intra-reliable.toml");
    let (v, _) = json_run(&[
        "torture", "--stack", &f, "--fail", "0.02", "--ops", "600", "--span", "400", "--json",
    ]);
    let failures = v["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kind"].as_str().unwrap().contains("drive"))
        .unwrap();
    assert!(failures["injected"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["wrong_bytes"], 0, "{v}");
    assert_eq!(v["reads_refused"], 0, "{v}");
    let plain = temp(
        "intra.toml",
        &std::fs::read_to_string(&f)
            .unwrap()
            .replace("reliable = true", ""),
    );
    let o = spindle(&["torture", "--stack", plain.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("reliable = true"), "{e}");
}
