//! The host queue's index of waiting requests by LBN: buckets of nearby LBNs and a
//! bitmap of the buckets in use.
//!
//! SSTF, LOOK and C-LOOK ask for the waiting request nearest above or below an LBN. A
//! B-tree answers in O(log n) but walks several nodes per question; here the LBN range
//! is cut into a power-of-two number of buckets (at least one per waiting request), each
//! an ordered [`KeySet`], and a two-level bitmap finds the next or previous bucket in
//! use with a few bit scans. Most questions touch one or two buckets. The bucket count
//! doubles as the queue grows (up to [`MAX_BUCKET_BITS`]) and the bucket width doubles
//! when a larger LBN arrives; both rebuild the index, so their cost is amortized.
//! A bucket that fills up (many requests at nearby LBNs) is a B-tree inside, so no
//! pattern of LBNs makes a question cost more than O(log n).

use super::keyset::{self, KeySet};

/// The index starts with 2^6 buckets...
const MIN_BUCKET_BITS: u32 = 6;
/// ...and grows to at most 2^16 (2 MB of empty buckets at most).
pub const MAX_BUCKET_BITS: u32 = 16;

/// What orders entries at one LBN (the host queue's tickets), with a least value.
pub trait Tag: Ord + Copy {
    const LEAST: Self;
}

/// (LBN, tag) pairs in ascending order; tags order entries at the same LBN.
#[derive(Clone, Debug)]
pub struct LbnIndex<T> {
    /// Every LBN held is below 2^span_bits.
    span_bits: u32,
    /// 2^bucket_bits buckets (none until the first insert).
    bucket_bits: u32,
    buckets: Vec<KeySet<(u64, T)>>,
    /// Bit b of word b/64: bucket b is in use.
    used: Vec<u64>,
    /// Bit w of word w/64: word w of `used` is not zero.
    used_words: Vec<u64>,
    len: usize,
}

impl<T: Tag> Default for LbnIndex<T> {
    fn default() -> Self {
        LbnIndex::new()
    }
}

/// The lowest set bit at or above `from` in a bitmap, if any.
fn next_set(words: &[u64], from: usize) -> Option<usize> {
    let mut w = from / 64;
    if w >= words.len() {
        return None;
    }
    let mut bits = words[w] & (u64::MAX << (from % 64));
    loop {
        if bits != 0 {
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        w += 1;
        bits = *words.get(w)?;
    }
}

/// The highest set bit at or below `from` in a bitmap, if any.
fn prev_set(words: &[u64], from: usize) -> Option<usize> {
    let mut w = from / 64;
    let mut bits = words[w] & (u64::MAX >> (63 - from % 64));
    loop {
        if bits != 0 {
            return Some(w * 64 + 63 - bits.leading_zeros() as usize);
        }
        w = w.checked_sub(1)?;
        bits = words[w];
    }
}

impl<T: Tag> LbnIndex<T> {
    pub fn new() -> LbnIndex<T> {
        LbnIndex {
            span_bits: 0,
            bucket_bits: MIN_BUCKET_BITS,
            buckets: Vec::new(),
            used: Vec::new(),
            used_words: Vec::new(),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many low bits of an LBN a bucket spans.
    fn shift(&self) -> u32 {
        self.span_bits.saturating_sub(self.bucket_bits)
    }

    /// The bucket that holds `lbn`, or `None` past the span.
    fn bucket_of(&self, lbn: u64) -> Option<usize> {
        let b = (lbn >> self.shift()) as usize;
        (b < self.buckets.len()).then_some(b)
    }

    fn mark(&mut self, b: usize) {
        self.used[b / 64] |= 1 << (b % 64);
        self.used_words[b / 4096] |= 1 << ((b / 64) % 64);
    }

    fn unmark(&mut self, b: usize) {
        self.used[b / 64] &= !(1 << (b % 64));
        if self.used[b / 64] == 0 {
            self.used_words[b / 4096] &= !(1 << ((b / 64) % 64));
        }
    }

    /// The first bucket in use at or above `b`.
    fn next_bucket(&self, b: usize) -> Option<usize> {
        if b >= self.buckets.len() {
            return None;
        }
        let w = b / 64;
        let bits = self.used[w] & (u64::MAX << (b % 64));
        if bits != 0 {
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        let w = next_set(&self.used_words, w + 1)?;
        Some(w * 64 + self.used[w].trailing_zeros() as usize)
    }

    /// The last bucket in use at or below `b`.
    fn prev_bucket(&self, b: usize) -> Option<usize> {
        let w = b / 64;
        let bits = self.used[w] & (u64::MAX >> (63 - b % 64));
        if bits != 0 {
            return Some(w * 64 + 63 - bits.leading_zeros() as usize);
        }
        let w = prev_set(&self.used_words, w.checked_sub(1)?)?;
        Some(w * 64 + 63 - self.used[w].leading_zeros() as usize)
    }

    /// Re-lays the index out for `span_bits` and `bucket_bits`.
    fn rebuild(&mut self, span_bits: u32, bucket_bits: u32) {
        let old = std::mem::take(&mut self.buckets);
        self.span_bits = span_bits;
        self.bucket_bits = bucket_bits;
        let n = 1usize << bucket_bits;
        self.buckets = vec![KeySet::new(); n];
        self.used = vec![0; n.div_ceil(64)];
        self.used_words = vec![0; n.div_ceil(4096)];
        for set in old {
            for &(lbn, tag) in set.iter() {
                let b = (lbn >> self.shift()) as usize;
                self.buckets[b].insert((lbn, tag));
                self.mark(b);
            }
        }
    }

    /// Adds (`lbn`, `tag`); false if it was already there.
    pub fn insert(&mut self, lbn: u64, tag: T) -> bool {
        let lbn_bits = u64::BITS - lbn.leading_zeros();
        let grow_buckets =
            self.len + 1 > 1 << self.bucket_bits && self.bucket_bits < MAX_BUCKET_BITS;
        if self.buckets.is_empty() || lbn_bits > self.span_bits || grow_buckets {
            let bucket_bits = self.bucket_bits + u32::from(grow_buckets);
            self.rebuild(self.span_bits.max(lbn_bits), bucket_bits);
        }
        let b = (lbn >> self.shift()) as usize;
        if !self.buckets[b].insert((lbn, tag)) {
            return false;
        }
        self.mark(b);
        self.len += 1;
        true
    }

    /// Removes (`lbn`, `tag`); false if it was not there.
    pub fn remove(&mut self, lbn: u64, tag: T) -> bool {
        let Some(b) = self.bucket_of(lbn) else {
            return false;
        };
        let bucket = &mut self.buckets[b];
        if !bucket.remove(&(lbn, tag)) {
            return false;
        }
        if bucket.is_empty() {
            self.unmark(b);
        }
        self.len -= 1;
        true
    }

    /// The smallest entry.
    pub fn first(&self) -> Option<(u64, T)> {
        let b = self.next_bucket(0)?;
        self.buckets[b].first()
    }

    /// The first entry at `lbn` or above (the smallest tag at the lowest such LBN).
    pub fn at_or_above(&self, lbn: u64) -> Option<(u64, T)> {
        let b = self.bucket_of(lbn)?;
        if let Some(e) = self.buckets[b].at_or_above(&(lbn, T::LEAST)) {
            return Some(e);
        }
        let b = self.next_bucket(b + 1)?;
        self.buckets[b].first()
    }

    /// The highest LBN below `lbn` and the smallest tag there.
    pub fn below(&self, lbn: u64) -> Option<(u64, T)> {
        let (b, last) = match self.bucket_of(lbn) {
            Some(b) => match self.buckets[b].last_below(&(lbn, T::LEAST)) {
                Some((l, _)) => (b, l),
                None => {
                    let b = self.prev_bucket(b.checked_sub(1)?)?;
                    (b, self.buckets[b].last()?.0)
                }
            },
            None => {
                let b = self.prev_bucket(self.buckets.len().checked_sub(1)?)?;
                (b, self.buckets[b].last()?.0)
            }
        };
        // Every entry at one LBN is in one bucket: the first of them has the least tag.
        self.buckets[b].at_or_above(&(last, T::LEAST))
    }

    /// The entries from `lbn` up, in ascending order.
    pub fn from(&self, lbn: u64) -> From<'_, T> {
        match self.bucket_of(lbn) {
            Some(b) => From {
                index: self,
                bucket: b,
                inner: Some(self.buckets[b].range((lbn, T::LEAST)..)),
            },
            None => From {
                index: self,
                bucket: self.buckets.len(),
                inner: None,
            },
        }
    }

    /// Every entry, in ascending order.
    pub fn iter(&self) -> From<'_, T> {
        self.from(0)
    }
}

/// The entries of an [`LbnIndex`] from some LBN up, in ascending order.
pub struct From<'a, T> {
    index: &'a LbnIndex<T>,
    bucket: usize,
    inner: Option<keyset::Iter<'a, (u64, T)>>,
}

impl<T: Tag> Iterator for From<'_, T> {
    type Item = (u64, T);
    fn next(&mut self) -> Option<(u64, T)> {
        loop {
            if let Some(&e) = self.inner.as_mut()?.next() {
                return Some(e);
            }
            self.bucket = self.index.next_bucket(self.bucket + 1)?;
            self.inner = Some(self.index.buckets[self.bucket].iter());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    impl Tag for u64 {
        const LEAST: u64 = 0;
    }

    fn below(b: &BTreeSet<(u64, u64)>, lbn: u64) -> Option<(u64, u64)> {
        let &(l, _) = b.range(..(lbn, 0)).next_back()?;
        b.range((l, 0)..).next().copied()
    }

    proptest! {
        /// Any inserts and removes leave the same entries, and the same answers, as a
        /// `BTreeSet`: across bucket growth, span growth and crowded buckets.
        #[test]
        fn agrees_with_a_btree(
            ops in proptest::collection::vec(
                (0u8..3, prop_oneof![0u64..64, 0u64..5_000, 0u64..u64::MAX], 0u64..3),
                0..2_000,
            ),
            probes in proptest::collection::vec(prop_oneof![0u64..64, 0u64..6_000, any::<u64>()], 8),
        ) {
            let mut s = LbnIndex::new();
            let mut b = BTreeSet::new();
            for (op, lbn, tag) in ops {
                if op < 2 {
                    prop_assert_eq!(s.insert(lbn, tag), b.insert((lbn, tag)));
                } else {
                    prop_assert_eq!(s.remove(lbn, tag), b.remove(&(lbn, tag)));
                }
                prop_assert_eq!(s.len(), b.len());
            }
            prop_assert_eq!(s.first(), b.first().copied());
            prop_assert!(s.iter().eq(b.iter().copied()));
            for p in probes {
                prop_assert_eq!(s.at_or_above(p), b.range((p, 0)..).next().copied());
                prop_assert_eq!(s.below(p), below(&b, p));
                prop_assert!(s.from(p).eq(b.range((p, 0)..).copied()));
            }
        }
    }

    #[test]
    fn many_requests_at_one_lbn_stay_ordered_by_tag() {
        let mut s = LbnIndex::new();
        for t in (0..1_000u64).rev() {
            s.insert(7, t);
        }
        s.insert(9, 0);
        assert_eq!(s.below(9), Some((7, 0)));
        assert_eq!(s.at_or_above(8), Some((9, 0)));
        assert_eq!(s.from(7).count(), 1_001);
    }
}
