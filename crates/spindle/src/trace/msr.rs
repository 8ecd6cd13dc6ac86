//! MSR Cambridge block traces (SNIA IOTTA), e.g. `hm_0.csv`:
//!
//! ```text
//! Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
//! 128166372003061629,hm,1,Read,383496192,32768,10387
//! ```
//!
//! * `Timestamp`: Windows FILETIME, 100 ns ticks since 1601. Arrivals are rebased to
//!   the earliest record, so the trace starts at 0.
//! * `DiskNumber` becomes `device`; `Hostname` is ignored (each published file holds
//!   one host's volume; concatenating hosts would merge equal disk numbers).
//! * `Type`: `Read` or `Write` (any letter case).
//! * `Offset` and `Size` are in **bytes**: `lbn = offset / 512` and
//!   `blocks = ceil((offset % 512 + size) / 512)`, the sectors the byte range touches.
//! * `ResponseTime` (100 ns ticks) is checked to be a number and otherwise ignored.
//!
//! The published files have no header line; one identical to the line above is
//! accepted as the first line. Blank lines are skipped.

use super::lines::{csv_records, Lines, StampedIter};
use super::text::Fields;
use super::{Format, IoRecord, TraceError};
use crate::time::SimTime;

const NAMES: &[&str] = &[
    "Timestamp",
    "Hostname",
    "DiskNumber",
    "Type",
    "Offset",
    "Size",
    "ResponseTime",
];

/// Nanoseconds per FILETIME tick.
pub(crate) const NS_PER_TICK: u64 = 100;

/// Parses an MSR Cambridge CSV trace.
pub fn parse(bytes: &[u8], file: &str) -> Result<Vec<IoRecord>, TraceError> {
    super::parse_format(bytes, file, Format::Msr)
}

/// The streaming reader: records stamped with their FILETIME, not rebased.
pub(crate) fn stamped(lines: Lines<'_>) -> StampedIter<'_> {
    csv_records(lines, is_header, parse_line)
}

/// The optional header line, recognised by its first field's name.
pub(crate) fn is_header(line: &str) -> bool {
    line.split(',')
        .next()
        .is_some_and(|f| f.trim_ascii().eq_ignore_ascii_case("Timestamp"))
}

/// Returns the FILETIME and the record (arrival not yet set).
fn parse_line(line: &str) -> Result<(u64, IoRecord), String> {
    let f = Fields::commas(line, NAMES);
    f.expect_count(7, 7)?;
    let ticks: u64 = f.get(0)?.uint()?;
    let device = f.get(2)?.uint()?;
    let kind = f.get(3)?;
    let write = if kind.text.eq_ignore_ascii_case("Read") {
        false
    } else if kind.text.eq_ignore_ascii_case("Write") {
        true
    } else {
        return Err(kind.error("expected \"Read\" or \"Write\""));
    };
    let offset: u64 = f.get(4)?.uint()?;
    let size_field = f.get(5)?;
    let size = size_field.bytes()?;
    let _response: u64 = f.get(6)?.uint()?;
    let (lbn, blocks) = super::text::byte_range_sectors(offset, size)
        .ok_or_else(|| size_field.error("request too large (over 2^32 sectors)"))?;
    Ok((
        ticks,
        IoRecord {
            arrival: SimTime::ZERO,
            device,
            lbn,
            blocks,
            write,
            content: Vec::new(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_bytes_to_sectors_and_rebases() {
        let text = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n\
                    128166372003061629,hm,1,Read,383496192,32768,10387\n\
                    128166372002969546,hm,1,Write,1000,100,5000\n\
                    128166372003061629,hm,0,write,511,2,1\n";
        let r = parse(text.as_bytes(), "hm_0.csv").unwrap();
        assert_eq!(r.len(), 3);
        // The earliest stamp (second line) is time 0.
        assert_eq!(
            (r[0].arrival, r[0].lbn, r[0].blocks, r[0].write),
            (SimTime(0), 1, 2, true)
        );
        let dt = (128166372003061629u64 - 128166372002969546) * 100;
        assert_eq!(r[1].arrival, SimTime(dt));
        assert_eq!(
            (r[1].device, r[1].lbn, r[1].blocks, r[1].write),
            (1, 749_016, 64, false)
        );
        // Bytes 511..513 straddle sectors 0 and 1.
        assert_eq!((r[2].device, r[2].lbn, r[2].blocks), (0, 0, 2));
    }

    #[test]
    fn errors() {
        let cases = [
            (
                "1,hm,1,Read,0,0,1",
                "field 6 (Size): a request must be at least 1 byte, found \"0\"",
            ),
            (
                "1,hm,1,Erase,0,8,1",
                "field 4 (Type): expected \"Read\" or \"Write\", found \"Erase\"",
            ),
            (
                "x,hm,1,Read,0,8,1",
                "field 1 (Timestamp): expected an unsigned integer",
            ),
            (
                "1,hm,1,Read,-512,8,1",
                "field 5 (Offset): expected an unsigned integer",
            ),
            ("1,hm,1,Read,0,8", "field 7 (ResponseTime): missing"),
            (
                "1,hm,1,Read,0,18446744073709551615,1",
                "field 6 (Size): request too large",
            ),
        ];
        for (bad, msg) in cases {
            let err = parse(format!("1,hm,1,Read,0,8,1\n{bad}\n").as_bytes(), "m.csv").unwrap_err();
            assert_eq!(err.line_number(), Some(2), "{bad}");
            assert!(err.msg.starts_with(msg), "{bad}: {}", err.msg);
        }
    }
}
