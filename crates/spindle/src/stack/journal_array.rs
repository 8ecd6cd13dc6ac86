//! The bytes of a data journal kept on a byte-exact redundant array (`spindle torture
//! --array journal --below raid4|mirror`, or a stack file with a `[[layer]] kind =
//! "journal"` over a `raid4` or `mirror` device): each write the journal's device
//! completes goes to the array as a batch, through its members' fault streams, and
//! recovery reads the superblock, the log and the home blocks back through the array's
//! checked reads. A member may fail while the journal runs (drawn per device write, or
//! at a member's `fail-at-ms`): the array serves the journal degraded until the member
//! is replaced and rebuilt, and power cuts may land while it is down.
//!
//! What the array refuses (a block it cannot prove) reaches recovery as a missing
//! block: a missing log record stops the replay, a missing home block is refused to
//! the reader. The array never hands the journal bytes it has not verified (RAID-4:
//! checksums and write generations; mirror: a failed replica is never read).
//!
//! At a power cut, the journal's writes in flight reach the array block by block (the
//! campaign draws which). On the RAID-4 the array's own power also goes in the middle
//! of writing them (after a random number of member writes) and its crash recovery
//! resynchronizes the rows they touched, proving each block old or new or refusing it;
//! a row that also lost a member may lose the failed member's block that way (RAID-4's
//! write hole, refused, never guessed). The mirror has no resync of its own: it is
//! modelled as having one (md's write-intent bitmap), so a block in flight reads back
//! the same, old or new, on every replica.
//!
//! The journal's timing is the timing model of the same array (`stack::tree`); the
//! byte-exact array runs its own clock for the bytes, so a member failure does not
//! slow the journal's timing.

use super::faults::{device_seed, FaultSpec};
use super::journal::Media;
use super::torture::{Shape, TortureStack};
use crate::array::faults::MemberFaults;
use crate::array::layout::{checksum_block, data_block};
use crate::array::{ArrayError, FaultInjector, MemberState, Mirror, MirrorOp, Raid4};
use crate::store::{Block, BLOCK_BYTES};
use crate::time::SimTime;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The byte-exact array under the journal.
enum Target {
    Raid4(Box<Raid4>),
    Mirror(Box<Mirror>),
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Target::Raid4(_) => "raid4",
            Target::Mirror(_) => "mirror",
        })
    }
}

/// What the array did under the journal.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ArrayCounts {
    pub drive_failures: u64,
    pub rebuilds: u64,
    /// Power cuts, and recoveries of the journal, while a member was down.
    pub cuts_degraded: u64,
    pub recoveries_degraded: u64,
    /// Faults the RAID-4's members injected into their writes, and bit flips.
    pub lost_writes: u64,
    pub misdirected_writes: u64,
    pub torn_writes: u64,
    pub bit_flips: u64,
    /// Verification failures the RAID-4 met (and repaired, or refused).
    pub detections: u64,
    /// Journal device writes the array refused (it could not prove a block of a row
    /// it had to read to update parity), and block reads it refused.
    pub writes_refused: u64,
    pub reads_refused: u64,
    /// Blocks the RAID-4's crash recovery could not prove (refused until rewritten).
    pub blocks_lost_in_power_cuts: u64,
}

/// A byte-exact array holding a journal's device.
#[derive(Debug)]
pub struct ArrayMedia {
    target: Target,
    members: usize,
    /// Per member: its faults (flips and the scheduled failure are drawn here).
    specs: Vec<FaultSpec>,
    flip_rngs: Vec<ChaCha8Rng>,
    rng: ChaCha8Rng,
    /// Probability per device write, while every member is up, that one fails.
    fail: f64,
    /// Per member: when it fails (campaign time), if scheduled.
    fail_at: Vec<Option<SimTime>>,
    /// Campaign time at the start of the journal's current round.
    pub offset: SimTime,
    /// The member that is down, and the application requests done when it failed.
    pub down: Option<(usize, usize)>,
    /// Device blocks ever written (recovery reads these back).
    written: BTreeSet<u64>,
    /// Rows a bit flip may hit.
    rows_span: u64,
    /// Application requests the campaign has done (set before each round).
    requests_done: usize,
    pub counts: ArrayCounts,
    /// The first internal error (a bug, not a fault): the campaign stops with it.
    pub error: Option<String>,
}

impl ArrayMedia {
    /// The array `stack` describes, for a journal device of `device_blocks` blocks.
    pub fn new(
        stack: &TortureStack,
        device_blocks: u64,
        seed: u64,
        fail: f64,
    ) -> Result<ArrayMedia, String> {
        let err = |e: ArrayError| format!("{}: {e}", stack.describe());
        let (target, rows_span) = match &stack.shape {
            Shape::Raid4 {
                data_disks,
                stripe_unit_blocks,
                ..
            } => {
                let mut a = stack
                    .healing_raid4(*data_disks, *stripe_unit_blocks)
                    .map_err(err)?;
                let members = stack
                    .members
                    .iter()
                    .map(|(path, f)| MemberFaults {
                        rng: ChaCha8Rng::seed_from_u64(device_seed(
                            f.seed.unwrap_or(seed),
                            &format!("journal {path}"),
                        )),
                        lost_write: f.lost,
                        misdirected_write: f.misdirected,
                        torn_write: f.torn,
                    })
                    .collect();
                a.faults = FaultInjector::new(seed).with_members(members);
                let rows = device_blocks / *data_disks as u64 + stripe_unit_blocks;
                (Target::Raid4(Box::new(a)), rows)
            }
            Shape::Mirror { .. } => (
                Target::Mirror(Box::new(stack.mirror(seed).map_err(err)?)),
                device_blocks,
            ),
        };
        let volume = match &target {
            Target::Raid4(a) => a.layout().volume_blocks(),
            Target::Mirror(m) => m.blocks(),
        };
        if device_blocks > volume {
            return Err(format!(
                "the journal needs {device_blocks} blocks; {} holds {volume}",
                stack.describe()
            ));
        }
        Ok(ArrayMedia {
            target,
            members: stack.members.len(),
            specs: stack.members.iter().map(|(_, f)| f.clone()).collect(),
            flip_rngs: stack
                .members
                .iter()
                .map(|(p, f)| {
                    ChaCha8Rng::seed_from_u64(device_seed(
                        f.seed.unwrap_or(seed),
                        &format!("journal {p}.flips"),
                    ))
                })
                .collect(),
            rng: ChaCha8Rng::seed_from_u64(device_seed(seed, "journal array")),
            fail,
            fail_at: stack
                .members
                .iter()
                .map(|(_, f)| f.fail_at_ms.map(SimTime::from_ms))
                .collect(),
            offset: SimTime::ZERO,
            down: None,
            written: BTreeSet::new(),
            rows_span,
            requests_done: 0,
            counts: ArrayCounts::default(),
            error: None,
        })
    }

    fn keep_error(&mut self, e: String) {
        self.error.get_or_insert(e);
    }

    /// Fails a member now if one is due (scheduled, or drawn) and the array is whole.
    fn maybe_fail(&mut self, now: SimTime, requests_done: usize) {
        if self.down.is_some() {
            return;
        }
        let t = SimTime(self.offset.0 + now.0);
        let d = match (0..self.members).find(|&d| self.fail_at[d].is_some_and(|at| t >= at)) {
            Some(d) => {
                self.fail_at[d] = None;
                d
            }
            None if self.fail > 0.0 && self.rng.gen_bool(self.fail) => {
                self.rng.gen_range(0..self.members)
            }
            None => return,
        };
        let r = match &mut self.target {
            Target::Raid4(a) => a.fail_disk(d),
            Target::Mirror(m) => m.fail_disk(d),
        };
        match r {
            Ok(()) => {
                self.counts.drive_failures += 1;
                self.down = Some((d, requests_done));
            }
            Err(e) => self.keep_error(format!("failing member {d}: {e}")),
        }
    }

    /// Replaces the failed member and rebuilds it from the others.
    pub fn rebuild(&mut self) -> Result<(), String> {
        let Some((d, _)) = self.down.take() else {
            return Ok(());
        };
        match &mut self.target {
            Target::Raid4(a) => {
                if a.state(d) == Some(MemberState::Failed) {
                    a.replace_disk(d).map_err(|e| e.to_string())?;
                }
                while !a.rebuild_step(64).map_err(|e| e.to_string())? {}
            }
            Target::Mirror(m) => m.replace_and_rebuild(d).map_err(|e| e.to_string())?,
        }
        self.counts.rebuilds += 1;
        Ok(())
    }

    /// Writes `blocks` as one array batch (a later write of a block wins).
    fn write_batch(&mut self, blocks: &[(u64, Block)]) {
        let latest: BTreeMap<u64, &Block> = blocks.iter().map(|(b, d)| (*b, d)).collect();
        self.written.extend(latest.keys().copied());
        let r = match &mut self.target {
            Target::Raid4(a) => {
                let w: Vec<(u64, Block)> = latest.iter().map(|(b, d)| (*b, (*d).clone())).collect();
                a.write_batch(&w).map(|_| ())
            }
            Target::Mirror(m) => {
                let ops: Vec<MirrorOp> = latest
                    .iter()
                    .map(|(b, d)| MirrorOp::Write(*b, (*d).clone()))
                    .collect();
                m.batch(&ops, None).map(|_| ())
            }
        };
        match r {
            Ok(()) => {}
            Err(ArrayError::Internal(e)) => self.keep_error(e),
            Err(ArrayError::Unrecoverable { .. }) => self.counts.writes_refused += 1,
            Err(e) => self.keep_error(e.to_string()),
        }
    }

    /// One bit flip per member drawn after a device write, on a block in use.
    fn flips(&mut self) {
        let Target::Raid4(a) = &mut self.target else {
            return;
        };
        for (d, frng) in self.flip_rngs.iter_mut().enumerate() {
            let p = self.specs[d].flips;
            if p > 0.0 && frng.gen_bool(p) {
                let row = frng.gen_range(0..self.rows_span);
                let block = if frng.gen_bool(0.8) {
                    data_block(row)
                } else {
                    checksum_block(row)
                };
                a.inject_bit_flip(d, block, frng.gen_range(0..BLOCK_BYTES * 8));
            }
        }
    }

    /// The power is cut while `landed` (the in-flight blocks that reach the array,
    /// whole or torn) are being written; then the array recovers.
    pub fn cut(&mut self, landed: &[(u64, Block)]) {
        if self.down.is_some() {
            self.counts.cuts_degraded += 1;
        }
        let dirty: Vec<u64> = landed.iter().map(|(b, _)| *b).collect();
        match &mut self.target {
            Target::Raid4(a) => {
                let budget = self.rng.gen_range(0..=8 * landed.len() as u64);
                a.faults.crash_after_writes(budget);
                self.written.extend(dirty.iter().copied());
                let res = a.write_batch(landed);
                a.faults.power_restored();
                if let Err(e) = a.recover_after_crash(&dirty) {
                    self.keep_error(format!("array crash recovery: {e}"));
                }
                if let Err(ArrayError::Internal(e)) = res {
                    self.keep_error(e);
                }
            }
            // Resynchronized from one replica: the landed blocks, on every replica.
            Target::Mirror(_) => self.write_batch(landed),
        }
    }

    /// Reads `blocks` through the array: each verified, or `None` (refused).
    pub fn read(&mut self, blocks: &[u64]) -> Result<Vec<Option<Block>>, String> {
        let mut out = Vec::with_capacity(blocks.len());
        for part in blocks.chunks(4096) {
            match &mut self.target {
                Target::Raid4(a) => {
                    let (got, _) = a.read_batch(part).map_err(|e| e.to_string())?;
                    for g in got {
                        match g {
                            Ok(b) => out.push(Some(b)),
                            Err(ArrayError::Internal(e)) => return Err(e),
                            Err(_) => out.push(None),
                        }
                    }
                }
                Target::Mirror(m) => {
                    let ops: Vec<MirrorOp> = part.iter().map(|&b| MirrorOp::Read(b)).collect();
                    match m.batch(&ops, None) {
                        Ok(r) => out.extend(r.reads),
                        Err(ArrayError::Unrecoverable { .. }) => {
                            out.extend(part.iter().map(|_| None))
                        }
                        Err(e) => return Err(e.to_string()),
                    }
                }
            }
        }
        self.counts.reads_refused += out.iter().filter(|b| b.is_none()).count() as u64;
        Ok(out)
    }

    /// Writes recovery's blocks (replayed homes, the superblock): durable before the
    /// journal restarts.
    pub fn write_now(&mut self, blocks: &[(u64, Block)]) {
        if !blocks.is_empty() {
            self.write_batch(blocks);
        }
    }

    /// Device blocks below `limit` ever written, and block 0.
    pub fn written_below(&self, limit: u64) -> Vec<u64> {
        std::iter::once(0)
            .chain(self.written.range(1..limit).copied())
            .collect()
    }

    /// The counters, with the RAID-4's own tallies filled in.
    pub fn finish_counts(&self) -> ArrayCounts {
        let mut c = self.counts.clone();
        if let Target::Raid4(a) = &self.target {
            c.lost_writes = a.faults.injected.lost_writes;
            c.misdirected_writes = a.faults.injected.misdirected_writes;
            c.torn_writes = a.faults.injected.torn_writes;
            c.bit_flips = a.faults.injected.bit_flips;
            c.detections = a.detections().len() as u64;
            c.blocks_lost_in_power_cuts = a.lost_by_recovery();
        }
        c
    }

    /// Application requests the campaign has done, for the failure bookkeeping.
    pub fn set_requests_done(&mut self, n: usize) {
        self.requests_done = n;
    }
}

impl Media for ArrayMedia {
    fn write(&mut self, now: SimTime, blocks: &[(u64, Block)]) {
        self.maybe_fail(now, self.requests_done);
        self.write_batch(blocks);
        self.flips();
    }
}
