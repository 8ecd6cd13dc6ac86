//! DiskSim 4.0 parameter files as far as they describe a disk: the libparam language
//! ([`param`]), DiskSim's parameter names, against which unknown names are refused
//! ([`names`]), and the import of `disksim_disk` / `dm_disk` blocks into spindle's
//! [`DiskParams`](crate::disk::params::DiskParams) ([`import`]). Whole configurations
//! (buses, controllers, arrays, the synthetic generator) are [`crate::disksim`]'s.

pub mod import;
pub mod names;
pub mod param;
