//! The members of an array that stores bytes, and block I/O on them. Each member is a
//! stack part — a host queue ([`QueueNode`], any scheduler, FCFS in issue order by
//! default) over a drive ([`DriveNode`]) — and the bytes it holds. The queue keeps at
//! most `max_outstanding` requests at the drive's own firmware queue, where SPTF
//! reorders them, and merges contiguous reads as the array asks. Data moves at
//! simulated completion: a write reaches the member's store when the drive completes
//! it, a read returns the store's bytes at that instant. Injected faults act at the
//! same point. On a drive with a write cache, a completed write is held as the drive's
//! buffered copy until the drive destages it (then it meets its fate and reaches the
//! store); reads see the buffered copy, and a power cut loses it.
//!
//! No loop here: the members and the I/Os not yet released to them form one device
//! ([`MemberSet`]) that the engine's [`Stepper`] wakes, event by event.

use super::error::ArrayError;
use super::faults::{FaultInjector, WriteFate};
use crate::disk::drive::Drive;
use crate::disk::hdd::Request;
use crate::engine::{Step, Stepper};
use crate::node::{self, Device, NodeReport};
use crate::parts::drive_node::DriveNode;
use crate::parts::queue::{MergeRule, QueueNode, QueueSpec};
use crate::sched::SchedulerKind;
use crate::store::{Block, BlockStore, SECTORS_PER_BLOCK};
use crate::time::SimTime;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// `Io::tag` of writes that restore a block after a detected fault.
pub const TAG_REPAIR: u64 = 1;

/// One member disk: its host queue and drive, and its contents.
pub struct Member {
    /// The member's scheduler over its drive.
    queue: QueueNode,
    /// What the queue was built from, and the member's number (to rebuild it).
    spec: QueueSpec,
    index: usize,
    /// What the media holds.
    pub store: BlockStore,
    /// Writes completed from the drive's cache and not yet on the media.
    buffered: Buffered,
    /// The next drive request id: unique over the member's life, as buffered writes
    /// outlive the executor that issued them.
    next_request: u64,
    /// Writes the drive destaged that are not yet settled (taken from the drive before
    /// each wake of its queue; settled before the next completion is applied).
    destaged: Vec<u64>,
}

/// A drive's buffered writes, by the drive request that carried them.
#[derive(Clone, Debug, Default)]
struct Buffered {
    by_request: FxHashMap<u64, Vec<Io>>,
    /// Block → the request holding its newest buffered bytes.
    newest: FxHashMap<u64, u64>,
}

/// A copy of the member as it stands: its drive (mechanism, caches, firmware queue),
/// bytes and buffered writes. Its host queue is built anew from the same spec: a
/// member's queue is empty between batches, and a queue that learns (an on-line Disk
/// Mimic) starts its learning again.
impl Clone for Member {
    fn clone(&self) -> Member {
        let mut m = Member::new(self.drive().clone(), &self.spec, self.index)
            .expect("a queue spec that built once builds again");
        m.store = self.store.clone();
        m.buffered = self.buffered.clone();
        m.next_request = self.next_request;
        m.destaged = self.destaged.clone();
        m
    }
}

impl std::fmt::Debug for Member {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Member")
            .field("queue", &self.queue.kind())
            .field("buffered_blocks", &self.buffered_blocks())
            .finish_non_exhaustive()
    }
}

/// The member queue an array uses unless told otherwise: FCFS in the order the array
/// issues its I/Os (each member's strand in ascending LBN), `max_outstanding` at the
/// drive, handed over an instant's batch at a time so the firmware chooses among all.
pub fn default_member_queue(max_outstanding: usize) -> QueueSpec {
    let mut q = QueueSpec::new(SchedulerKind::Fcfs);
    q.depth = max_outstanding.clamp(1, u32::MAX as usize) as u32;
    q.batch_submit = true;
    q
}

impl Member {
    /// Member `index` of an array: `drive` behind a host queue built from `queue`
    /// (the queue's `index` keeps the random draws of different members apart).
    pub fn new(drive: Drive, queue: &QueueSpec, index: usize) -> Result<Member, String> {
        let node = DriveNode::new(drive, format!("member {index}"));
        let mut spec = queue.clone();
        // The array sends each instant's I/Os together, so the firmware sees them all.
        spec.batch_submit = true;
        let queue = spec.build(Box::new(node), index)?;
        // `drive()` below relies on this: checked once here, where it can be refused.
        if queue.drive().is_none() {
            return Err(format!(
                "member {index}: its host queue hides the drive below it"
            ));
        }
        Ok(Member {
            queue,
            spec,
            index,
            store: BlockStore::new(),
            buffered: Buffered::default(),
            next_request: 0,
            destaged: Vec::new(),
        })
    }

    /// The member's drive.
    pub fn drive(&self) -> &Drive {
        self.queue
            .drive()
            .expect("a member queue always has a drive below it")
    }

    pub fn drive_mut(&mut self) -> &mut Drive {
        self.queue
            .drive_mut()
            .expect("a member queue always has a drive below it")
    }

    /// The member's host queue and drive, as stack parts (for `--print-stack` and
    /// per-drive statistics).
    pub fn node(&self) -> &dyn Device {
        &self.queue
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

    /// Whether a write of `block` is still only in the drive's cache.
    pub fn is_buffered(&self, block: u64) -> bool {
        self.buffered.newest.contains_key(&block)
    }

    /// A power cut: the drive's cache and the writes it held are lost.
    pub fn power_cut(&mut self) {
        self.destaged.clear();
        self.drive_mut().discard_cache();
        self.buffered = Buffered::default();
    }

    /// Moves the writes the drive has destaged since the last call to the media:
    /// each meets its fate there.
    fn settle(&mut self, disk: usize, faults: &mut FaultInjector) {
        let mut ids = std::mem::take(&mut self.destaged);
        ids.extend(self.drive_mut().take_destaged());
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
            WriteFate::Torn(sectors) => {
                // The first sectors are new, the rest keep what the media held.
                let mut b = store.read(io.block);
                let n = sectors as usize * 512;
                b[..n].copy_from_slice(&bytes[..n]);
                store.write(io.block, &b);
            }
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
    /// Where the block starts on the member when that is not sector `block` × 8 (a
    /// placement at sector granularity, e.g. MimdRAID's rotational replicas); the
    /// member's store still keeps it under `block`.
    pub sector: Option<u64>,
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
    /// Time the drive worked during the batch: its requests' service times and the
    /// media time of the write-cache destages it began meanwhile, overlaps counted
    /// once (a cached write's interface time may overlap an older write's destage).
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

/// The I/Os of the current batch not yet at their members' queues, and those there.
#[derive(Debug)]
struct Queues {
    /// Per member: I/Os the array holds back, each with the instant it may be sent.
    pending: Vec<VecDeque<(SimTime, Io)>>,
    /// Per member: the member-queue request id of each I/O sent and not completed.
    inflight: Vec<FxHashMap<u64, Io>>,
}

/// Block I/O of one batch on the members: what it sent, what came back, and what the
/// members did meanwhile.
#[derive(Debug)]
pub struct Executor {
    queues: Queues,
    /// How the member queues merge this batch's requests.
    merge: Option<MergeRule>,
    /// The engine's stepper: decides which member event comes next.
    stepper: Stepper<()>,
    /// What the last wake of the members completed.
    woken: Vec<node::Done>,
    /// Completion instants of this executor's reads, by (member, block).
    read_at: FxHashMap<(usize, u64), SimTime>,
    /// Completions not yet handed out (a merged request completes several I/Os).
    ready: VecDeque<Done>,
    /// Whether reads return the member's bytes (false in timing-only mode).
    keep_bytes: bool,
    pub now: SimTime,
    pub activity: Vec<DiskActivity>,
    /// Each member's busy time when the executor was made.
    busy_before: Vec<u64>,
    /// When the executor was made (the batch's start).
    start: SimTime,
}

impl Executor {
    pub fn new(members: &[Member], now: SimTime) -> Executor {
        let n = members.len();
        Executor {
            queues: Queues {
                pending: vec![VecDeque::new(); n],
                inflight: vec![FxHashMap::default(); n],
            },
            merge: None,
            stepper: Stepper::new(now, false),
            woken: Vec::new(),
            read_at: FxHashMap::default(),
            ready: VecDeque::new(),
            keep_bytes: true,
            now,
            activity: vec![DiskActivity::default(); n],
            busy_before: members
                .iter()
                .map(|m| m.drive().busy_ns_until(now))
                .collect(),
            start: now,
        }
    }

    /// Flushes the write cache of every member that has one (SYNCHRONIZE CACHE, sent
    /// when nothing is outstanding) and advances to when the last cached write is on
    /// the media. Members without a write cache have nothing to flush.
    pub fn sync_caches(&mut self, members: &mut [Member], faults: &mut FaultInjector) {
        let mut end = self.now;
        for (d, m) in members.iter_mut().enumerate() {
            if !m.drive().caches_writes() {
                continue;
            }
            // Also waits out a destage already running.
            let t = m.drive_mut().sync_cache(self.now);
            m.settle(d, faults);
            let act = &mut self.activity[d];
            act.last_done = act.last_done.max(Some(t));
            end = end.max(t);
        }
        self.now = end;
    }

    /// Sets each member's busy time: the time its drive worked from the executor's
    /// start to now, service and destages as one union (their sum would count overlaps
    /// twice). A destage still running at the end counts up to it; one the drive ran
    /// idle before the start but dated when the batch woke it is cut to the batch.
    pub fn count_busy(&mut self, members: &[Member]) {
        let span = self.now.0.saturating_sub(self.start.0);
        for ((act, m), before) in self.activity.iter_mut().zip(members).zip(&self.busy_before) {
            let worked = m.drive().busy_ns_until(self.now).saturating_sub(*before);
            act.busy_ns = worked.min(span);
        }
    }

    /// Merges runs of contiguous block I/Os of the same kind, queued one after the
    /// other on a member, into one drive request of up to this many blocks.
    pub fn merge_up_to(mut self, reads: u32, writes: u32) -> Executor {
        let blocks = reads.max(writes);
        self.merge = (blocks > 1).then(|| MergeRule {
            max_sectors: (u64::from(blocks) * SECTORS_PER_BLOCK).min(u64::from(u32::MAX)) as u32,
            writes: writes > 1,
            read_gap_sectors: 0,
        });
        self
    }

    /// Test hook: puts the executor's clock at `t`, past its members' next events, so
    /// that its next step breaks the engine's time invariant (the error path).
    #[cfg(test)]
    pub(crate) fn skew_clock(&mut self, t: SimTime) {
        self.stepper = Stepper::new(t, false);
    }

    /// Lets merged reads span gaps of up to `blocks` unwanted blocks.
    pub fn read_through_gaps(mut self, blocks: u64) -> Executor {
        if let Some(m) = &mut self.merge {
            m.read_gap_sectors = (blocks * SECTORS_PER_BLOCK).min(u64::from(u32::MAX)) as u32;
        }
        self
    }

    /// Reads return no bytes and writes store none: only the timing is simulated.
    pub fn without_bytes(mut self) -> Executor {
        self.keep_bytes = false;
        self
    }

    /// Queues a strand on its members (in the given order) and sends it at once.
    pub fn issue(&mut self, members: &mut [Member], strand: Vec<Io>) {
        let now = self.now;
        for io in strand {
            self.queues.pending[io.disk].push_back((now, io));
        }
        let mut set = self.member_set(members);
        for d in 0..set.queues.pending.len() {
            set.release(d, now, true);
        }
    }

    /// Queues I/Os that the host may send only from their own instants on (when
    /// the reads they depend on completed; instants before `now` are allowed where
    /// the member has been idle since). Each member is sent its ready ones in the
    /// given order; `step` sends them at those instants.
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

    fn member_set<'a>(&'a mut self, members: &'a mut [Member]) -> MemberSet<'a> {
        MemberSet::new(&mut self.queues, self.merge, members)
    }

    /// When member `disk` completed the read of `block` for this executor.
    pub fn read_done_at(&self, disk: usize, block: u64) -> Option<SimTime> {
        self.read_at.get(&(disk, block)).copied()
    }

    /// When member `d` last completed an I/O for this executor (`None`: it did none).
    pub fn last_done(&self, d: usize) -> Option<SimTime> {
        self.activity.get(d).and_then(|a| a.last_done)
    }

    /// Advances to the next completion on any member, applies it and returns it;
    /// queued I/Os that become ready on the way are sent. `None` when idle, or when
    /// the next event lies beyond `until` (a crash or a deadline): then nothing after
    /// it happens. An error is a breach of the engine's invariants by the members
    /// (time going backwards, a completion of nothing outstanding): a bug, returned
    /// to the caller rather than panicking inside a run.
    pub fn step(
        &mut self,
        members: &mut [Member],
        faults: &mut FaultInjector,
        until: Option<SimTime>,
    ) -> Result<Option<Done>, ArrayError> {
        if let Some(d) = self.ready.pop_front() {
            return Ok(Some(d));
        }
        // Drives destage on their own between the host's steps (even after the last
        // completion an earlier executor saw): those writes reach the media first.
        for (d, m) in members.iter_mut().enumerate() {
            m.settle(d, faults);
        }
        loop {
            let mut woken = std::mem::take(&mut self.woken);
            woken.clear();
            let mut set = MemberSet::new(&mut self.queues, self.merge, members);
            let step = self.stepper.step(&mut set, true, until, &mut woken);
            let destaged = set.destaged.take();
            match step {
                Ok(Step::Woken { now }) => self.now = self.now.max(now),
                Ok(Step::Idle | Step::Beyond(_) | Step::Arrival { .. }) => {
                    self.woken = woken;
                    return Ok(None);
                }
                Err(e) => return Err(ArrayError::Internal(format!("array members: {e}"))),
            }
            // Destages the drive ran before this event reach the media first.
            if let Some((disk, ids)) = destaged {
                members[disk].settle_ids(disk, ids, faults);
            }
            for d in woken.drain(..) {
                self.apply(members, faults, d);
            }
            self.woken = woken;
            if let Some(d) = self.ready.pop_front() {
                return Ok(Some(d));
            }
        }
    }

    /// A member's completion of one I/O: its bytes move, its activity counts.
    fn apply(&mut self, members: &mut [Member], faults: &mut FaultInjector, c: node::Done) {
        let disk = c.unit as usize;
        let Some(io) = self.queues.inflight[disk].remove(&c.req.id) else {
            return;
        };
        let t = c.done;
        let act = &mut self.activity[disk];
        act.last_done = Some(t);
        if let Some(at) = c.dispatch {
            act.first_issue = Some(act.first_issue.map_or(at, |f| f.min(at)));
        }
        let write = io.write;
        if !c.rider {
            // One drive request, however many I/Os rode on it.
            if write {
                act.writes += 1;
            } else {
                act.reads += 1;
            }
        }
        if !write {
            self.read_at.insert((disk, io.block), t);
        }
        let m = &mut members[disk];
        self.ready.push_back(Done {
            disk,
            block: io.block,
            write,
            tag: io.tag,
            at: t,
            data: (!write && self.keep_bytes).then(|| m.read(io.block)),
        });
        if write && c.cache_hit && m.drive().caches_writes() {
            // Writes never merge on an array that stores bytes (see `merge_up_to`), so
            // the drive request that destages this one is its own.
            m.buffered.newest.insert(io.block, c.req.id);
            m.buffered.by_request.entry(c.req.id).or_default().push(io);
        } else if write {
            persist(&mut m.store, disk, io, faults);
        }
    }

    /// Runs until idle (or `until`), returning every completion in order.
    pub fn drain(
        &mut self,
        members: &mut [Member],
        faults: &mut FaultInjector,
        until: Option<SimTime>,
    ) -> Result<Vec<Done>, ArrayError> {
        let mut out = Vec::new();
        while let Some(d) = self.step(members, faults, until)? {
            out.push(d);
        }
        Ok(out)
    }
}

/// The members with the I/Os not yet sent to them, as one device the engine's
/// [`Stepper`] wakes: its next event is the earliest event of any member queue (ties:
/// the lowest member), or held I/Os becoming ready on a member, which the wake sends.
/// A member's completions come back with the member's number as their unit; the
/// destages its drive ran before them are left in `destaged` for the executor (bytes
/// and faults are its business).
struct MemberSet<'a> {
    queues: &'a mut Queues,
    members: &'a mut [Member],
    destaged: Option<(usize, Vec<u64>)>,
}

impl<'a> MemberSet<'a> {
    /// The members, their queues merging by `merge` from now on.
    fn new(
        queues: &'a mut Queues,
        merge: Option<MergeRule>,
        members: &'a mut [Member],
    ) -> MemberSet<'a> {
        for m in members.iter_mut() {
            m.queue.set_merge(merge);
        }
        MemberSet {
            queues,
            members,
            destaged: None,
        }
    }

    fn has_room(&self, d: usize) -> bool {
        let q = &self.members[d].queue;
        q.outstanding() < q.depth()
    }

    /// When member `d` next has something to do: an event of its queue, or (when it
    /// has room) its first held I/O becoming ready.
    fn next_event(&self, d: usize) -> Option<SimTime> {
        let queue = self.members[d].queue.next_wake();
        let release = if self.has_room(d) {
            self.queues.pending[d].iter().map(|(at, _)| *at).min()
        } else {
            None
        };
        match (queue, release) {
            (Some(q), Some(r)) => Some(q.min(r)),
            (q, r) => q.or(r),
        }
    }

    /// Sends member `d` its held I/Os that are ready at `now`, in the order held:
    /// all of them (`all`: an issued strand, for its queue to order and merge), or
    /// only while the member has room at its drive (timed I/Os: the array keeps
    /// control of the order, sending the first ready one in issue order whenever the
    /// member can take it, so a write that became ready early does not overtake).
    fn release(&mut self, d: usize, now: SimTime, all: bool) -> bool {
        let mut sent = false;
        let mut i = 0;
        while i < self.queues.pending[d].len() {
            if self.queues.pending[d][i].0 > now {
                i += 1;
                continue;
            }
            if !all && !self.has_room(d) {
                break;
            }
            let Some((_, io)) = self.queues.pending[d].remove(i) else {
                break;
            };
            let m = &mut self.members[d];
            let id = m.next_request;
            m.next_request += 1;
            let req = Request {
                id,
                lbn: io.sector.unwrap_or(io.block * SECTORS_PER_BLOCK),
                blocks: SECTORS_PER_BLOCK as u32,
                write: io.write,
            };
            m.queue.enqueue(now, req);
            self.queues.inflight[d].insert(id, io);
            sent = true;
        }
        if sent {
            self.members[d].queue.start(now);
        }
        sent
    }
}

impl Device for MemberSet<'_> {
    fn capacity(&self) -> u64 {
        self.members.iter().map(|m| m.queue.capacity()).sum()
    }

    fn outstanding(&self) -> usize {
        self.queues.inflight.iter().map(|f| f.len()).sum::<usize>()
            + self.queues.pending.iter().map(|p| p.len()).sum::<usize>()
    }

    fn can_accept(&self) -> bool {
        false
    }

    fn submit(&mut self, _now: SimTime, _req: Request) {
        // The executor hands I/Os to the members itself (`issue`); the stepper that
        // wakes this set has no arrivals to submit.
    }

    fn next_wake(&self) -> Option<SimTime> {
        (0..self.members.len())
            .filter_map(|d| self.next_event(d))
            .min()
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<node::Done>) {
        let Some(d) = (0..self.members.len())
            .filter_map(|d| self.next_event(d).map(|t| (t, d)))
            .min()
            .filter(|&(t, _)| t <= now)
            .map(|(_, d)| d)
        else {
            return;
        };
        let m = &mut self.members[d];
        if m.queue.next_wake().is_none_or(|t| t > now) {
            // Only held I/Os are due: they go to the member's queue.
            self.release(d, now, false);
            return;
        }
        // A completion at the same instant as a release goes first (the drive picks
        // its next request before the released ones reach it).
        let ids = m.drive_mut().take_destaged();
        m.destaged.extend(ids);
        let first = out.len();
        m.queue.wake(now, out);
        if out.len() > first {
            // A completion: the destages the drive ran before it settle first.
            self.destaged = Some((d, std::mem::take(&mut m.destaged)));
            // Room at the drive: held I/Os ready by now go (before the next event).
            self.release(d, now, false);
        }
        for done in &mut out[first..] {
            done.unit = d as u32;
        }
    }

    fn describe(&self, depth: usize, out: &mut String) {
        node::tree_line(
            depth,
            out,
            &format!("array members ({})", self.members.len()),
        );
    }

    fn report_until(&self, _path: &str, _end: SimTime, _out: &mut Vec<NodeReport>) {}
}
