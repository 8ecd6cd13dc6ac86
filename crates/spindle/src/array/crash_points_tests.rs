//! RAID-5 power cuts at every member write, enumerated rather than drawn: for each
//! write batch of a fixed workload (single-block read-modify-writes, reconstruct-writes,
//! full-stripe writes, rows of every parity member), the power goes after each member
//! write of that batch in turn — every cut point once — and the group recovers. Each
//! block the batch wrote must then read back as its old or new contents; every other
//! block exactly as acknowledged; the scrub finds nothing; and with any one member
//! failed right after, every block still reads back the same (the recovered rows'
//! parity agrees with their data).

use super::*;
use crate::array::layout::ParityLayout;
use crate::disk::presets::preset;
use crate::store::{zero_block, Block};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// Data members and stripe unit (blocks) of the test group: a 3+1 RAID-5 whose stripe
/// holds 12 volume blocks.
const DATA: usize = 3;
const UNIT: u64 = 4;
const STRIPE: u64 = DATA as u64 * UNIT;
/// Stripes the workload touches (each parity member twice over).
const STRIPES: u64 = 8;
const SPAN: u64 = STRIPE * STRIPES;

fn group(layout: ParityLayout) -> Raid4 {
    let cfg = Raid4Config {
        data_disks: DATA,
        stripe_unit_blocks: UNIT,
        max_outstanding: 8,
        ..Raid4Config::default()
    };
    Raid4::new(preset("wd-re3").expect("preset"), cfg)
        .expect("array")
        .rotating_parity(layout)
        .expect("fresh")
}

fn payload(rng: &mut ChaCha8Rng) -> Block {
    let mut b = zero_block();
    rng.fill(&mut b[..64]);
    b
}

/// A write batch of one of the shapes a RAID-5 updates differently.
fn batch(rng: &mut ChaCha8Rng, i: usize) -> Vec<(u64, Block)> {
    let stripe = rng.gen_range(0..STRIPES) * STRIPE;
    let blocks: Vec<u64> = match i % 5 {
        // One block: read-modify-write (old data and parity read, both written).
        0 => vec![stripe + rng.gen_range(0..STRIPE)],
        // Two data units of one row: reconstruct-write (the third unit read).
        1 => {
            let off = rng.gen_range(0..UNIT);
            vec![stripe + off, stripe + UNIT + off]
        }
        // The whole stripe: parity by addition, no data read.
        2 => (stripe..stripe + STRIPE).collect(),
        // A few blocks over two stripes (two parity members), one of them twice.
        3 => {
            let next = (stripe + STRIPE) % SPAN;
            let a = stripe + rng.gen_range(0..STRIPE);
            vec![a, next + rng.gen_range(0..STRIPE), a]
        }
        // A run across a stripe boundary.
        _ => {
            let at = rng.gen_range(0..SPAN - 8);
            (at..at + 8).collect()
        }
    };
    blocks.into_iter().map(|v| (v, payload(rng))).collect()
}

/// The member writes a batch issues when nothing cuts it.
fn member_writes(a: &Raid4, w: &[(u64, Block)]) -> u64 {
    let mut clean = a.clone();
    clean.faults.crash_after_writes(u64::MAX);
    clean.write_batch(w).expect("clean batch");
    u64::MAX - clean.faults.crash_budget().expect("budget")
}

/// Reads the whole span; each block must be `model`'s, or for the cut-off batch's
/// blocks its old or new contents. Refused blocks are counted and returned (with
/// `down` a member is failed, so a torn row may lose its block: allowed only there).
fn check_span(
    a: &mut Raid4,
    model: &BTreeMap<u64, Block>,
    cut: &BTreeMap<u64, (Block, Block)>,
    what: &str,
) -> (BTreeMap<u64, Block>, Vec<u64>) {
    let all: Vec<u64> = (0..SPAN).collect();
    let (out, _) = a.read_batch(&all).expect("in range");
    let mut now = BTreeMap::new();
    let mut refused = Vec::new();
    for (v, got) in all.into_iter().zip(out) {
        let want = model.get(&v).cloned().unwrap_or_else(zero_block);
        match got {
            Err(_) => refused.push(v),
            Ok(b) => {
                match cut.get(&v) {
                    Some((old, new)) => {
                        assert!(
                            b == *old || b == *new,
                            "{what}: block {v} neither old nor new"
                        )
                    }
                    None => assert!(b == want, "{what}: acknowledged block {v} read back wrong"),
                }
                now.insert(v, b);
            }
        }
    }
    (now, refused)
}

/// Enumerates every cut point of every batch of a `batches`-long workload (seeded),
/// with `down` failed before the workload if given. Returns the cut points run.
fn every_cut(layout: ParityLayout, seed: u64, batches: usize, down: Option<usize>) -> u64 {
    let mut a = group(layout);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Every block of the span holds data before the cuts begin.
    let fill: Vec<(u64, Block)> = (0..SPAN).map(|v| (v, payload(&mut rng))).collect();
    a.write_batch(&fill).expect("fill");
    let mut model: BTreeMap<u64, Block> = fill.into_iter().collect();
    if let Some(d) = down {
        a.fail_disk(d).expect("fail");
    }
    let mut points = 0;
    for i in 0..batches {
        let w = batch(&mut rng, i);
        let total = member_writes(&a, &w);
        assert!(total > 0, "batch {i} writes nothing");
        let latest: BTreeMap<u64, Block> = w.iter().cloned().collect();
        let cut: BTreeMap<u64, (Block, Block)> = latest
            .iter()
            .map(|(v, b)| (*v, (model[v].clone(), b.clone())))
            .collect();
        let dirty: Vec<u64> = w.iter().map(|(v, _)| *v).collect();
        for n in 0..total {
            let what = format!("{layout:?} seed {seed} batch {i} cut after {n} of {total} member writes (down {down:?})");
            let mut c = a.clone();
            c.faults.crash_after_writes(n);
            if let Err(e) = c.write_batch(&w) {
                e.internal().expect(&what);
            }
            assert!(c.faults.crashed(), "{what}: the cut did not land");
            c.faults.power_restored();
            c.recover_after_crash(&dirty).expect(&what);
            let (now, refused) = check_span(&mut c, &model, &cut, &what);
            match down {
                None => assert!(refused.is_empty(), "{what}: refused {refused:?}"),
                // Degraded, a torn row may lose the failed member's block (RAID-5's
                // write hole): refused, never guessed, and only there.
                Some(d) => {
                    for v in &refused {
                        let p = c.layout().place(*v);
                        assert!(
                            p.disk == d && dirty.iter().any(|&x| c.layout().place(x).row == p.row),
                            "{what}: block {v} refused outside the failed member's torn rows"
                        );
                    }
                }
            }
            if down.is_none() {
                let (errors, scrub) = c.scrub().expect("scrub");
                assert!(
                    errors.is_empty() && scrub.detections == 0,
                    "{what}: scrub after recovery: {errors:?}"
                );
                // The recovered rows' parity agrees with their data: any member lost
                // now is rebuilt from the rest to the same bytes.
                let f = (n as usize + i) % (DATA + 1);
                c.fail_disk(f).expect("fail");
                let (again, refused) = check_span(&mut c, &now, &BTreeMap::new(), &what);
                assert!(refused.is_empty(), "{what}: degraded: refused {refused:?}");
                assert_eq!(again.len(), SPAN as usize);
            }
            points += 1;
        }
        // A cut at `total` is no cut: the batch completes.
        let mut c = a.clone();
        c.faults.crash_after_writes(total);
        c.write_batch(&w).expect("the batch fits its count");
        assert_eq!(c.faults.crash_budget(), Some(0), "the clean count is exact");
        a.write_batch(&w).expect("batch");
        model.extend(latest);
    }
    points
}

/// Extra cut points for a long run: SPINDLE_CRASH_POINTS=N adds workloads until N.
fn more_points() -> u64 {
    std::env::var("SPINDLE_CRASH_POINTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Both layouts, every member write of 40 batches of the five shapes (in the suite: 872
/// distinct cut points, 434 left-symmetric and 438 left-asymmetric).
/// SPINDLE_CRASH_POINTS=N adds seeded workloads, every cut point of each, until N per
/// layout (10,000: 20,672 cut points in all).
#[test]
fn raid5_power_cut_at_every_member_write_leaves_blocks_old_or_new() {
    let mut all = 0;
    for layout in [ParityLayout::LeftSymmetric, ParityLayout::LeftAsymmetric] {
        let mut done = every_cut(layout, 1, 40, None);
        let mut seed = 2;
        while done < more_points() {
            done += every_cut(layout, seed, 40, None);
            seed += 1;
        }
        eprintln!("{layout:?}: {done} distinct crash points, 0 wrong, 0 refused");
        all += done;
    }
    assert!(all >= 400, "{all} cut points");
}

/// The same with a member failed throughout (degraded writes, then a cut): every
/// acknowledged block reads back, the batch's blocks old or new, and only the failed
/// member's blocks of rows the cut tore may be refused (312 cut points in the suite).
#[test]
fn raid5_degraded_power_cut_at_every_member_write_returns_no_wrong_byte() {
    let mut all = 0;
    for (layout, down) in [
        (ParityLayout::LeftSymmetric, 1),
        (ParityLayout::LeftAsymmetric, 3),
    ] {
        let done = every_cut(layout, 7, 20, Some(down));
        eprintln!("{layout:?}, member {down} down: {done} distinct crash points, 0 wrong");
        all += done;
    }
    assert!(all >= 150, "{all} cut points");
}
