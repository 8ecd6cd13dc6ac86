//! An ordered set for the host queue's indexes: a sorted vector while it is small, a
//! B-tree once it is large.
//!
//! Most host queues hold a handful of requests, where a B-tree's node walks cost more
//! than the decision they serve; a sorted vector answers the same questions with a
//! binary search over a few cache lines. Past [`GROW_AT`] entries the set moves into a
//! `BTreeSet`, so a long queue keeps O(log n) inserts and removals; it moves back below
//! [`SHRINK_AT`] (the gap keeps a queue hovering at the limit from converting on every
//! push). Both forms hold the same keys in the same order, so every answer is the same.

use std::collections::{btree_set, BTreeSet};
use std::ops::{Bound, RangeBounds};

/// Above this many keys the set is a B-tree.
pub const GROW_AT: usize = 128;
/// At or below this many keys a B-tree set becomes a vector again.
pub const SHRINK_AT: usize = 32;

#[derive(Clone, Debug)]
enum Repr<K> {
    Small(Vec<K>),
    Large(BTreeSet<K>),
}

/// An ordered set of distinct keys (see the module documentation).
#[derive(Clone, Debug)]
pub struct KeySet<K> {
    repr: Repr<K>,
}

impl<K: Ord + Copy> Default for KeySet<K> {
    fn default() -> Self {
        KeySet::new()
    }
}

impl<K: Ord + Copy> KeySet<K> {
    pub fn new() -> KeySet<K> {
        KeySet {
            repr: Repr::Small(Vec::new()),
        }
    }

    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Small(v) => v.len(),
            Repr::Large(b) => b.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds `k`; false if it was already there.
    pub fn insert(&mut self, k: K) -> bool {
        match &mut self.repr {
            Repr::Small(v) => {
                // Keys often arrive in order (sequence numbers): try the end first.
                let at = match v.last() {
                    Some(last) if *last < k => v.len(),
                    _ => match v.binary_search(&k) {
                        Ok(_) => return false,
                        Err(at) => at,
                    },
                };
                v.insert(at, k);
                if v.len() > GROW_AT {
                    self.repr = Repr::Large(v.drain(..).collect());
                }
                true
            }
            Repr::Large(b) => b.insert(k),
        }
    }

    /// Removes `k`; false if it was not there.
    pub fn remove(&mut self, k: &K) -> bool {
        match &mut self.repr {
            Repr::Small(v) => match v.binary_search(k) {
                Ok(at) => {
                    v.remove(at);
                    true
                }
                Err(_) => false,
            },
            Repr::Large(b) => {
                let removed = b.remove(k);
                if b.len() <= SHRINK_AT {
                    let v: Vec<K> = std::mem::take(b).into_iter().collect();
                    self.repr = Repr::Small(v);
                }
                removed
            }
        }
    }

    /// The smallest key.
    pub fn first(&self) -> Option<K> {
        match &self.repr {
            Repr::Small(v) => v.first().copied(),
            Repr::Large(b) => b.first().copied(),
        }
    }

    /// The smallest key at or above `k`.
    pub fn at_or_above(&self, k: &K) -> Option<K> {
        match &self.repr {
            Repr::Small(v) => v.get(v.partition_point(|x| x < k)).copied(),
            Repr::Large(b) => b.range(k..).next().copied(),
        }
    }

    /// The largest key below `k`.
    pub fn last_below(&self, k: &K) -> Option<K> {
        match &self.repr {
            Repr::Small(v) => v[..v.partition_point(|x| x < k)].last().copied(),
            Repr::Large(b) => b.range(..k).next_back().copied(),
        }
    }

    /// The largest key.
    pub fn last(&self) -> Option<K> {
        match &self.repr {
            Repr::Small(v) => v.last().copied(),
            Repr::Large(b) => b.last().copied(),
        }
    }

    /// The keys in ascending order.
    pub fn iter(&self) -> Iter<'_, K> {
        self.range(..)
    }

    /// The keys within `range`, in ascending order (and descending from the back).
    pub fn range<R: RangeBounds<K>>(&self, range: R) -> Iter<'_, K> {
        match &self.repr {
            Repr::Small(v) => {
                let lo = match range.start_bound() {
                    Bound::Included(k) => v.partition_point(|x| x < k),
                    Bound::Excluded(k) => v.partition_point(|x| x <= k),
                    Bound::Unbounded => 0,
                };
                let hi = match range.end_bound() {
                    Bound::Included(k) => v.partition_point(|x| x <= k),
                    Bound::Excluded(k) => v.partition_point(|x| x < k),
                    Bound::Unbounded => v.len(),
                };
                Iter::Small(v[lo..hi.max(lo)].iter())
            }
            Repr::Large(b) => Iter::Large(b.range(range)),
        }
    }
}

/// Keys of a [`KeySet`] in order.
pub enum Iter<'a, K> {
    Small(std::slice::Iter<'a, K>),
    Large(btree_set::Range<'a, K>),
}

impl<'a, K> Iterator for Iter<'a, K> {
    type Item = &'a K;
    fn next(&mut self) -> Option<&'a K> {
        match self {
            Iter::Small(i) => i.next(),
            Iter::Large(i) => i.next(),
        }
    }
}

impl<'a, K> DoubleEndedIterator for Iter<'a, K> {
    fn next_back(&mut self) -> Option<&'a K> {
        match self {
            Iter::Small(i) => i.next_back(),
            Iter::Large(i) => i.next_back(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any sequence of inserts and removes leaves the same keys, and the same
        /// answers to range queries, as a `BTreeSet`, across both forms.
        #[test]
        fn agrees_with_a_btree(ops in proptest::collection::vec((any::<bool>(), 0u64..400, 0u64..3), 0..1500),
                               probe in 0u64..400) {
            let mut s = KeySet::new();
            let mut b = BTreeSet::new();
            for (add, a, c) in ops {
                if add {
                    prop_assert_eq!(s.insert((a, c)), b.insert((a, c)));
                } else {
                    prop_assert_eq!(s.remove(&(a, c)), b.remove(&(a, c)));
                }
                prop_assert_eq!(s.len(), b.len());
            }
            prop_assert_eq!(s.first(), b.first().copied());
            prop_assert_eq!(s.last(), b.last().copied());
            prop_assert_eq!(s.at_or_above(&(probe, 1)), b.range((probe, 1)..).next().copied());
            prop_assert_eq!(s.last_below(&(probe, 1)), b.range(..(probe, 1)).next_back().copied());
            prop_assert!(s.iter().eq(b.iter()));
            prop_assert!(s.range((probe, 0)..).eq(b.range((probe, 0)..)));
            prop_assert!(s.range(..(probe, 0)).rev().eq(b.range(..(probe, 0)).rev()));
            prop_assert!(s
                .range((probe, 0)..=(probe + 20, u64::MAX))
                .eq(b.range((probe, 0)..=(probe + 20, u64::MAX))));
        }
    }

    #[test]
    fn grows_into_a_btree_and_shrinks_back() {
        let mut s = KeySet::new();
        for k in 0..(GROW_AT as u64 + 10) {
            s.insert(k);
        }
        assert!(matches!(s.repr, Repr::Large(_)));
        for k in 0..(GROW_AT as u64 + 10 - SHRINK_AT as u64) {
            s.remove(&k);
        }
        assert!(matches!(s.repr, Repr::Small(_)));
        assert_eq!(s.len(), SHRINK_AT);
        assert!(s
            .iter()
            .copied()
            .eq(GROW_AT as u64 + 10 - SHRINK_AT as u64..GROW_AT as u64 + 10));
    }
}
