//! Data layout over the RAID-4 back end: the proximal-I/O data layout engine with a
//! flash staging area, its update-in-place and write-anywhere baselines, snapshots and
//! crash recovery.

pub mod dle;
pub mod freespace;
pub mod replay;

pub use dle::{DestageProgress, Dle, DleConfig, DleError, LayoutPolicy, NONE};
pub use freespace::FreeSpace;
pub use replay::{replay_layout, LayoutConfig, LayoutRunResult};

#[cfg(test)]
mod tests;
