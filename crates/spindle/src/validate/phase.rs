//! Validation when a trace does not pin down where the platter was.
//!
//! A closed-loop replay puts each request's target at the angle the model's own timing
//! gives. On a real drive that angle follows from the real timing, which differs from
//! the model's by tens of microseconds per request; after ~40 ms of idle time the two
//! are unrelated unless the drive's timing is very regular. [`phase_alignment`] measures
//! this on the measurements themselves: the share of media reads whose measured time is
//! within ±0.2 ms of the simulated one modulo a revolution (chance: 0.4 ms over the
//! revolution, 4–7 %). Where the phase is not pinned, a read's rotational wait on the real
//! drive is as good as uniform over a revolution, and the model's best prediction of the
//! response-time distribution averages over it: [`replay_phase_averaged`] replaces each
//! media access's first rotational wait by [`PHASES`] evenly spaced waits across a
//! revolution (a deterministic quadrature of the uniform wait: no random draw, so the
//! same drive always scores the same).
//!
//! The same view gives the measured correction per positioning class
//! ([`fit_read_residual`]): with the wait averaged out, what remains of the difference
//! between measured and simulated time of a class's media reads is the model's error
//! for that class.

use super::trace::ValidateRecord;
use crate::disk::buffer_residual::{BufferClass, BufferResidual, MAX_BUFFER_RESIDUAL_MS};
use crate::disk::hdd::{Hdd, Request};
use crate::disk::residual::{PositioningClass, PositioningResidual};
use crate::time::SimTime;

/// Rotational waits per media access in a phase-averaged prediction.
pub const PHASES: usize = 8;
/// Half-width (ms) of "lines up with the model's phase".
pub const ALIGNED_WITHIN_MS: f64 = 0.2;
/// A trace pins the platter's phase when at least this share of its media reads line
/// up with the model's (the four DiskSim drives: 5–9 % or above 80 %).
pub const PINNED_SHARE: f64 = 0.5;
/// Pseudo-requests of zero correction each class's mean is shrunk with: a class seen
/// 30 times gets half its mean.
pub const RESIDUAL_PRIOR_REQUESTS: f64 = 30.0;
/// Values in a fitted buffer residual's distribution: one per phase, so the
/// phase-averaged prediction takes each once.
pub const BUFFER_RESIDUAL_VALUES: usize = PHASES;
/// Fewest requests a buffer class needs before its distribution is fitted.
pub const BUFFER_RESIDUAL_MIN_REQUESTS: usize = 30;
/// A request the model serves from its buffer whose measured time is this far (ms)
/// or more from the simulated one did not come from the real drive's buffer (or came
/// from somewhere else in it): left out of the fit.
pub const BUFFER_MATCH_MS: f64 = 1.0;

/// One replayed request: what the drive did and where its read went.
struct Replayed {
    response_ms: f64,
    /// The media read's positioning class as the drive saw it; `None`: no media read.
    class: Option<PositioningClass>,
    /// The media read's rotational wait on its first track, ms (0 without one).
    first_wait_ms: f64,
    /// A request served from the buffer: its class and the correction it drew (ms).
    buffer: Option<(BufferClass, f64)>,
}

/// Closed-loop replay (as [`super::replay::replay`]), keeping each completion and the
/// positioning class of each request.
fn replay_detailed(hdd: &mut Hdd, trace: &[ValidateRecord]) -> Vec<Replayed> {
    let mut out = Vec::with_capacity(trace.len());
    let mut t = SimTime::ZERO;
    for (i, r) in trace.iter().enumerate() {
        let c = hdd.service(
            t,
            Request {
                id: i as u64,
                lbn: r.lbn,
                blocks: r.blocks,
                write: r.write,
            },
        );
        out.push(Replayed {
            response_ms: (c.done.0 - t.0) as f64 / 1e6,
            class: hdd.last_read_class(),
            first_wait_ms: hdd.last_read_first_wait_ns().unwrap_or(0) as f64 / 1e6,
            buffer: hdd.last_buffered(),
        });
        t = c.done + SimTime::from_us(r.think_us).0;
    }
    out
}

/// A media read's first rotational wait (ms): its rotation on its first track, at most
/// one revolution. A read of several tracks also waits at later tracks, but there the
/// skew, not the platter's phase, fixes the wait, so those waits stay as simulated.
fn first_wait_ms(r: &Replayed, rev_ms: f64) -> f64 {
    r.first_wait_ms.min(rev_ms)
}

/// The phase-averaged prediction: [`PHASES`] times per request (a request without a
/// media read, such as a hit, a read riding the read-ahead or a buffered write, its own
/// time each time, or where the drive has a buffer residual for it, its time with each
/// of PHASES evenly spaced quantiles of that residual in place of the one drawn; a
/// media read's time with its first wait at each of PHASES evenly spaced fractions of
/// a revolution).
pub fn replay_phase_averaged(hdd: &mut Hdd, trace: &[ValidateRecord]) -> Vec<f64> {
    let rev = hdd.period_ns() / 1e6;
    // Each class's PHASES quantiles, worked out once, not per request.
    let residual = &hdd.params().cache.buffer_residual;
    let quantiles = BufferClass::ALL.map(|c| {
        let q: [f64; PHASES] =
            std::array::from_fn(|j| residual.quantile(c, (j as f64 + 0.5) / PHASES as f64));
        (c, q)
    });
    let mut out = Vec::with_capacity(trace.len() * PHASES);
    for r in replay_detailed(hdd, trace) {
        if let Some((class, drawn)) = r.buffer {
            let without = r.response_ms - drawn;
            let q = quantiles
                .iter()
                .find(|(c, _)| *c == class)
                .map_or([0.0; PHASES], |(_, q)| *q);
            out.extend(q.iter().map(|v| (without + v).max(0.0)));
        } else if r.class.is_none() {
            out.extend(std::iter::repeat_n(r.response_ms, PHASES));
        } else {
            let fixed = r.response_ms - first_wait_ms(&r, rev);
            out.extend((0..PHASES).map(|j| fixed + (j as f64 + 0.5) / PHASES as f64 * rev));
        }
    }
    out
}

/// How far (demerit, ms) one closed-loop replay of `trace` is from the same drive's
/// phase-averaged prediction: the sampling noise one replay carries, which one set of
/// measurements carries too. A model judged by one replay against one set of
/// measurements cannot expect a demerit much below √2 times this, nor a phase-averaged
/// one much below this.
pub fn replay_noise(hdd: &mut Hdd, trace: &[ValidateRecord]) -> f64 {
    let one = super::replay::replay(hdd, trace);
    hdd.reset();
    let averaged = replay_phase_averaged(hdd, trace);
    super::demerit::rms_demerit(&one, &averaged)
}

/// Share of the media reads whose measured time lines up with the replay's within
/// ±[`ALIGNED_WITHIN_MS`] modulo a revolution; `None` without media reads.
pub fn phase_alignment(hdd: &mut Hdd, trace: &[ValidateRecord]) -> Option<f64> {
    let rev = hdd.period_ns() / 1e6;
    let (mut aligned, mut reads) = (0usize, 0usize);
    for r in replay_detailed(hdd, trace).iter().zip(trace) {
        let (r, rec) = r;
        if r.class.is_none() {
            continue;
        }
        reads += 1;
        let d = (rec.measured_us / 1000.0 - r.response_ms).rem_euclid(rev);
        if d.min(rev - d) <= ALIGNED_WITHIN_MS {
            aligned += 1;
        }
    }
    (reads > 0).then(|| aligned as f64 / reads as f64)
}

/// The drive's read residual refitted to `trace`: for each positioning class, its
/// current correction plus the mean of (measured − phase-averaged simulated time) over
/// the class's media reads, shrunk towards zero by [`RESIDUAL_PRIOR_REQUESTS`].
pub fn fit_read_residual(hdd: &mut Hdd, trace: &[ValidateRecord]) -> PositioningResidual {
    let rev = hdd.period_ns() / 1e6;
    let mut sums: std::collections::BTreeMap<PositioningClass, (f64, f64)> = Default::default();
    for (r, rec) in replay_detailed(hdd, trace).iter().zip(trace) {
        let Some(class) = r.class else {
            continue;
        };
        let predicted = r.response_ms - first_wait_ms(r, rev) + rev / 2.0;
        let s = sums.entry(class).or_default();
        s.0 += rec.measured_us / 1000.0 - predicted;
        s.1 += 1.0;
    }
    let mut out = hdd.params().mech.read_residual.clone();
    for (class, (sum, n)) in sums {
        let v = out.ms(class) + sum / (n + RESIDUAL_PRIOR_REQUESTS);
        out.set(
            class,
            v.clamp(
                -crate::disk::residual::MAX_RESIDUAL_MS,
                crate::disk::residual::MAX_RESIDUAL_MS,
            ),
        );
    }
    out
}

/// The drive's buffer residual refitted to `trace`: for each class of request the
/// model serves from its buffer ([`BufferClass`]), the [`BUFFER_RESIDUAL_VALUES`]
/// evenly spaced quantiles of (measured − simulated time without the drive's own
/// correction) over the class's requests within [`BUFFER_MATCH_MS`]; a class with
/// fewer than [`BUFFER_RESIDUAL_MIN_REQUESTS`] such requests gets none. The platter's
/// phase does not enter: these requests do not touch the media.
pub fn fit_buffer_residual(hdd: &mut Hdd, trace: &[ValidateRecord]) -> BufferResidual {
    let mut diffs: std::collections::BTreeMap<BufferClass, Vec<f64>> = Default::default();
    let seed = hdd.params().cache.buffer_residual.seed;
    for (r, rec) in replay_detailed(hdd, trace).iter().zip(trace) {
        let Some((class, drawn)) = r.buffer else {
            continue;
        };
        let d = rec.measured_us / 1000.0 - (r.response_ms - drawn);
        if d.abs() < BUFFER_MATCH_MS {
            diffs.entry(class).or_default().push(d);
        }
    }
    let mut out = BufferResidual {
        seed,
        ..BufferResidual::default()
    };
    for (class, mut d) in diffs {
        if d.len() < BUFFER_RESIDUAL_MIN_REQUESTS {
            continue;
        }
        d.sort_by(f64::total_cmp);
        let values = (0..BUFFER_RESIDUAL_VALUES)
            .map(|j| {
                let i = (j * 2 + 1) * d.len() / (2 * BUFFER_RESIDUAL_VALUES);
                // To 0.1 µs: the measurements themselves are whole or hundredths of µs.
                let v = (d[i.min(d.len() - 1)] * 1e4).round() / 1e4;
                v.clamp(-MAX_BUFFER_RESIDUAL_MS, MAX_BUFFER_RESIDUAL_MS)
            })
            .collect();
        out.set(class, values);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::presets;
    use crate::validate::trace::parse_validate_trace;

    fn drive_and_trace(stem: &str, n: usize) -> (Hdd, Vec<ValidateRecord>) {
        let p = presets::disksim_preset(stem).expect("preset");
        let text = presets::bundled_file(&format!("{stem}.trace")).expect("trace");
        let mut t = parse_validate_trace(text, stem).expect("parses");
        t.truncate(n);
        (Hdd::new(p).expect("drive"), t)
    }

    #[test]
    fn the_phase_averaged_prediction_keeps_hits_and_spreads_media_waits_over_a_turn() {
        let (mut h, t) = drive_and_trace("cheetah9LP", 300);
        let rev = h.period_ns() / 1e6;
        let avg = replay_phase_averaged(&mut h, &t);
        assert_eq!(avg.len(), t.len() * PHASES);
        h.reset();
        let detailed = replay_detailed(&mut h, &t);
        for (i, r) in detailed.iter().enumerate() {
            let v = &avg[i * PHASES..(i + 1) * PHASES];
            if r.class.is_none() {
                assert!(v.iter().all(|&x| x == r.response_ms));
            } else {
                let spread = v[PHASES - 1] - v[0];
                assert!((spread - rev * (PHASES - 1) as f64 / PHASES as f64).abs() < 1e-9);
            }
        }
    }

    /// Only the first track's wait is the platter's phase: a read that waits again on
    /// a later track keeps that wait in every phase of the prediction.
    #[test]
    fn only_the_first_tracks_wait_is_averaged() {
        let mut later_waits = 0;
        for stem in ["cheetah9LP", "ibm18es", "atlas10k", "hp_c2247a"] {
            let (mut h, t) = drive_and_trace(stem, 3_000);
            let mut now = SimTime::ZERO;
            for (i, r) in t.iter().enumerate() {
                let c = h.service(
                    now,
                    Request {
                        id: i as u64,
                        lbn: r.lbn,
                        blocks: r.blocks,
                        write: r.write,
                    },
                );
                if let Some(first) = h.last_read_first_wait_ns() {
                    assert!(first <= c.breakdown.rotation_ns, "{stem} request {i}");
                    later_waits += usize::from(first < c.breakdown.rotation_ns);
                }
                now = c.done + SimTime::from_us(r.think_us).0;
            }
        }
        eprintln!("reads that waited again on a later track: {later_waits}");
        assert!(later_waits > 0);
    }

    #[test]
    fn a_known_buffer_error_is_found_and_applied_once() {
        // Measured times: the model's own, with 0.18 ms more for every buffered read
        // that does not continue the previous request and 0.04 ms less for every
        // buffered write.
        let (mut h, mut t) = drive_and_trace("cheetah9LP", 3_000);
        let detailed = replay_detailed(&mut h, &t);
        for (r, rec) in detailed.iter().zip(t.iter_mut()) {
            let extra = match r.buffer.map(|b| b.0) {
                Some(BufferClass::ReadOther) => 0.18,
                Some(BufferClass::WriteSequential | BufferClass::WriteOther) => -0.04,
                _ => 0.0,
            };
            rec.measured_us = (r.response_ms + extra) * 1000.0;
        }
        h.reset();
        let fitted = fit_buffer_residual(&mut h, &t);
        let near =
            |v: &[f64], want: f64| !v.is_empty() && v.iter().all(|x| (x - want).abs() < 1e-3);
        assert!(near(&fitted.read_other_ms, 0.18), "{fitted:?}");
        assert!(near(&fitted.read_sequential_ms, 0.0), "{fitted:?}");
        assert!(near(&fitted.write_other_ms, -0.04), "{fitted:?}");

        // The drive applies it, and a refit on the corrected drive asks for the same
        // correction, not for it again on top.
        let mut p = h.params().clone();
        p.cache.buffer_residual = fitted.clone();
        let mut corrected = Hdd::new(p).expect("valid residual");
        let again = fit_buffer_residual(&mut corrected, &t);
        assert!(near(&again.read_other_ms, 0.18), "{again:?}");
        // ... and its phase-averaged prediction of a buffered read carries it.
        corrected.reset();
        let avg = replay_phase_averaged(&mut corrected, &t);
        h.reset();
        let plain = replay_phase_averaged(&mut h, &t);
        let i = detailed
            .iter()
            .position(|r| r.buffer.map(|b| b.0) == Some(BufferClass::ReadOther))
            .expect("a non-sequential buffered read");
        let d = avg[i * PHASES] - plain[i * PHASES];
        assert!((d - 0.18).abs() < 1e-3, "{d}");
    }

    #[test]
    fn a_drive_measured_against_itself_is_aligned_and_needs_no_residual() {
        let (mut h, mut t) = drive_and_trace("ibm18es", 600);
        let sim = super::super::replay::replay(&mut h, &t);
        for (r, ms) in t.iter_mut().zip(&sim) {
            r.measured_us = ms * 1000.0;
        }
        h.reset();
        assert_eq!(phase_alignment(&mut h, &t), Some(1.0));
    }

    #[test]
    fn a_known_same_track_error_is_found_with_the_right_sign() {
        // Measured times made of the model's own non-rotational time, the mean wait
        // of half a revolution, and 0.5 ms more for every same-track read.
        let (mut h, mut t) = drive_and_trace("atlas10k", 2_000);
        let rev = h.period_ns() / 1e6;
        let detailed = replay_detailed(&mut h, &t);
        for (r, rec) in detailed.iter().zip(t.iter_mut()) {
            let extra = if r.class == Some(PositioningClass::SameTrack) {
                0.5
            } else {
                0.0
            };
            let base = if r.class.is_none() {
                r.response_ms
            } else {
                r.response_ms - first_wait_ms(r, rev) + rev / 2.0
            };
            rec.measured_us = (base + if rec.write { 0.0 } else { extra }) * 1000.0;
        }
        h.reset();
        let fitted = fit_read_residual(&mut h, &t);
        assert!(fitted.same_track_ms > 0.3, "{fitted:?}");
        assert!(fitted.head_switch_ms.abs() < 0.05, "{fitted:?}");

        // The drive applies the residual: refitted on the corrected drive, what is
        // left to add is what the shrinkage held back (a drive that ignored the
        // residual would be asked for all of it again).
        let mut p = h.params().clone();
        p.mech.read_residual = fitted.clone();
        let mut corrected = Hdd::new(p).expect("valid residual");
        let again = fit_read_residual(&mut corrected, &t);
        let added = again.same_track_ms - fitted.same_track_ms;
        assert!(
            added.abs() < 0.5 * fitted.same_track_ms,
            "{fitted:?} then {again:?}"
        );
    }
}
