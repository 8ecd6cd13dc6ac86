//! What a fault campaign expects to read back from a byte-exact device: the last value
//! written to each block and, for blocks whose write a power cut or a refusal
//! interrupted, the other values they may hold until a read settles them. A read is
//! right when it returns the expected value or one of those; anything else counts as
//! wrong bytes.

use crate::store::{zero_block, Block};
use rand::Rng;
use std::collections::BTreeMap;

/// Expected contents by block key (a volume block, or an extent and offset).
pub(crate) struct Expected<K> {
    pub value: BTreeMap<K, Block>,
    pub maybe: BTreeMap<K, Vec<Block>>,
}

impl<K> Default for Expected<K> {
    fn default() -> Self {
        Expected {
            value: BTreeMap::new(),
            maybe: BTreeMap::new(),
        }
    }
}

impl<K: Ord + Copy> Expected<K> {
    /// The last value written (zeros if never written).
    pub fn expected(&self, k: K) -> Block {
        self.value.get(&k).cloned().unwrap_or_else(zero_block)
    }

    /// A write of `new` was cut off: the block may still hold what it held.
    pub fn interrupted(&mut self, k: K, new: &Block) {
        let old = self.expected(k);
        self.maybe.entry(k).or_default().push(old);
        self.value.insert(k, new.clone());
    }

    /// Checks a read; returns the number of wrong bytes (0: right).
    pub fn check(&mut self, k: K, got: &Block) -> u64 {
        let want = self.expected(k);
        if *got == want {
            self.maybe.remove(&k);
            return 0;
        }
        if self.maybe.get(&k).is_some_and(|m| m.contains(got)) {
            // A cut-off write did not land: these contents stand from now on.
            self.maybe.remove(&k);
            self.value.insert(k, got.clone());
            return 0;
        }
        want.iter().zip(got.iter()).filter(|(a, b)| a != b).count() as u64
    }
}

/// A block of random bytes, all 4 KiB of it: a torn write (only its first sectors new)
/// must differ from both the old and the new contents.
pub(crate) fn random_block<R: Rng>(rng: &mut R) -> Block {
    let mut b = zero_block();
    rng.fill(&mut b[..]);
    b
}
