//! A bus several drives share, one owner at a time (DiskSim's exclusive bus,
//! `disksim_bus` type 1), as DiskSim's disks use it: the command reaches a drive only
//! once the bus is free, and the drive keeps the bus through its command overhead (a
//! write also through its data transfer) until it disconnects; to send read data or a
//! completion it reconnects, waiting again for the bus, and keeps it to the end (the
//! read data and the completion overhead).
//!
//! The bus is a shared resource of the device tree, not a node of its own: every
//! drive on it holds a handle ([`SharedBus`]) and asks for the bus at the instant it
//! needs it. As in DiskSim (`bus_ownership_get`, `bus_ownership_release`), a request
//! made while the bus is owned waits, and the grant is decided when the owner lets go,
//! among all who wait then: with slot priority the highest slot wins (the controller
//! above the bus has slot 0, its disks slots 1, 2, … in topology order), ties and FIFO
//! arbitration going to the one that asked first. A request made while the bus is
//! free is granted from its own instant, but decided together with every other
//! request made at that instant, the same way. DiskSim grants a free bus to the first
//! caller; its requests seldom fall on one instant, because each disk's rotational
//! angle is kept in fixed point and drifts (in `syntharrays.parv` the data disks of a
//! RAID-4 lag their true angle by 55–66 µs after 50 s, its parity disk by 28 µs), so
//! two disks reading the same sector end microseconds apart. spindle keeps every
//! disk's angle exact: such requests fall on one instant, and the bus arbitrates them
//! by priority, as a SCSI bus does for devices that arbitrate in one phase.
//!
//! Sans-IO: a waiting drive cannot be called by the bus, so it polls. `request`
//! answers a grant or the instant to ask again: the owner's release, or the nanosecond
//! after the instant to decide. The first requester to ask after that instant makes
//! the decision for all; a waiter that lost asks again one nanosecond later, when the
//! winner (due at the same instant) has taken the bus and its release is known.
//! Every poll after a decision instant sees all the requests made up to it, so the
//! grants do not depend on which waiter polls first.

use crate::time::SimTime;
use std::sync::{Arc, Mutex};

/// What a bus owner did with the bus in one request, as the drive model reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BusUse {
    /// When the drive let the bus go after the command (and a write's data).
    pub release: SimTime,
    /// The reconnection that follows, if the request disconnected.
    pub reconnect: Option<Reconnect>,
}

/// A reconnection: when the drive asks for the bus again, and how the request ends
/// once it has it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reconnect {
    /// The instant the drive asks for the bus.
    pub at: SimTime,
    /// The request's completion had the bus been free at `at`.
    pub done: SimTime,
    /// Holding the bus through the whole read: when each block still to send is in the
    /// buffer (empty when the end moves with the grant as a whole).
    pub avail: Vec<SimTime>,
    /// Reselection and data preparation before the first block, ns.
    pub pre_ns: u64,
    /// One block on the bus, ns.
    pub block_ns: u64,
    /// The completion overhead after the last block, ns.
    pub complete_ns: u64,
}

impl Reconnect {
    /// The request's completion when the bus is granted at `grant` (not before `at`).
    pub fn done_if_granted(&self, grant: SimTime) -> SimTime {
        if self.avail.is_empty() {
            return self.done + grant.0.saturating_sub(self.at.0);
        }
        let mut f = grant + self.pre_ns;
        for &a in &self.avail {
            f = f.max(a) + self.block_ns;
        }
        f + self.complete_ns
    }
}

/// The bus's own figures over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BusStats {
    /// Times the bus was granted.
    pub grants: u64,
    /// Grants that had to wait for another owner.
    pub waits: u64,
    /// Time spent waiting for the bus, summed over grants, ns.
    pub wait_ns: u64,
    /// Time the bus was owned, ns.
    pub busy_ns: u64,
}

/// The answer to a bus request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grant {
    /// The bus is the requester's from this instant; it then
    /// [`release`](SharedBus::release)s it.
    At(SimTime),
    /// Not yet: ask again at this instant.
    Wait(SimTime),
}

/// How the bus picks among waiting requesters when it frees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arbitration {
    /// DiskSim's type 1: the highest slot; ties to the first to ask.
    SlotPriority,
    /// DiskSim's type 2: the first to ask.
    Fifo,
}

#[derive(Clone, Copy, Debug)]
struct Waiter {
    /// The requester (each has one request at a time).
    who: u32,
    /// Its priority: the slot it asks from.
    slot: u32,
    /// When it asked.
    at: SimTime,
}

#[derive(Debug)]
struct Line {
    name: String,
    arbitration: Arbitration,
    arbitration_ns: u64,
    /// When the last owner let the bus go.
    free_at: SimTime,
    /// Granted and not yet released.
    owned: bool,
    /// The winner of the last decision, not yet told: its request and grant.
    pending: Option<(Waiter, SimTime)>,
    /// Requests waiting for a decision, in the order they were made.
    waiters: Vec<Waiter>,
    stats: BusStats,
}

impl Line {
    /// Makes the decision due by `now`, if any: at the later of the release and the
    /// first request, among the requests made by then.
    fn settle(&mut self, now: SimTime) {
        if self.owned || self.pending.is_some() {
            return;
        }
        let Some(first) = self.waiters.iter().map(|w| w.at).min() else {
            return;
        };
        let decide = self.free_at.max(first);
        // Every request made at the decision instant takes part: decide once that
        // instant has passed.
        if decide >= now {
            return;
        }
        let mut best: Option<usize> = None;
        for (i, w) in self.waiters.iter().enumerate() {
            if w.at > decide {
                continue;
            }
            let better = match (best, self.arbitration) {
                (None, _) => true,
                (Some(b), Arbitration::SlotPriority) => w.slot > self.waiters[b].slot,
                (Some(_), Arbitration::Fifo) => false,
            };
            if better {
                best = Some(i);
            }
        }
        let Some(i) = best else { return };
        let w = self.waiters.remove(i);
        // Owned from the decision: the arbitration time is the winner's.
        self.stats.busy_ns += self.arbitration_ns;
        self.pending = Some((w, decide + self.arbitration_ns));
    }
}

/// A handle on one shared bus; clones are the same bus.
#[derive(Clone, Debug)]
pub struct SharedBus(Arc<Mutex<Line>>);

impl SharedBus {
    /// A free slot-priority bus named `name` whose grants take `arbitration_ns` after
    /// it frees.
    pub fn new(name: impl Into<String>, arbitration_ns: u64) -> SharedBus {
        SharedBus(Arc::new(Mutex::new(Line {
            name: name.into(),
            arbitration: Arbitration::SlotPriority,
            arbitration_ns,
            free_at: SimTime::ZERO,
            owned: false,
            pending: None,
            waiters: Vec::new(),
            stats: BusStats::default(),
        })))
    }

    /// The same bus arbitrating by `arbitration`.
    pub fn with_arbitration(self, arbitration: Arbitration) -> SharedBus {
        self.line().arbitration = arbitration;
        self
    }

    fn line(&self) -> std::sync::MutexGuard<'_, Line> {
        // A poisoned lock means a panic elsewhere already ended the run.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn name(&self) -> String {
        self.line().name.clone()
    }

    /// Requester `who` asks for the bus from `slot` at `now` (a repeat of a waiting
    /// request keeps its place and its first instant). On [`Grant::At`] the caller
    /// owns the bus and [`release`](Self::release)s it; on [`Grant::Wait`] it asks
    /// again at the instant given.
    pub fn request(&self, now: SimTime, who: u32, slot: u32) -> Grant {
        let mut l = self.line();
        let pending = l.pending.is_some_and(|(w, _)| w.who == who);
        if !pending && !l.waiters.iter().any(|w| w.who == who) {
            l.waiters.push(Waiter { who, slot, at: now });
        }
        l.settle(now);
        if let Some((w, grant)) = l.pending.filter(|(w, _)| w.who == who) {
            l.pending = None;
            l.owned = true;
            l.stats.grants += 1;
            if grant.0 > w.at.0 + l.arbitration_ns {
                l.stats.waits += 1;
            }
            l.stats.wait_ns += grant.0 - w.at.0;
            return Grant::At(grant);
        }
        if l.owned || l.pending.is_some() {
            // The owner (or the winner, due now) has not said when it lets go yet.
            return Grant::Wait(SimTime(now.0 + 1));
        }
        let first = l.waiters.iter().map(|w| w.at).min().unwrap_or(now);
        Grant::Wait(SimTime(l.free_at.max(first).0 + 1).max(SimTime(now.0 + 1)))
    }

    /// The owner granted at `grant` lets the bus go at `end`.
    pub fn release(&self, grant: SimTime, end: SimTime) {
        let mut l = self.line();
        let end = end.max(grant);
        l.stats.busy_ns += end.0 - grant.0;
        l.owned = false;
        l.free_at = l.free_at.max(end);
    }

    pub fn stats(&self) -> BusStats {
        self.line().stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asks until granted, polling at the instants the bus gives.
    fn granted(bus: &SharedBus, at: SimTime, who: u32, slot: u32) -> SimTime {
        let mut t = at;
        loop {
            match bus.request(t, who, slot) {
                Grant::At(g) => return g,
                Grant::Wait(p) => {
                    assert!(p > t);
                    t = p;
                }
            }
        }
    }

    #[test]
    fn a_free_bus_is_granted_from_the_request_an_owned_one_at_its_release() {
        let bus = SharedBus::new("b", 0);
        // Free: decided once the instant has passed, granted from the request.
        assert_eq!(bus.request(SimTime(10), 1, 1), Grant::Wait(SimTime(11)));
        assert_eq!(bus.request(SimTime(11), 1, 1), Grant::At(SimTime(10)));
        bus.release(SimTime(10), SimTime(50));
        // Asked while owned: told to come back after the release.
        assert_eq!(bus.request(SimTime(20), 2, 2), Grant::Wait(SimTime(51)));
        assert_eq!(bus.request(SimTime(51), 2, 2), Grant::At(SimTime(50)));
        bus.release(SimTime(50), SimTime(60));
        // Asked after: from its own instant.
        assert_eq!(granted(&bus, SimTime(70), 1, 1), SimTime(70));
        bus.release(SimTime(70), SimTime(70));
        let s = bus.stats();
        assert_eq!((s.grants, s.waits, s.wait_ns), (3, 1, 30));
        assert_eq!(s.busy_ns, 40 + 10);
    }

    /// Two disks that finish reading one sector together ask a free bus at one
    /// instant: the higher slot has it, whichever asked or polls first; two commands
    /// (slot 0) at one instant go in the order they were made.
    #[test]
    fn requests_at_one_instant_on_a_free_bus_are_arbitrated_together() {
        for first in [1, 2] {
            let bus = SharedBus::new("b", 0);
            for who in [first, 3 - first] {
                assert_eq!(
                    bus.request(SimTime(100), who, who),
                    Grant::Wait(SimTime(101))
                );
            }
            // Slot 1 polls first and loses.
            assert_eq!(bus.request(SimTime(101), 1, 1), Grant::Wait(SimTime(102)));
            assert_eq!(bus.request(SimTime(101), 2, 2), Grant::At(SimTime(100)));
            bus.release(SimTime(100), SimTime(130));
            assert_eq!(granted(&bus, SimTime(102), 1, 1), SimTime(130), "{first}");
        }
        let bus = SharedBus::new("b", 0);
        assert_eq!(bus.request(SimTime(100), 7, 0), Grant::Wait(SimTime(101)));
        assert_eq!(bus.request(SimTime(100), 8, 0), Grant::Wait(SimTime(101)));
        assert_eq!(bus.request(SimTime(101), 8, 0), Grant::Wait(SimTime(102)));
        assert_eq!(bus.request(SimTime(101), 7, 0), Grant::At(SimTime(100)));
        bus.release(SimTime(100), SimTime(110));
        assert_eq!(granted(&bus, SimTime(102), 8, 0), SimTime(110));
    }

    #[test]
    fn the_highest_slot_among_the_waiters_wins_when_the_bus_frees() {
        for arbitration in [Arbitration::SlotPriority, Arbitration::Fifo] {
            let bus = SharedBus::new("b", 0).with_arbitration(arbitration);
            assert_eq!(granted(&bus, SimTime(0), 9, 0), SimTime(0));
            bus.release(SimTime(0), SimTime(100));
            // Three wait, slot 1 first, slot 3 last.
            for (who, slot, at) in [(1, 1, 10), (2, 0, 20), (3, 3, 30)] {
                assert_eq!(
                    bus.request(SimTime(at), who, slot),
                    Grant::Wait(SimTime(101))
                );
            }
            // Whoever polls first after the release, the decision is the same.
            let order: Vec<u32> = match arbitration {
                Arbitration::SlotPriority => vec![3, 1, 2],
                Arbitration::Fifo => vec![1, 2, 3],
            };
            let loser = *order.last().unwrap();
            assert_eq!(
                bus.request(SimTime(101), loser, 0),
                Grant::Wait(SimTime(102))
            );
            let mut end = SimTime(100);
            for &who in &order {
                let slot = [0, 1, 0, 3][who as usize];
                let g = granted(&bus, end, who, slot);
                assert_eq!(g, end, "{arbitration:?} {who}");
                end = g + 40;
                bus.release(g, end);
            }
        }
    }

    #[test]
    fn a_request_made_after_the_release_waits_for_the_next_decision() {
        let bus = SharedBus::new("b", 0);
        assert_eq!(granted(&bus, SimTime(0), 1, 1), SimTime(0));
        bus.release(SimTime(0), SimTime(100));
        assert_eq!(bus.request(SimTime(50), 2, 1), Grant::Wait(SimTime(101)));
        // Slot 4 asks after the release, before slot 1 has polled: too late for it.
        assert_eq!(bus.request(SimTime(120), 3, 4), Grant::Wait(SimTime(121)));
        assert_eq!(bus.request(SimTime(120), 2, 1), Grant::At(SimTime(100)));
        bus.release(SimTime(100), SimTime(150));
        assert_eq!(bus.request(SimTime(121), 3, 4), Grant::Wait(SimTime(151)));
        assert_eq!(bus.request(SimTime(151), 3, 4), Grant::At(SimTime(150)));
    }

    #[test]
    fn arbitration_time_delays_every_grant() {
        let bus = SharedBus::new("b", 5);
        assert_eq!(granted(&bus, SimTime(10), 1, 1), SimTime(15));
        bus.release(SimTime(15), SimTime(15));
        assert_eq!(granted(&bus, SimTime(12), 2, 1), SimTime(20));
    }

    #[test]
    fn a_reconnection_granted_late_ends_late() {
        let r = Reconnect {
            at: SimTime(100),
            done: SimTime(200),
            avail: Vec::new(),
            pre_ns: 0,
            block_ns: 10,
            complete_ns: 5,
        };
        assert_eq!(r.done_if_granted(SimTime(100)), SimTime(200));
        assert_eq!(r.done_if_granted(SimTime(130)), SimTime(230));
        // Holding the bus for the whole read: blocks not yet in the buffer pace it.
        let r = Reconnect {
            avail: vec![SimTime(100), SimTime(150), SimTime(160)],
            ..r
        };
        // 100→110, waits for 150→160, 160→170, then the completion overhead.
        assert_eq!(r.done_if_granted(SimTime(100)), SimTime(175));
        assert_eq!(r.done_if_granted(SimTime(200)), SimTime(200 + 30 + 5));
    }
}
