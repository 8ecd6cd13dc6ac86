//! HP Labs SRT traces (reference §11), e.g. `ajw.1week.srt`: a text header, then binary
//! records of big-endian signed 32-bit words.
//!
//! The header runs up to the first form-feed byte (0x0C) and must contain a line whose
//! first word is `tracedate`. Each record is:
//!
//! | word | meaning |
//! |---|---|
//! | 0 | record size in bytes (must equal the words read below) |
//! | 1 | version (high 16 bits, 1–4) and type (low 16: 1 = short I/O, 4 = suspect) |
//! | 2, 3 | time stamp: seconds, microseconds |
//! | 4, 5 | traced queue time and completion time (µs), not used here |
//! | 6 | byte count, a multiple of 512 |
//! | 7 | starting block (taken as a 512-byte LBN, as DiskSim does) |
//! | 8 | device word: device = bits 8–15 |
//! | 9, 10 | driver type, cylinder (not used) |
//! | 11 | HP-UX buffer flags: 0x1 = read |
//! | 12 | info (not used) |
//! | 13 | queue length, version 4 only |
//! | last | suspect flags, suspect records only |
//!
//! Suspect records are checked and skipped, as DiskSim skips them. Any other type or
//! version, a size that disagrees with the words the record holds, or a byte count that
//! is not a multiple of 512 is an error, as in DiskSim. We also reject what DiskSim
//! would silently misuse: negative times, blocks or sizes, microseconds of 10^6 or
//! more, zero-byte requests and a truncated last record.
//!
//! **Time base.** DiskSim's `hpl` reader issues each request at `sec·1000 + usec/1000`
//! ms of *absolute* trace time (plus a base offset from `tracedate` that is 0 for the
//! first file), and aborts if a time goes backwards. We take
//! `sec·10⁹ + usec·10³` ns relative to the earliest record, so the trace starts at 0,
//! and sort stably. For `ajw.1week.srt` the two agree exactly: its first record is
//! stamped 0 s 0 µs, so DiskSim's `hplajw` replay also starts at 0 and every arrival is
//! the same instant.

use super::lines::{Stamped, StampedIter};
use super::{Format, IoRecord, Position, TraceError};
use std::io::{BufRead, Read};

/// Record type: a normal (short) I/O.
const SHORT_IO: i32 = 1;
/// Record type: an I/O the tracer marked as suspect; DiskSim skips these.
const SUSPECT_IO: i32 = 4;
/// HP-UX buffer flag for reads.
const READ: i32 = 0x1;
/// Words 0..=12 are present in every record.
const FIXED_WORDS: usize = 13;

/// Longest header read looking for the form feed that ends it (the HP headers are about
/// 2 KiB).
const MAX_HEADER_BYTES: u64 = 1 << 20;

/// Bytes of a record kept to parse it: the largest valid record is 15 words.
const MAX_RECORD_BYTES: usize = 64;

/// Parses an SRT file (header included).
pub fn parse(bytes: &[u8], file: &str) -> Result<Vec<IoRecord>, TraceError> {
    super::parse_format(bytes, file, Format::HpSrt)
}

/// The streaming reader: checks the header, then reads one record at a time, stamped
/// with its time in ns (not rebased).
pub(crate) fn stamped<'a>(
    mut reader: Box<dyn BufRead + Send + 'a>,
    file: &str,
) -> Result<StampedIter<'a>, TraceError> {
    let mut header = Vec::new();
    (&mut reader)
        .take(MAX_HEADER_BYTES)
        .read_until(0x0C, &mut header)
        .map_err(|e| TraceError::file(file, e.to_string()))?;
    let body_start = check_header(&header).map_err(|msg| TraceError::file(file, msg))?;
    Ok(Box::new(Records {
        reader,
        file: file.to_string(),
        offset: body_start,
        number: 0,
        buf: Vec::with_capacity(MAX_RECORD_BYTES),
        done: false,
    }))
}

/// The records after the header.
struct Records<'a> {
    reader: Box<dyn BufRead + Send + 'a>,
    file: String,
    /// Byte offset in the file of the next record.
    offset: usize,
    number: usize,
    buf: Vec<u8>,
    done: bool,
}

impl Records<'_> {
    /// Reads the next record: its first bytes (up to [`MAX_RECORD_BYTES`]) into `buf`,
    /// and returns how many bytes of it the file holds (at most its size, if the size
    /// word is readable). `None` at the end of the file.
    fn read_record(&mut self) -> std::io::Result<Option<usize>> {
        self.buf.clear();
        (&mut self.reader).take(4).read_to_end(&mut self.buf)?;
        if self.buf.is_empty() {
            return Ok(None);
        }
        let Ok(size_word) = <[u8; 4]>::try_from(self.buf.as_slice()) else {
            return Ok(Some(self.buf.len()));
        };
        let size = usize::try_from(i32::from_be_bytes(size_word)).unwrap_or(0);
        let kept = size.clamp(4, MAX_RECORD_BYTES);
        (&mut self.reader)
            .take((kept - 4) as u64)
            .read_to_end(&mut self.buf)?;
        // Bytes beyond what a valid record holds are only counted.
        let skipped = std::io::copy(
            &mut (&mut self.reader).take(size.saturating_sub(kept) as u64),
            &mut std::io::sink(),
        )?;
        Ok(Some(self.buf.len() + skipped as usize))
    }
}

impl Iterator for Records<'_> {
    type Item = Result<Stamped, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            self.number += 1;
            let at = Position::Record {
                number: self.number,
                offset: self.offset,
            };
            let parsed = match self.read_record() {
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Ok(Some(available)) => parse_record(&self.buf, available),
                Err(e) => Err(format!("cannot read: {e}")),
            };
            match parsed {
                Ok((size, record)) => {
                    self.offset += size;
                    if let Some((ns, record)) = record {
                        return Some(Ok((ns, at, record)));
                    }
                }
                Err(msg) => {
                    self.done = true;
                    return Some(Err(TraceError {
                        file: self.file.clone(),
                        at,
                        msg,
                    }));
                }
            }
        }
        None
    }
}

/// Checks the header and returns the offset of the first record (just past the
/// form feed).
fn check_header(bytes: &[u8]) -> Result<usize, String> {
    let Some(ff) = bytes.iter().position(|&b| b == 0x0C) else {
        return Err("no form feed (0x0C) ending the SRT header: not an SRT trace".into());
    };
    let header = String::from_utf8_lossy(bytes.get(..ff).unwrap_or_default());
    if !header
        .lines()
        .any(|l| l.split_ascii_whitespace().next() == Some("tracedate"))
    {
        return Err("SRT header has no 'tracedate' line before the form feed".into());
    }
    Ok(ff + 1)
}

/// A parsed record: its size in bytes and, unless it is a suspect record, its time
/// stamp in ns and the request.
type Parsed = (usize, Option<(u64, IoRecord)>);

/// Parses the record at the start of `rest`, the first bytes of the `available` bytes
/// the file holds from the record's start on (`rest` holds the whole record if it is
/// valid).
fn parse_record(rest: &[u8], available: usize) -> Result<Parsed, String> {
    let word = |i: usize| -> Option<i32> {
        let b = rest.get(i * 4..i * 4 + 4)?;
        Some(i32::from_be_bytes(b.try_into().ok()?))
    };
    let Some(size_word) = word(0) else {
        return Err(format!(
            "truncated record: {available} trailing bytes, too few for the size word"
        ));
    };
    let size = usize::try_from(size_word)
        .ok()
        .filter(|s| s % 4 == 0 && *s >= FIXED_WORDS * 4)
        .ok_or_else(|| {
            format!(
                "word 0 (record size): expected a multiple of 4 bytes, at least {}, found {size_word}",
                FIXED_WORDS * 4
            )
        })?;
    if size > available {
        return Err(format!(
            "truncated record: word 0 (record size) says {size} bytes, only {available} remain"
        ));
    }
    // From here on the words read below index size/4 are in `rest`: word 1 always,
    // the others only once the size is known to be one of a valid record.
    let w = |i: usize| word(i).unwrap_or(0);
    let id = w(1);
    let (version, kind) = (id >> 16, id & 0xFFFF);
    if !(1..=4).contains(&version) {
        return Err(format!(
            "word 1 (record id): version (high 16 bits) must be 1 to 4, found {version} (id {id:#x})"
        ));
    }
    if kind != SHORT_IO && kind != SUSPECT_IO {
        return Err(format!(
            "word 1 (record id): unexpected record type {kind} (1 = short I/O, 4 = suspect), id {id:#x}"
        ));
    }
    let expected = 4 * (FIXED_WORDS + usize::from(version == 4) + usize::from(kind == SUSPECT_IO));
    if size != expected {
        return Err(format!(
            "word 0 (record size): found {size} bytes, but a version {version} type {kind} record holds {expected}"
        ));
    }
    let byte_count = w(6);
    if byte_count % 512 != 0 {
        return Err(format!(
            "word 6 (byte count): must be a multiple of 512, found {byte_count}"
        ));
    }
    if kind == SUSPECT_IO {
        return Ok((size, None));
    }

    let (sec, usec) = (w(2), w(3));
    let (Ok(sec), Ok(usec)) = (u64::try_from(sec), u64::try_from(usec)) else {
        return Err(format!(
            "words 2-3 (time stamp): must not be negative, found {sec} s {usec} µs"
        ));
    };
    // The microseconds count within the second: a larger one is a corrupt record, not a
    // later time (DiskSim would silently add it).
    if usec >= 1_000_000 {
        return Err(format!(
            "word 3 (time stamp, microseconds within the second): must be below 1000000, found {usec}"
        ));
    }
    // Both are below 2^31, so this cannot overflow; checked anyway.
    let ns = sec
        .checked_mul(1_000_000_000)
        .and_then(|s| s.checked_add(usec.checked_mul(1_000)?))
        .ok_or_else(|| "words 2-3 (time stamp): out of range".to_string())?;
    let blocks = u32::try_from(byte_count / 512)
        .ok()
        .filter(|&b| b >= 1)
        .ok_or_else(|| {
            format!("word 6 (byte count): a request must be at least 512 bytes, found {byte_count}")
        })?;
    let lbn = u64::try_from(w(7))
        .map_err(|_| format!("word 7 (start block): must not be negative, found {}", w(7)))?;
    let device = u32::try_from((w(8) >> 8) & 0xFF).unwrap_or(0);
    let record = IoRecord {
        arrival: crate::time::SimTime::ZERO,
        device,
        lbn,
        blocks,
        write: w(11) & READ == 0,
        content: Vec::new(),
    };
    Ok((size, Some((ns, record))))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::time::SimTime;

    pub const HEADER: &[u8] =
        b"$$TR_IOREC-1.3\nversion = 1.3;\ntracedate    = \"Sat May 30 00:03:06 1992\";\n\x0c";

    /// One record: `words` after the size word, which is computed.
    pub fn record(words: &[i32]) -> Vec<u8> {
        let mut out = Vec::new();
        let size = i32::try_from(4 * (words.len() + 1)).unwrap();
        out.extend_from_slice(&size.to_be_bytes());
        for w in words {
            out.extend_from_slice(&w.to_be_bytes());
        }
        out
    }

    /// A version 4 short I/O.
    pub fn io(sec: i32, usec: i32, bytes: i32, block: i32, dev: i32, read: bool) -> Vec<u8> {
        record(&[
            0x4_0001,
            sec,
            usec,
            100,
            900,
            bytes,
            block,
            0x0800_0007 | (dev << 8),
            4,
            17,
            if read { 0x1b } else { 0x1a },
            0,
            1,
        ])
    }

    fn parse_body(body: &[u8]) -> Result<Vec<IoRecord>, TraceError> {
        parse(&[HEADER, body].concat(), "t.srt")
    }

    #[test]
    fn reads_records_rebased_and_skips_suspects() {
        let suspect = record(&[0x4_0004, 5, 0, 0, 0, 1024, 1, 0, 4, 0, 0, 0, 1, 0x40]);
        let v3 = record(&[0x3_0001, 7, 0, 0, 0, 512, 99, 0x100, 4, 0, 0x1, 0]);
        let body = [
            io(2, 500_000, 8192, 1000, 0, true),
            suspect,
            io(3, 0, 1024, 20, 1, false),
            v3,
        ]
        .concat();
        let r = parse_body(&body).unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].arrival, SimTime(0));
        assert_eq!(
            (r[0].lbn, r[0].blocks, r[0].device, r[0].write),
            (1000, 16, 0, false)
        );
        assert_eq!(r[1].arrival, SimTime(500_000_000));
        assert_eq!((r[1].device, r[1].blocks, r[1].write), (1, 2, true));
        assert_eq!(r[2].arrival, SimTime(4_500_000_000));
        assert_eq!((r[2].device, r[2].lbn, r[2].write), (1, 99, false));
    }

    #[test]
    fn header_errors() {
        let err = parse(b"tracedate = x;\n", "h.srt").unwrap_err();
        assert_eq!(err.at, Position::File);
        assert!(err.msg.contains("form feed"), "{err}");
        let err = parse(b"version = 1;\n\x0c", "h.srt").unwrap_err();
        assert!(err.msg.contains("tracedate"), "{err}");
        assert!(parse(HEADER, "h.srt").unwrap().is_empty());
    }

    #[test]
    fn record_errors_name_record_and_offset() {
        let good = io(0, 0, 512, 1, 0, true);
        let off = HEADER.len() + good.len();
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (record(&[0x5_0001; 13]), "word 1 (record id): version"),
            (record(&[0x4_0002; 13]), "unexpected record type 2"),
            (
                record(&[0x4_0001; 12]),
                "word 0 (record size): found 52 bytes",
            ),
            (
                io(0, 0, 1000, 1, 0, true),
                "word 6 (byte count): must be a multiple of 512",
            ),
            (io(0, 0, 0, 1, 0, true), "at least 512 bytes, found 0"),
            (
                io(-1, 0, 512, 1, 0, true),
                "words 2-3 (time stamp): must not be negative",
            ),
            (
                io(0, 1_000_000, 512, 1, 0, true),
                "word 3 (time stamp, microseconds within the second): must be below 1000000, found 1000000",
            ),
            (
                io(0, 0, 512, -5, 0, true),
                "word 7 (start block): must not be negative",
            ),
            (vec![0, 0, 0], "truncated record: 3 trailing bytes"),
            (
                vec![0, 0, 0, 56, 0],
                "truncated record: word 0 (record size) says 56",
            ),
            (
                vec![0, 0, 0, 3],
                "word 0 (record size): expected a multiple of 4",
            ),
        ];
        for (bad, msg) in cases {
            let err = parse_body(&[good.clone(), bad].concat()).unwrap_err();
            assert_eq!(
                err.at,
                Position::Record {
                    number: 2,
                    offset: off
                },
                "{msg}"
            );
            assert!(err.msg.contains(msg), "{msg}: got {}", err.msg);
            assert!(err
                .to_string()
                .starts_with(&format!("t.srt:record 2 (byte {off}): ")));
        }
    }
}
