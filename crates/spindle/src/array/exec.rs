//! Runs block I/O on the members of an array: each member keeps a host-side queue of
//! strands (issued in the order given, the caller sorts them by ascending LBN) and
//! hands at most `max_outstanding` requests at a time to the drive's own firmware
//! queue, where SPTF reorders them. Data moves at simulated completion: a write reaches
//! the member's store when the drive completes it, a read returns the store's bytes at
//! that instant. Injected faults act at the same point. On a drive with a write cache,
//! a completed write is held as the drive's buffered copy until the drive destages it
//! (then it meets its fate and reaches the store); reads see the buffered copy, and a
//! power cut loses it.
//!
//! The executor has no event loop of its own: the members and their host queues form
//! one device ([`MemberSet`]) that the engine's [`Stepper`] wakes, event by event.

use super::faults::{FaultInjector, WriteFate};
use crate::disk::drive::{DestageStats, Drive};
use crate::disk::hdd::{Completion, Request};
use crate::engine::{Step, Stepper};
use crate::node::{self, Device, NodeReport};
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
    /// What the media holds.
    pub store: BlockStore,
    /// Writes completed from the drive's cache and not yet on the media.
    buffered: Buffered,
    /// The next drive request id: unique over the member's life, as buffered writes
    /// outlive the executor that issued them.
    next_request: u64,
}

/// A drive's buffered writes, by the drive request that carried them.
#[derive(Clone, Debug, Default)]
struct Buffered {
    by_request: FxHashMap<u64, Vec<Io>>,
    /// Block → the request holding its newest buffered bytes.
    newest: FxHashMap<u64, u64>,
}

impl Member {
    pub fn new(drive: Drive) -> Member {
        Member {
            drive,
            store: BlockStore::new(),
            buffered: Buffered::default(),
            next_request: 0,
        }
    }

    /// The bytes a read of `block` returns: the newest buffered write, else the media.
    pub fn read(&self, block: u64) -> Block {
        self.buffered
            .newest
            .get(&block)
            .and_then(|id| self.buffered.by_request.get(id))
            .and_then(|ios| ios.iter().rev().find(|io| io.block == block))
            .and_then(|io| io.data.clone())
            .unwrap_or_else(|| self.store.read(block))
    }

    /// Blocks written but still only in the drive's cache.
    pub fn buffered_blocks(&self) -> usize {
        self.buffered.newest.len()
    }

    /// A power cut: the drive's cache and the writes it held are lost.
    pub fn power_cut(&mut self) {
        self.drive.discard_cache();
        self.buffered = Buffered::default();
    }

    /// Moves the writes the drive has destaged since the last call to the media:
    /// each meets its fate there.
    fn settle(&mut self, disk: usize, faults: &mut FaultInjector) {
        let ids = self.drive.take_destaged();
        self.settle_ids(disk, ids, faults);
    }

    /// Moves the writes of the destaged drive requests `ids` to the media, in order.
    fn settle_ids(&mut self, disk: usize, ids: Vec<u64>, faults: &mut FaultInjector) {
        for id in ids {
            let Some(ios) = self.buffered.by_request.remove(&id) else {
                continue;
            };
            for io in ios {
                if self.buffered.newest.get(&io.block) == Some(&id) {
                    self.buffered.newest.remove(&io.block);
                }
                persist(&mut self.store, disk, io, faults);
            }
        }
    }
}

/// A write reaching the media: it meets its fate (the crash budget counts it even
/// when there are no bytes to store).
fn persist(store: &mut BlockStore, disk: usize, io: Io, faults: &mut FaultInjector) {
    let fate = faults.fate(disk, io.block, io.tag == TAG_REPAIR);
    if let Some(bytes) = io.data {
        match fate {
            WriteFate::Persist => store.write(io.block, &bytes),
            WriteFate::Lost => {}
            WriteFate::Misdirected(to) => store.write(to, &bytes),
        }
    }
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
    /// Sum of the drive's service times (start of positioning to completion), plus
    /// the media time of write-cache destages the drive began meanwhile.
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

/// Each member's host queue: the I/Os the host holds and those at the drive.
#[derive(Debug)]
struct Queues {
    /// Per member: I/Os the host holds, each with the instant it may be sent.
    pending: Vec<VecDeque<(SimTime, Io)>>,
    /// Per member: drive request id → the block I/Os it carries (several when
    /// contiguous ones were merged).
    inflight: Vec<FxHashMap<u64, Vec<Io>>>,
    max_outstanding: usize,
    /// Largest request (in 4 KiB blocks) contiguous reads are merged into.
    max_read_blocks: u32,
    /// Largest request contiguous writes are merged into (1: never).
    max_write_blocks: u32,
    /// Reads separated by at most this many unwanted blocks are merged into one
    /// request that reads through the gap.
    read_gap: u64,
}

/// Host queues and in-flight requests of every member.
#[derive(Debug)]
pub struct Executor {
    queues: Queues,
    /// The engine's stepper: decides which member event comes next.
    stepper: Stepper<()>,
    /// What the last wake of the members completed (at most one drive request).
    woken: Vec<node::Done>,
    /// Completion instants of this executor's reads, by (member, block).
    read_at: FxHashMap<(usize, u64), SimTime>,
    /// Completions not yet handed out (a merged request completes several I/Os).
    ready: VecDeque<Done>,
    /// Whether reads return the member's bytes (false in timing-only mode).
    keep_bytes: bool,
    pub now: SimTime,
    pub activity: Vec<DiskActivity>,
    /// Each member's destage totals when the executor was made.
    destages_before: Vec<DestageStats>,
}

impl Executor {
    pub fn new(members: &[Member], max_outstanding: usize, now: SimTime) -> Executor {
        let n = members.len();
        Executor {
            queues: Queues {
                pending: vec![VecDeque::new(); n],
                inflight: vec![FxHashMap::default(); n],
                max_outstanding: max_outstanding.max(1),
                max_read_blocks: 1,
                max_write_blocks: 1,
                read_gap: 0,
            },
            stepper: Stepper::new(now, false),
            woken: Vec::new(),
            read_at: FxHashMap::default(),
            ready: VecDeque::new(),
            keep_bytes: true,
            now,
            activity: vec![DiskActivity::default(); n],
            destages_before: members.iter().map(|m| m.drive.destage_stats()).collect(),
        }
    }

    /// Flushes the write cache of every member that has one (SYNCHRONIZE CACHE, sent
    /// when nothing is outstanding) and advances to when the last cached write is on
    /// the media. Members without a write cache have nothing to flush.
    pub fn sync_caches(&mut self, members: &mut [Member], faults: &mut FaultInjector) {
        let mut end = self.now;
        for (d, m) in members.iter_mut().enumerate() {
            if !m.drive.caches_writes() {
                continue;
            }
            // Also waits out a destage already running.
            let t = m.drive.sync_cache(self.now);
            m.settle(d, faults);
            let act = &mut self.activity[d];
            act.last_done = act.last_done.max(Some(t));
            end = end.max(t);
        }
        self.now = end;
    }

    /// Adds to each member's busy time the media time of the destages it began since
    /// the executor was made.
    pub fn count_destages(&mut self, members: &[Member]) {
        for ((act, m), before) in self
            .activity
            .iter_mut()
            .zip(members)
            .zip(&self.destages_before)
        {
            act.busy_ns += m.drive.destage_stats().busy_ns - before.busy_ns;
        }
    }

    /// Merges runs of contiguous block I/Os of the same kind, queued one after the
    /// other on a member, into one drive request of up to this many blocks.
    pub fn merge_up_to(mut self, reads: u32, writes: u32) -> Executor {
        self.queues.max_read_blocks = reads.max(1);
        self.queues.max_write_blocks = writes.max(1);
        self
    }

    /// Lets merged reads span gaps of up to `blocks` unwanted blocks.
    pub fn read_through_gaps(mut self, blocks: u64) -> Executor {
        self.queues.read_gap = blocks;
        self
    }

    /// Reads return no bytes and writes store none: only the timing is simulated.
    pub fn without_bytes(mut self) -> Executor {
        self.keep_bytes = false;
        self
    }

    /// Queues a strand on its members (in the given order) and starts what fits.
    pub fn issue(&mut self, members: &mut [Member], strand: Vec<Io>) {
        let now = self.now;
        let mut touched = Vec::new();
        for io in strand {
            if !touched.contains(&io.disk) {
                touched.push(io.disk);
            }
            self.queues.pending[io.disk].push_back((now, io));
        }
        for d in touched {
            self.queues.fill(members, &mut self.activity, d, now);
        }
    }

    /// Queues I/Os that the host may send only from their own instants on (when
    /// the reads they depend on completed; instants before `now` are allowed where
    /// the member has been idle since). Each member sends its ready ones in the
    /// given order; `step` starts them at those instants.
    pub fn issue_timed(&mut self, strand: Vec<(SimTime, Io)>) {
        // The members' events from here on run from the earliest of these instants
        // (the members they go to have been idle since).
        if let Some(first) = strand.iter().map(|(at, _)| *at).min() {
            if first < self.stepper.now() {
                self.stepper = Stepper::new(first, false);
            }
        }
        for (at, io) in strand {
            self.queues.pending[io.disk].push_back((at, io));
        }
    }

    /// When member `disk` completed the read of `block` for this executor.
    pub fn read_done_at(&self, disk: usize, block: u64) -> Option<SimTime> {
        self.read_at.get(&(disk, block)).copied()
    }

    /// When member `d` last completed an I/O for this executor (`None`: it did none).
    pub fn last_done(&self, d: usize) -> Option<SimTime> {
        self.activity.get(d).and_then(|a| a.last_done)
    }

    /// Advances to the next completion on any member, applies it, refills that
    /// member's queue and returns it; queued I/Os that become ready before it are
    /// sent on the way. `None` when idle, or when the next event lies beyond `until`
    /// (a crash or a deadline): then nothing after it happens.
    pub fn step(
        &mut self,
        members: &mut [Member],
        faults: &mut FaultInjector,
        until: Option<SimTime>,
    ) -> Option<Done> {
        if let Some(d) = self.ready.pop_front() {
            return Some(d);
        }
        // Drives destage on their own between the host's steps (even after the last
        // completion an earlier executor saw): those writes reach the media first.
        for (d, m) in members.iter_mut().enumerate() {
            m.settle(d, faults);
        }
        let (disk, destaged, c) = loop {
            let mut set = MemberSet {
                queues: &mut self.queues,
                members: &mut *members,
                activity: &mut self.activity,
                completed: None,
            };
            let step = self.stepper.step(&mut set, true, until, &mut self.woken);
            let completed = set.completed.take();
            match step {
                Ok(Step::Woken { now }) => self.now = self.now.max(now),
                Ok(Step::Idle | Step::Beyond(_) | Step::Arrival { .. }) => return None,
                Err(e) => panic!("array executor: {e}"),
            }
            if let Some(c) = completed {
                break c;
            }
        };
        let t = c.done;
        // Destages the drive ran before this completion reach the media first.
        members[disk].settle_ids(disk, destaged, faults);
        let ios = self.queues.inflight[disk].remove(&c.id)?;
        let act = &mut self.activity[disk];
        act.busy_ns += c.service_ns();
        act.last_done = Some(t);
        let write = ios.first().is_some_and(|io| io.write);
        if write {
            act.writes += 1;
        } else {
            act.reads += 1;
            for io in &ios {
                self.read_at.insert((disk, io.block), t);
            }
        }
        let m = &mut members[disk];
        let buffered = write && c.cache_hit && m.drive.caches_writes();
        for io in &ios {
            self.ready.push_back(Done {
                disk,
                block: io.block,
                write,
                tag: io.tag,
                at: t,
                data: (!write && self.keep_bytes).then(|| m.read(io.block)),
            });
        }
        if buffered {
            for io in &ios {
                m.buffered.newest.insert(io.block, c.id);
            }
            m.buffered.by_request.insert(c.id, ios);
        } else if write {
            for io in ios {
                persist(&mut m.store, disk, io, faults);
            }
        }
        self.queues.fill(members, &mut self.activity, disk, t);
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

impl Queues {
    /// The first queued I/O of `disk` the host may send at `now`.
    fn take_ready(&mut self, disk: usize, now: SimTime) -> Option<Io> {
        let i = self.pending[disk].iter().position(|(at, _)| *at <= now)?;
        self.pending[disk].remove(i).map(|(_, io)| io)
    }

    /// When `disk` could take a queued I/O that is not ready yet, the earliest instant
    /// one becomes ready (`None`: nothing waits, or the member is full).
    fn next_ready(&self, disk: usize) -> Option<SimTime> {
        if self.inflight[disk].len() >= self.max_outstanding {
            return None;
        }
        self.pending[disk].iter().map(|(at, _)| *at).min()
    }

    fn fill(
        &mut self,
        members: &mut [Member],
        activity: &mut [DiskActivity],
        disk: usize,
        now: SimTime,
    ) {
        let mut started = false;
        while self.inflight[disk].len() < self.max_outstanding {
            let Some(first) = self.take_ready(disk, now) else {
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
                    Some((at, io))
                        if *at <= now
                            && io.write == write
                            && io.block >= next
                            && io.block - next <= gap
                            && io.block - start < u64::from(limit) =>
                    {
                        if let Some((_, io)) = self.pending[disk].pop_front() {
                            next = io.block + 1;
                            ios.push(io);
                        }
                    }
                    _ => break,
                }
            }
            let id = members[disk].next_request;
            members[disk].next_request += 1;
            let req = Request {
                id,
                lbn,
                blocks: ((next - start) * SECTORS_PER_BLOCK) as u32,
                write,
            };
            members[disk].drive.enqueue(now, req);
            let act = &mut activity[disk];
            act.first_issue = Some(act.first_issue.map_or(now, |t| t.min(now)));
            self.inflight[disk].insert(id, ios);
            started = true;
        }
        if started {
            members[disk].drive.kick(now);
        }
    }
}

/// The members with their host queues, as one device the engine's [`Stepper`] wakes:
/// its next event is the earliest drive completion (ties: the lowest member), or a
/// queued I/O becoming ready strictly before it on a member with room, which the
/// wake sends. A completion's drive request, and the destages the drive ran before
/// it, are left in `completed` for the executor (bytes and faults are its business).
struct MemberSet<'a> {
    queues: &'a mut Queues,
    members: &'a mut [Member],
    activity: &'a mut [DiskActivity],
    completed: Option<(usize, Vec<u64>, Completion)>,
}

impl MemberSet<'_> {
    fn completion(&self) -> Option<(usize, SimTime)> {
        self.members
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.drive.next_completion().map(|t| (i, t)))
            .min_by_key(|&(i, t)| (t, i))
    }

    fn release(&self) -> Option<(usize, SimTime)> {
        (0..self.queues.pending.len())
            .filter_map(|d| self.queues.next_ready(d).map(|t| (d, t)))
            .min_by_key(|&(d, t)| (t, d))
    }
}

impl Device for MemberSet<'_> {
    fn capacity(&self) -> u64 {
        self.members.iter().map(|m| m.drive.hdd().capacity()).sum()
    }

    fn outstanding(&self) -> usize {
        self.queues.inflight.iter().map(|f| f.len()).sum::<usize>()
            + self.queues.pending.iter().map(|p| p.len()).sum::<usize>()
    }

    fn can_accept(&self) -> bool {
        false
    }

    fn submit(&mut self, _now: SimTime, _req: Request) {
        unreachable!("the executor queues block I/Os itself");
    }

    fn next_wake(&self) -> Option<SimTime> {
        match (self.completion(), self.release()) {
            (Some(c), Some(r)) => Some(c.1.min(r.1)),
            (c, r) => c.or(r).map(|(_, t)| t),
        }
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<node::Done>) {
        match (self.completion(), self.release()) {
            // A completion at the same instant refills its member itself.
            (Some(c), Some(r)) if r.1 < c.1 => {
                self.queues.fill(self.members, self.activity, r.0, r.1);
            }
            (None, Some(r)) => {
                self.queues.fill(self.members, self.activity, r.0, r.1);
            }
            (Some((disk, t)), _) if t <= now => {
                let drive = &mut self.members[disk].drive;
                let destaged = drive.take_destaged();
                let Some(c) = drive.complete() else {
                    return;
                };
                let c = c.completion;
                out.push(node::Done::of_drive(&c, disk as u32));
                self.completed = Some((disk, destaged, c));
            }
            _ => {}
        }
    }

    fn describe(&self, depth: usize, out: &mut String) {
        node::tree_line(
            depth,
            out,
            &format!("array executor ({} members)", self.members.len()),
        );
    }

    fn report(&self, _path: &str, _out: &mut Vec<NodeReport>) {}
}
