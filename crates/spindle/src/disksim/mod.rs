//! DiskSim 4.0 parameter files: the libparam language ([`param`]) and the import of
//! `disksim_disk` / `dm_disk` blocks into spindle disks ([`import`]).

pub mod import;
pub mod param;
