//! The requests a host queue holds or has accepted and not yet completed, indexed by
//! their first sector and length, so that a new request finds one it overlaps without
//! looking at every one (a saturated queue holds millions, and a scan per arrival made
//! such runs quadratic). The longest indexed length sets how far before its range a
//! query looks: one very long request widens every query while it is indexed.

use crate::disk::hdd::Request;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

#[derive(Default)]
pub struct OverlapIndex {
    /// (first sector, sectors, arrival order) → id: requests of one first sector and
    /// length lie together by arrival, so a pile of them answers in a step, and one too
    /// short to reach a range is skipped with all its kind.
    by_start: BTreeMap<(u64, u32, u64), u64>,
    /// Id → its key in `by_start`, to remove it.
    place: FxHashMap<u64, (u64, u32, u64)>,
    /// How many indexed requests have each length (a request of no sectors counts as
    /// one). The longest bounds how far before a range a request that overlaps it can
    /// start.
    lengths: BTreeMap<u32, usize>,
}

impl OverlapIndex {
    /// Indexes `req`, which arrived `seq`-th. Ids are unique among indexed requests.
    pub fn insert(&mut self, req: &Request, seq: u64) {
        debug_assert!(!self.place.contains_key(&req.id), "id {} twice", req.id);
        let key = (req.lbn, req.blocks.max(1), seq);
        self.place.insert(req.id, key);
        self.by_start.insert(key, req.id);
        *self.lengths.entry(key.1).or_default() += 1;
    }

    pub fn remove(&mut self, req: &Request) {
        let Some(key) = self.place.remove(&req.id) else {
            return;
        };
        if self.by_start.remove(&key).is_some() {
            self.forget_length(key.1);
        }
    }

    pub fn len(&self) -> usize {
        self.place.len()
    }

    pub fn is_empty(&self) -> bool {
        self.place.is_empty()
    }

    /// The id of the latest-arrived indexed request that arrived before the `before`-th
    /// and shares a sector with `req`. A request of no sectors, indexed or asked about,
    /// counts as one sector long. The latest, not the earliest: a pile of requests to
    /// one block then waits as a chain, each released by the one before it, rather than
    /// all behind the first and each looked at again at every completion.
    pub fn latest_overlapping(&self, req: &Request, before: u64) -> Option<u64> {
        let end = req.lbn.saturating_add(u64::from(req.blocks.max(1)));
        let longest = self
            .lengths
            .last_key_value()
            .map_or(0, |(l, _)| u64::from(*l));
        let mut latest: Option<(u64, u64)> = None;
        // Each (first sector, length) in reach once: one too short to reach `req` is
        // skipped to the first length that would; one that reaches gives its latest
        // request that arrived in time.
        let mut from = (req.lbn.saturating_sub(longest), 0);
        while let Some((&(start, blocks, _), _)) =
            self.by_start.range((from.0, from.1, 0)..(end, 0, 0)).next()
        {
            let short = req.lbn.saturating_sub(start);
            if u64::from(blocks) <= short {
                from = match u32::try_from(short + 1) {
                    Ok(reach) => (start, reach),
                    Err(_) => (start + 1, 0),
                };
                continue;
            }
            let group = (start, blocks, 0)..(start, blocks, before);
            if let Some((&(_, _, seq), &id)) = self.by_start.range(group).next_back() {
                if latest.is_none_or(|(s, _)| seq > s) {
                    latest = Some((seq, id));
                }
            }
            from = match blocks.checked_add(1) {
                Some(next) => (start, next),
                None => (start + 1, 0),
            };
        }
        latest.map(|(_, id)| id)
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
        all[..before]
            .iter()
            .rev()
            .find(|r| r.lbn < end && req.lbn < r.lbn + u64::from(r.blocks.max(1)))
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
                prop_assert_eq!(index.latest_overlapping(&q, seq as u64), scan(&kept, &q, b));
            }
        }
    }
}
