//! Disk Mimic tables (`spindle mimic probe`'s files) as columns.

use crate::columns::{self, Col};
use crate::errors::{from_text, to_py};
use crate::interrupt::interruptible;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use spindle::mimic::table::MimicTable;

type PyCols<'py> = Vec<(&'static str, &'static str, Bound<'py, PyBytes>)>;

/// A table's metric, samples per distance, probe sectors, interpolated distances,
/// memory bytes and probe requests.
type Meta = (&'static str, u32, u32, u64, u64, u64);

/// A table as columns: its [`Meta`], the widest entry's sample count, the entries and
/// the intervals.
type TableColumns<'py> = (Meta, usize, PyCols<'py>, PyCols<'py>);

/// Probes a simulated drive off-line as `spindle mimic probe` does (same limits and
/// errors) and returns the table's JSON text.
#[pyfunction]
pub fn mimic_probe(
    py: Python<'_>,
    disk: &str,
    distances: usize,
    samples: u32,
    interpolate: bool,
    seed: u64,
) -> PyResult<String> {
    let json = interruptible(py, || {
        spindle_cli::mimic::probe_table(disk, distances, samples, interpolate, seed)
    })?
    .map_err(to_py)?;
    serde_json::to_string_pretty(&json)
        .map(|s| s + "\n")
        .map_err(|e| to_py(e.into()))
}

/// Reads and checks a table file; returns its text.
#[pyfunction]
pub fn mimic_read(path: &str) -> PyResult<String> {
    let p = std::path::Path::new(path);
    MimicTable::load(p).map_err(|e| from_text(e.to_string()))?;
    std::fs::read_to_string(p).map_err(|e| from_text(format!("{path}: cannot read: {e}")))
}

/// A table's text, checked, as (metric, samples per distance, probe sectors,
/// interpolated distances, memory bytes, probe requests), its entries as columns
/// (samples as a flat float column, NaN-padded to the widest entry) and its intervals.
#[pyfunction]
pub fn mimic_columns<'py>(py: Python<'py>, text: &str, name: &str) -> PyResult<TableColumns<'py>> {
    let t = MimicTable::parse(text.as_bytes(), name).map_err(|e| from_text(e.to_string()))?;
    let width = t
        .entries
        .iter()
        .map(|e| e.samples_ns.len())
        .max()
        .unwrap_or(0);
    let mut samples = Vec::with_capacity(t.entries.len() * width);
    for e in &t.entries {
        samples.extend(e.samples_ns.iter().map(|&s| f64::from(s)));
        samples.extend(std::iter::repeat_n(f64::NAN, width - e.samples_ns.len()));
    }
    let entries = vec![
        (
            "prev_write",
            Col::Bool(t.entries.iter().map(|e| e.prev_write).collect()),
        ),
        (
            "cur_write",
            Col::Bool(t.entries.iter().map(|e| e.cur_write).collect()),
        ),
        (
            "distance",
            Col::I64(t.entries.iter().map(|e| e.distance).collect()),
        ),
        (
            "mean_ns",
            Col::I64(t.entries.iter().map(|e| i64::from(e.mean_ns)).collect()),
        ),
        (
            "sample_count",
            Col::I64(
                t.entries
                    .iter()
                    .map(|e| e.samples_ns.len() as i64)
                    .collect(),
            ),
        ),
        ("samples_ns", Col::F64(samples)),
    ];
    let intervals = vec![
        (
            "prev_write",
            Col::Bool(t.intervals.iter().map(|i| i.0).collect()),
        ),
        (
            "cur_write",
            Col::Bool(t.intervals.iter().map(|i| i.1).collect()),
        ),
        ("from", Col::I64(t.intervals.iter().map(|i| i.2).collect())),
        ("to", Col::I64(t.intervals.iter().map(|i| i.3).collect())),
    ];
    Ok((
        (
            t.metric.name(),
            t.samples_per_distance,
            t.probe_sectors,
            t.interpolated_distances,
            t.memory_bytes,
            t.probe_requests,
        ),
        width,
        columns::to_py(py, &entries)?,
        columns::to_py(py, &intervals)?,
    ))
}
