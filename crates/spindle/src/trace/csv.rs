//! spindle's own trace CSV: what [`write_csv`] writes and [`parse`] reads back.
//!
//! ```text
//! arrival_ms,device,lbn,blocks,op,md5
//! 0.000000,0,1056,8,R,
//! 12.500250,1,7,8,W,56f11b711d91a065a2b6458eca924523
//! ```
//!
//! `arrival_ms` is written with six decimals, i.e. exactly in nanoseconds, so a
//! write/read round trip is lossless. `op` is `R` or `W`. The `md5` column is present
//! only when some record has content hashes; a record's hashes are joined with `;`
//! and an empty field means none. Times are kept as written (not rebased).

use super::lines::{line_records, Lines, StampedIter, Step};
use super::text::{md5_hex, parse_md5, Fields};
use super::{Format, IoRecord, TraceError};
use crate::time::SimTime;
use std::io::Write;

/// The header without and with the content column.
pub const HEADER: &str = "arrival_ms,device,lbn,blocks,op";
pub const HEADER_MD5: &str = "arrival_ms,device,lbn,blocks,op,md5";

const NAMES: &[&str] = &["arrival_ms", "device", "lbn", "blocks", "op", "md5"];

/// Writes `records` as spindle CSV (header first), in the order given.
pub fn write_csv<W: Write>(records: &[IoRecord], writer: W) -> std::io::Result<()> {
    let with_md5 = records.iter().any(|r| !r.content.is_empty());
    let mut w = CsvWriter::new(writer, with_md5)?;
    for r in records {
        w.write(r)?;
    }
    w.finish()?.flush()
}

/// Writes spindle CSV record by record, for streams of any length.
pub struct CsvWriter<W: Write> {
    w: std::io::BufWriter<W>,
    with_md5: bool,
}

impl<W: Write> CsvWriter<W> {
    /// Writes the header; `with_md5` adds the content column (records without
    /// content leave it empty).
    pub fn new(writer: W, with_md5: bool) -> std::io::Result<CsvWriter<W>> {
        let mut w = std::io::BufWriter::new(writer);
        writeln!(w, "{}", if with_md5 { HEADER_MD5 } else { HEADER })?;
        Ok(CsvWriter { w, with_md5 })
    }

    pub fn write(&mut self, r: &IoRecord) -> std::io::Result<()> {
        let ns = r.arrival.0;
        write!(
            self.w,
            "{}.{:06},{},{},{},{}",
            ns / 1_000_000,
            ns % 1_000_000,
            r.device,
            r.lbn,
            r.blocks,
            if r.write { 'W' } else { 'R' }
        )?;
        if self.with_md5 {
            let hashes: Vec<String> = r.content.iter().map(md5_hex).collect();
            write!(self.w, ",{}", hashes.join(";"))?;
        }
        writeln!(self.w)
    }

    /// Writes out what is buffered and gives back the writer underneath, unflushed (a
    /// compressing one is then finished by its owner).
    pub fn finish(self) -> std::io::Result<W> {
        self.w
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)
    }
}

/// Parses spindle CSV. The first non-blank line must be one of the two headers.
pub fn parse(bytes: &[u8], file: &str) -> Result<Vec<IoRecord>, TraceError> {
    super::parse_format(bytes, file, Format::SpindleCsv)
}

/// The streaming reader.
pub(crate) fn stamped(lines: Lines<'_>) -> StampedIter<'_> {
    let mut with_md5: Option<bool> = None;
    line_records(lines, move |l| {
        let line = l.text().trim_ascii();
        if line.is_empty() {
            return Ok(Step::Skip);
        }
        let Some(md5) = with_md5 else {
            with_md5 = Some(match line {
                HEADER => false,
                HEADER_MD5 => true,
                _ => {
                    return Err(l.error(format!(
                        "expected the header {HEADER:?} or {HEADER_MD5:?}, found {}",
                        super::text::shown(line)
                    )))
                }
            });
            return Ok(Step::Skip);
        };
        let record = parse_line(line, md5).map_err(|msg| l.error(msg))?;
        Ok(Step::Record((record.arrival.0, l.position(), record)))
    })
}

fn parse_line(line: &str, with_md5: bool) -> Result<IoRecord, String> {
    let f = Fields::commas(line, NAMES);
    let count = if with_md5 { 6 } else { 5 };
    f.expect_count(count, count)?;
    let arrival = SimTime(f.get(0)?.time_ns(6, "milliseconds")?);
    let device = f.get(1)?.uint()?;
    let lbn = f.get(2)?.uint()?;
    let blocks = f.get(3)?.blocks()?;
    let op = f.get(4)?;
    let write = match op.text {
        "R" => false,
        "W" => true,
        _ => return Err(op.error("expected R or W")),
    };
    let mut content = Vec::new();
    if with_md5 {
        let field = f.get(5)?;
        if !field.text.is_empty() {
            for hash in field.text.split(';') {
                content.push(parse_md5(hash).ok_or_else(|| {
                    field.error("expected MD5 digests (32 hex digits) separated by ';'")
                })?);
            }
        }
    }
    Ok(IoRecord {
        arrival,
        device,
        lbn,
        blocks,
        write,
        content,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(records: &[IoRecord]) -> Vec<IoRecord> {
        let mut out = Vec::new();
        write_csv(records, &mut out).unwrap();
        parse(&out, "rt.csv").unwrap()
    }

    #[test]
    fn round_trips_exactly() {
        let a = IoRecord {
            arrival: SimTime(12_500_250),
            device: 1,
            // The largest request a trace may hold: it ends at MAX_TRACE_SECTOR.
            lbn: crate::trace::stream::MAX_TRACE_SECTOR - u32::MAX as u64,
            blocks: u32::MAX,
            write: true,
            content: vec![[0xab; 16], [0; 16]],
        };
        let b = IoRecord {
            arrival: SimTime(u64::MAX),
            device: 0,
            lbn: 0,
            blocks: 1,
            write: false,
            content: vec![],
        };
        assert_eq!(round_trip(&[a.clone(), b.clone()]), [a.clone(), b.clone()]);
        let plain = IoRecord {
            content: vec![],
            ..a
        };
        let mut out = Vec::new();
        write_csv(std::slice::from_ref(&plain), &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "arrival_ms,device,lbn,blocks,op\n12.500250,1,281470681743361,4294967295,W\n"
        );
        assert_eq!(
            round_trip(std::slice::from_ref(&plain)),
            std::slice::from_ref(&plain)
        );
        // One sector further is refused where it is read, naming the line.
        let beyond = IoRecord {
            lbn: plain.lbn + 1,
            ..plain
        };
        let mut out = Vec::new();
        write_csv(std::slice::from_ref(&beyond), &mut out).unwrap();
        let e = parse(&out, "rt.csv").unwrap_err().to_string();
        assert!(e.starts_with("rt.csv:2: the request of 4294967295 sectors at LBN 281470681743362 ends beyond sector 281474976710656"), "{e}");
        assert!(round_trip(&[]).is_empty());
    }

    #[test]
    fn errors() {
        let err = parse(b"time,dev\n", "x.csv").unwrap_err();
        assert_eq!(err.line_number(), Some(1));
        assert!(err.msg.starts_with("expected the header"), "{err}");
        let err = parse(b"arrival_ms,device,lbn,blocks,op\n1.0,0,1,0,R\n", "x.csv").unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.csv:2: field 4 (blocks): a request must be at least 1 block, found \"0\""
        );
        let err = parse(
            b"arrival_ms,device,lbn,blocks,op,md5\n1.0,0,1,1,R,zz\n",
            "x.csv",
        )
        .unwrap_err();
        assert!(err.msg.starts_with("field 6 (md5): expected MD5"), "{err}");
    }
}
