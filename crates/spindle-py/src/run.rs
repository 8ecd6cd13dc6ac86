//! `spindle.run`: a stack the CLI can build, run in-process with the GIL released, its
//! requests collected as columns.

use crate::columns::{self, Col, Columns};
use crate::errors::to_py;
use anyhow::{anyhow, bail};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use spindle::config::{LoadedWorkload, RunConfig};
use spindle::stack::metrics::RequestLog;
use spindle::time::SimTime;
use spindle::trace::IoRecord;
use spindle_cli::run::{load_workload, outcome_json, run_config};

/// Options as (name, value-or-None) pairs, parsed as `spindle run` flags.
pub type Pairs = Vec<(String, Option<String>)>;

/// Most request rows one result holds (about 100 bytes each in Rust and again in
/// Python: 1 GB apiece at the limit). Checked against the workload's request count
/// before the run starts; `requests=False` lifts it (metrics only).
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

/// The requests of a run, one entry per completed request, in completion order.
#[derive(Default)]
struct Rows {
    id: Vec<u64>,
    device: Vec<u32>,
    lbn: Vec<u64>,
    blocks: Vec<u32>,
    write: Vec<bool>,
    arrival: Vec<u64>,
    dispatch: Vec<u64>,
    start: Vec<u64>,
    done: Vec<u64>,
    overhead: Vec<u64>,
    seek: Vec<u64>,
    rotation: Vec<u64>,
    transfer: Vec<u64>,
    cache_hit: Vec<bool>,
    background: Vec<bool>,
    process: Vec<i64>,
}

impl Rows {
    fn with_capacity(n: usize) -> Rows {
        Rows {
            id: Vec::with_capacity(n),
            device: Vec::with_capacity(n),
            lbn: Vec::with_capacity(n),
            blocks: Vec::with_capacity(n),
            write: Vec::with_capacity(n),
            arrival: Vec::with_capacity(n),
            dispatch: Vec::with_capacity(n),
            start: Vec::with_capacity(n),
            done: Vec::with_capacity(n),
            overhead: Vec::with_capacity(n),
            seek: Vec::with_capacity(n),
            rotation: Vec::with_capacity(n),
            transfer: Vec::with_capacity(n),
            cache_hit: Vec::with_capacity(n),
            background: Vec::with_capacity(n),
            process: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, l: &RequestLog) {
        self.id.push(l.id);
        self.device.push(l.device);
        self.lbn.push(l.lbn);
        self.blocks.push(l.blocks);
        self.write.push(l.write);
        self.arrival.push(l.arrival.0);
        self.dispatch.push(l.dispatch.0);
        self.start.push(l.start.0);
        self.done.push(l.done.0);
        self.overhead.push(l.breakdown.overhead_ns);
        self.seek.push(l.breakdown.seek_ns);
        self.rotation.push(l.breakdown.rotation_ns);
        self.transfer.push(l.breakdown.transfer_ns);
        self.cache_hit.push(l.cache_hit);
        self.background.push(l.background);
        self.process.push(l.process.map_or(-1, i64::from));
    }

    /// The columns in request-id (issue) order; times in ns, offsets and sizes in
    /// bytes. The Python side names them and derives the response, queue and service
    /// times.
    fn columns(self) -> Columns {
        let n = self.id.len();
        let mut order: Vec<usize> = (0..n).collect();
        if self.id.windows(2).any(|w| w[0] > w[1]) {
            order.sort_by_key(|&i| self.id[i]);
        }
        let i64s = |v: &[u64]| Col::I64(order.iter().map(|&i| columns::ns(v[i])).collect());
        let bools = |v: &[bool]| Col::Bool(order.iter().map(|&i| v[i]).collect());
        vec![
            ("id", i64s(&self.id)),
            ("arrival", i64s(&self.arrival)),
            (
                "device",
                Col::I64(order.iter().map(|&i| i64::from(self.device[i])).collect()),
            ),
            ("write", bools(&self.write)),
            (
                "offset",
                Col::I64(
                    order
                        .iter()
                        .map(|&i| columns::ns(self.lbn[i].saturating_mul(512)))
                        .collect(),
                ),
            ),
            (
                "size",
                Col::I64(
                    order
                        .iter()
                        .map(|&i| i64::from(self.blocks[i]) * 512)
                        .collect(),
                ),
            ),
            ("dispatch", i64s(&self.dispatch)),
            ("start", i64s(&self.start)),
            ("done", i64s(&self.done)),
            ("overhead", i64s(&self.overhead)),
            ("seek", i64s(&self.seek)),
            ("rotation", i64s(&self.rotation)),
            ("transfer", i64s(&self.transfer)),
            ("cache_hit", bools(&self.cache_hit)),
            ("background", bools(&self.background)),
            (
                "process",
                Col::I64(order.iter().map(|&i| self.process[i]).collect()),
            ),
        ]
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
    c.workload.synthetic = None;
    Ok(LoadedWorkload::Open(recs))
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

/// What a run returns: `spindle run --json`'s text and the request columns (if asked).
type RunOut<'py> = (
    String,
    Option<Vec<(&'static str, &'static str, Bound<'py, PyBytes>)>>,
);

/// Runs a stack. `options`: `spindle run` flags as pairs; `config_text`: a TOML run
/// configuration (instead of `--config FILE`); `workload`: requests given as columns
/// (instead of the trace or synthetic workload of the options); `collect`: keep one row
/// per request (at most `MAX_REQUEST_ROWS`).
#[pyfunction]
#[pyo3(signature = (options, config_text=None, workload=None, collect=true))]
pub fn run<'py>(
    py: Python<'py>,
    options: Pairs,
    config_text: Option<String>,
    workload: Option<WorkloadBytes<'py>>,
    collect: bool,
) -> PyResult<RunOut<'py>> {
    let mut opts = spindle_cli::options::from_pairs(options).map_err(to_py)?;
    if workload.is_some() && (opts.stack.trace.is_some() || opts.stack.synthetic.is_some()) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "give one workload: workload= (arrays or a DataFrame), trace= or synthetic=, not several",
        ));
    }
    opts.stack.config_text = config_text;
    let given = workload.as_ref().map(records).transpose()?;
    let (json, rows) = py
        .detach(|| -> anyhow::Result<(String, Option<Rows>)> {
            let mut c = opts.config()?;
            let mut w = match given {
                Some(recs) => given_workload(&mut c, recs)?,
                None => load_workload(&c)?,
            };
            let n = total(&w);
            let mut rows = None;
            if collect {
                if n > MAX_REQUEST_ROWS {
                    bail!(
                        "the run has {n} requests, more than the {MAX_REQUEST_ROWS} request rows a result holds: pass requests=False (metrics only) or run fewer requests"
                    );
                }
                rows = Some(Rows::with_capacity(n as usize));
            }
            let out = run_config(&c, &mut w, "replaying", &mut |l| {
                if let Some(r) = rows.as_mut() {
                    if r.id.len() as u64 >= MAX_REQUEST_ROWS {
                        bail!("the run completed more than the {MAX_REQUEST_ROWS} request rows a result holds: pass requests=False (metrics only)");
                    }
                    r.push(l);
                }
                Ok(())
            })?;
            let mut v = outcome_json(&c, &out);
            // The per-node table as the Python side shows it: the CLI's `nodes` keeps
            // its shape; these add whether a node is a drive and its busy time in ns.
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
            Ok((serde_json::to_string(&v)?, rows))
        })
        .map_err(to_py)?;
    let cols = match rows {
        Some(r) => {
            let cols = py.detach(|| r.columns());
            Some(columns::to_py(py, &cols)?)
        }
        None => None,
    };
    Ok((json, cols))
}
