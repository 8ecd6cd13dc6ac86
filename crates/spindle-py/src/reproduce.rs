//! `spindle.reproduce`: registered experiments run as `spindle reproduce` runs them,
//! their checks returned as JSON.

use crate::errors::from_text;
use crate::interrupt::interruptible_ticking;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use spindle::experiments::registry::{check_options, select, Durability, RunOpts};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// Runs the experiments `ids` select (catalog ids or prefixes; `all`), `jobs` at once,
/// and returns `[{"experiment", "title", "seconds", "checks": [...]}]` as JSON;
/// `progress` is called with (experiments finished, selected, the last one's id) about
/// twice a second and once at the end.
#[pyfunction]
// One argument per Python keyword: the signature is the Python function's.
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (ids, quick=true, seed=1, full_scale=false, durability="write-through", jobs=None, progress=None))]
pub fn reproduce(
    py: Python<'_>,
    ids: Vec<String>,
    quick: bool,
    seed: u64,
    full_scale: bool,
    durability: &str,
    jobs: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let durability: Durability = durability.parse().map_err(PyValueError::new_err)?;
    if let Some(j) = jobs {
        spindle_cli::limits::count("jobs", j as u64, spindle_cli::limits::MAX_JOBS)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
    }
    let exps = select(&ids).map_err(from_text)?;
    let opts = RunOpts {
        quick,
        seed,
        full_scale,
        durability,
    };
    // The message names the command line's flags; here they are keywords.
    check_options(&exps, &opts).map_err(|e| {
        from_text(e.replace("--full-scale", "full_scale=True").replace(
            &format!("--durability {}", opts.durability.name()),
            &format!("durability={:?}", opts.durability.name()),
        ))
    })?;
    let jobs = jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .min(exps.len())
        .max(1);
    // The experiments finished so far and the last of them, for `progress`.
    let done = AtomicUsize::new(0);
    let last = Mutex::new("");
    let mut report = |py: Python<'_>| -> PyResult<()> {
        match &progress {
            Some(f) => {
                let id = last.lock().map_or("", |l| *l);
                f.call1(py, (done.load(Relaxed), exps.len(), id)).map(drop)
            }
            None => Ok(()),
        }
    };
    // Set if the progress report raised: no further experiment starts.
    let cancel = AtomicBool::new(false);
    let work = || {
        spindle_cli::reproduce::run_all(&exps, &opts, jobs, &|id| {
            if let Ok(mut l) = last.lock() {
                *l = id;
            }
            done.fetch_add(1, Relaxed);
            !cancel.load(Relaxed)
        })
    };
    let outcomes = interruptible_ticking(py, work, &mut report, &cancel)?;
    let mut out = Vec::new();
    for (e, (result, secs)) in exps.iter().zip(outcomes) {
        let o = result.map_err(|err| PyRuntimeError::new_err(format!("{}: {err}", e.id)))?;
        out.push(serde_json::json!({
            "experiment": e.id, "title": e.title, "seconds": secs, "checks": o.checks,
        }));
    }
    // The last report, of the whole run (after it succeeded).
    report(py)?;
    serde_json::to_string(&out).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}
