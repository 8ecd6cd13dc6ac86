//! MimdRAID's organizations storing real bytes: a [`Layout`] cut into whole 4 KiB
//! blocks ([`Layout::in_blocks`]) is the placement of the byte-exact replicated array
//! ([`Mirror`]), so a failure test checks every byte an intra-disk array keeps.
//!
//! A block lives wherever the layout puts its first sector. The layout's pieces hold
//! whole blocks, so all eight sectors of a block have their copies on the same
//! members, and a member's copies never share a sector (the layout maps sectors one
//! to one). Each copy is stored whole under the member address of its first sector.
//! Timing is the drive's for eight sectors from that address; where the layout's
//! rotational shift wraps a block around the end of its track, the drive reads the
//! eight in LBN order instead of the wrapped ones (a timing approximation of a sector
//! or two; the bytes are unaffected).

use super::mimd::{Layout, Organization};
use crate::array::mirror::{BlockCopy, Mirror, Placement};
use crate::array::ArrayError;
use crate::disk::drive::Drive;
use crate::disk::params::DiskParams;
use crate::node::Device;
use crate::stack::drive_node::DriveNode;
use crate::store::SECTORS_PER_BLOCK;

/// A MimdRAID layout read as a block placement.
pub struct BlockPlacement {
    layout: Layout,
    members: usize,
}

impl BlockPlacement {
    /// `org` over `members` drives built from `params`; `seed` draws random rotational
    /// angles.
    pub fn new(
        org: Organization,
        params: &DiskParams,
        members: usize,
        seed: u64,
    ) -> Result<BlockPlacement, String> {
        let drives = (0..members)
            .map(|i| {
                let d = Drive::new(params.clone()).map_err(|e| e.to_string())?;
                Ok(Box::new(DriveNode::new(d, format!("member {i}"))) as Box<dyn Device>)
            })
            .collect::<Result<Vec<_>, String>>()?;
        let layout = Layout::in_blocks(org, drives, seed, None)?;
        Ok(BlockPlacement { layout, members })
    }
}

impl Placement for BlockPlacement {
    fn members(&self) -> usize {
        self.members
    }

    fn blocks(&self) -> u64 {
        self.layout.capacity() / SECTORS_PER_BLOCK
    }

    fn copies(&self, block: u64) -> Vec<BlockCopy> {
        self.layout
            .copies_at(block * SECTORS_PER_BLOCK)
            .into_iter()
            .map(|(member, sector, reads)| BlockCopy {
                member,
                key: sector,
                sector,
                reads,
            })
            .collect()
    }

    fn name(&self) -> String {
        self.layout.organization().name()
    }
}

/// A byte-exact array of `members` drives of `params` organized as `org`, each
/// drive behind an FCFS host queue keeping up to `max_outstanding` requests.
pub fn byte_array(
    org: Organization,
    params: &DiskParams,
    members: usize,
    seed: u64,
    max_outstanding: usize,
) -> Result<Mirror, ArrayError> {
    let placement = BlockPlacement::new(org, params, members, seed).map_err(ArrayError::Disk)?;
    Mirror::with_placement(params.clone(), Box::new(placement), max_outstanding)
}

#[cfg(test)]
#[path = "mimd_bytes_tests.rs"]
mod tests;
