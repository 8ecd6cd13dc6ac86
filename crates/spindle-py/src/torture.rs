//! `spindle.torture`: a seeded fault campaign over a byte-exact stack, run as
//! `spindle torture --json` runs it, with the GIL released.

use crate::errors::to_py;
use crate::interrupt::interruptible;
use crate::run::Pairs;
use pyo3::prelude::*;
use spindle_cli::torture::{from_pairs, torture_json, StackSource};

/// Runs a campaign: `options` are `spindle torture` flags as (name, value) pairs;
/// `stack_text` a stack TOML (instead of `--stack FILE`). Returns the JSON report,
/// whether or not a read came back wrong (its `wrong_reads` says).
#[pyfunction]
#[pyo3(signature = (options, stack_text=None))]
pub fn torture(py: Python<'_>, options: Pairs, stack_text: Option<String>) -> PyResult<String> {
    let opts = from_pairs(options).map_err(to_py)?;
    if stack_text.is_some() && opts.stack.is_some() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "give the stack once: as TOML text or as a file, not both",
        ));
    }
    let (mut args, rates) = opts.resolve();
    if let Some(text) = stack_text {
        args.stack = Some(StackSource::Text(text));
    }
    interruptible(py, || torture_json(args, &rates))?.map_err(to_py)
}
