//! MimdRAID's analytic seek-distance and rotational-delay formulas (MIMD-EQ1…EQ7),
//! checked by Monte Carlo on the disk model's geometry (MimdRAID §2.1).
//!
//! S is the maximum seek distance (the data cylinders of one disk), R one revolution,
//! D the number of disks or replicas. Heads and targets are independent and uniform, as
//! the formulas assume. Split layouts use the model's real zone table: a 1/D share of
//! the data on the outer zones spans fewer than S/D cylinders, so splitting does better
//! than S/(3D) on a zoned disk, as the paper says.

use super::Check;
use crate::disk::hdd::{DiskError, Hdd, HeadPos};
use crate::disk::params::DiskParams;
use crate::time::SimTime;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Why the formulas sampled with uniform random numbers are not reproductions.
const UNIFORM_MONTE_CARLO: &str = "A Monte Carlo over uniform random numbers that samples \
    the formula's own assumptions; no disk model is involved, so it checks the formula's \
    arithmetic, not the disk.";

#[derive(Clone, Debug, Serialize)]
pub struct EqRow {
    pub d: u32,
    /// Mean seek distance as a fraction of S.
    pub mirror: f64,
    pub split: f64,
    pub replicated_split: f64,
    /// Mean rotational delay as a fraction of R.
    pub random_replicas: f64,
    pub even_replicas: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct EqReport {
    pub disk: String,
    pub samples: usize,
    /// EQ1 and EQ5 (D = 1).
    pub single_seek: f64,
    pub single_rotation: f64,
    pub rows: Vec<EqRow>,
    pub checks: Vec<Check>,
}

pub fn mimd_equations(
    params: &DiskParams,
    ds: &[u32],
    samples: usize,
    seed: u64,
) -> Result<EqReport, DiskError> {
    let hdd = Hdd::new(params.clone())?;
    let g = hdd.geometry();
    let cap = g.capacity();
    let cyl_of = |lbn: u64| {
        g.locate(lbn.min(cap - 1))
            .map(|l| l.pbn.cyl as f64)
            .unwrap_or(0.0)
    };
    let first = cyl_of(0);
    let s = (cyl_of(cap - 1) - first).max(1.0);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = samples.max(1);
    let mean = |f: &mut dyn FnMut(&mut ChaCha8Rng) -> f64, rng: &mut ChaCha8Rng| {
        (0..n).map(|_| f(rng)).sum::<f64>() / n as f64
    };

    // EQ1: one head, one target, both uniform over the stroke.
    let single_seek = mean(&mut |r| (r.gen::<f64>() - r.gen::<f64>()).abs(), &mut rng);
    // EQ5: rotational delay from the model: a random moment, a random sector on the
    // head's own track, no seek.
    let period = hdd.period_ns();
    let single_rotation = mean(
        &mut |r| {
            let lbn = r.gen_range(0..cap);
            let Some(loc) = g.locate(lbn) else { return 0.0 };
            let from = HeadPos {
                cyl: loc.pbn.cyl,
                head: loc.pbn.head,
            };
            let t = SimTime(r.gen_range(0..1_000_000_000_000u64));
            hdd.positioning_time(from, t, lbn, false)
                .map(|(_, rot)| rot as f64 / period)
                .unwrap_or(0.0)
        },
        &mut rng,
    );

    let mut rows = Vec::new();
    for &d in ds {
        let d = d.max(1);
        // EQ2: D mirrors with independent layouts: each disk's head and copy are
        // independent; the closest head serves.
        let mirror = mean(
            &mut |r| {
                (0..d)
                    .map(|_| (r.gen::<f64>() - r.gen::<f64>()).abs())
                    .fold(f64::INFINITY, f64::min)
            },
            &mut rng,
        );
        // EQ3: D-way split: each disk keeps its 1/D share on its outer zones; the head
        // stays within the share. Distances from the model's LBN → cylinder map.
        let share = cap / d as u64;
        let split = mean(
            &mut |r| (cyl_of(r.gen_range(0..share)) - cyl_of(r.gen_range(0..share))).abs() / s,
            &mut rng,
        );
        // EQ4: replicated splitting with constant track capacity: the share is copied
        // D times across the stroke; the head sits on the copy it used last and goes
        // to the nearest copy of the next target.
        let width = 1.0 / d as f64;
        let mut head = rng.gen::<f64>();
        let replicated_split = mean(
            &mut |r| {
                let x = r.gen::<f64>() * width;
                let (best, pos) = (0..d)
                    .map(|k| x + k as f64 * width)
                    .map(|p| ((p - head).abs(), p))
                    .fold((f64::INFINITY, 0.0), |a, b| if b.0 < a.0 { b } else { a });
                head = pos;
                best
            },
            &mut rng,
        );
        // EQ6: D replicas at random angles: wait for the first to come round.
        let random_replicas = mean(
            &mut |r| (0..d).map(|_| r.gen::<f64>()).fold(f64::INFINITY, f64::min),
            &mut rng,
        );
        // EQ7: D replicas 360/D degrees apart.
        let even_replicas = mean(&mut |r| r.gen::<f64>() % width, &mut rng);
        rows.push(EqRow {
            d,
            mirror,
            split,
            replicated_split,
            random_replicas,
            even_replicas,
        });
    }

    let rel =
        |id: &str, m: String, paper: f64, ours: f64| Check::relative(id, &m, paper, ours, 0.02);
    // The formula's own assumption sampled with uniform random numbers, no disk involved.
    let formula = |c: Check| c.consistency(UNIFORM_MONTE_CARLO);
    let mut checks = vec![
        formula(rel(
            "MIMD-EQ1",
            "single-disk mean seek distance / S (uniform Monte Carlo)".into(),
            1.0 / 3.0,
            single_seek,
        )),
        rel(
            "MIMD-EQ5",
            "single-disk mean rotational delay / R (disk model)".into(),
            0.5,
            single_rotation,
        ),
    ];
    for r in &rows {
        let d = r.d as f64;
        checks.push(formula(rel(
            "MIMD-EQ2",
            format!("{}-way mirror seek / S (uniform Monte Carlo)", r.d),
            1.0 / (2.0 * d + 1.0),
            r.mirror,
        )));
        checks.push(Check::below(
            "MIMD-EQ3",
            &format!(
                "{}-way split seek / S on the disk model's zones (below S/3D)",
                r.d
            ),
            1.0 / (3.0 * d),
            r.split,
        ));
        if r.d > 1 {
            checks.push(formula(Check::range(
                "MIMD-EQ4",
                &format!(
                    "{}-way replicated split seek / S (uniform Monte Carlo)",
                    r.d
                ),
                1.0 / (4.0 * d),
                1.0 / (3.0 * d),
                r.replicated_split,
            )));
        }
        checks.push(formula(rel(
            "MIMD-EQ6",
            format!("{} random replicas rotation / R (uniform Monte Carlo)", r.d),
            1.0 / (d + 1.0),
            r.random_replicas,
        )));
        checks.push(formula(rel(
            "MIMD-EQ7",
            format!("{} even replicas rotation / R (uniform Monte Carlo)", r.d),
            1.0 / (2.0 * d),
            r.even_replicas,
        )));
    }
    if let Some(r) = rows.iter().find(|r| r.d >= 8) {
        checks.push(formula(Check::range(
            "MIMD-EQ6",
            &format!(
                "random vs even replicas at D = {}: ratio ≈ 2 (uniform Monte Carlo)",
                r.d
            ),
            1.6,
            2.0,
            r.random_replicas / r.even_replicas,
        )));
    }
    Ok(EqReport {
        disk: params.name.clone(),
        samples: n,
        single_seek,
        single_rotation,
        rows,
        checks,
    })
}
