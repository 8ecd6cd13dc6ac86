//! Reader for DiskSim's `validate` trace format (reference §9).
//!
//! Each line describes one request replayed against the simulated disk and
//! carries the real drive's measured access time for it:
//!
//! ```text
//! R Hit    1975456   4  15362.00000  56074.00000
//! │ │      │         │  │            └ field 6: think time after completion (µs)
//! │ │      │         │  └ field 5: measured access time (µs)
//! │ │      │         └ field 4: size in 512-byte blocks
//! │ │      └ field 3: starting LBN
//! │ └ field 2: measured buffer action (Hit/Miss/Doub/Trip), never used by the simulation
//! │          (any other word is refused)
//! └ field 1: R or W
//! ```
//!
//! Parsing is as strict as DiskSim's: the operation must be the line's first
//! character, so leading whitespace is an error. We are stricter in a few
//! places where DiskSim would silently misread the line instead of stopping:
//! the operation must be its own field (`RHit` is rejected), numbers must be
//! complete (`12x` is rejected), negative, non-finite or over-1000 s times and zero-sized
//! requests are rejected, and a line must have exactly six fields. Blank lines
//! are accepted only at the end of the file. An empty trace parses to an empty
//! list; deciding whether that is acceptable is left to the caller.

use std::path::Path;

/// One request of a validate trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValidateRecord {
    /// `true` for `W`, `false` for `R`.
    pub write: bool,
    /// Starting 512-byte sector.
    pub lbn: u64,
    /// Size in 512-byte sectors (at least 1).
    pub blocks: u32,
    /// Field 5: the real drive's access time, in microseconds.
    pub measured_us: f64,
    /// Field 6: idle time after this request completes before the next one is
    /// issued, in microseconds.
    pub think_us: f64,
}

/// A trace that could not be read or parsed. `line` is 1-based; 0 means the
/// problem is not tied to a line (e.g. the file could not be opened).
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {msg}")]
pub struct TraceError {
    pub file: String,
    pub line: usize,
    pub msg: String,
}

/// The buffer actions a validate trace records (field 2).
pub const BUFFER_ACTIONS: [&str; 4] = ["Hit", "Miss", "Doub", "Trip"];

/// Largest measured access or think time a line may give, µs (1000 s): the replay's
/// clock is integer nanoseconds, and a real drive's times are milliseconds.
pub const MAX_TIME_US: f64 = 1e9;

/// Human-readable names of the six fields, used in error messages.
const FIELD_NAMES: [&str; 6] = [
    "operation",
    "buffer action",
    "start LBN",
    "size in blocks",
    "measured access time",
    "think time",
];

/// Parses the text of a validate trace. `file_name` is only used in errors.
pub fn parse_validate_trace(
    text: &str,
    file_name: &str,
) -> Result<Vec<ValidateRecord>, TraceError> {
    let error = |line: usize, msg: String| TraceError {
        file: file_name.to_string(),
        line,
        msg,
    };
    let mut records = Vec::new();
    let mut lines = LineReader::default();
    for (index, line) in text.lines().enumerate() {
        let line_no = index + 1;
        if let Some(record) = lines
            .line(line_no, line)
            .map_err(|(n, msg)| error(n, msg))?
        {
            records.push(record);
        }
    }
    Ok(records)
}

/// The line-by-line rules of a validate trace, shared by [`parse_validate_trace`] and
/// the streaming reader of `crate::trace`.
#[derive(Debug, Default)]
pub(crate) struct LineReader {
    /// A blank line is only fine if nothing but blank lines follows it, so remember
    /// where the first one was and complain if a request comes later.
    first_blank: Option<usize>,
}

impl LineReader {
    /// Takes line `line_no` (1-based): `None` for a blank line, else its record. An
    /// error carries the line it is about (a blank line before this one, or this one).
    pub(crate) fn line(
        &mut self,
        line_no: usize,
        line: &str,
    ) -> Result<Option<ValidateRecord>, (usize, String)> {
        if line.trim_ascii().is_empty() {
            self.first_blank.get_or_insert(line_no);
            return Ok(None);
        }
        if let Some(blank) = self.first_blank {
            return Err((
                blank,
                "blank line inside the trace (only trailing blank lines are allowed)".to_string(),
            ));
        }
        parse_line(line).map(Some).map_err(|msg| (line_no, msg))
    }
}

/// Reads and parses a validate trace file. I/O errors are reported with line 0.
pub fn read_validate_trace(path: &Path) -> Result<Vec<ValidateRecord>, TraceError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| TraceError {
        file: file.clone(),
        line: 0,
        msg: e.to_string(),
    })?;
    match String::from_utf8(bytes) {
        Ok(text) => parse_validate_trace(&text, &file),
        Err(e) => {
            // Point at the offending line rather than just failing the file.
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = 1 + valid.iter().filter(|&&b| b == b'\n').count();
            Err(TraceError {
                file,
                line,
                msg: "invalid UTF-8 (a validate trace is plain ASCII text)".to_string(),
            })
        }
    }
}

/// Parses one non-blank line; the error is the message without file/line.
fn parse_line(line: &str) -> Result<ValidateRecord, String> {
    // DiskSim reads the operation as the very first character of the line.
    if line.starts_with(|c: char| c.is_ascii_whitespace()) {
        return Err(format!(
            "field 1 ({}): the line starts with whitespace; expected \"R\" or \"W\" as its first character",
            FIELD_NAMES[0]
        ));
    }
    // ASCII whitespace only, like C's isspace: anything else is part of a field.
    // Splitting off a seventh field is enough to tell that there are too many.
    let mut fields = [""; 7];
    let mut count = 0;
    for (slot, field) in fields.iter_mut().zip(line.split_ascii_whitespace()) {
        *slot = field;
        count += 1;
    }
    if count == 7 {
        return Err(format!(
            "unexpected field 7: found {} (a validate trace line has exactly 6 fields)",
            shown(fields[6])
        ));
    }
    let field = |n: usize| {
        if n <= count {
            Ok(fields[n - 1])
        } else {
            Err(format!(
                "field {n} ({}): missing (the line has only {count} fields, expected 6)",
                FIELD_NAMES[n - 1]
            ))
        }
    };

    let write = match field(1)? {
        "R" => false,
        "W" => true,
        other => {
            return Err(format!(
                "field 1 ({}): expected \"R\" or \"W\", found {}",
                FIELD_NAMES[0],
                shown(other)
            ))
        }
    };
    // The buffer action is never used by the simulation, but it must be one of the
    // words a validate trace holds: anything else means the line is not what we think.
    let action = field(2)?;
    if !BUFFER_ACTIONS.contains(&action) {
        return Err(format!(
            "field 2 ({}): expected one of Hit, Miss, Doub or Trip, found {}",
            FIELD_NAMES[1],
            shown(action)
        ));
    }
    let lbn: u64 = parse_unsigned(field(3)?, 3)?;
    let blocks_field = field(4)?;
    let blocks: u32 = parse_unsigned(blocks_field, 4)?;
    if blocks == 0 {
        return Err(format!(
            "field 4 ({}): must be at least 1, found {}",
            FIELD_NAMES[3],
            shown(blocks_field)
        ));
    }
    // The same bound every other workload meets (the drive keeps a time per sector in
    // flight); a real drive's validation trace holds requests of a few hundred sectors.
    if blocks > crate::disk::hdd::MAX_REQUEST_SECTORS {
        return Err(format!(
            "field 4 ({}): must be at most {} (2 GiB), found {}",
            FIELD_NAMES[3],
            crate::disk::hdd::MAX_REQUEST_SECTORS,
            shown(blocks_field)
        ));
    }
    let measured_us = parse_time(field(5)?, 5)?;
    let think_us = parse_time(field(6)?, 6)?;
    Ok(ValidateRecord {
        write,
        lbn,
        blocks,
        measured_us,
        think_us,
    })
}

/// Parses a plain run of decimal digits (no sign), reporting overflow separately.
fn parse_unsigned<T: std::str::FromStr>(field: &str, n: usize) -> Result<T, String> {
    let name = FIELD_NAMES[n - 1];
    // `str::parse` would also take a leading '+'; the trace never has one.
    if !field.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "field {n} ({name}): expected an unsigned integer, found {}",
            shown(field)
        ));
    }
    field.parse().map_err(|_| {
        format!(
            "field {n} ({name}): integer out of range ({} bits), found {}",
            std::mem::size_of::<T>() * 8,
            shown(field)
        )
    })
}

/// Parses a time in microseconds: a finite, non-negative number (integers are fine).
fn parse_time(field: &str, n: usize) -> Result<f64, String> {
    let name = FIELD_NAMES[n - 1];
    let value: f64 = field.parse().map_err(|_| {
        format!(
            "field {n} ({name}): expected a number of microseconds, found {}",
            shown(field)
        )
    })?;
    if !value.is_finite() {
        return Err(format!(
            "field {n} ({name}): expected a finite number of microseconds, found {}",
            shown(field)
        ));
    }
    if value < 0.0 {
        return Err(format!(
            "field {n} ({name}): time must not be negative, found {}",
            shown(field)
        ));
    }
    if value > MAX_TIME_US {
        return Err(format!(
            "field {n} ({name}): time must be at most {MAX_TIME_US:.0} µs (1000 s), found {}",
            shown(field)
        ));
    }
    // Adding 0.0 turns a "-0" into +0.0 so later arithmetic never sees a negative zero.
    Ok(value + 0.0)
}

/// Quotes a field for an error message, shortening absurdly long ones so a
/// corrupt file cannot produce a megabyte-long message.
fn shown(field: &str) -> String {
    const MAX_CHARS: usize = 40;
    match field.char_indices().nth(MAX_CHARS) {
        None => format!("{field:?}"),
        Some((cut, _)) => format!("{:?}…", &field[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::path::PathBuf;

    /// The real traces: the workspace copy if present, else the shared one.
    fn data_dir() -> PathBuf {
        let local = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/disksim"));
        if local.join("cheetah9LP.trace").is_file() {
            local
        } else {
            PathBuf::from("/work/shared/data/disksim")
        }
    }

    fn parse_err(text: &str) -> TraceError {
        parse_validate_trace(text, "t.trace").expect_err("should fail to parse")
    }

    #[test]
    fn reads_cheetah9lp() {
        let records = read_validate_trace(&data_dir().join("cheetah9LP.trace")).unwrap();
        assert_eq!(records.len(), 10_000);
        assert_eq!(
            records[0],
            ValidateRecord {
                write: false,
                lbn: 1_975_456,
                blocks: 4,
                measured_us: 15362.0,
                think_us: 56074.0,
            }
        );
        // Reference §10 lists the mean measured access time as 4.2729 ms.
        let mean_ms = records.iter().map(|r| r.measured_us).sum::<f64>() / 1000.0 / 1e4;
        assert!((mean_ms - 4.2729).abs() < 5e-5, "mean {mean_ms}");
    }

    #[test]
    fn reads_all_shipped_traces() {
        // hp_c2247a uses real Hit/Miss/Doub/Trip words and fractional times.
        for (name, len, mean_ms) in [
            ("cheetah9LP", 10_000, 4.2729),
            ("atlas10k", 10_000, 3.8931),
            ("ibm18es", 10_000, 5.2605),
            ("hp_c2247a", 9_999, 15.2982),
        ] {
            let path = data_dir().join(format!("{name}.trace"));
            let records = read_validate_trace(&path).unwrap();
            assert_eq!(records.len(), len, "{name}");
            let mean = records.iter().map(|r| r.measured_us).sum::<f64>() / 1000.0 / len as f64;
            assert!((mean - mean_ms).abs() < 5e-5, "{name}: mean {mean}");
        }
    }

    #[test]
    fn accepts_integers_words_and_trailing_blank_lines() {
        let text = "W Trip 7 1 100 0\r\nR Miss 0 65535 0.5 1e3\n\n  \n";
        let records = parse_validate_trace(text, "t").unwrap();
        assert_eq!(records.len(), 2);
        assert!(records[0].write);
        assert_eq!(records[0].measured_us, 100.0);
        assert_eq!(records[1].blocks, 65535);
        assert_eq!(records[1].think_us, 1000.0);
        assert!(parse_validate_trace("", "t").unwrap().is_empty());
    }

    #[test]
    fn reports_line_and_field() {
        let good = "R Hit 1 4 1.0 2.0\n";
        let cases: &[(&str, usize, &str)] = &[
            (
                "R Hit 12x 4 1.0 2.0",
                3,
                "field 3 (start LBN): expected an unsigned integer, found \"12x\"",
            ),
            (
                " R Hit 1 4 1.0 2.0",
                3,
                "field 1 (operation): the line starts with whitespace",
            ),
            (
                "X Hit 1 4 1.0 2.0",
                3,
                "field 1 (operation): expected \"R\" or \"W\", found \"X\"",
            ),
            (
                "RHit 1 4 1.0 2.0",
                3,
                "field 1 (operation): expected \"R\" or \"W\", found \"RHit\"",
            ),
            (
                "R Hit -1 4 1.0 2.0",
                3,
                "field 3 (start LBN): expected an unsigned integer, found \"-1\"",
            ),
            (
                "R Hit 1 4.0 1.0 2.0",
                3,
                "field 4 (size in blocks): expected an unsigned integer, found \"4.0\"",
            ),
            (
                "R Hit 1 00 1.0 2.0",
                3,
                "field 4 (size in blocks): must be at least 1, found \"00\"",
            ),
            (
                "R Hit 1 4194305 1.0 2.0",
                3,
                "field 4 (size in blocks): must be at most 4194304 (2 GiB), found \"4194305\"",
            ),
            (
                "R Hit 1 4294967296 1.0 2.0",
                3,
                "field 4 (size in blocks): integer out of range",
            ),
            (
                "R Hit 99999999999999999999 4 1 2",
                3,
                "field 3 (start LBN): integer out of range",
            ),
            (
                "R Hit 1 4 abc 2.0",
                3,
                "field 5 (measured access time): expected a number of microseconds, found \"abc\"",
            ),
            (
                "R Hit 1 4 -1.5 2.0",
                3,
                "field 5 (measured access time): time must not be negative, found \"-1.5\"",
            ),
            (
                "R Hit 1 4 1.0 inf",
                3,
                "field 6 (think time): expected a finite number",
            ),
            (
                "R Hit 1 4 1.0 NaN",
                3,
                "field 6 (think time): expected a finite number",
            ),
            (
                "R Hit 1 4 1.0",
                3,
                "field 6 (think time): missing (the line has only 5 fields",
            ),
            (
                "R",
                3,
                "field 2 (buffer action): missing (the line has only 1 fields",
            ),
            (
                "R Hit 1 4 1.0 2.0 3.0",
                3,
                "unexpected field 7: found \"3.0\"",
            ),
        ];
        for &(bad, line, msg) in cases {
            let text = format!("{good}{good}{bad}\n{good}");
            let err = parse_err(&text);
            assert_eq!(err.line, line, "{bad:?}: {err}");
            assert!(err.msg.starts_with(msg), "{bad:?}: got {:?}", err.msg);
            assert_eq!(err.file, "t.trace");
        }
        let err = parse_err("R Hit 1 4 1.0 2.0\n\nR Hit 1 4 1.0 2.0\n");
        assert_eq!(err.line, 2);
        assert!(err.msg.contains("blank line"), "{}", err.msg);
        assert_eq!(
            parse_err("R Hit 1 4 1 2\nR Hit 1 4 1 x\n").to_string(),
            "t.trace:2: field 6 (think time): expected a number of microseconds, found \"x\""
        );
    }

    #[test]
    fn long_fields_are_shortened_in_messages() {
        let err = parse_err(&format!("R Hit {} 4 1 2", "9".repeat(10_000) + "x"));
        assert!(err.msg.len() < 200, "{}", err.msg);
    }

    #[test]
    fn io_and_utf8_errors() {
        let err = read_validate_trace(Path::new("/nonexistent/dir/x.trace")).unwrap_err();
        assert_eq!(err.line, 0);
        assert_eq!(err.file, "/nonexistent/dir/x.trace");

        let path =
            std::env::temp_dir().join(format!("spindle-trace-utf8-{}.trace", std::process::id()));
        std::fs::write(&path, b"R Hit 1 4 1 2\nR H\xffit 1 4 1 2\n").unwrap();
        let err = read_validate_trace(&path).unwrap_err();
        let _ = std::fs::remove_file(&path);
        assert_eq!(err.line, 2);
        assert!(err.msg.contains("UTF-8"));
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in any::<String>()) {
            let _ = parse_validate_trace(&text, "fuzz");
        }

        #[test]
        fn near_miss_text_never_panics(text in "([RW ]?[ \t]*[A-Za-z]{0,4}[ \t0-9.eE+x-]{0,40}\r?\n){0,6}") {
            let _ = parse_validate_trace(&text, "fuzz");
        }

        #[test]
        fn well_formed_lines_round_trip(
            recs in proptest::collection::vec(
                (any::<bool>(), any::<u64>(), 1u32..=crate::disk::hdd::MAX_REQUEST_SECTORS, 0u32..100_000_000, 0u32..100_000_000),
                0..20,
            ),
        ) {
            let mut text = String::new();
            for &(write, lbn, blocks, m, t) in &recs {
                let op = if write { 'W' } else { 'R' };
                // Times are written with 3 decimals, as hp_c2247a does.
                text.push_str(&format!("{op} Miss {lbn} {blocks} {}.{:03} {t}\n", m / 1000, m % 1000));
            }
            let parsed = parse_validate_trace(&text, "gen").unwrap();
            prop_assert_eq!(parsed.len(), recs.len());
            for (p, &(write, lbn, blocks, m, t)) in parsed.iter().zip(&recs) {
                prop_assert_eq!(p.write, write);
                prop_assert_eq!(p.lbn, lbn);
                prop_assert_eq!(p.blocks, blocks);
                let expected: f64 = format!("{}.{:03}", m / 1000, m % 1000).parse().unwrap();
                prop_assert_eq!(p.measured_us, expected);
                prop_assert_eq!(p.think_us, f64::from(t));
            }
        }
    }
}
