//! Several trace files replayed as one trace: the volumes of an MSR Cambridge server
//! (`hm_0.csv`, `hm_1.csv`), the days of an FIU trace, one file per disk of a
//! `blkparse` capture.
//!
//! The files are read side by side and merged by arrival, one record of each held at a
//! time, so memory does not grow with the files. Records that arrive at the same time
//! come in the order the files are given, and a file's own records in its order: for
//! files each in arrival order, the merge is exactly the files' records together,
//! stably sorted by arrival.
//!
//! * **One format, one clock.** Every file must be in the same format. A format with an
//!   absolute clock (MSR's FILETIME, FIU's nanoseconds, ...) is timed from the earliest
//!   record of *all* the files, so the files keep their places in time relative to each
//!   other, as recorded. Formats timed from their own start (`disksim-ascii`, `spc`,
//!   `blkparse`, `spindle-csv`, ...) are merged as written. `blktrace` files are not
//!   merged: each is timed from its own first event, so per-CPU files would not share
//!   a clock (`blkparse -i NAME -d NAME.bin` combines them into one); `blkparse` files
//!   merge only per-file, as their reader numbers each file's devices from 0.
//! * **Devices** ([`DeviceNumbering`]): `as-recorded` keeps every record's device
//!   number, so requests of one number go to one device whichever file they come
//!   from (the days of one machine). `per-file` gives file k (from 0, in the order
//!   given) device k, so volumes whose recorded numbers clash (MSR's `src1_0` and
//!   `src2_0` are both disk 0) stay apart; each file must then hold one device. Left
//!   unsaid, two files holding the same device number is an error that names both
//!   and the two choices: merging two disks onto one silently would be wrong as often
//!   as keeping two days apart.
//! * Built-in samples hold records already timed from their own start and are not
//!   merged with anything.
//! * At most [`MAX_TRACE_FILES`] files, each holding one open file while the merge
//!   runs (the system's limit on open files may be lower; it is then named).
//! * Files out of arrival order are merged by each file's next record; the merge is then
//!   sorted as one trace is (whole, or within the reorder window, where a record further
//!   out of place ends the run naming it), and a file's disorder may grow by the records
//!   of the other files.

use super::lines::{Source, StampedIter};
use super::stream::{
    earliest_stamp, list_files, open_spec, open_spec_from, resolve_extent, spec_format_error,
    spec_source, stamped, timed, trace_extent, TraceExtent, TraceStream, SECOND_READ,
};
use super::{Format, IoRecord, Position, TraceError};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// The most trace files one trace may merge (each is open while it runs).
pub const MAX_TRACE_FILES: usize = 1024;

/// How the devices of merged trace files are numbered (see the [module](self) doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeviceNumbering {
    /// Every record keeps the device number its file gives.
    AsRecorded,
    /// File k (from 0, in the order given) is device k.
    PerFile,
}

impl DeviceNumbering {
    pub fn name(self) -> &'static str {
        match self {
            DeviceNumbering::AsRecorded => "as-recorded",
            DeviceNumbering::PerFile => "per-file",
        }
    }
}

impl std::str::FromStr for DeviceNumbering {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "as-recorded" => Ok(DeviceNumbering::AsRecorded),
            "per-file" => Ok(DeviceNumbering::PerFile),
            other => Err(format!(
                "unknown device numbering {other:?}: expected as-recorded or per-file"
            )),
        }
    }
}

impl std::fmt::Display for DeviceNumbering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The trace specs of one workload (`sample:NAME`, `FORMAT:PATH` or a path): one, or
/// several files merged. Written in TOML as a string or an array of strings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceFiles(Vec<String>);

impl TraceFiles {
    /// One spec.
    pub fn one(spec: impl Into<String>) -> TraceFiles {
        TraceFiles(vec![spec.into()])
    }

    /// Several specs, merged; an empty list or one over [`MAX_TRACE_FILES`] is refused.
    pub fn new(specs: Vec<String>) -> Result<TraceFiles, String> {
        check_count(specs.len())?;
        Ok(TraceFiles(specs))
    }

    pub fn specs(&self) -> &[String] {
        &self.0
    }

    /// The spec, if there is only one.
    pub fn single(&self) -> Option<&str> {
        match self.0.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }
}

impl std::fmt::Display for TraceFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&list_files(&self.0))
    }
}

impl Serialize for TraceFiles {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.single() {
            Some(one) => s.serialize_str(one),
            None => self.0.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for TraceFiles {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TraceFiles, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged, expecting = "a trace (a string) or a list of trace files")]
        enum OneOrMany {
            One(String),
            Many(Vec<String>),
        }
        match OneOrMany::deserialize(d)? {
            OneOrMany::One(s) => Ok(TraceFiles::one(s)),
            OneOrMany::Many(v) => TraceFiles::new(v).map_err(serde::de::Error::custom),
        }
    }
}

fn check_count(n: usize) -> Result<(), String> {
    match n {
        0 => Err("the list of trace files is empty; give at least one".into()),
        n if n > MAX_TRACE_FILES => Err(format!(
            "{n} trace files: at most {MAX_TRACE_FILES} may be merged into one trace"
        )),
        _ => Ok(()),
    }
}

/// Opens the trace `files` name as one stream: one spec as [`open_spec`] opens it,
/// several merged (see the [module](self) doc). `format` applies to every file;
/// `numbering` says how merged files' devices are numbered.
pub fn open(
    files: &TraceFiles,
    format: Option<Format>,
    numbering: Option<DeviceNumbering>,
) -> Result<TraceStream<'static>, TraceError> {
    match one_as_is(files, numbering) {
        Some(one) => open_spec(one, format),
        None => {
            let (parts, format) = parts(files.specs(), format, numbering)?;
            // One time base for all: the earliest record of any file.
            let mut start = None;
            for (source, file) in &parts {
                if let Some(t) = earliest_stamp(source, file, format)? {
                    start = Some(start.map_or(t, |s: u64| s.min(t)));
                }
            }
            replay(parts, format, numbering, start)
        }
    }
}

/// [`open`] after [`extent`] of the same files, format and numbering: the extent's pass
/// found the earliest time stamp, so the stream takes no first pass for it.
pub fn open_from(
    files: &TraceFiles,
    format: Option<Format>,
    numbering: Option<DeviceNumbering>,
    extent: &TraceExtent,
) -> Result<TraceStream<'static>, TraceError> {
    match one_as_is(files, numbering) {
        Some(one) => open_spec_from(one, format, extent),
        None => {
            let (parts, format) = parts(files.specs(), format, numbering)?;
            for (source, file) in &parts {
                source.check_rereadable(file, SECOND_READ)?;
            }
            replay(parts, format, numbering, extent.earliest_stamp)
        }
    }
}

/// The extent of the trace `files` name, in one pass in memory that does not grow with
/// the files (stamps in the format's clock, as [`trace_extent`] keeps them).
pub fn extent(
    files: &TraceFiles,
    format: Option<Format>,
    numbering: Option<DeviceNumbering>,
) -> Result<TraceExtent, TraceError> {
    if let Some(one) = one_as_is(files, numbering) {
        return match format {
            Some(f) => {
                spec_format_error(one, Some(f))?;
                trace_extent(std::path::Path::new(one), Some(f))
            }
            None => resolve_extent(one),
        };
    }
    let (parts, format) = parts(files.specs(), format, numbering)?;
    // Merged by the format's own stamps: the same order as by arrival, one clock for all.
    let sources = parts
        .iter()
        .map(|(source, file)| stamped(format, source, file))
        .collect::<Result<Vec<_>, _>>()?;
    let names = parts.into_iter().map(|p| p.1).collect();
    let mut e = TraceExtent::default();
    for r in Merge::new(sources, names, numbering) {
        let (_, stamp, _, record) = r?;
        e.add(stamp, &record);
    }
    Ok(e)
}

/// Refuses a file that cannot be read again (a pipe, a device), before a run's first
/// pass over it: a run reads its trace more than once.
pub fn check_rereadable(files: &TraceFiles) -> Result<(), TraceError> {
    for spec in files.specs().iter().filter(|s| !s.starts_with("sample:")) {
        let path = super::stream::spec_path(spec);
        Source::File(path.to_path_buf())
            .check_rereadable(&path.display().to_string(), SECOND_READ)?;
    }
    Ok(())
}

/// The spec of a single file read as it is (no renumbering), which is opened as one.
fn one_as_is(files: &TraceFiles, numbering: Option<DeviceNumbering>) -> Option<&str> {
    match numbering {
        None | Some(DeviceNumbering::AsRecorded) => files.single(),
        Some(DeviceNumbering::PerFile) => None,
    }
}

/// The files of a merge, opened (each with its name for errors), and their one format.
fn parts(
    specs: &[String],
    format: Option<Format>,
    numbering: Option<DeviceNumbering>,
) -> Result<(Vec<(Source<'static>, String)>, Format), TraceError> {
    check_count(specs.len()).map_err(|e| TraceError::file("the trace", e))?;
    let parts = specs
        .iter()
        .map(|s| file_of(s, format))
        .collect::<Result<Vec<_>, _>>()?;
    let format = parts[0].2;
    if let Some((_, file, other)) = parts.iter().find(|p| p.2 != format) {
        return Err(TraceError::file(
            file,
            format!(
                "is {} but {} is {}: the files of one trace must share a format, and so a clock",
                other.name(),
                parts[0].1,
                format.name()
            ),
        ));
    }
    let several = parts.len() > 1;
    match format {
        // Each file timed from its own first event: per-CPU files would not share a clock.
        Format::Blktrace if several => {
            return Err(TraceError::file(
                &parts[1].1,
                "blktrace files are each timed from their own first event, so per-CPU \
                 files would not share a clock: combine them first (`blkparse -i NAME -d \
                 NAME.bin`) and read that one file",
            ))
        }
        // Devices numbered from 0 in each file, by first appearance.
        Format::Blkparse if several && numbering != Some(DeviceNumbering::PerFile) => {
            return Err(TraceError::file(
                &parts[1].1,
                "blkparse devices are numbered from 0 in each file, by first appearance, so \
                 the numbers of two files do not name the same disks: merge files of one \
                 device each with --trace-devices per-file",
            ))
        }
        _ => {}
    }
    Ok((parts.into_iter().map(|(s, f, _)| (s, f)).collect(), format))
}

/// One file of a merge, opened: its source, its name for errors and its format.
fn file_of(
    spec: &str,
    format: Option<Format>,
) -> Result<(Source<'static>, String, Format), TraceError> {
    if spec.starts_with("sample:") {
        return Err(TraceError::file(
            spec,
            "is a built-in sample, read as it is and alone: merging and per-file device \
             numbering apply to trace files",
        ));
    }
    spec_source(spec, format)
}

/// The merged stream of `parts`, an absolute clock timed from `start`.
fn replay(
    parts: Vec<(Source<'static>, String)>,
    format: Format,
    numbering: Option<DeviceNumbering>,
    start: Option<u64>,
) -> Result<TraceStream<'static>, TraceError> {
    let sources = parts
        .iter()
        .map(|(source, file)| timed(source, file, format, start))
        .collect::<Result<Vec<_>, _>>()?;
    let names: Vec<String> = parts.into_iter().map(|p| p.1).collect();
    let merge = Merge::new(sources, names.clone(), numbering)
        .map(|r| r.map(|(file, _, at, record)| (file, at, record)));
    Ok(TraceStream::of_files(Box::new(merge), format, names))
}

/// A merged record: the index of its file, its stamp, where it is in its file, and it.
type Merged = (usize, u64, Position, IoRecord);

/// The k-way merge of the files' records by (stamp, file index).
struct Merge {
    sources: Vec<StampedIter<'static>>,
    /// Each source's next record and where it is, once read.
    heads: Vec<Option<(Position, IoRecord)>>,
    /// The sources with a record waiting, earliest first.
    queue: BinaryHeap<Reverse<(u64, usize)>>,
    primed: bool,
    numbering: Option<DeviceNumbering>,
    /// Unsaid numbering: the first file seen with each device number.
    owner: BTreeMap<u32, usize>,
    /// Per-file numbering: the device each file holds.
    device_of_file: Vec<Option<u32>>,
    /// A source's error, given after the record taken before it.
    pending: Option<TraceError>,
    files: Vec<String>,
}

impl Merge {
    fn new(
        sources: Vec<StampedIter<'static>>,
        files: Vec<String>,
        numbering: Option<DeviceNumbering>,
    ) -> Merge {
        Merge {
            heads: vec![None; sources.len()],
            device_of_file: vec![None; sources.len()],
            sources,
            queue: BinaryHeap::new(),
            primed: false,
            numbering,
            owner: BTreeMap::new(),
            pending: None,
            files,
        }
    }

    /// Reads source `i`'s next record into its head.
    fn refill(&mut self, i: usize) -> Result<(), TraceError> {
        match self.sources[i].next() {
            Some(Ok((stamp, at, r))) => {
                self.queue.push(Reverse((stamp, i)));
                self.heads[i] = Some((at, r));
                Ok(())
            }
            Some(Err(e)) => Err(e),
            None => Ok(()),
        }
    }

    /// The record of file `i` at `at`, its device numbered as asked.
    fn number(&mut self, i: usize, at: Position, mut r: IoRecord) -> Result<IoRecord, TraceError> {
        let error = |msg: String| TraceError {
            file: self.files[i].clone(),
            at,
            msg,
        };
        match self.numbering {
            Some(DeviceNumbering::AsRecorded) => {}
            Some(DeviceNumbering::PerFile) => {
                match self.device_of_file[i] {
                    None => self.device_of_file[i] = Some(r.device),
                    Some(d) if d == r.device => {}
                    Some(d) => {
                        return Err(error(format!(
                            "device {} after device {d}: per-file device numbering makes each \
                             file one device, so a file must hold one (use as-recorded, or \
                             keep one device with `spindle trace FILE --device N --csv OUT`)",
                            r.device
                        )))
                    }
                }
                // Below MAX_TRACE_FILES.
                r.device = u32::try_from(i).unwrap_or(u32::MAX);
            }
            None => {
                let first = *self.owner.entry(r.device).or_insert(i);
                if first != i {
                    return Err(error(format!(
                        "device {} is in {} too: say how the devices of the files are \
                         numbered, per-file (file k is device k, in the order given) or \
                         as-recorded (requests of one number go to one device) \
                         (--trace-devices, workload.trace-devices)",
                        r.device, self.files[first]
                    )));
                }
            }
        }
        Ok(r)
    }
}

impl Iterator for Merge {
    type Item = Result<Merged, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.pending.take() {
            self.queue.clear();
            return Some(Err(e));
        }
        if !self.primed {
            self.primed = true;
            for i in 0..self.sources.len() {
                if let Err(e) = self.refill(i) {
                    self.queue.clear();
                    return Some(Err(e));
                }
            }
        }
        let Reverse((stamp, i)) = self.queue.pop()?;
        let (at, record) = self.heads[i].take()?;
        if let Err(e) = self.refill(i) {
            self.pending = Some(e);
        }
        match self.number(i, at, record) {
            Ok(r) => Some(Ok((i, stamp, at, r))),
            Err(e) => {
                self.queue.clear();
                self.pending = None;
                Some(Err(e))
            }
        }
    }
}
