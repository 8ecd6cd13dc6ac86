//! A seeded power-cut campaign over the data journal (`spindle torture --array
//! journal`): random application writes and reads go through the journal layer (plain
//! commit blocks or transactional checksums, with or without log skipping) on one
//! write-through drive, and the power is cut in the middle of writes. At a cut, each
//! block of every write still in flight independently reached the media whole, not at
//! all, or torn (only its first 1–7 sectors new). Recovery then replays the log, and
//! every block of the volume is read back and checked against a plain copy: the
//! volume must equal the state after some prefix of the transactions that contains
//! every acknowledged write (a write not yet acknowledged may or may not survive,
//! but never in part and never out of order). The next round restarts the journal on
//! the recovered device, its superblock recording the last replayed transaction, so
//! faults and recoveries pile up over the run as they would on one disk.
//!
//! Outside the cuts, the device's writes may be lost, misdirected (landing elsewhere
//! on the drive) or torn, and stored blocks may take bit flips: the journal keeps a
//! checksum with each home block (xxh3 of the block number and bytes, see
//! [`super::journal::Inside::sums`]), and a block whose bytes fail it is refused,
//! never returned. Faults in the log show the same way: a record that fails its
//! checks stops the replay, and the home blocks it would have brought up to date fail
//! their checksums. One drive holds one copy, so a refused block stays unreadable
//! until it is written again. Drive failure is refused before the campaign runs: with
//! one drive there is nothing to rebuild from; a journal needs a redundant device
//! below it (a RAID-4) to survive it.

use super::drive_node::DriveNode;
use super::journal::{
    home_ok, home_sum, payload, recover, super_block, JournalSpec, Media, Probe, SharedTable,
    WriteFaults,
};
use super::journal_array::{ArrayCounts, ArrayMedia};
use super::layer::LayerNode;
use super::torture::TortureStack;
use super::tree::DeviceSpec;
use crate::disk::drive::Drive;
use crate::disk::hdd::Request;
use crate::disk::params::DiskParams;
use crate::engine::{Step, Stepper};
use crate::mimic::minimimic::{sample, Grid, Region};
use crate::node::Device;
use crate::store::{Block, BlockStore, SECTORS_PER_BLOCK};
use crate::time::SimTime;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Application requests per round (a round ends at a power cut or when its requests
/// are done; the journal then restarts on the recovered device). Long enough that a
/// small log fills and is cleaned within a round.
const ROUND_REQUESTS: usize = 200;

/// The campaign's knobs.
#[derive(Clone, Debug, Serialize)]
pub struct JournalTortureConfig {
    pub seed: u64,
    /// Application requests (writes and reads of 1–6 blocks, some unaligned).
    pub ops: usize,
    /// Application blocks the requests touch.
    pub span_blocks: u64,
    /// Probability, per application write, that the power is cut while it runs.
    pub crash: f64,
    /// Transactional checksums (else commit blocks).
    pub checksum: bool,
    /// Log skipping, with a miniMimic table sampled on the drive first.
    pub skip: bool,
    pub log_mib: u64,
    /// Clean the log when less than this percentage is free.
    pub clean_below_pct: u32,
    /// Per device write: lost, misdirected, torn; after it, a bit flip of a stored
    /// block.
    pub lost: f64,
    pub misdirected: f64,
    pub torn: f64,
    pub flips: f64,
    /// A byte-exact redundant array under the journal (else one drive, whose writes
    /// take the faults above).
    #[serde(skip)]
    pub below: Option<JournalBelow>,
}

/// The redundant array a journal campaign runs over ([`super::journal_array`]).
#[derive(Clone, Debug)]
pub struct JournalBelow {
    /// The array's shape, drive and each member's faults.
    pub stack: TortureStack,
    /// Its timing model: the same tree, without faults.
    pub timing: DeviceSpec,
    /// Probability, per journal device write while every member is up, that one
    /// member fails.
    pub fail: f64,
    /// Application requests a failed member stays out: it is replaced and rebuilt at
    /// the start of the first round after that many.
    pub replace_after: usize,
}

/// What a campaign did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct JournalTortureReport {
    pub stack: String,
    pub seed: u64,
    pub ops: usize,
    pub rounds: u64,
    /// Power cuts injected, and recoveries after which the volume checked out.
    pub power_cuts: u64,
    pub recoveries_consistent: u64,
    /// Cuts that caught at least one write in flight, and the in-flight blocks that
    /// reached the media torn (first sectors only), whole, or not at all.
    pub cuts_with_writes_in_flight: u64,
    pub blocks_torn: u64,
    pub blocks_landed: u64,
    pub blocks_dropped: u64,
    pub transactions: u64,
    pub writes_acknowledged: u64,
    /// Log cleanings (checkpoint writes home, then the superblock) started.
    pub log_cleanings: u64,
    /// Transactions replayed from the log by the recoveries.
    pub transactions_replayed: u64,
    /// Transactions issued but not acknowledged that a cut took away (allowed).
    pub unacknowledged_lost: u64,
    /// Faults injected into the drive's writes outside the cuts, by kind.
    pub writes_lost: u64,
    pub writes_misdirected: u64,
    pub writes_torn: u64,
    pub bit_flips: u64,
    /// Block reads after each recovery (the whole span): right, refused (the bytes
    /// failed the block's checksum) and wrong.
    pub reads_right: u64,
    pub reads_refused: u64,
    pub wrong_reads: u64,
    /// Bytes that differed from the nearest allowed state: must be 0.
    pub wrong_bytes: u64,
    pub simulated_s: f64,
    /// The array under the journal, if any: failures, rebuilds, its faults.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array: Option<ArrayCounts>,
}

/// One line saying what runs.
pub fn describe(c: &JournalTortureConfig, disk: &DiskParams) -> String {
    let on = match &c.below {
        Some(b) => format!("over a {}", b.stack.describe()),
        None => format!("on one {} (byte-exact)", disk.name),
    };
    format!(
        "data journal ({} MiB log, {}{}) {on}",
        c.log_mib,
        if c.checksum {
            "transactional checksums"
        } else {
            "commit blocks"
        },
        if c.skip { ", log skipping" } else { "" },
    )
}

/// The device the journal runs on, for timing: one drive, or the array's timing tree.
fn device(disk: &DiskParams, below: Option<&JournalBelow>) -> Result<Box<dyn Device>, String> {
    let Some(b) = below else {
        return drive(disk);
    };
    // Refuses a drive that caches writes, with the reason.
    drive(&b.stack.disk)?;
    let q = super::queue::QueueSpec::new(crate::sched::SchedulerKind::Fcfs);
    Ok(super::tree::build(&b.timing, &q, None)?.root)
}

fn drive(disk: &DiskParams) -> Result<Box<dyn Device>, String> {
    let d = Drive::new(disk.clone()).map_err(|e| format!("{}: {e}", disk.name))?;
    if d.caches_writes() {
        return Err(format!(
            "{}: the drive caches writes, so a completed write may not be on the media; the journal needs a write-through drive",
            disk.name
        ));
    }
    Ok(Box::new(DriveNode::new(d, "disk")))
}

/// A round's application requests: writes and reads of 1–6 blocks over the span, a
/// fifth of them starting inside a block, a few ms apart.
fn workload(rng: &mut ChaCha8Rng, n: usize, span: u64) -> Vec<(SimTime, Request)> {
    let mut t = 0u64;
    (0..n as u64)
        .map(|id| {
            t += rng.gen_range(0..6_000_000u64);
            let write = rng.gen_bool(0.7);
            let blocks = rng.gen_range(1..=6u64.min(span));
            let b = rng.gen_range(0..=span - blocks);
            let off = if rng.gen_bool(0.2) {
                rng.gen_range(0..SECTORS_PER_BLOCK)
            } else {
                0
            };
            let sectors = rng.gen_range(1..=blocks * SECTORS_PER_BLOCK - off) as u32;
            let req = Request {
                id,
                lbn: b * SECTORS_PER_BLOCK + off,
                blocks: sectors,
                write,
            };
            (SimTime(t), req)
        })
        .collect()
}

/// Runs the campaign; `progress` is called with the requests done so far.
pub fn run_journal_torture(
    disk: &DiskParams,
    c: &JournalTortureConfig,
    progress: &mut dyn FnMut(usize),
) -> Result<JournalTortureReport, String> {
    crate::show::probabilities(&[
        ("crash", c.crash),
        ("lost", c.lost),
        ("misdirected", c.misdirected),
        ("torn", c.torn),
        ("flips", c.flips),
    ])?;
    if c.span_blocks == 0 {
        return Err("span: at least 1 block".into());
    }
    if let Some(b) = &c.below {
        crate::show::probabilities(&[("fail", b.fail)])?;
        if c.lost + c.misdirected + c.torn + c.flips > 0.0 {
            return Err(
                "over an array, write faults and bit flips belong to its members (their faults tables)"
                    .into(),
            );
        }
        if c.skip {
            return Err(
                "log skipping aims each log write at one drive's head; over an array there is no single head to aim at (drop skip, or run the journal on one drive)"
                    .into(),
            );
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(c.seed);
    let table = if c.skip {
        let grid = Grid {
            skips_kib: (0..=160).step_by(4).collect(),
            sizes_kib: (4..=24).step_by(4).collect(),
            thinks_us: vec![0, 2000, 4000],
            samples: 2,
        };
        let region = Region {
            start: SECTORS_PER_BLOCK,
            sectors: c.log_mib * 256 * SECTORS_PER_BLOCK,
        };
        let mut d = drive(disk)?;
        Some(SharedTable(Rc::new(sample(
            d.as_mut(),
            region,
            grid,
            c.seed,
        )?)))
    } else {
        None
    };
    let mut r = JournalTortureReport {
        stack: describe(c, disk),
        seed: c.seed,
        ops: c.ops,
        ..JournalTortureReport::default()
    };
    // The device as the last recovery left it, and what the volume must hold.
    let mut image = BlockStore::new();
    let mut volume: HashMap<u64, Block> = HashMap::new();
    let mut next_seq = 1u64;
    // The journal's per-block checksums and the fault injector outlive each round.
    let mut sums: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
    let any_fault = c.lost + c.misdirected + c.torn + c.flips > 0.0;
    let mut faults = any_fault.then(|| WriteFaults {
        lost: c.lost,
        misdirected: c.misdirected,
        torn: c.torn,
        flips: c.flips,
        device_blocks: 1 + c.log_mib * 256 + c.span_blocks,
        rng: ChaCha8Rng::seed_from_u64(c.seed ^ 0x006a_6f75_726e_616c),
        lost_n: 0,
        misdirected_n: 0,
        torn_n: 0,
        flips_n: 0,
    });
    let device_blocks = 1 + c.log_mib * 256 + c.span_blocks;
    let media = match &c.below {
        Some(b) => Some(Rc::new(RefCell::new(ArrayMedia::new(
            &b.stack,
            device_blocks,
            c.seed,
            b.fail,
        )?))),
        None => None,
    };
    // A member's crash-at-ms: the power goes during the first write after it.
    let mut crash_at: Option<u64> = c.below.as_ref().and_then(|b| {
        b.stack
            .members
            .iter()
            .filter_map(|(_, f)| f.crash_at_ms)
            .reduce(f64::min)
            .map(|ms| SimTime::from_ms(ms).0)
    });
    let mut done = 0usize;
    let mut sim_ns = 0u64;
    let watch = crate::interrupt::Watch::start();
    while done < c.ops {
        let n = ROUND_REQUESTS.min(c.ops - done);
        let wl = workload(&mut rng, n, c.span_blocks);
        // The write during which the power is cut, if any, and how many events on.
        let mut cut = wl
            .iter()
            .position(|(_, q)| q.write && c.crash > 0.0 && rng.gen_bool(c.crash))
            .map(|i| (i, rng.gen_range(0..8usize)));
        if let Some(at) = crash_at {
            let due = wl
                .iter()
                .position(|(t, q)| q.write && sim_ns + t.0 >= at)
                .filter(|&i| cut.is_none_or(|(j, _)| i < j));
            if let Some(i) = due {
                cut = Some((i, rng.gen_range(0..8usize)));
                crash_at = None;
            }
        }
        if let (Some(m), Some(b)) = (&media, &c.below) {
            let mut m = m.borrow_mut();
            if let Some(e) = m.error.take() {
                return Err(e);
            }
            if m.down.is_some_and(|(_, at)| done >= at + b.replace_after) {
                m.rebuild()?;
            }
            m.offset = SimTime(sim_ns);
            m.set_requests_done(done);
        }
        let mut spec = JournalSpec::new(c.checksum, c.skip, c.log_mib);
        spec.clean_below_pct = c.clean_below_pct;
        spec.table = table.clone();
        spec.first_seq = Some(next_seq);
        let probe = Probe::default();
        {
            let mut inside = probe.0.borrow_mut();
            inside.image = image.clone();
            inside.sums = std::mem::take(&mut sums);
            inside.faults = faults.take();
            inside.media = media.clone().map(|m| m as Rc<RefCell<dyn Media>>);
        }
        spec.probe = Some(probe.clone());
        let journal = spec.build()?;
        let mut node = LayerNode::new(Box::new(journal), device(disk, c.below.as_ref())?);
        if c.span_blocks * SECTORS_PER_BLOCK > node.capacity() {
            return Err(format!(
                "span {} blocks: the journal offers {} blocks on {}",
                c.span_blocks,
                node.capacity() / SECTORS_PER_BLOCK,
                disk.name
            ));
        }
        let mut st: Stepper<Request> = Stepper::new(SimTime::ZERO, false);
        for (t, q) in &wl {
            st.schedule(*t, *q).map_err(|e| format!("{e:?}"))?;
        }
        let (mut out, mut acked) = (Vec::new(), HashSet::new());
        let (mut arrivals, mut after) = (0usize, 0usize);
        let mut now = SimTime::ZERO;
        let crashed = loop {
            if let Some((i, k)) = cut {
                if arrivals > i {
                    if after >= k {
                        break true;
                    }
                    after += 1;
                }
            }
            match st
                .step(&mut node, false, None, &mut out)
                .map_err(|e| format!("{e:?}"))?
            {
                Step::Arrival { now: t, event } => {
                    now = t;
                    node.submit(t, event);
                    arrivals += 1;
                }
                Step::Woken { now: t } => {
                    now = t;
                    for d in &out {
                        if d.req.write {
                            acked.insert(d.req.id);
                        }
                    }
                }
                Step::Idle | Step::Beyond(_) => break false,
            }
        };
        sim_ns += now.0;
        r.rounds += 1;
        let mut inside = probe.0.borrow_mut();
        faults = inside.faults.take();
        sums = std::mem::take(&mut inside.sums);
        r.log_cleanings += inside.cleanings;
        let mut img = inside.image.clone();
        let degraded = media.as_ref().is_some_and(|m| m.borrow().down.is_some());
        if crashed {
            r.power_cuts += 1;
            if !inside.inflight.is_empty() {
                r.cuts_with_writes_in_flight += 1;
            }
            // Each in-flight block lands whole, not at all, or torn.
            let mut landed: Vec<(u64, Block)> = Vec::new();
            for blocks in inside.inflight.values() {
                for (b, data) in blocks {
                    match rng.gen_range(0..3u8) {
                        0 => r.blocks_dropped += 1,
                        1 => {
                            landed.push((*b, data.clone()));
                            r.blocks_landed += 1;
                        }
                        _ => {
                            let k = rng.gen_range(1..SECTORS_PER_BLOCK as usize) * 512;
                            landed.push((*b, torn_over(&img, media.as_ref(), *b, data, k)?));
                            r.blocks_torn += 1;
                        }
                    }
                }
            }
            match &media {
                Some(m) => m.borrow_mut().cut(&landed),
                None => {
                    for (b, data) in &landed {
                        img.write(*b, data);
                    }
                }
            }
        }
        if let Some(m) = &media {
            // Recovery reads the superblock and the log through the array: a block it
            // refuses is missing to recovery.
            let mut m = m.borrow_mut();
            if degraded {
                m.counts.recoveries_degraded += 1;
            }
            let want = m.written_below(1 + inside.log_blocks);
            img = BlockStore::new();
            for (b, got) in want.iter().zip(m.read(&want)?) {
                if let Some(data) = got {
                    img.write(*b, &data);
                }
            }
        }
        let rec = recover(&img, inside.log_blocks, c.checksum);
        r.transactions_replayed += rec.replayed;
        let home0 = 1 + inside.log_blocks;
        let txs = &inside.txs;
        r.transactions += txs.len() as u64;
        r.writes_acknowledged += acked.len() as u64;
        let need = txs
            .iter()
            .rposition(|t| acked.contains(&t.2))
            .map_or(0, |i| i + 1);
        // The volume after each prefix of this round's transactions, from `need` on:
        // the first that every block matches is the state the cut left.
        // A block that fails its checksum is refused: it is neither right nor wrong.
        let checked: Vec<Option<Block>> = match &media {
            None => (0..c.span_blocks)
                .map(|b| rec.read_checked(b, &sums))
                .collect(),
            Some(m) => {
                // Recovery writes the replayed blocks home through the array, then
                // every home block is read back through it.
                let mut m = m.borrow_mut();
                let replayed: Vec<(u64, Block)> = rec
                    .image
                    .written()
                    .filter(|&b| b >= home0)
                    .map(|b| (b, rec.image.read(b)))
                    .collect();
                m.write_now(&replayed);
                let homes: Vec<u64> = (0..c.span_blocks).map(|b| home0 + b).collect();
                m.read(&homes)?
                    .into_iter()
                    .zip(0..c.span_blocks)
                    .map(|(got, b)| got.filter(|g| home_ok(b, g, &sums)))
                    .collect()
            }
        };
        let refused: Vec<bool> = checked.iter().map(Option::is_none).collect();
        let actual: Vec<Block> = checked
            .into_iter()
            .map(|b| b.unwrap_or_else(crate::store::zero_block))
            .collect();
        let n_refused = refused.iter().filter(|&&x| x).count() as u64;
        r.reads_refused += n_refused;
        let mut state = volume.clone();
        for (seq, homes, _) in &txs[..need] {
            for &h in homes {
                state.insert(h, payload(h, *seq));
            }
        }
        let matches = |state: &HashMap<u64, Block>, b: u64| {
            refused[b as usize]
                || match state.get(&b) {
                    Some(v) => *v == actual[b as usize],
                    None => actual[b as usize].iter().all(|&x| x == 0),
                }
        };
        let mut found = (0..c.span_blocks)
            .all(|b| matches(&state, b))
            .then_some(need);
        if found.is_none() {
            for k in need + 1..=txs.len() {
                let (seq, homes, _) = &txs[k - 1];
                for &h in homes {
                    state.insert(h, payload(h, *seq));
                }
                if (0..c.span_blocks).all(|b| matches(&state, b)) {
                    found = Some(k);
                    break;
                }
            }
        }
        match found {
            Some(k) => {
                r.recoveries_consistent += u64::from(crashed);
                r.reads_right += c.span_blocks - n_refused;
                r.unacknowledged_lost += (txs.len() - k) as u64;
                // `state` is the prefix-k state only if the scan went that far.
                let mut s = volume.clone();
                for (seq, homes, _) in &txs[..k] {
                    for &h in homes {
                        s.insert(h, payload(h, *seq));
                    }
                }
                volume = s;
            }
            None => {
                // Judged against the acknowledged state; the volume carries on from
                // what the device holds, so later rounds are judged on their own.
                let mut want = volume.clone();
                for (seq, homes, _) in &txs[..need] {
                    for &h in homes {
                        want.insert(h, payload(h, *seq));
                    }
                }
                for b in 0..c.span_blocks {
                    if refused[b as usize] {
                        continue;
                    }
                    let got = &actual[b as usize];
                    let wrong = match want.get(&b) {
                        Some(v) => v.iter().zip(got.iter()).filter(|(a, b)| a != b).count(),
                        None => got.iter().filter(|&&x| x != 0).count(),
                    } as u64;
                    if wrong == 0 {
                        r.reads_right += 1;
                    } else {
                        r.wrong_reads += 1;
                        r.wrong_bytes += wrong;
                    }
                }
                volume = (0..c.span_blocks)
                    .filter_map(|b| match (refused[b as usize], want.get(&b)) {
                        (true, Some(v)) => Some((b, v.clone())),
                        (true, None) => None,
                        (false, _) => Some((b, actual[b as usize].clone())),
                    })
                    .collect();
            }
        }
        // The blocks read back right now carry one checksum: the one they passed.
        for b in 0..c.span_blocks {
            if !refused[b as usize] {
                if let Some(cands) = sums.get_mut(&b) {
                    let s = home_sum(b, &actual[b as usize]);
                    cands.retain(|&(_, want)| want == s);
                    cands.truncate(1);
                }
            }
        }
        next_seq = txs.last().map_or(next_seq, |t| t.0 + 1);
        // Recovery done: the superblock records the last transaction issued, so the
        // restarted journal never replays this round's records again.
        match &media {
            Some(m) => m.borrow_mut().write_now(&[(0, super_block(next_seq - 1))]),
            None => {
                image = rec.image;
                image.write(0, &super_block(next_seq - 1));
            }
        }
        // Requests the cut kept from arriving are not counted: the next round draws
        // its own.
        done += if crashed { arrivals.max(1) } else { n };
        progress(done);
        watch.check()?;
    }
    if let Some(f) = &faults {
        r.writes_lost = f.lost_n;
        r.writes_misdirected = f.misdirected_n;
        r.writes_torn = f.torn_n;
        r.bit_flips = f.flips_n;
    }
    r.simulated_s = sim_ns as f64 / 1e9;
    if let Some(m) = &media {
        let m = m.borrow();
        if let Some(e) = &m.error {
            return Err(e.clone());
        }
        r.array = Some(m.finish_counts());
    }
    Ok(r)
}

/// A block torn at a power cut: its first `k` bytes new, the rest as the device held
/// it (read through the array, if the journal's bytes live on one; zeros if refused).
fn torn_over(
    img: &BlockStore,
    media: Option<&Rc<RefCell<ArrayMedia>>>,
    b: u64,
    data: &Block,
    k: usize,
) -> Result<Block, String> {
    let mut torn = match media {
        Some(m) => m
            .borrow_mut()
            .read(&[b])?
            .pop()
            .flatten()
            .unwrap_or_else(crate::store::zero_block),
        None => img.read(b),
    };
    torn[..k].copy_from_slice(&data[..k]);
    Ok(torn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::presets::preset;
    use crate::stack::faults::FaultSpec;

    fn config(seed: u64, checksum: bool, skip: bool) -> JournalTortureConfig {
        JournalTortureConfig {
            seed,
            ops: 600,
            span_blocks: 48,
            crash: 0.01,
            checksum,
            skip,
            log_mib: 3,
            clean_below_pct: 25,
            lost: 0.0,
            misdirected: 0.0,
            torn: 0.0,
            flips: 0.0,
            below: None,
        }
    }

    /// A short campaign in each mode: power cuts land mid-write (torn blocks among
    /// them), recoveries replay the log, and every read after each recovery is right.
    #[test]
    fn journal_survives_power_cuts_in_every_mode() {
        let disk = preset("mimic-9lzx").expect("preset");
        for (checksum, skip) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut torn = 0;
            for seed in [1, 2] {
                let r = run_journal_torture(&disk, &config(seed, checksum, skip), &mut |_| {})
                    .expect("campaign");
                assert_eq!(r.wrong_bytes, 0, "{checksum} {skip} seed {seed}: {r:?}");
                assert_eq!(r.wrong_reads, 0);
                assert!(r.power_cuts >= 3, "{r:?}");
                assert_eq!(r.recoveries_consistent, r.power_cuts);
                // Power cuts alone lose no acknowledged write and refuse no read (a
                // block first written by a transaction a cut took still reads as
                // zeros).
                assert_eq!(r.reads_refused, 0, "{checksum} {skip} seed {seed}: {r:?}");
                assert!(r.transactions_replayed > 0, "{r:?}");
                assert!(r.log_cleanings > 0, "{r:?}");
                torn += r.blocks_torn;
            }
            assert!(torn > 0, "{checksum} {skip}: no torn block");
        }
    }

    /// Lost, misdirected and torn writes and bit flips, with power cuts, in both
    /// commit modes: every fault kind lands, some reads are refused, none is wrong.
    #[test]
    fn faults_are_refused_never_returned() {
        let disk = preset("mimic-9lzx").expect("preset");
        for checksum in [false, true] {
            let mut c = config(3, checksum, false);
            c.ops = 2000;
            (c.lost, c.misdirected, c.torn, c.flips) = (0.02, 0.02, 0.02, 0.02);
            let r = run_journal_torture(&disk, &c, &mut |_| {}).expect("campaign");
            assert_eq!(r.wrong_bytes, 0, "{checksum}: {r:?}");
            assert_eq!(r.wrong_reads, 0, "{checksum}: {r:?}");
            assert!(r.reads_refused > 0, "{r:?}");
            for n in [
                r.writes_lost,
                r.writes_misdirected,
                r.writes_torn,
                r.bit_flips,
            ] {
                assert!(n > 0, "{checksum}: a fault kind never landed: {r:?}");
            }
        }
    }

    /// The journal over a byte-exact array of `members` mimic-9lzx drives (`raid5`:
    /// left-symmetric, the stack's default; `raid5-asym`: left-asymmetric).
    fn over(kind: &str, members: u32, faults: FaultSpec, fail: f64) -> JournalBelow {
        use crate::stack::array::ParityLayout;
        use crate::stack::tree::{ArraySpec, DiskSpec};
        let m = DeviceSpec::Disk(DiskSpec::new("mimic-9lzx"));
        let spec = match kind {
            "raid4" => DeviceSpec::Raid4(ArraySpec::of(members, m)),
            "raid5" => DeviceSpec::Raid5(ArraySpec::of(members, m)),
            "raid5-asym" => {
                let mut a = ArraySpec::of(members, m);
                a.parity_layout = Some(ParityLayout::LeftAsymmetric);
                DeviceSpec::Raid5(a)
            }
            _ => DeviceSpec::Mirror(ArraySpec::of(members, m)),
        };
        JournalBelow {
            stack: TortureStack::from_device(&spec, &faults).expect("byte-exact array"),
            timing: spec.without_faults(),
            fail,
            replace_after: 300,
        }
    }

    /// Member drives fail under the journal (RAID-4, RAID-5 and mirror) and stay out across
    /// whole rounds and their recoveries: the array serves every block degraded, so no
    /// read is refused and none is wrong.
    #[test]
    fn member_failure_under_the_journal_loses_nothing() {
        let disk = preset("mimic-9lzx").expect("preset");
        for (kind, members) in [("raid4", 5), ("raid5", 5), ("raid5-asym", 4), ("mirror", 2)] {
            for checksum in [false, true] {
                let mut c = config(4, checksum, false);
                (c.ops, c.crash) = (1200, 0.0);
                c.below = Some(over(kind, members, FaultSpec::default(), 0.01));
                let r = run_journal_torture(&disk, &c, &mut |_| {}).expect("campaign");
                let a = r.array.clone().expect("array counts");
                assert!(a.drive_failures >= 2 && a.rebuilds >= 1, "{kind}: {a:?}");
                assert!(a.recoveries_degraded >= 2, "{kind}: {a:?}");
                assert_eq!(r.wrong_bytes, 0, "{kind} {checksum}: {r:?}");
                assert_eq!(
                    r.reads_refused + a.reads_refused,
                    0,
                    "{kind} {checksum}: a member failure alone lost blocks: {r:?}"
                );
                assert_eq!(r.reads_right, r.rounds * c.span_blocks, "{r:?}");
            }
        }
    }

    /// Power cuts while a member is down, then every fault kind on the RAID-4's and
    /// RAID-5's members as well: every recovery keeps every acknowledged transaction,
    /// and every read after it is right or refused, never wrong (a cut while degraded
    /// may lose the failed member's block of a row the cut tore: refused).
    #[test]
    fn crash_with_a_failed_member_returns_no_wrong_byte() {
        let disk = preset("mimic-9lzx").expect("preset");
        let cases = [
            ("mirror", 2, FaultSpec::default()),
            ("raid4", 5, FaultSpec::default()),
            ("raid4", 4, FaultSpec::uniform(0.02)),
            ("raid5", 5, FaultSpec::default()),
            ("raid5", 4, FaultSpec::uniform(0.02)),
            ("raid5-asym", 5, FaultSpec::uniform(0.02)),
        ];
        for (kind, members, faults) in cases {
            let byte_faults = faults.lost > 0.0;
            for checksum in [false, true] {
                let mut c = config(6, checksum, false);
                (c.ops, c.crash) = (1200, 0.05);
                c.below = Some(over(kind, members, faults.clone(), 0.01));
                let r = run_journal_torture(&disk, &c, &mut |_| {}).expect("campaign");
                let a = r.array.clone().expect("array counts");
                assert!(a.cuts_degraded >= 1, "{kind}: no cut while degraded: {a:?}");
                assert_eq!(r.recoveries_consistent, r.power_cuts);
                assert_eq!(r.wrong_reads, 0, "{kind} {checksum}: {r:?}");
                assert_eq!(r.wrong_bytes, 0, "{kind} {checksum}: {r:?}");
                if kind == "mirror" {
                    // A mirror loses nothing to one failure and a cut together.
                    assert_eq!(r.reads_refused, 0, "{kind} {checksum}: {r:?}");
                }
                if byte_faults {
                    for n in [
                        a.lost_writes,
                        a.misdirected_writes,
                        a.torn_writes,
                        a.bit_flips,
                    ] {
                        assert!(n > 0, "a fault kind never landed: {a:?}");
                    }
                    assert!(a.detections > 0, "{a:?}");
                }
            }
        }
    }

    #[test]
    fn over_an_array_faults_and_skipping_are_refused_clearly() {
        let disk = preset("mimic-9lzx").expect("preset");
        let mut c = config(1, false, false);
        c.below = Some(over("raid4", 5, FaultSpec::default(), 0.0));
        c.lost = 0.1;
        let e = run_journal_torture(&disk, &c, &mut |_| {}).unwrap_err();
        assert!(e.contains("members"), "{e}");
        c.lost = 0.0;
        c.skip = true;
        let e = run_journal_torture(&disk, &c, &mut |_| {}).unwrap_err();
        assert!(e.contains("head"), "{e}");
    }

    #[test]
    fn same_seed_same_report() {
        let disk = preset("mimic-9lzx").expect("preset");
        let c = config(5, true, false);
        let a = serde_json::to_string(&run_journal_torture(&disk, &c, &mut |_| {}).unwrap());
        let b = serde_json::to_string(&run_journal_torture(&disk, &c, &mut |_| {}).unwrap());
        assert_eq!(a.unwrap(), b.unwrap());
    }

    #[test]
    fn a_write_caching_drive_is_refused() {
        let disk = preset("wd-re3").expect("preset");
        if Drive::new(disk.clone()).unwrap().caches_writes() {
            let e = run_journal_torture(&disk, &config(1, false, false), &mut |_| {});
            assert!(e.unwrap_err().contains("write-through"));
        }
    }
}
