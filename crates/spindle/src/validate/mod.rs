//! Validation against real-drive measurements: DiskSim's validate traces and the
//! Ruemmler–Wilkes demerit figure.

pub mod calibrate;
pub mod demerit;
pub mod phase;
pub mod probes;
pub mod replay;
pub mod trace;
