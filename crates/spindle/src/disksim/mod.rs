//! Whole DiskSim 4.0 configurations: the topology of drivers, buses, controllers and
//! logical organizations as a spindle stack ([`system`]); the synthetic generator
//! blocks into a workload ([`synthio`]); DiskSim's simple disk ([`simpledisk`]); an
//! intelligent controller's caches ([`cachemem`], [`cachedev`]). The disk's own
//! blocks and the libparam language are read by [`crate::disk::parv`], re-exported
//! here as [`import`], [`param`] and [`names`].

pub use crate::disk::parv::{import, names, param};

pub mod cachedev;
pub mod cachemem;
pub mod driverq;
pub mod simpledisk;
pub mod suite_files;
pub mod synthio;
pub mod system;

/// DiskSim's eight synthetic configurations of its `valid/` suite, bundled in
/// `data/disksim/` (the tests that read each of them share this list).
#[cfg(test)]
pub(crate) const SUITE: [&str; 8] = [
    "synthopen",
    "synthclosed",
    "synthmixed",
    "synthraid5",
    "syntharrays",
    "synthcachemem",
    "synthcachedev",
    "synthsimpledisk",
];
