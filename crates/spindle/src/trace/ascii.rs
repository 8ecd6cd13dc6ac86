//! DiskSim's default `ascii` trace (reference §9, end).
//!
//! One request per line, read by DiskSim as `"%lf %d %d %d %x"`:
//!
//! ```text
//! 12.345  0  1056  8  1
//! │       │  │     │  └ flags, hexadecimal: bit 0 set = read, clear = write
//! │       │  │     └ size in 512-byte blocks
//! │       │  └ starting LBN
//! │       └ device number
//! └ arrival time in ms, absolute
//! ```
//!
//! Semantics kept from DiskSim: times are absolute milliseconds and are **not** rebased
//! (a trace starting at 5 ms issues its first request at 5 ms); the flags are always
//! hexadecimal, as `%x` reads them (`10` is 0x10, a write), with an optional `0x`. Other
//! flag bits (synchronous/asynchronous) only affect DiskSim's priority classes and are
//! ignored. Differences: DiskSim aborts on a time that goes backwards, we sort stably
//! instead; we require exactly five fields where `sscanf` would ignore trailing junk,
//! and we reject negative or non-numeric fields, zero sizes and NaN/infinite times.

use super::lines::{Lines, StampedIter};
use super::text::{record_lines, Fields};
use super::{Format, IoRecord, TraceError};
use crate::time::SimTime;

const NAMES: &[&str] = &[
    "arrival time (ms)",
    "device",
    "start LBN",
    "size in blocks",
    "flags",
];

/// DiskSim's READ flag.
const READ: u32 = 0x1;

/// Parses a DiskSim ascii trace; blank lines are skipped.
pub fn parse(bytes: &[u8], file: &str) -> Result<Vec<IoRecord>, TraceError> {
    super::parse_format(bytes, file, Format::DisksimAscii)
}

/// The streaming reader.
pub(crate) fn stamped(lines: Lines<'_>) -> StampedIter<'_> {
    record_lines(lines, parse_line)
}

fn parse_line(line: &str) -> Result<IoRecord, String> {
    let f = Fields::whitespace(line, NAMES);
    f.expect_count(5, 5)?;
    let arrival = SimTime(f.get(0)?.time_ns(6, "milliseconds")?);
    let device = f.get(1)?.uint()?;
    let lbn = f.get(2)?.uint()?;
    let blocks = f.get(3)?.blocks()?;
    let flags = f.get(4)?.hex_u32()?;
    Ok(IoRecord {
        arrival,
        device,
        lbn,
        blocks,
        write: flags & READ == 0,
        content: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines() {
        let text = "0.000 0 1056 8 1\n\n12.5 1 7 16 0x10\r\n3.25 0 9 2 A\n";
        let r = parse(text.as_bytes(), "t").unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].arrival, SimTime(0));
        assert!(!r[0].write);
        // Sorted: 3.25 ms comes before 12.5 ms.
        assert_eq!(r[1].arrival, SimTime(3_250_000));
        assert!(r[1].write); // 0xA: bit 0 clear
        assert_eq!((r[2].device, r[2].lbn, r[2].blocks), (1, 7, 16));
        assert!(r[2].write); // 0x10
    }

    #[test]
    fn errors_name_line_and_field() {
        let cases = [
            (
                "1 0 5 0 1",
                "field 4 (size in blocks): a request must be at least 1 block, found \"0\"",
            ),
            (
                "nan 0 5 1 1",
                "field 1 (arrival time (ms)): expected a finite time in milliseconds",
            ),
            (
                "-1 0 5 1 1",
                "field 1 (arrival time (ms)): time must not be negative, found \"-1\"",
            ),
            (
                "1 -2 5 1 1",
                "field 2 (device): expected an unsigned integer, found \"-2\"",
            ),
            (
                "1 0 5 1 g",
                "field 5 (flags): expected a hexadecimal integer, found \"g\"",
            ),
            ("1 0 5 1", "field 5 (flags): missing"),
            ("1 0 5 1 1 9", "unexpected field 6: found \"9\""),
        ];
        for (bad, msg) in cases {
            let err = parse(format!("0 0 0 1 1\n{bad}\n").as_bytes(), "a.trace").unwrap_err();
            assert_eq!(err.line_number(), Some(2), "{bad}");
            assert!(err.msg.starts_with(msg), "{bad}: {}", err.msg);
        }
    }
}
