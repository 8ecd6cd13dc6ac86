//! A chained hash table with a fixed number of buckets, over the records of a slab the
//! caller owns. The paper sizes its hash tables by hand (2^5 to 2^25 buckets, §4.5) and
//! measures how lookups slow down when chains grow, so the bucket count is a setting and
//! the table never resizes: with 2^5 buckets a lookup walks a chain of N/32 records.
//!
//! The table holds only the bucket heads (4 bytes each, as the paper's 4-byte pointers):
//! the chain link lives in the record itself ([`Chained`]), so a probe reads one record
//! (its key and its link) and the table costs no bytes per record.

/// No record: the end of a chain.
pub const NIL: u32 = u32::MAX;
/// Fewest buckets, as a power of two (the paper's smallest table).
pub const MIN_BUCKETS_LOG2: u32 = 5;
/// Most buckets, as a power of two (the paper's largest table; 2^25 heads are 128 MiB).
pub const MAX_BUCKETS_LOG2: u32 = 25;

/// A record that carries its hash chain's link.
pub trait Chained {
    fn link(&self) -> u32;
    fn set_link(&mut self, next: u32);
}

/// The bucket heads of a chained table over a slab of [`Chained`] records.
#[derive(Clone, Debug)]
pub struct Buckets {
    heads: Vec<u32>,
    shift: u32,
}

impl Buckets {
    /// A table of 2^`log2` buckets; `log2` outside 5..=25 is refused.
    pub fn new(log2: u32) -> Result<Buckets, String> {
        if !(MIN_BUCKETS_LOG2..=MAX_BUCKETS_LOG2).contains(&log2) {
            return Err(format!(
                "hash-table buckets must be 2^{MIN_BUCKETS_LOG2}..=2^{MAX_BUCKETS_LOG2} \
                 (buckets-log2 {MIN_BUCKETS_LOG2}..={MAX_BUCKETS_LOG2}), got buckets-log2 {log2}"
            ));
        }
        Ok(Buckets {
            heads: vec![NIL; 1 << log2],
            shift: 64 - log2,
        })
    }

    /// The bucket of a 64-bit key (Fibonacci hashing: the top bits of a multiply, so
    /// consecutive sector numbers spread over all buckets).
    #[inline]
    pub fn bucket(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline]
    pub fn head(&self, bucket: usize) -> u32 {
        self.heads[bucket]
    }

    /// Puts record `i` of `slab` at the head of `bucket`'s chain.
    pub fn push<T: Chained>(&mut self, slab: &mut [T], bucket: usize, i: u32) {
        slab[i as usize].set_link(self.heads[bucket]);
        self.heads[bucket] = i;
    }

    /// Takes record `i` out of `bucket`'s chain (a walk of the chain).
    pub fn remove<T: Chained>(&mut self, slab: &mut [T], bucket: usize, i: u32) {
        let mut cur = self.heads[bucket];
        let mut prev = NIL;
        while cur != NIL {
            let after = slab[cur as usize].link();
            if cur == i {
                if prev == NIL {
                    self.heads[bucket] = after;
                } else {
                    slab[prev as usize].set_link(after);
                }
                slab[cur as usize].set_link(NIL);
                return;
            }
            prev = cur;
            cur = after;
        }
    }

    pub fn buckets(&self) -> usize {
        self.heads.len()
    }

    /// Bytes held: the bucket heads.
    pub fn bytes(&self) -> usize {
        self.heads.capacity() * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy)]
    struct R(u32);
    impl Chained for R {
        fn link(&self) -> u32 {
            self.0
        }
        fn set_link(&mut self, next: u32) {
            self.0 = next;
        }
    }

    #[test]
    fn refuses_bucket_counts_outside_the_papers_range() {
        assert!(Buckets::new(4).unwrap_err().contains("got buckets-log2 4"));
        assert!(Buckets::new(26).is_err());
        assert_eq!(Buckets::new(5).unwrap().buckets(), 32);
        assert_eq!(Buckets::new(5).unwrap().bytes(), 32 * 4);
    }

    #[test]
    fn chains_push_and_remove() {
        let mut t = Buckets::new(5).unwrap();
        let mut slab = [R(NIL); 4];
        let b = t.bucket(7);
        for i in 0..4 {
            t.push(&mut slab, b, i);
        }
        t.remove(&mut slab, b, 2);
        t.remove(&mut slab, b, 3);
        let mut seen = Vec::new();
        let mut i = t.head(b);
        while i != NIL {
            seen.push(i);
            i = slab[i as usize].link();
        }
        assert_eq!(seen, [1, 0]);
    }
}
