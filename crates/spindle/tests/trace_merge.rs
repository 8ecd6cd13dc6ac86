//! Several trace files merged into one trace (`spindle::trace::merge`): the order is the
//! files' records stably sorted by arrival (file order breaking ties), formats with an
//! absolute clock share one time base, devices are numbered as asked, and every error
//! names its file.

use proptest::prelude::*;
use spindle::config::{LoadedWorkload, WorkloadConfig};
use spindle::trace::merge::{extent, open, open_from};
use spindle::trace::{DeviceNumbering, IoRecord, TraceExtent, TraceFiles};
use std::io::Write;
use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("trace_merge")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn files(paths: &[PathBuf]) -> TraceFiles {
    TraceFiles::new(paths.iter().map(|p| p.display().to_string()).collect()).unwrap()
}

fn read(t: &TraceFiles, n: Option<DeviceNumbering>) -> Result<Vec<IoRecord>, String> {
    open(t, None, n)
        .map_err(|e| e.to_string())?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

/// (arrival µs, device, lbn, blocks, write) as a spindle CSV file.
fn write_csv(path: &Path, recs: &[(u64, u32, u64, u32, bool)]) {
    let mut text = String::from("arrival_ms,device,lbn,blocks,op\n");
    for (us, d, lbn, blocks, w) in recs {
        text += &format!(
            "{}.{:03},{d},{lbn},{blocks},{}\n",
            us / 1000,
            us % 1000,
            if *w { "W" } else { "R" }
        );
    }
    std::fs::write(path, text).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Files each in arrival order merge into their records together, stably sorted by
    /// arrival in the order the files are given; per-file numbering only renames the
    /// devices; the extent is the merged records'.
    #[test]
    fn merge_is_the_stable_sort_of_the_files_in_order(
        parts in prop::collection::vec(
            prop::collection::vec((0u64..50, 0u32..3, 0u64..1000, 1u32..64, any::<bool>()), 0..30),
            1..5,
        ),
        case in any::<u64>(),
    ) {
        let d = dir(&format!("prop-{case}"));
        let mut paths = Vec::new();
        let mut expected: Vec<(usize, IoRecord)> = Vec::new();
        for (k, part) in parts.iter().enumerate() {
            // Each file in arrival order (ties keep their drawn order); each file holds
            // devices of its own, so unsaid numbering is accepted.
            let mut recs: Vec<(u64, u32, u64, u32, bool)> = part
                .iter()
                .map(|&(t, dev, lbn, blocks, w)| (t * 250, dev + 3 * k as u32, lbn, blocks, w))
                .collect();
            recs.sort_by_key(|r| r.0);
            let p = d.join(format!("f{k}.csv"));
            write_csv(&p, &recs);
            paths.push(p);
            for &(us, dev, lbn, blocks, write) in &recs {
                expected.push((k, IoRecord {
                    arrival: spindle::time::SimTime(us * 1000),
                    device: dev,
                    lbn,
                    blocks,
                    write,
                    content: Vec::new(),
                }));
            }
        }
        expected.sort_by_key(|(_, r)| r.arrival);
        let t = files(&paths);
        let plain: Vec<IoRecord> = expected.iter().map(|(_, r)| r.clone()).collect();
        for numbering in [None, Some(DeviceNumbering::AsRecorded)] {
            let got = read(&t, numbering).unwrap();
            prop_assert_eq!(&got, &plain);
            prop_assert_eq!(extent(&t, None, numbering).unwrap(), TraceExtent::of(got));
        }
        // Per-file needs one device per file: draw the files again with one each.
        let d1 = dir(&format!("prop-{case}-one"));
        let mut one_paths = Vec::new();
        for (k, part) in parts.iter().enumerate() {
            let mut recs: Vec<_> = part.iter().map(|&(t, _, lbn, b, w)| (t * 250, 7, lbn, b, w)).collect();
            recs.sort_by_key(|r| r.0);
            let p = d1.join(format!("f{k}.csv"));
            write_csv(&p, &recs);
            one_paths.push(p);
        }
        let got = read(&files(&one_paths), Some(DeviceNumbering::PerFile)).unwrap();
        let want: Vec<IoRecord> = expected
            .iter()
            .map(|(k, r)| IoRecord { device: *k as u32, ..r.clone() })
            .collect();
        prop_assert_eq!(got, want);
        let _ = std::fs::remove_dir_all(&d);
        let _ = std::fs::remove_dir_all(&d1);
    }
}

/// MSR volumes keep their places in time: one clock, from the earliest record of all.
#[test]
fn absolute_clocks_share_the_earliest_record_of_all_files() {
    let d = dir("msr");
    let a = d.join("hm_0.csv");
    let b = d.join("src1_0.csv.gz");
    std::fs::write(
        &a,
        "128166372003061629,hm,0,Read,383496192,32768,10387\n\
         128166372046382405,hm,0,Read,3221221376,65536,67624\n",
    )
    .unwrap();
    // The second volume starts first, and comes gzip-compressed.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(
        b"128166372000000000,src1,0,Write,0,4096,10\n128166372026382245,src1,0,Read,4096,4096,10\n",
    )
    .unwrap();
    std::fs::write(&b, gz.finish().unwrap()).unwrap();
    let got = read(
        &files(&[a.clone(), b.clone()]),
        Some(DeviceNumbering::PerFile),
    )
    .unwrap();
    // A file without records does not move the clock, whichever way the stream opens.
    let empty = d.join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    let three = TraceFiles::new(vec![
        a.display().to_string(),
        b.display().to_string(),
        format!("msr:{}", empty.display()),
    ])
    .unwrap();
    let n = Some(DeviceNumbering::PerFile);
    assert_eq!(read(&three, n).unwrap(), got);
    let e = extent(&three, None, n).unwrap();
    let from: Vec<IoRecord> = open_from(&three, None, n, &e)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(from, got);
    let base = 128166372000000000u64;
    let at = |ticks: u64| (ticks - base) * 100;
    let seen: Vec<(u64, u32, u64)> = got.iter().map(|r| (r.arrival.0, r.device, r.lbn)).collect();
    assert_eq!(
        seen,
        vec![
            (0, 1, 0),
            (at(128166372003061629), 0, 383496192 / 512),
            (at(128166372026382245), 1, 8),
            (at(128166372046382405), 0, 3221221376 / 512),
        ]
    );
}

#[test]
fn every_error_names_its_file() {
    let d = dir("errors");
    let a = d.join("a.csv");
    let b = d.join("b.csv");
    let two = d.join("two.csv");
    let bad = d.join("bad.csv");
    write_csv(&a, &[(0, 0, 0, 8, false), (2000, 0, 8, 8, false)]);
    write_csv(&b, &[(1000, 0, 0, 8, true)]);
    write_csv(&two, &[(0, 0, 0, 8, false), (5, 1, 0, 8, false)]);
    std::fs::write(
        &bad,
        "arrival_ms,device,lbn,blocks,op\n1,0,0,8,R\n2,0,x,8,R\n",
    )
    .unwrap();
    let msr = d.join("m.csv");
    std::fs::write(&msr, "128166372003061629,hm,0,Read,0,512,1\n").unwrap();
    let err = |paths: &[&PathBuf], n: Option<DeviceNumbering>| {
        let t = TraceFiles::new(paths.iter().map(|p| p.display().to_string()).collect()).unwrap();
        read(&t, n).unwrap_err()
    };
    let e = err(&[&a, &b], None);
    assert!(
        e.starts_with(&format!(
            "{}:2: device 0 is in {}",
            b.display(),
            a.display()
        )),
        "{e}"
    );
    // Saying so, the same files merge.
    assert_eq!(
        read(
            &files(&[a.clone(), b.clone()]),
            Some(DeviceNumbering::AsRecorded)
        )
        .unwrap()
        .len(),
        3
    );
    let e = err(&[&a, &two], Some(DeviceNumbering::PerFile));
    assert!(
        e.starts_with(&format!("{}:3: device 1 after device 0", two.display())),
        "{e}"
    );
    let e = err(&[&a, &bad], Some(DeviceNumbering::AsRecorded));
    assert!(e.starts_with(&format!("{}:3: ", bad.display())), "{e}");
    let e = err(&[&a, &msr], None);
    assert!(e.contains("is msr but") && e.contains("spindle-csv"), "{e}");
    let e = read(
        &TraceFiles::new(vec![a.display().to_string(), "sample:hplajw".into()]).unwrap(),
        None,
    )
    .unwrap_err();
    assert!(
        e.contains("is a built-in sample, read as it is and alone"),
        "{e}"
    );
    // blktrace files keep their own clocks; blkparse numbers each file's devices anew.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    let both = |x: &str, y: &str, n| {
        let t = TraceFiles::new(vec![
            fixtures.join(x).display().to_string(),
            fixtures.join(y).display().to_string(),
        ])
        .unwrap();
        read(&t, n).unwrap_err()
    };
    let e = both(
        "blktrace-sdx.bin",
        "blktrace-sdx-be.bin",
        Some(DeviceNumbering::PerFile),
    );
    assert!(
        e.contains("blktrace files are each timed from their own first event"),
        "{e}"
    );
    let e = both(
        "blkparse-sda.txt",
        "blktrace-sdx.blkparse.txt",
        Some(DeviceNumbering::AsRecorded),
    );
    assert!(
        e.contains("blkparse devices are numbered from 0 in each file"),
        "{e}"
    );
    let missing = d.join("missing.csv");
    let e = err(&[&a, &missing], None);
    assert!(e.contains("missing.csv"), "{e}");
    assert!(TraceFiles::new(Vec::new()).is_err());
    assert!(TraceFiles::new(vec!["x".into(); spindle::trace::merge::MAX_TRACE_FILES + 1]).is_err());
}

/// A workload of several files, written in TOML as a list, loads as the merged stream;
/// one file is still written as a string.
#[test]
fn a_workload_lists_its_files() {
    let d = dir("config");
    let a = d.join("a.csv");
    let b = d.join("b.csv");
    write_csv(&a, &[(0, 0, 0, 8, false), (3000, 0, 64, 8, true)]);
    write_csv(&b, &[(1000, 0, 0, 16, false)]);
    let text = format!(
        "trace = [\"{}\", \"{}\"]\ntrace-devices = \"per-file\"\n",
        a.display(),
        b.display()
    );
    let w: WorkloadConfig = toml::from_str(&text).unwrap();
    assert_eq!(toml::to_string(&w).unwrap(), text);
    let recs: Vec<IoRecord> = match w.load(1 << 30).unwrap() {
        LoadedWorkload::Trace(t) => t.records.map(Result::unwrap).collect(),
        LoadedWorkload::Open(r) => r,
        _ => panic!("a trace"),
    };
    let seen: Vec<(u64, u32)> = recs.iter().map(|r| (r.arrival.0, r.device)).collect();
    assert_eq!(seen, vec![(0, 0), (1_000_000, 1), (3_000_000, 0)]);
    let one: WorkloadConfig = toml::from_str("trace = \"sample:hplajw\"\n").unwrap();
    assert_eq!(one.trace, Some(TraceFiles::one("sample:hplajw")));
    assert_eq!(
        toml::to_string(&one).unwrap(),
        "trace = \"sample:hplajw\"\n"
    );
}

/// A run times a file out of arrival order from its earliest record (found by its
/// extent pass), as the file's own stream does.
#[test]
fn a_run_times_a_file_from_its_earliest_record() {
    let d = dir("unsorted");
    let a = d.join("m.csv");
    std::fs::write(
        &a,
        "128166372003061629,hm,0,Read,0,512,1\n\
         128166372000000000,hm,0,Read,512,512,1\n\
         128166372009999999,hm,0,Read,1024,512,1\n",
    )
    .unwrap();
    let t = TraceFiles::one(a.display().to_string());
    let mut own = read(&t, None).unwrap();
    own.sort_by_key(|r| r.arrival);
    assert_eq!(own[0].arrival.0, 0);
    let w = WorkloadConfig {
        trace: Some(t),
        ..WorkloadConfig::default()
    };
    let recs: Vec<IoRecord> = match w.load(1 << 30).unwrap() {
        LoadedWorkload::Trace(t) => t.records.map(Result::unwrap).collect(),
        LoadedWorkload::Open(r) => r,
        _ => panic!("a trace"),
    };
    assert_eq!(recs, own);
}
