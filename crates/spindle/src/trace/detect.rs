//! Recognising a trace's format from its first bytes.
//!
//! Rules, tried in this order (the first match wins), on the decompressed bytes of a
//! compressed file. An archive (tar, zip, 7-Zip), an xz or bzip2 stream, or a file
//! compressed twice is refused first, saying what to do with it.
//!
//! 1. `hp-srt`: a line whose first word is `tracedate` before the first form feed
//!    (0x0C), or the `$$TR_IOREC` magic the HP traces start with.
//! 2. `blktrace`: the binary stream's magic, 0x654174 and a version byte, in either byte
//!    order, as the first four bytes.
//!
//! The others look at the first non-blank line:
//!
//! 3. `spindle-csv`: exactly our header `arrival_ms,device,lbn,blocks,op[,md5]`.
//! 4. `tencent`: its header, or 5 comma-separated unsigned integers with `0` or `1` in
//!    the fourth.
//! 5. `alibaba`: its header, or 5 comma-separated fields: an unsigned integer, `R` or
//!    `W`, and three unsigned integers.
//! 6. `msr`: 7 comma-separated fields, a numeric first one and `Read`/`Write` in the
//!    fourth; or the `Timestamp,...` header.
//! 7. `spc`: at least 5 comma-separated fields, a numeric ASU first and `r`/`w` (any
//!    case) in the fourth.
//! 8. `blkparse`: a first field `major,minor` (digits, comma, digits).
//! 9. `disksim-validate`: `R` or `W` as the first character and field, and a second
//!    field `Hit`, `Miss`, `Doub` or `Trip`.
//! 10. `fiu`: at least 9 blank-separated fields, 32 hex digits (an MD5) last and `R`/`W`
//!     fourth from last.
//! 11. `disksim-ascii`: exactly 5 numeric fields (a decimal time, three integers, hex
//!     flags).
//!
//! Detection only picks a reader; that reader then checks every line.

use super::text::{lines, parse_md5};
use super::{alibaba, blkparse, blktrace, csv, msr, tencent, Format, TraceError};

/// How many leading bytes detection needs: the HP header is about 2 KiB.
pub const DETECT_BYTES: usize = 64 * 1024;

/// Detects the format of a trace from its first bytes (up to [`DETECT_BYTES`] are used;
/// passing the whole file is fine). `name` is only used in the error message.
pub fn detect(name: &str, first_bytes: &[u8]) -> Result<Format, TraceError> {
    let bytes = first_bytes.get(..DETECT_BYTES).unwrap_or(first_bytes);
    let bytes = bytes.strip_prefix(super::lines::UTF8_BOM).unwrap_or(bytes);
    if let Some(why) = super::compressed::refusal(bytes) {
        return Err(TraceError::file(name, why));
    }
    if is_srt(bytes) {
        return Ok(Format::HpSrt);
    }
    if blktrace::is_blktrace(bytes) {
        return Ok(Format::Blktrace);
    }
    let line = lines(bytes)
        .map(|(_, l)| l)
        .find(|l| {
            let t = l.trim_ascii();
            !t.is_empty() && !t.starts_with("Input file ")
        })
        .ok_or_else(|| {
            TraceError::file(name, "cannot detect the trace format: the file is empty")
        })?;
    let line = line.trim_ascii();
    detect_line(line).ok_or_else(|| {
        TraceError::file(
            name,
            format!(
                "cannot detect the trace format from the first line {}; name it (one of: {})",
                super::text::shown(line),
                Format::ALL.map(Format::name).join(", ")
            ),
        )
    })
}

fn is_srt(bytes: &[u8]) -> bool {
    if bytes.starts_with(b"$$TR_IOREC") {
        return true;
    }
    let header = match bytes.iter().position(|&b| b == 0x0C) {
        Some(ff) => bytes.get(..ff).unwrap_or_default(),
        None => return false,
    };
    String::from_utf8_lossy(header)
        .lines()
        .any(|l| l.split_ascii_whitespace().next() == Some("tracedate"))
}

fn detect_line(line: &str) -> Option<Format> {
    let digits = super::text::is_digits;
    if line == csv::HEADER || line == csv::HEADER_MD5 {
        return Some(Format::SpindleCsv);
    }
    let commas: Vec<&str> = line.split(',').map(str::trim_ascii).collect();
    if line == tencent::HEADER || tencent::is_record(&commas) {
        return Some(Format::Tencent);
    }
    if line == alibaba::HEADER || alibaba::is_record(&commas) {
        return Some(Format::Alibaba);
    }
    if let [first, _, _, kind, ..] = commas.as_slice() {
        let read_write = kind.eq_ignore_ascii_case("Read") || kind.eq_ignore_ascii_case("Write");
        if msr::is_header(line) || (commas.len() == 7 && digits(first) && read_write) {
            return Some(Format::Msr);
        }
        if commas.len() >= 5 && digits(first) && matches!(*kind, "r" | "R" | "w" | "W") {
            return Some(Format::Spc);
        }
    }
    let words: Vec<&str> = line.split_ascii_whitespace().collect();
    let first = words.first().copied().unwrap_or_default();
    if blkparse::parse_device(first).is_some() {
        return Some(Format::Blkparse);
    }
    if matches!(first, "R" | "W")
        && matches!(
            words.get(1).copied(),
            Some("Hit" | "Miss" | "Doub" | "Trip")
        )
    {
        return Some(Format::DisksimValidate);
    }
    if words.len() >= 9
        && words.last().is_some_and(|w| parse_md5(w).is_some())
        && matches!(
            words.get(words.len() - 4).copied(),
            Some("R" | "W" | "r" | "w")
        )
    {
        return Some(Format::Fiu);
    }
    if let [time, dev, lbn, size, flags] = words.as_slice() {
        let hex = flags
            .strip_prefix("0x")
            .or_else(|| flags.strip_prefix("0X"))
            .unwrap_or(flags);
        if time.parse::<f64>().is_ok()
            && digits(dev)
            && digits(lbn)
            && digits(size)
            && !hex.is_empty()
            && hex.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Some(Format::DisksimAscii);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_format() {
        let cases: &[(&[u8], Format)] = &[
            (
                b"$$TR_IOREC-1.3\ntracedate = \"x\";\n\x0c\0\0\0\x38",
                Format::HpSrt,
            ),
            (b"junk\ntracedate\t= \"x\";\n\x0c", Format::HpSrt),
            (b"arrival_ms,device,lbn,blocks,op\n", Format::SpindleCsv),
            (
                b"arrival_ms,device,lbn,blocks,op,md5\r\n",
                Format::SpindleCsv,
            ),
            (
                b"128166372003061629,hm,1,Read,383496192,32768,10387\n",
                Format::Msr,
            ),
            (
                b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n",
                Format::Msr,
            ),
            (b"0,303567,3584,w,0.000000\n", Format::Spc),
            (b"1,18960512,24576,R,0.000938,extra\n", Format::Spc),
            (
                b"\n  8,0    3        1     0.000000000  4162  Q  WS 1234 + 8 [jbd2]\n",
                Format::Blkparse,
            ),
            (
                b"R Hit 1975456 4 15362.00000 56074.00000\n",
                Format::DisksimValidate,
            ),
            (b"W Trip 1 4 1 2\n", Format::DisksimValidate),
            (
                b"89968195792462 20782 gzip 283193184 8 R 6 0 56f11b711d91a065a2b6458eca924523\n",
                Format::Fiu,
            ),
            (b"0.000000 0 1056 8 1\n", Format::DisksimAscii),
            (b"12.5 1 7 16 0x10\n", Format::DisksimAscii),
            (b"\x07\x74\x61\x65", Format::Blktrace),
            (b"\x65\x61\x74\x06", Format::Blktrace),
            (b"0,R,126703644672,4096,1577808000000626\n", Format::Alibaba),
            (
                b"device_id,opcode,offset,length,timestamp\n",
                Format::Alibaba,
            ),
            (b"1538323200,12345,8,1,1063\n", Format::Tencent),
            (b"Timestamp,Offset,Size,IOType,VolumeID\n", Format::Tencent),
        ];
        for &(bytes, format) in cases {
            assert_eq!(
                detect("t", bytes),
                Ok(format),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn undetectable() {
        let err = detect("t.bin", b"hello world\n").unwrap_err();
        assert!(err.msg.contains("\"hello world\""), "{err}");
        assert!(err.msg.contains("spindle-csv"), "{err}");
        assert!(detect("t", b"").unwrap_err().msg.contains("empty"));
        assert!(detect("t", b"\x0c\x00\x01").is_err());
    }
}
