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
    /// `Some` for a write: the bytes to store.
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
    inflight: Vec<FxHashMap<u64, Io>>,
    max_outstanding: usize,
    next_id: u64,
    pub now: SimTime,
    pub activity: Vec<DiskActivity>,
}

impl Executor {
    pub fn new(members: usize, max_outstanding: usize, now: SimTime) -> Executor {
        Executor {
            pending: vec![VecDeque::new(); members],
            inflight: vec![FxHashMap::default(); members],
            max_outstanding: max_outstanding.max(1),
            next_id: 0,
            now,
            activity: vec![DiskActivity::default(); members],
        }
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
            let Some(io) = self.pending[disk].pop_front() else {
                break;
            };
            let id = self.next_id;
            self.next_id += 1;
            let req = Request {
                id,
                lbn: io.block * SECTORS_PER_BLOCK,
                blocks: SECTORS_PER_BLOCK as u32,
                write: io.data.is_some(),
            };
            members[disk].drive.enqueue(now, req);
            let act = &mut self.activity[disk];
            act.first_issue = Some(act.first_issue.map_or(now, |t| t.min(now)));
            self.inflight[disk].insert(id, io);
            started = true;
        }
        if started {
            members[disk].drive.kick(now);
        }
    }

    /// Whether anything is queued or in flight.
    pub fn busy(&self) -> bool {
        self.inflight.iter().any(|m| !m.is_empty()) || self.pending.iter().any(|q| !q.is_empty())
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
        let io = self.inflight[disk].remove(&c.id)?;
        let act = &mut self.activity[disk];
        act.busy_ns += c.service_ns();
        act.last_done = Some(t);
        let m = &mut members[disk];
        let write = io.data.is_some();
        let data = match io.data {
            Some(bytes) => {
                act.writes += 1;
                match faults.fate(disk, io.block, io.tag == TAG_REPAIR) {
                    WriteFate::Persist => m.store.write(io.block, &bytes),
                    WriteFate::Lost => {}
                    WriteFate::Misdirected(to) => m.store.write(to, &bytes),
                }
                None
            }
            None => {
                act.reads += 1;
                Some(m.store.read(io.block))
            }
        };
        self.fill(members, disk);
        Some(Done {
            disk,
            block: io.block,
            write,
            tag: io.tag,
            at: t,
            data,
        })
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
