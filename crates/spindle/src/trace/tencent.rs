//! Tencent's cloud block storage traces (CBS, SNIA IOTTA, October 2018): one request a
//! line, from 5,584 cloud virtual volumes:
//!
//! ```text
//! 1538323200,12345,8,1,1063
//! │          │     │ │ └ VolumeID: the virtual volume
//! │          │     │ └ IOType: 0 read, 1 write
//! │          │     └ Size in 512-byte sectors
//! │          └ Offset in 512-byte sectors
//! └ Timestamp: whole seconds since 1970 (Unix time)
//! ```
//!
//! Arrivals are rebased to the earliest record; the stamps are whole seconds, so every
//! request of one second arrives at the same instant (the trace says no more).
//! `VolumeID` becomes `device`. A size of 0 is an error. A header line
//! `Timestamp,Offset,Size,IOType,VolumeID` is accepted first; blank lines are skipped.

use super::lines::{csv_records, Lines, StampedIter};
use super::text::Fields;
use super::{Format, IoRecord, TraceError};
use crate::time::SimTime;

const NAMES: &[&str] = &["Timestamp", "Offset", "Size", "IOType", "VolumeID"];

/// The optional header line.
pub(crate) const HEADER: &str = "Timestamp,Offset,Size,IOType,VolumeID";

/// Nanoseconds per tick of the time stamps (s).
pub(crate) const NS_PER_TICK: u64 = 1_000_000_000;

/// Parses a Tencent CBS trace.
pub fn parse(bytes: &[u8], file: &str) -> Result<Vec<IoRecord>, TraceError> {
    super::parse_format(bytes, file, Format::Tencent)
}

/// The streaming reader: records stamped with their seconds, not rebased.
pub(crate) fn stamped(lines: Lines<'_>) -> StampedIter<'_> {
    csv_records(lines, |l| l.trim_ascii() == HEADER, parse_line)
}

/// Whether `line` looks like a record: five numbers, the fourth 0 or 1.
pub(crate) fn is_record(fields: &[&str]) -> bool {
    let digits = super::text::is_digits;
    matches!(fields, [time, offset, size, kind, volume]
        if digits(time) && digits(offset) && digits(size) && matches!(*kind, "0" | "1") && digits(volume))
}

/// Returns the time stamp in seconds and the record (arrival not yet set).
fn parse_line(line: &str) -> Result<(u64, IoRecord), String> {
    let f = Fields::commas(line, NAMES);
    f.expect_count(5, 5)?;
    let seconds: u64 = f.get(0)?.uint()?;
    let lbn = f.get(1)?.uint()?;
    let blocks = f.get(2)?.blocks()?;
    let kind = f.get(3)?;
    let write = match kind.text {
        "0" => false,
        "1" => true,
        _ => return Err(kind.error("expected 0 (read) or 1 (write)")),
    };
    let device = f.get(4)?.uint()?;
    Ok((
        seconds,
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
    fn reads_sectors_and_rebases_to_the_first_second() {
        let text = "Timestamp,Offset,Size,IOType,VolumeID\n\
                    1538323201,12345,8,1,1063\n\
                    1538323200,99,16,0,7\n";
        let r = parse(text.as_bytes(), "2018-10-01-01").expect("parses");
        assert_eq!(r.len(), 2);
        assert_eq!(
            (r[0].arrival, r[0].device, r[0].lbn, r[0].blocks, r[0].write),
            (SimTime(0), 7, 99, 16, false)
        );
        assert_eq!(
            (r[1].arrival, r[1].device, r[1].lbn, r[1].blocks, r[1].write),
            (SimTime(1_000_000_000), 1063, 12_345, 8, true)
        );
    }

    #[test]
    fn errors_name_line_and_field() {
        for (text, want) in [
            (
                "1,0,8,2,1\n",
                "f:1: field 4 (IOType): expected 0 (read) or 1 (write), found \"2\"",
            ),
            (
                "1,0,0,0,1\n",
                "f:1: field 3 (Size): a request must be at least 1 block",
            ),
            ("1,0,8,0\n", "f:1: field 5 (VolumeID): missing"),
        ] {
            let e = parse(text.as_bytes(), "f").unwrap_err().to_string();
            assert!(e.starts_with(want), "{e}");
        }
    }
}
