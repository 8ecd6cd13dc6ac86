//! `spindle.validate`: DiskSim's real-drive validation traces replayed as `spindle
//! validate --json` replays them, with the GIL released.

use crate::errors::to_py;
use crate::interrupt::interruptible;
use pyo3::prelude::*;

/// Validates `files` (DiskSim .parv files with their traces, spindle drive files, or
/// built-in drive names; empty: the four built-in drives). With `calibrated`, each drive
/// is calibrated on the first half of its trace and judged on the second. Returns the
/// command's JSON array.
#[pyfunction]
#[pyo3(signature = (files, calibrated=false))]
pub fn validate(py: Python<'_>, files: Vec<String>, calibrated: bool) -> PyResult<String> {
    interruptible(py, || {
        if calibrated {
            spindle_cli::validate::validate_calibrated_cmd(&files, true)
        } else {
            spindle_cli::validate::validate_cmd(&files, true)
        }
    })?
    .map_err(to_py)
}
