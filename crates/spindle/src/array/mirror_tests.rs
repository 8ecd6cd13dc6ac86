//! The byte-exact replicated array survives any one member failing in the middle of a
//! seeded random workload: every read returns the last acknowledged write, and at the
//! end every copy on a live member holds exactly the reference model's bytes. The
//! workload ([`failure_workload`]) also runs on MimdRAID's intra-disk placement
//! (`stack::mimd_bytes`).

use super::mirror::{FailAt, Mirror, MirrorOp};
use crate::disk::presets::preset;
use crate::store::{block_from, zero_block, Block};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

const REPLICAS: usize = 4;
/// Working set: blocks spread over the whole volume (so replica choice has seeks to
/// choose between) and a run of consecutive ones.
const WORKING_SET: u64 = 400;
const BATCHES: usize = 10;
const OPS_PER_BATCH: usize = 24;

fn payload(rng: &mut ChaCha8Rng) -> Block {
    let mut b = [0u8; 40];
    rng.fill(&mut b[..]);
    block_from(&b)
}

/// Totals over one run: (reads checked, blocks checked on live members at the end,
/// wrong or lost blocks, whether the failure caught I/Os in flight).
pub(crate) struct RunStats {
    pub reads: u64,
    pub member_blocks: u64,
    pub wrong: u64,
    pub mid_flight: bool,
    pub reissued: u64,
}

/// Every copy of every working-set block on live member `only` (all live members if
/// `None`) against the model: (copies checked, wrong).
fn check_copies(
    m: &Mirror,
    set: &[u64],
    model: &BTreeMap<u64, Block>,
    only: Option<usize>,
) -> (u64, u64) {
    let (mut checked, mut wrong) = (0, 0);
    for &b in set {
        let want = model.get(&b).cloned().unwrap_or_else(zero_block);
        for c in m.copies(b) {
            if m.is_failed(c.member) || only.is_some_and(|d| d != c.member) {
                continue;
            }
            checked += 1;
            if m.members()[c.member].store.read(c.key) != want {
                wrong += 1;
            }
        }
    }
    (checked, wrong)
}

/// Reads `set` through the array and counts the blocks that differ from the model.
fn read_back(m: &mut Mirror, set: &[u64], model: &BTreeMap<u64, Block>) -> (u64, u64) {
    let ops: Vec<MirrorOp> = set.iter().map(|&b| MirrorOp::Read(b)).collect();
    let out = m.batch(&ops, None).expect("read back");
    let wrong = set
        .iter()
        .zip(&out.reads)
        .filter(|(b, got)| got.as_ref() != Some(&model.get(b).cloned().unwrap_or_else(zero_block)))
        .count();
    (set.len() as u64, wrong as u64)
}

/// A seeded workload of read and write batches on `m` during which member `failed`
/// fails mid-batch; then every block is read back and every live copy checked, the
/// failed member rebuilt, the next member failed, and everything checked again.
pub(crate) fn failure_workload(mut m: Mirror, seed: u64, failed: usize) -> RunStats {
    let mut rng = ChaCha8Rng::seed_from_u64(seed * 100 + failed as u64);
    // Half spread over the volume, half consecutive blocks (neighbours on the media,
    // where copies placed too close would overwrite each other).
    let half = WORKING_SET / 2;
    let stride = m.blocks() / half;
    let run_start = m.blocks() / 3 + 1;
    let mut set: Vec<u64> = (0..half)
        .map(|i| i * stride)
        .chain(run_start..run_start + half)
        .collect();
    set.sort_unstable();
    set.dedup();
    let mut model: BTreeMap<u64, Block> = BTreeMap::new();
    let fail_batch = rng.gen_range(1..BATCHES - 1);
    let mut st = RunStats {
        reads: 0,
        member_blocks: 0,
        wrong: 0,
        mid_flight: false,
        reissued: 0,
    };
    for batch in 0..BATCHES {
        let blocks: Vec<u64> = set
            .choose_multiple(&mut rng, OPS_PER_BATCH)
            .copied()
            .collect();
        let ops: Vec<MirrorOp> = blocks
            .iter()
            .map(|&b| {
                if rng.gen_bool(0.5) {
                    MirrorOp::Write(b, payload(&mut rng))
                } else {
                    MirrorOp::Read(b)
                }
            })
            .collect();
        // Mid-batch: within the first few milliseconds of a batch that keeps every
        // member busy for tens of milliseconds.
        let fail = (batch == fail_batch).then(|| FailAt {
            disk: failed,
            after_ns: rng.gen_range(500_000..8_000_000),
        });
        let out = m.batch(&ops, fail).expect("batch");
        if fail.is_some() {
            st.mid_flight = out.failed_mid_flight;
            st.reissued = out.reissued_reads;
        }
        for (op, got) in ops.iter().zip(&out.reads) {
            match op {
                MirrorOp::Read(b) => {
                    st.reads += 1;
                    let want = model.get(b).cloned().unwrap_or_else(zero_block);
                    if got.as_ref() != Some(&want) {
                        st.wrong += 1;
                    }
                }
                MirrorOp::Write(b, data) => {
                    model.insert(*b, data.clone());
                }
            }
        }
    }
    assert!(m.is_failed(failed));
    // Every block of the working set read back through the array ...
    let (n, wrong) = read_back(&mut m, &set, &model);
    st.reads += n;
    st.wrong += wrong;
    // ... and on the media of every live member.
    for (d, member) in m.members().iter().enumerate() {
        if m.is_failed(d) {
            assert!(member.store.is_empty(), "a failed member keeps no bytes");
        } else {
            assert_eq!(member.buffered_blocks(), 0, "writes flushed at batch end");
        }
    }
    let (n, wrong) = check_copies(&m, &set, &model, None);
    st.member_blocks += n;
    st.wrong += wrong;
    // Rebuild the failed member, then lose another: every block still reads right.
    m.replace_and_rebuild(failed).expect("rebuild");
    let other = (failed + 1) % m.replicas();
    m.fail_disk(other).expect("second failure after rebuild");
    let (n, wrong) = read_back(&mut m, &set, &model);
    st.reads += n;
    st.wrong += wrong;
    let (n, wrong) = check_copies(&m, &set, &model, Some(failed));
    st.member_blocks += n;
    st.wrong += wrong;
    st
}

/// [`failure_workload`] on each case (what it is, the array, the seed, the member
/// that fails): no block wrong or lost, and at least half the failures struck with
/// I/Os in flight on the failing member (really mid-workload).
pub(crate) fn survives_every_failure(
    what: &str,
    cases: impl IntoIterator<Item = (String, Mirror, u64, usize)>,
) {
    let (mut reads, mut blocks, mut mid, mut runs, mut reissued) = (0, 0, 0, 0, 0);
    for (case, m, seed, failed) in cases {
        let st = failure_workload(m, seed, failed);
        assert_eq!(st.wrong, 0, "{case} seed {seed} member {failed} failed");
        reads += st.reads;
        blocks += st.member_blocks;
        mid += u64::from(st.mid_flight);
        reissued += st.reissued;
        runs += 1;
    }
    eprintln!(
        "{what}: {runs} runs, {reads} reads checked, {blocks} copies checked, 0 wrong; \
         failure mid-flight in {mid} runs, {reissued} reads re-sent"
    );
    assert!(
        mid >= runs / 2,
        "only {mid} of {runs} failures caught I/Os in flight"
    );
}

#[test]
fn four_way_mirror_survives_any_single_failure_mid_workload() {
    // wd-re3 caches writes (flushed at batch end); st34502lw is MimdRAID's drive.
    let cases = ["st34502lw", "wd-re3"].into_iter().flat_map(|name| {
        (1..=3u64).flat_map(move |seed| {
            (0..REPLICAS).map(move |failed| {
                let m = Mirror::new(preset(name).expect("preset"), REPLICAS, 8).expect("mirror");
                (name.to_string(), m, seed, failed)
            })
        })
    });
    survives_every_failure("4-way mirror", cases);
}

/// A write whose only live copy's member fails before storing it is reported lost,
/// not acknowledged; one stored before the failure is acknowledged.
#[test]
fn a_write_caught_by_its_last_copy_failing_is_lost_not_acknowledged() {
    let p = preset("st34502lw").expect("preset");
    for (after_ns, lost) in [(0, true), (200_000_000, false)] {
        let mut m = Mirror::new(p.clone(), 2, 8).expect("mirror");
        m.fail_disk(0).expect("first");
        let data = block_from(b"last copy");
        let fail = FailAt { disk: 1, after_ns };
        let out = m
            .batch(&[MirrorOp::Write(9, data)], Some(fail))
            .expect("batch");
        assert_eq!(
            out.lost_writes == vec![0],
            lost,
            "failure after {after_ns} ns"
        );
    }
}

#[test]
fn mirror_refuses_bad_input_and_total_loss() {
    let p = preset("st34502lw").expect("preset");
    assert!(Mirror::new(p.clone(), 0, 8).is_err());
    assert!(Mirror::new(p.clone(), super::mirror::MAX_REPLICAS + 1, 8).is_err());
    let mut m = Mirror::new(p, 2, 8).expect("mirror");
    let end = m.blocks();
    assert!(m.batch(&[MirrorOp::Read(end)], None).is_err());
    assert!(m
        .batch(&[MirrorOp::Read(3), MirrorOp::Read(3)], None)
        .is_err());
    m.fail_disk(0).expect("first");
    assert!(m.fail_disk(0).is_err());
    let b = zero_block();
    m.batch(&[MirrorOp::Write(5, b)], None)
        .expect("one replica left");
    m.fail_disk(1).expect("second");
    assert!(
        m.batch(&[MirrorOp::Read(5)], None).is_err(),
        "no replica: refused, not invented"
    );
}
