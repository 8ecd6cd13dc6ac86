//! Errors as Python exceptions, with the command-line front end's messages: a file that
//! is missing is `FileNotFoundError`, one that cannot be opened `PermissionError` or
//! `OSError`, and every other bad input (options, values, trace contents) `ValueError`.

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyPermissionError, PyValueError};
use pyo3::PyErr;

/// The exception for a CLI error: an I/O error anywhere in its chain (or its message,
/// for the readers that keep only the text) decides the class; the text is the CLI's.
pub fn to_py(e: anyhow::Error) -> PyErr {
    let msg = format!("{e:#}");
    let kind = e
        .chain()
        .find_map(|c| c.downcast_ref::<std::io::Error>())
        .map(std::io::Error::kind);
    os_error(kind, &msg).unwrap_or_else(|| PyValueError::new_err(msg))
}

/// An error whose text names an operating-system error: the readers keep the text
/// (`… No such file or directory (os error 2)`), not the `io::Error`.
pub fn from_text(msg: String) -> PyErr {
    os_error(None, &msg).unwrap_or_else(|| PyValueError::new_err(msg))
}

fn os_error(kind: Option<std::io::ErrorKind>, msg: &str) -> Option<PyErr> {
    use std::io::ErrorKind;
    let kind = kind.or_else(|| {
        if msg.contains("(os error 2)") {
            Some(ErrorKind::NotFound)
        } else if msg.contains("(os error 13)") || msg.contains("(os error 1)") {
            Some(ErrorKind::PermissionDenied)
        } else if msg.contains("(os error ") {
            Some(ErrorKind::Other)
        } else {
            None
        }
    })?;
    Some(match kind {
        ErrorKind::NotFound => PyFileNotFoundError::new_err(msg.to_string()),
        ErrorKind::PermissionDenied => PyPermissionError::new_err(msg.to_string()),
        _ => PyOSError::new_err(msg.to_string()),
    })
}
