//! Text helpers shared by the HTML and SVG writers.

/// Escapes text for HTML/XML element content and attribute values.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters other than tab/newline are not allowed in XML 1.0.
            c if c.is_control() && c != '\n' && c != '\t' && c != '\r' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A value for a table: up to 3 decimals for ordinary magnitudes (e.g. milliseconds),
/// 3 significant digits for small ones, scientific notation for huge or tiny ones;
/// trailing zeros trimmed.
pub(crate) fn fmt_value(x: f64) -> String {
    // No value (a ratio over no events, a mean over nothing): the experiment's text
    // says why.
    if x.is_nan() {
        return "undefined".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "∞" } else { "−∞" }.into();
    }
    let a = x.abs();
    if a == 0.0 {
        return "0".into();
    }
    if !(1e-4..1e9).contains(&a) {
        return fmt_sci(x, 3);
    }
    let decimals = if a >= 1.0 {
        3
    } else {
        // 3 significant digits below 1.
        (2 - a.log10().floor() as i32).clamp(3, 7) as usize
    };
    trim_zeros(&format!("{x:.decimals$}"))
}

/// Scientific notation with `sig` significant digits, trailing zeros trimmed: "1.5e-7".
pub(crate) fn fmt_sci(x: f64, sig: usize) -> String {
    let s = format!("{:.*e}", sig.saturating_sub(1), x);
    match s.split_once('e') {
        Some((m, e)) => format!("{}e{}", trim_zeros(m), e),
        None => s,
    }
}

/// "1.500" -> "1.5", "2.000" -> "2", "-0.000" -> "0".
pub(crate) fn trim_zeros(s: &str) -> String {
    let t = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    };
    if t == "-0" {
        "0".into()
    } else {
        t.into()
    }
}

/// Whether a table cell looks numeric (for right alignment).
pub(crate) fn looks_numeric(s: &str) -> bool {
    let t = s.trim().trim_end_matches('%').trim();
    !t.is_empty() && t.parse::<f64>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        assert_eq!(fmt_value(12.34567), "12.346");
        assert_eq!(fmt_value(3.0), "3");
        assert_eq!(fmt_value(-0.0), "0");
        assert_eq!(fmt_value(0.012345), "0.0123");
        assert_eq!(fmt_value(0.5), "0.5");
        assert_eq!(fmt_value(1234567.0), "1234567");
        assert_eq!(fmt_value(2.5e-6), "2.5e-6");
        assert_eq!(fmt_value(3e12), "3e12");
        assert_eq!(fmt_value(f64::NAN), "undefined");
    }

    #[test]
    fn escaping() {
        assert_eq!(
            escape(r#"<a href="x">&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
    }
}
