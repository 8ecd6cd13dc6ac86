//! Background write propagation for MimdRAID's replicated layouts (§2.1: "some of
//! these writes can propagate in the background; but reads to data whose propagation
//! has not completed cannot enjoy the full benefit").
//!
//! A write is acknowledged once one replica holds it (the foreground copy); the
//! other replicas' writes wait here, per member, and go to a member when it has
//! nothing else to do, or at once when one has waited the staleness bound since
//! nothing else held it back (its making, or the completion of an earlier write to
//! the same sectors of its member, which must land first).
//! Until a replica's write completes, the sectors it covers are *pending* on that
//! member, and reads never go there: a read only ever sees a replica as up to date
//! as the last acknowledged write. Two writes to the same sectors of one member are
//! never at the drive together (a drive may reorder its queue), so a replica's
//! writes land in the order they were made.
//!
//! Timing only, like [`super::mimd::Layout`]: what is tracked is where each write is,
//! not bytes. Memory: one entry per pending sector, bounded by the writes the
//! staleness bound lets wait.

use crate::time::SimTime;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How a write reaches a block's replicas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Propagation {
    /// Every replica written before the write is acknowledged.
    #[default]
    Foreground,
    /// One replica in the foreground, the rest in the background.
    Background,
}

/// Default staleness bound (ms): a background copy waits at most a second for its
/// member to be idle.
pub const DEFAULT_STALENESS_MS: f64 = 1000.0;

/// Largest staleness bound (ms): an hour.
pub const MAX_STALENESS_MS: f64 = 3_600_000.0;

/// One member write: where, and whose (a host write waiting for it, or none for a
/// background copy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberWrite {
    pub member: usize,
    pub lbn: u64,
    pub blocks: u32,
    /// The host write acknowledged when this completes (`None`: a background copy).
    pub parent: Option<u64>,
    /// Since when nothing but its member's business holds it back: when it was made,
    /// or when the last earlier write to its sectors on its member completed.
    pub since: SimTime,
}

impl MemberWrite {
    fn overlaps(&self, o: &MemberWrite) -> bool {
        self.member == o.member
            && self.lbn < o.lbn + u64::from(o.blocks)
            && o.lbn < self.lbn + u64::from(self.blocks)
    }
}

/// Counts kept for the report.
#[derive(Clone, Copy, Debug, Default)]
pub struct PropagationStats {
    /// Background copies made.
    pub background: u64,
    /// Of them, sent because the oldest had waited the staleness bound.
    pub forced: u64,
    /// Of them, sent before their member was idle because a host write was held
    /// behind them (it must land after them).
    pub hastened: u64,
    /// Longest a background copy waited before it was sent (ns).
    pub max_wait_ns: u64,
    /// Reads steered away from a replica with a write pending.
    pub stale_avoided: u64,
}

/// The writes not yet on their replicas, per member.
pub struct Background {
    staleness_ns: u64,
    held: Vec<VecDeque<MemberWrite>>,
    in_flight: FxHashMap<u64, MemberWrite>,
    /// (member, sector) → writes held or in flight that cover it.
    pending: FxHashMap<(usize, u64), u32>,
    pub stats: PropagationStats,
}

impl Background {
    /// For `members` members; a background copy waits at most `staleness_ms`
    /// (0 < ms ≤ [`MAX_STALENESS_MS`]) before it is sent whatever the member is doing.
    pub fn new(members: usize, staleness_ms: f64) -> Result<Background, String> {
        if !(staleness_ms > 0.0 && staleness_ms <= MAX_STALENESS_MS) {
            return Err(format!(
                "staleness-ms must be within (0, {MAX_STALENESS_MS}], got {staleness_ms}"
            ));
        }
        Ok(Background {
            staleness_ns: (staleness_ms * 1e6).round() as u64,
            held: vec![VecDeque::new(); members],
            in_flight: FxHashMap::default(),
            pending: FxHashMap::default(),
            stats: PropagationStats::default(),
        })
    }

    /// Whether any of `blocks` sectors from `lbn` on `member` has a write held or in
    /// flight (a read there could see an older version).
    pub fn is_pending(&self, member: usize, lbn: u64, blocks: u32) -> bool {
        !self.pending.is_empty()
            && (lbn..lbn + u64::from(blocks.max(1)))
                .any(|s| self.pending.contains_key(&(member, s)))
    }

    /// Background copies held or in flight (host writes are counted by their parents).
    pub fn outstanding(&self) -> usize {
        self.held
            .iter()
            .flatten()
            .filter(|w| w.parent.is_none())
            .count()
            + self
                .in_flight
                .values()
                .filter(|w| w.parent.is_none())
                .count()
    }

    /// Takes a member write to send when it may go (see [`Background::ready`]).
    pub fn hold(&mut self, w: MemberWrite) {
        for s in w.lbn..w.lbn + u64::from(w.blocks.max(1)) {
            *self.pending.entry((w.member, s)).or_insert(0) += 1;
        }
        if w.parent.is_none() {
            self.stats.background += 1;
        }
        self.held[w.member].push_back(w);
    }

    /// The held writes that go now, removed from the queues: on each member, in
    /// order, every one that overlaps no write in flight there and no earlier held
    /// one; a host write as soon as it may, a background copy when the member is
    /// idle (one at a time), has waited the staleness bound, or holds back a host
    /// write (which is then not kept waiting for an idle member).
    pub fn ready(&mut self, now: SimTime, idle: impl Fn(usize) -> bool) -> Vec<MemberWrite> {
        let mut out = Vec::new();
        for m in 0..self.held.len() {
            let mut idle_slot = idle(m);
            let urgent = urgent_copies(&self.held[m]);
            let mut kept: VecDeque<MemberWrite> = VecDeque::new();
            let mut i = 0;
            while let Some(w) = self.held[m].pop_front() {
                let urgent_copy = urgent[i];
                i += 1;
                let blocked = self.in_flight_overlaps(m, &w)
                    || out.iter().chain(kept.iter()).any(|o| o.overlaps(&w));
                let waited = now.0.saturating_sub(w.since.0);
                let go = !blocked
                    && (w.parent.is_some()
                        || urgent_copy
                        || waited >= self.staleness_ns
                        || idle_slot);
                if go {
                    if w.parent.is_none() {
                        if waited >= self.staleness_ns && !idle_slot {
                            self.stats.forced += 1;
                        } else if urgent_copy && !idle_slot {
                            self.stats.hastened += 1;
                        }
                        idle_slot = false;
                        self.stats.max_wait_ns = self.stats.max_wait_ns.max(waited);
                    }
                    out.push(w);
                } else {
                    kept.push_back(w);
                }
            }
            self.held[m] = kept;
        }
        out
    }

    /// Records member write `w` sent as child `id`.
    pub fn sent(&mut self, id: u64, w: MemberWrite) {
        self.in_flight.insert(id, w);
    }

    /// Child `id` completed at `now`: if it was a tracked write, its sectors are no
    /// longer pending, and held writes to them may go from now on; returns it.
    pub fn completed(&mut self, id: u64, now: SimTime) -> Option<MemberWrite> {
        let w = self.in_flight.remove(&id)?;
        for h in self.held[w.member].iter_mut().filter(|h| h.overlaps(&w)) {
            h.since = h.since.max(now);
        }
        for s in w.lbn..w.lbn + u64::from(w.blocks.max(1)) {
            if let Some(n) = self.pending.get_mut(&(w.member, s)) {
                *n -= 1;
                if *n == 0 {
                    self.pending.remove(&(w.member, s));
                }
            }
        }
        Some(w)
    }

    /// When the oldest held background copy that nothing holds back (no overlapping
    /// write in flight or ahead of it) reaches the staleness bound. A held-back copy
    /// is looked at again when the write in its way completes.
    pub fn next_deadline(&self) -> Option<SimTime> {
        let mut first: Option<SimTime> = None;
        for (m, held) in self.held.iter().enumerate() {
            for (i, w) in held.iter().enumerate() {
                if w.parent.is_some()
                    || self.in_flight_overlaps(m, w)
                    || held.iter().take(i).any(|o| o.overlaps(w))
                {
                    continue;
                }
                let due = SimTime(w.since.0.saturating_add(self.staleness_ns));
                first = Some(first.map_or(due, |f| f.min(due)));
            }
        }
        first
    }

    /// Whether a write in flight on member `m` overlaps `w`.
    fn in_flight_overlaps(&self, m: usize, w: &MemberWrite) -> bool {
        self.in_flight
            .values()
            .any(|o| o.member == m && o.overlaps(w))
    }
}

/// Which of a member's held writes (in order) are background copies that a host write
/// held after them waits for, directly or through other such copies: each overlaps a
/// later host write or a later copy that does.
fn urgent_copies(held: &VecDeque<MemberWrite>) -> Vec<bool> {
    let mut urgent = vec![false; held.len()];
    for i in (0..held.len()).rev() {
        let w = &held[i];
        urgent[i] = w.parent.is_none()
            && held
                .iter()
                .enumerate()
                .skip(i + 1)
                .any(|(j, later)| (later.parent.is_some() || urgent[j]) && later.overlaps(w));
    }
    urgent
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(member: usize, lbn: u64, parent: Option<u64>, at: u64) -> MemberWrite {
        MemberWrite {
            member,
            lbn,
            blocks: 8,
            parent,
            since: SimTime(at),
        }
    }

    #[test]
    fn background_copies_wait_for_an_idle_member_or_the_bound() {
        let mut b = Background::new(2, 1.0).unwrap();
        b.hold(w(0, 0, None, 0));
        b.hold(w(0, 100, None, 0));
        assert!(b.is_pending(0, 4, 1) && !b.is_pending(1, 4, 1) && !b.is_pending(0, 8, 8));
        // Busy member, bound not reached: nothing goes.
        assert!(b.ready(SimTime(500_000), |_| false).is_empty());
        assert_eq!(b.next_deadline(), Some(SimTime(1_000_000)));
        // Idle: one at a time.
        let go = b.ready(SimTime(600_000), |_| true);
        assert_eq!(go.len(), 1);
        b.sent(1, go[0]);
        // The bound: the other goes although the member is busy.
        let go = b.ready(SimTime(1_000_000), |_| false);
        assert_eq!(go, vec![w(0, 100, None, 0)]);
        assert_eq!(b.stats.forced, 1);
        b.sent(2, go[0]);
        assert_eq!(b.outstanding(), 2);
        assert!(b.completed(1, SimTime(1)).is_some() && b.completed(2, SimTime(1)).is_some());
        assert!(
            !b.is_pending(0, 0, 200)
                && b.outstanding() == 0
                && b.completed(1, SimTime(1)).is_none()
        );
    }

    #[test]
    fn overlapping_writes_of_a_member_go_one_after_another() {
        let mut b = Background::new(1, 10.0).unwrap();
        b.hold(w(0, 0, None, 0));
        let first = b.ready(SimTime(0), |_| true);
        b.sent(1, first[0]);
        // A host write to the same sectors waits for the copy in flight; one
        // elsewhere goes at once.
        b.hold(w(0, 4, Some(9), 10));
        b.hold(w(0, 64, Some(10), 10));
        let go = b.ready(SimTime(10), |_| false);
        assert_eq!(go, vec![w(0, 64, Some(10), 10)]);
        b.completed(1, SimTime(20));
        assert_eq!(b.ready(SimTime(20), |_| false), vec![w(0, 4, Some(9), 20)]);
    }

    #[test]
    fn a_copy_a_host_write_waits_for_goes_without_waiting_for_idle() {
        let mut b = Background::new(1, 1000.0).unwrap();
        // Two copies on a busy member; a host write then overlaps the second one.
        b.hold(w(0, 0, None, 0));
        b.hold(w(0, 100, None, 0));
        assert!(b.ready(SimTime(10), |_| false).is_empty());
        b.hold(w(0, 104, Some(7), 20));
        // The copy in its way goes at once, the other keeps waiting for idle.
        let go = b.ready(SimTime(20), |_| false);
        assert_eq!(go, vec![w(0, 100, None, 0)]);
        assert_eq!((b.stats.hastened, b.stats.forced), (1, 0));
        b.sent(1, go[0]);
        b.completed(1, SimTime(30));
        assert_eq!(
            b.ready(SimTime(30), |_| false),
            vec![w(0, 104, Some(7), 30)]
        );
    }

    #[test]
    fn the_bound_is_checked() {
        for bad in [0.0, -1.0, f64::NAN, MAX_STALENESS_MS * 2.0] {
            assert!(Background::new(1, bad).is_err(), "{bad}");
        }
    }
}
