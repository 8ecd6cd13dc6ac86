//! A trace streamed from its file by `WorkloadConfig::load` gives the same simulation
//! as the same trace read whole into a `Vec`, filtered and compressed in memory.

use spindle::config::{LoadedWorkload, RunConfig, WorkloadConfig};
use spindle::engine::{self, RunOptions, Source};
use spindle::trace::{read_trace, records_until_error, resolve, Format, IoRecord};
use spindle::workload::compress;
use std::path::Path;

/// The records as `WorkloadConfig::load` built them before it streamed: the whole
/// trace read, then filtered, truncated and compressed in memory (the reference).
fn vec_workload(w: &WorkloadConfig) -> Vec<IoRecord> {
    let spec = w.trace.as_ref().and_then(|t| t.single()).unwrap();
    let format = w.format.as_deref().map(|f| f.parse::<Format>().unwrap());
    let mut recs = if spec.starts_with("sample:") || format.is_none() {
        resolve(spec).unwrap()
    } else {
        read_trace(Path::new(spec), format).unwrap()
    };
    if let Some(d) = w.device {
        recs.retain(|r| r.device == d);
        for r in &mut recs {
            r.device = 0;
        }
    }
    if let Some(n) = w.limit {
        recs.truncate(n);
    }
    if let Some(f) = w.compress {
        recs = compress(&recs, f);
    }
    recs
}

/// (id, device, lbn, arrival, done) of every request, in completion order.
fn run(c: &RunConfig, source: Source<'_>) -> Vec<(u64, u32, u64, u64, u64)> {
    let mut built = c.build().unwrap();
    let mut out = Vec::new();
    engine::run(
        built.root.as_mut(),
        &built.units,
        source,
        RunOptions::default(),
        &mut |l| out.push((l.id, l.device, l.lbn, l.arrival.0, l.done.0)),
    )
    .unwrap();
    out
}

#[test]
fn a_streamed_trace_runs_as_the_loaded_one() {
    let srt = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/traces/ajw.1week.srt");
    for (trace, workload, disks) in [
        ("sample:hplajw", "device = 1\ncompress = 20.0\n", 1),
        ("sample:hplajw", "limit = 3000\ncompress = 50.0\n", 1),
        (srt.to_str().unwrap(), "limit = 2000\n", 2),
        (
            srt.to_str().unwrap(),
            "format = \"hp-srt\"\ndevice = 0\nlimit = 1500\n",
            1,
        ),
    ] {
        let text = format!(
            "[workload]\ntrace = {trace:?}\n{workload}[[disks]]\ndisk = \"hp-c2249a\"\ncount = {disks}\n"
        );
        let c = RunConfig::from_toml(&text, "t.toml").unwrap();
        let recs = vec_workload(&c.workload);
        let want = run(&c, Source::records(&recs));

        let LoadedWorkload::Trace(t) = c.workload.load(0).unwrap() else {
            panic!("an in-order trace streams");
        };
        let (records, count, stride) = (t.records, t.count, t.stride);
        assert_eq!(count, recs.len() as u64, "{text}");
        assert_eq!(stride, engine::device_stride(&recs), "{text}");
        let mut error = None;
        let got = run(
            &c,
            Source::Open {
                requests: Box::new(records_until_error(records, &mut error)),
                stride,
            },
        );
        assert!(error.is_none());
        assert_eq!(got.len(), recs.len(), "{text}");
        assert_eq!(got, want, "{text}");
    }
}
