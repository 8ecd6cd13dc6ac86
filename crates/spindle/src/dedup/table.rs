//! A chained hash table with a fixed number of buckets, over the indices of a slab the
//! caller owns. The paper sizes its hash tables by hand (2^5 to 2^25 buckets, §4.5) and
//! measures how lookups slow down when chains grow, so the bucket count is a setting and
//! the table never resizes: with 2^5 buckets a lookup walks a chain of N/32 entries.
//!
//! Links are `u32` slab indices (the paper's 4-byte pointers): 4 bytes per bucket head
//! and 4 per record. They sit in one dense array beside the slab, not inside the
//! records: a walk of a long chain then reads a small array that stays in cache and
//! the records' keys can be fetched in parallel, where links inside the records make
//! every step wait for a record from memory (measured with `spindle bench`: 4.5× slower
//! lookups with 2^12 buckets over 400,000 pages, no faster at 2^20).

/// No entry: the end of a chain.
pub const NIL: u32 = u32::MAX;
/// Fewest buckets, as a power of two (the paper's smallest table).
pub const MIN_BUCKETS_LOG2: u32 = 5;
/// Most buckets, as a power of two (the paper's largest table; 2^25 heads are 128 MiB).
pub const MAX_BUCKETS_LOG2: u32 = 25;

/// Bucket heads and the chain link of every slab index.
#[derive(Clone, Debug)]
pub struct Chains {
    heads: Vec<u32>,
    next: Vec<u32>,
    shift: u32,
    /// Test builds only: whether each index is in a chain. Pushing an index that is
    /// already linked would make a chain loop and every later walk of it run without
    /// end; with this check a broken caller (say, a free list that hands out a record
    /// still in use) fails a test at once instead of hanging it.
    #[cfg(test)]
    linked: Vec<bool>,
}

impl Chains {
    /// A table of 2^`log2` buckets; `log2` outside 5..=25 is refused.
    pub fn new(log2: u32) -> Result<Chains, String> {
        if !(MIN_BUCKETS_LOG2..=MAX_BUCKETS_LOG2).contains(&log2) {
            return Err(format!(
                "hash-table buckets must be 2^{MIN_BUCKETS_LOG2}..=2^{MAX_BUCKETS_LOG2} \
                 (buckets-log2 {MIN_BUCKETS_LOG2}..={MAX_BUCKETS_LOG2}), got buckets-log2 {log2}"
            ));
        }
        Ok(Chains {
            heads: vec![NIL; 1 << log2],
            next: Vec::new(),
            shift: 64 - log2,
            #[cfg(test)]
            linked: Vec::new(),
        })
    }

    /// The bucket of a 64-bit key (Fibonacci hashing: the top bits of a multiply, so
    /// consecutive sector numbers spread over all buckets).
    #[inline]
    pub fn bucket(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Starts loading `bucket`'s head (see [`crate::prefetch`]).
    #[inline]
    pub fn prefetch_head(&self, bucket: usize) {
        if let Some(h) = self.heads.get(bucket) {
            crate::prefetch::prefetch(h);
        }
    }

    #[inline]
    pub fn head(&self, bucket: usize) -> u32 {
        self.heads[bucket]
    }

    #[inline]
    pub fn next(&self, i: u32) -> u32 {
        self.next[i as usize]
    }

    /// Puts slab index `i` at the head of `bucket`'s chain.
    pub fn push(&mut self, bucket: usize, i: u32) {
        let at = i as usize;
        if at >= self.next.len() {
            self.next.resize(at + 1, NIL);
        }
        #[cfg(test)]
        {
            if at >= self.linked.len() {
                self.linked.resize(at + 1, false);
            }
            assert!(
                !self.linked[at],
                "index {i} pushed while already in a chain"
            );
            self.linked[at] = true;
        }
        self.next[at] = self.heads[bucket];
        self.heads[bucket] = i;
    }

    /// Takes `i` out of `bucket`'s chain (a walk of the chain).
    pub fn remove(&mut self, bucket: usize, i: u32) {
        let mut cur = self.heads[bucket];
        let mut prev = NIL;
        while cur != NIL {
            if cur == i {
                let after = self.next[cur as usize];
                if prev == NIL {
                    self.heads[bucket] = after;
                } else {
                    self.next[prev as usize] = after;
                }
                self.next[cur as usize] = NIL;
                #[cfg(test)]
                {
                    self.linked[cur as usize] = false;
                }
                return;
            }
            prev = cur;
            cur = self.next[cur as usize];
        }
        #[cfg(test)]
        panic!("index {i} removed from bucket {bucket}, whose chain does not hold it");
    }

    pub fn buckets(&self) -> usize {
        self.heads.len()
    }

    /// Bytes held: bucket heads and chain links.
    pub fn bytes(&self) -> usize {
        (self.heads.capacity() + self.next.capacity()) * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_bucket_counts_outside_the_papers_range() {
        assert!(Chains::new(4).unwrap_err().contains("got buckets-log2 4"));
        assert!(Chains::new(26).is_err());
        assert_eq!(Chains::new(5).unwrap().buckets(), 32);
    }

    #[test]
    fn chains_push_and_remove() {
        let mut t = Chains::new(5).unwrap();
        let b = t.bucket(7);
        for i in 0..4 {
            t.push(b, i);
        }
        t.remove(b, 2);
        t.remove(b, 3);
        let mut seen = Vec::new();
        let mut i = t.head(b);
        while i != NIL {
            seen.push(i);
            i = t.next(i);
        }
        assert_eq!(seen, [1, 0]);
    }
}
