//! The extension module `spindle._core`: the thin layer between Python and the
//! command-line front end's library, so both parse the same options, build the same
//! stacks and report the same errors. The Python-facing API (names, docstrings,
//! pandas) lives in `python/spindle/`; here values cross as columns of bytes.

mod columns;
mod disk;
mod errors;
mod interrupt;
mod mimic;
mod reproduce;
mod run;
mod sweep;
mod torture;
mod trace;
mod validate;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_REQUEST_ROWS", run::MAX_REQUEST_ROWS)?;
    m.add("REQUEST_INT_COLUMNS", run::INT_COLUMNS.to_vec())?;
    m.add("REQUEST_BOOL_COLUMNS", run::BOOL_COLUMNS.to_vec())?;
    m.add("MAX_WORKLOAD_ROWS", run::MAX_WORKLOAD_ROWS)?;
    m.add("MAX_CHUNK", trace::MAX_CHUNK)?;
    m.add("MAX_QUERY", disk::MAX_QUERY)?;
    m.add("MAX_DISTANCES", spindle_cli::limits::MAX_DISTANCES)?;
    m.add("MAX_MIMIC_SAMPLES", spindle_cli::limits::MAX_MIMIC_SAMPLES)?;
    m.add("MAX_JOBS", spindle_cli::limits::MAX_JOBS)?;
    m.add_function(wrap_pyfunction!(run::run, m)?)?;
    m.add_function(wrap_pyfunction!(mimic::mimic_probe, m)?)?;
    m.add_function(wrap_pyfunction!(mimic::mimic_read, m)?)?;
    m.add_function(wrap_pyfunction!(mimic::mimic_columns, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce::reproduce, m)?)?;
    m.add_function(wrap_pyfunction!(torture::torture, m)?)?;
    m.add_function(wrap_pyfunction!(validate::validate, m)?)?;
    m.add_function(wrap_pyfunction!(disk::presets, m)?)?;
    m.add_class::<trace::TraceCursor>()?;
    m.add_class::<disk::DiskModel>()?;
    m.add_class::<run::RequestRows>()?;
    sweep::register(m)?;
    Ok(())
}
