//! Disk arrays that store real bytes: a RAID-4 group with per-block checksums,
//! write generations and identities (the back end of the proximal-I/O data layout
//! engine, ALG-PROX-DLE), fault injection, degraded mode and rebuild.

pub mod campaign;
pub mod checksum;
pub mod error;
pub mod faults;
pub mod layout;
pub mod members;
pub mod mirror;
pub mod raid4;

pub use campaign::{run_fault_campaign, FaultCampaign, FaultReport};
pub use error::ArrayError;
pub use faults::{FaultInjector, Injected, MemberFaults};
pub use layout::Layout;
pub use mirror::{FailAt, Mirror, MirrorBatch, MirrorOp};
pub use raid4::{
    ios_per_revolution, BatchReport, Detection, FaultKind, MemberState, Raid4, Raid4Config,
};

#[cfg(test)]
mod crash_points_tests;
#[cfg(test)]
mod heal_tests;
#[cfg(test)]
pub(crate) mod mirror_tests;
#[cfg(test)]
mod tests;
