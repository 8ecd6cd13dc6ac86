//! A measured correction to the time of a request the drive serves from its buffer.
//!
//! A read found in the buffer and a write the drive buffers never touch the media, so
//! their measured times do not depend on where the platter was: request by request,
//! measured minus simulated is the model's error, even where a trace does not pin the
//! platter's phase. Real firmware shows structure the drive file's constant overheads
//! cannot: the Cheetah 9LP serves a read that continues the previous request in
//! 0.49 ms most of the time and 0.67 ms otherwise, and every other buffered read in
//! 0.67 ms. So the correction is a distribution, not a constant: per class (read or
//! write, continuing the previous request or not), a list of equally likely values
//! (ms), of which the drive adds one, drawn from its own seeded RNG, to each such
//! request's completion. `spindle calibrate` fits the lists
//! ([`crate::validate::phase::fit_buffer_residual`]). Empty by default: the drive file
//! as it is, and no draw is made.

use serde::{Deserialize, Serialize};

/// Most values one class's distribution may hold.
pub const MAX_BUFFER_RESIDUAL_VALUES: usize = 64;
/// Largest size of one value (ms): more is a media access, not a correction.
pub const MAX_BUFFER_RESIDUAL_MS: f64 = 2.0;

/// Which requests share a distribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BufferClass {
    /// A read served from the buffer that starts where the previous request ended.
    ReadSequential,
    ReadOther,
    /// A buffered write that starts where the previous request ended.
    WriteSequential,
    WriteOther,
}

impl BufferClass {
    pub const ALL: [BufferClass; 4] = [
        BufferClass::ReadSequential,
        BufferClass::ReadOther,
        BufferClass::WriteSequential,
        BufferClass::WriteOther,
    ];

    pub fn of(write: bool, sequential: bool) -> BufferClass {
        match (write, sequential) {
            (false, true) => BufferClass::ReadSequential,
            (false, false) => BufferClass::ReadOther,
            (true, true) => BufferClass::WriteSequential,
            (true, false) => BufferClass::WriteOther,
        }
    }

    /// The class's key in a drive file's `[cache.buffer_residual]`.
    pub fn key(self) -> &'static str {
        match self {
            BufferClass::ReadSequential => "read_sequential_ms",
            BufferClass::ReadOther => "read_other_ms",
            BufferClass::WriteSequential => "write_sequential_ms",
            BufferClass::WriteOther => "write_other_ms",
        }
    }

    /// The class for people.
    pub fn describe(self) -> &'static str {
        match self {
            BufferClass::ReadSequential => "buffered reads continuing the previous request",
            BufferClass::ReadOther => "other buffered reads",
            BufferClass::WriteSequential => "buffered writes continuing the previous request",
            BufferClass::WriteOther => "other buffered writes",
        }
    }
}

/// Per-class distributions (ms) of the correction to a buffered request's time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferResidual {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_sequential_ms: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_other_ms: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_sequential_ms: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write_other_ms: Vec<f64>,
    /// Seeds the drive's draws; the same seed gives the same draws, run after run.
    #[serde(default)]
    pub seed: u64,
}

impl BufferResidual {
    /// True when no class has a distribution (the drive file as extracted).
    pub fn is_none(&self) -> bool {
        BufferClass::ALL.iter().all(|&c| self.values(c).is_empty())
    }

    /// The equally likely corrections (ms) of class `c`; empty: none.
    pub fn values(&self, c: BufferClass) -> &[f64] {
        match c {
            BufferClass::ReadSequential => &self.read_sequential_ms,
            BufferClass::ReadOther => &self.read_other_ms,
            BufferClass::WriteSequential => &self.write_sequential_ms,
            BufferClass::WriteOther => &self.write_other_ms,
        }
    }

    pub fn set(&mut self, c: BufferClass, values: Vec<f64>) {
        let slot = match c {
            BufferClass::ReadSequential => &mut self.read_sequential_ms,
            BufferClass::ReadOther => &mut self.read_other_ms,
            BufferClass::WriteSequential => &mut self.write_sequential_ms,
            BufferClass::WriteOther => &mut self.write_other_ms,
        };
        *slot = values;
    }

    /// The value at probability `p` (0 < p < 1) of class `c`'s distribution, for a
    /// deterministic quadrature of it; 0 without one.
    pub fn quantile(&self, c: BufferClass, p: f64) -> f64 {
        let v = self.values(c);
        if v.is_empty() {
            return 0.0;
        }
        let mut sorted = v.to_vec();
        sorted.sort_by(f64::total_cmp);
        let i = ((p * v.len() as f64) as usize).min(v.len() - 1);
        sorted[i]
    }

    /// Each class with a distribution, for people: its description and a summary
    /// (mean, range, how many values).
    pub fn named(&self) -> Vec<(&'static str, String)> {
        BufferClass::ALL
            .iter()
            .filter(|&&c| !self.values(c).is_empty())
            .map(|&c| {
                let v = self.values(c);
                let mean = v.iter().sum::<f64>() / v.len() as f64;
                let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let summary = format!(
                    "mean {mean:+.3} ms ({lo:+.3} to {hi:+.3}, {} values)",
                    v.len()
                );
                (c.describe(), summary)
            })
            .collect()
    }

    /// Checks every list against its limits, naming the one that is not.
    pub fn validate(&self) -> Result<(), String> {
        for c in BufferClass::ALL {
            let v = self.values(c);
            if v.len() > MAX_BUFFER_RESIDUAL_VALUES {
                return Err(format!(
                    "[cache.buffer_residual] {}: {} values; at most {MAX_BUFFER_RESIDUAL_VALUES}",
                    c.key(),
                    v.len()
                ));
            }
            if let Some((i, x)) = v
                .iter()
                .enumerate()
                .find(|(_, x)| !(x.is_finite() && x.abs() <= MAX_BUFFER_RESIDUAL_MS))
            {
                return Err(format!(
                    "[cache.buffer_residual] {}[{i}] = {x} ms; expected a time within \
                     -{MAX_BUFFER_RESIDUAL_MS}..={MAX_BUFFER_RESIDUAL_MS} ms",
                    c.key()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::hdd::{Hdd, Request};
    use crate::disk::presets;
    use crate::time::SimTime;

    /// Completion times (ns after each start) of a miss, a read continuing it, a read
    /// back at its start and a write, each 50 ms after the previous completion.
    fn times(residual: BufferResidual) -> (Vec<u64>, Vec<Option<BufferClass>>) {
        let mut p = presets::disksim_preset("cheetah9LP").expect("preset");
        p.cache.buffer_residual = residual;
        let mut h = Hdd::new(p).expect("drive");
        let mut t = SimTime::ZERO;
        let (mut out, mut classes) = (Vec::new(), Vec::new());
        for (i, (lbn, write)) in [(1000, false), (1004, false), (1000, false), (9000, true)]
            .into_iter()
            .enumerate()
        {
            let req = Request {
                id: i as u64,
                lbn,
                blocks: 4,
                write,
            };
            let c = h.service(t, req);
            out.push(c.done.0 - t.0);
            classes.push(h.last_buffered().map(|b| b.0));
            t = c.done + SimTime::from_us(50_000.0).0;
        }
        (out, classes)
    }

    #[test]
    fn the_drive_adds_a_drawn_correction_to_buffered_requests_only() {
        let (plain, classes) = times(BufferResidual::default());
        use BufferClass::*;
        assert_eq!(
            classes,
            vec![
                None,
                Some(ReadSequential),
                Some(ReadOther),
                Some(WriteOther)
            ]
        );
        let residual = BufferResidual {
            read_sequential_ms: vec![0.5],
            read_other_ms: vec![1.0],
            write_other_ms: vec![0.25, 0.25],
            ..BufferResidual::default()
        };
        let (moved, _) = times(residual.clone());
        assert_eq!(moved[0], plain[0], "a media read draws nothing");
        assert_eq!(moved[1], plain[1] + 500_000);
        assert_eq!(moved[2], plain[2] + 1_000_000);
        assert_eq!(moved[3], plain[3] + 250_000);
        // A correction never puts the completion before the request started.
        let (early, _) = times(BufferResidual {
            read_other_ms: vec![-2.0],
            ..residual
        });
        assert!(early[2] < plain[2] && early[2] < u64::MAX / 2, "{early:?}");
    }

    #[test]
    fn the_same_seed_draws_the_same_values() {
        let spread = |seed| {
            times(BufferResidual {
                read_sequential_ms: (0..8).map(|i| i as f64 * 0.1).collect(),
                read_other_ms: (0..8).map(|i| i as f64 * 0.1).collect(),
                write_other_ms: (0..8).map(|i| i as f64 * 0.1).collect(),
                seed,
                ..BufferResidual::default()
            })
            .0
        };
        assert_eq!(spread(3), spread(3));
        assert!((0..20).any(|s| spread(s) != spread(3)));
    }

    #[test]
    fn classes_values_quantiles_and_limits() {
        let mut r = BufferResidual::default();
        assert!(r.is_none());
        assert_eq!(r.quantile(BufferClass::ReadOther, 0.5), 0.0);
        r.set(BufferClass::ReadSequential, vec![0.18, 0.0, 0.0, 0.0]);
        assert!(!r.is_none());
        assert_eq!(r.quantile(BufferClass::ReadSequential, 0.1), 0.0);
        assert_eq!(r.quantile(BufferClass::ReadSequential, 0.9), 0.18);
        assert!(r.validate().is_ok());
        r.set(BufferClass::WriteOther, vec![0.1, 3.0]);
        let e = r.validate().unwrap_err();
        assert!(e.contains("write_other_ms[1] = 3 ms"), "{e}");
        r.set(
            BufferClass::WriteOther,
            vec![0.0; MAX_BUFFER_RESIDUAL_VALUES + 1],
        );
        assert!(r.validate().unwrap_err().contains("65 values"));
        assert_eq!(BufferClass::of(true, false), BufferClass::WriteOther);
        let named = r.named();
        assert_eq!(named.len(), 2);
        assert_eq!(named[0].0, "buffered reads continuing the previous request");
        assert!(
            named[0]
                .1
                .starts_with("mean +0.045 ms (+0.000 to +0.180, 4 values)"),
            "{named:?}"
        );
    }
}
