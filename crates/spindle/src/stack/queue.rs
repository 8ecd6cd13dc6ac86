//! A host queue: a scheduler in front of one device. It keeps up to `depth` requests
//! outstanding at the device and, whenever there is room, lets the scheduler pick the
//! next. Optionally it holds a request that touches blocks of an earlier one still
//! queued or in service until that one completes (the thesis's rule for compressed
//! traces, §3.5).

use crate::disk::hdd::{Hdd, Request};
use crate::mimic::{DiskMimic, Metric};
use crate::node::{tree_line, Device, Done, NodeReport};
use crate::sched::{BackgroundPool, HostQueue, SchedulerKind};
use crate::time::SimTime;
use rustc_hash::FxHashMap;

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
    /// Freeblock: background candidate reads kept outstanding.
    pub background_outstanding: u32,
    /// Greedy, SMTF, on-line and freeblock choices look at only this many of the
    /// oldest waiting requests (`None`: all of them, the exact mode).
    pub window: Option<usize>,
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
            background_outstanding: 0,
            window: None,
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
                // keeps the background job's candidates.
                let probe = probe()?;
                let cap = probe.capacity();
                let seed = 0xF8EE ^ i;
                q = q
                    .with_mimic(DiskMimic::offline(
                        probe,
                        self.mimic_samples,
                        Metric::Mean,
                        seed,
                    ))
                    .with_background(BackgroundPool::new(
                        self.background_outstanding as usize,
                        cap,
                        8,
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
                let mut m = DiskMimic::offline(probe()?, self.mimic_samples, metric, seed);
                if !self.mimic_interpolation.is_empty() {
                    m = m.with_interpolation(&self.mimic_interpolation);
                }
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
            active: FxHashMap::default(),
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
    max_waiting: usize,
}

pub struct QueueNode {
    sched: HostQueue,
    child: Box<dyn Device>,
    depth: usize,
    hold_overlapping: bool,
    window: Option<usize>,
    active: FxHashMap<u64, Active>,
    /// Requests held behind an overlapping earlier one, by the blocker's id.
    held: FxHashMap<u64, Vec<Request>>,
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

    fn admit(&mut self, req: Request, now: SimTime, released: Option<SimTime>) {
        self.sched.push(req, now);
        self.foreground += 1;
        self.stats.max_waiting = self.stats.max_waiting.max(self.sched.len());
        self.active.insert(
            req.id,
            Active {
                req,
                dispatch: None,
                background: false,
                released,
            },
        );
    }

    /// Sends waiting requests to the device while it has room.
    fn dispatch(&mut self, now: SimTime) {
        while self.child.outstanding() < self.depth {
            let Some(w) = self.sched.pop(self.child.oracle(), now) else {
                break;
            };
            if w.background {
                // A free background request: it enters the system as it is sent.
                self.stats.background += 1;
                self.active.insert(
                    w.req.id,
                    Active {
                        req: w.req,
                        dispatch: None,
                        background: true,
                        released: None,
                    },
                );
            }
            if let Some(a) = self.active.get_mut(&w.req.id) {
                a.dispatch = Some(now);
            }
            self.child.submit(now, w.req);
        }
    }

    /// The earliest accepted request overlapping `req`'s sectors, if any.
    fn blocker(&self, req: &Request) -> Option<u64> {
        let end = req.lbn + u64::from(req.blocks.max(1));
        self.active
            .iter()
            .filter(|(_, a)| a.req.lbn < end && req.lbn < a.req.lbn + u64::from(a.req.blocks))
            .map(|(id, _)| *id)
            .min()
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
        if req.write {
            self.stats.writes += 1;
        } else {
            self.stats.reads += 1;
        }
        match self.hold_overlapping.then(|| self.blocker(&req)).flatten() {
            Some(b) => {
                self.stats.held += 1;
                self.held_now += 1;
                self.held.entry(b).or_default().push(req);
            }
            None => self.admit(req, now, None),
        }
        self.dispatch(now);
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.child.next_wake()
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        let mut got = std::mem::take(&mut self.scratch);
        got.clear();
        self.child.wake(now, &mut got);
        for d in got.drain(..) {
            let id = d.req.id;
            let Some(a) = self.active.remove(&id) else {
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
            // Requests that waited on this one may go now (as if issued now).
            if let Some(list) = self.held.remove(&id) {
                for r in list {
                    self.held_now -= 1;
                    self.admit(r, now, Some(now));
                    self.dispatch(now);
                }
            }
        }
        self.scratch = got;
        self.dispatch(now);
    }

    fn oracle(&self) -> Option<&Hdd> {
        None
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
        s.push(')');
        tree_line(depth, out, &s);
        self.child.describe(depth + 1, out);
    }

    fn report(&self, path: &str, out: &mut Vec<NodeReport>) {
        let mut extra = vec![(
            "max waiting".to_string(),
            self.stats.max_waiting.to_string(),
        )];
        if self.hold_overlapping {
            extra.push(("held".into(), self.stats.held.to_string()));
        }
        if self.sched.kind() == SchedulerKind::Freeblock {
            extra.push(("background".into(), self.stats.background.to_string()));
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
        self.child.report(&format!("{path}/{}", "device"), out);
    }

    fn predictions(&self, out: &mut Vec<(u32, u64)>) {
        out.extend_from_slice(self.sched.predictions());
        self.child.predictions(out);
    }
}
