//! Streaming trace readers: a trace read record by record in memory that does not grow
//! with the file, so a 100 GB trace replays in bounded memory.
//!
//! [`open_trace`] returns a [`TraceStream`]: an iterator of `Result<IoRecord,
//! TraceError>` that reads the file line by line (or record by record, for binary SRT)
//! and yields records **in file order**. It uses the same per-format parser as
//! [`super::read_trace`], which is this stream collected and then stably sorted by
//! arrival, so both report the same errors (file, line, field) and give the same
//! records; the first error ends the stream.
//!
//! What the stream does not do is sort. Every reader but `disksim-validate` (whose
//! arrivals are all 0) sorts its records by arrival when reading a whole file, so a file
//! that is not in arrival order streams in a different order than it reads. Such a
//! stream is refused by the engine when a request arrives before the one before it;
//! [`TraceStream::sorted_within`] reorders a stream whose disorder is bounded (every
//! record at most `window` records later in the file than its place in time order),
//! yielding exactly what the whole-file reader gives, and fails clearly otherwise.
//! [`trace_extent`] tells, in one cheap pass, whether a file is in order.
//!
//! Formats with an absolute clock (`msr`, `fiu`, `hp-srt`, `alibaba`, `tencent`) are
//! timed from their earliest record: the stream finds it with a first pass over the
//! file that keeps only the minimum time stamp (a run takes it from its extent pass
//! instead, [`super::merge::open_from`]). `blkparse` picks its action (`D` if the
//! trace has any, else `Q`) with a first pass that stops at the first `D` event;
//! `blktrace` makes both choices (the earliest event, issue or queue) in one first pass.

use super::lines::{Source, StampedIter};
use super::text::rebase_one;
use super::{
    alibaba, blkparse, blktrace, csv, detect, fiu, msr, sample, sort_by_arrival, spc, srt, tencent,
    validate, Format, IoRecord, Position, TraceError,
};
use crate::time::SimTime;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::Path;

/// The format named, or the one detected from the first bytes of `source`. A named
/// format is taken as given, but for an archive or an unread compression, which is
/// refused as detection refuses it (where the first bytes can be read twice).
pub(crate) fn format_of(
    source: &Source<'_>,
    file: &str,
    format: Option<Format>,
) -> Result<Format, TraceError> {
    let rereadable = source.check_rereadable(file, "its format, from its first bytes");
    match (format, rereadable) {
        // A pipe read once, or a folder the reader will name: taken as given.
        (Some(f), Err(_)) => return Ok(f),
        (None, Err(e)) => return Err(e),
        (_, Ok(())) => {}
    }
    // Read as the readers read it (decompressed, for a compressed file).
    let mut head = Vec::new();
    source
        .open(file)?
        .take(super::detect::DETECT_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|e| TraceError::file(file, format!("cannot read: {e}")))?;
    match format {
        Some(f) => match super::compressed::refusal(&head) {
            Some(refused) => Err(TraceError::file(file, refused)),
            None => Ok(f),
        },
        None => detect(file, &head),
    }
}

/// The format's reader over `source`, records stamped with the format's clock.
pub(crate) fn stamped<'a>(
    format: Format,
    source: &Source<'a>,
    file: &str,
) -> Result<StampedIter<'a>, TraceError> {
    let records = match format {
        Format::DisksimAscii => super::ascii::stamped(source.lines(file)?),
        Format::DisksimValidate => validate::stamped(source.lines(file)?),
        Format::HpSrt => srt::stamped(source.open(file)?, file)?,
        Format::Msr => msr::stamped(source.lines(file)?),
        Format::Fiu => fiu::stamped(source.lines(file)?),
        Format::Spc => spc::stamped(source.lines(file)?),
        Format::Blkparse => blkparse::stamped(source, file, None)?,
        Format::Blktrace => blktrace::stamped(source, file)?,
        Format::Alibaba => alibaba::stamped(source.lines(file)?),
        Format::Tencent => tencent::stamped(source.lines(file)?),
        Format::SpindleCsv => csv::stamped(source.lines(file)?),
    };
    let file = file.to_string();
    Ok(Box::new(records.map(move |item| {
        let (t, at, r) = item?;
        check_extent(&file, at, &r)?;
        Ok((t, at, r))
    })))
}

/// Largest sector a trace record may reach (`lbn + blocks`): the largest disk spindle
/// models ([`crate::disk::params::MAX_CAPACITY_SECTORS`], 2^48 sectors). A record beyond
/// it is refused where it is read, naming the file and line, rather than later as a
/// request beyond the disk.
pub const MAX_TRACE_SECTOR: u64 = crate::disk::params::MAX_CAPACITY_SECTORS;

fn check_extent(file: &str, at: Position, r: &IoRecord) -> Result<(), TraceError> {
    match r.lbn.checked_add(r.blocks as u64) {
        Some(end) if end <= MAX_TRACE_SECTOR => Ok(()),
        _ => Err(TraceError {
            file: file.to_string(),
            at,
            msg: format!(
                "the request of {} sectors at LBN {} ends beyond sector {MAX_TRACE_SECTOR}, the end of the largest disk spindle models",
                r.blocks, r.lbn
            ),
        }),
    }
}

/// Nanoseconds per tick of the format's clock, for formats timed from their earliest
/// record; `None` for formats whose times are kept as written.
pub(crate) fn absolute_clock(format: Format) -> Option<u64> {
    match format {
        Format::Msr => Some(msr::NS_PER_TICK),
        Format::Fiu | Format::HpSrt => Some(1),
        Format::Alibaba => Some(alibaba::NS_PER_TICK),
        Format::Tencent => Some(tencent::NS_PER_TICK),
        Format::DisksimAscii
        | Format::DisksimValidate
        | Format::Spc
        | Format::Blkparse
        | Format::Blktrace
        | Format::SpindleCsv => None,
    }
}

/// The earliest time stamp of a file in a format with an absolute clock, by a first
/// pass (up to the first bad record, where the next pass stops too); `None` for a
/// format whose times are kept as written, or a file without records.
pub(crate) fn earliest_stamp(
    source: &Source<'_>,
    file: &str,
    format: Format,
) -> Result<Option<u64>, TraceError> {
    if absolute_clock(format).is_none() {
        return Ok(None);
    }
    source.check_rereadable(file, "its earliest time stamp")?;
    Ok(stamped(format, source, file)?
        .map_while(Result::ok)
        .map(|(t, _, _)| t)
        .min())
}

/// The records of `source` in `format`, each stamped with its arrival in ns: an absolute
/// clock timed from `start`, other clocks as written.
pub(crate) fn timed<'a>(
    source: &Source<'a>,
    file: &str,
    format: Format,
    start: Option<u64>,
) -> Result<StampedIter<'a>, TraceError> {
    let records = stamped(format, source, file)?;
    Ok(match (absolute_clock(format), start) {
        (Some(ns_per_unit), Some(start)) => {
            let name = file.to_string();
            Box::new(records.map(move |s| {
                let s = s?;
                let at = s.1;
                let r = rebase_one(s, start, ns_per_unit, &name)?;
                Ok((r.arrival.0, at, r))
            }))
        }
        _ => Box::new(records.map(|s| s.map(|(_, at, r)| (r.arrival.0, at, r)))),
    })
}

/// Every record of `stamped`, timed as the format wants and sorted by arrival (stably):
/// the whole-file reader.
pub(crate) fn collect_sorted(
    stamped: StampedIter<'_>,
    format: Format,
    file: &str,
) -> Result<Vec<IoRecord>, TraceError> {
    let mut records = match absolute_clock(format) {
        None => stamped
            .map(|s| s.map(|(_, _, r)| r))
            .collect::<Result<Vec<_>, _>>()?,
        Some(ns_per_unit) => {
            super::text::rebase(stamped.collect::<Result<_, _>>()?, ns_per_unit, file)?
        }
    };
    sort_by_arrival(&mut records);
    Ok(records)
}

/// Reads `source` whole (detecting the format if `None`), sorted by arrival.
pub(crate) fn read_source(
    source: &Source<'_>,
    file: &str,
    format: Option<Format>,
) -> Result<Vec<IoRecord>, TraceError> {
    let format = format_of(source, file, format)?;
    collect_sorted(stamped(format, source, file)?, format, file)
}

/// A trace read one record at a time, in file order (see the [module](self) doc). Made
/// by [`open_trace`], [`open_bytes`], [`resolve_stream`] or [`open_sample`].
pub struct TraceStream<'a> {
    /// Records with the index in `files` of the file each came from and where in it.
    inner: Box<dyn Iterator<Item = Result<(usize, Position, IoRecord), TraceError>> + Send + 'a>,
    format: Format,
    /// The files read: one, or several merged ([`super::merge`]).
    files: Vec<String>,
    /// The file of the record last yielded (the first before any).
    current: usize,
    at: Option<Position>,
    done: bool,
}

impl std::fmt::Debug for TraceStream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceStream")
            .field("format", &self.format)
            .field("files", &self.files)
            .field("at", &self.at)
            .finish_non_exhaustive()
    }
}

impl<'a> TraceStream<'a> {
    fn from_source(
        source: Source<'a>,
        file: &str,
        format: Option<Format>,
    ) -> Result<TraceStream<'a>, TraceError> {
        let format = format_of(&source, file, format)?;
        let start = earliest_stamp(&source, file, format)?;
        TraceStream::from_parts(source, file, format, start)
    }

    /// A stream of `source` in `format`, an absolute clock timed from `start` (the
    /// file's own earliest stamp, or the earliest of several files merged).
    pub(crate) fn from_parts(
        source: Source<'a>,
        file: &str,
        format: Format,
        start: Option<u64>,
    ) -> Result<TraceStream<'a>, TraceError> {
        let inner = timed(&source, file, format, start)?.map(|s| s.map(|(_, at, r)| (0, at, r)));
        Ok(TraceStream::of_files(
            Box::new(inner),
            format,
            vec![file.to_string()],
        ))
    }

    /// A stream over records already tagged with their file (an index into `files`).
    pub(crate) fn of_files(
        inner: Box<
            dyn Iterator<Item = Result<(usize, Position, IoRecord), TraceError>> + Send + 'a,
        >,
        format: Format,
        files: Vec<String>,
    ) -> TraceStream<'a> {
        TraceStream {
            inner,
            format,
            files,
            current: 0,
            at: None,
            done: false,
        }
    }

    /// The trace's format (given or detected).
    pub fn format(&self) -> Format {
        self.format
    }

    /// The file name used in errors: of the record last yielded, where several files
    /// are merged (the first file before any record).
    pub fn file(&self) -> &str {
        &self.files[self.current]
    }

    /// Every file the stream reads, in the order given.
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// A name for the whole trace: its file, or its files listed (the first few and a
    /// count, for many).
    pub fn name(&self) -> String {
        list_files(&self.files)
    }

    /// Where the record last yielded came from (`None` before the first one).
    pub fn position(&self) -> Option<Position> {
        self.at
    }

    /// Sorts the stream by arrival (stably) with a reorder buffer of `window` records:
    /// exactly the whole-file reader's order if no record is more than `window` records
    /// later in the file than its place in time order; otherwise the stream fails at the
    /// first record that comes too late, naming it. Holds at most `window + 1` records.
    pub fn sorted_within(self, window: usize) -> SortedWithin<'a> {
        SortedWithin {
            stream: self,
            window,
            buffer: BTreeMap::new(),
            seq: 0,
            last: None,
            input_done: false,
            failed: false,
        }
    }
}

impl Iterator for TraceStream<'_> {
    type Item = Result<IoRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.inner.next() {
            Some(Ok((file, at, record))) => {
                self.current = file;
                self.at = Some(at);
                Some(Ok(record))
            }
            Some(Err(e)) => {
                self.done = true;
                Some(Err(e))
            }
            None => {
                self.done = true;
                None
            }
        }
    }
}

impl std::iter::FusedIterator for TraceStream<'_> {}

/// The files named, for messages: all of them, or the first few and how many.
pub(crate) fn list_files(files: &[String]) -> String {
    const SHOWN: usize = 3;
    match files.len() {
        0..=4 => files.join(" + "),
        n => format!("{} + ... ({n} files)", files[..SHOWN].join(" + ")),
    }
}

/// A [`TraceStream`] sorted with a bounded reorder buffer ([`TraceStream::sorted_within`]).
pub struct SortedWithin<'a> {
    stream: TraceStream<'a>,
    window: usize,
    /// Records read but not yet yielded, by (arrival, file order).
    buffer: BTreeMap<(SimTime, u64), IoRecord>,
    seq: u64,
    /// The arrival of the record last yielded.
    last: Option<SimTime>,
    input_done: bool,
    failed: bool,
}

impl Iterator for SortedWithin<'_> {
    type Item = Result<IoRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        while !self.input_done && self.buffer.len() <= self.window {
            match self.stream.next() {
                None => self.input_done = true,
                Some(Err(e)) => {
                    self.failed = true;
                    return Some(Err(e));
                }
                Some(Ok(r)) => {
                    if let Some(last) = self.last.filter(|&last| r.arrival < last) {
                        self.failed = true;
                        return Some(Err(TraceError {
                            file: self.stream.file().to_string(),
                            at: self.stream.at.unwrap_or(Position::File),
                            msg: format!(
                                "arrives at {} ns, before a request already replayed ({} ns): \
                                 the trace is out of arrival order by more than the reorder \
                                 window of {} records",
                                r.arrival.0, last.0, self.window
                            ),
                        }));
                    }
                    self.buffer.insert((r.arrival, self.seq), r);
                    self.seq += 1;
                }
            }
        }
        let ((arrival, _), record) = self.buffer.pop_first()?;
        self.last = Some(arrival);
        Some(Ok(record))
    }
}

impl std::iter::FusedIterator for SortedWithin<'_> {}

/// Opens a trace file as a stream; `format: None` detects the format from the file's
/// first bytes. Errors opening the file, in an SRT header, or (for formats that need a
/// first pass, see the [module](self) doc) found by that pass come here; errors in
/// records come from the stream, in file order.
pub fn open_trace(path: &Path, format: Option<Format>) -> Result<TraceStream<'static>, TraceError> {
    let file = path.display().to_string();
    TraceStream::from_source(Source::File(path.to_path_buf()), &file, format)
}

/// A trace held in memory as a stream (`name` is used in errors).
pub fn open_bytes<'a>(
    bytes: &'a [u8],
    name: &str,
    format: Option<Format>,
) -> Result<TraceStream<'a>, TraceError> {
    TraceStream::from_source(Source::Bytes(bytes), name, format)
}

/// A built-in trace as a stream: its records held in memory (they are few), in arrival
/// order, so the stream gives exactly what [`sample`] gives.
pub fn open_sample(name: &str) -> Result<TraceStream<'static>, TraceError> {
    let records = sample(name)?;
    let name = name.strip_prefix("sample:").unwrap_or(name);
    Ok(TraceStream::of_files(
        Box::new(records.iter().map(|r| Ok((0, Position::File, r.clone())))),
        Format::HpSrt,
        vec![format!("sample:{name}")],
    ))
}

/// [`super::resolve`] as a stream: `sample:NAME`, `FORMAT:PATH` or a path.
pub fn resolve_stream(spec: &str) -> Result<TraceStream<'static>, TraceError> {
    if spec.starts_with("sample:") {
        return open_sample(spec);
    }
    let (path, format) = split_spec(spec);
    open_trace(path, format)
}

/// Refuses a format named beside a spec that fixes its own: a built-in sample, or a
/// `FORMAT:PATH` prefix (the path would otherwise be taken whole, prefix included).
/// The error says why, to follow the format's name (`format spc` ...).
pub fn check_spec_format(spec: &str, format: Option<Format>) -> Result<(), String> {
    if format.is_none() {
        return Ok(());
    }
    if spec.starts_with("sample:") {
        return Err(format!(
            "applies to a trace file; {spec} is a built-in sample in its own format"
        ));
    }
    if let (_, Some(prefixed)) = split_spec(spec) {
        return Err(format!(
            "is given beside the prefix {}: of {spec}: give the format once (a file whose \
             name starts so is ./{spec})",
            prefixed.name()
        ));
    }
    Ok(())
}

/// [`check_spec_format`] as the trace error that names the spec.
pub(crate) fn spec_format_error(spec: &str, format: Option<Format>) -> Result<(), TraceError> {
    match (format, check_spec_format(spec, format)) {
        (Some(f), Err(e)) => Err(TraceError::file(spec, format!("format {} {e}", f.name()))),
        _ => Ok(()),
    }
}

/// Opens `spec` (`sample:NAME`, `FORMAT:PATH` or a path) in `format` if given (else
/// the prefix's or the detected one), after [`check_spec_format`].
pub fn open_spec(spec: &str, format: Option<Format>) -> Result<TraceStream<'static>, TraceError> {
    spec_format_error(spec, format)?;
    match format {
        Some(f) => open_trace(Path::new(spec), Some(f)),
        None => resolve_stream(spec),
    }
}

/// Why a run's trace file must be a regular file: [`open_spec_from`] reads it again.
pub(crate) const SECOND_READ: &str =
    "a run reads its trace more than once: its extent, then its requests";

/// [`open_spec`] where a pass over the file already found its earliest time stamp
/// ([`TraceExtent`] of the same spec and format): the stream takes no first pass of its
/// own for it.
pub(crate) fn open_spec_from(
    spec: &str,
    format: Option<Format>,
    extent: &TraceExtent,
) -> Result<TraceStream<'static>, TraceError> {
    if spec.starts_with("sample:") {
        return open_spec(spec, format);
    }
    let (source, file, format) = spec_source(spec, format)?;
    source.check_rereadable(&file, SECOND_READ)?;
    TraceStream::from_parts(source, &file, format, extent.earliest_stamp)
}

/// The file a spec (`FORMAT:PATH` or a path, not a sample) names: its source, its name
/// for errors and its format (`format`, else the prefix's, else detected).
pub(crate) fn spec_source(
    spec: &str,
    format: Option<Format>,
) -> Result<(Source<'static>, String, Format), TraceError> {
    spec_format_error(spec, format)?;
    let (path, prefixed) = split_spec(spec);
    let file = path.display().to_string();
    let source = Source::File(path.to_path_buf());
    let format = format_of(&source, &file, format.or(prefixed))?;
    Ok((source, file, format))
}

/// The file a `FORMAT:PATH` spec or a plain path names.
pub fn spec_path(spec: &str) -> &Path {
    split_spec(spec).0
}

/// `FORMAT:PATH` or a plain path.
pub(crate) fn split_spec(spec: &str) -> (&Path, Option<Format>) {
    if let Some((prefix, path)) = spec.split_once(':') {
        if let Ok(format) = prefix.parse::<Format>() {
            return (Path::new(path), Some(format));
        }
    }
    (Path::new(spec), None)
}

/// How much of the address space a trace uses, per device: what a caller needs to place
/// the trace's devices without holding its records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceExtent {
    /// Records in the trace.
    pub records: u64,
    /// The end (last sector + 1) of the highest range any record touches.
    pub max_end_lbn: u64,
    /// The same per trace device number.
    pub devices: BTreeMap<u32, DeviceExtent>,
    /// Whether the file's order is arrival order (no record arrives before the one
    /// before it): a stream of it is then in order without sorting.
    pub in_order: bool,
    /// The previous record's time stamp, for `in_order`.
    last_stamp: Option<u64>,
    /// The earliest time stamp, in the format's clock (a stream of a format with an
    /// absolute clock is timed from it).
    pub(crate) earliest_stamp: Option<u64>,
}

/// One device's part of a [`TraceExtent`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceExtent {
    pub records: u64,
    /// The end (last sector + 1) of the highest range the device's records touch.
    pub max_end_lbn: u64,
}

impl Default for TraceExtent {
    /// No records (in order).
    fn default() -> TraceExtent {
        TraceExtent {
            records: 0,
            max_end_lbn: 0,
            devices: BTreeMap::new(),
            in_order: true,
            last_stamp: None,
            earliest_stamp: None,
        }
    }
}

impl TraceExtent {
    /// The extent of records already at hand (a stream after filters, a sample).
    pub fn of<I: IntoIterator<Item = IoRecord>>(records: I) -> TraceExtent {
        let mut e = TraceExtent::default();
        for r in records {
            e.push(&r);
        }
        e
    }

    /// Adds one record (arrivals count for `in_order`).
    pub fn push(&mut self, record: &IoRecord) {
        self.add(record.arrival.0, record);
    }

    /// Adds one record stamped `stamp` in its format's clock.
    pub(crate) fn add(&mut self, stamp: u64, r: &IoRecord) {
        if self.last_stamp.is_some_and(|last| stamp < last) {
            self.in_order = false;
        }
        self.last_stamp = Some(stamp);
        self.earliest_stamp = Some(self.earliest_stamp.map_or(stamp, |e| e.min(stamp)));
        let end = r.lbn.saturating_add(u64::from(r.blocks));
        self.records += 1;
        self.max_end_lbn = self.max_end_lbn.max(end);
        let d = self.devices.entry(r.device).or_default();
        d.records += 1;
        d.max_end_lbn = d.max_end_lbn.max(end);
    }

    /// The trace's device numbers.
    pub fn device_numbers(&self) -> BTreeSet<u32> {
        self.devices.keys().copied().collect()
    }

    /// The highest device number (`None` for an empty trace).
    pub fn max_device(&self) -> Option<u32> {
        self.devices.keys().next_back().copied()
    }
}

/// One pass over a trace file, keeping only counts and extents: memory does not grow
/// with the file (only with its number of devices). No time rebasing is needed, so
/// formats with an absolute clock are read once, not twice as a stream reads them.
pub fn trace_extent(path: &Path, format: Option<Format>) -> Result<TraceExtent, TraceError> {
    let file = path.display().to_string();
    let source = Source::File(path.to_path_buf());
    let format = format_of(&source, &file, format)?;
    extent_of_stamped(stamped(format, &source, &file)?)
}

/// [`trace_extent`] of a trace spec (`sample:NAME`, `FORMAT:PATH` or a path).
pub fn resolve_extent(spec: &str) -> Result<TraceExtent, TraceError> {
    if spec.starts_with("sample:") {
        return Ok(TraceExtent::of(sample(spec)?.iter().cloned()));
    }
    let (path, format) = split_spec(spec);
    trace_extent(path, format)
}

fn extent_of_stamped(records: StampedIter<'_>) -> Result<TraceExtent, TraceError> {
    let mut e = TraceExtent::default();
    for r in records {
        let (t, _, record) = r?;
        e.add(t, &record);
    }
    Ok(e)
}

/// Plain records from a fallible stream, for consumers that take `IoRecord`s (the
/// engine): ends at the first error and leaves it in `error`, to be checked once the
/// consumer is done.
pub fn records_until_error<I>(records: I, error: &mut Option<TraceError>) -> UntilError<'_, I>
where
    I: Iterator<Item = Result<IoRecord, TraceError>>,
{
    UntilError {
        records,
        error,
        done: false,
    }
}

/// See [`records_until_error`].
pub struct UntilError<'e, I> {
    records: I,
    error: &'e mut Option<TraceError>,
    done: bool,
}

impl<I> Iterator for UntilError<'_, I>
where
    I: Iterator<Item = Result<IoRecord, TraceError>>,
{
    type Item = IoRecord;

    fn next(&mut self) -> Option<IoRecord> {
        if self.done {
            return None;
        }
        match self.records.next() {
            Some(Ok(r)) => Some(r),
            Some(Err(e)) => {
                *self.error = Some(e);
                self.done = true;
                None
            }
            None => {
                self.done = true;
                None
            }
        }
    }
}
