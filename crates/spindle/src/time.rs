//! Simulated time: integer nanoseconds.

use serde::{Deserialize, Serialize};

/// A point in simulated time, in nanoseconds since the start of the simulation.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);

    /// Converts milliseconds (as found in parameter files and traces) to simulated time,
    /// rounding to the nearest nanosecond.
    pub fn from_ms(ms: f64) -> SimTime {
        SimTime(ms_to_ns(ms))
    }

    pub fn from_us(us: f64) -> SimTime {
        SimTime((us * 1e3).round().max(0.0) as u64)
    }

    pub fn as_ms(self) -> f64 {
        self.0 as f64 / 1e6
    }

    pub fn ns(self) -> u64 {
        self.0
    }

    pub fn saturating_sub(self, other: SimTime) -> u64 {
        self.0.saturating_sub(other.0)
    }
}

impl std::ops::Add<u64> for SimTime {
    type Output = SimTime;
    fn add(self, ns: u64) -> SimTime {
        SimTime(self.0 + ns)
    }
}

impl std::ops::AddAssign<u64> for SimTime {
    fn add_assign(&mut self, ns: u64) {
        self.0 += ns;
    }
}

impl std::fmt::Display for SimTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.3} ms", self.as_ms())
    }
}

/// Milliseconds to nanoseconds, rounded, clamped at zero.
pub fn ms_to_ns(ms: f64) -> u64 {
    (ms * 1e6).round().max(0.0) as u64
}

/// Signed milliseconds to nanoseconds (write-settle may be negative).
pub fn ms_to_ns_signed(ms: f64) -> i64 {
    (ms * 1e6).round() as i64
}

pub fn ns_to_ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}
