//! A chained hash table with a fixed number of buckets, over the indices of a slab the
//! caller owns. The paper sizes its hash tables by hand (2^5 to 2^25 buckets, §4.5) and
//! measures how lookups slow down when chains grow, so the bucket count is a setting and
//! the table never resizes: with 2^5 buckets a lookup walks a chain of N/32 entries.

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
                return;
            }
            prev = cur;
            cur = self.next[cur as usize];
        }
    }

    pub fn buckets(&self) -> usize {
        self.heads.len()
    }

    /// Bytes held: bucket heads and chain links.
    pub fn bytes(&self) -> usize {
        (self.heads.capacity() + self.next.capacity()) * std::mem::size_of::<u32>()
    }
}
