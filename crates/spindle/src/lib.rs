//! spindle: a fast, faithful, disk-aware storage stack.
//!
//! The foundation is a hard-disk model ([`disk`]) that loads DiskSim parameter files
//! ([`disksim`]) and is validated against real-drive measurements ([`validate`]). A
//! simple flash (SSD) timing model ([`flash`]) serves staging areas and metadata.

pub mod array;
pub mod bench;
pub mod config;
pub mod dedup;
pub mod disk;
pub mod disksim;
pub mod engine;
pub mod expected;
pub mod experiments;
pub mod flash;
pub mod idmap;
pub mod in_flight;
pub mod interrupt;
pub mod layers;
pub mod layout;
pub mod mimic;
pub mod node;
pub mod offload;
pub mod parts;
pub mod prefetch;
pub mod record;
pub mod report;
pub mod runner;
pub mod sched;
pub mod show;
pub mod stack;
pub mod store;
pub mod time;
pub mod toml_error;
pub mod trace;
pub mod validate;
pub mod workload;
