//! What a trace holds, gathered in one pass over its records in memory that grows with
//! the number of devices only: counts, bytes, time span and rate, request sizes, and
//! how sequential each device's requests are (`spindle trace`).

use super::IoRecord;
use serde::Serialize;
use std::collections::BTreeMap;

/// One device's share of a trace.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DeviceSummary {
    pub requests: u64,
    pub reads: u64,
    /// The end (last sector + 1) of the highest range its requests touch.
    pub max_end_lbn: u64,
    /// Requests that start where the device's previous request ended.
    pub sequential: u64,
    #[serde(skip)]
    previous_end: Option<u64>,
}

/// A trace's summary; [`TraceSummary::add`] each record in file order.
#[derive(Clone, Debug, Serialize)]
pub struct TraceSummary {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub sectors_read: u64,
    pub sectors_written: u64,
    /// Earliest and latest arrival (ns), `None` without records.
    pub first_arrival_ns: Option<u64>,
    pub last_arrival_ns: Option<u64>,
    /// Whether no record arrives before the one before it in the file.
    pub in_arrival_order: bool,
    /// Requests that start where their device's previous request (in file order) ended.
    pub sequential: u64,
    pub devices: BTreeMap<u32, DeviceSummary>,
    /// How many requests have each size (sectors): exact, and small, since traces use
    /// few distinct sizes (at most one entry per request).
    #[serde(skip)]
    sizes: BTreeMap<u32, u64>,
    #[serde(skip)]
    previous_arrival: Option<u64>,
}

/// Request sizes (sectors) at a few quantiles.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SizeQuantiles {
    pub mean: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub max: u64,
}

impl Default for TraceSummary {
    fn default() -> TraceSummary {
        TraceSummary {
            requests: 0,
            reads: 0,
            writes: 0,
            sectors_read: 0,
            sectors_written: 0,
            first_arrival_ns: None,
            last_arrival_ns: None,
            in_arrival_order: true,
            sequential: 0,
            devices: BTreeMap::new(),
            sizes: BTreeMap::new(),
            previous_arrival: None,
        }
    }
}

impl TraceSummary {
    pub fn new() -> TraceSummary {
        TraceSummary::default()
    }

    /// Counts one record (in file order).
    pub fn add(&mut self, r: &IoRecord) {
        let t = r.arrival.0;
        self.requests += 1;
        let blocks = u64::from(r.blocks);
        if r.write {
            self.writes += 1;
            self.sectors_written += blocks;
        } else {
            self.reads += 1;
            self.sectors_read += blocks;
        }
        self.first_arrival_ns = Some(self.first_arrival_ns.map_or(t, |f| f.min(t)));
        self.last_arrival_ns = Some(self.last_arrival_ns.map_or(t, |l| l.max(t)));
        if self.previous_arrival.is_some_and(|p| t < p) {
            self.in_arrival_order = false;
        }
        self.previous_arrival = Some(t);
        *self.sizes.entry(r.blocks).or_insert(0) += 1;
        let d = self.devices.entry(r.device).or_default();
        d.requests += 1;
        if !r.write {
            d.reads += 1;
        }
        let end = r.lbn.saturating_add(blocks);
        d.max_end_lbn = d.max_end_lbn.max(end);
        if d.previous_end == Some(r.lbn) {
            d.sequential += 1;
            self.sequential += 1;
        }
        d.previous_end = Some(end);
    }

    /// Seconds from the first arrival to the last.
    pub fn span_s(&self) -> f64 {
        match (self.first_arrival_ns, self.last_arrival_ns) {
            (Some(f), Some(l)) => (l - f) as f64 / 1e9,
            _ => 0.0,
        }
    }

    /// Requests per second over the span (0 for a trace with no span).
    pub fn rate_per_s(&self) -> f64 {
        let s = self.span_s();
        if s > 0.0 {
            self.requests as f64 / s
        } else {
            0.0
        }
    }

    /// Request sizes in sectors (exact: the smallest size at or above each share of the
    /// requests); `None` without records.
    pub fn sizes(&self) -> Option<SizeQuantiles> {
        if self.requests == 0 {
            return None;
        }
        let at = |q: f64| -> u64 {
            // The rank of the quantile, 1-based: ceil(q × n), at least 1.
            let rank = ((q * self.requests as f64).ceil() as u64).max(1);
            let mut seen = 0;
            for (&size, &n) in &self.sizes {
                seen += n;
                if seen >= rank {
                    return u64::from(size);
                }
            }
            self.sizes.keys().next_back().map_or(0, |&s| u64::from(s))
        };
        Some(SizeQuantiles {
            mean: (self.sectors_read + self.sectors_written) as f64 / self.requests as f64,
            p50: at(0.5),
            p90: at(0.9),
            p99: at(0.99),
            max: self.sizes.keys().next_back().map_or(0, |&s| u64::from(s)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn rec(ns: u64, device: u32, lbn: u64, blocks: u32, write: bool) -> IoRecord {
        IoRecord {
            arrival: SimTime(ns),
            device,
            lbn,
            blocks,
            write,
            content: Vec::new(),
        }
    }

    #[test]
    fn counts_sizes_order_and_sequential_runs() {
        let mut s = TraceSummary::new();
        for r in [
            rec(1_000, 0, 100, 8, false),
            rec(2_000, 1, 0, 16, true),
            rec(3_000, 0, 108, 8, false), // follows device 0's previous request
            rec(2_500, 1, 16, 8, true),   // follows device 1's, but arrives earlier
            rec(9_001_000, 0, 5, 1, true),
        ] {
            s.add(&r);
        }
        assert_eq!((s.requests, s.reads, s.writes), (5, 2, 3));
        assert_eq!((s.sectors_read, s.sectors_written), (16, 25));
        assert_eq!(
            (s.first_arrival_ns, s.last_arrival_ns),
            (Some(1_000), Some(9_001_000))
        );
        assert!(!s.in_arrival_order);
        assert_eq!(s.sequential, 2);
        assert_eq!(s.devices.len(), 2);
        assert_eq!(s.devices[&0].max_end_lbn, 116);
        assert_eq!((s.devices[&1].requests, s.devices[&1].reads), (2, 0));
        let q = s.sizes().expect("records");
        assert_eq!((q.p50, q.max), (8, 16));
        // Large sizes are exact (a histogram of a few significant digits is not).
        let mut big = TraceSummary::new();
        for blocks in [2048, 2048, 65_536, 1] {
            big.add(&rec(0, 0, 0, blocks, false));
        }
        let qb = big.sizes().expect("records");
        assert_eq!(
            (qb.p50, qb.p90, qb.p99, qb.max),
            (2048, 65_536, 65_536, 65_536)
        );
        assert!((qb.mean - 69_633.0 / 4.0).abs() < 1e-9);
        assert!((q.mean - 41.0 / 5.0).abs() < 1e-9);
        assert!((s.rate_per_s() - 5.0 / 0.009).abs() < 1e-6);
        assert_eq!(TraceSummary::new().sizes(), None);
    }
}
