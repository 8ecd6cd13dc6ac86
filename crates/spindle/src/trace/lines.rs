//! Reading a trace file: its bytes ([`Source`]), its lines one at a time ([`Lines`]), and
//! a text format's records from its lines ([`line_records`]) — what every format's
//! reader is built on. Which reader a file gets is decided in [`super::stream`].

use super::{IoRecord, Position, TraceError};
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

/// A record with the time stamp of the format's own clock (arrival nanoseconds for the
/// formats that keep times as written) and where in the file it came from.
pub(crate) type Stamped = (u64, Position, IoRecord);

/// What a format's reader yields: stamped records, in file order.
pub(crate) type StampedIter<'a> = Box<dyn Iterator<Item = Result<Stamped, TraceError>> + Send + 'a>;

/// Longest line a text trace may have; longer ones are an error (a binary file read as
/// text would otherwise be held whole).
const MAX_LINE_BYTES: u64 = 1 << 20;

/// The UTF-8 byte-order mark, skipped where a text trace starts.
pub(crate) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Read buffer of a trace file.
const READ_BUFFER_BYTES: usize = 256 * 1024;

/// Where a trace's bytes come from; opened once per pass.
#[derive(Clone, Debug)]
pub(crate) enum Source<'a> {
    File(PathBuf),
    Bytes(&'a [u8]),
}

impl<'a> Source<'a> {
    /// The source's bytes, decompressed if they are gzip or Zstandard data.
    pub(crate) fn open(&self, file: &str) -> Result<Box<dyn BufRead + Send + 'a>, TraceError> {
        let raw: Box<dyn BufRead + Send + 'a> = match self {
            Source::File(path) => {
                let f =
                    std::fs::File::open(path).map_err(|e| TraceError::file(file, e.to_string()))?;
                Box::new(BufReader::with_capacity(READ_BUFFER_BYTES, Watched(f)))
            }
            Source::Bytes(bytes) => Box::new(*bytes),
        };
        super::compressed::decompressed(raw)
            .map_err(|e| TraceError::file(file, format!("cannot read: {e}")))
    }

    /// An error unless the source can be read more than once: a file read twice (to
    /// detect its format, find its earliest time stamp, choose its events) must be a
    /// regular file, since a pipe or a device gives its bytes only once. `why` says what
    /// the second reading is for.
    pub(crate) fn check_rereadable(&self, file: &str, why: &str) -> Result<(), TraceError> {
        // A missing file is left to the reader, which says so.
        let not_regular = |path: &PathBuf| std::fs::metadata(path).is_ok_and(|m| !m.is_file());
        match self {
            Source::File(path) if path.is_dir() => Err(TraceError::file(
                file,
                "is a folder; give a trace file".to_string(),
            )),
            Source::File(path) if not_regular(path) => Err(TraceError::file(
                file,
                format!(
                    "not a regular file, and reading it takes a second pass ({why}), which \
                     a pipe or a device cannot give: save it to a file first"
                ),
            )),
            _ => Ok(()),
        }
    }

    pub(crate) fn lines(&self, file: &str) -> Result<Lines<'a>, TraceError> {
        Ok(Lines {
            reader: self.open(file)?,
            raw: Vec::new(),
            text: String::new(),
            valid_utf8: true,
            number: 0,
            file: file.to_string(),
        })
    }
}

/// A trace file whose reads fail once a stop is requested ([`crate::interrupt`],
/// Python's Ctrl-C) after the call reading it began ([`crate::interrupt::scoped`]), so a
/// pass over a long file, a run's first pass too, ends within one buffer fill. A file
/// kept open across calls (Python's `TraceReader`) is judged by each call's own start;
/// a read outside any such call is never stopped. The error is not `Interrupted`, which
/// readers retry.
struct Watched<R>(R);

impl<R: Read> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if crate::interrupt::requested_in_call() {
            return Err(std::io::Error::other(crate::interrupt::MESSAGE));
        }
        self.0.read(buf)
    }
}

/// The lines of a text trace, read one at a time: each without its `\n` or `\r\n`,
/// numbered from 1. Invalid UTF-8 is replaced (it can only matter inside a field, and
/// there it is reported as that field's bad value); [`Lines::valid_utf8`] tells.
pub(crate) struct Lines<'a> {
    reader: Box<dyn BufRead + Send + 'a>,
    raw: Vec<u8>,
    text: String,
    valid_utf8: bool,
    number: usize,
    file: String,
}

impl Lines<'_> {
    /// Moves to the next line; `false` at the end of the input.
    pub(crate) fn advance(&mut self) -> Result<bool, TraceError> {
        self.raw.clear();
        let next = self.number + 1;
        let n = (&mut self.reader)
            .take(MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut self.raw)
            .map_err(|e| TraceError::line(&self.file, next, format!("cannot read: {e}")))?;
        if n == 0 {
            return Ok(false);
        }
        self.number = next;
        let mut line = self.raw.as_slice();
        if let Some(l) = line.strip_suffix(b"\n") {
            line = l;
        } else if self.raw.len() as u64 > MAX_LINE_BYTES {
            return Err(self.error(format!(
                "line longer than {MAX_LINE_BYTES} bytes: not a text trace?"
            )));
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // A byte-order mark some editors and Windows tools put first is not data.
        let line = match next {
            1 => line.strip_prefix(UTF8_BOM).unwrap_or(line),
            _ => line,
        };
        self.text.clear();
        match std::str::from_utf8(line) {
            Ok(s) => {
                self.valid_utf8 = true;
                self.text.push_str(s);
            }
            Err(_) => {
                self.valid_utf8 = false;
                self.text.push_str(&String::from_utf8_lossy(line));
            }
        }
        Ok(true)
    }

    /// The current line's text.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    pub(crate) fn number(&self) -> usize {
        self.number
    }

    pub(crate) fn position(&self) -> Position {
        Position::Line(self.number)
    }

    pub(crate) fn valid_utf8(&self) -> bool {
        self.valid_utf8
    }

    pub(crate) fn file(&self) -> &str {
        &self.file
    }

    /// An error about the current line.
    pub(crate) fn error(&self, msg: impl Into<String>) -> TraceError {
        TraceError::line(&self.file, self.number, msg)
    }
}

/// What a text format's reader makes of one line.
pub(crate) enum Step<T = Stamped> {
    /// Nothing (a blank line, a header).
    Skip,
    Record(T),
    /// The events are over (blkparse's closing summary): ignore the rest.
    End,
}

/// A text format's reader: `parse` sees each line in turn (and keeps whatever state the
/// format needs); the first error ends the stream.
pub(crate) fn line_records<'a, F>(lines: Lines<'a>, parse: F) -> StampedIter<'a>
where
    F: FnMut(&Lines<'a>) -> Result<Step, TraceError> + Send + 'a,
{
    Box::new(LineRecords {
        lines,
        parse,
        done: false,
    })
}

/// A CSV-like format's reader: blank lines skipped, an optional header line first (one
/// `is_header` accepts), and every other line a record `parse` stamps with the format's
/// clock.
pub(crate) fn csv_records<'a>(
    lines: Lines<'a>,
    is_header: fn(&str) -> bool,
    parse: fn(&str) -> Result<(u64, IoRecord), String>,
) -> StampedIter<'a> {
    let mut first = true;
    line_records(lines, move |l| {
        let line = l.text();
        if line.trim_ascii().is_empty() {
            return Ok(Step::Skip);
        }
        if std::mem::take(&mut first) && is_header(line) {
            return Ok(Step::Skip);
        }
        let (stamp, record) = parse(line).map_err(|msg| l.error(msg))?;
        Ok(Step::Record((stamp, l.position(), record)))
    })
}

struct LineRecords<'a, F> {
    lines: Lines<'a>,
    parse: F,
    done: bool,
}

impl<'a, F> Iterator for LineRecords<'a, F>
where
    F: FnMut(&Lines<'a>) -> Result<Step, TraceError>,
{
    type Item = Result<Stamped, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let step = match self.lines.advance() {
                Ok(false) => Ok(Step::End),
                Ok(true) => (self.parse)(&self.lines),
                Err(e) => Err(e),
            };
            match step {
                Ok(Step::Skip) => {}
                Ok(Step::Record(r)) => return Some(Ok(r)),
                Ok(Step::End) => self.done = true,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        None
    }
}
