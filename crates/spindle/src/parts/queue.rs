//! A host queue: a scheduler in front of one device. It keeps up to `depth` requests
//! outstanding at the device and, whenever there is room, lets the scheduler pick the
//! next. Optionally it holds a request that touches blocks of earlier ones not yet
//! completed (waiting, in service, or themselves held) until they complete (the
//! thesis's rule for compressed traces, §3.5), so requests from above that share a
//! block reach the device one at a time, in arrival order. A freeblock scheduler's free
//! background reads are not held (they go only when they cost nothing, and a scrub
//! reads a block as well before a write as after), but a request arriving while one is
//! out waits for it.

use crate::disk::drive::Drive;
use crate::disk::hdd::{Hdd, Request};
use crate::mimic::{DiskMimic, Metric};
use crate::node::{tree_line, Device, Done, NodeReport};
use crate::parts::overlap::OverlapIndex;
use crate::sched::{BackgroundPool, HostQueue, SchedulerKind};
use crate::time::SimTime;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SchedulerConfig {
    #[serde(default = "default_kind")]
    pub kind: SchedulerKind,
    #[serde(default = "default_depth")]
    pub queue_depth: u32,
    pub max_wait_ms: Option<f64>,
    #[serde(default)]
    pub hold_overlapping: bool,
    /// SMTF: samples per distance the Disk Mimic probes.
    #[serde(default = "default_samples")]
    pub mimic_samples: u32,
    /// SMTF: interpolate distances with the thesis's Table 3.2 ladder.
    #[serde(default)]
    pub mimic_interpolate: bool,
    /// Freeblock: background candidate reads kept outstanding at the host.
    #[serde(default = "default_background")]
    pub background_outstanding: u32,
    /// Greedy, SMTF and on-line SMTF consider only this many of the oldest waiting
    /// requests (default: all, the exact mode; refused for the other schedulers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<usize>,
    /// Request merging: a waiting request that starts where the one sent ends (same
    /// kind) goes with it as one request, up to this many KiB (default: no merging).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge_kib: Option<u32>,
    /// SMTF: the Disk Mimic's table, loaded from this file (`spindle mimic probe
    /// --out`, of a simulated or a real device) instead of probing the drive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mimic_table: Option<std::path::PathBuf>,
}

/// Largest merged request, KiB.
pub const MAX_MERGE_KIB: u32 = 1 << 16;

/// Largest host queue depth.
pub const MAX_QUEUE_DEPTH: u32 = 1 << 16;

/// Most samples per distance an SMTF or freeblock queue's Disk Mimic probes.
pub const MAX_MIMIC_SAMPLES: u32 = 10_000;
/// A freeblock scrub's read size, 512-byte sectors: the thesis's scrubber "reads 4 KB
/// blocks" (§2.3.3).
pub const SCRUB_SECTORS: u32 = 8;

/// Longest aging bound, ms (a day).
pub const MAX_WAIT_MS: f64 = 86_400_000.0;

/// Why interpolation is refused beside a Disk Mimic table: the ladder probes, and a
/// loaded table predicts from its own entries.
pub const INTERPOLATE_WITH_TABLE: &str = "applies to a Disk Mimic probed off-line: a mimic table predicts from its own entries (between two, linearly; beyond them, the nearest) and probes nothing";

impl SchedulerConfig {
    /// The table's ranges, which do not depend on the scheduler's kind; errors name
    /// the key. [`SchedulerConfig::queue_spec`] checks them first.
    pub fn check_ranges(&self) -> Result<(), String> {
        if self.queue_depth == 0 || self.queue_depth > MAX_QUEUE_DEPTH {
            return Err(format!(
                "queue-depth must be within 1..={MAX_QUEUE_DEPTH}, got {}",
                self.queue_depth
            ));
        }
        if let Some(w) = self.max_wait_ms {
            if !(0.0..=MAX_WAIT_MS).contains(&w) {
                return Err(format!(
                    "max-wait-ms must be within 0..={MAX_WAIT_MS} ms, got {w:e}"
                ));
            }
        }
        if !(1..=MAX_MIMIC_SAMPLES).contains(&self.mimic_samples) {
            return Err(format!(
                "mimic-samples must be within 1..={MAX_MIMIC_SAMPLES}, got {}",
                self.mimic_samples
            ));
        }
        if self.background_outstanding > MAX_QUEUE_DEPTH {
            return Err(format!(
                "background-outstanding must be within 0..={MAX_QUEUE_DEPTH}, got {}",
                self.background_outstanding
            ));
        }
        if self.window == Some(0) {
            return Err("window must be at least 1".into());
        }
        if let Some(k) = self.merge_kib {
            if !(1..=MAX_MERGE_KIB).contains(&k) {
                return Err(format!(
                    "merge-kib must be within 1..={MAX_MERGE_KIB}, got {k}"
                ));
            }
        }
        Ok(())
    }

    /// The queue this table describes; errors name the key.
    pub fn queue_spec(&self) -> Result<QueueSpec, String> {
        self.check_ranges()?;
        // Only the scanning policies look at a window (HostQueue::with_window).
        if self.window.is_some() && !self.kind.scans() {
            return Err(format!(
                "window applies to greedy, smtf and the on-line SMTF schedulers, which scan \
                 the queue; the run's scheduler, {}, ignores it",
                self.kind.name()
            ));
        }
        let mimic_table = match &self.mimic_table {
            None => None,
            Some(_) if !matches!(self.kind, SchedulerKind::Smtf(_)) => {
                return Err(format!(
                    "mimic-table applies to the smtf schedulers, not {}",
                    self.kind.name()
                ))
            }
            Some(_) if self.mimic_interpolate => {
                return Err(format!("mimic-interpolate {INTERPOLATE_WITH_TABLE}"))
            }
            Some(p) => {
                let t = crate::mimic::table::MimicTable::load(p)
                    .map_err(|e| format!("mimic-table (--mimic-table): {e}"))?;
                // With nothing to predict from, SMTF would serve in arrival order while
                // its results said smtf.
                if t.entries.is_empty() {
                    return Err(format!(
                        "mimic-table (--mimic-table): {}: has no entries; SMTF needs probed distances to predict from",
                        p.display()
                    ));
                }
                Some(std::sync::Arc::new(t))
            }
        };
        Ok(QueueSpec {
            mimic_table,
            kind: self.kind,
            depth: self.queue_depth,
            max_wait_ms: self.max_wait_ms,
            hold_overlapping: self.hold_overlapping,
            mimic_samples: self.mimic_samples,
            mimic_interpolation: if self.mimic_interpolate {
                crate::mimic::TABLE_3_2.to_vec()
            } else {
                Vec::new()
            },
            mimic_seed: 0,
            background_outstanding: self.background_outstanding,
            window: self.window,
            merge_sectors: self.merge_kib.map(|k| k * 2),
            batch_submit: false,
        })
    }
}

fn default_background() -> u32 {
    1000
}

fn default_samples() -> u32 {
    10
}

fn default_kind() -> SchedulerKind {
    SchedulerKind::Fcfs
}

fn default_depth() -> u32 {
    1
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            kind: default_kind(),
            queue_depth: 1,
            max_wait_ms: None,
            hold_overlapping: false,
            mimic_samples: default_samples(),
            mimic_interpolate: false,
            background_outstanding: default_background(),
            window: None,
            merge_kib: None,
            mimic_table: None,
        }
    }
}

/// Request merging in a host queue: waiting requests of the same kind that follow the
/// one sent go below with it as one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MergeRule {
    /// Largest merged request, sectors.
    pub max_sectors: u32,
    /// Whether writes merge too (reads always do).
    pub writes: bool,
    /// Reads may span gaps of up to this many unwanted sectors rather than split.
    pub read_gap_sectors: u32,
}

impl MergeRule {
    /// Reads and writes merge when exactly adjacent, up to `max_sectors`.
    pub fn adjacent(max_sectors: u32) -> MergeRule {
        MergeRule {
            max_sectors,
            writes: true,
            read_gap_sectors: 0,
        }
    }
}

/// How to build a host queue.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSpec {
    pub kind: SchedulerKind,
    /// Requests kept outstanding at the device below.
    pub depth: u32,
    /// Aging bound (ms): a request waiting longer goes first, oldest first.
    pub max_wait_ms: Option<f64>,
    pub hold_overlapping: bool,
    /// SMTF: samples per distance the Disk Mimic probes off-line.
    pub mimic_samples: u32,
    /// SMTF: the allowable-error ladder to interpolate with (empty: probe every
    /// distance).
    pub mimic_interpolation: Vec<(u32, f64)>,
    /// SMTF: mixed into the seed of the off-line Mimic's draws (0: default seed).
    pub mimic_seed: u64,
    /// SMTF: a table loaded from a file, used instead of probing the drive.
    pub mimic_table: Option<std::sync::Arc<crate::mimic::table::MimicTable>>,
    /// Freeblock: background candidate reads kept outstanding.
    pub background_outstanding: u32,
    /// Greedy, SMTF and on-line SMTF choices look at only this many of the oldest
    /// waiting requests (`None`: all of them, the exact mode).
    pub window: Option<usize>,
    /// Merge adjacent waiting requests of the same kind behind the one sent, up to
    /// this many sectors (`None`: no merging).
    pub merge_sectors: Option<u32>,
    /// Hand the device every request sent at one instant before it starts on any
    /// ([`Device::enqueue`], then [`Device::start`] once that instant's arrivals are
    /// in): a drive's SPTF firmware then chooses among all of them, as when a host
    /// queues a whole batch at once. Off: each request is submitted, and may start,
    /// as it is sent.
    pub batch_submit: bool,
}

impl QueueSpec {
    /// `kind` with one request outstanding, no aging or holding, SMTF's defaults.
    pub fn new(kind: SchedulerKind) -> QueueSpec {
        QueueSpec {
            kind,
            depth: 1,
            max_wait_ms: None,
            hold_overlapping: false,
            mimic_samples: 10,
            mimic_interpolation: Vec::new(),
            mimic_seed: 0,
            mimic_table: None,
            background_outstanding: 0,
            window: None,
            merge_sectors: None,
            batch_submit: false,
        }
    }

    /// Whether the policy needs a single drive below it (a positioning oracle or a
    /// Disk Mimic probed on an identical drive).
    pub fn needs_drive(&self) -> bool {
        matches!(
            self.kind,
            SchedulerKind::Greedy
                | SchedulerKind::Smtf(_)
                | SchedulerKind::Freeblock
                | SchedulerKind::OnlineSet(_)
                | SchedulerKind::OnlinePriority(_)
        )
    }

    /// The queue over `child`. `index` numbers the queue among its kind in the stack
    /// and keeps the random draws of different queues apart.
    pub fn build(&self, child: Box<dyn Device>, index: usize) -> Result<QueueNode, String> {
        let drive = child.oracle();
        if self.needs_drive() && drive.is_none() {
            return Err(format!(
                "the {} scheduler needs a single drive below it (it asks the drive's model); put it on the members instead",
                self.kind.name()
            ));
        }
        let mut q = HostQueue::new(self.kind, self.max_wait_ms);
        if let Some(w) = self.window {
            q = q.with_window(w);
        }
        let probe = || -> Result<Box<Hdd>, String> {
            let p = drive.map(|h| h.params().clone()).ok_or("no drive")?;
            Hdd::new(p).map(Box::new).map_err(|e| e.to_string())
        };
        let i = index as u64;
        match self.kind {
            SchedulerKind::Freeblock => {
                // The freeblock scheduler consults an off-line Disk Mimic (mean) and
                // keeps the background job's candidates. The Mimic is timed with the
                // scrub's own request size: a model deployed with an application that
                // issues one size is probed at that size (thesis §2.3.3); smaller probes
                // would leave each predicted read short by the transfer they omit.
                let probe = probe()?;
                let cap = probe.capacity();
                let seed = 0xF8EE ^ i;
                let mut mimic = DiskMimic::offline(probe, self.mimic_samples, Metric::Mean, seed);
                mimic.probe_blocks = SCRUB_SECTORS;
                q = q.with_mimic(mimic).with_background(BackgroundPool::new(
                    self.background_outstanding as usize,
                    cap,
                    SCRUB_SECTORS,
                    seed,
                    (1 << 40) + (i << 32),
                ));
            }
            SchedulerKind::OnlineSet(_) | SchedulerKind::OnlinePriority(_) => {
                // On-line configuration: the Mimic learns from the workload's own
                // requests.
                q = q.with_mimic(DiskMimic::online(Metric::Mean, 0x5EED ^ i));
            }
            SchedulerKind::Smtf(metric) => {
                // Off-line configuration: the Mimic probes an identical drive of its
                // own and sees only request and completion times.
                let seed = 0x5EED ^ i ^ self.mimic_seed;
                let m = match &self.mimic_table {
                    Some(t) => DiskMimic::from_table(t, metric, seed),
                    None => {
                        let mut m = DiskMimic::offline(probe()?, self.mimic_samples, metric, seed);
                        if !self.mimic_interpolation.is_empty() {
                            m = m.with_interpolation(&self.mimic_interpolation);
                        }
                        m
                    }
                };
                q = q.with_mimic(m);
            }
            _ => {}
        }
        Ok(QueueNode {
            sched: q,
            child,
            depth: self.depth.max(1) as usize,
            hold_overlapping: self.hold_overlapping,
            window: self.window,
            merge: self.merge_sectors.map(MergeRule::adjacent),
            could_merge: self.merge_sectors.is_some(),
            merged: FxHashMap::default(),
            batch_submit: self.batch_submit,
            start_at: None,
            sent: crate::idmap::IdMap::default(),
            unfinished: OverlapIndex::default(),
            arrivals: 0,
            released: FxHashMap::default(),
            held: FxHashMap::default(),
            held_now: 0,
            foreground: 0,
            last_done: SimTime::ZERO,
            scratch: Vec::new(),
            stats: QueueStats::default(),
        })
    }
}

/// A request the queue accepted: waiting in the scheduler or at the device.
#[derive(Clone, Copy, Debug)]
struct Active {
    req: Request,
    /// When it was sent to the device.
    dispatch: Option<SimTime>,
    background: bool,
    /// When it was released from a hold, if it was held.
    released: Option<SimTime>,
}

#[derive(Clone, Copy, Debug, Default)]
struct QueueStats {
    reads: u64,
    writes: u64,
    held: u64,
    background: u64,
    merged: u64,
    max_waiting: usize,
}

pub struct QueueNode {
    sched: HostQueue,
    child: Box<dyn Device>,
    depth: usize,
    hold_overlapping: bool,
    window: Option<usize>,
    merge: Option<MergeRule>,
    /// A merge rule has been in effect at some point: the merged count is reported
    /// then, even when the rule in effect at the end is none (an array that stores
    /// bytes drops it for the reads of a write batch), and never for a queue that
    /// could not merge.
    could_merge: bool,
    /// Requests that went below merged behind another, by the one they went with.
    merged: FxHashMap<u64, Vec<Active>>,
    batch_submit: bool,
    /// With `batch_submit`: the instant of requests enqueued at the device that it has
    /// not been told to start on.
    start_at: Option<SimTime>,
    /// Requests sent to the device and not yet completed (at most about `depth`).
    sent: crate::idmap::IdMap<Active>,
    /// With `hold_overlapping`: the requests held, waiting in the scheduler or sent
    /// (riders too, until the request they went with completes), for the overlap test.
    unfinished: OverlapIndex,
    /// With `hold_overlapping`: the requests indexed so far (from above as they arrive,
    /// free background ones as they are sent), so the next one's place in arrival order.
    arrivals: u64,
    /// Released holds still waiting in the scheduler: when each was released.
    released: FxHashMap<u64, SimTime>,
    /// Requests held behind an overlapping earlier one, by the blocker's id, each with
    /// its place in arrival order.
    held: FxHashMap<u64, Vec<(u64, Request)>>,
    held_now: usize,
    /// Accepted requests from above not yet completed or held.
    foreground: usize,
    /// When the device last completed a request (what the host can observe of its
    /// service times).
    last_done: SimTime,
    scratch: Vec<Done>,
    stats: QueueStats,
}

impl QueueNode {
    pub fn kind(&self) -> SchedulerKind {
        self.sched.kind()
    }

    /// Requests it keeps outstanding at the device below.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The device below.
    pub fn device(&self) -> &dyn Device {
        self.child.as_ref()
    }

    /// Changes the merging rule from now on (an array that stores bytes merges reads
    /// through gaps for user reads, and not at all for the reads of a write batch).
    pub fn set_merge(&mut self, merge: Option<MergeRule>) {
        self.merge = merge;
        self.could_merge |= merge.is_some();
    }

    fn admit(&mut self, req: Request, now: SimTime, released: Option<SimTime>) {
        self.sched.push(req, now);
        self.foreground += 1;
        self.stats.max_waiting = self.stats.max_waiting.max(self.sched.len());
        if let Some(t) = released {
            self.released.insert(req.id, t);
        }
    }

    /// Sends waiting requests to the device while it has room.
    fn dispatch(&mut self, now: SimTime) {
        loop {
            let outstanding = self.child.outstanding();
            if outstanding >= self.depth {
                break;
            }
            let Some(w) = self.sched.pop_to(self.child.oracle(), now, outstanding > 0) else {
                break;
            };
            if w.background {
                // A free background request: it enters the system as it is sent.
                self.stats.background += 1;
                if self.hold_overlapping {
                    self.unfinished.insert(&w.req, self.arrivals);
                    self.arrivals += 1;
                }
            }
            let released = if self.released.is_empty() {
                None
            } else {
                self.released.remove(&w.req.id)
            };
            let mut below = w.req;
            if let (Some(rule), false) = (self.merge, w.background) {
                let mut riders = Vec::new();
                let max_end = below.lbn + u64::from(rule.max_sectors);
                let gap = if below.write {
                    0
                } else {
                    u64::from(rule.read_gap_sectors)
                };
                while below.blocks < rule.max_sectors && (rule.writes || !below.write) {
                    let end = below.lbn + u64::from(below.blocks.max(1));
                    let Some(r) = self.sched.take_adjacent(end, gap, below.write, max_end) else {
                        break;
                    };
                    below.blocks = (r.req.lbn + u64::from(r.req.blocks.max(1)) - below.lbn) as u32;
                    self.stats.merged += 1;
                    riders.push(Active {
                        req: r.req,
                        dispatch: Some(now),
                        background: false,
                        released: self.released.remove(&r.req.id),
                    });
                }
                if !riders.is_empty() {
                    self.merged.insert(w.req.id, riders);
                }
            }
            self.sent.insert(
                w.req.id,
                Active {
                    req: w.req,
                    dispatch: Some(now),
                    background: w.background,
                    released,
                },
            );
            if self.batch_submit {
                self.child.enqueue(now, below);
                self.start_at = Some(now);
            } else {
                self.child.submit(now, below);
            }
        }
    }

    /// Releases the requests held behind `ids` (just completed and out of the index),
    /// in arrival order. One that still overlaps a request that arrived before it and
    /// has not completed (perhaps released a moment ago) is held again, behind the
    /// latest such: held requests released together may not overtake each other.
    fn release(&mut self, now: SimTime, ids: impl IntoIterator<Item = u64>) {
        let mut freed: Vec<(u64, Request)> = ids
            .into_iter()
            .filter_map(|id| self.held.remove(&id))
            .flatten()
            .collect();
        freed.sort_unstable_by_key(|&(seq, _)| seq);
        for (seq, req) in freed {
            if let Some(b) = self.unfinished.latest_overlapping(&req, seq) {
                self.held.entry(b).or_default().push((seq, req));
                continue;
            }
            self.held_now -= 1;
            self.admit(req, now, Some(now));
            self.dispatch(now);
        }
    }
}

impl Device for QueueNode {
    fn capacity(&self) -> u64 {
        self.child.capacity()
    }

    fn outstanding(&self) -> usize {
        self.foreground + self.held_now
    }

    fn can_accept(&self) -> bool {
        true
    }

    fn submit(&mut self, now: SimTime, req: Request) {
        self.enqueue(now, req);
        self.dispatch(now);
    }

    /// Takes the request into the scheduler without sending anything below yet, so
    /// that every request handed over at this instant is there to choose among (and
    /// to merge with) when [`Device::start`] sends.
    fn enqueue(&mut self, now: SimTime, req: Request) {
        if req.write {
            self.stats.writes += 1;
        } else {
            self.stats.reads += 1;
        }
        if !self.hold_overlapping {
            self.admit(req, now, None);
            return;
        }
        // Every request indexed arrived before this one.
        let seq = self.arrivals;
        self.arrivals += 1;
        let blocker = self.unfinished.latest_overlapping(&req, seq);
        self.unfinished.insert(&req, seq);
        match blocker {
            Some(b) => {
                self.stats.held += 1;
                self.held_now += 1;
                self.held.entry(b).or_default().push((seq, req));
            }
            None => self.admit(req, now, None),
        }
    }

    fn start(&mut self, now: SimTime) {
        self.dispatch(now);
    }

    fn next_wake(&self) -> Option<SimTime> {
        let child = self.child.next_wake();
        match self.start_at {
            Some(t) => Some(child.map_or(t, |c| c.min(t))),
            None => child,
        }
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        if self.start_at.is_some_and(|t| t <= now) {
            // Everything sent at this instant is at the device: it may start.
            self.start_at = None;
            self.child.start(now);
            return;
        }
        let mut got = std::mem::take(&mut self.scratch);
        got.clear();
        self.child.wake(now, &mut got);
        for d in got.drain(..) {
            let id = d.req.id;
            let Some(a) = self.sent.remove(&id) else {
                // Not ours (a part below generated it): pass it on.
                out.push(d);
                continue;
            };
            // What the host can observe: from when the device could start on it (sent,
            // and the previous request done) to its completion.
            let began = a.dispatch.unwrap_or(now).max(self.last_done);
            self.sched.completed(id, now.0.saturating_sub(began.0));
            self.last_done = now;
            if !a.background {
                self.foreground -= 1;
            }
            out.push(Done {
                req: a.req,
                dispatch: d.dispatch.or(a.dispatch),
                background: a.background || d.background,
                released: a.released.or(d.released),
                ..d
            });
            // Requests merged behind it complete with it.
            let riders = if self.merged.is_empty() {
                Vec::new()
            } else {
                self.merged.remove(&id).unwrap_or_default()
            };
            for r in &riders {
                self.foreground -= 1;
                out.push(Done {
                    req: r.req,
                    dispatch: d.dispatch.or(r.dispatch),
                    background: false,
                    released: r.released,
                    rider: true,
                    ..d
                });
            }
            if !self.hold_overlapping {
                continue;
            }
            // Out of the index first, all that completed together, so that nothing
            // released is held again behind one of them.
            self.unfinished.remove(&a.req);
            for r in &riders {
                self.unfinished.remove(&r.req);
            }
            // Requests that waited on these may go now (as if issued now).
            if !self.held.is_empty() {
                self.release(now, riders.iter().map(|r| r.req.id).chain([id]));
            }
        }
        self.scratch = got;
        self.dispatch(now);
    }

    fn oracle(&self) -> Option<&Hdd> {
        None
    }

    fn drive(&self) -> Option<&Drive> {
        self.child.drive()
    }

    fn failure(&self) -> Option<String> {
        self.child.failure()
    }

    fn drive_mut(&mut self) -> Option<&mut Drive> {
        self.child.drive_mut()
    }

    fn describe(&self, depth: usize, out: &mut String) {
        let mut s = format!("queue {} (depth {}", self.sched.kind().name(), self.depth);
        if let Some(w) = self.sched.max_wait_ns() {
            s += &format!(", max wait {:.3} ms", w as f64 / 1e6);
        }
        if self.hold_overlapping {
            s += ", holds overlapping";
        }
        if let Some(w) = self.window {
            s += &format!(", window {w}");
        }
        if let Some(m) = self.merge {
            s += &format!(", merges up to {} KiB", m.max_sectors / 2);
            if !m.writes {
                s += " (reads only)";
            }
            if m.read_gap_sectors > 0 {
                s += &format!(", reads through gaps up to {} KiB", m.read_gap_sectors / 2);
            }
        }
        if self.batch_submit {
            s += ", batch submit";
        }
        s.push(')');
        tree_line(depth, out, &s);
        self.child.describe(depth + 1, out);
    }

    fn report_until(&self, path: &str, end: SimTime, out: &mut Vec<NodeReport>) {
        let mut extra = vec![(
            "max waiting".to_string(),
            self.stats.max_waiting.to_string(),
        )];
        if self.sched.kind().scans() {
            // A scanning policy's decision is linear in the candidates it compares: how
            // many it compared says what a long queue cost the run.
            let (all, most) = self.sched.compared();
            extra.push(("compared".into(), all.to_string()));
            extra.push(("most compared".into(), most.to_string()));
        }
        if self.hold_overlapping {
            extra.push(("held".into(), self.stats.held.to_string()));
        }
        if self.sched.kind() == SchedulerKind::Freeblock {
            extra.push(("background".into(), self.stats.background.to_string()));
        }
        if self.could_merge {
            extra.push(("merged".into(), self.stats.merged.to_string()));
        }
        out.push(NodeReport {
            path: path.to_string(),
            kind: format!("queue {}", self.sched.kind().name()),
            reads: self.stats.reads,
            writes: self.stats.writes,
            busy_ns: 0,
            extra,
            is_drive: false,
        });
        self.child
            .report_until(&format!("{path}/{}", "device"), end, out);
    }

    fn predictions(&self, out: &mut Vec<(u32, u64)>) {
        out.extend_from_slice(self.sched.predictions());
        self.child.predictions(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::presets::preset;
    use crate::engine::{self, RunOptions, Source};
    use crate::trace::IoRecord;

    /// While the drive serves a far request, four contiguous reads and a write queue
    /// up: the reads go below as one request (up to the limit), the write alone.
    #[test]
    fn adjacent_requests_of_one_kind_merge_up_to_the_limit() {
        let rec = |lbn: u64, write: bool| {
            eight_sectors(lbn, if lbn == 9_000_000 { 0 } else { 1_000 }, write)
        };
        let recs = vec![
            rec(9_000_000, false),
            rec(100, false),
            rec(108, false),
            rec(116, true),
            rec(124, false),
            rec(116, false),
        ];
        let run = |merge: Option<u32>| {
            let (logs, nodes) = replay(fcfs_over_one_drive(merge), &recs);
            let drive_ios: u64 = nodes
                .iter()
                .filter(|n| n.is_drive)
                .map(|n| n.reads + n.writes)
                .sum();
            (logs, drive_ios)
        };
        let (plain, ios) = run(None);
        assert_eq!(ios, 6);
        assert_eq!(plain.len(), 6);
        // 100 and 108 go as one (16 sectors, the limit); the write at 116 is of the
        // other kind; FCFS then sends 124, and the read of 116 lies before it (only
        // requests that continue the one sent ride along).
        let (merged, ios) = run(Some(16));
        assert_eq!(merged.len(), 6);
        assert_eq!(ios, 5, "{merged:?}");
        // Riders complete with the request they went with.
        assert_eq!(merged[1].done, merged[2].done);
        assert_eq!(merged[1].start, merged[2].start);
        // A limit of 8 sectors merges nothing.
        assert_eq!(run(Some(8)).1, 6);
    }

    /// The merged count is reported whenever a rule has been in effect, though the
    /// rule at the end is none (an array that stores bytes drops it for the reads of a
    /// write batch), and never by a queue that had no rule.
    #[test]
    fn merges_are_reported_once_a_rule_was_in_effect() {
        let recs: Vec<IoRecord> = [(9_000_000, 0), (100, 1_000), (108, 1_000)]
            .map(|(lbn, at)| eight_sectors(lbn, at, false))
            .to_vec();
        let merged = |merge: Option<u32>| {
            let mut root = fcfs_over_one_drive(merge);
            let units = Units::single(root.capacity());
            let source = Source::records(&recs);
            engine::run(
                &mut root,
                &units,
                source,
                RunOptions::default(),
                &mut |_| {},
            )
            .unwrap();
            root.set_merge(None);
            let mut nodes = Vec::new();
            root.report("s", &mut nodes);
            let extra = std::mem::take(&mut nodes[0].extra);
            extra
                .into_iter()
                .find(|(k, _)| k == "merged")
                .map(|(_, v)| v)
        };
        // 108 rode below behind 100.
        assert_eq!(merged(Some(16)).as_deref(), Some("1"));
        assert_eq!(merged(None), None);
    }

    /// SSTF coming down from a far request would serve a write at 104 before the read
    /// at 100 it overlaps, which arrived first; holding overlapping requests keeps the
    /// write back until the read completes, and holds nothing else (nor anything once
    /// the read is done).
    #[test]
    fn a_request_overlapping_an_earlier_one_waits_for_it() {
        let rec = eight_sectors;
        let recs = vec![
            rec(9_000_000, 0, false),
            rec(100, 1_000, false),
            rec(104, 2_000, true),
            rec(5_000, 3_000, false),
            // Long after the others completed: nothing holds it.
            rec(100, 100_000_000, false),
        ];
        let run = |hold: bool| {
            let q = QueueSpec {
                hold_overlapping: hold,
                ..QueueSpec::new(SchedulerKind::Sstf)
            };
            let (logs, nodes) = replay(over_mimic_base(q, None), &recs);
            let held = nodes[0]
                .extra
                .iter()
                .find(|(k, _)| k == "held")
                .map(|(_, v)| v.clone());
            (logs, held)
        };
        let (free, held) = run(false);
        assert_eq!(held, None);
        assert!(free[2].done <= free[1].start, "{free:?}");
        let (kept, held) = run(true);
        assert_eq!(held.as_deref(), Some("1"));
        assert!(kept[2].start >= kept[1].done, "{kept:?}");
        // The read at 5,000 overlaps nothing and goes first, as without holding.
        assert!(kept[3].done <= kept[1].start, "{kept:?}");
        assert_eq!(kept.len(), 5);
        assert_eq!(kept[4].dispatch, kept[4].arrival);
    }

    /// Four requests at once to an FCFS queue one deep. 20–34 goes after 38; 30–33
    /// waits for 20–34; 23–38 overlaps all three and waits for each, including 30–33,
    /// which was held when it arrived: it must not overtake that one when 20–34 ends.
    #[test]
    fn a_request_waits_for_an_earlier_one_that_was_held() {
        let recs: Vec<IoRecord> = [(38, 1), (20, 15), (30, 4), (23, 16)]
            .map(|(lbn, blocks)| IoRecord {
                blocks,
                ..eight_sectors(2_000_000 + lbn, 0, false)
            })
            .to_vec();
        let q = QueueSpec {
            hold_overlapping: true,
            ..QueueSpec::new(SchedulerKind::Fcfs)
        };
        let (logs, _) = replay(over_mimic_base(q, None), &recs);
        let mut order: Vec<u64> = (0..4).collect();
        order.sort_by_key(|&i| logs[i as usize].done);
        assert_eq!(order, [0, 1, 2, 3], "{logs:?}");
        assert!(logs[3].dispatch >= logs[2].done, "{logs:?}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// With holding, a request that shares a sector with an earlier one goes to the
        /// drive only after that one completed, whatever the scheduler, depth, merging
        /// and drive firmware, and though the earlier one was itself held or rode below
        /// behind another.
        #[test]
        fn overlapping_requests_are_served_in_arrival_order(
            reqs in proptest::collection::vec(
                // Lengths and offsets in fours, so that requests often adjoin and merge.
                (0usize..3, 0u64..40, 1u32..5, proptest::prelude::any::<bool>(), 0u64..400_000),
                2..60,
            ),
            kind in 0usize..4,
            depth in 1u32..4,
            merge in proptest::prelude::any::<bool>(),
            sptf in proptest::prelude::any::<bool>(),
        ) {
            let regions = [0u64, 600_000, 2_000_000];
            let mut at = 0;
            let recs: Vec<IoRecord> = reqs
                .iter()
                .map(|&(region, off, blocks, write, gap)| {
                    at += gap;
                    IoRecord {
                        arrival: SimTime(at),
                        device: 0,
                        lbn: regions[region] + 4 * off,
                        blocks: 4 * blocks,
                        write,
                        content: Vec::new(),
                    }
                })
                .collect();
            let kinds = [
                SchedulerKind::Fcfs,
                SchedulerKind::Sstf,
                SchedulerKind::CLook,
                SchedulerKind::Greedy,
            ];
            let q = QueueSpec {
                hold_overlapping: true,
                depth,
                merge_sectors: merge.then_some(32),
                ..QueueSpec::new(kinds[kind])
            };
            // SPTF: a drive that reorders what it is sent.
            let root = over_mimic_base(q, sptf.then_some(FirmwarePolicy::Sptf));
            let (logs, _) = replay(root, &recs);
            proptest::prop_assert_eq!(logs.len(), recs.len());
            let end = |l: &engine::RequestLog| l.lbn + u64::from(l.blocks.max(1));
            for (i, a) in logs.iter().enumerate() {
                for b in &logs[i + 1..] {
                    if a.lbn < end(b) && b.lbn < end(a) {
                        proptest::prop_assert!(
                            b.dispatch >= a.done,
                            "{b:?} was sent before {a:?}, which arrived first, completed"
                        );
                    }
                }
            }
        }
    }

    /// A request that rode below behind another holds back a later one that overlaps
    /// it alone, until the two complete. The drive (FCFS firmware) serves the read at
    /// 9,000,000, then the one at 4,000,000, while 100 and 108 go below as one; the write
    /// at 112 arrives after they went and overlaps only 108.
    #[test]
    fn a_rider_holds_back_what_overlaps_it() {
        let recs = vec![
            eight_sectors(9_000_000, 0, false),
            eight_sectors(4_000_000, 1_000, false),
            eight_sectors(100, 2_000, false),
            eight_sectors(108, 3_000, false),
            IoRecord {
                blocks: 4,
                ..eight_sectors(112, 15_000_000, true)
            },
        ];
        let q = QueueSpec {
            hold_overlapping: true,
            depth: 2,
            merge_sectors: Some(16),
            ..QueueSpec::new(SchedulerKind::Fcfs)
        };
        let (logs, nodes) = replay(over_mimic_base(q, None), &recs);
        let extra = |key: &str| {
            let kv = nodes[0].extra.iter().find(|(k, _)| k == key);
            kv.map(|(_, v)| v.clone())
        };
        assert_eq!(extra("merged").as_deref(), Some("1"));
        let (rider, write) = (&logs[3], &logs[4]);
        assert_eq!(rider.dispatch, logs[2].dispatch, "108 rode behind 100");
        assert!(rider.dispatch.0 < 15_000_000 && rider.done.0 > 15_000_000);
        assert_eq!(extra("held").as_deref(), Some("1"));
        assert!(write.dispatch >= rider.done, "{logs:?}");
    }

    /// A request of 8 sectors at `lbn`, arriving `at` ns, of device 0.
    fn eight_sectors(lbn: u64, at: u64, write: bool) -> IoRecord {
        IoRecord {
            arrival: SimTime(at),
            device: 0,
            lbn,
            blocks: 8,
            write,
            content: Vec::new(),
        }
    }

    /// `recs` through `root`: each request's log, in id order, and the nodes' reports.
    fn replay(
        mut root: QueueNode,
        recs: &[IoRecord],
    ) -> (Vec<engine::RequestLog>, Vec<NodeReport>) {
        let units = Units::single(root.capacity());
        let mut logs = Vec::new();
        engine::run(
            &mut root,
            &units,
            Source::records(recs),
            RunOptions::default(),
            &mut |l| logs.push(*l),
        )
        .unwrap();
        let mut nodes = Vec::new();
        root.report("s", &mut nodes);
        logs.sort_by_key(|l| l.id);
        (logs, nodes)
    }

    /// An FCFS host queue merging up to `merge` sectors over one mimic-base drive.
    fn fcfs_over_one_drive(merge: Option<u32>) -> QueueNode {
        let q = QueueSpec {
            merge_sectors: merge,
            ..QueueSpec::new(SchedulerKind::Fcfs)
        };
        over_mimic_base(q, None)
    }

    /// `q` over one mimic-base drive (with firmware `policy`, if given), built as a
    /// stack builds a drive leaf: its firmware holds what the host sends.
    fn over_mimic_base(q: QueueSpec, policy: Option<FirmwarePolicy>) -> QueueNode {
        let mut p = preset("mimic-base").unwrap();
        p.firmware.queue_depth = p.firmware.queue_depth.max(q.depth);
        if let Some(policy) = policy {
            p.firmware.policy = policy;
        }
        let drive = Drive::new(p).unwrap();
        q.build(Box::new(DriveNode::new(drive, "d")), 0).unwrap()
    }

    use crate::disk::drive::Drive;
    use crate::disk::params::FirmwarePolicy;
    use crate::engine::Units;
    use crate::parts::drive_node::DriveNode;

    fn sptf_drive() -> Drive {
        let mut p = preset("cheetah15k5").unwrap();
        p.firmware.policy = FirmwarePolicy::Sptf;
        p.firmware.queue_depth = 4;
        Drive::new(p).unwrap()
    }

    const LBNS: [u64; 6] = [280_000_000, 41_000, 1_000, 60_000, 20_000, 77_000];

    /// Completion order (issue indices) of `LBNS`, all issued at 1 ms to an FCFS
    /// queue four deep over an SPTF drive.
    fn served(batch_submit: bool) -> Vec<u64> {
        let spec = QueueSpec {
            depth: 4,
            batch_submit,
            ..QueueSpec::new(SchedulerKind::Fcfs)
        };
        let mut q = spec
            .build(Box::new(DriveNode::new(sptf_drive(), "d")), 0)
            .unwrap();
        let recs: Vec<IoRecord> = LBNS
            .iter()
            .map(|&lbn| eight_sectors(lbn, 1_000_000, false))
            .collect();
        let units = Units::single(q.capacity());
        let mut order = Vec::new();
        engine::run(
            &mut q,
            &units,
            Source::records(&recs),
            RunOptions::default(),
            &mut |l| order.push(l.id),
        )
        .unwrap();
        order
    }

    #[test]
    fn batch_submit_lets_the_firmware_choose_among_the_whole_batch() {
        // The drive stepped by hand: the first four enter together, then service
        // starts; the rest enter as slots free.
        let mut d = sptf_drive();
        let t = SimTime(1_000_000);
        let mut pending = LBNS.iter().enumerate().map(|(i, &lbn)| Request {
            id: i as u64,
            lbn,
            blocks: 8,
            write: false,
        });
        for r in pending.by_ref().take(4) {
            d.enqueue(t, r);
        }
        d.kick(t);
        let mut direct = Vec::new();
        while let Some(at) = d.next_completion() {
            direct.push(d.complete().unwrap().completion.id);
            if let Some(r) = pending.next() {
                d.submit(at, r);
            }
        }
        assert_eq!(served(true), direct);
        assert_ne!(direct[0], 0, "SPTF serves a near request first");
        // Submitted one at a time, the first request (far from the head) starts before
        // the others arrive.
        let one_by_one = served(false);
        assert_eq!(one_by_one[0], 0);
        assert_ne!(one_by_one, direct);
    }
}

#[cfg(test)]
mod freeblock_tests {
    use super::*;
    use crate::disk::drive::Drive;
    use crate::disk::presets::preset;
    use crate::parts::drive_node::DriveNode;

    /// The freeblock queue's Disk Mimic is timed with the scrub's request size: with
    /// smaller probes each prediction omits part of a scrub read's transfer.
    #[test]
    fn freeblock_mimic_probes_at_the_scrub_size() {
        let drive = Drive::new(preset("mimic-base").unwrap()).unwrap();
        let q = QueueSpec {
            background_outstanding: 4,
            ..QueueSpec::new(SchedulerKind::Freeblock)
        }
        .build(Box::new(DriveNode::new(drive, "disk")), 0)
        .unwrap();
        let m = q.sched.mimic().expect("freeblock has a Mimic");
        assert_eq!(m.probe_blocks, SCRUB_SECTORS);
    }
}
