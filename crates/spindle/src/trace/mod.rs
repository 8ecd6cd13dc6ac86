//! Block I/O traces: one record type for every format, readers for real formats, a CSV
//! writer, and the built-in sample traces.
//!
//! Every reader turns a file into `Vec<IoRecord>` sorted by arrival (a stable sort, so
//! requests with equal times keep their file order), and reads it as a stream too
//! ([`open_trace`], see [`stream`]): record by record, in file order, in memory that does
//! not grow with the file. The whole-file readers are those streams collected and sorted. Readers never panic: malformed
//! input gives a [`TraceError`] naming the file, the line (or, for binary SRT files, the
//! record and byte offset), the field and what was found.
//!
//! | [`Format`] name | module | time base of `arrival` |
//! |---|---|---|
//! | `disksim-ascii` | [`ascii`] | as written (DiskSim's absolute ms) |
//! | `disksim-validate` | [`validate`] | always 0: closed loop, see that module |
//! | `hp-srt` | [`srt`] | rebased to the earliest record |
//! | `msr` | [`msr`] | rebased to the earliest record |
//! | `fiu` | [`fiu`] | rebased to the earliest record |
//! | `spc` | [`spc`] | as written (seconds from trace start) |
//! | `blkparse` | [`blkparse`] | as written (seconds from trace start) |
//! | `blktrace` | [`blktrace`] | from the earliest event, as `blkparse` times them |
//! | `alibaba` | [`alibaba`] | rebased to the earliest record |
//! | `tencent` | [`tencent`] | rebased to the earliest record |
//! | `spindle-csv` | [`csv`] | as written (our own output) |
//!
//! Formats whose clock is an absolute one (Windows FILETIME, nanoseconds since boot,
//! SRT seconds) are rebased so the trace starts at 0; formats whose times already count
//! from the start of the trace are kept as they are, as DiskSim would replay them.
//!
//! Any format may come gzip- or Zstandard-compressed; it is decompressed as it is read
//! (`compressed`), and detection and every reader see the decompressed bytes.

pub mod alibaba;
pub mod ascii;
pub mod blkparse;
pub mod blktrace;
pub mod compress_out;
mod compressed;
pub mod csv;
pub mod detect;
mod error;
pub mod fiu;
pub(crate) mod lines;
pub mod merge;
pub mod msr;
mod sample;
pub mod spc;
pub mod srt;
pub mod stream;
pub mod summary;
pub mod tencent;
mod text;
pub mod validate;

pub use self::csv::{write_csv, CsvWriter};
pub use detect::detect;
pub use error::{Position, TraceError};
pub use merge::{DeviceNumbering, TraceFiles};
pub use sample::{sample, SAMPLES};
pub use stream::{
    open_bytes, open_sample, open_trace, records_until_error, resolve_extent, resolve_stream,
    trace_extent, DeviceExtent, SortedWithin, TraceExtent, TraceStream,
};

pub use crate::record::IoRecord;
use std::path::Path;

/// The trace formats spindle reads. `FromStr`/`Display` use the names in [`Format::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// DiskSim's default `ascii` trace: `time_ms device lbn blocks hexflags`.
    DisksimAscii,
    /// DiskSim's `validate` trace (closed loop, one request outstanding).
    DisksimValidate,
    /// HP Labs SRT binary trace with a text header (`ajw.1week.srt`).
    HpSrt,
    /// MSR Cambridge block traces (CSV, Windows FILETIME, byte offsets).
    Msr,
    /// FIU SRCMap / I/O-deduplication traces (text, one MD5 per line).
    Fiu,
    /// SPC trace format (UMass Financial / WebSearch).
    Spc,
    /// `blkparse` default text output.
    Blkparse,
    /// blktrace's binary event stream (`blktrace -o -`, or its per-CPU files).
    Blktrace,
    /// Alibaba Cloud's block traces (2020; CSV, byte offsets, Unix µs).
    Alibaba,
    /// Tencent's cloud block storage traces (2018; CSV, sectors, Unix seconds).
    Tencent,
    /// spindle's own CSV, as written by [`write_csv`].
    SpindleCsv,
}

impl Format {
    /// Every format (for help texts and tests).
    pub const ALL: [Format; 11] = [
        Format::DisksimAscii,
        Format::DisksimValidate,
        Format::HpSrt,
        Format::Msr,
        Format::Fiu,
        Format::Spc,
        Format::Blkparse,
        Format::Blktrace,
        Format::Alibaba,
        Format::Tencent,
        Format::SpindleCsv,
    ];

    /// The name used on command lines and in `FORMAT:path` specs.
    pub fn name(self) -> &'static str {
        match self {
            Format::DisksimAscii => "disksim-ascii",
            Format::DisksimValidate => "disksim-validate",
            Format::HpSrt => "hp-srt",
            Format::Msr => "msr",
            Format::Fiu => "fiu",
            Format::Spc => "spc",
            Format::Blkparse => "blkparse",
            Format::Blktrace => "blktrace",
            Format::Alibaba => "alibaba",
            Format::Tencent => "tencent",
            Format::SpindleCsv => "spindle-csv",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                format!(
                    "unknown trace format {} (known: {})",
                    text::shown(s),
                    names.join(", ")
                )
            })
    }
}

/// Reads a trace file whole, sorted by arrival; `format: None` detects the format from
/// the file's content. This is [`open_trace`]'s stream collected and stably sorted (the
/// same parser, read in one pass).
pub fn read_trace(path: &Path, format: Option<Format>) -> Result<Vec<IoRecord>, TraceError> {
    let name = path.display().to_string();
    stream::read_source(&lines::Source::File(path.to_path_buf()), &name, format)
}

/// Parses a trace held in memory. `name` is only used in error messages (and in
/// detection's message when the format cannot be recognised).
pub fn parse_trace_bytes(
    bytes: &[u8],
    name: &str,
    format: Option<Format>,
) -> Result<Vec<IoRecord>, TraceError> {
    stream::read_source(&lines::Source::Bytes(bytes), name, format)
}

/// Resolves a trace spec:
/// * `sample:NAME` — a trace built into the binary (see [`SAMPLES`]);
/// * `FORMAT:PATH` — a file read with that format (`FORMAT` one of [`Format::ALL`]'s names);
/// * anything else — a file path, format detected from its content.
///
/// [`resolve_stream`] is the same as a stream.
pub fn resolve(spec: &str) -> Result<Vec<IoRecord>, TraceError> {
    if let Some(name) = spec.strip_prefix("sample:") {
        return sample(name).map(<[IoRecord]>::to_vec);
    }
    let (path, format) = stream::split_spec(spec);
    read_trace(path, format)
}

/// Parses a whole in-memory trace of a known format (each format module's `parse`).
fn parse_format(bytes: &[u8], file: &str, format: Format) -> Result<Vec<IoRecord>, TraceError> {
    stream::read_source(&lines::Source::Bytes(bytes), file, Some(format))
}

/// Stable sort by arrival: every reader returns its records in time order, and
/// requests issued at the same instant keep their order in the file.
fn sort_by_arrival(records: &mut [IoRecord]) {
    records.sort_by_key(|r| r.arrival);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>(), Ok(f));
            assert_eq!(f.to_string(), f.name());
        }
        let err = "ascii".parse::<Format>().unwrap_err();
        assert!(err.contains("disksim-ascii"), "{err}");
    }

    #[test]
    fn resolve_reports_missing_files() {
        let err = resolve("/nonexistent/x.trace").unwrap_err();
        assert_eq!(err.file, "/nonexistent/x.trace");
        assert_eq!(err.at, Position::File);
        assert!(err.msg.contains("No such file"), "{err}");
        let err = stream::resolve_stream("msr:/nonexistent/y.csv").unwrap_err();
        assert!(err.msg.contains("No such file"), "{err}");
        let err = resolve("msr:/nonexistent/y.csv").unwrap_err();
        assert_eq!(err.file, "/nonexistent/y.csv");
        let err = resolve("sample:nope").unwrap_err();
        assert!(err.msg.contains("hplajw"), "{err}");
    }
}
