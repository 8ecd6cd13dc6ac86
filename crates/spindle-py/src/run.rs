//! `spindle.run`: a stack the CLI can build, run in-process with the GIL released, its
//! requests collected as columns.

use crate::columns;
use crate::errors::to_py;
use crate::interrupt::interruptible_ticking;
use anyhow::{anyhow, bail};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};
use spindle::config::{LoadedWorkload, RunConfig};
use spindle::stack::compact_log::CompactLog;
use spindle::stack::fio::FioSummary;
use spindle::stack::metrics::RequestLog;
use spindle::time::SimTime;
use spindle::trace::IoRecord;
use spindle_cli::run::{
    fio_job_options, fio_json_of_logs, fio_value, load_workload, outcome_json, run_config,
};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};

/// Options as (name, value-or-None) pairs, parsed as `spindle run` flags.
pub type Pairs = Vec<(String, Option<String>)>;

/// Most request rows one result holds (about 38 bytes each while the run holds them,
/// at most 104, plus up to 2 MiB a column for huge-page rounding; 131 bytes in the
/// DataFrame: 1.3 GB at the limit). Checked
/// against the workload's request count before the run starts; `requests=False` lifts
/// it (metrics only).
pub const MAX_REQUEST_ROWS: u64 = 10_000_000;

/// Most requests of a workload given as arrays (an `IoRecord` is about 60 bytes).
pub const MAX_WORKLOAD_ROWS: usize = 20_000_000;

/// A workload given as columns (little-endian bytes, `n` values each): arrival ns
/// (int64), device (uint32), LBN (uint64), sectors (uint32), write (uint8 0/1).
type WorkloadBytes<'py> = (
    usize,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
);

/// The int64 columns of a run's request rows, in the DataFrame's order (times in ns
/// from the start of the run, offsets and sizes in bytes).
pub const INT_COLUMNS: [&str; 16] = [
    "Timestamp",
    "DiskNumber",
    "Offset",
    "Size",
    "ResponseTime",
    "RequestId",
    "QueueTime",
    "ServiceTime",
    "DispatchTime",
    "StartTime",
    "DoneTime",
    "OverheadTime",
    "SeekTime",
    "RotationTime",
    "TransferTime",
    "Process",
];

/// The bool columns of a run's request rows (`write` becomes the `Type` column).
pub const BOOL_COLUMNS: [&str; 3] = ["write", "CacheHit", "Background"];

/// One request row's int64 values, in [`INT_COLUMNS`] order.
fn int_row(l: &RequestLog) -> [i64; 16] {
    let ns = columns::ns;
    [
        ns(l.arrival.0),
        i64::from(l.device),
        ns(l.lbn.saturating_mul(512)),
        i64::from(l.blocks) * 512,
        ns(l.response_ns()),
        ns(l.id),
        ns(l.queue_ns()),
        ns(l.service_ns()),
        ns(l.dispatch.0),
        ns(l.start.0),
        ns(l.done.0),
        ns(l.breakdown.overhead_ns),
        ns(l.breakdown.seek_ns),
        ns(l.breakdown.rotation_ns),
        ns(l.breakdown.transfer_ns),
        l.process.map_or(-1, i64::from),
    ]
}

/// The order of rows whose request ids are `ids` by id (issue order): placed directly
/// when the ids are exactly 0..n (every open and closed workload), else sorted.
fn id_order(ids: &[u64]) -> Vec<usize> {
    let n = ids.len();
    let mut order = vec![usize::MAX; n];
    let mut dense = true;
    for (i, &id) in ids.iter().enumerate() {
        match order.get_mut(id as usize) {
            Some(slot) if *slot == usize::MAX && id < n as u64 => *slot = i,
            _ => {
                dense = false;
                break;
            }
        }
    }
    if !dense {
        order = (0..n).collect();
        order.sort_by_key(|&i| ids[i]);
    }
    order
}

/// The request rows as two column-major blocks, written straight into Python
/// `bytearray`s that numpy and pandas then use in place: int64 (16 columns) and bool (3
/// columns), each `n` values per column, in request-id order.
fn request_blocks<'py>(
    py: Python<'py>,
    rows: &CompactLog,
) -> PyResult<(usize, Bound<'py, PyByteArray>, Bound<'py, PyByteArray>)> {
    let n = rows.len();
    let (order, arrivals) = py.detach(|| (id_order(&rows.ids()), rows.arrivals()));
    let mut bools = vec![0u8; n * BOOL_COLUMNS.len()];
    let ints = PyByteArray::new_with(py, n * INT_COLUMNS.len() * 8, |buf| {
        // The buffer is not yet visible to Python: fill it without the GIL.
        py.detach(|| {
            for (k, &i) in order.iter().enumerate() {
                let l = rows.get(i, arrivals[i]);
                for (c, v) in int_row(&l).into_iter().enumerate() {
                    let at = (c * n + k) * 8;
                    buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
                }
                bools[k] = u8::from(l.write);
                bools[n + k] = u8::from(l.cache_hit);
                bools[2 * n + k] = u8::from(l.background);
            }
        });
        Ok(())
    })?;
    let bools = PyByteArray::new(py, &bools);
    Ok((n, ints, bools))
}

/// A run's requests, kept compactly (see [`CompactLog`]: about a third of a
/// `RequestLog` a request) until Python asks for them as a DataFrame: the columns are
/// made on demand.
#[pyclass(module = "spindle._core", frozen)]
pub struct RequestRows {
    rows: CompactLog,
    /// The run's settings, the fio summary's job options.
    options: Vec<(String, String)>,
}

#[pymethods]
impl RequestRows {
    /// The rows as (n, int64 block of REQUEST_INT_COLUMNS, bool block of
    /// REQUEST_BOOL_COLUMNS), each block one column of n values after another, in
    /// request-id (issue) order.
    fn blocks<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(usize, Bound<'py, PyByteArray>, Bound<'py, PyByteArray>)> {
        request_blocks(py, &self.rows)
    }

    fn __len__(&self) -> usize {
        self.rows.len()
    }

    /// Bytes the kept rows take.
    #[getter]
    fn nbytes(&self) -> usize {
        self.rows.bytes()
    }

    /// The run as fio's JSON summarises a job (`spindle run --format fio-json`), made
    /// from the kept rows (in completion order, as the command line counts them).
    fn fio_json(&self, py: Python<'_>) -> PyResult<String> {
        let v = py.detach(|| fio_json_of_logs(&self.options, self.rows.iter()));
        serde_json::to_string(&v).map_err(|e| to_py(e.into()))
    }
}

/// Records from Python's columns, checked, in arrival order (stable, as the trace
/// readers sort).
fn records(w: &WorkloadBytes<'_>) -> PyResult<Vec<IoRecord>> {
    let n = w.0;
    if n > MAX_WORKLOAD_ROWS {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "the workload has {n} requests, more than the {MAX_WORKLOAD_ROWS} a workload given as arrays may have"
        )));
    }
    let arrival = columns::read_le::<8>("time", w.1.as_bytes(), n)?;
    let device = columns::read_le::<4>("device", w.2.as_bytes(), n)?;
    let lbn = columns::read_le::<8>("lbn", w.3.as_bytes(), n)?;
    let blocks = columns::read_le::<4>("sectors", w.4.as_bytes(), n)?;
    let write = w.5.as_bytes();
    if write.len() != n {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "workload column `op`: expected {n} values, got {}",
            write.len()
        )));
    }
    let mut recs = Vec::with_capacity(n);
    for i in 0..n {
        let t = i64::from_le_bytes(arrival[i]);
        let l = u64::from_le_bytes(lbn[i]);
        let b = u32::from_le_bytes(blocks[i]);
        let bad = |msg: String| {
            Err(pyo3::exceptions::PyValueError::new_err(format!(
                "workload row {i}: {msg}"
            )))
        };
        if t < 0 {
            return bad(format!("time {t} ns is negative"));
        }
        if b == 0 {
            return bad("sectors must be at least 1, got 0".into());
        }
        if l.checked_add(u64::from(b)).is_none() {
            return bad(format!("LBN {l} + {b} sectors overflows"));
        }
        recs.push(IoRecord {
            arrival: SimTime(t as u64),
            device: u32::from_le_bytes(device[i]),
            lbn: l,
            blocks: b,
            write: write[i] != 0,
            content: Vec::new(),
        });
    }
    recs.sort_by_key(|r| r.arrival);
    Ok(recs)
}

/// Applies the trace options that make sense for in-memory records (`device`, `limit`,
/// `compress`) and makes the configuration describe no file workload.
fn given_workload(c: &mut RunConfig, mut recs: Vec<IoRecord>) -> anyhow::Result<LoadedWorkload> {
    if c.workload.spread {
        bail!("workload.spread (--spread) applies to open synthetic workloads (--synthetic open), not to a workload given as arrays");
    }
    if let Some(d) = c.workload.device {
        recs.retain(|r| r.device == d);
    }
    if let Some(n) = c.workload.limit {
        recs.truncate(n);
    }
    if let Some(f) = c.workload.compress {
        spindle::workload::check_compress(f).map_err(|e| anyhow!("--{e}"))?;
        recs = spindle::workload::compress(&recs, f);
    }
    if recs.is_empty() {
        bail!("the workload given as arrays has no requests");
    }
    c.workload.trace = None;
    c.workload.trace_devices = None;
    c.workload.synthetic = None;
    c.workload.content_trace = None;
    Ok(LoadedWorkload::Open(recs))
}

/// `on_done` that also counts the workload's completed requests into `done`, if given,
/// and stops the run once `cancel` is set (the progress report raised).
fn counting<'a>(
    counter: Option<(&'a AtomicU64, &'a AtomicBool)>,
    mut on_done: impl FnMut(&RequestLog) -> anyhow::Result<()> + 'a,
) -> impl FnMut(&RequestLog) -> anyhow::Result<()> + 'a {
    move |l| {
        if let Some((done, cancel)) = counter {
            if cancel.load(Relaxed) {
                bail!("stopped: the progress report raised");
            }
            if !l.background {
                done.fetch_add(1, Relaxed);
            }
        }
        on_done(l)
    }
}

/// How many requests a workload will issue.
fn total(w: &LoadedWorkload) -> u64 {
    match w {
        LoadedWorkload::Open(r) => r.len() as u64,
        LoadedWorkload::Stream(s) => s.remaining(),
        LoadedWorkload::Trace(t) => t.count,
        LoadedWorkload::Closed(c) => c.spec().requests,
    }
}

/// What a run returns: `spindle run --json`'s text and the request rows (if asked).
type RunOut = (String, Option<RequestRows>);

/// Runs a stack. `options`: `spindle run` flags as pairs; `config_text`: a TOML run
/// configuration (instead of `--config FILE`); `workload`: requests given as columns
/// (instead of the trace or synthetic workload of the options); `collect`: keep one row
/// per request (at most `MAX_REQUEST_ROWS`); `fio`: without rows, keep the fio summary
/// as the run goes (with rows it is made from them when asked).
/// `progress`: called about twice a second, and once at the end, with (requests
/// done, requests in the workload).
#[pyfunction]
#[pyo3(signature = (options, config_text=None, workload=None, collect=true, fio=true, progress=None))]
pub fn run<'py>(
    py: Python<'py>,
    options: Pairs,
    config_text: Option<String>,
    workload: Option<WorkloadBytes<'py>>,
    collect: bool,
    fio: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<RunOut> {
    let mut opts = spindle_cli::options::from_pairs(options).map_err(to_py)?;
    if workload.is_some() && (!opts.stack.trace.is_empty() || opts.stack.synthetic.is_some()) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "give one workload: workload= (arrays or a DataFrame), trace= or synthetic=, not several",
        ));
    }
    if workload.is_some() && opts.stack.trace_devices.is_some() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "trace_devices= applies to trace files merged (trace=[...]), not to workload=",
        ));
    }
    opts.stack.config_text = config_text;
    let given = workload.as_ref().map(records).transpose()?;
    // Counted only for a progress report; `cancel` set if it raised.
    let (done, in_workload) = (AtomicU64::new(0), AtomicU64::new(0));
    let cancel = AtomicBool::new(false);
    let counter = progress.is_some().then_some((&done, &cancel));
    let mut report = |py: Python<'_>| -> PyResult<()> {
        match &progress {
            Some(f) => f
                .call1(py, (done.load(Relaxed), in_workload.load(Relaxed)))
                .map(drop),
            None => Ok(()),
        }
    };
    let work = || -> anyhow::Result<_> {
        let mut c = opts.config()?;
        let mut w = match given {
            Some(recs) => given_workload(&mut c, recs)?,
            None => load_workload(&c)?,
        };
        let n = total(&w);
        in_workload.store(n, Relaxed);
        if !collect && !fio {
            let out = run_config(&c, &mut w, "replaying", &mut counting(counter, |_| Ok(())))?;
            return Ok((run_json(&c, &out, None)?, None));
        }
        if !collect {
            // No rows to make the fio summary from later: it is kept as the run goes.
            let mut fio = FioSummary::new();
            let out = run_config(
                &c,
                &mut w,
                "replaying",
                &mut counting(counter, |l| {
                    // The workload's requests only, as the metrics count them.
                    if !l.background {
                        fio.record(l);
                    }
                    Ok(())
                }),
            )?;
            return Ok((run_json(&c, &out, Some(fio_value(&c, &fio)))?, None));
        }
        if n > MAX_REQUEST_ROWS {
            bail!(
                    "the run has {n} requests, more than the {MAX_REQUEST_ROWS} request rows a result holds: pass requests=False (metrics only) or run fewer requests"
                );
        }
        let mut rows = CompactLog::with_capacity(n as usize);
        let out = run_config(
            &c,
            &mut w,
            "replaying",
            &mut counting(counter, |l| {
                if rows.len() as u64 >= MAX_REQUEST_ROWS {
                    bail!("the run completed more than the {MAX_REQUEST_ROWS} request rows a result holds: pass requests=False (metrics only)");
                }
                rows.push(l);
                Ok(())
            }),
        )?;
        Ok((
            run_json(&c, &out, None)?,
            Some(RequestRows {
                rows,
                options: fio_job_options(&c),
            }),
        ))
    };
    let (json, placed) = interruptible_ticking(py, work, &mut report, &cancel)?.map_err(to_py)?;
    // The last report, of the whole run: a progress bar ends full.
    report(py)?;
    Ok((json, placed))
}

/// The run's JSON: `spindle run --json`'s, and the per-node table as the Python side
/// shows it (the CLI's `nodes` keeps its shape; these add whether a node is a drive and
/// its busy time in ns).
fn run_json(
    c: &RunConfig,
    out: &spindle_cli::run::Outcome,
    fio: Option<serde_json::Value>,
) -> anyhow::Result<String> {
    let mut v = outcome_json(c, out);
    if let Some(fio) = fio {
        v["fio"] = fio;
    }
    v["node_reports"] = out
        .nodes
        .iter()
        .map(|n| {
            serde_json::json!({
                "path": n.path, "kind": n.kind, "is_drive": n.is_drive,
                "reads": n.reads, "writes": n.writes, "busy_ns": n.busy_ns,
                "extra": n.extra.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
            })
        })
        .collect();
    // What `spindle run` says on standard error beside its summary, for a warning.
    v["notes"] = spindle_cli::run::scan_note(&out.nodes)
        .into_iter()
        .collect();
    Ok(serde_json::to_string(&v)?)
}
