//! Optional spindle-speed variation.
//!
//! Real spindles wander around their nominal speed by ~0.5–1 % (thesis §2.2). We model
//! a slow sinusoidal drift, speed(t) = 1 + ε·sin(2πt/T + φ), whose integral has a
//! closed form, so the platter angle stays a pure function of absolute time:
//! angle(t) = t + (ε·T/2π)·(cos φ − cos(2πt/T + φ)), in nominal-time units. The phase φ
//! comes from a seeded RNG, so runs are reproducible.

use crate::time::SimTime;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[derive(Clone, Debug)]
pub struct SpeedDrift {
    eps: f64,
    /// Radians per picosecond.
    omega: f64,
    phase: f64,
}

impl SpeedDrift {
    /// `None` when there is no variation (the exact integer path is used then).
    pub fn new(pct: f64, period_s: f64, seed: u64, _period_ps: u64) -> Option<SpeedDrift> {
        if pct == 0.0 {
            return None;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        Some(SpeedDrift {
            eps: pct / 100.0,
            omega: 2.0 * std::f64::consts::PI / (period_s * 1e12),
            phase: rng.gen_range(0.0..2.0 * std::f64::consts::PI),
        })
    }

    fn t_ps(t: SimTime) -> f64 {
        t.0 as f64 * 1000.0
    }

    /// Angle (in nominal picoseconds of rotation) gained or lost by `t` relative to a
    /// constant-speed spindle.
    pub fn extra_angle_ps(&self, t: SimTime) -> f64 {
        let x = self.omega * Self::t_ps(t) + self.phase;
        self.eps / self.omega * (self.phase.cos() - x.cos())
    }

    /// Time per unit of nominal angle at `t` (1 / relative speed).
    pub fn time_per_angle(&self, t: SimTime) -> f64 {
        1.0 / (1.0 + self.eps * (self.omega * Self::t_ps(t) + self.phase).sin())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_is_the_integral_of_speed() {
        let d = SpeedDrift::new(1.0, 60.0, 3, 0).unwrap();
        // Numerically differentiate the extra angle: it must equal speed − 1.
        for s in [0.5, 7.0, 31.0] {
            let t = SimTime((s * 1e9) as u64);
            let h = 1_000_000u64; // 1 ms
            let a = d.extra_angle_ps(t);
            let b = d.extra_angle_ps(SimTime(t.0 + h));
            let speed = 1.0 + (b - a) / (h as f64 * 1000.0);
            assert!((speed - 1.0 / d.time_per_angle(t)).abs() < 1e-6);
            assert!((speed - 1.0).abs() <= 0.01 + 1e-9);
        }
    }

    #[test]
    fn no_variation_means_no_drift_model() {
        assert!(SpeedDrift::new(0.0, 60.0, 1, 0).is_none());
    }
}
