//! `spindle run --disksim FILE.parv`: DiskSim's own synthetic configurations.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_spindle");
const DISKSIM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/disksim");

fn spindle(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn synthopen_runs_on_its_last_disk_and_is_deterministic() {
    let file = format!("{DISKSIM}/synthopen.parv");
    let args = [
        "run",
        "--disksim",
        &file,
        "--disksim-seeds",
        "11,23",
        "--json",
    ];
    let (code, out, err) = spindle(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    for run in v["runs"].as_array().expect("runs") {
        let per = run["per_device"].as_array().unwrap();
        assert_eq!(per[0], 0);
        assert_eq!(per[1], 0);
        assert!(per[2].as_u64().unwrap() > 9_900);
    }
    assert_eq!(v["scheduler"], "clook");
    let (_, again, _) = spindle(&args);
    assert_eq!(out, again);
}

#[test]
fn synthmixed_runs_time_shared_with_its_priority_queue() {
    let file = format!("{DISKSIM}/synthmixed.parv");
    let (code, out, err) = spindle(&["run", "--disksim", &file, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let run = &v["runs"][0];
    assert!(run["completed"].as_u64().unwrap() > 9_900, "{run}");
    // One processor thinks (50 ms) for most of the run: far longer than five would.
    assert!(run["stop_ms"].as_f64().unwrap() > 200_000.0, "{run}");
}

/// The two configurations with an intelligent controller's cache run, and
/// `--print-stack` shows the cache between the driver queue and the disks.
#[test]
fn controller_caches_run_and_show_in_the_stack() {
    for (file, part) in [
        (
            "synthcachemem.parv",
            "controller cache (cachemem): 128 lines of 64 sectors",
        ),
        ("synthcachedev.parv", "controller cache (cachedev)"),
    ] {
        let path = format!("{DISKSIM}/{file}");
        let (code, out, err) = spindle(&["run", "--disksim", &path, "--json"]);
        assert_eq!(code, 0, "{file}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("json");
        let run = &v["runs"][0];
        assert!(run["completed"].as_u64().unwrap() > 9_900, "{run}");
        let (code, out, err) = spindle(&["run", "--disksim", &path, "--print-stack"]);
        assert_eq!(code, 0, "{file}: {err}");
        assert!(out.contains(part), "{part} missing from\n{out}");
    }
}

#[test]
fn unrepresentable_configurations_and_bad_seeds_exit_2_naming_the_place() {
    // A write-through controller memory cache is not modelled.
    let tmp = std::env::temp_dir().join(format!("spindle-cli-wt-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for ext in ["diskspecs", "model", "seek"] {
        let from = std::path::Path::new(DISKSIM).join(format!("hp_c3323a.{ext}"));
        if from.exists() {
            std::fs::copy(&from, tmp.join(format!("hp_c3323a.{ext}"))).unwrap();
        }
    }
    let base = std::fs::read_to_string(format!("{DISKSIM}/synthcachemem.parv")).unwrap();
    let f = tmp.join("writethrough.parv");
    std::fs::write(&f, base.replacen("Write scheme = 3", "Write scheme = 2", 1)).unwrap();
    let (code, _, err) = spindle(&["run", "--disksim", f.to_str().unwrap()]);
    std::fs::remove_dir_all(&tmp).ok();
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("writethrough.parv:")
            && err.contains("Write scheme")
            && !err.contains("panicked"),
        "{err}"
    );
    let path = format!("{DISKSIM}/synthclosed.parv");
    let (code, _, err) = spindle(&["run", "--disksim", &path, "--disksim-seeds", "1,x"]);
    assert_eq!(code, 2);
    assert!(err.contains("`x`"), "{err}");
    let (code, _, err) = spindle(&["run", "--disksim", &path, "--disksim-seeds", "2147483648"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("`2147483648`") && err.contains("2147483647"),
        "{err}"
    );
    // A stack flag would be ignored beside the .parv file: it is refused instead.
    let (code, _, err) = spindle(&["run", "--disksim", &path, "--seed", "3"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--seed") && err.contains("--disksim-seeds"),
        "{err}"
    );
}

/// `--print-stack` draws the imported tree (arrays over driver queues over disks)
/// and runs nothing.
#[test]
fn print_stack_draws_the_imported_tree() {
    let file = format!("{DISKSIM}/syntharrays.parv");
    let (code, out, err) = spindle(&["run", "--disksim", &file, "--print-stack"]);
    assert_eq!(code, 0, "{err}");
    for part in [
        "raid0",
        "raid4",
        "raid5",
        "disksim driver queue: clook",
        "disk disk15",
    ] {
        assert!(out.contains(part), "{part} missing from\n{out}");
    }
    assert!(!out.contains("mean over"), "{out}");
}
