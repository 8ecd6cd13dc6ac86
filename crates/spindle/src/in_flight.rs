//! When each request in the stack arrived, keyed by request index: the engine's one
//! record of a request between its arrival and its completion (the completion itself
//! says what the request was).
//!
//! Indexes are handed out in increasing order, and most requests finish within a short
//! window of those issued after them, so the table is a ring of arrival times for a
//! window of consecutive indexes: an insert writes the next slot (memory in order), a
//! removal reads one 8-byte slot. A hash map of whole records would touch a random,
//! larger place for both, which a long queue (an overloaded drive holds 170,000
//! requests) pays for in cache misses on every request. A request that stays while the
//! window moves on (a scheduler that starves it) moves to a map of stragglers once the
//! window has grown past [`SPARSE`] times the requests it holds, so memory stays
//! proportional to the requests in flight however long one of them waits.

use crate::time::SimTime;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// The window may span this many times the requests it holds (plus [`SLACK`]) before
/// its oldest entries move to the stragglers' map.
const SPARSE: usize = 4;
/// Slots a window may always span (a short queue never moves anything).
const SLACK: usize = 4096;
/// An index this far beyond the window's end goes to the map instead of stretching the
/// window over empty slots.
const MAX_GAP: u64 = 1 << 16;

/// A window slot with no request in flight (no arrival is this late).
const EMPTY: u64 = u64::MAX;

/// Arrival times of the requests in flight, by index (see the module documentation).
#[derive(Debug, Default)]
pub struct InFlightTable {
    /// The index of `window[0]`.
    base: u64,
    /// Arrival time (ns) of each index from `base` on, or [`EMPTY`].
    window: VecDeque<u64>,
    /// Occupied slots of `window`.
    held: usize,
    stragglers: FxHashMap<u64, SimTime>,
}

impl InFlightTable {
    pub fn len(&self) -> usize {
        self.held + self.stragglers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds request `index`, which must not be in flight already (the engine hands out
    /// each index once).
    #[inline]
    pub fn insert(&mut self, index: u64, arrival: SimTime) {
        if self.held == 0 {
            // An empty window starts again where the requests are.
            self.window.clear();
            self.base = index;
        }
        // Below the window, an index wraps to a huge offset.
        let at = index.wrapping_sub(self.base);
        let len = self.window.len() as u64;
        // The last nanosecond cannot be told from an empty slot: kept aside.
        if at == len && arrival.0 != EMPTY {
            // The usual case: the next index in line.
            self.window.push_back(arrival.0);
        } else if at < len.saturating_add(MAX_GAP) && arrival.0 != EMPTY {
            let at = at as usize;
            while self.window.len() <= at {
                self.window.push_back(EMPTY);
            }
            debug_assert!(self.window[at] == EMPTY, "request {index} entered twice");
            self.window[at] = arrival.0;
        } else {
            let before = self.stragglers.insert(index, arrival);
            debug_assert!(before.is_none(), "request {index} entered twice");
            return;
        }
        self.held += 1;
        if self.window.len() > SPARSE * self.held + SLACK {
            self.move_oldest();
        }
    }

    /// Removes request `index` and returns its arrival time.
    #[inline]
    pub fn remove(&mut self, index: u64) -> Option<SimTime> {
        let at = index.wrapping_sub(self.base);
        if let Some(slot) = usize::try_from(at)
            .ok()
            .and_then(|at| self.window.get_mut(at))
        {
            if *slot != EMPTY {
                let arrival = SimTime(std::mem::replace(slot, EMPTY));
                self.held -= 1;
                if at == 0 {
                    self.trim();
                }
                return Some(arrival);
            }
        }
        if self.stragglers.is_empty() {
            return None;
        }
        self.stragglers.remove(&index)
    }

    /// Drops the window's empty slots at its start.
    fn trim(&mut self) {
        while self.window.front() == Some(&EMPTY) {
            self.window.pop_front();
            self.base += 1;
        }
    }

    /// Moves the oldest half of the window's requests to the stragglers' map.
    fn move_oldest(&mut self) {
        let keep = self.window.len() / 2;
        while self.window.len() > keep {
            if let Some(arrival) = self.window.pop_front().filter(|&a| a != EMPTY) {
                self.stragglers.insert(self.base, SimTime(arrival));
                self.held -= 1;
            }
            self.base += 1;
        }
        self.trim();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        /// Any inserts and removes (new indexes mostly next in line, some far behind
        /// or beyond the window) give the same answers as a hash map.
        #[test]
        fn agrees_with_a_map(ops in proptest::collection::vec((0u8..4, 0u64..3_000, any::<u64>()), 0..4_000)) {
            let mut t = InFlightTable::default();
            let mut m = HashMap::new();
            let mut next = 10_000_000u64;
            for (op, back, v) in ops {
                match op {
                    0 => {
                        next += 1 + v % 4;
                        t.insert(next, SimTime(v));
                        m.insert(next, SimTime(v));
                    }
                    1 => {
                        // Far behind, or beyond the window (indexes never repeat).
                        let index = if v % 2 == 0 { back } else { next + 4 * MAX_GAP + back };
                        if let std::collections::hash_map::Entry::Vacant(e) = m.entry(index) {
                            t.insert(index, SimTime(v));
                            e.insert(SimTime(v));
                        }
                    }
                    _ => {
                        let index = next.saturating_sub(back % 200);
                        prop_assert_eq!(t.remove(index), m.remove(&index));
                    }
                }
                prop_assert_eq!(t.len(), m.len());
            }
            for (k, v) in m.drain() {
                prop_assert_eq!(t.remove(k), Some(v));
            }
            prop_assert!(t.is_empty());
        }
    }

    #[test]
    fn a_starved_request_leaves_the_window_and_memory_stays_bounded() {
        let mut t = InFlightTable::default();
        t.insert(0, SimTime(7));
        for i in 1..1_000_000u64 {
            t.insert(i, SimTime(i));
            assert_eq!(t.remove(i), Some(SimTime(i)));
        }
        assert!(t.window.len() <= SLACK + 2, "window {}", t.window.len());
        assert_eq!(t.remove(0), Some(SimTime(7)));
        t.insert(5, SimTime(u64::MAX));
        assert_eq!(t.remove(5), Some(SimTime(u64::MAX)));
        assert!(t.is_empty());
    }
}
