//! Where a volume block lives in a RAID-4 array whose members keep one checksum block
//! after every 63 data blocks (ALG-PROX-DLE: "one checksum block per 63 data blocks",
//! emulating Data ONTAP's zone checksums on 512-byte-sector SATA disks).
//!
//! Units: volume and member addresses are 4 KiB blocks. On each member, physical
//! blocks come in zones of 64: slots 0–62 hold data (or parity), slot 63 the checksum
//! block describing them. A member's *row* is its data-block index skipping checksum
//! slots; row r of every data member and of the parity member form one parity stripe
//! row. Stripe units are counted in rows.

use serde::{Deserialize, Serialize};

/// Data blocks described by one checksum block.
pub const DATA_PER_ZONE: u64 = 63;
/// Physical blocks per zone (63 data + 1 checksum).
pub const ZONE_BLOCKS: u64 = DATA_PER_ZONE + 1;

/// The position of one volume block: member disk and row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Place {
    pub disk: usize,
    pub row: u64,
}

/// Address arithmetic of a RAID-4 group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Data members (the parity member is index `data_disks`).
    pub data_disks: usize,
    /// Stripe unit in rows (4 KiB blocks); 256 = 1 MB.
    pub stripe_unit: u64,
    /// Rows available on each member (whole stripe units only).
    pub rows: u64,
    /// RAID-5: the parity rotates stripe by stripe (stripe `s`'s parity on member
    /// `members - 1 - s mod members`), its data units around it left-asymmetric (the
    /// other members in order) or left-symmetric (starting after the parity, wrapping).
    /// RAID-4 (`None`): parity always on the last member.
    pub rotation: Option<ParityLayout>,
}

impl Layout {
    /// A layout for members of `member_blocks` physical 4 KiB blocks each.
    pub fn new(data_disks: usize, stripe_unit: u64, member_blocks: u64) -> Layout {
        let stripe_unit = stripe_unit.max(1);
        let data_rows = Layout::data_rows_of(member_blocks);
        Layout {
            data_disks: data_disks.max(1),
            stripe_unit,
            rows: data_rows / stripe_unit * stripe_unit,
            rotation: None,
        }
    }

    /// The data blocks a member of `member_blocks` holds: its blocks less their
    /// checksum blocks, in whole checksum zones.
    pub fn data_rows_of(member_blocks: u64) -> u64 {
        member_blocks / ZONE_BLOCKS * DATA_PER_ZONE
    }

    /// Index of the parity member of a RAID-4 (the last).
    pub fn parity_disk(&self) -> usize {
        self.data_disks
    }

    /// The parity member of `row`.
    pub fn parity_of(&self, row: u64) -> usize {
        match self.rotation {
            Some(_) => {
                let n = self.members() as u64;
                (n - 1 - (row / self.stripe_unit) % n) as usize
            }
            None => self.data_disks,
        }
    }

    /// The member holding data unit `k` (0-based, `k < data_disks`) of `row`'s stripe.
    pub fn data_member(&self, row: u64, k: usize) -> usize {
        match self.rotation {
            Some(l) => {
                l.place(self.members() as u64, row / self.stripe_unit, k as u64)
                    .0
            }
            None => k,
        }
    }

    /// The data unit (0-based) a data member holds in `row`'s stripe (inverse of
    /// `data_member`).
    fn unit_of(&self, row: u64, disk: usize) -> usize {
        let n = self.members();
        let p = self.parity_of(row);
        match self.rotation {
            Some(ParityLayout::LeftAsymmetric) => disk - usize::from(disk > p),
            Some(ParityLayout::LeftSymmetric) => (disk + n - p - 1) % n,
            None => disk,
        }
    }

    /// The members holding `row`'s data, in data-unit order.
    pub fn data_members(&self, row: u64) -> impl Iterator<Item = usize> + '_ {
        (0..self.data_disks).map(move |k| self.data_member(row, k))
    }

    pub fn members(&self) -> usize {
        self.data_disks + 1
    }

    /// Volume capacity in 4 KiB blocks.
    pub fn volume_blocks(&self) -> u64 {
        self.rows * self.data_disks as u64
    }

    /// Where volume block `v` lives (v < volume_blocks).
    pub fn place(&self, v: u64) -> Place {
        let width = self.stripe_unit * self.data_disks as u64;
        let stripe = v / width;
        let within = v % width;
        let row = stripe * self.stripe_unit + within % self.stripe_unit;
        let k = (within / self.stripe_unit) as usize;
        Place {
            disk: self.data_member(row, k),
            row,
        }
    }

    /// The volume block stored at a data member's row (inverse of `place`).
    pub fn volume_block(&self, p: Place) -> u64 {
        let width = self.stripe_unit * self.data_disks as u64;
        let stripe = p.row / self.stripe_unit;
        let k = self.unit_of(p.row, p.disk);
        stripe * width + k as u64 * self.stripe_unit + p.row % self.stripe_unit
    }
}

/// The physical block holding a row's data on its member.
pub fn data_block(row: u64) -> u64 {
    row / DATA_PER_ZONE * ZONE_BLOCKS + row % DATA_PER_ZONE
}

/// The row whose data a physical block holds (`None` for a checksum block).
pub fn row_of_block(block: u64) -> Option<u64> {
    let slot = block % ZONE_BLOCKS;
    (slot < DATA_PER_ZONE).then(|| block / ZONE_BLOCKS * DATA_PER_ZONE + slot)
}

/// The physical block of the checksum block describing a row.
pub fn checksum_block(row: u64) -> u64 {
    row / DATA_PER_ZONE * ZONE_BLOCKS + DATA_PER_ZONE
}

/// The entry of `row` inside its checksum block.
pub fn checksum_slot(row: u64) -> usize {
    (row % DATA_PER_ZONE) as usize
}

/// The zone (checksum block index) of a row.
pub fn zone_of(row: u64) -> u64 {
    row / DATA_PER_ZONE
}

/// Where a RAID-5 row's data units go around its rotating parity. Both put row `r`'s
/// parity on member `n - 1 - r mod n`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParityLayout {
    /// Data unit `k` on member `(p + 1 + k) mod n`: data follows the parity around
    /// (Linux md's default).
    #[default]
    LeftSymmetric,
    /// Data units fill the members in order, skipping the parity member (the thesis's
    /// Fig 6.1 and its Adaptec 2200S).
    LeftAsymmetric,
}

impl ParityLayout {
    pub fn name(self) -> &'static str {
        match self {
            ParityLayout::LeftSymmetric => "left-symmetric",
            ParityLayout::LeftAsymmetric => "left-asymmetric",
        }
    }

    /// The member holding data unit `k` of row `row` of an `n`-member RAID-5, and the
    /// row's parity member.
    pub fn place(self, n: u64, row: u64, k: u64) -> (usize, usize) {
        let p = n - 1 - row % n;
        let m = match self {
            ParityLayout::LeftSymmetric => (p + 1 + k) % n,
            ParityLayout::LeftAsymmetric => k + u64::from(k >= p),
        };
        (m as usize, p as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn checksum_blocks_follow_every_63_data_blocks() {
        assert_eq!(data_block(0), 0);
        assert_eq!(data_block(62), 62);
        assert_eq!(checksum_block(62), 63);
        assert_eq!(data_block(63), 64);
        assert_eq!(checksum_block(63), 127);
        for row in [0, 1, 62, 63, 64, 125, 126, 1_000_003] {
            assert_eq!(row_of_block(data_block(row)), Some(row));
            assert_eq!(row_of_block(checksum_block(row)), None);
        }
    }

    #[test]
    fn stripe_units_rotate_over_data_disks() {
        let l = Layout::new(4, 256, 1 << 20);
        assert_eq!(l.place(0), Place { disk: 0, row: 0 });
        assert_eq!(l.place(256), Place { disk: 1, row: 0 });
        assert_eq!(l.place(1024), Place { disk: 0, row: 256 });
        assert_eq!(l.parity_disk(), 4);
    }

    /// RAID-5 (Figure 6.1): 3 data members, one unit per block: blocks 4, 5, 6 (1-based)
    /// on members 0, 1, 3 with their parity on member 2; the parity walks down.
    #[test]
    fn rotating_parity_is_left_asymmetric() {
        let l = Layout {
            rotation: Some(ParityLayout::LeftAsymmetric),
            ..Layout::new(3, 1, 1 << 20)
        };
        let at = |v: u64| l.place(v);
        assert_eq!(
            [at(0).disk, at(1).disk, at(2).disk, l.parity_of(0)],
            [0, 1, 2, 3]
        );
        assert_eq!(
            [at(3).disk, at(4).disk, at(5).disk, l.parity_of(1)],
            [0, 1, 3, 2]
        );
        assert_eq!(
            [at(6).disk, at(7).disk, at(8).disk, l.parity_of(2)],
            [0, 2, 3, 1]
        );
        assert_eq!(l.parity_of(3), 0);
        assert_eq!(l.parity_of(4), 3);
    }

    /// Left-symmetric (Linux md's default): each stripe's data starts on the member
    /// after its parity and wraps around, so 3 data members, one unit per block, put
    /// blocks 3, 4, 5 on members 3, 0, 1 around parity on member 2.
    #[test]
    fn rotating_parity_left_symmetric_follows_the_parity_around() {
        let l = Layout {
            rotation: Some(ParityLayout::LeftSymmetric),
            ..Layout::new(3, 1, 1 << 20)
        };
        let row = |s: u64| -> Vec<usize> { (3 * s..3 * s + 3).map(|v| l.place(v).disk).collect() };
        assert_eq!((row(0), l.parity_of(0)), (vec![0, 1, 2], 3));
        assert_eq!((row(1), l.parity_of(1)), (vec![3, 0, 1], 2));
        assert_eq!((row(2), l.parity_of(2)), (vec![2, 3, 0], 1));
        assert_eq!((row(3), l.parity_of(3)), (vec![1, 2, 3], 0));
        assert_eq!(l.data_members(1).collect::<Vec<_>>(), vec![3, 0, 1]);
    }

    proptest! {
        #[test]
        fn place_and_volume_block_are_inverse(v in 0u64..4_000_000, su in 1u64..600, n in 1usize..8, which in 0u8..3) {
            let rotation = [None, Some(ParityLayout::LeftAsymmetric), Some(ParityLayout::LeftSymmetric)][which as usize];
            let l = Layout { rotation, ..Layout::new(n, su, 10_000_000) };
            prop_assume!(v < l.volume_blocks());
            let p = l.place(v);
            prop_assert!(p.disk < n + 1 && p.row < l.rows);
            prop_assert!(p.disk != l.parity_of(p.row));
            prop_assert!(rotation.is_some() || p.disk < n);
            let unit = (v % (su * n as u64)) / su;
            prop_assert_eq!(p.disk, l.data_member(p.row, unit as usize));
            if let Some(r) = rotation {
                // The same placement as the timing model's RAID-5.
                let (m, q) = r.place(n as u64 + 1, p.row / su, unit);
                prop_assert_eq!((m, q), (p.disk, l.parity_of(p.row)));
            }
            prop_assert_eq!(l.volume_block(p), v);
            prop_assert_ne!(data_block(p.row), checksum_block(p.row));
        }
    }
}
