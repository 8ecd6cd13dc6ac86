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

/// `Ok` when every `(name, p)` is a probability (within 0..=1; NaN is not), else the
/// error naming the first that is not: "`name` must be a probability within 0..=1, got
/// `p`".
pub fn probabilities(named: &[(&str, f64)]) -> Result<(), String> {
    match named.iter().find(|(_, p)| !(0.0..=1.0).contains(p)) {
        Some((name, p)) => Err(format!(
            "{name} must be a probability within 0..=1, got {}",
            value(*p)
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn probabilities_name_the_first_outside_0_to_1() {
        assert!(super::probabilities(&[("a", 0.0), ("b", 1.0)]).is_ok());
        let e = super::probabilities(&[("a", 0.5), ("b", 1.5), ("c", f64::NAN)]).unwrap_err();
        assert_eq!(e, "b must be a probability within 0..=1, got 1.5");
        assert!(super::probabilities(&[("c", f64::NAN)]).is_err());
    }

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
