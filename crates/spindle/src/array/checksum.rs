//! Per-block metadata: 64 bytes for each 4 KiB data or parity block — checksum, write
//! generation and the block's identity — packed 63 to a checksum block whose last 64
//! bytes protect the checksum block itself.
//!
//! What each field catches on read:
//! - checksum of (identity, generation, data): bit rot, torn or misdirected data;
//! - generation against the host's expected generation: lost writes, even when the
//!   data write and its checksum-block write were both dropped;
//! - identity (owner, member, row): a block written to the wrong place;
//! - the checksum block's own trailer: corruption of the metadata itself.

use super::layout::DATA_PER_ZONE;
use crate::store::{Block, BLOCK_BYTES};
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

const ENTRY_BYTES: usize = 64;
const TRAILER: usize = DATA_PER_ZONE as usize * ENTRY_BYTES;
const MAGIC: u32 = 0x5350_434b; // "SPCK"
const PARITY_OWNER: u64 = 1 << 63;

/// Whose content a block holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// A data block of the volume.
    Data(u64),
    /// The parity of a stripe row.
    Parity(u64),
}

impl Owner {
    fn code(self) -> u64 {
        match self {
            Owner::Data(v) => v,
            Owner::Parity(r) => PARITY_OWNER | r,
        }
    }

    fn from_code(c: u64) -> Owner {
        if c & PARITY_OWNER != 0 {
            Owner::Parity(c & !PARITY_OWNER)
        } else {
            Owner::Data(c)
        }
    }
}

/// The metadata of one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub checksum: u64,
    pub generation: u64,
    pub owner: Owner,
    pub disk: u32,
    pub row: u64,
}

impl Entry {
    /// The entry describing `data` written as generation `generation` of `owner` at
    /// (`disk`, `row`).
    pub fn describe(owner: Owner, disk: u32, row: u64, generation: u64, data: &[u8]) -> Entry {
        Entry {
            checksum: data_checksum(owner, disk, row, generation, data),
            generation,
            owner,
            disk,
            row,
        }
    }

    /// Whether `data` is what this entry describes.
    pub fn matches(&self, data: &[u8]) -> bool {
        self.checksum == data_checksum(self.owner, self.disk, self.row, self.generation, data)
    }
}

fn data_checksum(owner: Owner, disk: u32, row: u64, generation: u64, data: &[u8]) -> u64 {
    let mut id = [0u8; 28];
    id[..8].copy_from_slice(&owner.code().to_le_bytes());
    id[8..12].copy_from_slice(&disk.to_le_bytes());
    id[12..20].copy_from_slice(&row.to_le_bytes());
    id[20..28].copy_from_slice(&generation.to_le_bytes());
    xxh3_64_with_seed(data, xxh3_64(&id))
}

/// The decoded contents of one checksum block: up to 63 entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChecksumBlock {
    pub entries: [Option<Entry>; DATA_PER_ZONE as usize],
}

/// Why a checksum block could not be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChecksumBlockError {
    /// Its own checksum does not match: bit rot or a stray write landed on it.
    Corrupt,
    /// It is intact but belongs to another member or zone (misdirected write).
    Misplaced,
}

impl Default for ChecksumBlock {
    fn default() -> Self {
        ChecksumBlock {
            entries: [None; DATA_PER_ZONE as usize],
        }
    }
}

impl ChecksumBlock {
    /// Encodes the block for member `disk`, zone `zone`.
    pub fn encode(&self, disk: u32, zone: u64) -> Block {
        let mut b = crate::store::zero_block();
        for (i, e) in self.entries.iter().enumerate() {
            let Some(e) = e else { continue };
            let o = i * ENTRY_BYTES;
            b[o..o + 8].copy_from_slice(&e.checksum.to_le_bytes());
            b[o + 8..o + 16].copy_from_slice(&e.generation.to_le_bytes());
            b[o + 16..o + 24].copy_from_slice(&e.owner.code().to_le_bytes());
            b[o + 24..o + 28].copy_from_slice(&e.disk.to_le_bytes());
            b[o + 28..o + 36].copy_from_slice(&e.row.to_le_bytes());
            b[o + 36] = 1;
        }
        b[TRAILER + 8..TRAILER + 12].copy_from_slice(&disk.to_le_bytes());
        b[TRAILER + 12..TRAILER + 20].copy_from_slice(&zone.to_le_bytes());
        b[TRAILER + 20..TRAILER + 24].copy_from_slice(&MAGIC.to_le_bytes());
        let sum = self_checksum(&b);
        b[TRAILER..TRAILER + 8].copy_from_slice(&sum.to_le_bytes());
        b
    }

    /// Decodes and verifies a block read from member `disk`, zone `zone`. An all-zero
    /// block (never written) is an empty checksum block.
    pub fn decode(b: &[u8; BLOCK_BYTES], disk: u32, zone: u64) -> Result<Self, ChecksumBlockError> {
        if b.iter().all(|&x| x == 0) {
            return Ok(ChecksumBlock::default());
        }
        if u64_at(b, TRAILER) != self_checksum(b) || u32_at(b, TRAILER + 20) != MAGIC {
            return Err(ChecksumBlockError::Corrupt);
        }
        if u32_at(b, TRAILER + 8) != disk || u64_at(b, TRAILER + 12) != zone {
            return Err(ChecksumBlockError::Misplaced);
        }
        Ok(Self::entries_of(b))
    }

    /// The entries of a block that fails its own checksum, as they stand. Any of them
    /// may be damaged: use one only to confirm data it fully matches (identity,
    /// expected generation and checksum), never to rule anything out. A bit flip in
    /// one entry leaves the other 62 usable.
    pub fn salvage(b: &[u8; BLOCK_BYTES]) -> Self {
        Self::entries_of(b)
    }

    fn entries_of(b: &[u8; BLOCK_BYTES]) -> Self {
        let mut out = ChecksumBlock::default();
        for (i, slot) in out.entries.iter_mut().enumerate() {
            let o = i * ENTRY_BYTES;
            if b[o + 36] != 1 {
                continue;
            }
            *slot = Some(Entry {
                checksum: u64_at(b, o),
                generation: u64_at(b, o + 8),
                owner: Owner::from_code(u64_at(b, o + 16)),
                disk: u32_at(b, o + 24),
                row: u64_at(b, o + 28),
            });
        }
        out
    }
}

fn self_checksum(b: &[u8; BLOCK_BYTES]) -> u64 {
    xxh3_64_with_seed(&b[..TRAILER], xxh3_64(&b[TRAILER + 8..]))
}

fn u64_at(b: &[u8], o: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[o..o + 8]);
    u64::from_le_bytes(x)
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[o..o + 4]);
    u32::from_le_bytes(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::block_from;

    #[test]
    fn encode_decode_round_trip_and_detection() {
        let data = block_from(b"payload");
        let e = Entry::describe(Owner::Data(99), 2, 40, 7, &data[..]);
        assert!(e.matches(&data[..]));
        assert!(!Entry { generation: 6, ..e }.matches(&data[..]));
        let mut cb = ChecksumBlock::default();
        cb.entries[40] = Some(e);
        cb.entries[3] = Some(Entry::describe(Owner::Parity(3), 4, 3, 1, &data[..]));
        let enc = cb.encode(2, 0);
        assert_eq!(ChecksumBlock::decode(&enc, 2, 0), Ok(cb.clone()));
        assert_eq!(
            ChecksumBlock::decode(&enc, 3, 0),
            Err(ChecksumBlockError::Misplaced)
        );
        let mut bad = enc.clone();
        bad[100] ^= 4;
        assert_eq!(
            ChecksumBlock::decode(&bad, 2, 0),
            Err(ChecksumBlockError::Corrupt)
        );
        let empty = crate::store::zero_block();
        assert_eq!(
            ChecksumBlock::decode(&empty, 2, 0),
            Ok(ChecksumBlock::default())
        );
    }
}
