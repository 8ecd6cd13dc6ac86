//! `spindle.TraceReader`'s engine: a trace file read in chunks of columns, with the
//! time unit of its stamps explicit.

use crate::columns::{self, Col, Columns};
use crate::errors::from_text;
use crate::interrupt::interruptible;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use spindle::interrupt::Watch;
use spindle::time::SimTime;
use spindle::trace::merge::open;
use spindle::trace::summary::TraceSummary;
use spindle::trace::{DeviceNumbering, Format, IoRecord, TraceError, TraceFiles};
use std::sync::Mutex;

/// Most records one chunk holds.
pub const MAX_CHUNK: usize = 1 << 20;

/// The unit a format writes its time stamps in, as spindle reads them: a name and its
/// length in ns (`hp-srt` and `blktrace` keep their own binary clocks).
pub fn native_unit(f: Format) -> (&'static str, u64) {
    match f {
        Format::DisksimAscii | Format::DisksimValidate | Format::SpindleCsv => ("ms", 1_000_000),
        Format::Msr => ("filetime", 100),
        Format::Fiu | Format::HpSrt | Format::Blktrace => ("ns", 1),
        Format::Spc | Format::Blkparse | Format::Tencent => ("s", 1_000_000_000),
        Format::Alibaba => ("us", 1_000),
    }
}

type Records = Box<dyn Iterator<Item = Result<IoRecord, TraceError>> + Send>;

/// A trace opened for reading, one chunk at a time.
#[pyclass(module = "spindle._core")]
pub struct TraceCursor {
    records: Mutex<Records>,
    format: Format,
    file: String,
    /// Arrival ns are scaled by `num / den` (the file's true unit over the format's).
    num: u64,
    den: u64,
    device: Option<u32>,
}

#[pymethods]
impl TraceCursor {
    /// Opens `specs` (paths, `FORMAT:PATH` or `sample:NAME`; several are merged, their
    /// devices numbered by `trace_devices`) with `format` (None: detected); arrivals are
    /// scaled by `num / den`; `device` keeps one device.
    #[new]
    #[pyo3(signature = (specs, format=None, num=1, den=1, device=None, trace_devices=None))]
    fn new(
        py: Python<'_>,
        specs: Vec<String>,
        format: Option<&str>,
        num: u64,
        den: u64,
        device: Option<u32>,
        trace_devices: Option<&str>,
    ) -> PyResult<TraceCursor> {
        if num == 0 || den == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "time scale must be positive",
            ));
        }
        let format = match format {
            Some(f) => Some(f.parse::<Format>().map_err(from_text)?),
            None => None,
        };
        let numbering = match trace_devices {
            Some(n) => Some(n.parse::<DeviceNumbering>().map_err(from_text)?),
            None => None,
        };
        let files = TraceFiles::new(specs).map_err(from_text)?;
        // Opening may take a first pass over the files (their earliest time stamp).
        let stream = interruptible(py, || open(&files, format, numbering))?
            .map_err(|e| from_text(e.to_string()))?;
        Ok(TraceCursor {
            format: stream.format(),
            file: stream.name(),
            records: Mutex::new(Box::new(stream)),
            num,
            den,
            device,
        })
    }

    /// The format's name (given or detected).
    #[getter]
    fn format(&self) -> &'static str {
        self.format.name()
    }

    /// The trace's name: its file, or its files listed.
    #[getter]
    fn file(&self) -> String {
        self.file.clone()
    }

    /// The unit the format's time stamps are in and its length in ns.
    #[getter]
    fn native_unit(&self) -> (&'static str, u64) {
        native_unit(self.format)
    }

    /// Skips up to `n` records; returns how many were skipped.
    fn skip(&self, py: Python<'_>, n: u64) -> PyResult<u64> {
        let watch = Watch::start();
        interruptible(py, || {
            let mut it = self.lock()?;
            let mut skipped = 0;
            while skipped < n {
                match self.next_kept(&mut it, &watch)? {
                    Some(_) => skipped += 1,
                    None => break,
                }
            }
            Ok(skipped)
        })?
        .map_err(from_text)
    }

    /// Up to `n` next records as columns `(name, dtype, bytes)`: time (ns, int64),
    /// device, lbn, sectors (int64) and write (bool); an empty list at the end.
    fn read<'py>(
        &self,
        py: Python<'py>,
        n: usize,
    ) -> PyResult<Vec<(&'static str, &'static str, Bound<'py, PyBytes>)>> {
        let n = n.min(MAX_CHUNK);
        let watch = Watch::start();
        let cols = interruptible(py, || -> Result<Columns, String> {
            let mut it = self.lock()?;
            let (mut t, mut d, mut l, mut b, mut w) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
            while t.len() < n {
                let Some(r) = self.next_kept(&mut it, &watch)? else {
                    break;
                };
                t.push(self.scaled_ns(r.arrival.0)?);
                d.push(i64::from(r.device));
                l.push(columns::ns(r.lbn));
                b.push(i64::from(r.blocks));
                w.push(r.write);
            }
            if t.is_empty() {
                return Ok(Vec::new());
            }
            Ok(vec![
                ("time", Col::I64(t)),
                ("device", Col::I64(d)),
                ("lbn", Col::I64(l)),
                ("sectors", Col::I64(b)),
                ("write", Col::Bool(w)),
            ])
        })?
        .map_err(from_text)?;
        columns::to_py(py, &cols)
    }

    /// Reads the remaining records (at most `limit`) into a one-pass summary, in memory
    /// that grows with the number of devices and distinct sizes only; the JSON that
    /// `spindle trace --json` prints, arrivals scaled as `read` scales them.
    #[pyo3(signature = (limit=None))]
    fn summary(&self, py: Python<'_>, limit: Option<u64>) -> PyResult<String> {
        let watch = Watch::start();
        interruptible(py, || -> Result<String, String> {
            let mut it = self.lock()?;
            let mut s = TraceSummary::new();
            while limit.is_none_or(|n| s.requests < n) {
                let Some(mut r) = self.next_kept(&mut it, &watch)? else {
                    break;
                };
                // Non-negative: scaled_ns refuses what does not fit in an i64.
                r.arrival = SimTime(self.scaled_ns(r.arrival.0)?.unsigned_abs());
                s.add(&r);
            }
            // Written straight from the summary: a JSON tree of it first would take
            // several times the memory with millions of devices.
            #[derive(serde::Serialize)]
            struct Out<'a, S> {
                summary: &'a TraceSummary,
                span_s: f64,
                requests_per_s: f64,
                sizes_sectors: S,
            }
            serde_json::to_string(&Out {
                summary: &s,
                span_s: s.span_s(),
                requests_per_s: s.rate_per_s(),
                sizes_sectors: s.sizes(),
            })
            .map_err(|e| e.to_string())
        })?
        .map_err(from_text)
    }
}

impl TraceCursor {
    /// An arrival in ns, scaled by the file's true unit over the format's.
    fn scaled_ns(&self, arrival_ns: u64) -> Result<i64, String> {
        let scaled = u128::from(arrival_ns) * u128::from(self.num) / u128::from(self.den);
        i64::try_from(scaled).map_err(|_| {
            format!(
                "{}: an arrival of {arrival_ns} ns scaled by {}/{} exceeds 2^63 ns",
                self.file, self.num, self.den
            )
        })
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Records>, String> {
        self.records
            .lock()
            .map_err(|_| format!("{}: the reader failed earlier", self.file))
    }

    /// The next record of the kept device (stopping on Ctrl-C, however many of other
    /// devices come first).
    fn next_kept(&self, it: &mut Records, watch: &Watch) -> Result<Option<IoRecord>, String> {
        loop {
            watch.check()?;
            match it.next() {
                None => return Ok(None),
                Some(Err(e)) => return Err(e.to_string()),
                Some(Ok(r)) => match self.device {
                    Some(d) if d != r.device => {}
                    _ => return Ok(Some(r)),
                },
            }
        }
    }
}
