//! A measured correction to a read's positioning time, by how far the head moves.
//!
//! The mechanistic model predicts a read's seek, head switch and rotation from the drive
//! file. What a drive's measurements show beyond it (a slower same-track access, a
//! faster head switch, a short seek that the extracted curve gets wrong) is fitted by
//! `spindle calibrate` as the mean difference per *positioning class* and kept here,
//! in the drive file, so the calibrated drive stays one ordinary drive that `run` and
//! `validate` both use. Empty (all zero) by default: the drive file as it is.
//!
//! The classes: the same track (no seek, no switch); another surface of the same
//! cylinder (a head switch); a seek of d ≥ 1 cylinders, binned by ⌊log₂ d⌋ (1, 2–3,
//! 4–7, …). The correction is added where a foreground read's positioning starts (after
//! its command overhead), so with the platter's phase unknown it shifts the read's mean
//! time by the correction; a negative one never starts positioning before the request
//! or the background work it stops. Schedulers' predictions do not include it.

use serde::{Deserialize, Serialize};

/// Largest size of one correction (ms): more is not a correction of the drive file.
pub const MAX_RESIDUAL_MS: f64 = 5.0;
/// Most seek-distance bins (⌊log₂ d⌋ = 0 … 31 covers every cylinder count).
pub const MAX_DISTANCE_BINS: usize = 32;

/// Per-class corrections (ms) to a foreground read's positioning.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositioningResidual {
    /// A read on the track the head is on.
    #[serde(default)]
    pub same_track_ms: f64,
    /// A read on another surface of the same cylinder.
    #[serde(default)]
    pub head_switch_ms: f64,
    /// A read `d` ≥ 1 cylinders away: entry ⌊log₂ d⌋ (missing entries are 0).
    #[serde(default)]
    pub seek_bins_ms: Vec<f64>,
}

/// Where a read's positioning goes, as a residual class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PositioningClass {
    SameTrack,
    HeadSwitch,
    /// A seek of d ≥ 1 cylinders: ⌊log₂ d⌋.
    Seek(u32),
}

impl PositioningClass {
    /// The class of a move from `from` to `to`, each (cylinder, head).
    pub fn of(from: (u32, u32), to: (u32, u32)) -> PositioningClass {
        let d = from.0.abs_diff(to.0);
        if d > 0 {
            PositioningClass::Seek(d.ilog2())
        } else if from.1 != to.1 {
            PositioningClass::HeadSwitch
        } else {
            PositioningClass::SameTrack
        }
    }
}

/// The seek distances (cylinders, inclusive) of seek bin `b`: 2^b … 2^(b+1) − 1.
pub fn seek_bin_cylinders(b: usize) -> (u64, u64) {
    let lo = 1u64 << b.min(63);
    (lo, lo.saturating_mul(2) - 1)
}

/// A seek bin's name for people: "seeks of 4–7 cylinders".
pub fn seek_bin_name(b: usize) -> String {
    match seek_bin_cylinders(b) {
        (1, 1) => "seeks of 1 cylinder".to_string(),
        (lo, hi) => format!("seeks of {lo}–{hi} cylinders"),
    }
}

impl PositioningResidual {
    /// The non-zero corrections, each with its class's name, in class order.
    pub fn named(&self) -> Vec<(String, f64)> {
        let mut out = vec![
            ("same track".to_string(), self.same_track_ms),
            ("head switch".to_string(), self.head_switch_ms),
        ];
        out.extend(
            self.seek_bins_ms
                .iter()
                .enumerate()
                .map(|(i, &v)| (seek_bin_name(i), v)),
        );
        out.retain(|(_, v)| *v != 0.0);
        out
    }

    /// True when every correction is zero (the drive file as extracted).
    pub fn is_none(&self) -> bool {
        self.same_track_ms == 0.0
            && self.head_switch_ms == 0.0
            && self.seek_bins_ms.iter().all(|&v| v == 0.0)
    }

    /// The correction (ms) for a read of class `c`.
    pub fn ms(&self, c: PositioningClass) -> f64 {
        match c {
            PositioningClass::SameTrack => self.same_track_ms,
            PositioningClass::HeadSwitch => self.head_switch_ms,
            PositioningClass::Seek(b) => self.seek_bins_ms.get(b as usize).copied().unwrap_or(0.0),
        }
    }

    /// Sets the correction for class `c` (growing the seek bins as needed).
    pub fn set(&mut self, c: PositioningClass, ms: f64) {
        match c {
            PositioningClass::SameTrack => self.same_track_ms = ms,
            PositioningClass::HeadSwitch => self.head_switch_ms = ms,
            PositioningClass::Seek(b) => {
                let b = b as usize;
                if self.seek_bins_ms.len() <= b {
                    self.seek_bins_ms.resize(b + 1, 0.0);
                }
                self.seek_bins_ms[b] = ms;
            }
        }
    }

    /// Checks every correction against its limit, naming the one that is not.
    pub fn validate(&self) -> Result<(), String> {
        if self.seek_bins_ms.len() > MAX_DISTANCE_BINS {
            return Err(format!(
                "[mech.read_residual] seek_bins_ms: {} bins; at most {MAX_DISTANCE_BINS}",
                self.seek_bins_ms.len()
            ));
        }
        let named = [
            ("same_track_ms".to_string(), self.same_track_ms),
            ("head_switch_ms".to_string(), self.head_switch_ms),
        ];
        let bins = self
            .seek_bins_ms
            .iter()
            .enumerate()
            .map(|(i, &v)| (format!("seek_bins_ms[{i}] ({})", seek_bin_name(i)), v));
        for (name, v) in named.into_iter().chain(bins) {
            if !(v.is_finite() && v.abs() <= MAX_RESIDUAL_MS) {
                return Err(format!(
                    "[mech.read_residual] {name} = {v} ms; expected a time within \
                     -{MAX_RESIDUAL_MS}..={MAX_RESIDUAL_MS} ms"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(cyl: u32, head: u32) -> (u32, u32) {
        (cyl, head)
    }

    #[test]
    fn classes_follow_the_distance() {
        use PositioningClass::*;
        assert_eq!(PositioningClass::of(at(5, 1), at(5, 1)), SameTrack);
        assert_eq!(PositioningClass::of(at(5, 1), at(5, 0)), HeadSwitch);
        assert_eq!(PositioningClass::of(at(5, 1), at(6, 1)), Seek(0));
        assert_eq!(PositioningClass::of(at(5, 1), at(8, 0)), Seek(1));
        assert_eq!(PositioningClass::of(at(9, 1), at(1, 0)), Seek(3));
    }

    #[test]
    fn set_and_read_back_and_limits() {
        let mut r = PositioningResidual::default();
        assert!(r.is_none());
        r.set(PositioningClass::Seek(3), 0.25);
        assert_eq!(r.ms(PositioningClass::Seek(3)), 0.25);
        assert_eq!(r.ms(PositioningClass::Seek(9)), 0.0);
        assert!(!r.is_none());
        assert!(r.validate().is_ok());
        r.set(PositioningClass::HeadSwitch, -6.0);
        assert!(r.validate().unwrap_err().contains("head_switch_ms"));
    }

    #[test]
    fn a_bad_seek_bin_is_named_with_its_cylinders() {
        let r = PositioningResidual {
            seek_bins_ms: vec![0.0, 0.0, 7.5],
            ..Default::default()
        };
        let e = r.validate().unwrap_err();
        assert!(
            e.contains("seek_bins_ms[2] (seeks of 4–7 cylinders)"),
            "{e}"
        );
        assert_eq!(seek_bin_cylinders(0), (1, 1));
        assert_eq!(seek_bin_name(0), "seeks of 1 cylinder");
        assert_eq!(r.named(), vec![("seeks of 4–7 cylinders".to_string(), 7.5)]);
    }
}
