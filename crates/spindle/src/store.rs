//! Sparse contents of a simulated device: real bytes, kept only for the 4 KiB blocks
//! that were written. A block never written reads as zeros.
//!
//! Devices that store data (array members, flash staging areas) hold one of these
//! beside their timing model; the caller applies a write to the store when the timing
//! model completes it, so a write is durable only from its simulated completion.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// What a simulated array keeps of the data written to it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DataMode {
    /// Real bytes with per-block checksums and generations, verified on every read
    /// (the default everywhere).
    #[default]
    RealBytes,
    /// No bytes and no per-block bookkeeping, but the same disk I/Os with the same
    /// timing: for runs whose data would not fit in memory (full-scale PROX-T2).
    /// Reads return zeros; fault injection, scrub, rebuild and crash recovery have
    /// nothing to work on.
    TimingOnly,
}

/// File-system block size (bytes). Sectors are 512 B; one block is 8 sectors.
pub const BLOCK_BYTES: usize = 4096;
/// Sectors (LBNs) per 4 KiB block.
pub const SECTORS_PER_BLOCK: u64 = (BLOCK_BYTES / 512) as u64;

/// One 4 KiB block of data.
pub type Block = Box<[u8; BLOCK_BYTES]>;

/// A block of zeros.
pub fn zero_block() -> Block {
    // Made on the heap: `Box::new([0; N])` fills an array on the stack and copies it
    // (a memset and a memcpy per block; a third of `spindle torture`'s time).
    boxed(vec![0u8; BLOCK_BYTES])
}

/// A block filled from a slice (shorter slices are zero-padded, longer ones cut).
pub fn block_from(bytes: &[u8]) -> Block {
    let n = bytes.len().min(BLOCK_BYTES);
    let mut v = Vec::with_capacity(BLOCK_BYTES);
    v.extend_from_slice(&bytes[..n]);
    v.resize(BLOCK_BYTES, 0);
    boxed(v)
}

/// A `BLOCK_BYTES`-long vector as a block.
fn boxed(v: Vec<u8>) -> Block {
    match v.into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("blocks are built BLOCK_BYTES long"),
    }
}

/// XORs `src` into `dst` (parity arithmetic).
pub fn xor_into(dst: &mut [u8; BLOCK_BYTES], src: &[u8; BLOCK_BYTES]) {
    for (d, s) in dst.iter_mut().zip(src.iter()) {
        *d ^= s;
    }
}

/// Sparse block contents addressed by 4 KiB block number. Each block is kept without
/// its trailing zero bytes, so small payloads cost little memory; reads give back the
/// full 4 KiB.
#[derive(Clone, Debug, Default)]
pub struct BlockStore {
    blocks: FxHashMap<u64, Box<[u8]>>,
}

fn trimmed(data: &[u8]) -> Box<[u8]> {
    let end = data.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    data[..end].into()
}

impl BlockStore {
    pub fn new() -> BlockStore {
        BlockStore::default()
    }

    /// The block's bytes (zeros if never written).
    pub fn read(&self, block: u64) -> Block {
        match self.blocks.get(&block) {
            Some(b) => block_from(b),
            None => zero_block(),
        }
    }

    pub fn write(&mut self, block: u64, data: &[u8; BLOCK_BYTES]) {
        self.blocks.insert(block, trimmed(data));
    }

    /// Whether the block holds written data.
    pub fn contains(&self, block: u64) -> bool {
        self.blocks.contains_key(&block)
    }

    /// Flips one bit in place (silent corruption, "bit rot"). Returns false if the
    /// block was never written (nothing to corrupt).
    pub fn flip_bit(&mut self, block: u64, bit: usize) -> bool {
        match self.blocks.get_mut(&block) {
            Some(b) => {
                let bit = bit % (BLOCK_BYTES * 8);
                let mut full = block_from(b);
                full[bit / 8] ^= 1 << (bit % 8);
                *b = trimmed(&full[..]);
                true
            }
            None => false,
        }
    }

    /// Forgets everything (a replaced disk).
    pub fn clear(&mut self) {
        self.blocks.clear();
    }

    /// Written blocks, in no particular order.
    pub fn written(&self) -> impl Iterator<Item = u64> + '_ {
        self.blocks.keys().copied()
    }

    /// Number of written blocks (memory accounting).
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwritten_blocks_read_as_zeros_and_writes_persist() {
        let mut s = BlockStore::new();
        assert_eq!(*s.read(7), [0u8; BLOCK_BYTES]);
        let b = block_from(b"hello");
        s.write(7, &b);
        assert_eq!(s.read(7), b);
        assert!(s.flip_bit(7, 0));
        assert_eq!(s.read(7)[0], b'h' ^ 1);
        assert!(!s.flip_bit(8, 0));
    }

    #[test]
    fn xor_is_its_own_inverse() {
        let a = block_from(b"abc");
        let mut p = block_from(b"xyz");
        xor_into(&mut p, &a);
        xor_into(&mut p, &a);
        assert_eq!(p, block_from(b"xyz"));
    }
}
