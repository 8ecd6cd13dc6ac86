//! A trace run streamed from its file gives the same simulation as the same trace
//! loaded into a `Vec` by `WorkloadConfig::load`: the recipe for wiring the streaming
//! readers and the workload adapters into a run.

use spindle::engine::{self, RunOptions, Source};
use spindle::stack::config::{LoadedWorkload, RunConfig, WorkloadConfig};
use spindle::trace::{
    open_trace, records_until_error, resolve_extent, resolve_stream, trace_extent, Format,
    IoRecord, TraceError, TraceExtent, TraceStream,
};
use spindle::workload::{compress_stream, limit, only_device};
use std::path::Path;

type Records = Box<dyn Iterator<Item = Result<IoRecord, TraceError>> + Send>;

/// What `WorkloadConfig::load` would build for a trace: the records as a stream, how
/// many there are and the engine's stride, each found without holding the records.
fn stream_workload(w: &WorkloadConfig) -> Result<(Records, u64, u64), String> {
    let spec = w.trace.as_deref().ok_or("no trace")?;
    let format = w.format.as_deref().map(str::parse::<Format>).transpose()?;
    let open = || -> Result<TraceStream<'static>, TraceError> {
        match format {
            Some(f) if !spec.starts_with("sample:") => open_trace(Path::new(spec), Some(f)),
            _ => resolve_stream(spec),
        }
    };
    let filtered = |s: TraceStream<'static>| -> Records {
        let mut s: Records = Box::new(s);
        if let Some(d) = w.device {
            s = Box::new(only_device(s, d));
        }
        if let Some(n) = w.limit {
            s = Box::new(limit(s, n));
        }
        s
    };
    // One cheap pass for the extent (count and stride).
    let extent = match format {
        Some(f) if !spec.starts_with("sample:") => trace_extent(Path::new(spec), Some(f)),
        _ => resolve_extent(spec),
    }
    .map_err(|e| e.to_string())?;
    if !extent.in_order {
        return Err(format!("{spec} is not in arrival order"));
    }
    let (count, stride) = match (w.device, w.limit) {
        (_, Some(_)) => {
            // The stride of the records kept: a pass over the first `limit` only.
            let mut error = None;
            let e = TraceExtent::of(records_until_error(
                filtered(open().map_err(|e| e.to_string())?),
                &mut error,
            ));
            if let Some(e) = error {
                return Err(e.to_string());
            }
            (e.records, e.max_end_lbn)
        }
        (Some(d), None) => extent
            .devices
            .get(&d)
            .map_or((0, 0), |e| (e.records, e.max_end_lbn)),
        (None, None) => (extent.records, extent.max_end_lbn),
    };
    let mut records = filtered(open().map_err(|e| e.to_string())?);
    if let Some(f) = w.compress {
        records = Box::new(compress_stream(records, f));
    }
    Ok((records, count, stride))
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
        let LoadedWorkload::Open(recs) = c.workload.load(0).unwrap() else {
            panic!("a trace loads as Open");
        };
        let want = run(&c, Source::records(&recs));

        let (records, count, stride) = stream_workload(&c.workload).unwrap();
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
