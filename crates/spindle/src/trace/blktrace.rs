//! blktrace's binary event stream, as `blktrace -o -` writes it (or one `DEV.blktrace.N`
//! per-CPU file, or several concatenated): the trace read without `blkparse`.
//!
//! Each event is a 48-byte header, then `pdu_len` bytes of payload:
//!
//! ```text
//!   u32 magic      0x654174 and the format version (7) in the low byte
//!   u32 sequence   u64 time (ns)   u64 sector   u32 bytes   u32 action
//!   u32 pid        u32 device (major << 20 | minor)   u32 cpu   u16 error   u16 pdu_len
//! ```
//!
//! in the byte order of the machine that traced (both orders are read; the magic tells
//! which). The low 16 bits of `action` say what happened (queued, issued, completed,
//! ...), the high 16 the categories: read, write, flush, FUA, discard, read-ahead,
//! metadata, SCSI pass-through, notification.
//!
//! The records are those `blkparse`'s text gives through [`super::blkparse`], so a
//! trace replays the same either way: one request per event of one action, issue (`D`,
//! what the disk sees) if the trace has any issue event, else queue (`Q`); only reads
//! and writes with data (a write if the write category is set, else a read if it
//! carries bytes). Discards, data-less flushes, notifications (process names, messages)
//! and SCSI pass-through commands are skipped; a write of 0 bytes without a flush, or a
//! size that is not a whole number of 512-byte sectors, is an error. Times count from
//! the earliest event of any kind in the file, as `blkparse` counts them; `device` is
//! the index of the event's `major,minor` among the distinct devices of the kept events,
//! in order of first appearance. Both decisions take a first pass over the file.

use super::lines::{Source, StampedIter};
use super::{Format, IoRecord, Position, TraceError};
use crate::time::SimTime;
use std::io::{BufRead, Read};

/// Bytes of an event's fixed header.
pub const HEADER_BYTES: usize = 48;
/// The magic without its version byte.
const MAGIC: u32 = 0x6561_7400;
/// The format version `blktrace` 1.x writes and this reader knows.
const VERSION: u32 = 7;

/// Action codes (the low 16 bits of `action`).
const ISSUE: u32 = 7;
const QUEUE: u32 = 1;
/// Category bits (the high 16 bits of `action`).
const WRITE: u32 = 1 << 1;
const FLUSH: u32 = 1 << 2;
const PASS_THROUGH: u32 = 1 << 9;
const NOTIFY: u32 = 1 << 10;
const DISCARD: u32 = 1 << 13;

/// Parses a whole in-memory blktrace stream, sorted by arrival.
pub fn parse(bytes: &[u8], file: &str) -> Result<Vec<IoRecord>, TraceError> {
    super::parse_format(bytes, file, Format::Blktrace)
}

/// Whether `bytes` start like a blktrace stream: the magic, in either byte order.
pub(crate) fn is_blktrace(bytes: &[u8]) -> bool {
    match bytes.get(..4) {
        Some(&[_, b1, b2, b3]) if [b1, b2, b3] == [0x74, 0x61, 0x65] => true,
        Some(&[b0, b1, b2, _]) => [b0, b1, b2] == [0x65, 0x61, 0x74],
        _ => false,
    }
}

/// One event's fields that matter here.
struct Event {
    time: u64,
    sector: u64,
    bytes: u32,
    action: u32,
    device: u32,
}

impl Event {
    fn code(&self) -> u32 {
        self.action & 0xffff
    }

    fn categories(&self) -> u32 {
        self.action >> 16
    }
}

/// The events of a stream, in file order, each with its position; the first error ends
/// them.
struct Events<'a> {
    reader: Box<dyn BufRead + Send + 'a>,
    file: String,
    number: usize,
    offset: usize,
    done: bool,
}

impl<'a> Events<'a> {
    fn new(reader: Box<dyn BufRead + Send + 'a>, file: &str) -> Events<'a> {
        Events {
            reader,
            file: file.to_string(),
            number: 0,
            offset: 0,
            done: false,
        }
    }

    fn error(&self, at: Position, msg: String) -> TraceError {
        TraceError {
            file: self.file.clone(),
            at,
            msg,
        }
    }

    /// The next event, `Ok(None)` at the end of the stream.
    fn read_event(&mut self) -> Result<Option<Event>, String> {
        let mut header = [0u8; HEADER_BYTES];
        let got = read_up_to(&mut self.reader, &mut header)?;
        if got == 0 {
            return Ok(None);
        }
        if got < HEADER_BYTES {
            return Err(format!(
                "the file ends {got} bytes into a {HEADER_BYTES}-byte event header"
            ));
        }
        // A field of `n` bytes at `i`, in the byte order the magic shows.
        let little = header[1..4] == [0x74, 0x61, 0x65];
        let field = |i: usize, n: usize| -> u64 {
            let bytes = header.get(i..i + n).unwrap_or_default();
            let fold = |acc: u64, b: &u8| acc << 8 | u64::from(*b);
            if little {
                bytes.iter().rev().fold(0, fold)
            } else {
                bytes.iter().fold(0, fold)
            }
        };
        let word = |i: usize| field(i, 4) as u32;
        let magic = word(0);
        if magic & 0xffff_ff00 != MAGIC {
            return Err(format!(
                "bytes 0-3 (magic): expected blktrace's 0x654174.. in either byte order, found \
                 {:02x} {:02x} {:02x} {:02x}",
                header[0], header[1], header[2], header[3]
            ));
        }
        if magic & 0xff != VERSION {
            return Err(format!(
                "format version {}, expected {VERSION} (the version blktrace 1.x writes)",
                magic & 0xff
            ));
        }
        let pdu_len = field(46, 2);
        let skipped = std::io::copy(&mut (&mut self.reader).take(pdu_len), &mut std::io::sink())
            .map_err(|e| format!("cannot read: {e}"))?;
        if skipped < pdu_len {
            return Err(format!(
                "the file ends {skipped} bytes into the event's {pdu_len}-byte payload"
            ));
        }
        // pdu_len has 16 bits.
        self.offset += HEADER_BYTES + pdu_len as usize;
        Ok(Some(Event {
            time: field(8, 8),
            sector: field(16, 8),
            bytes: word(24),
            action: word(28),
            device: word(36),
        }))
    }
}

impl Iterator for Events<'_> {
    type Item = Result<(Position, Event), TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        self.number += 1;
        let at = Position::Record {
            number: self.number,
            offset: self.offset,
        };
        match self.read_event() {
            Ok(Some(e)) => Some(Ok((at, e))),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(msg) => {
                self.done = true;
                Some(Err(self.error(at, msg)))
            }
        }
    }
}

/// Fills `buf` as far as the reader allows; the number of bytes read.
fn read_up_to(reader: &mut dyn BufRead, buf: &mut [u8]) -> Result<usize, String> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("cannot read: {e}")),
        }
    }
    Ok(got)
}

/// The streaming reader: a first pass finds the earliest time and whether the trace has
/// issue events, the second yields the records.
pub(crate) fn stamped<'a>(source: &Source<'a>, file: &str) -> Result<StampedIter<'a>, TraceError> {
    let mut genesis = u64::MAX;
    let mut issued = false;
    for event in Events::new(source.open(file)?, file) {
        let (_, e) = event?;
        genesis = genesis.min(e.time);
        issued |= e.code() == ISSUE && e.categories() & NOTIFY == 0;
    }
    let action = if issued { ISSUE } else { QUEUE };
    let mut devices: Vec<u32> = Vec::new();
    let name = file.to_string();
    Ok(Box::new(Events::new(source.open(file)?, file).filter_map(
        move |event| {
            let (at, e) = match event {
                Ok(x) => x,
                Err(err) => return Some(Err(err)),
            };
            let request = match request(&e, action, genesis) {
                Ok(Some(r)) => r,
                Ok(None) => return None,
                Err(msg) => {
                    return Some(Err(TraceError {
                        file: name.clone(),
                        at,
                        msg,
                    }))
                }
            };
            let index = devices
                .iter()
                .position(|&d| d == e.device)
                .unwrap_or_else(|| {
                    devices.push(e.device);
                    devices.len() - 1
                });
            // At most one new device per event: an index always fits.
            let device = u32::try_from(index).unwrap_or(u32::MAX);
            let record = IoRecord { device, ..request };
            Some(Ok((record.arrival.0, at, record)))
        },
    )))
}

/// The request an event stands for, `None` if it is not one of the chosen action's
/// reads or writes.
fn request(e: &Event, action: u32, genesis: u64) -> Result<Option<IoRecord>, String> {
    let cat = e.categories();
    if e.code() != action || cat & (NOTIFY | PASS_THROUGH | DISCARD) != 0 {
        return Ok(None);
    }
    let write = cat & WRITE != 0;
    if e.bytes == 0 {
        return match (write, cat & FLUSH != 0) {
            (true, false) => Err("a write of 0 bytes that is not a flush".into()),
            _ => Ok(None),
        };
    }
    if !e.bytes.is_multiple_of(512) {
        return Err(format!(
            "bytes 24-27 (size): {} bytes is not a whole number of 512-byte sectors",
            e.bytes
        ));
    }
    Ok(Some(IoRecord {
        arrival: SimTime(e.time - genesis),
        device: 0,
        lbn: e.sector,
        blocks: e.bytes / 512,
        write,
        content: Vec::new(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One event in the byte order `little`.
    fn event(little: bool, time: u64, sector: u64, bytes: u32, action: u32, pdu: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        let mut put32 = |v: &mut Vec<u8>, x: u32| {
            v.extend(if little {
                x.to_le_bytes()
            } else {
                x.to_be_bytes()
            })
        };
        put32(&mut v, MAGIC | VERSION);
        put32(&mut v, 1);
        let put64 = |v: &mut Vec<u8>, x: u64| {
            v.extend(if little {
                x.to_le_bytes()
            } else {
                x.to_be_bytes()
            })
        };
        put64(&mut v, time);
        put64(&mut v, sector);
        put32(&mut v, bytes);
        put32(&mut v, action);
        put32(&mut v, 42);
        put32(&mut v, 8 << 20);
        put32(&mut v, 0);
        let n = u16::try_from(pdu.len()).expect("small payload");
        v.extend([0, 0]);
        v.extend(if little {
            n.to_le_bytes()
        } else {
            n.to_be_bytes()
        });
        v.extend_from_slice(pdu);
        v
    }

    const ISSUED_READ: u32 = ISSUE | (1 | 1 << 6) << 16;
    const ISSUED_WRITE: u32 = ISSUE | (WRITE | 1 << 6) << 16;

    #[test]
    fn both_byte_orders_read_alike() {
        for little in [true, false] {
            let mut bytes = event(little, 1_000, 0, 0, NOTIFY << 16, b"fio\0");
            bytes.extend(event(little, 1_500, 64, 4096, ISSUED_READ, &[]));
            bytes.extend(event(little, 2_500, 128, 512, ISSUED_WRITE, &[]));
            assert!(is_blktrace(&bytes));
            let r = parse(&bytes, "t").expect("parses");
            assert_eq!(r.len(), 2);
            assert_eq!(
                (r[0].arrival.0, r[0].lbn, r[0].blocks, r[0].write),
                (500, 64, 8, false)
            );
            assert_eq!(
                (r[1].arrival.0, r[1].lbn, r[1].blocks, r[1].write),
                (1_500, 128, 1, true)
            );
        }
    }

    #[test]
    fn pass_through_discard_and_empty_flush_are_skipped() {
        let mut bytes = event(true, 0, 8, 4096, ISSUED_READ | PASS_THROUGH << 16, &[]);
        bytes.extend(event(true, 1, 8, 4096, ISSUED_WRITE | DISCARD << 16, &[]));
        bytes.extend(event(true, 2, 0, 0, ISSUED_WRITE | FLUSH << 16, &[]));
        bytes.extend(event(true, 3, 8, 0, ISSUED_READ, &[]));
        assert_eq!(parse(&bytes, "t").expect("parses"), Vec::new());
    }

    #[test]
    fn errors_name_the_event_and_the_problem() {
        let one = event(true, 0, 8, 4096, ISSUED_READ, &[7; 3]);
        let cut = &one[..one.len() - 1];
        let e = parse(cut, "t").unwrap_err().to_string();
        assert_eq!(
            e,
            "t:record 1 (byte 0): the file ends 2 bytes into the event's 3-byte payload"
        );
        let mut two = one.clone();
        two.extend(&one[..10]);
        let e = parse(&two, "t").unwrap_err().to_string();
        assert!(
            e.starts_with("t:record 2 (byte 51): the file ends 10 bytes into"),
            "{e}"
        );
        let mut bad = one.clone();
        bad[0] = 6;
        let e = parse(&bad, "t").unwrap_err().to_string();
        assert!(e.contains("format version 6, expected 7"), "{e}");
        bad[1] = 0;
        let e = parse(&bad, "t").unwrap_err().to_string();
        assert!(e.contains("(magic): expected blktrace's"), "{e}");
        let odd = event(true, 0, 8, 1000, ISSUED_READ, &[]);
        let e = parse(&odd, "t").unwrap_err().to_string();
        assert!(e.contains("1000 bytes is not a whole number"), "{e}");
        let empty_write = event(true, 0, 8, 0, ISSUED_WRITE, &[]);
        let e = parse(&empty_write, "t").unwrap_err().to_string();
        assert!(e.contains("a write of 0 bytes"), "{e}");
    }

    #[test]
    fn queue_events_stand_in_when_nothing_is_issued() {
        let queued = QUEUE | (1 | 1 << 4) << 16;
        let bytes = event(true, 5, 16, 4096, queued, &[]);
        assert_eq!(parse(&bytes, "t").expect("parses").len(), 1);
    }
}
