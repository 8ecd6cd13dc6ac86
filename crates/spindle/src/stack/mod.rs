//! The parts of a storage stack and how they are put together: host queues
//! ([`queue`]), drives ([`drive_node`]), arrays and volume sets ([`array`]), the device
//! tree as data ([`tree`]), and what a run measured ([`metrics`]). The run as a whole
//! (workload and stack in TOML) is [`crate::config`]. Every part is a sans-IO [`crate::node::Device`]; the
//! engine ([`crate::engine`]) runs them.

pub use crate::parts::{drive_node, queue};

pub mod arms;
pub mod array;
pub mod cache;
pub mod compact_log;
pub mod faults;
pub mod fio;
pub mod journal;
pub mod journal_array;
pub mod journal_torture;
pub mod layer;
pub mod metrics;
pub mod mimd;
pub mod mimd_bytes;
pub mod propagation;
pub mod raid_mimic;
pub mod split;
pub mod stripe_lock;
pub mod torture;
pub mod tree;

#[cfg(test)]
mod propagation_tests;
