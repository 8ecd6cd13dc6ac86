//! A D-way mirror that stores real bytes (MimdRAID's D-way mirroring, issue 19's
//! "real bytes" item), on the same members as the byte-exact RAID-4: each member a
//! host queue over a drive, and the bytes it holds ([`Member`]).
//!
//! Why a separate type: the timing-only mirrors (`stack::mimd`, `stack::array`) carry
//! no data, so nothing there can show that a failure loses no block. Here data moves
//! at simulated completion, as in the RAID-4:
//! - a write goes to every live member; it is acknowledged when the last of them
//!   completes (a member that fails meanwhile is no longer waited for);
//! - a read goes to one live replica, chosen as a mirror does (the member with the
//!   fewest reads already sent this batch, then the shortest seek from its head, then
//!   the lowest number); a read in flight on a member that fails is sent again to
//!   another live replica;
//! - a failed member is skipped; with every member failed, reads and writes are
//!   refused (an error), never answered with invented bytes.
//!
//! A member can fail in the middle of a batch, at a simulated instant: what it
//! completed before counts, what it completes after is discarded, and its contents
//! are gone. Drives that cache writes are flushed at the end of every batch that
//! wrote, so an acknowledged write is on the media. A failed member is replaced and
//! filled from a live replica offline, between batches ([`Mirror::replace_and_rebuild`]).
//!
//! Limits (checked, errors not panics): 1..=[`MAX_REPLICAS`] replicas; at most
//! [`MAX_BATCH`] operations per batch, each on a distinct block inside the volume
//! (one member's capacity in 4 KiB blocks). Memory grows with the blocks written
//! (one copy per live member).

use super::error::ArrayError;
use super::faults::FaultInjector;
use super::members::{default_member_queue, Executor, Io, Member};
use crate::disk::drive::Drive;
use crate::disk::params::DiskParams;
use crate::parts::queue::QueueSpec;
use crate::store::{Block, SECTORS_PER_BLOCK};
use crate::time::SimTime;
use rustc_hash::FxHashSet;

/// Most replicas a mirror may have (MimdRAID's figures go to 12 disks).
pub const MAX_REPLICAS: usize = 16;
/// Most operations in one batch.
pub const MAX_BATCH: usize = 1 << 16;

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
    /// Reads sent again because their replica failed under them.
    pub reissued_reads: u64,
}

/// A D-way mirror of identical drives that stores real bytes.
pub struct Mirror {
    members: Vec<Member>,
    failed: Vec<bool>,
    /// The drive model (a replacement is a fresh drive of it).
    params: DiskParams,
    /// Each member's host queue.
    queue: QueueSpec,
    blocks: u64,
    faults: FaultInjector,
    now: SimTime,
}

/// Rotational phase of replica `i` at time zero: unsynchronized spindles, spread by
/// the golden ratio (as the RAID-4's members), deterministic without a seed.
fn replica_phase(i: usize) -> f64 {
    (i as f64 * 0.618_033_988_75).fract()
}

impl Mirror {
    /// `replicas` copies of a drive built from `params`, each behind an FCFS host
    /// queue keeping up to `max_outstanding` requests at the drive.
    pub fn new(
        params: DiskParams,
        replicas: usize,
        max_outstanding: usize,
    ) -> Result<Mirror, ArrayError> {
        if replicas == 0 || replicas > MAX_REPLICAS {
            return Err(ArrayError::Disk(format!(
                "mirror replicas {replicas}: expected 1..={MAX_REPLICAS}"
            )));
        }
        let drive = Drive::new(params.clone()).map_err(|e| ArrayError::Disk(e.to_string()))?;
        let blocks = drive.hdd().capacity() / SECTORS_PER_BLOCK;
        let queue = default_member_queue(max_outstanding);
        let members = (0..replicas)
            .map(|i| {
                let mut d = drive.clone();
                d.hdd_mut().set_spindle_phase(replica_phase(i));
                Member::new(d, &queue, i).map_err(ArrayError::Disk)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Mirror {
            failed: vec![false; replicas],
            members,
            params,
            queue,
            blocks,
            faults: FaultInjector::none(),
            now: SimTime::ZERO,
        })
    }

    /// Volume size in 4 KiB blocks (one member's capacity).
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    pub fn replicas(&self) -> usize {
        self.members.len()
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

    /// Puts a fresh drive in place of failed member `disk` and copies every written
    /// block to it from a live replica, as simulated reads and writes (offline: no
    /// user I/O meanwhile), in chunks of [`MAX_BATCH`] blocks. The member is live
    /// again when it returns.
    pub fn replace_and_rebuild(&mut self, disk: usize) -> Result<(), ArrayError> {
        if !self.is_failed(disk) {
            return Err(ArrayError::NothingToRebuild(disk));
        }
        let src = self
            .live()
            .next()
            .ok_or_else(|| ArrayError::Unrecoverable {
                row: 0,
                why: "every replica has failed: nothing to rebuild from".into(),
            })?;
        let mut drive =
            Drive::new(self.params.clone()).map_err(|e| ArrayError::Disk(e.to_string()))?;
        drive.hdd_mut().set_spindle_phase(replica_phase(disk));
        self.members[disk] = Member::new(drive, &self.queue, disk).map_err(ArrayError::Disk)?;
        let mut written: Vec<u64> = self.members[src].store.written().collect();
        written.sort_unstable();
        for chunk in written.chunks(MAX_BATCH) {
            let mut exec = Executor::new(&self.members, self.now);
            let reads = chunk
                .iter()
                .map(|&block| Io {
                    disk: src,
                    block,
                    write: false,
                    data: None,
                    tag: 0,
                })
                .collect();
            exec.issue(&mut self.members, reads);
            let got = exec.drain(&mut self.members, &mut self.faults, None)?;
            let writes = got
                .into_iter()
                .map(|d| Io {
                    disk,
                    block: d.block,
                    write: true,
                    data: d.data,
                    tag: 0,
                })
                .collect();
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

    fn live(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.members.len()).filter(|&d| !self.failed[d])
    }

    /// The live replica a read of `block` goes to: fewest reads sent this batch, then
    /// the shortest seek from the member's head, then the lowest member.
    fn choose(&self, block: u64, sent: &[u64], except: Option<usize>) -> Option<usize> {
        let cyl_of = |d: usize| {
            let hdd = self.members[d].drive().hdd();
            let want = hdd
                .locate(block * SECTORS_PER_BLOCK)
                .map_or(0, |l| i64::from(l.pbn.cyl));
            (want - i64::from(hdd.head().cyl)).unsigned_abs()
        };
        self.live()
            .filter(|&d| Some(d) != except)
            .min_by_key(|&d| (sent[d], cyl_of(d), d))
    }

    /// Runs a batch of reads and writes on distinct blocks, all sent at once; returns
    /// when every one is acknowledged. `fail` injects a member failure during it.
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
        let mut seen = FxHashSet::default();
        for op in ops {
            let b = op.block();
            if b >= self.blocks {
                return Err(ArrayError::OutOfRange {
                    block: b,
                    blocks: self.blocks,
                });
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
        if self.live().next().is_none() && !ops.is_empty() {
            return Err(ArrayError::Unrecoverable {
                row: ops[0].block(),
                why: "every replica has failed".into(),
            });
        }
        let start = self.now;
        let n = self.members.len();
        let mut exec = Executor::new(&self.members, start);
        // Per op: the members it still waits for.
        let mut waiting: Vec<FxHashSet<usize>> = vec![FxHashSet::default(); ops.len()];
        let mut out = MirrorBatch {
            reads: vec![None; ops.len()],
            acked: vec![start; ops.len()],
            ..MirrorBatch::default()
        };
        let mut sent = vec![0u64; n];
        let mut strand = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            match op {
                MirrorOp::Write(b, data) => {
                    for d in self.live().collect::<Vec<_>>() {
                        waiting[i].insert(d);
                        strand.push(Io {
                            disk: d,
                            block: *b,
                            write: true,
                            data: Some(data.clone()),
                            tag: i as u64,
                        });
                    }
                }
                MirrorOp::Read(b) => {
                    let d = self
                        .choose(*b, &sent, None)
                        .ok_or_else(|| ArrayError::Internal("no live replica".into()))?;
                    sent[d] += 1;
                    waiting[i].insert(d);
                    strand.push(Io {
                        disk: d,
                        block: *b,
                        write: false,
                        data: None,
                        tag: i as u64,
                    });
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
                        out.failed_mid_flight = waiting.iter().any(|w| w.contains(&disk));
                        self.wipe(disk);
                        for i in 0..ops.len() {
                            if !waiting[i].remove(&disk) {
                                continue;
                            }
                            if let MirrorOp::Read(b) = ops[i] {
                                let d = self.choose(b, &sent, Some(disk)).ok_or_else(|| {
                                    ArrayError::Unrecoverable {
                                        row: b,
                                        why: "every replica has failed".into(),
                                    }
                                })?;
                                sent[d] += 1;
                                waiting[i].insert(d);
                                out.reissued_reads += 1;
                                let io = Io {
                                    disk: d,
                                    block: b,
                                    write: false,
                                    data: None,
                                    tag: i as u64,
                                };
                                exec.issue(&mut self.members, vec![io]);
                            } else if waiting[i].is_empty() {
                                out.acked[i] = exec.now;
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
            if !waiting.get_mut(i).is_some_and(|w| w.remove(&c.disk)) {
                return Err(ArrayError::Internal(format!(
                    "mirror: completion of op {i} on member {} not awaited",
                    c.disk
                )));
            }
            if !c.write {
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
