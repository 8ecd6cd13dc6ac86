//! DiskSim's device-driver queue (`disksim_ioqueue` inside `disksim_iodriver`) for one
//! disk: a base queue and, with `Scheduling priority scheme = 1`, a priority queue
//! that holds the time-critical and time-limited requests and is always served first
//! (DiskSim's "two queue" scheme). Each is scheduled by its own policy. Requests go
//! to the disk while fewer than `depth` are out there.
//!
//! spindle's requests carry no class, so the generator that issues them tells the
//! queue which request numbers are urgent ([`Urgent`]), shared through one handle.

use crate::disk::drive::Drive;
use crate::disk::hdd::{Hdd, Request};
use crate::node::{tree_line, Device, Done, NodeReport};
use crate::sched::{HostQueue, SchedulerKind};
use crate::time::SimTime;

pub use crate::workload::synth::Urgent;

/// The start of a driver queue's report kind; its label follows.
pub const DRIVER_QUEUE_KIND: &str = "disksim driver queue for ";

/// One disk's driver queue.
pub struct DriverQueue {
    base: HostQueue,
    /// With a priority scheme: the queue for urgent requests, and who they are.
    priority: Option<(HostQueue, Urgent)>,
    child: Box<dyn Device>,
    depth: usize,
    /// Requests accepted and not yet completed.
    accepted: usize,
    /// Requests out at the disk: id, when it was sent and when it reached this queue.
    sent: crate::idmap::IdMap<(SimTime, SimTime)>,
    /// Requests whose completion the caller answers with a request of its own here
    /// ([`Device::follow_up`]).
    followed: rustc_hash::FxHashSet<u64>,
    /// Set when such a request completed: the next choice waits for this instant's
    /// submissions (a zero-time wake).
    hold: Option<SimTime>,
    /// What the queue reports itself as (the disk it serves).
    label: String,
    /// Requests completed through it and their summed response time (arrival here to
    /// completion), DiskSim's per-device "Response time average".
    completed: u64,
    response_ns: u128,
}

impl DriverQueue {
    /// `base` (and `priority`, with the urgent set) in front of `child`, keeping at most
    /// `depth` requests at it.
    pub fn new(
        child: Box<dyn Device>,
        base: (SchedulerKind, Option<f64>),
        priority: Option<(SchedulerKind, Urgent)>,
        depth: u32,
    ) -> DriverQueue {
        DriverQueue {
            base: HostQueue::new(base.0, base.1).with_position_at_start(),
            priority: priority.map(|(k, u)| (HostQueue::new(k, None).with_position_at_start(), u)),
            child,
            depth: depth.max(1) as usize,
            accepted: 0,
            sent: Default::default(),
            followed: Default::default(),
            hold: None,
            label: String::new(),
            completed: 0,
            response_ns: 0,
        }
    }

    /// Names the queue in its report after the disk it serves.
    pub fn with_label(mut self, label: &str) -> DriverQueue {
        self.label = label.to_string();
        self
    }

    fn dispatch(&mut self, now: SimTime) {
        while self.child.outstanding() < self.depth {
            let from_priority = self.priority.as_mut().and_then(|(q, _)| q.pop(None, now));
            let Some(w) = from_priority.or_else(|| self.base.pop(None, now)) else {
                break;
            };
            self.sent.insert(w.req.id, (now, w.since));
            self.child.submit(now, w.req);
        }
    }
}

impl Device for DriverQueue {
    fn capacity(&self) -> u64 {
        self.child.capacity()
    }

    fn outstanding(&self) -> usize {
        self.accepted
    }

    fn can_accept(&self) -> bool {
        true
    }

    fn submit(&mut self, now: SimTime, req: Request) {
        self.accepted += 1;
        match &mut self.priority {
            Some((q, urgent)) if urgent.borrow_mut().remove(&req.id) => q.push(req, now),
            _ => self.base.push(req, now),
        }
        // A request arriving chooses at once, the held choice included (DiskSim's
        // `handle_new_request`).
        self.hold = None;
        self.dispatch(now);
    }

    fn next_wake(&self) -> Option<SimTime> {
        match (self.child.next_wake(), self.hold) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn follow_up(&mut self, id: u64) {
        self.followed.insert(id);
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        if self.child.next_wake().is_none_or(|t| t > now) {
            // The held choice: nothing came for this device at that instant.
            self.hold = None;
            self.dispatch(now);
            return;
        }
        // The child appends its completions to `out`; they are completed in place
        // (not copied through a buffer of our own).
        let first = out.len();
        self.child.wake(now, out);
        let mut held = false;
        for d in &mut out[first..] {
            // (Most requests are followed by none: skip the lookup then.)
            held |= !self.followed.is_empty() && self.followed.remove(&d.req.id);
            if let Some((at, arrived)) = self.sent.remove(&d.req.id) {
                self.accepted -= 1;
                self.completed += 1;
                self.response_ns += u128::from(d.done.0.saturating_sub(arrived.0));
                d.dispatch = d.dispatch.or(Some(at));
            }
        }
        if held {
            self.hold = Some(now);
        } else {
            self.hold = None;
            self.dispatch(now);
        }
    }

    fn oracle(&self) -> Option<&Hdd> {
        None
    }

    fn drive(&self) -> Option<&Drive> {
        self.child.drive()
    }

    fn drive_mut(&mut self) -> Option<&mut Drive> {
        self.child.drive_mut()
    }

    fn describe(&self, depth: usize, out: &mut String) {
        let pri = match &self.priority {
            Some((q, _)) => format!(", urgent requests first by {}", q.kind().name()),
            None => String::new(),
        };
        tree_line(
            depth,
            out,
            &format!(
                "disksim driver queue: {}{pri}, {} at the disk",
                self.base.kind().name(),
                self.depth
            ),
        );
        self.child.describe(depth + 1, out);
    }

    fn report_until(&self, path: &str, end: SimTime, out: &mut Vec<NodeReport>) {
        let mean_ms = if self.completed == 0 {
            0.0
        } else {
            self.response_ns as f64 / self.completed as f64 / 1e6
        };
        out.push(NodeReport {
            path: path.to_string(),
            kind: format!("{DRIVER_QUEUE_KIND}{}", self.label),
            reads: 0,
            writes: 0,
            busy_ns: 0,
            extra: vec![
                ("completed".into(), self.completed.to_string()),
                ("mean response ms".into(), format!("{mean_ms:.6}")),
            ],
            is_drive: false,
        });
        self.child.report_until(path, end, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serves what it is given in order, 1 ms each.
    #[derive(Default)]
    struct Fifo {
        busy: std::collections::VecDeque<(SimTime, Request)>,
    }

    impl Device for Fifo {
        fn capacity(&self) -> u64 {
            1 << 30
        }
        fn outstanding(&self) -> usize {
            self.busy.len()
        }
        fn can_accept(&self) -> bool {
            true
        }
        fn submit(&mut self, now: SimTime, req: Request) {
            let start = self.busy.back().map_or(now, |b| b.0.max(now));
            self.busy.push_back((SimTime(start.0 + 1_000_000), req));
        }
        fn next_wake(&self) -> Option<SimTime> {
            self.busy.front().map(|b| b.0)
        }
        fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
            while self.busy.front().is_some_and(|b| b.0 <= now) {
                let (t, req) = self.busy.pop_front().unwrap();
                out.push(Done::served(req, SimTime(t.0 - 1_000_000), t));
            }
        }
        fn describe(&self, _depth: usize, _out: &mut String) {}
        fn report_until(&self, _: &str, _: SimTime, _: &mut Vec<NodeReport>) {}
    }

    fn req(id: u64, lbn: u64) -> Request {
        Request {
            id,
            lbn,
            blocks: 8,
            write: false,
        }
    }

    /// The order in which requests 0..=3 complete, request 3 urgent.
    fn order(priority: bool) -> Vec<u64> {
        let urgent = Urgent::default();
        urgent.borrow_mut().insert(3);
        let mut q = DriverQueue::new(
            Box::new(Fifo::default()),
            (SchedulerKind::Fcfs, None),
            priority.then(|| (SchedulerKind::Fcfs, urgent.clone())),
            1,
        );
        for (id, lbn) in [(0, 100), (1, 200), (2, 300), (3, 50)] {
            q.submit(SimTime::ZERO, req(id, lbn));
        }
        let mut done = Vec::new();
        while let Some(t) = q.next_wake() {
            let mut out = Vec::new();
            q.wake(t, &mut out);
            done.extend(out.iter().map(|d| d.req.id));
        }
        assert_eq!(q.outstanding(), 0);
        done
    }

    #[test]
    fn urgent_requests_go_first_only_with_a_priority_queue() {
        // Request 0 went to the disk at once; 3, urgent, overtakes 1 and 2.
        assert_eq!(order(true), [0, 3, 1, 2]);
        assert_eq!(order(false), [0, 1, 2, 3]);
    }

    /// DiskSim's C-LOOK sweeps on from where the last request started, and a request
    /// the caller announced with `follow_up` is in the queue before the next choice:
    /// a write of the block just read goes before a queued request further on. Without
    /// the announcement the queued request goes first.
    #[test]
    fn a_followed_read_lets_its_write_go_next() {
        for follow in [true, false] {
            let mut q = DriverQueue::new(
                Box::new(Fifo::default()),
                (SchedulerKind::CLook, None),
                None,
                1,
            );
            q.submit(SimTime::ZERO, req(0, 100));
            if follow {
                q.follow_up(0);
            }
            q.submit(SimTime::ZERO, req(1, 500));
            let mut order = Vec::new();
            while let Some(t) = q.next_wake() {
                let mut out = Vec::new();
                q.wake(t, &mut out);
                for d in &out {
                    order.push(d.req.id);
                    if d.req.id == 0 {
                        // The caller answers the read with a write of the same block.
                        q.submit(
                            t,
                            Request {
                                id: 2,
                                write: true,
                                ..req(2, 100)
                            },
                        );
                    }
                }
            }
            let want: &[u64] = if follow { &[0, 2, 1] } else { &[0, 1, 2] };
            assert_eq!(order, want, "follow {follow}");
        }
    }
}
