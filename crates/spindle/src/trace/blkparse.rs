//! `blkparse`'s default text output (blktrace), one event per line:
//!
//! ```text
//!   8,0    3        1     0.000000000  4162  Q  WS 1234 + 8 [jbd2/sda1-8]
//!   │      │        │     │            │     │  │  │      │ └ process
//!   │      │        │     │            │     │  │  │      └ sectors
//!   │      │        │     │            │     │  │  └ first sector
//!   │      │        │     │            │     │  └ RWBS: [F] R/W/D/DE/F/N/Z… + F/A/B/S/M/U
//!   │      │        │     │            │     └ action: Q queued, D issued, C completed…
//!   │      │        │     │            └ pid
//!   │      │        │     └ seconds since the trace started
//!   │      │        └ sequence number
//!   │      └ CPU
//!   └ major,minor of the device
//! ```
//!
//! One request becomes one record, taken from a single action: `D` (issued to the
//! driver, what the disk sees) by default, or `Q` if the trace has no `D` events (traces
//! of stacked devices may have only queue events); [`parse_with_action`] picks another.
//! Only reads and writes that move data are kept (a zone append, `ZA`, is a write):
//! discards (`D`, `DE`), flushes (`F`), zone management (`ZR`, `ZF`, ...) and other
//! non-data commands (`N`) are skipped, and so are read and write
//! events without a `sector + count` or with a count of 0 (flushes, FUA-only writes,
//! zone management) and SCSI pass-through commands (a byte count, then the command
//! block in parentheses or, from kernel 4.11 on, the process). A read or write event of the chosen action whose sector or
//! count is not a number is an error.
//!
//! `device` is the index of the event's `major,minor` among the distinct devices of the
//! kept events, in order of first appearance. Times are kept as written (they already
//! count from the start of the trace). The per-CPU and total summary blkparse prints
//! at the end (`CPU0 (sda):`, `Total (8,0):`, ...) ends the events: it and everything
//! after it is ignored, as are blank lines and `Input file ... added` notices.

use super::lines::{line_records, Lines, Source, StampedIter, Step};
use super::text::Fields;
use super::{IoRecord, TraceError};
use crate::time::SimTime;
use rustc_hash::FxHashMap;

const NAMES: &[&str] = &[
    "device (major,minor)",
    "CPU",
    "sequence number",
    "time (s)",
    "pid",
    "action",
    "RWBS",
    "sector",
    "'+'",
    "sector count",
];

/// Parses blkparse output, taking `D` events, or `Q` events if there is no `D`.
pub fn parse(bytes: &[u8], file: &str) -> Result<Vec<IoRecord>, TraceError> {
    parse_with_action(bytes, file, None)
}

/// Parses blkparse output, taking the events of `action` (e.g. `"Q"`, `"D"`, `"C"`);
/// `None` means `D` if present, else `Q`.
pub fn parse_with_action(
    bytes: &[u8],
    file: &str,
    action: Option<&str>,
) -> Result<Vec<IoRecord>, TraceError> {
    // blkparse keeps its times as written: no rebasing, only the stable sort.
    let mut records = stamped(&Source::Bytes(bytes), file, action)?
        .map(|s| s.map(|(_, _, r)| r))
        .collect::<Result<Vec<_>, _>>()?;
    super::sort_by_arrival(&mut records);
    Ok(records)
}

/// The streaming reader. With `action: None`, a first pass reads up to the first `D`
/// event (the whole file if there is none) to choose the action.
pub(crate) fn stamped<'a>(
    source: &Source<'a>,
    file: &str,
    action: Option<&str>,
) -> Result<StampedIter<'a>, TraceError> {
    let action = match action {
        Some(a) => a.to_string(),
        None => {
            source.check_rereadable(file, "whether the trace has issue events")?;
            let mut lines = source.lines(file)?;
            let mut d = false;
            while !d && lines.advance()? {
                match event(&lines)? {
                    Step::End => break,
                    Step::Skip => {}
                    Step::Record(e) => d = e.action == "D",
                }
            }
            if d { "D" } else { "Q" }.to_string()
        }
    };
    let mut devices: FxHashMap<(u32, u32), u32> = FxHashMap::default();
    Ok(line_records(source.lines(file)?, move |l| {
        let e = match event(l)? {
            Step::Record(e) if e.action == action => e,
            Step::End => return Ok(Step::End),
            _ => return Ok(Step::Skip),
        };
        let Some(request) = e.request.map_err(|msg| l.error(msg))? else {
            return Ok(Step::Skip);
        };
        let device = match devices.get(&e.device) {
            Some(&i) => i,
            None => {
                let i =
                    u32::try_from(devices.len()).map_err(|_| l.error("more than 2^32 devices"))?;
                devices.insert(e.device, i);
                i
            }
        };
        let record = IoRecord { device, ..request };
        Ok(Step::Record((record.arrival.0, l.position(), record)))
    }))
}

/// One event line. `request` is `Ok(None)` for events that are not reads or writes,
/// and an error message for read/write events whose extent is malformed (reported
/// only if the event's action is the one selected).
struct Event {
    device: (u32, u32),
    action: String,
    request: Result<Option<IoRecord>, String>,
}

/// The current line as an event: `Skip` for blank lines and `Input file` notices, `End`
/// at the summary.
fn event(lines: &Lines<'_>) -> Result<Step<Event>, TraceError> {
    let line = lines.text();
    let trimmed = line.trim_ascii();
    if trimmed.is_empty() || trimmed.starts_with("Input file ") {
        return Ok(Step::Skip);
    }
    if is_summary(trimmed) {
        return Ok(Step::End);
    }
    parse_event(line)
        .map(Step::Record)
        .map_err(|msg| lines.error(msg))
}

/// The first line of blkparse's closing statistics: `CPU3 (sda):` or `Total (8,0):`.
fn is_summary(line: &str) -> bool {
    let Some((head, _)) = line.split_once(" (") else {
        return false;
    };
    let cpu = head.strip_prefix("CPU").is_some_and(super::text::is_digits);
    (cpu || head == "Total") && line.ends_with("):")
}

/// `major,minor`.
pub(crate) fn parse_device(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.split_once(',')?;
    let digits = super::text::is_digits;
    if !digits(major) || !digits(minor) {
        return None;
    }
    Some((major.parse().ok()?, minor.parse().ok()?))
}

fn parse_event(line: &str) -> Result<Event, String> {
    let f = Fields::whitespace(line, NAMES);
    // The device first: a line that does not start with one is not an event at all.
    let dev = f.get(0)?;
    let device = parse_device(dev.text).ok_or_else(|| dev.error("expected major,minor"))?;
    // Every event has the seven fields up to RWBS (the default format prints them all).
    f.expect_count(7, usize::MAX)?;
    let _cpu: u32 = f.get(1)?.uint()?;
    let _seq: u64 = f.get(2)?.uint()?;
    let time = f.get(3)?.time_ns(9, "seconds")?;
    let _pid: u64 = f.get(4)?.uint()?;
    let action = f.get(5)?.text.to_string();
    let rwbs = f.get(6)?;
    let request = match data_direction(rwbs.text) {
        None => Err(rwbs.error(RWBS_EXPECTED)),
        Some(None) => Ok(None),
        Some(Some(write)) => extent(&f).map(|extent| {
            extent.map(|(lbn, blocks)| IoRecord {
                arrival: SimTime(time),
                device: 0,
                lbn,
                blocks,
                write,
                content: Vec::new(),
            })
        }),
    };
    Ok(Event {
        device,
        action,
        request,
    })
}

const RWBS_EXPECTED: &str = "expected an RWBS as the kernel writes it: an optional F \
    (preflush), then R, W, D, DE, F, N or a zone command (ZA, ZR, ZRA, ZF, ZO, ZC), then \
    any of F, A, B, S, M, U";

/// Whether an RWBS field (the kernel's `blk_fill_rwbs`, or older blkparse's) moves
/// data: `Some(Some(write))` for a read or a write (a zone append writes), `Some(None)`
/// for a command without data (discard, secure erase, flush, zone management, none),
/// `None` if the field is not an RWBS. Looking for `R` or `W` anywhere would take a
/// zone reset (`ZR`) for a read and miss a zone append's data.
fn data_direction(rwbs: &str) -> Option<Option<bool>> {
    let b = rwbs.as_bytes();
    // A leading F is a preflush when an operation letter follows; alone, or before a
    // modifier, it is the flush operation itself.
    let mut i = usize::from(b.len() > 1 && b[0] == b'F' && b"RWDNZF".contains(&b[1]));
    let direction = match b.get(i)? {
        b'R' => Some(false),
        b'W' => Some(true),
        b'D' => {
            if b.get(i + 1) == Some(&b'E') {
                i += 1;
            }
            None
        }
        b'F' | b'N' => None,
        b'Z' => {
            i += 1;
            match b.get(i)? {
                b'A' => Some(true),
                b'R' => {
                    if b.get(i + 1) == Some(&b'A') {
                        i += 1;
                    }
                    None
                }
                b'F' | b'O' | b'C' => None,
                _ => return None,
            }
        }
        _ => return None,
    };
    b[i + 1..]
        .iter()
        .all(|c| b"FABSMU".contains(c))
        .then_some(direction)
}

/// `sector + count` after the RWBS; `None` for an event that moves no data: a
/// data-less command (a flush, a FUA-only write, zone management) printed without one
/// or with a count of 0, or a SCSI pass-through command, printed as its byte count and
/// then its command block in parentheses (older kernels) or directly the process
/// (kernels from 4.11, whose pass-through events carry no command block).
fn extent(f: &Fields<'_>) -> Result<Option<(u64, u32)>, String> {
    let not_a_count = |text: &str| text.starts_with('[') || text.starts_with('(');
    let sector = f.get(7)?;
    if not_a_count(sector.text) {
        return Ok(None);
    }
    let lbn = sector.uint()?;
    let plus = f.get(8)?;
    if not_a_count(plus.text) {
        return Ok(None);
    }
    if plus.text != "+" {
        return Err(plus.error("expected '+' between sector and count"));
    }
    let blocks: u32 = f.get(9)?.uint()?;
    Ok((blocks > 0).then_some((lbn, blocks)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = "\
  8,0    3        1     0.000000000  4162  Q  WS 1234 + 8 [jbd2/sda1-8]
  8,0    3        2     0.000002000  4162  G  WS 1234 + 8 [jbd2/sda1-8]
  8,0    3        3     0.000004000  4162  D  WS 1234 + 8 [jbd2/sda1-8]
  8,16   1        1     0.000010000   900  Q   R 88 + 16 [cat]
  8,16   1        2     0.000012000   900  D   R 88 + 16 [cat]
  8,0    3        4     0.000020000  4162  Q FWS [jbd2/sda1-8]
  8,0    3        5     0.000021000  4162  D FWS [jbd2/sda1-8]
  8,0    0        0     0.000030000     0  m   N cfq4162 insert_request
  8,0    2        6     0.000040000     0  D   D 4096 + 2048 [fstrim]
  8,0    3        7     0.000300000     0  C  WS 1234 + 8 [0]

CPU3 (sda):
 Reads Queued:           0,        0KiB\t Writes Queued:           1,        4KiB
Total (8,0):
 garbage that is not an event
";

    #[test]
    fn rwbs_directions() {
        for (rwbs, want) in [
            ("R", Some(Some(false))),
            ("RA", Some(Some(false))),
            ("RSM", Some(Some(false))),
            ("W", Some(Some(true))),
            ("WS", Some(Some(true))),
            ("FWS", Some(Some(true))),
            ("WFS", Some(Some(true))),
            ("WBS", Some(Some(true))),
            ("ZA", Some(Some(true))),
            ("D", Some(None)),
            ("DE", Some(None)),
            ("F", Some(None)),
            ("FN", Some(None)),
            ("N", Some(None)),
            ("ZR", Some(None)),
            ("ZRA", Some(None)),
            ("ZC", Some(None)),
            ("X", None),
            ("RX", None),
            ("Z", None),
            ("ZQ", None),
            ("r", None),
        ] {
            assert_eq!(data_direction(rwbs), want, "{rwbs}");
        }
    }

    proptest::proptest! {
        /// Any text, letters of the grammar or not, gets an answer and no panic.
        #[test]
        fn any_rwbs_gets_an_answer(s in "[FRWDENZAOCSMUBX]{0,6}|\\PC{0,6}") {
            let _ = data_direction(&s);
        }
    }

    #[test]
    fn zone_commands_are_not_reads_and_appends_are_writes() {
        let text =
            "  8,0 0 1 0.000001000 1 D ZR 0 + 524288 [k]\n  8,0 0 2 0.000002000 1 D ZA 8 + 8 [k]\n";
        let r = parse(text.as_bytes(), "z").unwrap();
        assert_eq!(r.len(), 1);
        assert!(r[0].write && r[0].lbn == 8);
    }

    #[test]
    fn an_unknown_rwbs_is_an_error_with_its_line() {
        let text =
            "  8,0 0 1 0.000001000 1 D WS 0 + 8 [k]\n  8,0 0 2 0.000002000 1 D QQ 8 + 8 [k]\n";
        let e = parse(text.as_bytes(), "z").unwrap_err().to_string();
        assert!(
            e.contains("z:2") && e.contains("QQ") && e.contains("RWBS"),
            "{e}"
        );
    }

    #[test]
    fn takes_d_events() {
        let r = parse(TRACE.as_bytes(), "b").unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(
            (r[0].arrival, r[0].device, r[0].lbn, r[0].blocks),
            (SimTime(4000), 0, 1234, 8)
        );
        assert!(r[0].write);
        assert_eq!(
            (r[1].arrival, r[1].device, r[1].lbn, r[1].blocks),
            (SimTime(12_000), 1, 88, 16)
        );
        assert!(!r[1].write);
    }

    #[test]
    fn action_choice() {
        let q = parse_with_action(TRACE.as_bytes(), "b", Some("Q")).unwrap();
        assert_eq!(
            q.iter().map(|r| r.arrival.0).collect::<Vec<_>>(),
            [0, 10_000]
        );
        let c = parse_with_action(TRACE.as_bytes(), "b", Some("C")).unwrap();
        assert_eq!(c.len(), 1);
        // No D events: fall back to Q.
        let only_q: String = TRACE
            .lines()
            .filter(|l| !l.contains(" D "))
            .collect::<Vec<_>>()
            .join("\n");
        let r = parse(only_q.as_bytes(), "b").unwrap();
        assert_eq!(r.len(), 2);
    }

    #[test]
    fn errors() {
        let cases = [
            (
                "8,0 1 1 0.1 5 D W 12 - 8 [p]",
                "field 9 ('+'): expected '+'",
            ),
            (
                "8,0 1 1 0.1 5 D R p",
                "field 8 (sector): expected an unsigned integer, found \"p\"",
            ),
            (
                "8,x 1 1 0.1 5 D R 1 + 8 [p]",
                "field 1 (device (major,minor)): expected major,minor",
            ),
            (
                "8,0 1 1 -0.1 5 D R 1 + 8 [p]",
                "field 4 (time (s)): time must not be negative",
            ),
            ("8,0 1 1 0.1 5", "field 6 (action): missing"),
            (
                "hello world",
                "field 1 (device (major,minor)): expected major,minor, found \"hello\"",
            ),
        ];
        for (bad, msg) in cases {
            let text = format!("8,0 1 1 0.0 5 D W 1 + 8 [p]\n{bad}\n");
            let err = parse(text.as_bytes(), "trace.txt").unwrap_err();
            assert_eq!(err.line_number(), Some(2), "{bad}");
            assert!(err.msg.starts_with(msg), "{bad}: {}", err.msg);
        }
        // Events that move no data are not requests: no extent, a count of 0, a SCSI
        // pass-through command.
        let text = "8,0 1 1 0.0 5 D W 1 + 8 [p]\n8,0 1 2 0.1 5 D W [p]\n\
                    8,0 1 3 0.2 5 D WF 9 + 0 [p]\n8,0 1 4 0.3 5 D R 4096 (28 00 00) [sg]\n\
                    8,0 1 5 0.4 5 D R 512 [smartctl]\n";
        assert_eq!(parse(text.as_bytes(), "t").unwrap().len(), 1);
        // A malformed event of another action is not an error.
        let text = "8,0 1 1 0.0 5 D W 1 + 8 [p]\n8,0 1 2 0.0 5 Q W 1 + 0 [p]\n";
        assert_eq!(parse(text.as_bytes(), "t").unwrap().len(), 1);
    }
}
