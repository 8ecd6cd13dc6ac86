//! The command-line front end's parts as a library, so that other fronts (the Python
//! package) parse the same options, build the same stacks and report the same errors.

pub mod bench;
pub mod disks;
pub mod disksim_run;
pub mod experiments;
pub mod limits;
pub mod mimic;
pub mod minimimic;
pub mod options;
pub mod outputs;
pub mod progress;
pub mod raid;
pub mod reproduce;
pub mod run;
pub mod sweep;
pub mod table;
pub mod torture;
pub mod trace_cmd;
pub mod validate;
