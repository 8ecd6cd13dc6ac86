//! Block I/O traces: one record type for every format, readers for real formats, a CSV
//! writer, and the built-in sample traces.

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
    /// Content hashes (MD5) of the request's blocks, in order, where the format has
    /// them (FIU traces: one per 4 KiB block); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<[u8; 16]>,
}
