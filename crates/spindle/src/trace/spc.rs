//! SPC trace format, as used by the UMass trace repository (`Financial1.spc`,
//! `WebSearch1.spc`):
//!
//! ```text
//! 0,303567,3584,w,0.000000
//! │ │      │    │ └ Timestamp: seconds from the start of the trace
//! │ │      │    └ Opcode: r/R read, w/W write
//! │ │      └ Size in bytes
//! │ └ LBA in 512-byte sectors
//! └ ASU (application specific unit): the device
//! ```
//!
//! Optional fields after the timestamp are allowed by the SPC spec and ignored. Times
//! already count from the start of the trace, so they are kept as written. The size is
//! rounded up to whole sectors; a zero size is an error.

use super::lines::{Lines, StampedIter};
use super::text::{record_lines, Fields};
use super::{Format, IoRecord, TraceError};
use crate::time::SimTime;

const NAMES: &[&str] = &["ASU", "LBA", "Size", "Opcode", "Timestamp"];

/// Parses an SPC trace; blank lines are skipped.
pub fn parse(bytes: &[u8], file: &str) -> Result<Vec<IoRecord>, TraceError> {
    super::parse_format(bytes, file, Format::Spc)
}

/// The streaming reader.
pub(crate) fn stamped(lines: Lines<'_>) -> StampedIter<'_> {
    record_lines(lines, parse_line)
}

fn parse_line(line: &str) -> Result<IoRecord, String> {
    let f = Fields::commas(line, NAMES);
    f.expect_count(5, usize::MAX)?;
    let device = f.get(0)?.uint()?;
    let lbn = f.get(1)?.uint()?;
    let size_field = f.get(2)?;
    let blocks = u32::try_from(size_field.bytes()?.div_ceil(512))
        .map_err(|_| size_field.error("request too large (over 2^32 sectors)"))?;
    let op = f.get(3)?;
    let write = match op.text {
        "r" | "R" => false,
        "w" | "W" => true,
        _ => return Err(op.error("expected r, R, w or W")),
    };
    let arrival = SimTime(f.get(4)?.time_ns(9, "seconds")?);
    Ok(IoRecord {
        arrival,
        device,
        lbn,
        blocks,
        write,
        content: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lines() {
        let text =
            "0,303567,3584,w,0.000000\n1,18960512,24576,R,0.000938,extra\n0,5,1,r,0.000774\n";
        let r = parse(text.as_bytes(), "f.spc").unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!((r[0].lbn, r[0].blocks, r[0].write), (303_567, 7, true));
        assert_eq!((r[1].arrival, r[1].blocks), (SimTime(774_000), 1));
        assert_eq!(
            (r[2].device, r[2].blocks, r[2].arrival),
            (1, 48, SimTime(938_000))
        );
    }

    #[test]
    fn errors() {
        let cases = [
            (
                "0,1,0,r,1.0",
                "field 3 (Size): a request must be at least 1 byte",
            ),
            (
                "0,1,512,x,1.0",
                "field 4 (Opcode): expected r, R, w or W, found \"x\"",
            ),
            (
                "a,1,512,r,1.0",
                "field 1 (ASU): expected an unsigned integer, found \"a\"",
            ),
            (
                "0,1,512,r,-1",
                "field 5 (Timestamp): time must not be negative",
            ),
            (
                "0,1,512,r,nan",
                "field 5 (Timestamp): expected a finite time in seconds",
            ),
            ("0,1,512,r", "field 5 (Timestamp): missing"),
        ];
        for (bad, msg) in cases {
            let err = parse(format!("0,1,512,r,0\n\n{bad}\n").as_bytes(), "f.spc").unwrap_err();
            assert_eq!(err.line_number(), Some(3), "{bad}");
            assert!(err.msg.starts_with(msg), "{bad}: {}", err.msg);
        }
    }
}
