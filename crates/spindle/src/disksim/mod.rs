//! DiskSim 4.0 parameter files: the libparam language ([`param`]) and the import of
//! `disksim_disk` / `dm_disk` blocks into spindle disks ([`import`]), refusing names
//! outside DiskSim's parameter tables ([`names`]); the synthetic generator blocks into
//! a workload ([`synthio`]); DiskSim's simple disk ([`simpledisk`]); an intelligent
//! controller's caches ([`cachemem`], [`cachedev`]).

pub mod cachedev;
pub mod cachemem;
pub mod driverq;
pub mod import;
pub mod names;
pub mod param;
pub mod simpledisk;
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
