//! Host-side I/O schedulers: which waiting request to send to the drive next.
//!
//! All schedulers see the same queue of waiting requests and, when the drive has room,
//! pick one. FCFS, SSTF (shortest LBN distance from the last request sent), LOOK and
//! C-LOOK (elevators on LBN) know nothing about the disk; greedy-optimal asks the
//! simulated drive for the exact positioning time of every candidate (an oracle, as in
//! the thesis's MIMIC-F3.2). Optional aging serves any request that has waited longer
//! than a bound first, oldest first.

use crate::disk::hdd::Request;
use crate::mimic::smtf::{self, LastRequest};
use crate::mimic::{DiskMimic, Metric};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum SchedulerKind {
    Fcfs,
    Sstf,
    Look,
    CLook,
    /// Shortest positioning time first, from the simulator's exact prediction.
    Greedy,
    /// Shortest mimicked time first: the Disk Mimic's prediction under a summary metric.
    Smtf(Metric),
    /// On-line SMTF: take the base scheduler's pick; if the Mimic has seen its distance,
    /// take the fastest request among those with known distances instead.
    OnlineSet(Base),
    /// On-line SMTF: strict priority to requests with known distances (fastest first);
    /// the base scheduler only when none is known.
    OnlinePriority(Base),
    /// C-LOOK for the foreground, plus free background requests (thesis ch. 4): a
    /// background request goes before C-LOOK's next pick only if the Disk Mimic says
    /// it costs nothing: D(last→BR) + D(BR→next) ≤ D(last→next).
    Freeblock,
}

/// The base scheduler of the on-line SMTF variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    Sstf,
    CLook,
}

impl Base {
    fn kind(self) -> SchedulerKind {
        match self {
            Base::Sstf => SchedulerKind::Sstf,
            Base::CLook => SchedulerKind::CLook,
        }
    }
}

impl SchedulerKind {
    pub const ALL: [SchedulerKind; 5] = [
        SchedulerKind::Fcfs,
        SchedulerKind::Sstf,
        SchedulerKind::Look,
        SchedulerKind::CLook,
        SchedulerKind::Greedy,
    ];

    pub fn name(self) -> String {
        match self {
            SchedulerKind::Fcfs => "fcfs".into(),
            SchedulerKind::Sstf => "sstf".into(),
            SchedulerKind::Look => "look".into(),
            SchedulerKind::CLook => "clook".into(),
            SchedulerKind::Greedy => "greedy".into(),
            SchedulerKind::Smtf(Metric::Mean) => "smtf".into(),
            SchedulerKind::Smtf(m) => format!("smtf-{}", m.name()),
            SchedulerKind::OnlineSet(b) => format!("online-set:{}", b.kind().name()),
            SchedulerKind::OnlinePriority(b) => format!("online-priority:{}", b.kind().name()),
            SchedulerKind::Freeblock => "freeblock".into(),
        }
    }
}

impl From<SchedulerKind> for String {
    fn from(k: SchedulerKind) -> String {
        k.name()
    }
}

impl TryFrom<String> for SchedulerKind {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl std::fmt::Display for SchedulerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for SchedulerKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.to_ascii_lowercase();
        if let Some(m) = s.strip_prefix("smtf-") {
            return Ok(SchedulerKind::Smtf(m.parse()?));
        }
        for (prefix, set) in [("online-set", true), ("online-priority", false)] {
            if let Some(rest) = s.strip_prefix(prefix) {
                let base = match rest.trim_start_matches(':') {
                    "" | "sstf" => Base::Sstf,
                    "clook" | "c-look" => Base::CLook,
                    other => {
                        return Err(format!(
                            "on-line SMTF's base must be sstf or clook, got `{other}`"
                        ))
                    }
                };
                return Ok(if set {
                    SchedulerKind::OnlineSet(base)
                } else {
                    SchedulerKind::OnlinePriority(base)
                });
            }
        }
        match s.as_str() {
            "fcfs" | "fifo" => Ok(SchedulerKind::Fcfs),
            "sstf" => Ok(SchedulerKind::Sstf),
            "look" | "elevator" => Ok(SchedulerKind::Look),
            "clook" | "c-look" => Ok(SchedulerKind::CLook),
            "greedy" | "sptf" | "greedy-optimal" => Ok(SchedulerKind::Greedy),
            "smtf" => Ok(SchedulerKind::Smtf(Metric::Mean)),
            "freeblock" => Ok(SchedulerKind::Freeblock),
            other => Err(format!(
                "unknown scheduler `{other}` (expected fcfs, sstf, look, clook, greedy, smtf, smtf-<mean|median|max|min|prob>, online-set:<sstf|clook>, online-priority:<sstf|clook> or freeblock)"
            )),
        }
    }
}

/// A request waiting at the host.
#[derive(Clone, Copy, Debug)]
pub struct Waiting {
    pub req: Request,
    /// When it joined the host queue.
    pub since: SimTime,
    /// A free background request the scheduler itself generated (freeblock).
    pub background: bool,
}

/// The background job of freeblock scheduling: a scrub with many candidate reads of
/// random blocks outstanding at the application, replaced as they are served.
#[derive(Clone, Debug)]
pub struct BackgroundPool {
    candidates: Vec<Request>,
    rng: rand_chacha::ChaCha8Rng,
    capacity: u64,
    blocks: u32,
    next_id: u64,
}

impl BackgroundPool {
    /// `outstanding` random reads of `blocks` sectors over a `capacity`-sector disk; ids
    /// start at `first_id` (kept apart from the workload's).
    pub fn new(
        outstanding: usize,
        capacity: u64,
        blocks: u32,
        seed: u64,
        first_id: u64,
    ) -> BackgroundPool {
        use rand::SeedableRng;
        let mut p = BackgroundPool {
            candidates: Vec::with_capacity(outstanding),
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
            capacity,
            blocks: blocks.max(1),
            next_id: first_id,
        };
        for _ in 0..outstanding {
            let r = p.fresh();
            p.candidates.push(r);
        }
        p
    }

    fn fresh(&mut self) -> Request {
        use rand::Rng;
        let b = self.blocks as u64;
        let lbn = self.rng.gen_range(0..(self.capacity / b).max(1)) * b;
        self.next_id += 1;
        Request {
            id: self.next_id,
            lbn,
            blocks: self.blocks,
            write: false,
        }
    }

    /// Takes candidate `i` and replaces it with a new one.
    fn take(&mut self, i: usize) -> Request {
        let fresh = self.fresh();
        std::mem::replace(&mut self.candidates[i], fresh)
    }
}

/// One drive's host queue and its scheduling state.
pub struct HostQueue {
    kind: SchedulerKind,
    /// Requests waiting longer than this are served first (oldest first).
    max_wait_ns: Option<u64>,
    waiting: Vec<Waiting>,
    /// End LBN of the last request sent to the drive.
    last_lbn: u64,
    /// LOOK's sweep direction.
    ascending: bool,
    /// SMTF's model of the drive and what it last sent.
    mimic: Option<DiskMimic>,
    last: LastRequest,
    /// Requests sent to the drive and the request before each (for on-line learning).
    sent: std::collections::VecDeque<(Request, LastRequest)>,
    /// SMTF: (predicted, observed) service time of each completed request, ns.
    predictions: Vec<(u32, u64)>,
    /// Freeblock: the background job's candidates.
    pool: Option<BackgroundPool>,
}

impl HostQueue {
    pub fn new(kind: SchedulerKind, max_wait_ms: Option<f64>) -> HostQueue {
        HostQueue {
            kind,
            max_wait_ns: max_wait_ms.map(crate::time::ms_to_ns),
            waiting: Vec::new(),
            last_lbn: 0,
            ascending: true,
            mimic: None,
            last: LastRequest::default(),
            sent: std::collections::VecDeque::new(),
            predictions: Vec::new(),
            pool: None,
        }
    }

    /// Gives an SMTF queue its Disk Mimic.
    pub fn with_mimic(mut self, mimic: DiskMimic) -> HostQueue {
        self.mimic = Some(mimic);
        self
    }

    /// Gives a freeblock queue its background job.
    pub fn with_background(mut self, pool: BackgroundPool) -> HostQueue {
        self.pool = Some(pool);
        self
    }

    /// SMTF's (predicted, observed) service times so far, ns.
    pub fn predictions(&self) -> &[(u32, u64)] {
        &self.predictions
    }

    pub fn mimic(&self) -> Option<&DiskMimic> {
        self.mimic.as_ref()
    }

    pub fn kind(&self) -> SchedulerKind {
        self.kind
    }

    /// The aging bound, ns.
    pub fn max_wait_ns(&self) -> Option<u64> {
        self.max_wait_ns
    }

    /// TEMPORARY until the indexed queue lands.
    pub fn with_window(self, _n: usize) -> HostQueue {
        self
    }

    pub fn push(&mut self, req: Request, now: SimTime) {
        self.waiting.push(Waiting {
            req,
            since: now,
            background: false,
        });
    }

    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Removes and returns the request to send to `drive` at `now`.
    pub fn pop(&mut self, drive: Option<&crate::disk::hdd::Hdd>, now: SimTime) -> Option<Waiting> {
        if self.waiting.is_empty() {
            return None;
        }
        if self.kind == SchedulerKind::Freeblock {
            if let Some(w) = self.free_background(now) {
                self.last_lbn = w.req.lbn + w.req.blocks as u64;
                self.last = LastRequest::of(&w.req);
                return Some(w);
            }
        }
        let i = self
            .aged(now)
            .unwrap_or_else(|| self.choose(self.kind, drive, now));
        let w = self.waiting.remove(i);
        self.last_lbn = w.req.lbn + w.req.blocks as u64;
        self.sent.push_back((w.req, self.last));
        if self.sent.len() > 4096 {
            self.sent.pop_front();
        }
        self.last = LastRequest::of(&w.req);
        Some(w)
    }

    /// The drive finished request `id`, which took `service_ns` as the host saw it:
    /// on-line Mimics learn from it.
    pub fn completed(&mut self, id: u64, service_ns: u64) {
        let Some(pos) = self.sent.iter().position(|(r, _)| r.id == id) else {
            return;
        };
        let Some((req, prev)) = self.sent.remove(pos) else {
            return;
        };
        if matches!(
            self.kind,
            SchedulerKind::OnlineSet(_) | SchedulerKind::OnlinePriority(_)
        ) {
            if let Some(m) = self.mimic.as_mut() {
                m.observe(prev.write, req.write, prev.distance_to(&req), service_ns);
            }
        }
        if let (SchedulerKind::Smtf(_), Some(m)) = (self.kind, self.mimic.as_mut()) {
            // What the model said against what happened (MIMIC-F3.3's demerit).
            let predicted = m.predict(prev.write, req.write, prev.distance_to(&req));
            self.predictions.push((predicted, service_ns));
        }
    }

    /// Freeblock: the background candidate that fits for free before C-LOOK's next
    /// foreground pick (least added time), if any. Only while foreground requests wait:
    /// the experiment's foreground never idles, and an endless scrub must not keep a
    /// finished run alive.
    fn free_background(&mut self, now: SimTime) -> Option<Waiting> {
        if self.waiting.is_empty() {
            return None;
        }
        let next = {
            let last = self.last_lbn;
            let ahead = self
                .waiting
                .iter()
                .enumerate()
                .filter(|(_, w)| w.req.lbn >= last)
                .min_by_key(|(_, w)| w.req.lbn);
            match ahead {
                Some((i, _)) => i,
                None => self
                    .waiting
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, w)| w.req.lbn)
                    .map(|(i, _)| i)?,
            }
        };
        let fr_j = self.waiting[next].req;
        let last = self.last;
        let (m, pool) = (self.mimic.as_mut()?, self.pool.as_mut()?);
        let direct = m.predict(last.write, fr_j.write, last.distance_to(&fr_j)) as u64;
        // C-LOOK would serve a candidate before FR_j if it lies on the sweep between.
        let (lo, hi) = (self.last_lbn, fr_j.lbn);
        let between = |lbn: u64| {
            if lo <= hi {
                lbn >= lo && lbn < hi
            } else {
                lbn >= lo || lbn < hi
            }
        };
        let mut best: Option<(u64, usize)> = None;
        for (i, br) in pool.candidates.iter().enumerate() {
            if !between(br.lbn) {
                continue;
            }
            let via = m.predict(last.write, br.write, last.distance_to(br)) as u64
                + m.predict(br.write, fr_j.write, LastRequest::of(br).distance_to(&fr_j)) as u64;
            if via <= direct && best.is_none_or(|(b, _)| via < b) {
                best = Some((via, i));
            }
        }
        let (_, i) = best?;
        let req = pool.take(i);
        Some(Waiting {
            req,
            since: now,
            background: true,
        })
    }

    /// The waiting request with the fastest mimicked time among those whose distance
    /// the Mimic has seen; `default` when none has been seen.
    fn fastest_known(&mut self, default: usize) -> usize {
        let last = self.last;
        let Some(m) = self.mimic.as_mut() else {
            return default;
        };
        let mut best = (u32::MAX, default);
        for (i, w) in self.waiting.iter().enumerate() {
            if let Some(t) = m.lookup(last.write, w.req.write, last.distance_to(&w.req)) {
                if t < best.0 {
                    best = (t, i);
                }
            }
        }
        best.1
    }

    /// The oldest request past the aging bound, if any.
    fn aged(&self, now: SimTime) -> Option<usize> {
        let bound = self.max_wait_ns?;
        let (i, w) = self
            .waiting
            .iter()
            .enumerate()
            .min_by_key(|(i, w)| (w.since, *i))?;
        (now.0.saturating_sub(w.since.0) > bound).then_some(i)
    }

    fn choose(
        &mut self,
        kind: SchedulerKind,
        drive: Option<&crate::disk::hdd::Hdd>,
        now: SimTime,
    ) -> usize {
        let w = &self.waiting;
        let last = self.last_lbn;
        // Ties go to the earliest arrival: `min_by_key` keeps the first minimum.
        let argmin = |key: &dyn Fn(&Waiting) -> u64| -> usize {
            w.iter()
                .enumerate()
                .min_by_key(|(_, x)| key(x))
                .map(|(i, _)| i)
                .unwrap_or(0)
        };
        match kind {
            SchedulerKind::Fcfs => 0,
            SchedulerKind::Sstf => argmin(&|x| x.req.lbn.abs_diff(last)),
            SchedulerKind::CLook => {
                // Next at or above the last position; else wrap to the lowest.
                let ahead = w
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| x.req.lbn >= last)
                    .min_by_key(|(_, x)| x.req.lbn);
                match ahead {
                    Some((i, _)) => i,
                    None => argmin(&|x| x.req.lbn),
                }
            }
            SchedulerKind::Look => {
                let pick = |asc: bool| {
                    w.iter()
                        .enumerate()
                        .filter(|(_, x)| {
                            if asc {
                                x.req.lbn >= last
                            } else {
                                x.req.lbn < last
                            }
                        })
                        .min_by_key(|(_, x)| x.req.lbn.abs_diff(last))
                        .map(|(i, _)| i)
                };
                match pick(self.ascending) {
                    Some(i) => i,
                    None => {
                        self.ascending = !self.ascending;
                        pick(self.ascending).unwrap_or(0)
                    }
                }
            }
            SchedulerKind::Greedy => match drive {
                Some(hdd) => argmin(&|x| hdd.positioning_from_state(now, x.req.lbn, x.req.write)),
                None => argmin(&|x| x.req.lbn.abs_diff(last)),
            },
            SchedulerKind::Smtf(_) => match self.mimic.as_mut() {
                Some(m) => smtf::choose(m, self.last, self.waiting.iter().map(|w| &w.req)),
                None => 0,
            },
            SchedulerKind::OnlineSet(base) => {
                let pick = self.choose(base.kind(), drive, now);
                let last = self.last;
                let Some(m) = self.mimic.as_mut() else {
                    return pick;
                };
                let known = |m: &mut DiskMimic, r: &Request| {
                    m.lookup(last.write, r.write, last.distance_to(r))
                };
                if known(m, &self.waiting[pick].req).is_none() {
                    return pick;
                }
                self.fastest_known(pick)
            }
            // Freeblock's foreground order is C-LOOK.
            SchedulerKind::Freeblock => self.choose(SchedulerKind::CLook, drive, now),
            SchedulerKind::OnlinePriority(base) => {
                let best = self.fastest_known(usize::MAX);
                if best != usize::MAX {
                    best
                } else {
                    self.choose(base.kind(), drive, now)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::drive::Drive;
    use crate::disk::presets::preset;

    fn drive() -> Drive {
        Drive::new(preset("mimic-base").unwrap()).unwrap()
    }

    fn queue(kind: SchedulerKind, lbns: &[u64]) -> HostQueue {
        let mut q = HostQueue::new(kind, None);
        for (i, &lbn) in lbns.iter().enumerate() {
            q.push(
                Request {
                    id: i as u64,
                    lbn,
                    blocks: 8,
                    write: false,
                },
                SimTime(i as u64),
            );
        }
        q
    }

    fn order(mut q: HostQueue) -> Vec<u64> {
        let d = drive();
        std::iter::from_fn(|| q.pop(Some(d.hdd()), SimTime(100)).map(|w| w.req.lbn)).collect()
    }

    #[test]
    fn fcfs_keeps_arrival_order() {
        assert_eq!(
            order(queue(SchedulerKind::Fcfs, &[50, 10, 90])),
            [50, 10, 90]
        );
    }

    #[test]
    fn sstf_takes_the_nearest_lbn() {
        let mut q = queue(SchedulerKind::Sstf, &[1000, 100, 5000]);
        q.last_lbn = 900;
        assert_eq!(order(q), [1000, 100, 5000]);
    }

    #[test]
    fn clook_sweeps_up_then_wraps() {
        let mut q = queue(SchedulerKind::CLook, &[300, 100, 500, 200]);
        q.last_lbn = 250;
        assert_eq!(order(q), [300, 500, 100, 200]);
    }

    #[test]
    fn look_reverses_at_the_end() {
        let mut q = queue(SchedulerKind::Look, &[300, 100, 500, 200]);
        q.last_lbn = 250;
        assert_eq!(order(q), [300, 500, 200, 100]);
    }

    #[test]
    fn aging_serves_the_starved_first() {
        let mut q = HostQueue::new(SchedulerKind::Sstf, Some(0.001));
        q.push(
            Request {
                id: 0,
                lbn: 1_000_000,
                blocks: 8,
                write: false,
            },
            SimTime(0),
        );
        q.push(
            Request {
                id: 1,
                lbn: 8,
                blocks: 8,
                write: false,
            },
            SimTime(1_999_000),
        );
        let d = drive();
        assert_eq!(
            q.pop(Some(d.hdd()), SimTime(2_000_000)).map(|w| w.req.id),
            Some(0)
        );
    }

    #[test]
    fn greedy_prefers_the_cheapest_positioning() {
        let d = drive();
        let mut q = queue(SchedulerKind::Greedy, &[10_000_000, 272 * 10 * 2]);
        let far = d
            .hdd()
            .positioning_from_state(SimTime(100), 10_000_000, false);
        let near = d
            .hdd()
            .positioning_from_state(SimTime(100), 272 * 10 * 2, false);
        let first = q.pop(Some(d.hdd()), SimTime(100)).map(|w| w.req.lbn);
        assert_eq!(
            first,
            Some(if near < far { 272 * 10 * 2 } else { 10_000_000 })
        );
    }
}
