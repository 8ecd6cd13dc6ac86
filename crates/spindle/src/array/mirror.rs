//! A replicated array that stores real bytes: a D-way mirror (MimdRAID's D-way
//! mirroring), or any other placement of a volume's blocks over member drives
//! ([`Placement`]; MimdRAID's intra-disk arrays place theirs from
//! `stack::mimd`), on the same members as the byte-exact RAID-4: each member a host
//! queue over a drive, and the bytes it holds ([`Member`]).
//!
//! Why a separate type: the timing-only arrays (`stack::mimd`, `stack::array`) carry
//! no data, so nothing there can show that a failure loses no block. Here data moves
//! at simulated completion, as in the RAID-4:
//! - a write goes to every copy on a live member; it is acknowledged when the last of
//!   them completes (a member that fails meanwhile is no longer waited for);
//! - a read goes to one live copy, readable copies first (a reliability copy is read
//!   only when no readable copy is live), chosen as a mirror does (the member with the
//!   fewest reads already sent this batch, then the shortest seek from its head, then
//!   the copy its drive reaches first, then the first copy); a read in flight on a
//!   member that fails is sent again to another live copy;
//! - a failed member is skipped; a block with no copy on a live member is refused (an
//!   error), never answered with invented bytes.
//!
//! A member can fail in the middle of a batch, at a simulated instant: what it
//! completed before counts, what it completes after is discarded, and its contents
//! are gone. Drives that cache writes are flushed at the end of every batch that
//! wrote, so an acknowledged write is on the media. A failed member is replaced and
//! its copies filled from live ones offline, between batches
//! ([`Mirror::replace_and_rebuild`]).
//!
//! Limits (checked, errors not panics): 1..=[`MAX_REPLICAS`] members; at most
//! [`MAX_BATCH`] operations per batch, each on a distinct block inside the volume.
//! Memory grows with the blocks written (one copy per live copy, and the set of
//! blocks written, which the rebuild walks).

use super::error::ArrayError;
use super::faults::FaultInjector;
use super::members::{default_member_queue, Executor, Io, Member};
use crate::disk::drive::Drive;
use crate::disk::params::DiskParams;
use crate::parts::queue::QueueSpec;
use crate::store::{Block, SECTORS_PER_BLOCK};
use crate::time::SimTime;
use rustc_hash::FxHashSet;

/// Most members a replicated array may have (MimdRAID's figures go to 12 disks).
pub const MAX_REPLICAS: usize = 16;
/// Most operations in one batch.
pub const MAX_BATCH: usize = 1 << 16;

/// One copy of a volume block on a member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockCopy {
    pub member: usize,
    /// Its key in the member's store: unique among the member's copies.
    pub key: u64,
    /// The member sector it starts at (it spans 8).
    pub sector: u64,
    /// Whether reads use it while a readable copy is live (a reliability copy only
    /// takes writes until then).
    pub reads: bool,
}

/// Where a replicated array keeps each 4 KiB volume block. Every copy of a block
/// holds all of its bytes; two copies on one member never share a sector.
pub trait Placement {
    /// Members the placement spans.
    fn members(&self) -> usize;
    /// Volume size in 4 KiB blocks.
    fn blocks(&self) -> u64;
    /// Every copy of volume block `block` (below [`Placement::blocks`]), in order.
    fn copies(&self, block: u64) -> Vec<BlockCopy>;
    /// What it is, in a few words.
    fn name(&self) -> String;
}

/// A D-way mirror's placement: every member holds block b at its own block b.
pub struct Identical {
    members: usize,
    blocks: u64,
}

impl Placement for Identical {
    fn members(&self) -> usize {
        self.members
    }

    fn blocks(&self) -> u64 {
        self.blocks
    }

    fn copies(&self, block: u64) -> Vec<BlockCopy> {
        (0..self.members)
            .map(|member| BlockCopy {
                member,
                key: block,
                sector: block * SECTORS_PER_BLOCK,
                reads: true,
            })
            .collect()
    }

    fn name(&self) -> String {
        format!("{}-way mirror", self.members)
    }
}

/// One operation of a batch, on a volume block.
#[derive(Clone, Debug)]
pub enum MirrorOp {
    Read(u64),
    Write(u64, Block),
}

impl MirrorOp {
    fn block(&self) -> u64 {
        match self {
            MirrorOp::Read(b) | MirrorOp::Write(b, _) => *b,
        }
    }
}

/// A failure to inject during a batch: member `disk` fails `after_ns` after the
/// batch starts (at the batch's end if it finishes sooner).
#[derive(Clone, Copy, Debug)]
pub struct FailAt {
    pub disk: usize,
    pub after_ns: u64,
}

/// What a batch returned.
#[derive(Debug, Default)]
pub struct MirrorBatch {
    /// Per operation, in order: the bytes of a read (`None` for a write).
    pub reads: Vec<Option<Block>>,
    /// Per operation: when it was acknowledged.
    pub acked: Vec<SimTime>,
    /// Whether the injected failure found I/Os still in flight on its member.
    pub failed_mid_flight: bool,
    /// Reads sent again because their copy's member failed under them.
    pub reissued_reads: u64,
    /// Writes (operation indices) whose every copy was on a member that failed before
    /// storing it: not acknowledged, their bytes nowhere.
    pub lost_writes: Vec<usize>,
}

/// A replicated array of identical drives that stores real bytes.
pub struct Mirror {
    members: Vec<Member>,
    failed: Vec<bool>,
    /// The drive model (a replacement is a fresh drive of it).
    params: DiskParams,
    /// Each member's host queue.
    queue: QueueSpec,
    placement: Box<dyn Placement>,
    /// Volume blocks ever written (what a rebuild copies).
    written: FxHashSet<u64>,
    faults: FaultInjector,
    now: SimTime,
}

/// Rotational phase of replica `i` at time zero: unsynchronized spindles, spread by
/// the golden ratio (as the RAID-4's members), deterministic without a seed.
fn replica_phase(i: usize) -> f64 {
    (i as f64 * 0.618_033_988_75).fract()
}

/// The member I/O of one copy of a block.
fn io(c: &BlockCopy, write: Option<Block>, tag: u64) -> Io {
    Io {
        disk: c.member,
        block: c.key,
        write: write.is_some(),
        data: write,
        tag,
        sector: (c.sector != c.key * SECTORS_PER_BLOCK).then_some(c.sector),
    }
}

impl Mirror {
    /// `replicas` copies of a drive built from `params`, each behind an FCFS host
    /// queue keeping up to `max_outstanding` requests at the drive.
    pub fn new(
        params: DiskParams,
        replicas: usize,
        max_outstanding: usize,
    ) -> Result<Mirror, ArrayError> {
        let drive = Drive::new(params.clone()).map_err(|e| ArrayError::Disk(e.to_string()))?;
        let blocks = drive.hdd().capacity() / SECTORS_PER_BLOCK;
        let placement = Identical {
            members: replicas,
            blocks,
        };
        Mirror::with_placement(params, Box::new(placement), max_outstanding)
    }

    /// Drives built from `params`, as many as `placement` spans, keeping the volume's
    /// blocks where it says.
    pub fn with_placement(
        params: DiskParams,
        placement: Box<dyn Placement>,
        max_outstanding: usize,
    ) -> Result<Mirror, ArrayError> {
        let n = placement.members();
        if n == 0 || n > MAX_REPLICAS {
            return Err(ArrayError::Disk(format!(
                "{} of {n} members: expected 1..={MAX_REPLICAS}",
                placement.name()
            )));
        }
        let drive = Drive::new(params.clone()).map_err(|e| ArrayError::Disk(e.to_string()))?;
        let queue = default_member_queue(max_outstanding);
        let members = (0..n)
            .map(|i| {
                let mut d = drive.clone();
                d.hdd_mut().set_spindle_phase(replica_phase(i));
                Member::new(d, &queue, i).map_err(ArrayError::Disk)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Mirror {
            failed: vec![false; n],
            members,
            params,
            queue,
            placement,
            written: FxHashSet::default(),
            faults: FaultInjector::none(),
            now: SimTime::ZERO,
        })
    }

    /// Volume size in 4 KiB blocks.
    pub fn blocks(&self) -> u64 {
        self.placement.blocks()
    }

    /// How many members (drives) it has.
    pub fn replicas(&self) -> usize {
        self.members.len()
    }

    /// What the placement is.
    pub fn name(&self) -> String {
        self.placement.name()
    }

    /// Every copy of volume block `block`.
    pub fn copies(&self, block: u64) -> Vec<BlockCopy> {
        self.placement.copies(block)
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn is_failed(&self, disk: usize) -> bool {
        self.failed.get(disk).copied().unwrap_or(false)
    }

    /// The members (drive, queue and bytes), failed ones included.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// Takes a member out between batches: its contents are gone.
    pub fn fail_disk(&mut self, disk: usize) -> Result<(), ArrayError> {
        match self.failed.get(disk) {
            None => Err(ArrayError::NoSuchMember(disk)),
            Some(true) => Err(ArrayError::AlreadyFailed(disk)),
            Some(false) => {
                self.wipe(disk);
                Ok(())
            }
        }
    }

    /// Puts a fresh drive in place of failed member `disk` and fills its copies of
    /// every written block from a live copy, as simulated reads and writes (offline:
    /// no user I/O meanwhile), in chunks of [`MAX_BATCH`] blocks. The member is live
    /// again when it returns. A written block with no live copy elsewhere is lost: an
    /// error, the member left failed.
    pub fn replace_and_rebuild(&mut self, disk: usize) -> Result<(), ArrayError> {
        if !self.is_failed(disk) {
            return Err(ArrayError::NothingToRebuild(disk));
        }
        let mut written: Vec<u64> = self.written.iter().copied().collect();
        written.sort_unstable();
        // Per block with a copy on `disk`: (its copies there, the live copy to read).
        let mut plan: Vec<(u64, Vec<BlockCopy>, BlockCopy)> = Vec::new();
        for b in written {
            let copies = self.placement.copies(b);
            let here: Vec<BlockCopy> = copies
                .iter()
                .filter(|c| c.member == disk)
                .copied()
                .collect();
            if here.is_empty() {
                continue;
            }
            let src = copies
                .iter()
                .filter(|c| !self.failed[c.member])
                .min_by_key(|c| !c.reads)
                .copied()
                .ok_or_else(|| ArrayError::Unrecoverable {
                    row: b,
                    why: format!("no live copy of block {b} to rebuild member {disk} from"),
                })?;
            plan.push((b, here, src));
        }
        let mut drive =
            Drive::new(self.params.clone()).map_err(|e| ArrayError::Disk(e.to_string()))?;
        drive.hdd_mut().set_spindle_phase(replica_phase(disk));
        self.members[disk] = Member::new(drive, &self.queue, disk).map_err(ArrayError::Disk)?;
        for chunk in plan.chunks(MAX_BATCH) {
            let mut exec = Executor::new(&self.members, self.now);
            let reads = chunk
                .iter()
                .enumerate()
                .map(|(i, (_, _, src))| io(src, None, i as u64))
                .collect();
            exec.issue(&mut self.members, reads);
            let got = exec.drain(&mut self.members, &mut self.faults, None)?;
            let mut writes = Vec::new();
            for d in got {
                let (_, here, _) = chunk.get(d.tag as usize).ok_or_else(|| {
                    ArrayError::Internal(format!("rebuild: read {} not asked for", d.tag))
                })?;
                let data = d.data.ok_or_else(|| {
                    ArrayError::Internal("rebuild: a read returned no bytes".into())
                })?;
                writes.extend(here.iter().map(|c| io(c, Some(data.clone()), 0)));
            }
            exec.issue(&mut self.members, writes);
            exec.drain(&mut self.members, &mut self.faults, None)?;
            exec.sync_caches(&mut self.members, &mut self.faults);
            self.now = self.now.max(exec.now);
        }
        self.failed[disk] = false;
        Ok(())
    }

    fn wipe(&mut self, disk: usize) {
        self.failed[disk] = true;
        self.members[disk].power_cut();
        self.members[disk].store.clear();
    }

    /// The live copy a read of `block` goes to: a readable one if any is live, then
    /// fewest reads sent this batch to its member, then the shortest seek from the
    /// member's head, then (copies on one cylinder: rotational replicas) the one the
    /// drive model reaches first from where the drive is now, then the first.
    fn choose(&self, block: u64, sent: &[u64]) -> Option<BlockCopy> {
        let cyls = |c: &BlockCopy| {
            let hdd = self.members[c.member].drive().hdd();
            let want = hdd.locate(c.sector).map_or(0, |l| i64::from(l.pbn.cyl));
            (want - i64::from(hdd.head().cyl)).unsigned_abs()
        };
        // The drive model's prediction only where everything before it ties.
        let delay = |c: &BlockCopy| {
            let hdd = self.members[c.member].drive().hdd();
            hdd.read_delay_if_sent(self.now, c.sector)
        };
        self.placement
            .copies(block)
            .into_iter()
            .filter(|c| !self.failed[c.member])
            .map(|c| ((!c.reads, sent[c.member], cyls(&c)), c))
            .reduce(|best, next| {
                let first = best.0.cmp(&next.0);
                if first
                    .then_with(|| delay(&best.1).cmp(&delay(&next.1)))
                    .is_le()
                {
                    best
                } else {
                    next
                }
            })
            .map(|(_, c)| c)
    }

    /// Runs a batch of reads and writes on distinct blocks, all sent at once; returns
    /// when every one is acknowledged, or lost with the member `fail` takes out
    /// during it ([`MirrorBatch::lost_writes`]).
    pub fn batch(
        &mut self,
        ops: &[MirrorOp],
        fail: Option<FailAt>,
    ) -> Result<MirrorBatch, ArrayError> {
        if ops.len() > MAX_BATCH {
            return Err(ArrayError::Disk(format!(
                "mirror batch of {} operations: at most {MAX_BATCH}",
                ops.len()
            )));
        }
        let blocks = self.blocks();
        let mut seen = FxHashSet::default();
        for op in ops {
            let b = op.block();
            if b >= blocks {
                return Err(ArrayError::OutOfRange { block: b, blocks });
            }
            if !seen.insert(b) {
                return Err(ArrayError::Disk(format!(
                    "mirror batch: block {b} appears twice (operations of a batch must be on distinct blocks)"
                )));
            }
        }
        if let Some(f) = fail {
            match self.failed.get(f.disk) {
                None => return Err(ArrayError::NoSuchMember(f.disk)),
                Some(true) => return Err(ArrayError::AlreadyFailed(f.disk)),
                Some(false) => {}
            }
        }
        let lost = |b: u64| ArrayError::Unrecoverable {
            row: b,
            why: format!("no copy of block {b} is on a live member"),
        };
        let start = self.now;
        let n = self.members.len();
        let mut exec = Executor::new(&self.members, start);
        // Per op: the (member, key) copies it still waits for.
        let mut waiting: Vec<Vec<(usize, u64)>> = vec![Vec::new(); ops.len()];
        let mut out = MirrorBatch {
            reads: vec![None; ops.len()],
            acked: vec![start; ops.len()],
            ..MirrorBatch::default()
        };
        let mut sent = vec![0u64; n];
        // Per op: the members that have stored a copy of its write (and not failed).
        let mut landed: Vec<Vec<usize>> = vec![Vec::new(); ops.len()];
        let mut strand = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            match op {
                MirrorOp::Write(b, data) => {
                    for c in self.placement.copies(*b) {
                        if self.failed[c.member] {
                            continue;
                        }
                        waiting[i].push((c.member, c.key));
                        strand.push(io(&c, Some(data.clone()), i as u64));
                    }
                    if waiting[i].is_empty() {
                        return Err(lost(*b));
                    }
                    self.written.insert(*b);
                }
                MirrorOp::Read(b) => {
                    let c = self.choose(*b, &sent).ok_or_else(|| lost(*b))?;
                    sent[c.member] += 1;
                    waiting[i].push((c.member, c.key));
                    strand.push(io(&c, None, i as u64));
                }
            }
        }
        exec.issue(&mut self.members, strand);
        let mut pending_fail = fail.map(|f| (f.disk, SimTime(start.0 + f.after_ns)));
        loop {
            let until = pending_fail.map(|(_, t)| t);
            let done = exec.step(&mut self.members, &mut self.faults, until)?;
            let Some(c) = done else {
                match pending_fail.take() {
                    // The failure instant: the member is gone, with what it held.
                    Some((disk, _)) => {
                        out.failed_mid_flight = waiting.iter().flatten().any(|w| w.0 == disk);
                        self.wipe(disk);
                        for i in 0..ops.len() {
                            landed[i].retain(|&m| m != disk);
                            let before = waiting[i].len();
                            waiting[i].retain(|w| w.0 != disk);
                            if waiting[i].len() == before {
                                continue;
                            }
                            if let MirrorOp::Read(b) = ops[i] {
                                let c = self.choose(b, &sent).ok_or_else(|| lost(b))?;
                                sent[c.member] += 1;
                                waiting[i].push((c.member, c.key));
                                out.reissued_reads += 1;
                                exec.issue(&mut self.members, vec![io(&c, None, i as u64)]);
                            } else if waiting[i].is_empty() {
                                if !landed[i].is_empty() {
                                    out.acked[i] = exec.now;
                                } else {
                                    out.lost_writes.push(i);
                                }
                            }
                        }
                        continue;
                    }
                    None => break,
                }
            };
            // The failed member goes on spinning in the model; what it completes after
            // its failure is not the array's (its bytes are wiped below).
            if self.failed[c.disk] {
                continue;
            }
            let i = c.tag as usize;
            let awaited = waiting
                .get(i)
                .and_then(|w| w.iter().position(|&x| x == (c.disk, c.block)));
            let Some(at) = awaited else {
                return Err(ArrayError::Internal(format!(
                    "mirror: completion of op {i} on member {} not awaited",
                    c.disk
                )));
            };
            waiting[i].swap_remove(at);
            if c.write {
                landed[i].push(c.disk);
            } else {
                out.reads[i] = c.data;
            }
            if waiting[i].is_empty() {
                out.acked[i] = c.at;
            }
        }
        if let Some(i) = waiting.iter().position(|w| !w.is_empty()) {
            return Err(ArrayError::Internal(format!(
                "mirror: op {i} never acknowledged"
            )));
        }
        if ops.iter().any(|o| matches!(o, MirrorOp::Write(..))) {
            exec.sync_caches(&mut self.members, &mut self.faults);
        }
        // Writes the failed member completed after its failure land in its store:
        // gone with the drive.
        for d in 0..n {
            if self.failed[d] {
                self.members[d].power_cut();
                self.members[d].store.clear();
            }
        }
        self.now = self.now.max(exec.now);
        Ok(out)
    }
}
