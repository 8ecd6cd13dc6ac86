//! How a number a user gave appears in an error message: as written for ordinary
//! magnitudes (`1.5`, `-1`), in exponent form for huge or tiny ones (`1e300`), never as
//! hundreds of digits.

/// `x` for an error message.
pub fn value(x: f64) -> String {
    if x != 0.0 && x.is_finite() && (x.abs() >= 1e15 || x.abs() < 1e-6) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ordinary_as_written_extreme_in_exponent_form() {
        assert_eq!(super::value(1.5), "1.5");
        assert_eq!(super::value(-1.0), "-1");
        assert_eq!(super::value(150.0), "150");
        assert_eq!(super::value(1e300), "1e300");
        assert_eq!(super::value(1e-10), "1e-10");
        assert_eq!(super::value(f64::NAN), "NaN");
    }
}
