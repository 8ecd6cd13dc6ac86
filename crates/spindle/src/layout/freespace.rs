//! Free-space map of a volume: one bit per 4 KiB block and a free count per allocation
//! range, with the searches the layout policies need (nearest free block in a range,
//! next free block from a cursor).

/// Free blocks of a volume, grouped in allocation ranges.
#[derive(Clone, Debug)]
pub struct FreeSpace {
    /// Bit set = free.
    bits: Vec<u64>,
    range_free: Vec<u32>,
    range_blocks: u64,
    blocks: u64,
    free: u64,
}

impl FreeSpace {
    /// A volume of `blocks` blocks, all free, in ranges of `range_blocks`.
    pub fn new(blocks: u64, range_blocks: u64) -> FreeSpace {
        let range_blocks = range_blocks.max(1);
        let mut bits = vec![u64::MAX; blocks.div_ceil(64) as usize];
        if !blocks.is_multiple_of(64) {
            if let Some(last) = bits.last_mut() {
                *last = (1u64 << (blocks % 64)) - 1;
            }
        }
        let ranges = blocks.div_ceil(range_blocks);
        let range_free = (0..ranges)
            .map(|r| (blocks.min((r + 1) * range_blocks) - r * range_blocks) as u32)
            .collect();
        FreeSpace {
            bits,
            range_free,
            range_blocks,
            blocks,
            free: blocks,
        }
    }

    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    pub fn free_blocks(&self) -> u64 {
        self.free
    }

    pub fn ranges(&self) -> u64 {
        self.range_free.len() as u64
    }

    pub fn range_blocks(&self) -> u64 {
        self.range_blocks
    }

    pub fn range_of(&self, block: u64) -> u64 {
        block / self.range_blocks
    }

    pub fn free_in_range(&self, range: u64) -> u32 {
        self.range_free.get(range as usize).copied().unwrap_or(0)
    }

    pub fn is_free(&self, block: u64) -> bool {
        block < self.blocks && self.bits[(block / 64) as usize] & (1 << (block % 64)) != 0
    }

    /// Marks a free block used; false if it was not free.
    pub fn take(&mut self, block: u64) -> bool {
        if !self.is_free(block) {
            return false;
        }
        self.bits[(block / 64) as usize] &= !(1 << (block % 64));
        self.range_free[(block / self.range_blocks) as usize] -= 1;
        self.free -= 1;
        true
    }

    /// Marks a used block free; false if it was already free or out of range.
    pub fn release(&mut self, block: u64) -> bool {
        if block >= self.blocks || self.is_free(block) {
            return false;
        }
        self.bits[(block / 64) as usize] |= 1 << (block % 64);
        self.range_free[(block / self.range_blocks) as usize] += 1;
        self.free += 1;
        true
    }

    /// The free block of `range` closest to `near` (ties to the lower block).
    pub fn nearest_in_range(&self, range: u64, near: u64) -> Option<u64> {
        if self.free_in_range(range) == 0 {
            return None;
        }
        let lo = range * self.range_blocks;
        let hi = self.blocks.min(lo + self.range_blocks);
        let near = near.clamp(lo, hi - 1);
        // Walk outward from `near`; ranges are small (a stripe unit).
        for d in 0..(hi - lo) {
            if near >= lo + d && self.is_free(near - d) {
                return Some(near - d);
            }
            if near + d < hi && self.is_free(near + d) {
                return Some(near + d);
            }
        }
        None
    }

    /// The first free block at or after `from`, wrapping around once.
    pub fn next_free_from(&self, from: u64) -> Option<u64> {
        if self.free == 0 {
            return None;
        }
        let words = self.bits.len();
        let from = from % self.blocks.max(1);
        let start = from / 64;
        for k in 0..=words {
            let w = (start as usize + k) % words;
            let mut word = self.bits[w];
            if k == 0 {
                word &= u64::MAX << (from % 64);
            }
            if word != 0 {
                return Some(w as u64 * 64 + word.trailing_zeros() as u64);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_release_and_searches() {
        let mut f = FreeSpace::new(1000, 100);
        assert_eq!(f.free_blocks(), 1000);
        for b in 0..150 {
            assert!(f.take(b));
        }
        assert!(!f.take(3));
        assert_eq!(f.free_in_range(0), 0);
        assert_eq!(f.free_in_range(1), 50);
        assert_eq!(f.nearest_in_range(1, 120), Some(150));
        assert!(f.release(130));
        assert_eq!(f.nearest_in_range(1, 120), Some(130));
        assert_eq!(f.next_free_from(0), Some(130));
        assert_eq!(f.next_free_from(131), Some(150));
        assert_eq!(f.next_free_from(999), Some(999));
        assert!(f.take(999));
        assert_eq!(f.next_free_from(999), Some(130));
        // A cursor past the end wraps to the block it names modulo the volume.
        assert!(f.release(5));
        assert_eq!(f.next_free_from(1000 + 6), Some(130));
        assert_eq!(f.next_free_from(1000 + 5), Some(5));
    }
}
