//! Columns handed to Python without a Python object per row: each column is one `bytes`
//! object of little-endian values that `numpy.frombuffer` reads in place.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// One column of values.
pub enum Col {
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
}

impl Col {
    /// The numpy dtype of the bytes.
    fn dtype(&self) -> &'static str {
        match self {
            Col::I64(_) => "<i8",
            Col::F64(_) => "<f8",
            Col::Bool(_) => "?",
        }
    }

    fn bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        match self {
            Col::I64(v) => PyBytes::new_with(py, v.len() * 8, |b| {
                for (c, x) in b.chunks_exact_mut(8).zip(v) {
                    c.copy_from_slice(&x.to_le_bytes());
                }
                Ok(())
            }),
            Col::F64(v) => PyBytes::new_with(py, v.len() * 8, |b| {
                for (c, x) in b.chunks_exact_mut(8).zip(v) {
                    c.copy_from_slice(&x.to_le_bytes());
                }
                Ok(())
            }),
            Col::Bool(v) => PyBytes::new_with(py, v.len(), |b| {
                for (c, x) in b.iter_mut().zip(v) {
                    *c = u8::from(*x);
                }
                Ok(())
            }),
        }
    }
}

/// Named columns, in order.
pub type Columns = Vec<(&'static str, Col)>;

/// The columns as a list of `(name, dtype, bytes)`.
pub fn to_py<'py>(
    py: Python<'py>,
    cols: &Columns,
) -> PyResult<Vec<(&'static str, &'static str, Bound<'py, PyBytes>)>> {
    cols.iter()
        .map(|(name, c)| Ok((*name, c.dtype(), c.bytes(py)?)))
        .collect()
}

/// Little-endian values of a `bytes` column sent from Python (`array.tobytes()`),
/// checked to hold exactly `n` values of `W` bytes each.
pub fn read_le<const W: usize>(name: &str, bytes: &[u8], n: usize) -> PyResult<Vec<[u8; W]>> {
    if bytes.len() != n * W {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "workload column `{name}`: expected {n} values of {W} bytes, got {} bytes",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(W)
        .map(|c| {
            let mut a = [0u8; W];
            a.copy_from_slice(c);
            a
        })
        .collect())
}

/// Nanoseconds as numpy's int64: every simulated time fits (2^63 ns is 292 years).
pub fn ns(t: u64) -> i64 {
    i64::try_from(t).unwrap_or(i64::MAX)
}
