//! The requests a host queue holds or has accepted, indexed by their first sector, so
//! that a new request finds the earliest one it overlaps without looking at every one
//! (a saturated queue holds millions, and a scan per arrival made such runs quadratic).

use crate::disk::hdd::Request;
use std::collections::BTreeMap;

#[derive(Default)]
pub struct OverlapIndex {
    /// (first sector, id) → (sectors, arrival order).
    by_start: BTreeMap<(u64, u64), (u32, u64)>,
    /// How many indexed requests have each length. The longest bounds how far before a
    /// range a request that overlaps it can start.
    lengths: BTreeMap<u32, usize>,
}

impl OverlapIndex {
    /// Indexes `req`, which arrived `seq`-th.
    pub fn insert(&mut self, req: &Request, seq: u64) {
        if let Some((old, _)) = self.by_start.insert((req.lbn, req.id), (req.blocks, seq)) {
            self.forget_length(old);
        }
        *self.lengths.entry(req.blocks).or_default() += 1;
    }

    pub fn remove(&mut self, req: &Request) {
        if let Some((blocks, _)) = self.by_start.remove(&(req.lbn, req.id)) {
            self.forget_length(blocks);
        }
    }

    pub fn len(&self) -> usize {
        self.by_start.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_start.is_empty()
    }

    /// The id of the earliest-arrived indexed request that arrived before the `before`-th
    /// and shares a sector with `req` (which counts as one sector long if it has none).
    /// An indexed request of no sectors shares none unless it falls strictly inside
    /// `req`: the rule the queue has always applied.
    pub fn earliest_overlapping(&self, req: &Request, before: u64) -> Option<u64> {
        let end = req.lbn.saturating_add(u64::from(req.blocks.max(1)));
        let longest = self
            .lengths
            .last_key_value()
            .map_or(0, |(l, _)| u64::from(*l));
        let from = req.lbn.saturating_sub(longest);
        self.by_start
            .range((from, 0)..(end, 0))
            .filter(|(&(lbn, _), &(blocks, seq))| {
                seq < before && req.lbn < lbn.saturating_add(u64::from(blocks))
            })
            .min_by_key(|(_, &(_, seq))| seq)
            .map(|(&(_, id), _)| id)
    }

    fn forget_length(&mut self, blocks: u32) {
        if let Some(n) = self.lengths.get_mut(&blocks) {
            *n -= 1;
            if *n == 0 {
                self.lengths.remove(&blocks);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `all` in arrival order.
    fn scan(all: &[Request], req: &Request, before: usize) -> Option<u64> {
        let end = req.lbn + u64::from(req.blocks.max(1));
        all.iter()
            .take(before)
            .find(|r| r.lbn < end && req.lbn < r.lbn + u64::from(r.blocks))
            .map(|r| r.id)
    }

    proptest! {
        /// Whatever was inserted and removed, the index answers as a scan of what is
        /// left does, in arrival order (here the reverse of the ids').
        #[test]
        fn answers_as_a_scan_does(
            ops in proptest::collection::vec((0u64..200, 0u32..40, any::<bool>()), 1..300),
            queries in proptest::collection::vec((0u64..240, 0u32..40, 0usize..300), 1..50),
        ) {
            let mut index = OverlapIndex::default();
            let mut kept: Vec<Request> = Vec::new();
            for (id, &(lbn, blocks, remove)) in ops.iter().enumerate() {
                if remove && !kept.is_empty() {
                    let r = kept.remove(lbn as usize % kept.len());
                    index.remove(&r);
                } else {
                    let r = Request { id: 1_000 - id as u64, lbn, blocks, write: false };
                    index.insert(&r, id as u64);
                    kept.push(r);
                }
                prop_assert_eq!(index.len(), kept.len());
            }
            for (lbn, blocks, before) in queries {
                let q = Request { id: u64::MAX, lbn, blocks, write: true };
                // The first `b` kept arrived before the `seq`-th request.
                let seq = ops.len().min(before);
                let b = kept.iter().filter(|r| ((1_000 - r.id) as usize) < seq).count();
                prop_assert_eq!(index.earliest_overlapping(&q, seq as u64), scan(&kept, &q, b));
            }
        }
    }
}
