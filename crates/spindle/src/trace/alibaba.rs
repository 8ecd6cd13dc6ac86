//! Alibaba Cloud's block traces (`alibaba_block_traces_2020`, `io_traces.csv`): one
//! request a line, from 1,000 virtual disks of its elastic block service over January
//! 2020:
//!
//! ```text
//! 0,R,126703644672,4096,1577808000000626
//! │ │ │            │    └ timestamp: µs since 1970 (Unix time)
//! │ │ │            └ length in bytes
//! │ │ └ offset in bytes
//! │ └ opcode: R or W
//! └ device_id: the virtual disk
//! ```
//!
//! Arrivals are rebased to the earliest record. `device_id` becomes `device`. Offsets
//! and lengths in bytes become the sectors the byte range touches, as for MSR:
//! `lbn = offset / 512`, `blocks = ceil((offset % 512 + length) / 512)`; a length of 0
//! is an error. A header line `device_id,opcode,offset,length,timestamp` is accepted
//! first; blank lines are skipped.

use super::lines::{csv_records, Lines, StampedIter};
use super::text::Fields;
use super::{Format, IoRecord, TraceError};
use crate::time::SimTime;

const NAMES: &[&str] = &["device_id", "opcode", "offset", "length", "timestamp"];

/// The optional header line.
pub(crate) const HEADER: &str = "device_id,opcode,offset,length,timestamp";

/// Nanoseconds per tick of the time stamps (µs).
pub(crate) const NS_PER_TICK: u64 = 1_000;

/// Parses an Alibaba block trace.
pub fn parse(bytes: &[u8], file: &str) -> Result<Vec<IoRecord>, TraceError> {
    super::parse_format(bytes, file, Format::Alibaba)
}

/// The streaming reader: records stamped with their µs, not rebased.
pub(crate) fn stamped(lines: Lines<'_>) -> StampedIter<'_> {
    csv_records(lines, |l| l.trim_ascii() == HEADER, parse_line)
}

/// Whether `line` looks like a record: five fields, a numeric device, `R` or `W`, and
/// three numbers.
pub(crate) fn is_record(fields: &[&str]) -> bool {
    let digits = super::text::is_digits;
    matches!(fields, [dev, op, offset, length, time]
        if digits(dev) && matches!(*op, "R" | "W") && digits(offset) && digits(length) && digits(time))
}

/// Returns the µs time stamp and the record (arrival not yet set).
fn parse_line(line: &str) -> Result<(u64, IoRecord), String> {
    let f = Fields::commas(line, NAMES);
    f.expect_count(5, 5)?;
    let device = f.get(0)?.uint()?;
    let op = f.get(1)?;
    let write = match op.text {
        "R" => false,
        "W" => true,
        _ => return Err(op.error("expected R or W")),
    };
    let offset: u64 = f.get(2)?.uint()?;
    let length_field = f.get(3)?;
    let (lbn, blocks) = super::text::byte_range_sectors(offset, length_field.bytes()?)
        .ok_or_else(|| length_field.error("request too large (over 2^32 sectors)"))?;
    let us: u64 = f.get(4)?.uint()?;
    Ok((
        us,
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
    fn reads_bytes_as_sectors_and_rebases_to_the_first_request() {
        let text = "device_id,opcode,offset,length,timestamp\n\
                    0,R,126703644672,4096,1577808000000626\n\
                    \n\
                    17,W,1000,100,1577808000000500\n";
        let r = parse(text.as_bytes(), "io_traces.csv").expect("parses");
        assert_eq!(r.len(), 2);
        assert_eq!(
            (r[0].arrival, r[0].device, r[0].lbn, r[0].blocks, r[0].write),
            (SimTime(0), 17, 1, 2, true)
        );
        assert_eq!(
            (r[1].arrival, r[1].device, r[1].lbn, r[1].blocks, r[1].write),
            (SimTime(126_000), 0, 247_468_056, 8, false)
        );
    }

    #[test]
    fn errors_name_line_and_field() {
        for (text, want) in [
            (
                "0,X,0,4096,1\n",
                "f:1: field 2 (opcode): expected R or W, found \"X\"",
            ),
            (
                "0,R,0,0,1\n",
                "f:1: field 4 (length): a request must be at least 1 byte, found \"0\"",
            ),
            ("0,R,0,4096\n", "f:1: field 5 (timestamp): missing"),
            (
                "0,R,0,4096,1\n0,R,0,4096,-5\n",
                "f:2: field 5 (timestamp): expected an unsigned integer, found \"-5\"",
            ),
        ] {
            let e = parse(text.as_bytes(), "f").unwrap_err().to_string();
            assert!(e.starts_with(want), "{e}");
        }
    }
}
