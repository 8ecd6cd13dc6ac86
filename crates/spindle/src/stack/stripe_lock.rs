//! A stripe lock: writes that touch a common stripe row of the array below go one at a
//! time, in the order they arrived, as a RAID-5 controller must order the parity updates
//! of one stripe. Two read-modify-writes of one stripe running together would each
//! compute the new parity from the old one, and the later would undo the earlier's
//! update; a controller (hardware or md's stripe cache) therefore holds a write until
//! the earlier writes of its rows are done. Reads pass at once.
//!
//! The array model below times requests but does not order them (DiskSim's logorg does
//! not either, and the DiskSim suite must match it), so this ordering is a part of its
//! own, put above an array where a run needs a controller's behaviour:
//!
//! ```toml
//! [[layer]]
//! kind = "stripe-lock"
//! stripe-kib = 48   # the data of one row: 3 data members × 16 KiB
//! ```
//!
//! A write waits while any of its rows is held by a write below or wanted by an earlier
//! waiting write, so the writes of one row keep their order and none waits behind a
//! later one. Limits: a row is `stripe-kib` within 1..=[`MAX_STRIPE_KIB`]; waiting
//! writes are those the stack above has outstanding, at most [`MAX_WAITING`] (more is a
//! failure of the part, reported at the end of the run, never an unbounded queue).

use super::layer::{Layer, LayerIo};
use crate::disk::hdd::Request;
use crate::node::{Done, NodeReport};
use crate::time::SimTime;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Largest stripe row, KiB (64 MiB).
pub const MAX_STRIPE_KIB: u64 = 64 << 10;
/// Most writes waiting at once.
pub const MAX_WAITING: usize = 1 << 20;

/// `[[layer]] kind = "stripe-lock"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct StripeLockSpec {
    /// Data of one stripe row, KiB.
    pub stripe_kib: u64,
}

impl StripeLockSpec {
    pub fn build(&self) -> Result<StripeLock, String> {
        if !(1..=MAX_STRIPE_KIB).contains(&self.stripe_kib) {
            return Err(format!(
                "stripe-lock stripe-kib must be within 1..={MAX_STRIPE_KIB}, got {}",
                self.stripe_kib
            ));
        }
        Ok(StripeLock {
            row_sectors: self.stripe_kib * 2,
            held: FxHashSet::default(),
            waiting: VecDeque::new(),
            writing: FxHashMap::default(),
            reads: 0,
            stats: Stats::default(),
            failure: None,
        })
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    writes: u64,
    reads: u64,
    /// Writes that had to wait for an earlier write of one of their rows.
    held_back: u64,
    max_waiting: usize,
}

pub struct StripeLock {
    row_sectors: u64,
    /// Rows a write below is updating.
    held: FxHashSet<u64>,
    /// Writes waiting, in arrival order.
    waiting: VecDeque<Request>,
    /// Writes below, by id.
    writing: FxHashMap<u64, Request>,
    /// Reads below.
    reads: usize,
    stats: Stats,
    failure: Option<String>,
}

impl StripeLock {
    /// The stripe rows `req` touches.
    fn rows(&self, req: &Request) -> std::ops::RangeInclusive<u64> {
        let end = req.lbn + u64::from(req.blocks.max(1));
        req.lbn / self.row_sectors..=(end - 1) / self.row_sectors
    }

    /// Sends below every waiting write whose rows are neither held nor wanted by an
    /// earlier waiting write.
    fn admit(&mut self, io: &mut LayerIo) {
        let mut wanted: FxHashSet<u64> = FxHashSet::default();
        let mut still = VecDeque::with_capacity(self.waiting.len());
        while let Some(w) = self.waiting.pop_front() {
            let rows = self.rows(&w);
            if rows
                .clone()
                .any(|r| self.held.contains(&r) || wanted.contains(&r))
            {
                wanted.extend(rows);
                still.push_back(w);
            } else {
                self.held.extend(rows);
                self.writing.insert(w.id, w);
                io.below.push(w);
            }
        }
        self.waiting = still;
    }
}

impl Layer for StripeLock {
    fn on_request(&mut self, _now: SimTime, req: Request, io: &mut LayerIo) {
        if !req.write {
            self.stats.reads += 1;
            self.reads += 1;
            io.below.push(req);
            return;
        }
        self.stats.writes += 1;
        if self.waiting.len() >= MAX_WAITING {
            self.failure.get_or_insert_with(|| {
                format!("stripe-lock: more than {MAX_WAITING} writes waiting")
            });
            return;
        }
        self.waiting.push_back(req);
        self.admit(io);
        // Still waiting (ids are unique among requests outstanding): held back.
        if self.waiting.back().is_some_and(|w| w.id == req.id) {
            self.stats.held_back += 1;
        }
        self.stats.max_waiting = self.stats.max_waiting.max(self.waiting.len());
    }

    fn on_complete(&mut self, _now: SimTime, done: &Done, io: &mut LayerIo) {
        match self.writing.remove(&done.req.id) {
            Some(w) => {
                for r in self.rows(&w) {
                    self.held.remove(&r);
                }
                io.up.push(*done);
                self.admit(io);
            }
            None => {
                self.reads = self.reads.saturating_sub(1);
                io.up.push(*done);
            }
        }
    }

    fn on_timer(&mut self, _now: SimTime, _token: u64, _io: &mut LayerIo) {}

    fn outstanding(&self) -> usize {
        self.waiting.len() + self.writing.len() + self.reads
    }

    fn failure(&self) -> Option<String> {
        self.failure.clone()
    }

    fn describe(&self) -> String {
        format!(
            "stripe-lock (writes of one {} KiB stripe row one at a time)",
            self.row_sectors / 2
        )
    }

    fn report(&self, path: &str) -> NodeReport {
        let s = &self.stats;
        NodeReport {
            path: path.to_string(),
            kind: "stripe-lock".into(),
            reads: s.reads,
            writes: s.writes,
            busy_ns: 0,
            extra: vec![
                ("writes held back".into(), s.held_back.to_string()),
                ("most writes waiting".into(), s.max_waiting.to_string()),
            ],
            is_drive: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(id: u64, lbn: u64, blocks: u32) -> Request {
        Request {
            id,
            lbn,
            blocks,
            write: true,
        }
    }

    fn lock() -> StripeLock {
        StripeLockSpec { stripe_kib: 48 }.build().expect("valid")
    }

    fn done(req: Request) -> Done {
        Done::served(req, SimTime(0), SimTime(1))
    }

    #[test]
    fn refuses_a_stripe_outside_its_limits() {
        assert!(StripeLockSpec { stripe_kib: 0 }.build().is_err());
        assert!(StripeLockSpec {
            stripe_kib: MAX_STRIPE_KIB + 1
        }
        .build()
        .is_err());
    }

    #[test]
    fn writes_of_one_row_go_one_at_a_time_in_order_and_others_pass() {
        let mut l = lock();
        let mut io = LayerIo::default();
        let t = SimTime(0);
        // Row 0 is sectors 0..96.
        l.on_request(t, write(1, 0, 88), &mut io); // row 0
        l.on_request(t, write(2, 88, 8), &mut io); // row 0: waits
        l.on_request(t, write(3, 96, 8), &mut io); // row 1: passes
        l.on_request(t, write(4, 90, 10), &mut io); // rows 0 and 1: waits
        l.on_request(t, write(5, 200, 8), &mut io); // row 2: passes
        let ids: Vec<u64> = io.below.drain(..).map(|r| r.id).collect();
        assert_eq!(ids, [1, 3, 5]);
        assert_eq!(l.outstanding(), 5);
        // 3 done: row 1 free, but 4 also wants row 0, held by 1.
        l.on_complete(t, &done(write(3, 96, 8)), &mut io);
        assert!(io.below.is_empty());
        // 1 done: 2 goes; 4 waits for 2 (row 0), not overtaking it.
        l.on_complete(t, &done(write(1, 0, 88)), &mut io);
        let ids: Vec<u64> = io.below.drain(..).map(|r| r.id).collect();
        assert_eq!(ids, [2]);
        l.on_complete(t, &done(write(2, 88, 8)), &mut io);
        let ids: Vec<u64> = io.below.drain(..).map(|r| r.id).collect();
        assert_eq!(ids, [4]);
        let up: Vec<u64> = io.up.iter().map(|d| d.req.id).collect();
        assert_eq!(up, [3, 1, 2]);
        assert_eq!(l.stats.held_back, 2);
    }

    #[test]
    fn a_later_write_never_overtakes_an_earlier_waiting_one_on_its_row() {
        let mut l = lock();
        let mut io = LayerIo::default();
        let t = SimTime(0);
        l.on_request(t, write(1, 96, 8), &mut io); // row 1
        l.on_request(t, write(2, 90, 10), &mut io); // rows 0 and 1: waits for 1
        l.on_request(t, write(3, 0, 8), &mut io); // row 0: free, but 2 wants it first
        let ids: Vec<u64> = io.below.drain(..).map(|r| r.id).collect();
        assert_eq!(ids, [1]);
        l.on_complete(t, &done(write(1, 96, 8)), &mut io);
        let ids: Vec<u64> = io.below.drain(..).map(|r| r.id).collect();
        assert_eq!(ids, [2]);
        l.on_complete(t, &done(write(2, 90, 10)), &mut io);
        let ids: Vec<u64> = io.below.drain(..).map(|r| r.id).collect();
        assert_eq!(ids, [3]);
    }

    #[test]
    fn reads_pass_a_held_row() {
        let mut l = lock();
        let mut io = LayerIo::default();
        l.on_request(SimTime(0), write(1, 0, 8), &mut io);
        l.on_request(
            SimTime(0),
            Request {
                id: 2,
                lbn: 0,
                blocks: 8,
                write: false,
            },
            &mut io,
        );
        assert_eq!(io.below.len(), 2);
        assert_eq!(l.outstanding(), 2);
    }
}
