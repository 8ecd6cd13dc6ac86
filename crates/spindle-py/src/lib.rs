//! The extension module `spindle._core`: the thin layer between Python and the
//! command-line front end's library, so both parse the same options and report the
//! same errors. The Python-facing API lives in `python/spindle/`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Runs `spindle run ARGS... --json` in-process and returns its JSON text. The GIL is
/// released while the stack simulates.
#[pyfunction]
fn run_json(py: Python<'_>, args: Vec<String>) -> PyResult<String> {
    use clap::Parser;
    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        stack: spindle_cli::run::StackArgs,
    }
    let argv = std::iter::once("spindle run".to_string()).chain(args);
    let cli = Cli::try_parse_from(argv).map_err(|e| PyValueError::new_err(e.to_string()))?;
    py.detach(|| spindle_cli::run::run(&cli.stack, None, true, None, false))
        .map_err(|e| PyValueError::new_err(format!("{e:#}")))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    Ok(())
}
