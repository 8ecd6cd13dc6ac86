//! The layout engine against a plain in-memory model: every policy, snapshots, and
//! a power cut at every device write of a workload, followed by recovery.

use super::*;
use crate::array::{Raid4, Raid4Config};
use crate::disk::presets::preset;
use crate::flash::presets::preset as flash_preset;
use crate::stack::array::ParityLayout;
use crate::store::{block_from, zero_block, Block};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

const EXTENTS: u32 = 4;
const EXTENT_BLOCKS: u64 = 64;

/// A small engine: stripe unit and allocation range of 16 blocks, 24 staging blocks,
/// writes under 8 blocks staged.
fn small_dle(policy: LayoutPolicy) -> Dle {
    small_dle_on(policy, None)
}

/// `small_dle` over a RAID-5 (`rotation`) or the RAID-4 (`None`).
fn small_dle_on(policy: LayoutPolicy, rotation: Option<ParityLayout>) -> Dle {
    let mut raid = Raid4::new(
        preset("wd-re3").expect("preset"),
        Raid4Config {
            stripe_unit_blocks: 16,
            ..Raid4Config::default()
        },
    )
    .expect("array");
    if let Some(l) = rotation {
        raid = raid.rotating_parity(l).expect("fresh");
    }
    let cfg = DleConfig {
        policy,
        staging_blocks: 24,
        small_write_blocks: 8,
        range_blocks: 16,
        proximal_ranges: 8,
        volume_blocks: 4096,
    };
    let mut d = Dle::new(raid, flash_preset("x25m-g2").expect("flash"), cfg).expect("dle");
    for e in 0..EXTENTS {
        d.create(e, EXTENT_BLOCKS).expect("create");
    }
    d
}

fn content(e: u32, o: u64, version: u64) -> Block {
    block_from(format!("extent {e} offset {o} version {version}").as_bytes())
}

#[derive(Clone, Debug)]
enum Op {
    Write { e: u32, o: u64, n: u64 },
    Destage,
    Snapshot,
}

fn workload(seed: u64, ops: usize) -> Vec<Op> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..ops)
        .map(|_| match rng.gen_range(0..20) {
            0 => Op::Destage,
            1 => Op::Snapshot,
            2..=4 => {
                let n = rng.gen_range(8..=20);
                Op::Write {
                    e: rng.gen_range(0..EXTENTS),
                    o: rng.gen_range(0..=EXTENT_BLOCKS - n),
                    n,
                }
            }
            _ => {
                let n = rng.gen_range(1..=3);
                Op::Write {
                    e: rng.gen_range(0..EXTENTS),
                    o: rng.gen_range(0..=EXTENT_BLOCKS - n),
                    n,
                }
            }
        })
        .collect()
}

type Model = BTreeMap<(u32, u64), Block>;

/// Applies one op to the engine; on success also to the model.
/// The three layout policies.
const POLICIES: [LayoutPolicy; 3] = [
    LayoutPolicy::Proximal,
    LayoutPolicy::UpdateInPlace,
    LayoutPolicy::WriteAnywhere,
];

/// A small engine of `policy` after `ops` operations of workload `seed`, and the plain
/// volume's model of what it holds.
fn after_workload(policy: LayoutPolicy, seed: u64, ops: usize) -> (Dle, Model) {
    let mut d = small_dle(policy);
    let mut model = Model::new();
    for (v, op) in workload(seed, ops).iter().enumerate() {
        apply(&mut d, &mut model, op, v as u64).expect("op");
    }
    (d, model)
}

fn apply(d: &mut Dle, model: &mut Model, op: &Op, version: u64) -> Result<(), DleError> {
    match *op {
        Op::Write { e, o, n } => {
            let data: Vec<Block> = (0..n).map(|i| content(e, o + i, version)).collect();
            d.write(e, o, &data)?;
            for (i, b) in data.into_iter().enumerate() {
                model.insert((e, o + i as u64), b);
            }
        }
        Op::Destage => d.destage()?,
        Op::Snapshot => {
            let id = d.snapshot()?;
            // Keep at most one snapshot: drop the previous one.
            if id > 0 {
                d.delete_snapshot(id - 1)?;
            }
        }
    }
    Ok(())
}

fn read_all(d: &mut Dle) -> Model {
    let mut out = Model::new();
    for e in 0..EXTENTS {
        let (blocks, _) = d.read(e, 0, EXTENT_BLOCKS).expect("read");
        for (o, b) in blocks.into_iter().enumerate() {
            out.insert((e, o as u64), b);
        }
    }
    out
}

fn assert_matches(d: &mut Dle, model: &Model) {
    let got = read_all(d);
    for (k, b) in &got {
        let want = model.get(k).cloned().unwrap_or_else(zero_block);
        assert!(*b == want, "extent {} offset {}: wrong content", k.0, k.1);
    }
}

#[test]
fn every_policy_behaves_like_a_plain_volume() {
    for policy in POLICIES {
        let (mut d, model) = after_workload(policy, 7, 300);
        assert_matches(&mut d, &model);
        d.destage().expect("destage");
        assert_matches(&mut d, &model);
        let (errors, scrub) = d.raid_mut().scrub().expect("scrub");
        assert!(
            errors.is_empty() && scrub.detections == 0,
            "{policy:?}: scrub {errors:?}"
        );
    }
}

#[test]
fn destage_never_overwrites_a_live_block_and_snapshots_keep_old_versions() {
    let mut d = small_dle(LayoutPolicy::Proximal);
    let first: Vec<Block> = (0..EXTENT_BLOCKS).map(|o| content(0, o, 0)).collect();
    d.write(0, 0, &first).expect("fill");
    let before = d.map(0).expect("map").to_vec();
    let snap = d.snapshot().expect("snapshot");
    d.write(0, 5, &[content(0, 5, 1)]).expect("update");
    assert_eq!(d.staged_blocks(), 1);
    d.destage().expect("destage");
    let after = d.map(0).expect("map").to_vec();
    assert_ne!(before[5], after[5], "destage wrote in place");
    assert_eq!(before[4], after[4]);
    let old = d.read_snapshot(snap, 0, 5, 1).expect("snapshot read");
    assert!(old[0] == content(0, 5, 0));
    let (new, _) = d.read(0, 5, 1).expect("read");
    assert!(new[0] == content(0, 5, 1));
    // The old block stays allocated while the snapshot holds it.
    assert!(!d.free_space().is_free(u64::from(before[5])));
    d.delete_snapshot(snap).expect("delete snapshot");
    assert!(d.free_space().is_free(u64::from(before[5])));
}

/// Update-in-place is the frame array: a block written for the first time goes to
/// its direct-mapped home, and stays there; write-anywhere puts it at the log cursor.
#[test]
fn a_first_write_goes_home_under_update_in_place_and_to_the_cursor_under_write_anywhere() {
    let writes = [(3u32, 40u64), (0, 50), (2, 7), (1, 60)];
    let place = |policy| {
        let mut d = small_dle(policy);
        let mut at = Vec::new();
        for (v, &(e, o)) in writes.iter().enumerate() {
            // Large enough to go straight to the array (not staged).
            let blocks: Vec<Block> = (0..8).map(|k| content(e, o + k, v as u64)).collect();
            d.write(e, o.min(EXTENT_BLOCKS - 8), &blocks)
                .expect("write");
            at.push(d.map(e).expect("map")[o.min(EXTENT_BLOCKS - 8) as usize]);
        }
        at
    };
    let homes: Vec<u32> = writes
        .iter()
        .map(|&(e, o)| (u64::from(e) * EXTENT_BLOCKS + o.min(EXTENT_BLOCKS - 8)) as u32)
        .collect();
    assert_eq!(place(LayoutPolicy::UpdateInPlace), homes);
    let cursor = place(LayoutPolicy::WriteAnywhere);
    assert_ne!(cursor, homes, "write-anywhere fills from its cursor");
    assert!(cursor.windows(2).all(|w| w[0] < w[1]), "{cursor:?}");
}

#[test]
fn without_snapshots_a_destaged_block_plugs_the_hole_nearest_its_position() {
    let mut d = small_dle(LayoutPolicy::Proximal);
    let fill: Vec<Block> = (0..EXTENT_BLOCKS).map(|o| content(0, o, 0)).collect();
    d.write(0, 0, &fill).expect("fill");
    let before = d.map(0).expect("map").to_vec();
    d.write(0, 7, &[content(0, 7, 1)]).expect("update");
    // Staging frees the old version: the log is the block's home now.
    assert!(d.free_space().is_free(u64::from(before[7])));
    d.destage().expect("destage");
    // The range is otherwise full, so the nearest free block is that hole: the layout
    // stays in order instead of sending the block out of its range.
    assert_eq!(d.map(0).expect("map"), &before[..]);
    let (got, _) = d.read(0, 7, 1).expect("read");
    assert!(got[0] == content(0, 7, 1));
}

#[test]
fn proximal_destage_lands_next_to_logical_neighbours() {
    let mut d = small_dle(LayoutPolicy::Proximal);
    let fill: Vec<Block> = (0..EXTENT_BLOCKS).map(|o| content(1, o, 0)).collect();
    d.write(1, 0, &fill).expect("fill");
    // Free some holes near the extent, then update a block: it lands within the
    // proximal span of its neighbours, not at the far end of the volume.
    for o in [10u64, 20, 30] {
        d.write(1, o, &[content(1, o, 1)]).expect("update");
    }
    d.destage().expect("destage");
    d.write(1, 11, &[content(1, 11, 2)]).expect("update");
    d.destage().expect("destage");
    let map = d.map(1).expect("map");
    let gap = u64::from(map[11]).abs_diff(u64::from(map[10]));
    assert!(
        gap <= 16 * 4 * 8,
        "block 11 placed {gap} blocks from its neighbour"
    );
}

/// After recovery, snapshots read back exactly as taken. A snapshot's blocks are held
/// only by the snapshot once every block of the extent has a newer version; recovery
/// must restore those holds from the flash, or it hands the blocks out again and the
/// next writes overwrite them.
#[test]
fn snapshots_read_back_exactly_as_taken_after_recovery() {
    for policy in [LayoutPolicy::Proximal, LayoutPolicy::WriteAnywhere] {
        let mut d = small_dle(policy);
        let taken: Vec<Block> = (0..EXTENT_BLOCKS).map(|o| content(0, o, 0)).collect();
        d.write(0, 0, &taken).expect("fill");
        let snap = d.snapshot().expect("snapshot");
        let held = d.map(0).expect("map").to_vec();
        // New versions of every block, 4 at a time (staged under the DLE).
        for o in (0..EXTENT_BLOCKS).step_by(4) {
            let v: Vec<Block> = (o..o + 4).map(|o| content(0, o, 1)).collect();
            d.write(0, o, &v).expect("update");
        }
        d.destage().expect("destage");
        // A power cut with nothing in flight, then recovery.
        d.crash_after_writes(0);
        assert_eq!(d.destage(), Err(DleError::Crashed));
        let mut d = d.recover().expect("recover");
        let freed = held
            .iter()
            .filter(|&&vb| d.free_space().is_free(u64::from(vb)))
            .count();
        // Then more block versions than the volume holds, so any block recovery
        // wrongly freed is handed out again.
        let mut model = Model::new();
        for round in 0..2 * 4096 / (EXTENTS as u64 * EXTENT_BLOCKS) {
            for e in 0..EXTENTS {
                let v: Vec<Block> = (0..EXTENT_BLOCKS)
                    .map(|o| content(e, o, 2 + round))
                    .collect();
                d.write(e, 0, &v).expect("write after recovery");
                model.extend(v.into_iter().enumerate().map(|(o, b)| ((e, o as u64), b)));
            }
        }
        let got = d
            .read_snapshot(snap, 0, 0, EXTENT_BLOCKS)
            .expect("snapshot read");
        let overwritten = got.iter().zip(&taken).filter(|(a, b)| a != b).count();
        assert!(
            overwritten == 0 && freed == 0,
            "{policy:?}: recovery freed {freed} of {EXTENT_BLOCKS} snapshot blocks; \
             {overwritten} of {EXTENT_BLOCKS} overwritten"
        );
        assert_matches(&mut d, &model);
    }
}

/// Where a power cut lands.
#[derive(Clone, Copy, Debug)]
enum Cut {
    /// After this many device writes: during the next one the engine issues.
    Writes(u64),
    /// During the metadata write after this many of them.
    MetaWrite(u64),
}

/// Runs `ops` with a power cut at `at` (tearing the metadata record
/// it lands on, if `tear`); recovers; checks that every acknowledged write reads back
/// and each block of the write in flight is old or new (with `atomic`, all of them
/// old or all new). Returns what the metadata log did.
fn crash_case(
    template: &Dle,
    ops: &[Op],
    at: Cut,
    atomic: bool,
    tear: Option<Tear>,
) -> MetaLogStats {
    let mut d = template.clone();
    let mut model = Model::new();
    d.tear_metadata(tear);
    let seed = match at {
        Cut::Writes(n) => {
            d.crash_after_writes(n);
            n
        }
        Cut::MetaWrite(k) => {
            d.crash_at_meta_write(Some(k));
            k + (1 << 32)
        }
    };
    let mut in_flight = None;
    for (v, op) in ops.iter().enumerate() {
        match apply(&mut d, &mut model, op, v as u64) {
            Ok(()) => {}
            Err(DleError::Crashed) => {
                if let Op::Write { e, o, n } = *op {
                    in_flight = Some((e, o, n, v as u64));
                }
                break;
            }
            Err(e) => panic!("op {v}: {e}"),
        }
    }
    let torn = d.meta_log_stats().torn;
    let mut d = d.recover().expect("recover");
    let meta = d.meta_log_stats();
    assert_eq!(
        meta.tails_discarded, torn,
        "{at:?}: {torn} records torn, {} tails cut off",
        meta.tails_discarded
    );
    let got = read_all(&mut d);
    let (mut new, mut old) = (0, 0);
    for (k, b) in &got {
        let before = model.get(k).cloned().unwrap_or_else(zero_block);
        match in_flight {
            Some((e, o, n, v)) if k.0 == e && (o..o + n).contains(&k.1) => {
                if *b == content(e, k.1, v) {
                    new += 1;
                } else if *b == before {
                    old += 1;
                } else {
                    panic!("{at:?}: extent {e} offset {}: neither old nor new", k.1);
                }
            }
            _ => assert!(
                *b == before,
                "{at:?}: extent {} offset {} lost or corrupted an acknowledged write",
                k.0,
                k.1
            ),
        }
    }
    assert!(
        !atomic || new == 0 || old == 0,
        "{at:?}: the write in flight is half-visible ({new} new, {old} old)"
    );
    let (errors, _) = d.raid_mut().scrub().expect("scrub");
    assert!(
        errors.is_empty(),
        "{at:?}: scrub after recovery: {errors:?}"
    );
    // The recovered engine keeps working.
    if let Some((e, o, n, v)) = in_flight {
        for i in 0..n {
            if got
                .get(&(e, o + i))
                .is_some_and(|b| *b == content(e, o + i, v))
            {
                model.insert((e, o + i), content(e, o + i, v));
            }
        }
    }
    for (i, op) in workload(seed ^ 99, 20).iter().enumerate() {
        apply(&mut d, &mut model, op, 10_000 + i as u64).expect("after recovery");
    }
    assert_matches(&mut d, &model);
    // And what it wrote after recovery survives another power cut: its records follow
    // the last good one, not a torn tail.
    d.crash_after_writes(0);
    assert_eq!(d.destage(), Err(DleError::Crashed));
    let mut d = d.recover().expect("second recovery");
    assert_matches(&mut d, &model);
    meta
}

/// The device writes of a clean run of `ops`: (all of them, the array members' share).
/// The rest are flash writes (staged data, log records, intents, map commits).
fn device_writes(template: &Dle, ops: &[Op]) -> (u64, u64) {
    let mut clean = template.clone();
    clean.crash_after_writes(u64::MAX);
    let mut model = Model::new();
    for (v, op) in ops.iter().enumerate() {
        apply(&mut clean, &mut model, op, v as u64).expect("clean run");
    }
    let total = u64::MAX - clean_remaining(&clean);
    let flash = clean.stats.flash_data_writes + clean.stats.flash_meta_writes;
    (total, total - flash)
}

/// A power cut after each device write of a clean run of `ops` in turn — every
/// flash write and every member write of every destage and update, each cut point
/// once. Returns (distinct cut points, those at member writes).
fn every_cut(policy: LayoutPolicy, ops: &[Op], atomic: bool) -> (u64, u64) {
    every_cut_on(policy, None, ops, atomic)
}

/// `every_cut` over a RAID-5 (`rotation`) or the RAID-4.
fn every_cut_on(
    policy: LayoutPolicy,
    rotation: Option<ParityLayout>,
    ops: &[Op],
    atomic: bool,
) -> (u64, u64) {
    let template = small_dle_on(policy, rotation);
    let (total, member) = device_writes(&template, ops);
    for cut in 0..total {
        crash_case(&template, ops, Cut::Writes(cut), atomic, None);
    }
    // A cut at `total` or later is no cut: the run completes.
    let mut d = template.clone();
    d.crash_after_writes(total);
    let mut model = Model::new();
    for (v, op) in ops.iter().enumerate() {
        apply(&mut d, &mut model, op, v as u64).expect("the last write fits the budget");
    }
    assert_eq!(clean_remaining(&d), 0, "the clean run's count is exact");
    eprintln!(
        "{policy:?} over {rotation:?}: {total} distinct crash points, {member} of them member writes"
    );
    (total, member)
}

/// The DLE and update in place over a RAID-5 in each parity layout: a power cut at
/// every device write (the DLE's writes in flight all old or all new; update in
/// place's each old or new): 1,525 distinct cut points in the suite, 1,149 of them member
/// writes.
#[test]
fn power_cuts_at_every_device_write_over_raid5_lose_nothing_acknowledged() {
    let mut done = 0;
    for l in [ParityLayout::LeftSymmetric, ParityLayout::LeftAsymmetric] {
        let (n, member) = every_cut_on(LayoutPolicy::Proximal, Some(l), &workload(21, 40), true);
        assert!(
            member >= 150,
            "{l:?}: {n} cut points, {member} member writes"
        );
        done += n;
        let (n, member) = every_cut_on(
            LayoutPolicy::UpdateInPlace,
            Some(l),
            &workload(23, 30),
            false,
        );
        assert!(
            member >= 150,
            "{l:?}: {n} cut points, {member} member writes"
        );
        done += n;
    }
    assert!(done >= 800, "{done} cut points");
}

/// The DLE: a power cut at every device write of a workload with staged and direct
/// writes, destages and snapshots (in the suite: 714 distinct cut points, 507 of them
/// member writes). SPINDLE_CRASH_POINTS=10000 adds further workloads, every cut
/// point of each, until that many.
#[test]
fn power_cuts_at_every_device_write_lose_nothing_acknowledged() {
    let (mut done, member) = every_cut(LayoutPolicy::Proximal, &workload(11, 60), true);
    assert!(
        done >= 400 && member >= 250,
        "{done} cut points, {member} member writes"
    );
    let more: u64 = std::env::var("SPINDLE_CRASH_POINTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut w = 12;
    while done < more {
        done += every_cut(LayoutPolicy::Proximal, &workload(w, 120), true).0;
        w += 1;
    }
}

/// Update in place: writes go in place, so a cut can tear a stripe row; recovery
/// resynchronizes it and every block is old or new. A cut at every device write (484
/// distinct cut points, 401 of them member writes).
#[test]
fn power_cuts_in_update_in_place_leave_blocks_old_or_new() {
    let (done, member) = every_cut(LayoutPolicy::UpdateInPlace, &workload(13, 40), false);
    assert!(
        done >= 300 && member >= 250,
        "{done} cut points, {member} member writes"
    );
}

/// Write-anywhere: every write goes to free blocks and commits its pointers after, so
/// a write in flight is all old or all new. A cut at every device write (368 distinct
/// cut points, 285 of them member writes).
#[test]
fn power_cuts_in_write_anywhere_lose_nothing_acknowledged() {
    let (done, member) = every_cut(LayoutPolicy::WriteAnywhere, &workload(17, 40), true);
    assert!(
        done >= 300 && member >= 250,
        "{done} cut points, {member} member writes"
    );
}

fn clean_remaining(d: &Dle) -> u64 {
    d.raid().faults.crash_budget().unwrap_or(u64::MAX)
}

#[test]
fn destage_progress_reports_every_extent_batch() {
    use std::sync::{Arc, Mutex};
    let mut d = small_dle(LayoutPolicy::Proximal);
    for e in 0..3 {
        d.write(e, 5, &[content(e, 5, 1)]).expect("update");
    }
    let calls = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&calls);
    d.destage_progress = Some(DestageProgress(Arc::new(move |done, total| {
        if let Ok(mut v) = seen.lock() {
            v.push((done, total));
        }
    })));
    // A clone shares the hook (the engine is `Clone`).
    let mut twin = d.clone();
    d.destage().expect("destage");
    let got = calls.lock().expect("calls").clone();
    assert_eq!(got, vec![(1, 3), (2, 3), (3, 3)]);
    twin.destage().expect("destage");
    assert_eq!(calls.lock().expect("calls").len(), 6);
}

/// A power cut during every metadata write of the DLE workload (a staging record, an
/// intent, a commit, a snapshot), tearing it: part of the record reaches the flash,
/// the rest is garbage. (A cut counted in device writes never lands on a commit: the
/// engine stops after a batch whose writes the cut took.) Each cut runs twice: the
/// tear at a seeded byte of the record, and just after its header (so that the length
/// field is whole and only the checksum can tell). Recovery must cut the torn tail
/// off and lose no acknowledged write; the write in flight is all old or all new
/// (111 metadata writes: 222 torn records).
#[test]
fn power_cuts_that_tear_a_metadata_record_lose_nothing_acknowledged() {
    let ops = workload(11, 60);
    let template = small_dle(LayoutPolicy::Proximal);
    let mut clean = template.clone();
    let mut model = Model::new();
    for (v, op) in ops.iter().enumerate() {
        apply(&mut clean, &mut model, op, v as u64).expect("clean run");
    }
    let meta = clean.stats.flash_meta_writes - template.stats.flash_meta_writes;
    let mut torn = 0;
    for k in 0..meta {
        for tear in [Tear::seeded(k), Tear::keeping(metalog::HEADER_BYTES + 1, k)] {
            torn += crash_case(&template, &ops, Cut::MetaWrite(k), true, Some(tear)).torn;
        }
    }
    eprintln!("{meta} metadata writes: {torn} torn records discarded");
    assert!(meta >= 100, "{meta} metadata writes");
    assert_eq!(torn, 2 * meta, "every cut tore its record");
}

/// Replaying the flash's bytes after a clean workload (snapshots, destages, direct
/// and staged writes) gives exactly the state the engine wrote, for every policy.
#[test]
fn replay_of_the_metadata_log_gives_the_state_the_engine_wrote() {
    for policy in POLICIES {
        let (mut d, model) = after_workload(policy, 5, 200);
        let image = d.durable_image().clone();
        assert!(!image.maps.is_empty());
        d.crash_after_writes(0);
        assert_eq!(d.destage(), Err(DleError::Crashed));
        let mut d = d.recover().expect("recover");
        assert!(*d.durable_image() == image, "{policy:?}: replay differs");
        assert_eq!(d.meta_log_stats().tails_discarded, 0);
        assert_matches(&mut d, &model);
    }
}
