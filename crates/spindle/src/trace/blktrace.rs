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
//! The records are those `blkparse -i DEV`'s text (the per-CPU files `DEV.blktrace.N`)
//! gives through [`super::blkparse`], so a trace replays the same either way (piped,
//! `blkparse -i -` sorts only in batches of events and agrees for short streams only): one request per event of one action, issue (`D`,
//! what the disk sees) if the trace has any issue event, else queue (`Q`); only reads
//! and writes that move data (a write if the write category is set, else a read), in
//! whole sectors rounded down as `blkparse` prints them. Discards, data-less commands
//! (flushes, FUA-only writes, zone management), notes (process names, messages) and
//! SCSI pass-through commands are skipped. Events some kernels tag with a cgroup id
//! (the `blk_cgroup` option) are read as blktrace 1.3 reads them; blkparse 1.2.0 drops
//! them. Times count from the earliest event, notes about processes and the
//! start time aside, as `blkparse` counts them. `device` is the index of the event's
//! `major,minor` among the devices of the kept events, in the order their first request
//! came (`blkparse`'s order). These decisions take a first pass over the file, so the
//! stream must be a file, not a pipe.
//!
//! A stream from several CPUs (or per-CPU files concatenated) is in time order only
//! within each CPU's stretch; `spindle run` then reads it whole and sorts it, in
//! memory that grows with the trace.

use super::lines::{Source, StampedIter};
use super::{Format, IoRecord, Position, TraceError};
use crate::time::SimTime;
use rustc_hash::FxHashMap;
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
/// The notification code of a message (others name processes or the start time).
const NOTE_MESSAGE: u32 = 2;
/// Set in the action code when the payload starts with the cgroup's id.
const CGROUP: u32 = 1 << 8;
/// Category bits (the high 16 bits of `action`).
const WRITE: u32 = 1 << 1;
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
    /// The action code, without the flag that says a cgroup id leads the payload.
    fn code(&self) -> u32 {
        self.action & 0xffff & !CGROUP
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

/// The streaming reader: a first pass finds the earliest time, whether the trace has
/// issue events, and when each device's first kept request came; the second yields the
/// records.
pub(crate) fn stamped<'a>(source: &Source<'a>, file: &str) -> Result<StampedIter<'a>, TraceError> {
    source.check_rereadable(
        file,
        "its first event, the action to keep, its devices' order",
    )?;
    let mut genesis = u64::MAX;
    let mut issued = false;
    // Each device's earliest request for either action: blkparse prints in time order,
    // so that is the order its devices first appear in.
    let mut first_seen: [FxHashMap<u32, u64>; 2] = Default::default();
    for event in Events::new(source.open(file)?, file) {
        let (_, e) = event?;
        if counts_for_genesis(&e) {
            genesis = genesis.min(e.time);
        }
        // Any issue event decides, as a `D` line does for the text reader.
        issued |= e.code() == ISSUE && e.categories() & NOTIFY == 0;
        for (slot, action) in [ISSUE, QUEUE].into_iter().enumerate() {
            if request(&e, action).is_some() {
                let t = first_seen[slot].entry(e.device).or_insert(e.time);
                *t = (*t).min(e.time);
            }
        }
    }
    let (action, first) = if issued {
        (ISSUE, &first_seen[0])
    } else {
        (QUEUE, &first_seen[1])
    };
    let mut order: Vec<(u64, u32)> = first.iter().map(|(&d, &t)| (t, d)).collect();
    order.sort_unstable();
    // At most one device per event, so the index fits in 32 bits for any real file.
    let devices: FxHashMap<u32, u32> = order
        .iter()
        .enumerate()
        .map(|(i, &(_, d))| (d, u32::try_from(i).unwrap_or(u32::MAX)))
        .collect();
    let name = file.to_string();
    Ok(Box::new(Events::new(source.open(file)?, file).filter_map(
        move |event| {
            let (at, e) = match event {
                Ok(x) => x,
                Err(err) => return Some(Err(err)),
            };
            let record = request(&e, action)?;
            let (Some(arrival), Some(&device)) =
                (e.time.checked_sub(genesis), devices.get(&e.device))
            else {
                return Some(Err(TraceError {
                    file: name.clone(),
                    at,
                    msg: "the file changed while it was read (an event the first pass did \
                          not see)"
                        .into(),
                }));
            };
            let record = IoRecord {
                arrival: SimTime(arrival),
                device,
                ..record
            };
            Some(Ok((arrival, at, record)))
        },
    )))
}

/// Whether an event sets the trace's start: every event but the notes blktrace adds
/// about processes and the trace's start time (`blkparse` leaves those out too;
/// messages count).
fn counts_for_genesis(e: &Event) -> bool {
    e.categories() & NOTIFY == 0 || e.code() == NOTE_MESSAGE
}

/// The request an event stands for (arrival and device not yet set), `None` if it is
/// not one of `action`'s reads or writes that move data.
fn request(e: &Event, action: u32) -> Option<IoRecord> {
    let cat = e.categories();
    if e.code() != action || cat & (NOTIFY | PASS_THROUGH | DISCARD) != 0 {
        return None;
    }
    // Whole sectors, rounded down as blkparse prints them; none for data-less commands
    // (flushes, FUA-only writes, zone management).
    let blocks = e.bytes / 512;
    (blocks > 0).then(|| IoRecord {
        arrival: SimTime::ZERO,
        device: 0,
        lbn: e.sector,
        blocks,
        write: cat & WRITE != 0,
        content: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One event on device `dev` in the byte order `little`.
    fn event_on(
        little: bool,
        dev: u32,
        time: u64,
        sector: u64,
        bytes: u32,
        action: u32,
        pdu: &[u8],
    ) -> Vec<u8> {
        let mut v = Vec::new();
        let put32 = |v: &mut Vec<u8>, x: u32| {
            v.extend(if little {
                x.to_le_bytes()
            } else {
                x.to_be_bytes()
            })
        };
        let put64 = |v: &mut Vec<u8>, x: u64| {
            v.extend(if little {
                x.to_le_bytes()
            } else {
                x.to_be_bytes()
            })
        };
        put32(&mut v, MAGIC | VERSION);
        put32(&mut v, 1);
        put64(&mut v, time);
        put64(&mut v, sector);
        put32(&mut v, bytes);
        put32(&mut v, action);
        put32(&mut v, 42);
        put32(&mut v, dev);
        put32(&mut v, 0);
        v.extend([0, 0]);
        let n = u16::try_from(pdu.len()).expect("small payload");
        v.extend(if little {
            n.to_le_bytes()
        } else {
            n.to_be_bytes()
        });
        v.extend_from_slice(pdu);
        v
    }

    fn event(little: bool, time: u64, sector: u64, bytes: u32, action: u32, pdu: &[u8]) -> Vec<u8> {
        event_on(little, 8 << 20, time, sector, bytes, action, pdu)
    }

    const ISSUED_READ: u32 = ISSUE | (1 | 1 << 6) << 16;
    const ISSUED_WRITE: u32 = ISSUE | (WRITE | 1 << 6) << 16;
    const FLUSH: u32 = 1 << 2;
    const FUA: u32 = 1 << 15;
    /// A note naming a process, one with the trace's start time, and a message.
    const NOTE_PROCESS: u32 = NOTIFY << 16;
    const NOTE_TIME: u32 = 1 | NOTIFY << 16;
    const NOTE_TEXT: u32 = NOTE_MESSAGE | NOTIFY << 16;

    #[test]
    fn both_byte_orders_read_alike() {
        for little in [true, false] {
            let mut bytes = event(little, 1_000, 0, 0, NOTE_PROCESS, b"fio\0");
            bytes.extend(event(little, 1_000, 0, 0, NOTE_TIME, &[0; 16]));
            bytes.extend(event(little, 1_500, 64, 4096, ISSUED_READ, &[]));
            bytes.extend(event(little, 2_500, 128, 1000, ISSUED_WRITE, &[]));
            assert!(is_blktrace(&bytes));
            let r = parse(&bytes, "t").expect("parses");
            assert_eq!(r.len(), 2);
            // Process and time notes do not start the trace; sizes round down.
            assert_eq!(
                (r[0].arrival.0, r[0].lbn, r[0].blocks, r[0].write),
                (0, 64, 8, false)
            );
            assert_eq!(
                (r[1].arrival.0, r[1].lbn, r[1].blocks, r[1].write),
                (1_000, 128, 1, true)
            );
            // A message does.
            let mut bytes = event(little, 1_000, 0, 0, NOTE_TEXT, b"hi\0");
            bytes.extend(event(little, 1_500, 64, 4096, ISSUED_READ, &[]));
            assert_eq!(parse(&bytes, "t").expect("parses")[0].arrival.0, 500);
        }
    }

    #[test]
    fn data_less_pass_through_and_discards_are_skipped() {
        let mut bytes = event(
            true,
            0,
            8,
            4096,
            ISSUED_READ | PASS_THROUGH << 16,
            &[0x28; 10],
        );
        bytes.extend(event(true, 1, 8, 4096, ISSUED_WRITE | DISCARD << 16, &[]));
        bytes.extend(event(true, 2, 0, 0, ISSUED_WRITE | FLUSH << 16, &[]));
        bytes.extend(event(true, 3, 0, 0, ISSUED_WRITE | FUA << 16, &[]));
        bytes.extend(event(true, 4, 0, 0, ISSUED_WRITE, &[]));
        bytes.extend(event(true, 5, 8, 100, ISSUED_READ, &[]));
        assert_eq!(parse(&bytes, "t").expect("parses"), Vec::new());
    }

    #[test]
    fn cgroup_tagged_events_are_read() {
        let bytes = event(true, 0, 8, 4096, ISSUED_READ | CGROUP, &7u64.to_le_bytes());
        assert_eq!(parse(&bytes, "t").expect("parses").len(), 1);
    }

    #[test]
    fn devices_are_numbered_in_the_order_their_first_request_came() {
        // CPU 1's stretch (sdb, later) comes first in the file.
        let sdb = 8 << 20 | 16;
        let mut bytes = event_on(true, sdb, 2_000, 8, 4096, ISSUED_READ, &[]);
        bytes.extend(event_on(true, 8 << 20, 1_000, 8, 4096, ISSUED_READ, &[]));
        let r = parse(&bytes, "t").expect("parses");
        assert_eq!((r[0].arrival.0, r[0].device), (0, 0));
        assert_eq!((r[1].arrival.0, r[1].device), (1_000, 1));
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
    }

    #[test]
    fn a_pipe_is_refused_with_a_reason() {
        let e = super::super::read_trace(std::path::Path::new("/dev/null"), Some(Format::Blktrace))
            .unwrap_err()
            .to_string();
        assert!(e.contains("save it to a file first"), "{e}");
        assert!(e.contains("its first event"), "{e}");
    }

    #[test]
    fn queue_events_stand_in_when_nothing_is_issued() {
        let queued = QUEUE | (1 | 1 << 4) << 16;
        let bytes = event(true, 5, 16, 4096, queued, &[]);
        assert_eq!(parse(&bytes, "t").expect("parses").len(), 1);
    }
}
