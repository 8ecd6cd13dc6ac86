//! Rotation period and sectors per track from timing alone, for head tracking: what a
//! host can learn of a disk's rotation through the request interface
//! ([`ProbeDevice`]), simulated or real.
//!
//! * **Period.** One sector is reread back to back, each read issued when the last
//!   completes. On a rotating disk whose read cache is off, each reread must wait for
//!   the sector to come round again, so completions are one revolution apart: the
//!   period is the modal interval (the median of the intervals within 0.5 % of the
//!   most crowded one). If the modal interval is shorter than
//!   [`MIN_PERIOD_NS`] (faster than any disk turns), rereads were served by a cache: a
//!   drive's read cache, a solid-state device, or a file system; if it is longer than
//!   [`MAX_PERIOD_NS`], or fewer than half the intervals are near it, there is no
//!   rotation to see. Either way no rotation is reported, with the reason.
//! * **Sectors per track.** With the period `T` known, a read of sector `y` followed
//!   back to back by one of `y + k` completes `k` sector times after it, plus whole
//!   revolutions: `(interval mod T) = k · T / spt` while `y + k` is on `y`'s track.
//!   Pairs at random `y` in the probed region give `k = 1` first (the median, since a
//!   few pairs straddle a track boundary), a rough `spt`, then `k` of a quarter track
//!   for a precise one, `spt = k · T / median(interval mod T)`, rounded.
//!
//! On a real disk the read cache must be off for this (`sdparm --set RCD=1`, where the
//! drive allows it); a simulated disk is probed with its cache turned off.

use super::ProbeDevice;
use crate::disk::hdd::Request;
use crate::time::SimTime;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Shortest revolution believed, ns (60,000 rpm).
pub const MIN_PERIOD_NS: f64 = 1e6;
/// Longest revolution believed, ns (600 rpm).
pub const MAX_PERIOD_NS: f64 = 1e8;
/// Most rereads or pairs one estimate issues.
pub const MAX_SAMPLES: u32 = 100_000;

/// What the estimator found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rotation {
    /// LBNs the probes touched: `first..=last`.
    pub first_lbn: u64,
    pub last_lbn: u64,
    pub rereads: u32,
    /// The modal reread interval, ns.
    pub modal_interval_ns: f64,
    /// Fraction of the intervals within 0.5 % of the modal one.
    pub modal_share: f64,
    /// Revolution time, ns, and the speed, if a rotation was found.
    pub period_ns: Option<f64>,
    pub rpm: Option<f64>,
    /// Sectors per track in the probed region, if found.
    pub sectors_per_track: Option<u32>,
    /// Why no rotation (or no sectors per track) was found.
    pub note: Option<String>,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        0.0
    } else {
        v[v.len() / 2]
    }
}

/// The modal interval (the median of the largest cluster of intervals within 0.5 %
/// of one another) and the cluster's share of all intervals.
pub fn modal_interval(intervals: &[f64]) -> (f64, f64) {
    let mut s = intervals.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let (mut best, mut best_at) = (0usize, 0usize);
    let mut hi = 0;
    for lo in 0..s.len() {
        hi = hi.max(lo);
        while hi + 1 < s.len() && s[hi + 1] <= s[lo] * 1.005 + 1.0 {
            hi += 1;
        }
        if hi + 1 - lo > best {
            best = hi + 1 - lo;
            best_at = lo;
        }
    }
    if best == 0 {
        return (0.0, 0.0);
    }
    let mut cluster = s[best_at..best_at + best].to_vec();
    (median(&mut cluster), best as f64 / s.len() as f64)
}

/// Sectors probed when no span is given.
pub const DEFAULT_SPAN: u64 = 20_000;

/// Estimates the rotation of `dev` from `samples` rereads and `samples` pairs per
/// stage, in the region of `span` sectors from `at` (default: [`DEFAULT_SPAN`], or to
/// the end of the device if fewer remain; a span that does not fit is refused).
pub fn estimate(
    dev: &mut dyn ProbeDevice,
    at: u64,
    span: Option<u64>,
    samples: u32,
    seed: u64,
) -> Result<Rotation, String> {
    if !(8..=MAX_SAMPLES).contains(&samples) {
        return Err(format!(
            "samples must be within 8..={MAX_SAMPLES}, got {samples}"
        ));
    }
    let cap = dev.capacity();
    if at >= cap {
        return Err(format!("LBN {at} lies beyond the device's {cap} sectors"));
    }
    // Sectors per track are found from pairs of reads a distance apart: at least 2.
    if cap - at < 2 {
        return Err(format!(
            "LBN {at} leaves {} sector before the device's end; probing needs at least 2",
            cap - at
        ));
    }
    // The default region: DEFAULT_SPAN sectors, or to the end of the device if fewer
    // remain. A span given is checked, never cut short.
    let span = span.unwrap_or(DEFAULT_SPAN.min(cap - at));
    if span < 2 || span > cap - at {
        return Err(format!(
            "span must be within 2..={} (the sectors from LBN {at} to the end of the device; pairs of reads a distance apart need 2 at least), got {span}",
            cap - at
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let read = |lbn: u64| Request {
        id: 0,
        lbn,
        blocks: 1,
        write: false,
    };
    // Period: back-to-back rereads of one sector in the middle of the region.
    let y = at + span / 2;
    let mut t = dev.access(SimTime::ZERO, read(y));
    let mut intervals = Vec::with_capacity(samples as usize);
    for _ in 0..samples {
        let next = dev.access(t, read(y));
        intervals.push(next.0.saturating_sub(t.0) as f64);
        t = next;
    }
    let (modal, share) = modal_interval(&intervals);
    let mut r = Rotation {
        first_lbn: at,
        last_lbn: at + span - 1,
        rereads: samples,
        modal_interval_ns: modal,
        modal_share: share,
        period_ns: None,
        rpm: None,
        sectors_per_track: None,
        note: None,
    };
    if modal < MIN_PERIOD_NS {
        r.note = Some(format!(
            "no rotation found: rereads of one sector took {:.1} µs (modal), faster than any disk turns (a revolution takes at least {:.0} ms): they were served by a cache — a drive's read cache, a solid-state device or a file system",
            modal / 1e3,
            MIN_PERIOD_NS / 1e6
        ));
        return Ok(r);
    }
    if modal > MAX_PERIOD_NS || share < 0.5 {
        r.note = Some(format!(
            "no rotation found: the modal reread interval, {:.3} ms, holds {:.0} % of the intervals (a rotation puts most of them within 0.5 % of one revolution of {:.0}–{:.0} ms)",
            modal / 1e6,
            share * 100.0,
            MIN_PERIOD_NS / 1e6,
            MAX_PERIOD_NS / 1e6
        ));
        return Ok(r);
    }
    let period = modal;
    r.period_ns = Some(period);
    r.rpm = Some(60e9 / period);
    // Sectors per track: pairs (y, y + k) back to back.
    let mut pairs = |k: u64, t: &mut SimTime| -> f64 {
        let mut phases = Vec::with_capacity(samples as usize);
        if span <= k {
            return 0.0;
        }
        for _ in 0..samples {
            let y = at + rng.gen_range(0..span - k);
            let t1 = dev.access(*t, read(y));
            let t2 = dev.access(t1, read(y + k));
            phases.push((t2.0.saturating_sub(t1.0) as f64).rem_euclid(period));
            *t = t2;
        }
        median(&mut phases)
    };
    let sector = pairs(1, &mut t);
    if sector <= 0.0 || sector >= period / 2.0 {
        r.note = Some(format!(
            "sectors per track not found: a read of the next sector completed {:.1} µs (modulo a revolution) after the previous one",
            sector / 1e3
        ));
        return Ok(r);
    }
    let k = ((period / sector / 4.0).floor() as u64).max(1);
    let phase = pairs(k, &mut t);
    if phase <= 0.0 {
        r.note = Some("sectors per track not found: no phase between sectors".into());
        return Ok(r);
    }
    r.sectors_per_track = Some((k as f64 * period / phase).round() as u32);
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::hdd::Hdd;
    use crate::disk::presets::preset;

    /// A preset with its cache off (as the estimator needs).
    fn uncached(name: &str) -> Hdd {
        let mut p = preset(name).unwrap();
        p.cache.enabled = false;
        Hdd::new(p).unwrap()
    }

    #[test]
    fn recovers_the_presets_rotation_and_sectors_per_track() {
        let mut spt_checked = 0;
        for name in [
            "hp-c2249a",
            "mimic-base",
            "cheetah15k5",
            "cheetah9lp",
            "atlas10k",
        ] {
            for seed in [1u64, 2, 3] {
                let mut h = uncached(name);
                let cap = h.capacity();
                // A region inside one zone: from a tenth of the disk.
                let at = cap / 10;
                let want_period = h.period_ns();
                let want_spt = h.locate(at).unwrap().spt;
                let r = estimate(&mut h, at, Some(20_000), 200, seed).unwrap();
                let got = r.period_ns.unwrap_or_else(|| panic!("{name}: {r:?}"));
                assert!(
                    (got - want_period).abs() <= want_period * 1e-3,
                    "{name} seed {seed}: period {got} vs {want_period}"
                );
                let same_zone =
                    h.locate(r.first_lbn).unwrap().zone == h.locate(r.last_lbn).unwrap().zone;
                if same_zone {
                    assert_eq!(
                        r.sectors_per_track,
                        Some(want_spt),
                        "{name} seed {seed}: {r:?}"
                    );
                    spt_checked += 1;
                }
            }
        }
        assert!(
            spt_checked >= 12,
            "only {spt_checked} regions within one zone"
        );
    }

    /// A device that answers every read in a fixed time (a cache, an SSD, a file).
    struct Flat(u64);
    impl ProbeDevice for Flat {
        fn access(&mut self, at: SimTime, _req: Request) -> SimTime {
            SimTime(at.0 + self.0)
        }
        fn capacity(&self) -> u64 {
            1 << 20
        }
    }

    #[test]
    fn no_rotation_on_a_flat_device() {
        let r = estimate(&mut Flat(80_000), 0, Some(1000), 50, 1).unwrap();
        assert_eq!(r.period_ns, None);
        assert!(r.note.unwrap().contains("no rotation found"));
        // The simulated disk with its cache on: rereads are cache hits.
        let mut h = Hdd::new(preset("cheetah15k5").unwrap()).unwrap();
        if h.params().cache.enabled {
            let r = estimate(&mut h, 1000, Some(1000), 50, 1).unwrap();
            assert_eq!(r.period_ns, None, "{r:?}");
        }
        assert!(estimate(&mut Flat(1), 0, Some(10), 7, 1).is_err());
        assert!(estimate(&mut Flat(1), 1 << 20, Some(10), 50, 1).is_err());
    }

    #[test]
    fn modal_interval_picks_the_crowd() {
        let v = [5.0, 8_000_000.0, 8_000_010.0, 7_999_990.0, 16_000_000.0];
        let (m, share) = modal_interval(&v);
        assert_eq!(m, 8_000_000.0);
        assert_eq!(share, 0.6);
    }
}
