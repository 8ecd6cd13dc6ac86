//! DiskSim's `validate` trace (reference §9), read through [`crate::validate::trace`].
//!
//! A validate trace is **closed loop**: request i+1 is issued a think time after request
//! i *completes in the simulation*, so its issue times are not in the file and cannot be
//! known before replay. These records therefore all have `arrival` 0 and device 0 (all
//! validate requests go to device 0); they keep the file's order. To replay a validate
//! trace faithfully (think times, measured access times, demerit), use
//! [`crate::validate::trace::parse_validate_trace`] and [`crate::validate::replay`]
//! instead: this conversion drops the measured and think times.

use super::lines::{line_records, Lines, StampedIter, Step};
use super::{Format, IoRecord, TraceError};
use crate::time::SimTime;
use crate::validate::trace::{LineReader, ValidateRecord};

/// Parses a validate trace into records with arrival 0 (see the module doc).
pub fn parse(bytes: &[u8], file: &str) -> Result<Vec<IoRecord>, TraceError> {
    super::parse_format(bytes, file, Format::DisksimValidate)
}

/// The streaming reader, with the rules of [`crate::validate::trace`].
pub(crate) fn stamped(lines: Lines<'_>) -> StampedIter<'_> {
    let mut reader = LineReader::default();
    line_records(lines, move |l| {
        if !l.valid_utf8() {
            // As the validate reader reports it: the line holding the bad byte.
            return Err(l.error("invalid UTF-8 (a validate trace is plain ASCII text)"));
        }
        match reader.line(l.number(), l.text()) {
            Ok(None) => Ok(Step::Skip),
            Ok(Some(r)) => Ok(Step::Record((0, l.position(), to_io_record(&r)))),
            Err((line, msg)) => Err(TraceError::line(l.file(), line, msg)),
        }
    })
}

/// The request part of a validate record, issued at time 0 on device 0.
pub fn to_io_record(r: &ValidateRecord) -> IoRecord {
    IoRecord {
        arrival: SimTime::ZERO,
        device: 0,
        lbn: r.lbn,
        blocks: r.blocks,
        write: r.write,
        content: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_records() {
        let r = parse(b"R Hit 1975456 4 15362.0 56074.0\nW Miss 8 16 1 2\n", "v").unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].lbn, r[0].blocks, r[0].write), (1_975_456, 4, false));
        assert_eq!((r[1].lbn, r[1].blocks, r[1].write), (8, 16, true));
        assert!(r
            .iter()
            .all(|x| x.arrival == SimTime::ZERO && x.device == 0));
    }

    #[test]
    fn errors_keep_line() {
        let err = parse(b"R Hit 1 4 1 2\nR Hit 1 0 1 2\n", "v.trace").unwrap_err();
        assert_eq!(err.line_number(), Some(2));
        assert!(err
            .to_string()
            .starts_with("v.trace:2: field 4 (size in blocks)"));
        let err = parse(b"R Hit 1 4 1 2\n\xff\n", "v.trace").unwrap_err();
        assert_eq!(err.line_number(), Some(2));
    }
}
