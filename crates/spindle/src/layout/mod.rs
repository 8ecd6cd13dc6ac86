//! Data layout over the RAID-4 back end: the proximal-I/O data layout engine with a
//! flash staging area, its update-in-place and write-anywhere baselines, snapshots and
//! crash recovery.

pub mod config;
pub mod dle;
pub mod freespace;
pub mod metalog;
pub mod node;
pub mod torture;

pub use config::LayoutConfig;
pub use dle::{DestageProgress, Dle, DleConfig, DleError, LayoutPolicy, NONE};
pub use freespace::FreeSpace;
pub use metalog::{MetaLogStats, Tear};
pub use node::LayoutNode;

#[cfg(test)]
mod tests;
