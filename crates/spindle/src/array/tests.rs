//! Behaviour of the RAID-4 group: the data path against a plain in-memory model,
//! fault injection, degraded mode and rebuild.

use super::layout::checksum_block;
use super::*;
use crate::array::layout::ParityLayout;
use crate::disk::presets::preset;
use crate::store::{block_from, Block};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// A 4+1 group of wd-re3 drives with a small stripe unit, so that a few hundred
/// volume blocks span many rows, members and checksum zones.
fn small_array() -> Raid4 {
    small_array_syncing(true)
}

/// `small_array`, with or without a cache flush ending each write batch (wd-re3
/// drives cache writes).
fn small_array_syncing(sync_writes: bool) -> Raid4 {
    let disk = preset("wd-re3").expect("preset");
    assert!(disk.firmware.write_cache_sectors > 0);
    let cfg = Raid4Config {
        data_disks: 4,
        stripe_unit_blocks: 16,
        max_outstanding: 8,
        sync_writes,
        ..Raid4Config::default()
    };
    Raid4::new(disk, cfg).expect("array")
}

fn payload(rng: &mut ChaCha8Rng) -> Block {
    let mut b = [0u8; 48];
    rng.fill(&mut b[..]);
    block_from(&b)
}

/// Reads `blocks` and checks each against the model: a block comes back right or as an
/// error, never wrong. Returns (right, refused).
fn check_reads(a: &mut Raid4, model: &BTreeMap<u64, Block>, blocks: &[u64]) -> (u64, u64) {
    let (out, _) = a.read_batch(blocks).expect("in range");
    let mut right = 0;
    let mut refused = 0;
    for (v, r) in blocks.iter().zip(out) {
        let want = model
            .get(v)
            .cloned()
            .unwrap_or_else(crate::store::zero_block);
        match r {
            Ok(b) => {
                assert!(b == want, "block {v}: wrong bytes returned");
                right += 1;
            }
            Err(_) => refused += 1,
        }
    }
    (right, refused)
}

#[test]
fn single_block_update_costs_eight_disk_ios() {
    let mut a = small_array();
    let r = a.write_batch(&[(5, block_from(b"x"))]).expect("write");
    assert_eq!(r.disk_ios(), 8, "{:?}", r.disks);
    assert_eq!(r.disks[0].reads, 2);
    assert_eq!(r.disks[0].writes, 2);
    assert_eq!(r.disks[4].reads, 2);
    assert_eq!(r.disks[4].writes, 2);
    assert_eq!(r.detections, 0);
}

#[test]
fn full_row_write_uses_addition_and_reads_only_checksum_blocks() {
    let mut a = small_array();
    let writes: Vec<(u64, Block)> = (0..4)
        .map(|d| (d * 16, block_from(&[d as u8 + 1])))
        .collect();
    let r = a.write_batch(&writes).expect("write");
    // Five checksum-block reads, then five data/parity and five checksum writes.
    assert_eq!(r.disk_ios(), 15, "{:?}", r.disks);
    let model: BTreeMap<u64, Block> = writes.into_iter().collect();
    let blocks: Vec<u64> = model.keys().copied().collect();
    assert_eq!(check_reads(&mut a, &model, &blocks), (4, 0));
}

#[test]
fn same_seed_same_timing() {
    let run = || {
        let mut a = small_array();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut ends = Vec::new();
        for _ in 0..20 {
            let w: Vec<(u64, Block)> = (0..4)
                .map(|_| (rng.gen_range(0..400), payload(&mut rng)))
                .collect();
            ends.push(a.write_batch(&w).expect("write").end_ns);
        }
        ends
    };
    assert_eq!(run(), run());
}

/// Fault injection over thousands of random operations: lost and misdirected writes
/// on every member write (repairs included), and bit flips on stored blocks. Every
/// read returns the model's bytes or a refusal; after a scrub nothing damaged remains
/// and a second scrub finds nothing.
fn fault_run(seed: u64, lost_write: f64, misdirected_write: f64, bit_flip: f64) {
    let c = FaultCampaign {
        seed,
        lost_write,
        misdirected_write,
        bit_flip,
        ..FaultCampaign::default()
    };
    let r = run_fault_campaign(&preset("wd-re3").expect("preset"), &c).expect("campaign");
    eprintln!(
        "seed {seed}: {}",
        serde_json::to_string(&r).unwrap_or_default()
    );
    assert!(r.injected_total > 0 && r.detections > 0, "{r:?}");
    assert_eq!(r.returned_wrong, 0, "wrong bytes returned: {r:?}");
    assert_eq!(r.unrecoverable_after_scrub, 0, "{r:?}");
    assert_eq!(r.damaged_left, 0, "damage not found by the scrub: {r:?}");
    assert_eq!(r.second_scrub_detections, 0, "{r:?}");
    assert_eq!(r.final_reads_right, r.final_reads_total, "{r:?}");
    assert!(r.locations_repaired > 0, "{r:?}");
}

/// Issue #16 at campaign scale: high fault rates put two faults in one stripe row
/// often (the first case lost the data and parity writes of one update and returned
/// a zero block before the fix). Such rows are refused; no read is ever wrong.
#[test]
fn campaigns_with_double_faults_never_return_wrong_bytes() {
    let mut refused = 0;
    for (seed, ops, lost, misdirected, flips) in [
        (5, 500, 0.01, 0.0, 0.0),
        (1, 400, 0.01, 0.01, 0.01),
        (2, 400, 0.05, 0.05, 0.05),
        (3, 400, 0.05, 0.0, 0.0),
    ] {
        let c = FaultCampaign {
            seed,
            ops,
            lost_write: lost,
            misdirected_write: misdirected,
            bit_flip: flips,
            ..FaultCampaign::default()
        };
        let r = run_fault_campaign(&preset("wd-re3").expect("preset"), &c).expect("campaign");
        assert_eq!(r.returned_wrong, 0, "seed {seed}: {r:?}");
        refused += r.reads_refused + r.final_reads_refused;
    }
    assert!(refused > 0, "no row was hit twice: the test tests nothing");
}

#[test]
fn bit_flips_are_detected_and_repaired() {
    fault_run(1, 0.0, 0.0, 0.05);
}

#[test]
fn lost_writes_are_detected_and_repaired() {
    fault_run(2, 0.002, 0.0, 0.0);
}

#[test]
fn misdirected_writes_are_detected_and_repaired() {
    fault_run(3, 0.0, 0.002, 0.0);
}

#[test]
fn mixed_faults_are_detected_and_repaired() {
    fault_run(4, 0.001, 0.001, 0.02);
}

#[test]
fn degraded_reads_and_writes_then_rebuild() {
    for failed in [1usize, 4] {
        let mut a = small_array();
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut model = BTreeMap::new();
        let w: Vec<(u64, Block)> = (0..300).map(|v| (v, payload(&mut rng))).collect();
        a.write_batch(&w).expect("write");
        model.extend(w);
        a.fail_disk(failed).expect("first failure");
        let all: Vec<u64> = (0..320).collect();
        assert_eq!(
            check_reads(&mut a, &model, &all),
            (320, 0),
            "degraded reads, member {failed} down"
        );
        // Writes in degraded mode, some of them to the failed member.
        for _ in 0..40 {
            let w: Vec<(u64, Block)> = (0..3)
                .map(|_| (rng.gen_range(0..320), payload(&mut rng)))
                .collect();
            a.write_batch(&w).expect("degraded write");
            model.extend(w);
        }
        assert_eq!(check_reads(&mut a, &model, &all), (320, 0));
        a.replace_disk(failed).expect("replace");
        while !a.rebuild_step(1).expect("rebuild") {}
        assert_eq!(a.state(failed), Some(MemberState::Healthy));
        let (errors, scrub) = a.scrub().expect("scrub");
        assert!(
            errors.is_empty() && scrub.detections == 0,
            "after rebuild: {errors:?}, {}",
            scrub.detections
        );
        assert_eq!(check_reads(&mut a, &model, &all), (320, 0));
    }
}

#[test]
fn second_failure_during_rebuild_is_reported_not_hidden() {
    let mut a = small_array();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let w: Vec<(u64, Block)> = (0..400).map(|v| (v, payload(&mut rng))).collect();
    a.write_batch(&w).expect("write");
    let model: BTreeMap<u64, Block> = w.into_iter().collect();
    a.fail_disk(2).expect("first failure");
    a.replace_disk(2).expect("replace");
    assert!(!a.rebuild_step(1).expect("first zone rebuilds"));
    assert_eq!(
        a.fail_disk(0),
        Err(ArrayError::DoubleFailure {
            first: 2,
            second: 0
        })
    );
    assert!(
        a.rebuild_step(1).is_err(),
        "rebuild must stop, not invent data"
    );
    let all: Vec<u64> = (0..400).collect();
    let (right, refused) = check_reads(&mut a, &model, &all);
    assert!(refused > 0 && right > 0, "right {right}, refused {refused}");
}

#[derive(Clone, Debug)]
enum Op {
    Write(Vec<(u64, u8)>),
    Read(Vec<u64>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        prop::collection::vec((0u64..200, any::<u8>()), 1..8).prop_map(Op::Write),
        prop::collection::vec(0u64..200, 1..8).prop_map(Op::Read),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Any sequence of writes and reads returns what a plain in-memory volume would.
    #[test]
    fn array_behaves_like_a_plain_volume(
        ops in prop::collection::vec(op(), 1..25),
        sync_writes in any::<bool>(),
    ) {
        // Without flushes, reads must also see writes the drives hold in their caches.
        let mut a = small_array_syncing(sync_writes);
        let mut model: BTreeMap<u64, Block> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Write(w) => {
                    let w: Vec<(u64, Block)> = w.into_iter().map(|(v, x)| (v, block_from(&[x; 100]))).collect();
                    a.write_batch(&w).expect("write");
                    model.extend(w);
                }
                Op::Read(blocks) => {
                    let (out, _) = a.read_batch(&blocks).expect("read");
                    for (v, r) in blocks.iter().zip(out) {
                        let want = model.get(v).cloned().unwrap_or_else(crate::store::zero_block);
                        prop_assert!(r.as_ref() == Ok(&want), "block {}", v);
                    }
                }
            }
        }
    }
}

#[test]
fn synced_batches_leave_nothing_in_the_drive_caches() {
    let mut a = small_array();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let w: Vec<(u64, Block)> = (0..40).map(|i| (i * 5, payload(&mut rng))).collect();
    let r = a.write_batch(&w).expect("write");
    assert_eq!(a.buffered_blocks(), 0);
    // The flush is part of the batch: every member's last completion is its flush.
    assert!(r
        .disks
        .iter()
        .all(|d| d.last_done.is_none_or(|t| t.0 <= r.end_ns)));
}

#[test]
fn unsynced_writes_are_read_from_the_caches_and_lost_at_a_power_cut() {
    let mut a = small_array_syncing(false);
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let old: Vec<(u64, Block)> = (0..8).map(|v| (v, payload(&mut rng))).collect();
    let mut b = small_array_syncing(false);
    for x in [&mut a, &mut b] {
        x.write_batch(&old).expect("write");
        // Reading back forces the cached writes of the blocks read to the media.
        let (out, _) = x.read_batch(&[0]).expect("read");
        assert!(out[0].as_ref() == Ok(&old[0].1));
    }
    let new: Vec<(u64, Block)> = (0..8).map(|v| (v, payload(&mut rng))).collect();
    a.write_batch(&new).expect("write");
    b.write_batch(&new).expect("write");
    assert!(
        a.buffered_blocks() > 0,
        "the drives acknowledged from their caches"
    );
    // Without a power cut the new bytes come back (from the caches where needed).
    let blocks: Vec<u64> = (0..8).collect();
    let (out, _) = b.read_batch(&blocks).expect("read");
    for ((_, want), got) in new.iter().zip(&out) {
        assert!(got.as_ref() == Ok(want));
    }
    // A power cut loses what was only cached; recovery leaves every row consistent,
    // and each block reads back as a version that was written, never as garbage.
    let lost = a.buffered_blocks();
    a.recover_after_crash(&blocks).expect("recover");
    let (out, _) = a.read_batch(&blocks).expect("read");
    let mut old_seen = 0;
    for (i, got) in out.iter().enumerate() {
        let got = got.as_ref().expect("readable after recovery");
        assert!(got == &new[i].1 || got == &old[i].1, "block {i}");
        old_seen += usize::from(got == &old[i].1);
    }
    assert!(
        old_seen > 0,
        "{lost} cached blocks were lost, none of them data?"
    );
}

#[test]
fn two_corrupt_checksum_blocks_in_one_zone_are_rebuilt_from_a_consistent_row() {
    let mut a = small_array();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let w: Vec<(u64, Block)> = (0..200).map(|v| (v, payload(&mut rng))).collect();
    a.write_batch(&w).expect("write");
    let model: BTreeMap<u64, Block> = w.into_iter().collect();
    assert!(a.inject_bit_flip(0, checksum_block(0), 77));
    assert!(a.inject_bit_flip(4, checksum_block(0), 1234));
    let (errors, report) = a.scrub().expect("scrub");
    assert!(
        errors.is_empty(),
        "{} errors, e.g. {:?}",
        errors.len(),
        errors.first()
    );
    assert_eq!(report.detections, 2);
    let all: Vec<u64> = model.keys().copied().collect();
    assert_eq!(check_reads(&mut a, &model, &all), (all.len() as u64, 0));
}

/// A timing-only array issues exactly the I/Os of a real-bytes one: random batches of
/// 1 to 120 blocks (read-modify-write and reconstruct-write rows, shared checksum
/// zones, repeated blocks) give identical reports, and so do reads and head moves.
#[test]
fn timing_only_mode_has_the_real_bytes_timing() {
    let real = small_array();
    let cfg = Raid4Config {
        data: crate::store::DataMode::TimingOnly,
        ..*real.config()
    };
    let mut timing = Raid4::new(preset("wd-re3").expect("preset"), cfg).expect("array");
    let mut real = real;
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for round in 0..60 {
        let n = rng.gen_range(1..120);
        let base = rng.gen_range(0..5000u64);
        let writes: Vec<(u64, Block)> = (0..n)
            .map(|_| (base + rng.gen_range(0..600), payload(&mut rng)))
            .collect();
        let blocks: Vec<u64> = writes.iter().map(|w| w.0).collect();
        let a = real.write_batch(&writes).expect("real write");
        let b = timing
            .write_blocks_timing_only(&blocks)
            .expect("timing write");
        assert_eq!(a, b, "round {round}");
        if round % 7 == 0 {
            let mut sorted = blocks.clone();
            sorted.sort_unstable();
            let (_, a) = real.read_batch(&sorted).expect("real read");
            let (_, b) = timing.read_batch(&sorted).expect("timing read");
            assert_eq!(a, b, "read after round {round}");
            let seed = rng.gen();
            real.scatter_heads(&mut ChaCha8Rng::seed_from_u64(seed))
                .expect("scatter");
            timing
                .scatter_heads(&mut ChaCha8Rng::seed_from_u64(seed))
                .expect("scatter");
        }
    }
    assert_eq!(real.now(), timing.now());
    assert_eq!(
        real.write_blocks_timing_only(&[1]),
        Err(ArrayError::BytesRequired)
    );
}

/// The bytes of (member, block) as stored.
fn raw(a: &mut Raid4, disk: usize, block: u64) -> Block {
    a.member_store_mut(disk).expect("member").read(block)
}

fn put_raw(a: &mut Raid4, disk: usize, block: u64, b: &Block) {
    a.member_store_mut(disk).expect("member").write(block, b);
}

/// Issue #16. When the data write and the parity write of one update are both lost,
/// the row is parity-consistent at the older version (zeros for a first write). Its
/// generations still say the update happened, so the block must be refused — also
/// after the checksum blocks that describe it are lost or damaged and repaired.
#[test]
fn a_row_left_at_an_older_version_by_lost_writes_is_refused_never_returned() {
    use super::layout::data_block;
    // Volume block 5: member 0, row 5; the row's other data members stay unwritten.
    let (v, row, parity) = (5u64, 5u64, 4usize);
    // A bit in the unused last entry of a checksum block: the block fails its own
    // checksum while the entry of row 5 is intact.
    let unused_entry_bit = 4000 * 8;
    for (case, first_write) in [
        (
            "data and parity writes lost, then both checksum blocks damaged",
            false,
        ),
        (
            "the first write's data and parity writes lost (zeros)",
            true,
        ),
        ("data, parity and both checksum-block writes lost", false),
    ]
    .iter()
    .copied()
    .enumerate()
    .map(|(i, (name, first))| ((i, name), first))
    {
        let mut a = small_array();
        let mut rng = ChaCha8Rng::seed_from_u64(16);
        let old = payload(&mut rng);
        if !first_write {
            a.write_batch(&[(v, old.clone())]).expect("first write");
        }
        let before: Vec<Block> = [
            (0, data_block(row)),
            (parity, data_block(row)),
            (0, checksum_block(row)),
            (parity, checksum_block(row)),
        ]
        .iter()
        .map(|&(d, b)| raw(&mut a, d, b))
        .collect();
        let new = payload(&mut rng);
        a.write_batch(&[(v, new.clone())]).expect("update");
        // The update's data and parity writes never reached the media.
        put_raw(&mut a, 0, data_block(row), &before[0]);
        put_raw(&mut a, parity, data_block(row), &before[1]);
        if case.0 == 2 {
            // Nor did its checksum-block writes.
            put_raw(&mut a, 0, checksum_block(row), &before[2]);
            put_raw(&mut a, parity, checksum_block(row), &before[3]);
        }
        let stale = if first_write {
            crate::store::zero_block()
        } else {
            old
        };
        let check = |a: &mut Raid4, when: &str| {
            let (out, _) = a.read_batch(&[v]).expect("in range");
            assert!(
                out[0].as_ref() != Ok(&stale),
                "{}: {when}: the older version was returned",
                case.1
            );
            assert!(out[0].is_err(), "{}: {when}: {:?}", case.1, out[0]);
        };
        check(&mut a, "read");
        a.scrub().expect("scrub");
        check(&mut a, "after a scrub");
        // The parity member's checksum block is damaged and repaired, then the data
        // member's: each repair must keep row 5 known-bad.
        for disk in [parity, 0] {
            assert!(a.inject_bit_flip(disk, checksum_block(row), unused_entry_bit));
            a.scrub().expect("scrub");
            check(
                &mut a,
                &format!("after repairing member {disk}'s checksum block"),
            );
            a.scrub().expect("scrub");
            check(&mut a, "after a second scrub");
        }
    }
}

/// Issue #16, power cuts: acknowledged writes read back exactly after a recovery,
/// whatever the checksum blocks on the media say. Case 1: an acknowledged update whose
/// data and checksum-block writes were both lost (its parity write landed), then a
/// power cut in the same row: the stale block verifies against its stale entry, so a
/// recovery that trusted the media's generations would return it. Case 2: a checksum
/// block of another zone lost: a recovery that rebuilt the generations from the
/// checksum blocks would take its rows for never written and return zeros.
#[test]
fn acknowledged_writes_read_back_after_a_power_cut_whatever_their_checksum_blocks_say() {
    use super::layout::data_block;
    // Block 5: member 0, row 5 (zone 0); block 21: member 1, row 5; block 388:
    // member 0, row 100 (zone 1). Parity on member 4.
    for case in [1, 2] {
        let mut a = small_array();
        let mut rng = ChaCha8Rng::seed_from_u64(16 + case);
        let (v, row) = if case == 1 { (5u64, 5u64) } else { (388, 100) };
        let old = payload(&mut rng);
        a.write_batch(&[(v, old.clone())]).expect("first write");
        let before = [
            raw(&mut a, 0, data_block(row)),
            raw(&mut a, 0, checksum_block(row)),
        ];
        let new = payload(&mut rng);
        a.write_batch(&[(v, new.clone())]).expect("update");
        if case == 1 {
            put_raw(&mut a, 0, data_block(row), &before[0]);
            put_raw(&mut a, 0, checksum_block(row), &before[1]);
        } else {
            put_raw(&mut a, 0, checksum_block(row), &crate::store::zero_block());
        }
        // The power goes before any member write of a batch to block 21.
        let cut_off = payload(&mut rng);
        a.faults.crash_after_writes(0);
        a.write_batch(&[(21, cut_off.clone())]).expect("batch");
        a.faults.power_restored();
        a.recover_after_crash(&[21]).expect("recover");
        let (out, _) = a.read_batch(&[v, 21]).expect("in range");
        assert!(
            out[0].as_ref() != Ok(&old),
            "case {case}: stale bytes returned"
        );
        assert!(
            out[0].as_ref() == Ok(&new),
            "case {case}: block {v}: {:?}",
            out[0].as_ref().map(|b| b[..8].to_vec())
        );
        let zeros = crate::store::zero_block();
        assert!(
            out[1].as_ref() == Ok(&zeros) || out[1].as_ref() == Ok(&cut_off),
            "case {case}: the cut-off block is neither old nor new"
        );
        let (errors, _) = a.scrub().expect("scrub");
        assert!(errors.is_empty(), "case {case}: {errors:?}");
    }
}

/// Both RAID-5 parity layouts the byte-exact group has.
const PARITY_LAYOUTS: [ParityLayout; 2] =
    [ParityLayout::LeftSymmetric, ParityLayout::LeftAsymmetric];

/// A 3+1 RAID-5 (rotating parity, `layout`) of wd-re3 drives, 4-16-block units.
fn small_raid5(seed: u64, layout: ParityLayout) -> Raid4 {
    small_raid5_syncing(seed, true, layout)
}

fn small_raid5_syncing(seed: u64, sync_writes: bool, layout: ParityLayout) -> Raid4 {
    let disk = preset("wd-re3").expect("preset");
    let cfg = Raid4Config {
        data_disks: 3,
        stripe_unit_blocks: 4 + seed % 13,
        max_outstanding: 8,
        sync_writes,
        ..Raid4Config::default()
    };
    Raid4::new(disk, cfg)
        .expect("array")
        .rotating_parity(layout)
        .expect("fresh")
}

/// RAID-5 with real bytes survives any single member failing in the middle of a
/// workload: degraded reads and writes return the right bytes, rebuild restores the
/// member, and no block is ever wrong (any member, several seeds, both layouts).
#[test]
fn raid5_survives_any_single_failure_mid_workload() {
    for (seed, layout) in [1u64, 2, 3]
        .into_iter()
        .flat_map(|s| PARITY_LAYOUTS.map(|l| (s, l)))
    {
        for failed in 0..4usize {
            let mut a = small_raid5(seed, layout);
            assert_eq!(a.layout().rotation, Some(layout));
            let mut rng = ChaCha8Rng::seed_from_u64(seed * 10 + failed as u64);
            let span = 400u64;
            let all: Vec<u64> = (0..span).collect();
            let mut model = BTreeMap::new();
            let batch = |a: &mut Raid4, rng: &mut ChaCha8Rng, model: &mut BTreeMap<u64, Block>| {
                // Small random updates (read-modify-write) and whole-stripe runs.
                let w: Vec<(u64, Block)> = if rng.gen_bool(0.5) {
                    (0..rng.gen_range(1..5))
                        .map(|_| (rng.gen_range(0..span), payload(rng)))
                        .collect()
                } else {
                    let at = rng.gen_range(0..span - 64);
                    (at..at + 64).map(|v| (v, payload(rng))).collect()
                };
                a.write_batch(&w).expect("write");
                model.extend(w);
            };
            for _ in 0..30 {
                batch(&mut a, &mut rng, &mut model);
            }
            assert_eq!(check_reads(&mut a, &model, &all), (span, 0), "seed {seed}");
            a.fail_disk(failed).expect("first failure");
            for _ in 0..30 {
                batch(&mut a, &mut rng, &mut model);
            }
            assert_eq!(
                check_reads(&mut a, &model, &all),
                (span, 0),
                "seed {seed}: degraded, member {failed} down"
            );
            a.replace_disk(failed).expect("replace");
            // Writes go on between rebuild steps.
            while !a.rebuild_step(1).expect("rebuild") {
                batch(&mut a, &mut rng, &mut model);
            }
            assert_eq!(a.state(failed), Some(MemberState::Healthy));
            let (errors, scrub) = a.scrub().expect("scrub");
            assert!(
                errors.is_empty() && scrub.detections == 0,
                "seed {seed} member {failed}: after rebuild {errors:?}"
            );
            assert_eq!(check_reads(&mut a, &model, &all), (span, 0));
            // Every member now holds parity for some rows: the parity rotates.
            let parity_members: std::collections::BTreeSet<usize> = (0..a.layout().rows.min(400))
                .map(|r| a.layout().parity_of(r))
                .collect();
            assert_eq!(parity_members.len(), 4);
        }
    }
}

/// RAID-5 after a power cut that loses cached writes: recovery leaves every block at a
/// version that was written, and every row's rotated parity consistent — a member
/// failing right after still reads back every block right (both layouts).
#[test]
fn raid5_recovers_from_a_power_cut_with_consistent_rotating_parity() {
    for (seed, layout) in [1u64, 2, 3]
        .into_iter()
        .flat_map(|s| PARITY_LAYOUTS.map(|l| (s, l)))
    {
        for failed in 0..4usize {
            let mut a = small_raid5_syncing(seed, false, layout);
            let mut rng = ChaCha8Rng::seed_from_u64(seed + 100);
            let span = 96u64;
            let blocks: Vec<u64> = (0..span).collect();
            let old: Vec<(u64, Block)> = blocks.iter().map(|&v| (v, payload(&mut rng))).collect();
            a.write_batch(&old).expect("write");
            let _ = a.read_batch(&blocks).expect("read");
            let mut new: Vec<(u64, Block)> = Vec::new();
            for &v in &blocks {
                if rng.gen_bool(0.5) {
                    new.push((v, payload(&mut rng)));
                }
            }
            a.write_batch(&new).expect("write");
            a.recover_after_crash(&blocks).expect("recover");
            let (out, _) = a.read_batch(&blocks).expect("read");
            let mut now: BTreeMap<u64, Block> = BTreeMap::new();
            for (&v, got) in blocks.iter().zip(&out) {
                let got = got.as_ref().expect("readable after recovery");
                let o = &old[v as usize].1;
                let n = new.iter().find(|w| w.0 == v).map(|w| &w.1);
                assert!(
                    got == o || Some(got) == n,
                    "seed {seed}: block {v} is neither version"
                );
                now.insert(v, got.clone());
            }
            a.fail_disk(failed).expect("failure");
            assert_eq!(
                check_reads(&mut a, &now, &blocks),
                (span, 0),
                "seed {seed}: degraded after recovery, member {failed} down"
            );
        }
    }
}

/// A breach of the engine's invariants inside the members (here: an executor whose
/// clock runs ahead of its members' events) is returned to the caller as an internal
/// error by every operation that runs the members, never a panic; the group is still
/// there to inspect afterwards.
#[test]
fn an_internal_error_inside_the_members_is_returned_not_a_panic() {
    for seed in [1u64, 2, 3] {
        let mut a = small_array();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let w: Vec<(u64, Block)> = (0..4)
            .map(|_| (rng.gen_range(0..300), payload(&mut rng)))
            .collect();
        a.write_batch(&w).expect("a healthy write");
        a.break_clock = true;
        let internal = |r: Result<(), ArrayError>| matches!(r, Err(ArrayError::Internal(ref m)) if m.contains("array members"));
        assert!(internal(a.write_batch(&w).map(|_| ())), "seed {seed}");
        assert!(internal(a.read_batch(&[w[0].0]).map(|_| ())), "seed {seed}");
        assert!(internal(a.scrub().map(|_| ())), "seed {seed}");
        assert!(internal(a.scatter_heads(&mut rng)), "seed {seed}");
    }
}

/// A member's busy time in a batch is the union of its service and destage intervals:
/// a cached write's interface time overlapping an older write's destage is counted
/// once, so no member is busier than the batch lasted (PROX-T2's per-disk columns).
#[test]
fn no_member_is_busier_than_its_batch_lasted() {
    for sync in [true, false] {
        no_member_busier_than_the_batch(sync);
    }
}

fn no_member_busier_than_the_batch(sync: bool) {
    let mut a = small_array_syncing(sync);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut busy_seen = false;
    for _ in 0..200 {
        let writes: Vec<(u64, Block)> = (0..rng.gen_range(1..12))
            .map(|_| (rng.gen_range(0..4096u64), payload(&mut rng)))
            .collect();
        let r = a.write_batch(&writes).expect("write");
        let elapsed = r.end_ns - r.start_ns;
        for (d, act) in r.disks.iter().enumerate() {
            assert!(
                act.busy_ns <= elapsed,
                "sync {sync}: member {d} busy {} ns in a batch of {elapsed} ns",
                act.busy_ns
            );
            busy_seen |= act.busy_ns > 0;
        }
    }
    assert!(busy_seen, "no member recorded any busy time");
}
