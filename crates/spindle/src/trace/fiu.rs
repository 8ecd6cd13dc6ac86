//! FIU traces from the SRCMap / I/O Deduplication studies (SNIA IOTTA: `homes`,
//! `web-vm`, `mail`), one request per line:
//!
//! ```text
//! 89968195792462 20782 gzip 283193184 8 R 6 0 56f11b711d91a065a2b6458eca924523
//! │              │     │    │         │ │ │ │ └ MD5 of the request's data
//! │              │     │    │         │ │ │ └ minor device number
//! │              │     │    │         │ │ └ major device number
//! │              │     │    │         │ └ W or R
//! │              │     │    │         └ size in 512-byte blocks
//! │              │     │    └ LBA in 512-byte sectors
//! │              │     └ process name
//! │              └ pid
//! └ time stamp in ns
//! ```
//!
//! Conventions:
//! * **Content**: each line carries exactly one MD5, and becomes one record whose
//!   `content` holds that one digest. In `web-vm` and `mail` a line is one 4 KiB page
//!   (size 8) and the digest covers those 4 KiB; the FIU readme says the `homes` digests
//!   are per 512 bytes. Lines are never merged or split, so the digest always describes
//!   exactly the record's `blocks`.
//! * **Device**: the index of the line's `major,minor` pair among the distinct pairs in
//!   order of first appearance (the first device seen is 0).
//! * **Time**: nanoseconds of a free-running clock, rebased to the earliest record.
//! * The process name may contain blanks (kernel thread names can): the two fields
//!   before it and the six after it are found from each end of the line.
//! * `R`/`W` may be in either case; blank lines are skipped.

use super::lines::{line_records, Lines, StampedIter, Step};
use super::text::Fields;
use super::{Format, IoRecord, TraceError};
use crate::time::SimTime;

const NAMES: &[&str] = &[
    "time stamp (ns)",
    "pid",
    "process",
    "LBA",
    "size in blocks",
    "operation",
    "major",
    "minor",
    "MD5",
];

/// Parses an FIU trace.
pub fn parse(bytes: &[u8], file: &str) -> Result<Vec<IoRecord>, TraceError> {
    super::parse_format(bytes, file, Format::Fiu)
}

/// The streaming reader: records stamped with their clock in ns, not rebased.
pub(crate) fn stamped(lines: Lines<'_>) -> StampedIter<'_> {
    let mut devices: Vec<(u32, u32)> = Vec::new();
    line_records(lines, move |l| {
        let line = l.text();
        if line.trim_ascii().is_empty() {
            return Ok(Step::Skip);
        }
        let (ns, dev, record) = parse_line(line).map_err(|msg| l.error(msg))?;
        let index = match devices.iter().position(|&d| d == dev) {
            Some(i) => i,
            None => {
                devices.push(dev);
                devices.len() - 1
            }
        };
        let device = u32::try_from(index).map_err(|_| l.error("more than 2^32 devices"))?;
        Ok(Step::Record((
            ns,
            l.position(),
            IoRecord { device, ..record },
        )))
    })
}

/// Returns the time stamp, the (major, minor) pair and the record.
fn parse_line(line: &str) -> Result<(u64, (u32, u32), IoRecord), String> {
    let f = Fields::whitespace(line, NAMES);
    f.expect_count(NAMES.len(), usize::MAX)?;
    // Six fixed fields after the (possibly blank-containing) process name.
    let from_end = |k: usize| f.get_as(f.len() - (NAMES.len() - k), k);
    let ns: u64 = f.get(0)?.uint()?;
    let _pid: u64 = f.get(1)?.uint()?;
    let lbn = from_end(3)?.uint()?;
    let blocks = from_end(4)?.blocks()?;
    let op = from_end(5)?;
    let write = match op.text {
        "W" | "w" => true,
        "R" | "r" => false,
        _ => return Err(op.error("expected W or R")),
    };
    let major = from_end(6)?.uint()?;
    let minor = from_end(7)?.uint()?;
    let md5 = from_end(8)?.md5()?;
    let record = IoRecord {
        arrival: SimTime::ZERO,
        device: 0,
        lbn,
        blocks,
        write,
        content: vec![md5],
    };
    Ok((ns, (major, minor), record))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD5: &str = "56f11b711d91a065a2b6458eca924523";

    #[test]
    fn reads_lines() {
        let text = format!(
            "89968195792462 20782 gzip 283193184 8 R 6 0 {MD5}\n\
             89968195790000 4 kworker/u8:2 Web Content 1000 8 W 8 16 {MD5}\n\
             89968195800000 1 nfsd 8 8 w 6 0 {}\n",
            MD5.to_uppercase()
        );
        let r = parse(text.as_bytes(), "web-vm").unwrap();
        assert_eq!(r.len(), 3);
        // Second line is earliest; its device (8,16) was seen second.
        assert_eq!(
            (r[0].arrival, r[0].device, r[0].lbn, r[0].write),
            (SimTime(0), 1, 1000, true)
        );
        assert_eq!(
            (r[1].arrival, r[1].device, r[1].lbn),
            (SimTime(2462), 0, 283_193_184)
        );
        assert_eq!(
            r[1].content,
            vec![super::super::text::parse_md5(MD5).unwrap()]
        );
        assert_eq!(
            (r[2].arrival, r[2].device, r[2].blocks),
            (SimTime(10_000), 0, 8)
        );
    }

    #[test]
    fn errors() {
        let cases = [
            (
                format!("1 2 p 3 0 R 6 0 {MD5}"),
                "field 5 (size in blocks): a request must be at least 1 block",
            ),
            (
                format!("1 2 p 3 8 X 6 0 {MD5}"),
                "field 6 (operation): expected W or R, found \"X\"",
            ),
            (
                "1 2 p 3 8 R 6 0 abc".to_string(),
                "field 9 (MD5): expected an MD5 digest",
            ),
            (format!("1 2 p 3 8 R 6 {MD5}"), "field 9 (MD5): missing"),
            (
                format!("-1 2 p 3 8 R 6 0 {MD5}"),
                "field 1 (time stamp (ns)): expected an unsigned integer",
            ),
        ];
        for (bad, msg) in cases {
            let err = parse(format!("1 2 p 3 8 R 6 0 {MD5}\n{bad}\n").as_bytes(), "f").unwrap_err();
            assert_eq!(err.line_number(), Some(2), "{bad}");
            assert!(err.msg.starts_with(msg), "{bad}: {}", err.msg);
        }
    }
}
