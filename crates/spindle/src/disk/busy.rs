//! A drive's busy time: the union of the intervals it works in. A request's service
//! and a write-cache destage may overlap (the interface takes a write into the cache
//! while the media writes an older one), so adding them up would count such time
//! twice and put a drive's utilization above 100 %.

use crate::time::SimTime;

/// The union of busy intervals, in memory for the few that may still overlap a later
/// one. Intervals before the last [`BusyTime::settle`] point are final; a later
/// interval reaching back before it is counted from there on.
#[derive(Clone, Debug, Default)]
pub struct BusyTime {
    /// Busy time before `settled`, ns.
    settled_ns: u64,
    settled: u64,
    /// Disjoint intervals at or after `settled`, in order.
    open: Vec<(u64, u64)>,
}

impl BusyTime {
    /// Adds the interval `start..end`.
    pub fn add(&mut self, start: SimTime, end: SimTime) {
        let (mut s, mut e) = (start.0.max(self.settled), end.0);
        if e <= s {
            return;
        }
        // Merge with every open interval it touches.
        let mut i = 0;
        while i < self.open.len() {
            let (a, b) = self.open[i];
            if b < s || a > e {
                i += 1;
                continue;
            }
            s = s.min(a);
            e = e.max(b);
            self.open.remove(i);
        }
        let at = self.open.partition_point(|&(a, _)| a < s);
        self.open.insert(at, (s, e));
    }

    /// No interval added from now on starts before `t`: what ends by then is final.
    pub fn settle(&mut self, t: SimTime) {
        let done = self.open.partition_point(|&(_, b)| b <= t.0);
        for (a, b) in self.open.drain(..done) {
            self.settled_ns += b - a;
        }
        let first_open = self.open.first().map_or(u64::MAX, |&(a, _)| a);
        self.settled = self.settled.max(t.0.min(first_open));
    }

    /// Busy time so far, ns.
    pub fn total_ns(&self) -> u64 {
        self.total_ns_until(SimTime(u64::MAX))
    }

    /// Busy time before `t`, ns (`t` at or after the last settle point).
    pub fn total_ns_until(&self, t: SimTime) -> u64 {
        let open: u64 = self
            .open
            .iter()
            .map(|&(a, b)| b.min(t.0).saturating_sub(a))
            .sum();
        self.settled_ns + open
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the order and overlap, the total is the union's length: never
        /// more than the span the intervals cover, never less than the longest.
        #[test]
        fn the_total_is_the_union(spans in proptest::collection::vec((0u64..1000, 0u64..100), 0..40)) {
            let mut b = BusyTime::default();
            let mut covered = vec![false; 1100];
            for &(s, len) in &spans {
                b.add(SimTime(s), SimTime(s + len));
                for c in &mut covered[s as usize..(s + len) as usize] {
                    *c = true;
                }
            }
            prop_assert_eq!(b.total_ns(), covered.iter().filter(|&&c| c).count() as u64);
        }
    }

    #[test]
    fn settled_time_stays_counted_and_late_intervals_are_not_counted_twice() {
        let mut b = BusyTime::default();
        b.add(SimTime(0), SimTime(10));
        b.add(SimTime(5), SimTime(20));
        b.settle(SimTime(20));
        assert_eq!(b.total_ns(), 20);
        assert!(b.open.is_empty());
        // An interval reaching back into settled time counts only from there on.
        b.add(SimTime(15), SimTime(30));
        assert_eq!(b.total_ns(), 30);
        // One still running at the settle point stays open.
        b.add(SimTime(40), SimTime(60));
        b.settle(SimTime(50));
        b.add(SimTime(45), SimTime(70));
        assert_eq!(b.total_ns(), 30 + 30);
        assert_eq!(b.total_ns_until(SimTime(55)), 30 + 15);
    }
}
