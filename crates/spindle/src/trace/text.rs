//! Shared pieces of the text readers: line splitting, named fields, strict number
//! parsing with messages that name the field and quote what was found, and rebasing
//! absolute clocks to the start of the trace.

use super::lines::{line_records, Lines, Stamped, StampedIter, Step};
use super::{IoRecord, TraceError};
use crate::time::SimTime;
use std::borrow::Cow;

/// The lines of a text trace as (1-based number, text without `\n` or `\r\n`).
///
/// Invalid UTF-8 is replaced rather than refused: it can only matter inside a field,
/// and there it is reported as that field's bad value.
pub(crate) fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, Cow<'_, str>)> {
    bytes.split(|&b| b == b'\n').enumerate().map(|(i, line)| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        (i + 1, String::from_utf8_lossy(line))
    })
}

/// A reader over the lines of a text trace, one record per non-blank line:
/// `parse_line` turns a line into a record (its arrival as written).
pub(crate) fn record_lines<'a>(
    lines: Lines<'a>,
    parse_line: fn(&str) -> Result<IoRecord, String>,
) -> StampedIter<'a> {
    line_records(lines, move |l| {
        if l.text().trim_ascii().is_empty() {
            return Ok(Step::Skip);
        }
        let record = parse_line(l.text()).map_err(|msg| l.error(msg))?;
        Ok(Step::Record((record.arrival.0, l.position(), record)))
    })
}

/// Quotes a field for an error message, shortening absurdly long ones so a corrupt
/// file cannot produce a megabyte-long message.
pub(crate) fn shown(field: &str) -> String {
    const MAX_CHARS: usize = 40;
    match field.char_indices().nth(MAX_CHARS) {
        None => format!("{field:?}"),
        Some((cut, _)) => format!("{:?}…", field.get(..cut).unwrap_or_default()),
    }
}

/// The fields of one line, with the names used in messages.
pub(crate) struct Fields<'a> {
    pub fields: Vec<&'a str>,
    names: &'static [&'static str],
}

impl<'a> Fields<'a> {
    /// Splits on runs of ASCII whitespace (as C's `scanf` does).
    pub fn whitespace(line: &'a str, names: &'static [&'static str]) -> Fields<'a> {
        Fields {
            fields: line.split_ascii_whitespace().collect(),
            names,
        }
    }

    /// Splits on commas, trimming blanks around each field (no quoting: none of the
    /// comma-separated trace formats uses it).
    pub fn commas(line: &'a str, names: &'static [&'static str]) -> Fields<'a> {
        Fields {
            fields: line.split(',').map(str::trim_ascii).collect(),
            names,
        }
    }

    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Fails unless the line has between `min` and `max` fields.
    pub fn expect_count(&self, min: usize, max: usize) -> Result<(), String> {
        let count = self.len();
        let expected = if min == max {
            format!("{min}")
        } else if max == usize::MAX {
            format!("at least {min}")
        } else {
            format!("{min} to {max}")
        };
        if count < min {
            let missing = self.names.get(count).copied().unwrap_or("field");
            return Err(format!(
                "field {} ({missing}): missing (the line has {count} fields, expected {expected})",
                count + 1
            ));
        }
        if count > max {
            let extra = self.fields.get(max).copied().unwrap_or_default();
            return Err(format!(
                "unexpected field {}: found {} (the line has {count} fields, expected {expected})",
                max + 1,
                shown(extra)
            ));
        }
        Ok(())
    }

    /// Field `index` (0-based), named by its position in the format.
    pub fn get(&self, index: usize) -> Result<Field<'a>, String> {
        self.get_as(index, index)
    }

    /// Field `index` of the line reported as the format's field `logical` (0-based):
    /// for formats where a free-text field may contain blanks, so that positions counted
    /// from the end still get their proper names.
    pub fn get_as(&self, index: usize, logical: usize) -> Result<Field<'a>, String> {
        let name = self.names.get(logical).copied().unwrap_or("field");
        match self.fields.get(index) {
            Some(&text) => Ok(Field {
                n: logical + 1,
                name,
                text,
            }),
            None => Err(format!(
                "field {} ({name}): missing (the line has only {} fields)",
                logical + 1,
                self.len()
            )),
        }
    }
}

/// One named field of a line.
#[derive(Clone, Copy)]
pub(crate) struct Field<'a> {
    /// 1-based position in the format.
    pub n: usize,
    pub name: &'static str,
    pub text: &'a str,
}

impl Field<'_> {
    /// `field N (name): {what}, found "text"`.
    pub fn error(&self, what: &str) -> String {
        format!(
            "field {} ({}): {what}, found {}",
            self.n,
            self.name,
            shown(self.text)
        )
    }

    /// A plain run of decimal digits (no sign), with overflow reported separately.
    pub fn uint<T: std::str::FromStr>(&self) -> Result<T, String> {
        if self.text.is_empty() || !self.text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.error("expected an unsigned integer"));
        }
        self.text.parse().map_err(|_| {
            self.error(&format!(
                "integer out of range ({} bits)",
                std::mem::size_of::<T>() * 8
            ))
        })
    }

    /// A request size in 512-byte blocks: an unsigned integer, at least 1.
    pub fn blocks(&self) -> Result<u32, String> {
        let blocks: u32 = self.uint()?;
        if blocks == 0 {
            return Err(self.error("a request must be at least 1 block"));
        }
        Ok(blocks)
    }

    /// A request size in bytes: an unsigned integer, at least 1.
    pub fn bytes(&self) -> Result<u64, String> {
        let bytes: u64 = self.uint()?;
        if bytes == 0 {
            return Err(self.error("a request must be at least 1 byte"));
        }
        Ok(bytes)
    }

    /// Hexadecimal, with or without `0x`, as C's `%x` reads it.
    pub fn hex_u32(&self) -> Result<u32, String> {
        let digits = self
            .text
            .strip_prefix("0x")
            .or_else(|| self.text.strip_prefix("0X"))
            .unwrap_or(self.text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.error("expected a hexadecimal integer"));
        }
        u32::from_str_radix(digits, 16).map_err(|_| self.error("integer out of range (32 bits)"))
    }

    /// A non-negative decimal time in units of `10^digits` ns (6 = ms, 9 = s), rounded
    /// to the nearest nanosecond. Plain decimals are converted exactly; other forms C's
    /// `strtod` accepts (`1e3`) go through `f64`.
    pub fn time_ns(&self, digits: u32, unit: &str) -> Result<u64, String> {
        match decimal_scaled(self.text, digits) {
            Ok(ns) => Ok(ns),
            Err(DecimalError::Syntax) => Err(self.error(&format!("expected a time in {unit}"))),
            Err(DecimalError::NotFinite) => {
                Err(self.error(&format!("expected a finite time in {unit}")))
            }
            Err(DecimalError::Negative) => Err(self.error("time must not be negative")),
            Err(DecimalError::Overflow) => Err(self.error("time too large (over 584 years)")),
        }
    }

    /// An MD5 digest written as 32 hexadecimal digits.
    pub fn md5(&self) -> Result<[u8; 16], String> {
        parse_md5(self.text).ok_or_else(|| self.error("expected an MD5 digest (32 hex digits)"))
    }
}

#[derive(Debug, PartialEq)]
pub(crate) enum DecimalError {
    Syntax,
    NotFinite,
    Negative,
    Overflow,
}

/// Parses a non-negative decimal and scales it by `10^digits`, rounding half up.
pub(crate) fn decimal_scaled(text: &str, digits: u32) -> Result<u64, DecimalError> {
    if let Some(value) = exact_decimal(text, digits) {
        return value;
    }
    // Exponents, "inf", "nan", signs: whatever strtod would take.
    let value: f64 = text.parse().map_err(|_| DecimalError::Syntax)?;
    if !value.is_finite() {
        return Err(DecimalError::NotFinite);
    }
    if value < 0.0 {
        return Err(DecimalError::Negative);
    }
    let scaled = (value * 10f64.powi(digits as i32)).round();
    // 2^64 is exactly representable; anything at or above it does not fit.
    if scaled >= 18_446_744_073_709_551_616.0 {
        return Err(DecimalError::Overflow);
    }
    Ok(scaled as u64)
}

/// `digits[.digits]` (at least one digit, optional leading '+') converted without
/// floating point; `None` if the text has any other shape.
fn exact_decimal(text: &str, digits: u32) -> Option<Result<u64, DecimalError>> {
    let body = text.strip_prefix('+').unwrap_or(text);
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !all_digits(int) || !all_digits(frac) {
        return None;
    }
    let overflow = Some(Err(DecimalError::Overflow));
    let mut value: u64 = 0;
    for b in int.bytes() {
        let Some(v) = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(b - b'0')))
        else {
            return overflow;
        };
        value = v;
    }
    // The first `digits` fractional digits, padded with zeros; the next one rounds.
    let mut frac_digits = frac.bytes().map(|b| u64::from(b - b'0'));
    for _ in 0..digits {
        let d = frac_digits.next().unwrap_or(0);
        let Some(v) = value.checked_mul(10).and_then(|v| v.checked_add(d)) else {
            return overflow;
        };
        value = v;
    }
    if frac_digits.next().is_some_and(|d| d >= 5) {
        let Some(v) = value.checked_add(1) else {
            return overflow;
        };
        value = v;
    }
    Some(Ok(value))
}

/// 32 hex digits to 16 bytes.
pub(crate) fn parse_md5(text: &str) -> Option<[u8; 16]> {
    let bytes = text.as_bytes();
    if bytes.len() != 32 {
        return None;
    }
    let nibble = |b: u8| {
        char::from(b)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    let mut out = [0u8; 16];
    for (slot, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        let &[hi, lo] = pair else {
            return None;
        };
        *slot = (nibble(hi)? << 4) | nibble(lo)?;
    }
    Some(out)
}

/// Lower-case hex of an MD5 digest.
pub(crate) fn md5_hex(digest: &[u8; 16]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Turns records stamped with an absolute clock (`raw` in units of `ns_per_unit`) into
/// records timed from the earliest one, then sorts them.
pub(crate) fn rebase(
    raw: Vec<Stamped>,
    ns_per_unit: u64,
    file: &str,
) -> Result<Vec<IoRecord>, TraceError> {
    let start = raw.iter().map(|(t, _, _)| *t).min().unwrap_or(0);
    let mut records = raw
        .into_iter()
        .map(|stamped| rebase_one(stamped, start, ns_per_unit, file))
        .collect::<Result<Vec<_>, _>>()?;
    super::sort_by_arrival(&mut records);
    Ok(records)
}

/// One record stamped `t` (in units of `ns_per_unit`), timed from `start`.
pub(crate) fn rebase_one(
    (t, at, mut record): Stamped,
    start: u64,
    ns_per_unit: u64,
    file: &str,
) -> Result<IoRecord, TraceError> {
    let ns = t
        .checked_sub(start)
        .and_then(|d| d.checked_mul(ns_per_unit))
        .ok_or_else(|| TraceError {
            file: file.to_string(),
            at,
            msg: "time stamp too far from the start of the trace (over 584 years)".into(),
        })?;
    record.arrival = SimTime(ns);
    Ok(record)
}

/// Whether `s` is a non-empty run of decimal digits (a field detection may take for an
/// unsigned integer).
pub(crate) fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// The sectors a byte range touches: its first sector and how many (`ceil((offset %
/// 512 + length) / 512)`); `None` beyond 2^32 sectors.
pub(crate) fn byte_range_sectors(offset: u64, length: u64) -> Option<(u64, u32)> {
    let blocks = (offset % 512).checked_add(length)?.div_ceil(512);
    Some((offset / 512, u32::try_from(blocks).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact() {
        assert_eq!(decimal_scaled("0.000774", 9), Ok(774_000));
        assert_eq!(decimal_scaled("12.5", 6), Ok(12_500_000));
        assert_eq!(decimal_scaled("1.0000005", 6), Ok(1_000_001));
        assert_eq!(decimal_scaled("1.00000049", 6), Ok(1_000_000));
        assert_eq!(decimal_scaled(".5", 0), Ok(1));
        assert_eq!(decimal_scaled("7.", 3), Ok(7000));
        assert_eq!(decimal_scaled("+2", 3), Ok(2000));
        assert_eq!(decimal_scaled("1e3", 6), Ok(1_000_000_000));
        assert_eq!(decimal_scaled("-0", 6), Ok(0));
        assert_eq!(decimal_scaled("-1", 6), Err(DecimalError::Negative));
        assert_eq!(decimal_scaled("NaN", 6), Err(DecimalError::NotFinite));
        assert_eq!(decimal_scaled("inf", 6), Err(DecimalError::NotFinite));
        assert_eq!(decimal_scaled(".", 6), Err(DecimalError::Syntax));
        assert_eq!(decimal_scaled("", 6), Err(DecimalError::Syntax));
        assert_eq!(decimal_scaled("1x", 6), Err(DecimalError::Syntax));
        assert_eq!(
            decimal_scaled("18446744073709551616", 0),
            Err(DecimalError::Overflow)
        );
        assert_eq!(decimal_scaled("1e300", 6), Err(DecimalError::Overflow));
        assert_eq!(decimal_scaled("18446744073709551615", 0), Ok(u64::MAX));
    }

    #[test]
    fn md5_round_trip() {
        let hex = "56f11b711d91a065a2b6458eca924523";
        let d = parse_md5(hex).unwrap();
        assert_eq!(d[0], 0x56);
        assert_eq!(md5_hex(&d), hex);
        assert_eq!(parse_md5(&hex.to_uppercase()), Some(d));
        assert_eq!(parse_md5("56f11b711d91a065a2b6458eca92452"), None);
        assert_eq!(parse_md5("56f11b711d91a065a2b6458eca92452g"), None);
        assert_eq!(parse_md5("ééééééééééééééé£"), None);
    }

    #[test]
    fn shown_shortens() {
        assert_eq!(shown("ab"), "\"ab\"");
        assert!(shown(&"é".repeat(100)).len() < 100);
    }
}
