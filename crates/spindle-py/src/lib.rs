//! The extension module `spindle._core`: the thin layer between Python and the
//! command-line front end's library, so both parse the same options and report the
//! same errors. The Python-facing API lives in `python/spindle/`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod sweep;

/// Options as (name, value-or-None) pairs, parsed as `spindle run` flags.
type Pairs = Vec<(String, Option<String>)>;

/// Runs `spindle run` with these options and `--json` in-process and returns its JSON
/// text. The GIL is released while the stack simulates.
#[pyfunction]
fn run_json(py: Python<'_>, options: Pairs) -> PyResult<String> {
    let opts = spindle_cli::options::from_pairs(options).map_err(value_error)?;
    py.detach(|| -> anyhow::Result<String> {
        let sched = opts.scheduler_kind()?;
        spindle_cli::run::run(&opts.stack, sched, true, None, false)
    })
    .map_err(value_error)
}

/// A CLI error as Python's ValueError, with the CLI's message.
fn value_error(e: anyhow::Error) -> PyErr {
    PyValueError::new_err(format!("{e:#}"))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    sweep::register(m)?;
    Ok(())
}
