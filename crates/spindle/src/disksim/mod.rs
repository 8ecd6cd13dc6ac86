//! DiskSim 4.0 parameter files: the libparam language ([`param`]) and the import of
//! `disksim_disk` / `dm_disk` blocks into spindle disks ([`import`]), refusing names
//! outside DiskSim's parameter tables ([`names`]); the synthetic generator blocks into
//! a workload ([`synthio`]); DiskSim's simple disk ([`simpledisk`]).

pub mod driverq;
pub mod import;
pub mod names;
pub mod param;
pub mod simpledisk;
pub mod synthio;
pub mod system;
