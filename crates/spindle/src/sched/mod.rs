//! Host-side I/O schedulers: which waiting request to send to the drive next.
//!
//! All schedulers see the same queue of waiting requests and, when the drive has room,
//! pick one. FCFS, SSTF (shortest LBN distance from the last request sent), LOOK and
//! C-LOOK (elevators on LBN) know nothing about the disk; greedy-optimal asks the
//! simulated drive for the exact time each candidate, sent now, would take to reach the
//! media, command overhead included (an oracle, as in the thesis's MIMIC-F3.2). Optional aging serves any request that has waited longer
//! than a bound first, oldest first.
//!
//! FCFS, SSTF, LOOK, C-LOOK, aging and freeblock's foreground pick are indexed: each
//! decision is O(log n) of the queue length, with the same choices (ties to the earliest
//! pushed) as a scan of the whole queue. The scanning policies can be limited to the
//! oldest few requests with [`HostQueue::with_window`].

pub mod keyset;
pub mod lbn_index;

use crate::disk::hdd::{Hdd, Request};
use crate::mimic::smtf::{self, LastRequest};
use crate::mimic::{DiskMimic, Metric};
use crate::time::SimTime;
use keyset::KeySet;
use lbn_index::LbnIndex;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum SchedulerKind {
    Fcfs,
    Sstf,
    Look,
    CLook,
    /// Shortest time to the media first, from the simulator's exact prediction for a
    /// request sent now (command overhead, the read-ahead it stops, seek, rotation).
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

impl SchedulerKind {
    /// Whether it scans the waiting requests (and so heeds a candidate window).
    pub fn scans(self) -> bool {
        matches!(
            self,
            SchedulerKind::Greedy
                | SchedulerKind::Smtf(_)
                | SchedulerKind::OnlineSet(_)
                | SchedulerKind::OnlinePriority(_)
        )
    }

    /// Whether it predicts from a Disk Mimic (and so heeds the Mimic's settings).
    pub fn uses_mimic(self) -> bool {
        matches!(
            self,
            SchedulerKind::Smtf(_)
                | SchedulerKind::OnlineSet(_)
                | SchedulerKind::OnlinePriority(_)
                | SchedulerKind::Freeblock
        )
    }
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
                // `online-set` alone takes SSTF; after a colon a base must follow.
                let base = match rest.strip_prefix(':').unwrap_or(rest) {
                    "" if rest.is_empty() => Base::Sstf,
                    "" => {
                        return Err(format!(
                            "{prefix}: a base (sstf or clook) must follow the colon"
                        ))
                    }
                    "sstf" => Base::Sstf,
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

/// A waiting request's place: its push sequence number (which orders tickets, so
/// ties go to the earliest pushed) and its slot in the queue's slab (which finds it
/// without a hash lookup).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Ticket {
    seq: u64,
    slot: usize,
}

/// The waiting request in `slots` that ticket `t` names (a free function, so it can
/// borrow the slab while the Mimic is borrowed mutably).
fn held<'a>(slots: &'a [Option<Waiting>], t: &Ticket) -> &'a Waiting {
    slots[t.slot]
        .as_ref()
        .expect("a ticket names a waiting request")
}

/// Tickets in push order: a short queue's vector, or the indexed order (one of the two
/// is empty). Free of `self`, so it can borrow these two while the Mimic is borrowed
/// mutably.
fn pushed_order<'a>(
    small: &'a [(u64, Ticket)],
    order: &'a KeySet<Ticket>,
) -> impl Iterator<Item = Ticket> + 'a {
    small.iter().map(|&(_, t)| t).chain(order.iter().copied())
}

impl lbn_index::Tag for Ticket {
    const LEAST: Ticket = Ticket { seq: 0, slot: 0 };
}

/// Up to this many waiting requests are kept in one vector in push order and every
/// decision scans it: a few cache lines and no index upkeep, cheaper than the indexes
/// for the short queues most runs have. One more request moves them into the indexes,
/// which keep them until the queue empties again.
const SMALL_QUEUE: usize = 32;

/// One drive's host queue and its scheduling state.
///
/// A short queue is a vector scanned in push order (see [`SMALL_QUEUE`]); a longer one is
/// indexed. Either way the answers are the same (ties to the earliest pushed). Indexed, waiting requests are kept in arrival order (by a push sequence number) and indexed by
/// (LBN, sequence number), so FCFS, SSTF, LOOK and C-LOOK (and freeblock's foreground
/// pick) decide in O(log n) of the queue length; with aging, an index by (arrival time,
/// sequence number) finds the oldest request in O(log n) too. The scanning policies
/// (greedy, SMTF, the on-line SMTF variants) look at every waiting request, or only at
/// the oldest few with [`HostQueue::with_window`].
pub struct HostQueue {
    kind: SchedulerKind,
    /// Requests waiting longer than this are served first (oldest first).
    max_wait_ns: Option<u64>,
    /// Waiting requests in slots; a freed slot is reused, so the slab never holds
    /// more slots than the most requests ever waiting at once.
    slots: Vec<Option<Waiting>>,
    free: Vec<usize>,
    len: usize,
    /// (LBN, ticket) of every waiting request in push order while the queue is short
    /// (`!indexed`); empty while the indexes hold them.
    small: Vec<(u64, Ticket)>,
    indexed: bool,
    /// Waiting requests in push order; kept only for the policies that look at the
    /// queue in arrival order (FCFS and the scanning ones), the others use `by_lbn`.
    order: KeySet<Ticket>,
    ordered: bool,
    /// (LBN, ticket) of every waiting request.
    by_lbn: LbnIndex<Ticket>,
    /// (arrival time, ticket) of every waiting request; kept only with aging.
    by_since: KeySet<(SimTime, Ticket)>,
    /// Sequence number of the next request pushed.
    next_seq: u64,
    /// Scanning policies consider only this many of the oldest waiting requests.
    window: Option<usize>,
    /// End LBN of the last request sent to the drive (its start with `from_start`).
    last_lbn: u64,
    /// C-LOOK and LOOK take their position from the start of the last request sent.
    from_start: bool,
    /// LOOK's sweep direction.
    ascending: bool,
    /// SMTF's model of the drive and what it last sent.
    mimic: Option<DiskMimic>,
    last: LastRequest,
    /// Requests sent to the drive and the request before each (for on-line learning).
    sent: VecDeque<(Request, LastRequest)>,
    /// SMTF: (predicted, observed) service time of each completed request, ns.
    predictions: Vec<(u32, u64)>,
    /// Freeblock: the background job's candidates.
    pool: Option<BackgroundPool>,
    /// The drive still has requests of ours when this decision is made, so the
    /// command overhead of the one sent now overlaps them (greedy then predicts as
    /// the firmware does, from the drive's state when it is free).
    drive_busy: bool,
    /// The candidates scanning decisions compared (greedy, SMTF, the on-line Mimics),
    /// in all and at most in one: what a long queue cost the run, since each such
    /// decision is linear in it.
    compared: u64,
    most_compared: usize,
}

impl HostQueue {
    pub fn new(kind: SchedulerKind, max_wait_ms: Option<f64>) -> HostQueue {
        HostQueue {
            kind,
            max_wait_ns: max_wait_ms.map(crate::time::ms_to_ns),
            slots: Vec::new(),
            free: Vec::new(),
            len: 0,
            small: Vec::new(),
            indexed: false,
            order: KeySet::new(),
            ordered: !matches!(
                kind,
                SchedulerKind::Sstf
                    | SchedulerKind::Look
                    | SchedulerKind::CLook
                    | SchedulerKind::Freeblock
            ),
            by_lbn: LbnIndex::new(),
            by_since: KeySet::new(),
            next_seq: 0,
            window: None,
            last_lbn: 0,
            from_start: false,
            ascending: true,
            mimic: None,
            last: LastRequest::default(),
            sent: VecDeque::new(),
            predictions: Vec::new(),
            pool: None,
            drive_busy: false,
            compared: 0,
            most_compared: 0,
        }
    }

    /// C-LOOK and LOOK sweep on from where the last request sent *starts* rather than
    /// where it ends, as DiskSim's `CYCLE_LBN` and `ELEVATOR_LBN` do (`lastblkno =
    /// blkno` in disksim_ioqueue.c): a request for the same address comes next, not
    /// after a whole sweep (an array's write that follows its own read).
    pub fn with_position_at_start(mut self) -> HostQueue {
        self.from_start = true;
        self
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

    /// A candidate window: the scanning policies (greedy, SMTF, on-line SMTF) consider
    /// only the `n` oldest waiting requests (arrival order; at least one), so a long
    /// queue costs them O(n) per decision instead of O(queue). FCFS, SSTF, LOOK, C-LOOK,
    /// aging and freeblock ignore it (they are indexed); freeblock's background test
    /// scans its own candidate pool, not the queue. Without a window (the default)
    /// every waiting request is a candidate.
    pub fn with_window(mut self, n: usize) -> HostQueue {
        self.window = Some(n.max(1));
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

    pub fn push(&mut self, req: Request, now: SimTime) {
        let w = Waiting {
            req,
            since: now,
            background: false,
        };
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot] = Some(w);
                slot
            }
            None => {
                self.slots.push(Some(w));
                self.slots.len() - 1
            }
        };
        let seq = Ticket {
            seq: self.next_seq,
            slot,
        };
        self.next_seq += 1;
        self.len += 1;
        if !self.indexed && self.small.len() < SMALL_QUEUE {
            self.small.push((req.lbn, seq));
            return;
        }
        if !self.indexed {
            self.indexed = true;
            for (lbn, t) in std::mem::take(&mut self.small) {
                let since = self.get(&t).since;
                self.index(lbn, since, t);
            }
        }
        self.index(req.lbn, now, seq);
    }

    /// Adds a waiting request to the indexes.
    fn index(&mut self, lbn: u64, since: SimTime, seq: Ticket) {
        self.by_lbn.insert(lbn, seq);
        if self.max_wait_ns.is_some() {
            self.by_since.insert((since, seq));
        }
        if self.ordered {
            self.order.insert(seq);
        }
    }

    /// The waiting requests' tickets in push order (for FCFS and the scanning policies:
    /// only kept indexed when `ordered`).
    fn in_order(&self) -> impl Iterator<Item = Ticket> + '_ {
        pushed_order(&self.small, &self.order)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The waiting request holding `t`.
    fn get(&self, t: &Ticket) -> &Waiting {
        held(&self.slots, t)
    }

    /// Removes and returns the request to send to the drive at `now`. Greedy asks
    /// `oracle` (the simulated drive) how long each candidate would take to reach the
    /// media if sent now; without an oracle it falls back to SSTF. The other policies
    /// ignore `oracle`.
    pub fn pop(&mut self, oracle: Option<&Hdd>, now: SimTime) -> Option<Waiting> {
        self.pop_to(oracle, now, false)
    }

    /// [`HostQueue::pop`] for a drive that still holds `drive_busy` requests of this
    /// queue's: greedy's candidates then wait behind them, their command overhead
    /// overlapping that work, and are ranked from the drive's state once it is free.
    pub fn pop_to(
        &mut self,
        oracle: Option<&Hdd>,
        now: SimTime,
        drive_busy: bool,
    ) -> Option<Waiting> {
        self.drive_busy = drive_busy;
        if self.is_empty() {
            return None;
        }
        if self.kind == SchedulerKind::Freeblock {
            if let Some(w) = self.free_background(now) {
                self.last_lbn = w.req.lbn + w.req.blocks as u64;
                self.last = LastRequest::of(&w.req);
                return Some(w);
            }
        }
        let seq = match self.aged(now) {
            Some(seq) => seq,
            None => self.choose(self.kind, oracle, now),
        };
        let w = self.take(seq);
        self.last_lbn =
            if self.from_start && matches!(self.kind, SchedulerKind::CLook | SchedulerKind::Look) {
                w.req.lbn
            } else {
                w.req.lbn + w.req.blocks as u64
            };
        if self.learns() {
            self.sent.push_back((w.req, self.last));
            if self.sent.len() > 4096 {
                self.sent.pop_front();
            }
        }
        self.last = LastRequest::of(&w.req);
        Some(w)
    }

    /// Request merging: removes the waiting request of the same kind that starts
    /// closest after `lbn` (where the request just sent ends), at most `gap` sectors
    /// further on (the earliest pushed among equals), and ends by `max_end`, to travel
    /// below with it as one request (reading through the gap). The queue's position
    /// moves to its end, as if the two were one.
    pub fn take_adjacent(
        &mut self,
        lbn: u64,
        gap: u64,
        write: bool,
        max_end: u64,
    ) -> Option<Waiting> {
        let end = lbn.saturating_add(gap);
        let fits = |seq: &Ticket| {
            let w = self.get(seq);
            w.req.write == write && w.req.lbn + u64::from(w.req.blocks.max(1)) <= max_end
        };
        let seq = if self.indexed {
            self.by_lbn
                .from(lbn)
                .take_while(|&(l, _)| l <= end)
                .map(|(_, seq)| seq)
                .find(fits)?
        } else {
            // The first in (LBN, ticket) order is the least of those that fit.
            self.small
                .iter()
                .filter(|&&(l, t)| l >= lbn && l <= end && fits(&t))
                .min()?
                .1
        };
        let w = self.take(seq);
        self.last_lbn = w.req.lbn + w.req.blocks as u64;
        self.last = LastRequest::of(&w.req);
        Some(w)
    }

    /// Removes waiting request `seq` from the queue and its indexes.
    fn take(&mut self, seq: Ticket) -> Waiting {
        let w = self.slots[seq.slot]
            .take()
            .expect("the scheduler picks a waiting request");
        self.free.push(seq.slot);
        self.len -= 1;
        if !self.indexed {
            let at = self
                .small
                .iter()
                .position(|&(_, t)| t == seq)
                .expect("a short queue holds every waiting request");
            self.small.remove(at);
            return w;
        }
        self.by_lbn.remove(w.req.lbn, seq);
        if self.max_wait_ns.is_some() {
            self.by_since.remove(&(w.since, seq));
        }
        if self.ordered {
            self.order.remove(&seq);
        }
        // An empty queue starts short again (the indexes are empty too).
        self.indexed = self.len > 0;
        w
    }

    /// Whether completions teach it anything (SMTF's demerit, the on-line Mimics): the
    /// others keep no record of what they sent.
    fn learns(&self) -> bool {
        matches!(
            self.kind,
            SchedulerKind::Smtf(_) | SchedulerKind::OnlineSet(_) | SchedulerKind::OnlinePriority(_)
        )
    }

    /// The drive finished request `id`, which took `service_ns` as the host saw it:
    /// on-line Mimics learn from it.
    pub fn completed(&mut self, id: u64, service_ns: u64) {
        if !self.learns() {
            return;
        }
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
        let next = self.clook_next()?;
        let fr_j = self.get(&next).req;
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

    /// How many of the oldest waiting requests the scanning policies consider, counted
    /// as a decision's comparisons.
    fn limit(&mut self) -> usize {
        let n = self.window.unwrap_or(usize::MAX);
        let now = n.min(self.len);
        self.compared += now as u64;
        self.most_compared = self.most_compared.max(now);
        n
    }

    /// The waiting requests scanning decisions compared, in all and at most in one (0
    /// for the policies that do not scan; decisions the aging bound made scan nothing).
    pub fn compared(&self) -> (u64, usize) {
        (self.compared, self.most_compared)
    }

    /// The waiting request with the fastest mimicked time among the candidates whose
    /// distance the Mimic has seen (ties to the earliest); `default` when none has been
    /// seen.
    fn fastest_known(&mut self, default: Option<Ticket>) -> Option<Ticket> {
        let last = self.last;
        if self.mimic.is_none() {
            return default;
        }
        let n = self.limit();
        let Some(m) = self.mimic.as_mut() else {
            return default;
        };
        let mut best = (u32::MAX, default);
        let slots = &self.slots;
        for (seq, w) in pushed_order(&self.small, &self.order)
            .take(n)
            .map(|q| (q, held(slots, &q)))
        {
            if let Some(t) = m.lookup(last.write, w.req.write, last.distance_to(&w.req)) {
                if t < best.0 {
                    best = (t, Some(seq));
                }
            }
        }
        best.1
    }

    /// The oldest request past the aging bound, if any (ties to the earliest pushed).
    fn aged(&self, now: SimTime) -> Option<Ticket> {
        let bound = self.max_wait_ns?;
        let (since, seq) = if self.indexed {
            self.by_since.first()?
        } else {
            self.small
                .iter()
                .map(|&(_, t)| (self.get(&t).since, t))
                .min()?
        };
        (now.0.saturating_sub(since.0) > bound).then_some(seq)
    }

    /// The earliest-pushed request at the lowest LBN at or above `lbn`: (LBN, seq).
    fn at_or_above(&self, lbn: u64) -> Option<(u64, Ticket)> {
        if self.indexed {
            return self.by_lbn.at_or_above(lbn);
        }
        self.small.iter().filter(|&&(l, _)| l >= lbn).min().copied()
    }

    /// The earliest-pushed request at the highest LBN below `lbn`: (LBN, seq).
    fn below(&self, lbn: u64) -> Option<(u64, Ticket)> {
        if self.indexed {
            return self.by_lbn.below(lbn);
        }
        // Highest LBN first, then the least ticket.
        self.small
            .iter()
            .filter(|&&(l, _)| l < lbn)
            .min_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)))
            .copied()
    }

    /// The earliest-pushed request at the lowest LBN: (LBN, seq).
    fn lowest(&self) -> Option<(u64, Ticket)> {
        if self.indexed {
            return self.by_lbn.first();
        }
        self.small.iter().min().copied()
    }

    /// C-LOOK: the next request at or above the last position, else the lowest.
    fn clook_next(&self) -> Option<Ticket> {
        self.at_or_above(self.last_lbn)
            .or_else(|| self.lowest())
            .map(|(_, seq)| seq)
    }

    /// SSTF: the request nearest the last position; on equal distance the earlier
    /// pushed (the nearest above and the nearest below are the only candidates).
    fn nearest(&self) -> Option<Ticket> {
        let last = self.last_lbn;
        match (self.at_or_above(last), self.below(last)) {
            (Some((a, sa)), Some((b, sb))) => {
                let (da, db) = (a - last, last - b);
                Some(if da < db || (da == db && sa < sb) {
                    sa
                } else {
                    sb
                })
            }
            (Some((_, s)), None) | (None, Some((_, s))) => Some(s),
            (None, None) => None,
        }
    }

    /// The oldest waiting request (any request, for the policies that keep no order): a
    /// fallback that a non-empty queue never needs.
    fn oldest(&self) -> Ticket {
        if !self.indexed {
            self.small.first().map(|&(_, seq)| seq)
        } else if self.ordered {
            self.order.first()
        } else {
            self.by_lbn.first().map(|(_, seq)| seq)
        }
        .expect("choose runs on a non-empty queue")
    }

    /// Sequence number of the waiting request `kind` sends next (the queue is not empty).
    fn choose(&mut self, kind: SchedulerKind, oracle: Option<&Hdd>, now: SimTime) -> Ticket {
        match kind {
            SchedulerKind::Fcfs => self.oldest(),
            SchedulerKind::Sstf => self.nearest().unwrap_or_else(|| self.oldest()),
            SchedulerKind::CLook => self.clook_next().unwrap_or_else(|| self.oldest()),
            SchedulerKind::Look => {
                let last = self.last_lbn;
                let pick = |q: &HostQueue, asc: bool| {
                    if asc {
                        q.at_or_above(last)
                    } else {
                        q.below(last)
                    }
                    .map(|(_, seq)| seq)
                };
                match pick(self, self.ascending) {
                    Some(seq) => seq,
                    None => {
                        self.ascending = !self.ascending;
                        pick(self, self.ascending).unwrap_or_else(|| self.oldest())
                    }
                }
            }
            // Without an oracle greedy cannot predict positioning: it falls back to SSTF.
            SchedulerKind::Greedy => match oracle {
                Some(hdd) => {
                    // The host sends its pick now, so each candidate's time runs from
                    // now through the command's overhead (which nothing overlaps) and
                    // the read-ahead it stops, as the drive will serve it.
                    let view = (!self.drive_busy).then(|| hdd.host_view(now));
                    // Ties go to the earliest arrival: only a strictly faster one wins.
                    let mut best = (u64::MAX, self.oldest());
                    let n = self.limit();
                    for (seq, w) in self.in_order().take(n).map(|q| (q, self.get(&q))) {
                        let r = &w.req;
                        let t = match &view {
                            Some(v) => v.delay(r.lbn, r.blocks, r.write),
                            None => hdd.positioning_from_state(now, r.lbn, r.write),
                        };
                        if t < best.0 {
                            best = (t, seq);
                        }
                    }
                    best.1
                }
                None => self.nearest().unwrap_or_else(|| self.oldest()),
            },
            SchedulerKind::Smtf(_) => {
                let limit = self.limit();
                let first = self.oldest();
                match self.mimic.as_mut() {
                    Some(m) => {
                        let slots = &self.slots;
                        let candidates = pushed_order(&self.small, &self.order)
                            .take(limit)
                            .map(|q| &held(slots, &q).req);
                        let i = smtf::choose(m, self.last, candidates);
                        self.in_order().nth(i).unwrap_or(first)
                    }
                    None => first,
                }
            }
            SchedulerKind::OnlineSet(base) => {
                let pick = self.choose(base.kind(), oracle, now);
                let last = self.last;
                let Some(m) = self.mimic.as_mut() else {
                    return pick;
                };
                let r = &held(&self.slots, &pick).req;
                if m.lookup(last.write, r.write, last.distance_to(r)).is_none() {
                    return pick;
                }
                self.fastest_known(Some(pick)).unwrap_or(pick)
            }
            // Freeblock's foreground order is C-LOOK.
            SchedulerKind::Freeblock => self.choose(SchedulerKind::CLook, oracle, now),
            SchedulerKind::OnlinePriority(base) => match self.fastest_known(None) {
                Some(seq) => seq,
                None => self.choose(base.kind(), oracle, now),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::drive::Drive;
    use crate::disk::presets::preset;
    use proptest::prelude::*;

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
        let view = d.hdd().host_view(SimTime(100));
        let far = view.delay(10_000_000, 8, false);
        let near = view.delay(272 * 10 * 2, 8, false);
        let first = q.pop(Some(d.hdd()), SimTime(100)).map(|w| w.req.lbn);
        assert_eq!(
            first,
            Some(if near < far { 272 * 10 * 2 } else { 10_000_000 })
        );
    }

    #[test]
    fn greedy_without_an_oracle_is_sstf() {
        let lbns = [1000, 100, 5000, 950, 850];
        let mut g = queue(SchedulerKind::Greedy, &lbns);
        let mut s = queue(SchedulerKind::Sstf, &lbns);
        g.last_lbn = 900;
        s.last_lbn = 900;
        let mut picks = Vec::new();
        while let Some(w) = g.pop(None, SimTime(100)) {
            picks.push(w.req.id);
        }
        let sstf: Vec<u64> =
            std::iter::from_fn(|| s.pop(None, SimTime(100)).map(|w| w.req.id)).collect();
        assert_eq!(picks, sstf);
        assert_eq!(picks, [3, 0, 4, 1, 2]);
    }

    #[test]
    fn window_limits_greedy_to_the_oldest() {
        let d = drive();
        let hdd = d.hdd();
        let now = SimTime(100);
        let view = hdd.host_view(now);
        let cost = |lbn: u64| view.delay(lbn, 8, false);
        // Dearest first, so the cheapest requests arrive last.
        let mut lbns: Vec<u64> = (1..=24)
            .map(|i| i * 7_919_993 % (hdd.capacity() - 8))
            .collect();
        lbns.sort_by_key(|&l| std::cmp::Reverse(cost(l)));
        let cheapest = *lbns.last().unwrap();
        assert!(lbns[..lbns.len() - 1]
            .iter()
            .all(|&l| cost(l) > cost(cheapest)));

        // No window: the cheapest of all.
        let mut q = queue(SchedulerKind::Greedy, &lbns);
        assert_eq!(q.pop(Some(hdd), now).map(|w| w.req.lbn), Some(cheapest));

        // A window of 4: each pick is the cheapest of the 4 oldest still waiting.
        const N: usize = 4;
        let mut q = queue(SchedulerKind::Greedy, &lbns).with_window(N);
        let mut model: Vec<(u64, u64)> = lbns
            .iter()
            .enumerate()
            .map(|(i, &l)| (i as u64, l))
            .collect();
        while !model.is_empty() {
            let mut best = 0;
            for (k, &(_, l)) in model.iter().enumerate().take(N) {
                if cost(l) < cost(model[best].1) {
                    best = k;
                }
            }
            let (id, _) = model.remove(best);
            let w = q.pop(Some(hdd), now).expect("a request waits");
            assert_eq!(w.req.id, id);
            // The cheapest, last to arrive, waits until it is among the N oldest.
            assert!(w.req.lbn != cheapest || model.len() < N);
        }
        assert!(q.is_empty());
    }

    /// The schedulers as they were before the index: a linear scan of a `Vec` in arrival
    /// order (FCFS, SSTF, LOOK, C-LOOK and aging), the reference for the indexed queue.
    struct LinearScan {
        kind: SchedulerKind,
        max_wait_ns: Option<u64>,
        waiting: Vec<Waiting>,
        last_lbn: u64,
        ascending: bool,
    }

    impl LinearScan {
        fn new(kind: SchedulerKind, max_wait_ms: Option<f64>) -> LinearScan {
            LinearScan {
                kind,
                max_wait_ns: max_wait_ms.map(crate::time::ms_to_ns),
                waiting: Vec::new(),
                last_lbn: 0,
                ascending: true,
            }
        }

        fn push(&mut self, req: Request, now: SimTime) {
            self.waiting.push(Waiting {
                req,
                since: now,
                background: false,
            });
        }

        fn pop(&mut self, now: SimTime) -> Option<Waiting> {
            if self.waiting.is_empty() {
                return None;
            }
            let i = self.aged(now).unwrap_or_else(|| self.choose());
            let w = self.waiting.remove(i);
            self.last_lbn = w.req.lbn + w.req.blocks as u64;
            Some(w)
        }

        fn aged(&self, now: SimTime) -> Option<usize> {
            let bound = self.max_wait_ns?;
            let (i, w) = self
                .waiting
                .iter()
                .enumerate()
                .min_by_key(|(i, w)| (w.since, *i))?;
            (now.0.saturating_sub(w.since.0) > bound).then_some(i)
        }

        fn choose(&mut self) -> usize {
            let w = &self.waiting;
            let last = self.last_lbn;
            let argmin = |key: &dyn Fn(&Waiting) -> u64| -> usize {
                w.iter()
                    .enumerate()
                    .min_by_key(|(_, x)| key(x))
                    .map(|(i, _)| i)
                    .unwrap_or(0)
            };
            match self.kind {
                SchedulerKind::Fcfs => 0,
                SchedulerKind::Sstf => argmin(&|x| x.req.lbn.abs_diff(last)),
                SchedulerKind::CLook => {
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
                other => unreachable!("no linear reference for {other}"),
            }
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        /// Push a request at `lbn` of `blocks` sectors, `dt` ns after the previous event.
        Push { lbn: u64, blocks: u32, dt: u64 },
        /// Pop `dt` ns after the previous event.
        Pop { dt: u64 },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            // Few distinct LBNs, so equal LBNs and equal distances are common.
            3 => (0u64..48, 1u32..6, 0u64..3_000)
                .prop_map(|(lbn, blocks, dt)| Op::Push { lbn, blocks, dt }),
            1 => (0u64..2_000_000, 1u32..64, 0u64..3_000)
                .prop_map(|(lbn, blocks, dt)| Op::Push { lbn, blocks, dt }),
            3 => (0u64..3_000).prop_map(|dt| Op::Pop { dt }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// The queue, short or indexed, makes exactly the choices of the linear scan.
        #[test]
        fn indexed_choices_match_the_linear_scan(
            kind in prop_oneof![
                Just(SchedulerKind::Fcfs),
                Just(SchedulerKind::Sstf),
                Just(SchedulerKind::Look),
                Just(SchedulerKind::CLook),
            ],
            max_wait_ms in prop_oneof![Just(None), (1u64..20).prop_map(|us| Some(us as f64 * 1e-3))],
            // Arrival times in order (as the simulator pushes), or anywhere.
            in_order in any::<bool>(),
            start in 0u64..50,
            // Long enough that queues grow past SMALL_QUEUE (indexed) and drain back to
            // short ones, both within one run.
            ops in proptest::collection::vec(op(), 1..600),
        ) {
            let mut q = HostQueue::new(kind, max_wait_ms);
            let mut r = LinearScan::new(kind, max_wait_ms);
            q.last_lbn = start;
            r.last_lbn = start;
            let mut t = 0u64;
            let mut id = 0u64;
            for op in ops {
                match op {
                    Op::Push { lbn, blocks, dt } => {
                        t += dt;
                        let at = if in_order { t } else { (t * 7919 + dt * 31) % 20_000 };
                        let req = Request { id, lbn, blocks, write: id.is_multiple_of(3) };
                        id += 1;
                        q.push(req, SimTime(at));
                        r.push(req, SimTime(at));
                    }
                    Op::Pop { dt } => {
                        t += dt;
                        let now = if in_order { t } else { (t * 104_729) % 20_000 };
                        let a = q.pop(None, SimTime(now)).map(|w| (w.req.id, w.since));
                        let b = r.pop(SimTime(now)).map(|w| (w.req.id, w.since));
                        prop_assert_eq!(a, b);
                        prop_assert_eq!(q.last_lbn, r.last_lbn);
                    }
                }
                prop_assert_eq!(q.len(), r.waiting.len());
            }
            // Drain: the rest in the same order too.
            while let Some(b) = r.pop(SimTime(t)) {
                let a = q.pop(None, SimTime(t)).map(|w| w.req.id);
                prop_assert_eq!(a, Some(b.req.id));
            }
            prop_assert!(q.is_empty());
        }
    }
}
