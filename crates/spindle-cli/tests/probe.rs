//! Real-device probing through the binary: a table probed of a regular file (on the
//! disk-backed file system the build directory is on, not tmpfs) loads in SMTF; bad
//! devices are clear errors with exit status 2; writes are refused on a file system;
//! a loop device is probed where `losetup` works. Also `run --format fio-json`.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_spindle");

/// A fresh directory for one test, under the target directory (a disk-backed file
/// system: O_DIRECT applies).
fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("probe-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the binary: (exit code, stdout, stderr).
fn spindle(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(BIN).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// A file of `mib` MiB written in full (no holes: a hole would time nothing).
fn data_file(path: &Path, mib: usize) {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let bytes: Vec<u8> = (0..mib << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_file_probed_with_o_direct_gives_a_table_smtf_loads() {
    let d = dir("file");
    let f = d.join("dev.img");
    data_file(&f, 16);
    let t = d.join("t.json");
    let (code, out, err) = spindle(&[
        "mimic",
        "probe",
        "--device",
        f.to_str().unwrap(),
        "--distances",
        "200",
        "--samples",
        "3",
        "--out",
        t.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("reads only") && out.contains("O_DIRECT"),
        "{out}"
    );
    // Same format as a simulated probe: `mimic show` checks it in full.
    let (code, show, err) = spindle(&["mimic", "show", t.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(show.contains("probed distances      200"), "{show}");
    let table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&t).unwrap()).unwrap();
    assert!(table["entries"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["prev"] == "R" && e["cur"] == "R"));
    for seed in ["1", "2"] {
        let (code, out, err) = spindle(&[
            "run",
            "--scheduler",
            "smtf",
            "--mimic-table",
            t.to_str().unwrap(),
            "--disk",
            "mimic-base",
            "--synthetic",
            "open",
            "--count",
            "500",
            "--seed",
            seed,
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("smtf scheduler") && out.contains("requests   500"),
            "{out}"
        );
    }
    // Compared with a scheduler that reads no table: the table goes to smtf alone.
    let (code, out, err) = spindle(&[
        "compare",
        "--schedulers",
        "fcfs,smtf",
        "--mimic-table",
        t.to_str().unwrap(),
        "--disk",
        "mimic-base",
        "--synthetic",
        "open",
        "--count",
        "200",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("fcfs") && out.contains("smtf"), "{out}");
    // With writes allowed on a plain data file: all four pairs.
    let w = d.join("w.json");
    let (code, _, err) = spindle(&[
        "mimic",
        "probe",
        "--device",
        f.to_str().unwrap(),
        "--allow-writes",
        "--distances",
        "100",
        "--samples",
        "2",
        "--out",
        w.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let wt = std::fs::read_to_string(&w).unwrap();
    assert!(wt.contains("\"W\""), "no write pair probed");
    // A file shows no rotation.
    let (code, out, err) = spindle(&["probe", "rotation", "--device", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("no rotation found"), "{out}");
}

#[test]
fn bad_devices_are_clear_errors() {
    let d = dir("bad");
    let empty = d.join("empty");
    std::fs::write(&empty, b"").unwrap();
    let small = d.join("small");
    std::fs::write(&small, vec![1u8; 4096]).unwrap();
    let out = d.join("o.json");
    let missing = d.join("no-such-dir").join("dev");
    let cases: [(&Path, &str); 5] = [
        (&missing, "no such file or device"),
        (&d, "is a directory"),
        (&empty, "is empty (0 bytes)"),
        (&small, "a probe needs at least 65536"),
        (
            Path::new("/dev/null"),
            "neither a regular file nor a block device",
        ),
    ];
    for (dev, want) in cases {
        for args in [
            vec![
                "mimic",
                "probe",
                "--device",
                dev.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            vec!["probe", "rotation", "--device", dev.to_str().unwrap()],
        ] {
            let (code, _, err) = spindle(&args);
            assert_eq!(code, 2, "{args:?}: {err}");
            assert!(
                err.contains(want) && err.contains(dev.to_str().unwrap()),
                "{args:?}: {err}"
            );
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    assert!(!out.exists(), "no table is written for a bad device");
    let (code, _, err) = spindle(&["mimic", "probe", "--allow-writes", "--out", "x.json"]);
    assert_eq!(code, 2, "--allow-writes needs --device: {err}");
    let (code, _, err) = spindle(&["probe", "rotation", "--disk", "hp-c2249a", "--samples", "0"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--samples must be within 8..=100000, got 0"),
        "{err}"
    );
    let (code, _, err) = spindle(&["probe", "rotation"]);
    assert_eq!(code, 2);
    assert!(err.contains("--device PATH or --disk NAME"), "{err}");
}

/// A data file with an ext4 superblock magic at byte 1080.
fn ext4_lookalike(path: &Path) {
    data_file(path, 1);
    let mut b = std::fs::read(path).unwrap();
    b[510] = 0;
    b[511] = 0;
    b[1080] = 0x53;
    b[1081] = 0xEF;
    std::fs::write(path, b).unwrap();
}

#[test]
fn writes_are_refused_on_a_file_system() {
    let d = dir("fs");
    let f = d.join("fs.img");
    ext4_lookalike(&f);
    let before = std::fs::read(&f).unwrap();
    let (code, _, err) = spindle(&[
        "mimic",
        "probe",
        "--device",
        f.to_str().unwrap(),
        "--allow-writes",
        "--distances",
        "10",
        "--samples",
        "2",
        "--out",
        d.join("o.json").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--allow-writes refused") && err.contains("ext2/3/4"),
        "{err}"
    );
    assert_eq!(std::fs::read(&f).unwrap(), before, "nothing was written");
}

#[test]
fn a_loop_device_is_probed_and_its_file_system_protected() {
    let d = dir("loop");
    let img = d.join("loop.img");
    ext4_lookalike(&img);
    let attached = Command::new("losetup")
        .args(["-f", "--show", img.to_str().unwrap()])
        .output();
    let dev = match attached {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        other => {
            eprintln!("skipped: losetup does not work here ({other:?})");
            return;
        }
    };
    let t = d.join("t.json");
    let probe = spindle(&[
        "mimic",
        "probe",
        "--device",
        &dev,
        "--distances",
        "100",
        "--samples",
        "2",
        "--out",
        t.to_str().unwrap(),
    ]);
    let refused = spindle(&[
        "mimic",
        "probe",
        "--device",
        &dev,
        "--allow-writes",
        "--distances",
        "10",
        "--out",
        d.join("o.json").to_str().unwrap(),
    ]);
    let _ = Command::new("losetup").args(["-d", &dev]).status();
    assert_eq!(probe.0, 0, "{}", probe.2);
    assert!(probe.1.contains("block device"), "{}", probe.1);
    assert_eq!(refused.0, 2, "{}", refused.2);
    assert!(refused.2.contains("ext2/3/4"), "{}", refused.2);
}

#[test]
fn rotation_of_a_simulated_disk_is_recovered() {
    for (disk, rpm, spt) in [
        ("hp-c2249a", "5400.0 rpm", "96"),
        ("cheetah15k5", "15000.0 rpm", ""),
    ] {
        let (code, out, err) = spindle(&["probe", "rotation", "--disk", disk, "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            v["sectors_per_track"], v["preset_sectors_per_track"],
            "{out}"
        );
        let got = v["rpm"].as_f64().unwrap();
        let want = v["preset_rpm"].as_f64().unwrap();
        assert!((got - want).abs() < want * 1e-3, "{out}");
        let (_, text, _) = spindle(&["probe", "rotation", "--disk", disk]);
        assert!(text.contains(rpm), "{text}");
        assert!(
            text.contains(&format!("sectors per track     {spt}")),
            "{text}"
        );
    }
}

#[test]
fn run_prints_fio_json() {
    let args = [
        "run",
        "--synthetic",
        "open",
        "--count",
        "600",
        "--queue-depth",
        "4",
    ];
    let with = |extra: &[&str]| {
        let mut a = args.to_vec();
        a.extend_from_slice(extra);
        let (code, out, err) = spindle(&a);
        assert_eq!(code, 0, "{err}");
        out
    };
    for fmt in [
        &["--format", "fio-json"][..],
        &["--output-format", "fio-json"],
    ] {
        let v: serde_json::Value = serde_json::from_str(&with(fmt)).unwrap();
        let job = &v["jobs"][0];
        let total = job["read"]["total_ios"].as_u64().unwrap()
            + job["write"]["total_ios"].as_u64().unwrap();
        assert_eq!(total, 600);
        assert!(v["fio version"].as_str().unwrap().starts_with("spindle-"));
        assert!(job["read"]["clat_ns"]["percentile"]["99.990000"].is_u64());
    }
    // --json is unchanged; --format json and --output-format json are the same.
    let json = with(&["--json"]);
    assert_eq!(with(&["--format", "json"]), json);
    assert_eq!(with(&["--output-format", "json"]), json);
    assert_eq!(with(&["--format", "text"]), with(&[]));
    let (code, _, err) = spindle(&["run", "--json", "--output-format", "fio-json"]);
    assert_eq!(code, 2, "{err}");
}
