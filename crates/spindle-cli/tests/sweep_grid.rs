//! `spindle sweep` grid files through the binary: a file with no `[grid]` keys (empty,
//! only comments, an empty `[grid]`, only `[fixed]`) has no points to sweep and is
//! refused with exit status 2, naming the file, before anything runs or is written.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_spindle");

/// A fresh directory for one test, under the target directory.
fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sweep-grid-{name}"));
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

#[test]
fn a_grid_file_without_grid_keys_is_refused_naming_the_file() {
    let d = dir("empty");
    let cases = [
        ("empty.toml", ""),
        ("comments.toml", "# a sweep, some day\n\n"),
        ("empty-table.toml", "[grid]\n"),
        (
            "fixed-only.toml",
            "[fixed]\nsynthetic = \"open\"\ncount = 5\n",
        ),
    ];
    for (name, text) in cases {
        let grid = d.join(name);
        std::fs::write(&grid, text).unwrap();
        let grid = grid.to_str().unwrap();
        let out = d.join(format!("{name}.parquet"));
        let csv = d.join(format!("{name}.csv"));
        for list in [false, true] {
            let mut args = vec![
                "sweep",
                grid,
                "--out",
                out.to_str().unwrap(),
                "--csv",
                csv.to_str().unwrap(),
            ];
            if list {
                args.push("--list");
            }
            let (code, stdout, stderr) = spindle(&args);
            assert_eq!(code, 2, "{name} (list {list}): {stdout}{stderr}");
            assert!(
                stderr.contains(&format!("{grid}: no points: the file has no [grid] keys")),
                "{name}: {stderr}"
            );
            assert!(
                stderr.contains("expected a [grid] table of lists"),
                "{name}: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{name}: {stderr}");
            assert!(stdout.is_empty(), "{name}: {stdout}");
            assert!(!out.exists() && !csv.exists(), "{name}: wrote a result");
        }
    }
}

#[test]
fn a_grid_of_one_one_value_key_runs_its_one_point() {
    let d = dir("one");
    let grid = d.join("one.toml");
    std::fs::write(
        &grid,
        "[grid]\nseed = [1]\n[fixed]\nsynthetic = \"open\"\ncount = 5\n",
    )
    .unwrap();
    let out = d.join("one.parquet");
    let (code, stdout, stderr) = spindle(&[
        "sweep",
        grid.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "1",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("1 points: 1 run"), "{stdout}");
    assert!(out.exists());
}
