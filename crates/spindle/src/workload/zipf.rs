//! Zipf-distributed ranks by rejection-inversion.
//!
//! `P(k) = k^-θ / H(n, θ)` for `k` in `1..=n`, where `H(n, θ) = Σ_{i=1..n} i^-θ` is the
//! generalized harmonic number. The sampler is the rejection-inversion method of
//! W. Hörmann and G. Derflinger, "Rejection-inversion to generate variates from
//! monotone discrete distributions", ACM TOMACS 6(3), 1996 (the formulation used by
//! Apache Commons Math's `ZipfDistribution`): it inverts the integral of the continuous
//! hat function `h(x) = x^-θ` and accepts or rejects the rounded result, which takes
//! about one uniform draw per sample, O(1) time and memory, and is exact for any
//! `n` and any `θ ≥ 0` (`θ = 0` is uniform; `θ = 1` is handled without special cases by
//! the `log1p(x)/x` and `expm1(x)/x` helpers).

use super::WorkloadError;
use rand::Rng;

/// A Zipf(θ) distribution over ranks `1..=n`.
#[derive(Clone, Debug, PartialEq)]
pub struct Zipf {
    n: u64,
    theta: f64,
    /// `H(1.5) - 1`: the upper end of the inverted range.
    h_integral_x1: f64,
    /// `H(n + 0.5)`: the lower end.
    h_integral_n: f64,
    /// Squeeze: accept immediately when `k - x <= s`.
    s: f64,
}

impl Zipf {
    /// A sampler for ranks `1..=n` with exponent `theta`.
    ///
    /// Errors (naming `pattern.buckets` / `pattern.theta`, as they appear in a spec) if
    /// `n` is 0 or `theta` is negative or not finite.
    pub fn new(n: u64, theta: f64) -> Result<Zipf, WorkloadError> {
        if n == 0 {
            return Err(WorkloadError::new(
                "pattern.buckets",
                "must be at least 1, got 0",
            ));
        }
        if !(theta.is_finite() && theta >= 0.0) {
            return Err(WorkloadError::new(
                "pattern.theta",
                format!("must be finite and >= 0, got {theta}"),
            ));
        }
        let mut z = Zipf {
            n,
            theta,
            h_integral_x1: 0.0,
            h_integral_n: 0.0,
            s: 0.0,
        };
        z.h_integral_x1 = z.h_integral(1.5) - 1.0;
        z.h_integral_n = z.h_integral(n as f64 + 0.5);
        z.s = 2.0 - z.h_integral_inverse(z.h_integral(2.5) - z.h(2.0));
        Ok(z)
    }

    pub fn n(&self) -> u64 {
        self.n
    }

    pub fn theta(&self) -> f64 {
        self.theta
    }

    /// The probability of rank `k` (1-based), computed by summing `H(n, θ)`: O(n), for
    /// tests and reports, not for the sampling path.
    pub fn probability(&self, k: u64) -> f64 {
        if k == 0 || k > self.n {
            return 0.0;
        }
        let h: f64 = (1..=self.n).map(|i| (i as f64).powf(-self.theta)).sum();
        (k as f64).powf(-self.theta) / h
    }

    /// One rank in `1..=n`.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        loop {
            // u is uniform in (h_integral_x1, h_integral_n].
            let r: f64 = rng.gen();
            let u = self.h_integral_n + r * (self.h_integral_x1 - self.h_integral_n);
            let x = self.h_integral_inverse(u);
            // `as` saturates; x >= 1 up to rounding.
            let k = ((x + 0.5) as u64).clamp(1, self.n);
            let kf = k as f64;
            if kf - x <= self.s || u >= self.h_integral(kf + 0.5) - self.h(kf) {
                return k;
            }
        }
    }

    /// `∫_1^x t^-θ dt` shifted so that it is `(x^(1-θ) - 1) / (1-θ)` (or `ln x` at θ=1).
    fn h_integral(&self, x: f64) -> f64 {
        let log_x = x.ln();
        helper2((1.0 - self.theta) * log_x) * log_x
    }

    /// The hat function `x^-θ`.
    fn h(&self, x: f64) -> f64 {
        (-self.theta * x.ln()).exp()
    }

    fn h_integral_inverse(&self, x: f64) -> f64 {
        // Rounding can push t just below -1, where log1p is undefined.
        let t = (x * (1.0 - self.theta)).max(-1.0);
        (helper1(t) * x).exp()
    }
}

/// `ln(1 + x) / x`, accurate near 0.
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - x * 0.25))
    }
}

/// `(e^x - 1) / x`, accurate near 0.
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + x * 0.25))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn frequencies(n: u64, theta: f64, draws: usize) -> Vec<f64> {
        let z = Zipf::new(n, theta).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut counts = vec![0usize; n as usize + 1];
        for _ in 0..draws {
            let k = z.sample(&mut rng);
            assert!((1..=n).contains(&k));
            counts[k as usize] += 1;
        }
        counts.iter().map(|&c| c as f64 / draws as f64).collect()
    }

    #[test]
    fn matches_pmf_small_n() {
        for theta in [0.0, 0.5, 0.99, 1.0, 1.01, 2.0, 4.0] {
            let z = Zipf::new(5, theta).unwrap();
            let f = frequencies(5, theta, 200_000);
            for k in 1..=5u64 {
                let p = z.probability(k);
                assert!(
                    (f[k as usize] - p).abs() < 0.006,
                    "theta {theta} rank {k}: {} vs {p}",
                    f[k as usize]
                );
            }
        }
    }

    #[test]
    fn single_rank() {
        let z = Zipf::new(1, 0.9).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert!((0..1000).all(|_| z.sample(&mut rng) == 1));
    }

    #[test]
    fn extreme_parameters() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        // A huge exponent: everything on rank 1.
        let z = Zipf::new(1 << 24, 1e6).unwrap();
        assert!((0..1000).all(|_| z.sample(&mut rng) == 1));
        // Many ranks, θ = 0: uniform over all of them.
        let z = Zipf::new(1 << 24, 0.0).unwrap();
        let mean = (0..100_000).map(|_| z.sample(&mut rng) as f64).sum::<f64>() / 1e5;
        assert!((mean / (1u64 << 23) as f64 - 1.0).abs() < 0.02, "{mean}");
        // Near θ = 1 from both sides.
        for theta in [1.0 - 1e-9, 1.0 + 1e-9] {
            let z = Zipf::new(1000, theta).unwrap();
            assert!((0..10_000).all(|_| (1..=1000).contains(&z.sample(&mut rng))));
        }
    }

    #[test]
    fn rejects_bad_parameters() {
        assert_eq!(Zipf::new(0, 1.0).unwrap_err().field, "pattern.buckets");
        assert_eq!(Zipf::new(10, -0.1).unwrap_err().field, "pattern.theta");
        assert!(Zipf::new(10, f64::NAN).is_err());
    }
}
