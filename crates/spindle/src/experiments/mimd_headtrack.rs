//! MimdRAID's software head-position tracking (MIMD-EQ-HEAD, MIMD-HEADTRACK, §4.1): a
//! host-side predictor of the platter's angle that sees only the completion times of
//! its own reads of one reference sector, against a spindle whose speed is not the
//! nominal one and wanders; and what a tracker off by some degrees costs the replica
//! choice of a rotationally replicated array.
//!
//! The spindle model (the paper gives none; stated in the report):
//! - a constant speed offset of 0.5–1 % of nominal, random sign, per drive (the
//!   thesis, §2.2: "it may vary around 0.5 to 1 % of the nominal rate");
//! - a slow wander of the speed around that offset: a sinusoid of `wander` parts per
//!   million and a 10-minute period (temperature, servo); the experiment shows the
//!   result for several amplitudes, since the paper's accuracy bounds it;
//! - completion times seen by the host off by up to ±10 µs (uniform: bus and host
//!   timer), and the sector's own transfer.
//!
//! The tracker follows the paper's steps: (1) R from 200 back-to-back reads of the
//! reference sector (each completes one turn after the last); (2) t₀ = t₁ − O_s − R/B;
//! (3) angle(t) = 360 · frac((t − t₀)/R); (4) every 2 minutes it reads the sector again
//! and corrects R by the drift of the completion from its prediction over the
//! interval, then re-anchors t₀.

use super::Check;
use crate::report::{ExperimentOutput, Table};
use rand::{Rng, SeedableRng};
use std::f64::consts::TAU;

/// Nominal revolution of the paper's drive (10,025 rpm), s.
const NOMINAL_S: f64 = 60.0 / 10_025.0;
/// Sectors on the reference track (the outer zone of the Cheetah 9LP).
const SECTORS: f64 = 254.0;
/// SCSI command overhead the host assumes (and the drive has), s.
const OVERHEAD_S: f64 = 0.000_5;
/// Recalibration interval, s.
const INTERVAL_S: f64 = 120.0;
/// Largest error of a completion time the host reads, s.
const TIMER_NOISE_S: f64 = 10e-6;

/// A spindle whose speed is `offset` + a sinusoidal wander off nominal.
struct Spindle {
    offset: f64,
    wander: f64,
    wander_period_s: f64,
    phase: f64,
}

impl Spindle {
    /// Turns (fractional) made from time 0 to `t` (s): the integral of the speed.
    fn turns(&self, t: f64) -> f64 {
        let w = TAU / self.wander_period_s;
        let wander_int = self.wander * ((self.phase).cos() - (w * t + self.phase).cos()) / w;
        (t * (1.0 + self.offset) + wander_int) / NOMINAL_S
    }

    /// The first time ≥ `t` at which the reference sector's start is under the head
    /// (it is at angle 0), by bisection on the monotone turn count.
    fn next_pass(&self, t: f64) -> f64 {
        let target = self.turns(t).ceil();
        let (mut lo, mut hi) = (t, t + 2.0 * NOMINAL_S);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if self.turns(mid) < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    }

    /// When a read of the reference sector sent at `t` completes: the wait for the
    /// sector, its transfer, then the command overhead O_s (as the paper's Step 2
    /// counts it).
    fn read_reference(&self, t: f64) -> f64 {
        let start = self.next_pass(t);
        start
            + (self.turns(start + NOMINAL_S / SECTORS) - self.turns(start)) * NOMINAL_S
            + OVERHEAD_S
    }
}

/// The host's tracker: its revolution estimate and anchor.
struct Tracker {
    r: f64,
    t0: f64,
}

impl Tracker {
    /// The predicted angle (turns, 0..1) at `t`.
    fn angle(&self, t: f64) -> f64 {
        ((t - self.t0) / self.r).rem_euclid(1.0)
    }

    /// Step 2: t₀ = t₁ − O_s − R/B, when the reference sector's start passed the head.
    fn anchor(&mut self, t1: f64) {
        self.t0 = t1 - OVERHEAD_S - self.r / SECTORS;
    }
}

/// The largest angle error (degrees) in each recalibration interval after the
/// first, over `minutes` of tracking, for a spindle with `wander` ppm.
fn track(wander_ppm: f64, minutes: u32, seed: u64) -> Vec<f64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let sign = if rng.gen::<bool>() { 1.0 } else { -1.0 };
    let spindle = Spindle {
        offset: sign * rng.gen_range(0.005..0.01),
        wander: wander_ppm * 1e-6,
        wander_period_s: 600.0,
        phase: rng.gen_range(0.0..TAU),
    };
    let mut noise = |t: f64| t + rng.gen_range(-TIMER_NOISE_S..TIMER_NOISE_S);
    // Step 1: back-to-back reads, each sent as the last completes.
    let mut t = 0.0;
    let first = noise(spindle.read_reference(t));
    let mut last = first;
    let reads = 200;
    for _ in 1..reads {
        t = last;
        last = noise(spindle.read_reference(t));
    }
    let mut tr = Tracker {
        r: (last - first) / f64::from(reads - 1),
        t0: 0.0,
    };
    // Step 2.
    tr.anchor(last);
    let mut anchor_t1 = last;
    let mut worst = Vec::new();
    let end = f64::from(minutes) * 60.0;
    let mut start = last;
    while start + INTERVAL_S <= end {
        // Step 3 over the interval: sample the true angle 1,000 times.
        let mut w = 0.0f64;
        for k in 1..=1_000 {
            let at = start + INTERVAL_S * f64::from(k) / 1_000.0;
            let truth = spindle.turns(at).rem_euclid(1.0);
            let d = (tr.angle(at) - truth).rem_euclid(1.0);
            w = w.max(d.min(1.0 - d) * 360.0);
        }
        worst.push(w);
        // Step 4: read again; the completion's drift from the prediction over the
        // turns since the anchor corrects R, then re-anchor.
        let sent = start + INTERVAL_S;
        let t1 = noise(spindle.read_reference(sent));
        let turns = ((t1 - anchor_t1) / tr.r).round().max(1.0);
        tr.r = (t1 - anchor_t1) / turns;
        tr.anchor(t1);
        anchor_t1 = t1;
        start = t1;
    }
    worst
}

/// MIMD-HEADTRACK (and MIMD-EQ-HEAD's check): tracker accuracy, and the latency cost
/// of a tracker off by some degrees.
pub fn mimd_headtrack(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "MIMD-HEADTRACK",
        "Software head-position tracking: angle error over 2-minute recalibration intervals",
        format!(
            "A host tracker that sees only the completion times of its reads of one \
             reference sector predicts the platter's angle (§4.1, Steps 1–4: R from 200 \
             back-to-back reads, t₀ = t₁ − O_s − R/B, angle = 360·frac((t − t₀)/R), a \
             recalibration every 2 minutes that corrects R by the completion's drift from \
             its prediction). The spindle it tracks turns 0.5–1 % off nominal (random sign; \
             the thesis's figure), its speed wanders around that by a sinusoid of A parts \
             per million with a 10-minute period, and the host reads completion times to \
             ±{:.0} µs. The paper states no drift model, so the wander is swept: A = 0, \
             0.1, 0.5, 1 and 5 ppm. The error is sampled 1,000 times per interval against \
             the spindle's true angle; the first interval (R from Step 1 alone) is shown \
             apart. The check uses A = 0.1 ppm, a crystal-referenced spindle servo's \
             stability (our assumption, stated: the paper's 1 % over 2 minutes is only \
             possible if the speed holds to about half a ppm). Below, the latency cost of \
             a tracker off by a fixed angle, measured on the drive model: random \
             single-sector reads on one st34502lw with 6 even rotational replicas \
             (Figure 8's curve 2) and on an intra-disk 2×2 array, the replica chosen by a \
             prediction off by that many degrees.",
            TIMER_NOISE_S * 1e6
        ),
        seed,
    );
    let minutes = if quick { 30 } else { 240 };
    let seeds: Vec<u64> = (0..if quick { 4 } else { 16 })
        .map(|k| seed ^ (k << 32))
        .collect();
    let mut t = Table::new(&[
        "wander A (ppm)",
        "first interval, max error (°)",
        "later intervals, max error (°)",
        "later intervals, mean of maxima (°)",
    ]);
    let mut checked = f64::NAN;
    for wander in [0.0, 0.1, 0.5, 1.0, 5.0] {
        let (mut first, mut later, mut sum, mut n) = (0.0f64, 0.0f64, 0.0, 0usize);
        for &s in &seeds {
            let w = track(wander, minutes, s);
            if let Some((f, rest)) = w.split_first() {
                first = first.max(*f);
                for &x in rest {
                    later = later.max(x);
                    sum += x;
                    n += 1;
                }
            }
        }
        if wander == 0.1 {
            checked = later;
        }
        t.rows.push(vec![
            format!("{wander}"),
            format!("{first:.2}"),
            format!("{later:.2}"),
            format!("{:.2}", sum / n.max(1) as f64),
        ]);
    }
    out.tables.push(t);
    out.checks.push(Check::below(
        "MIMD-HEADTRACK",
        "largest angle error over a 2-minute interval after the first, wander 0.1 ppm, degrees",
        3.6,
        checked,
    ));
    out.checks.push(
        Check::below(
            "MIMD-EQ-HEAD",
            "Steps 1–4 on a spindle 0.5–1 % off nominal (wander 0.1 ppm): largest error, degrees",
            3.6,
            checked,
        )
        .consistency(
            "The same runs and the same number as MIMD-HEADTRACK's angle-error check; \
             counted once, as that check.",
        ),
    );

    // The latency cost of a tracker off by a fixed angle.
    let n = if quick { 2_000 } else { 20_000 };
    let mut cost = Table::new(&["stack", "tracker error (°)", "mean latency ms", "cost ms"]);
    let mut ten = Vec::new();
    for (name, dev) in [
        (
            "one drive, 6 even rotational replicas",
            "kind = \"intra\"\ncount = 1\nsplit = 1\nrotational = 6\nform = \"prototype\"",
        ),
        (
            "intra-disk 2x2",
            "kind = \"intra\"\ncount = 4\nsplit = 2\nrotational = 2\nform = \"prototype\"",
        ),
    ] {
        let mut base = f64::NAN;
        for deg in [0.0, 3.6, 10.0, 30.0] {
            let m = super::mimd_stack::random_reads(
                &format!("{dev}\nprediction-error-deg = {deg}"),
                n,
                seed,
            )?;
            if deg == 0.0 {
                base = m.mean_ms;
            }
            if deg == 10.0 {
                ten.push(m.mean_ms - base);
            }
            cost.rows.push(vec![
                name.into(),
                format!("{deg}"),
                format!("{:.3}", m.mean_ms),
                format!("{:+.3}", m.mean_ms - base),
            ]);
        }
    }
    out.tables.push(cost);
    out.checks.push(Check::holds(
        "MIMD-HEADTRACK",
        "a tracker off by 10° visibly costs latency on both stacks (more than 0.05 ms)",
        ten.iter().all(|&c| c > 0.05),
    ));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a steady spindle only the timer's ±10 µs is left: the anchor is off by up
    /// to 10 µs (0.6°) and R by up to 20 µs over the last interval's turns, which
    /// adds up to 20 µs (1.2°) over the next: under 2° in all.
    #[test]
    fn a_steady_spindle_is_tracked_within_two_degrees_for_any_seed() {
        for seed in 1..=6 {
            let w = track(0.0, 12, seed);
            assert!(w.len() >= 4);
            for x in &w[1..] {
                assert!(*x < 2.0, "seed {seed}: {w:?}");
            }
        }
    }

    #[test]
    fn a_wandering_spindle_defeats_a_two_minute_interval() {
        let w = track(50.0, 12, 3);
        assert!(w[1..].iter().any(|&x| x > 3.6), "{w:?}");
    }
}
