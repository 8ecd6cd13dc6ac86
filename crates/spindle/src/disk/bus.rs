//! A bus several drives share, one owner at a time (DiskSim's exclusive bus,
//! `disksim_bus` type 1), as DiskSim's disks use it: the command reaches a drive only
//! once the bus is free, and the drive keeps the bus through its command overhead (a
//! write also through its data transfer) until it disconnects; to send read data or a
//! completion it reconnects, waiting again for the bus, and keeps it to the end (the
//! read data and the completion overhead).
//!
//! The bus is a shared resource of the device tree, not a node of its own: every
//! drive on it holds a handle ([`SharedBus`]) and asks for the bus at the instant it
//! needs it ([`crate::disk::Drive`] asks for a read's reconnection when that instant
//! comes, as a wake of its own). The engine steps in time order, so requests reach
//! the bus in time order and it grants them first come first served; DiskSim's
//! arbitration picks the highest slot among those waiting at the instant the bus
//! frees, which differs only among requests that waited at once.

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

#[derive(Debug)]
struct Line {
    name: String,
    /// When the current owner lets it go.
    free_at: SimTime,
    arbitration_ns: u64,
    stats: BusStats,
}

/// A handle on one shared bus; clones are the same bus.
#[derive(Clone, Debug)]
pub struct SharedBus(Arc<Mutex<Line>>);

impl SharedBus {
    /// A free bus named `name` whose grants take `arbitration_ns` after it frees.
    pub fn new(name: impl Into<String>, arbitration_ns: u64) -> SharedBus {
        SharedBus(Arc::new(Mutex::new(Line {
            name: name.into(),
            free_at: SimTime::ZERO,
            arbitration_ns,
            stats: BusStats::default(),
        })))
    }

    fn line(&self) -> std::sync::MutexGuard<'_, Line> {
        // A poisoned lock means a panic elsewhere already ended the run.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn name(&self) -> String {
        self.line().name.clone()
    }

    /// Ownership asked for at `t`: granted once the current owner is done, after the
    /// arbitration time. The caller then [`release`](Self::release)s it.
    pub fn acquire(&self, t: SimTime) -> SimTime {
        let mut l = self.line();
        let from = t.max(l.free_at);
        let grant = from + l.arbitration_ns;
        l.stats.grants += 1;
        if from > t {
            l.stats.waits += 1;
        }
        l.stats.wait_ns += grant.0 - t.0;
        // Owned from the moment it was free for this request.
        l.free_at = grant;
        l.stats.busy_ns += grant.0 - from.0;
        grant
    }

    /// The owner granted at `grant` lets the bus go at `end`.
    pub fn release(&self, grant: SimTime, end: SimTime) {
        let mut l = self.line();
        let end = end.max(grant);
        l.stats.busy_ns += end.0 - grant.0;
        l.free_at = l.free_at.max(end);
    }

    pub fn stats(&self) -> BusStats {
        self.line().stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_follow_one_another_first_come_first_served() {
        let bus = SharedBus::new("b", 0);
        let g = bus.acquire(SimTime(10));
        assert_eq!(g, SimTime(10));
        bus.release(g, SimTime(50));
        // Asked while owned: waits for the release.
        let g2 = bus.acquire(SimTime(20));
        assert_eq!(g2, SimTime(50));
        bus.release(g2, SimTime(60));
        // Asked after: at once.
        assert_eq!(bus.acquire(SimTime(70)), SimTime(70));
        let s = bus.stats();
        assert_eq!((s.grants, s.waits, s.wait_ns), (3, 1, 30));
        assert_eq!(s.busy_ns, 40 + 10);
    }

    #[test]
    fn arbitration_time_delays_every_grant() {
        let bus = SharedBus::new("b", 5);
        let g = bus.acquire(SimTime(10));
        assert_eq!(g, SimTime(15));
        bus.release(g, SimTime(15));
        assert_eq!(bus.acquire(SimTime(12)), SimTime(20));
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
