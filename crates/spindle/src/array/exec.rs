//! Runs block I/O on the members of an array: each member keeps a host-side queue of
//! strands (issued in the order given, the caller sorts them by ascending LBN) and
//! hands at most `max_outstanding` requests at a time to the drive's own firmware
//! queue, where SPTF reorders them. Data moves at simulated completion: a write reaches
//! the member's store when the drive completes it, a read returns the store's bytes at
//! that instant. Injected faults act at the same point.

use super::faults::{FaultInjector, WriteFate};
use crate::disk::drive::Drive;
use crate::disk::hdd::Request;
use crate::store::{Block, BlockStore, SECTORS_PER_BLOCK};
use crate::time::SimTime;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// `Io::tag` of writes that restore a block after a detected fault.
pub const TAG_REPAIR: u64 = 1;

/// One member disk: its mechanism and its contents.
#[derive(Clone, Debug)]
pub struct Member {
    pub drive: Drive,
    pub store: BlockStore,
}

/// A 4 KiB block I/O to one member.
#[derive(Clone, Debug)]
pub struct Io {
    pub disk: usize,
    /// Physical 4 KiB block on the member.
    pub block: u64,
    pub write: bool,
    /// For a write: the bytes to store (`None` when the array keeps no bytes).
    pub data: Option<Block>,
    /// The caller's label, returned with the completion.
    pub tag: u64,
}

/// A finished I/O.
#[derive(Clone, Debug)]
pub struct Done {
    pub disk: usize,
    pub block: u64,
    pub write: bool,
    pub tag: u64,
    pub at: SimTime,
    /// For reads: the bytes the member returned.
    pub data: Option<Block>,
}

/// What one member did during a run (for PROX-T2's per-disk columns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskActivity {
    pub reads: u64,
    pub writes: u64,
    /// Sum of the drive's service times (start of positioning to completion).
    pub busy_ns: u64,
    pub first_issue: Option<SimTime>,
    pub last_done: Option<SimTime>,
}

impl DiskActivity {
    pub fn ios(&self) -> u64 {
        self.reads + self.writes
    }

    pub fn add(&mut self, o: &DiskActivity) {
        self.reads += o.reads;
        self.writes += o.writes;
        self.busy_ns += o.busy_ns;
        self.first_issue = match (self.first_issue, o.first_issue) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.last_done = self.last_done.max(o.last_done);
    }
}

/// Host queues and in-flight requests of every member.
#[derive(Debug)]
pub struct Executor {
    pending: Vec<VecDeque<Io>>,
    /// Per member: drive request id → the block I/Os it carries (several when
    /// contiguous ones were merged).
    inflight: Vec<FxHashMap<u64, Vec<Io>>>,
    /// Completions not yet handed out (a merged request completes several I/Os).
    ready: VecDeque<Done>,
    max_outstanding: usize,
    /// Largest request (in 4 KiB blocks) contiguous reads are merged into.
    max_read_blocks: u32,
    /// Largest request contiguous writes are merged into (1: never).
    max_write_blocks: u32,
    /// Reads separated by at most this many unwanted blocks are merged into one
    /// request that reads through the gap.
    read_gap: u64,
    next_id: u64,
    /// Whether reads return the member's bytes (false in timing-only mode).
    keep_bytes: bool,
    pub now: SimTime,
    pub activity: Vec<DiskActivity>,
}

impl Executor {
    pub fn new(members: usize, max_outstanding: usize, now: SimTime) -> Executor {
        Executor {
            pending: vec![VecDeque::new(); members],
            inflight: vec![FxHashMap::default(); members],
            ready: VecDeque::new(),
            max_outstanding: max_outstanding.max(1),
            max_read_blocks: 1,
            max_write_blocks: 1,
            read_gap: 0,
            next_id: 0,
            keep_bytes: true,
            now,
            activity: vec![DiskActivity::default(); members],
        }
    }

    /// Merges runs of contiguous block I/Os of the same kind, queued one after the
    /// other on a member, into one drive request of up to this many blocks.
    pub fn merge_up_to(mut self, reads: u32, writes: u32) -> Executor {
        self.max_read_blocks = reads.max(1);
        self.max_write_blocks = writes.max(1);
        self
    }

    /// Lets merged reads span gaps of up to `blocks` unwanted blocks.
    pub fn read_through_gaps(mut self, blocks: u64) -> Executor {
        self.read_gap = blocks;
        self
    }

    /// Reads return no bytes and writes store none: only the timing is simulated.
    pub fn without_bytes(mut self) -> Executor {
        self.keep_bytes = false;
        self
    }

    /// Queues a strand on its members (in the given order) and starts what fits.
    pub fn issue(&mut self, members: &mut [Member], strand: Vec<Io>) {
        let mut touched = Vec::new();
        for io in strand {
            if !touched.contains(&io.disk) {
                touched.push(io.disk);
            }
            self.pending[io.disk].push_back(io);
        }
        for d in touched {
            self.fill(members, d);
        }
    }

    fn fill(&mut self, members: &mut [Member], disk: usize) {
        let now = self.now;
        let mut started = false;
        while self.inflight[disk].len() < self.max_outstanding {
            let Some(first) = self.pending[disk].pop_front() else {
                break;
            };
            let write = first.write;
            let limit = if write {
                self.max_write_blocks
            } else {
                self.max_read_blocks
            };
            let lbn = first.block * SECTORS_PER_BLOCK;
            let start = first.block;
            let gap = if write { 0 } else { self.read_gap };
            let mut next = first.block + 1;
            let mut ios = vec![first];
            loop {
                match self.pending[disk].front() {
                    Some(io)
                        if io.write == write
                            && io.block >= next
                            && io.block - next <= gap
                            && io.block - start < u64::from(limit) =>
                    {
                        if let Some(io) = self.pending[disk].pop_front() {
                            next = io.block + 1;
                            ios.push(io);
                        }
                    }
                    _ => break,
                }
            }
            let id = self.next_id;
            self.next_id += 1;
            let req = Request {
                id,
                lbn,
                blocks: ((next - start) * SECTORS_PER_BLOCK) as u32,
                write,
            };
            members[disk].drive.enqueue(now, req);
            let act = &mut self.activity[disk];
            act.first_issue = Some(act.first_issue.map_or(now, |t| t.min(now)));
            self.inflight[disk].insert(id, ios);
            started = true;
        }
        if started {
            members[disk].drive.kick(now);
        }
    }

    /// Advances to the next completion on any member, applies it, refills that
    /// member's queue and returns it. `None` when idle, or when the next completion
    /// lies beyond `until` (a crash or a deadline): then nothing after it happens.
    pub fn step(
        &mut self,
        members: &mut [Member],
        faults: &mut FaultInjector,
        until: Option<SimTime>,
    ) -> Option<Done> {
        if let Some(d) = self.ready.pop_front() {
            return Some(d);
        }
        let (disk, t) = members
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.drive.next_completion().map(|t| (i, t)))
            .min_by_key(|&(i, t)| (t, i))?;
        if until.is_some_and(|u| t > u) {
            return None;
        }
        self.now = self.now.max(t);
        let c = members[disk].drive.complete()?.completion;
        let ios = self.inflight[disk].remove(&c.id)?;
        let act = &mut self.activity[disk];
        act.busy_ns += c.service_ns();
        act.last_done = Some(t);
        let write = ios.first().is_some_and(|io| io.write);
        if write {
            act.writes += 1;
        } else {
            act.reads += 1;
        }
        let m = &mut members[disk];
        for io in ios {
            let data = if io.write {
                // Every write meets its fate (the crash budget counts it) even when
                // there are no bytes to store.
                let fate = faults.fate(disk, io.block, io.tag == TAG_REPAIR);
                if let Some(bytes) = io.data {
                    match fate {
                        WriteFate::Persist => m.store.write(io.block, &bytes),
                        WriteFate::Lost => {}
                        WriteFate::Misdirected(to) => m.store.write(to, &bytes),
                    }
                }
                None
            } else if self.keep_bytes {
                Some(m.store.read(io.block))
            } else {
                None
            };
            self.ready.push_back(Done {
                disk,
                block: io.block,
                write,
                tag: io.tag,
                at: t,
                data,
            });
        }
        self.fill(members, disk);
        self.ready.pop_front()
    }

    /// Runs until idle (or `until`), returning every completion in order.
    pub fn drain(
        &mut self,
        members: &mut [Member],
        faults: &mut FaultInjector,
        until: Option<SimTime>,
    ) -> Vec<Done> {
        let mut out = Vec::new();
        while let Some(d) = self.step(members, faults, until) {
            out.push(d);
        }
        out
    }
}
