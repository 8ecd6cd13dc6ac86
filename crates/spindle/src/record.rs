//! The request record every part of spindle speaks: what a trace line, a generator or
//! an experiment hands the engine. The trace readers make it from files.

use crate::time::SimTime;
use serde::Serialize;

/// One traced request, as the host issued it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IoRecord {
    /// Issue time, from the start of the trace.
    pub arrival: SimTime,
    /// Device (disk) number in the trace.
    pub device: u32,
    /// First 512-byte sector.
    pub lbn: u64,
    /// Size in 512-byte sectors (at least 1).
    pub blocks: u32,
    pub write: bool,
    /// Content hashes (MD5) where the format has them; empty otherwise. FIU traces give
    /// one digest per record, covering the record's blocks (4 KiB in web-vm and mail).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<[u8; 16]>,
}
