//! Everything that describes one disk drive: geometry, mechanics, controller and cache.
//! Presets and the DiskSim importer both produce a [`DiskParams`].

use super::geometry::GeometrySpec;
use super::seek::SeekCurve;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiskParams {
    pub name: String,
    /// Where the numbers come from (paper, DiskSim file, derivation).
    pub provenance: String,
    pub geometry: GeometrySpec,
    pub mech: Mechanics,
    pub ctrl: Controller,
    pub cache: Cache,
    pub firmware: Firmware,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mechanics {
    pub seek: SeekCurve,
    /// Time to switch heads; a seek and a head switch overlap (the longer one counts).
    pub head_switch_ms: f64,
    /// Added to every non-zero positioning time of a write; may be negative.
    pub write_settle_ms: f64,
    pub rpm: f64,
    /// Optional spindle-speed variation: the speed drifts smoothly within ± this
    /// percentage of nominal (a sinusoid of `rpm_variation_period_s`, with a phase
    /// drawn from `rpm_variation_seed`). 0 = constant speed, the default.
    pub rpm_variation_pct: f64,
    #[serde(default = "default_drift_period")]
    pub rpm_variation_period_s: f64,
    #[serde(default)]
    pub rpm_variation_seed: u64,
}

fn default_drift_period() -> f64 {
    60.0
}

/// Command-processing overheads (ms), indexed by the type of the previous request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AfterPrev {
    pub after_read: f64,
    pub after_write: f64,
}

impl AfterPrev {
    pub fn same(ms: f64) -> AfterPrev {
        AfterPrev {
            after_read: ms,
            after_write: ms,
        }
    }
    pub fn get(&self, prev_write: bool) -> f64 {
        if prev_write {
            self.after_write
        } else {
            self.after_read
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Controller {
    pub read_hit: AfterPrev,
    pub read_miss: AfterPrev,
    pub write_hit: AfterPrev,
    pub write_miss: AfterPrev,
    pub read_complete_ms: f64,
    pub write_complete_ms: f64,
    pub data_prep_ms: f64,
    pub first_reselect_ms: f64,
    pub other_reselect_ms: f64,
    pub read_disconnect: AfterPrev,
    pub write_disconnect_ms: f64,
    /// HP C2247A double/triple disconnect on non-appending writes.
    pub extra_write_disconnect: Option<ExtraDisconnect>,
    /// Writes that do not continue a sequential media write seek at least this long.
    pub min_seek_ms: f64,
    /// Host-side time per 512-byte block, reads and writes: max(bus, disk bulk time).
    pub bus_read_block_ms: f64,
    pub bus_write_block_ms: f64,
    pub hold_bus_read: bool,
    pub hold_bus_write: bool,
    pub never_disconnect: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExtraDisconnect {
    pub command_ms: f64,
    pub disconnect_ms: f64,
    pub inter_disconnect_ms: f64,
    pub second_disconnect_ms: f64,
    pub seek_delta_ms: f64,
}

/// Read-ahead policy (DiskSim `Buffer continuous read`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadAhead {
    None,
    ToTrackEnd,
    ToCylinderEnd,
    /// Up to the maximum read-ahead past the request.
    Max,
    /// Stay one track ahead of a sequential stream.
    OneTrackAhead,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    pub enabled: bool,
    pub segments: u32,
    pub segment_blocks: u32,
    pub max_write_segments: u32,
    pub separate_write_segment: bool,
    pub read_ahead: ReadAhead,
    pub max_read_ahead: u32,
    /// DiskSim's `Read-ahead over requested` as written in the file (0, 1 or −1).
    pub read_ahead_over_requested: i32,
    pub read_ahead_on_idle_hit: bool,
    pub read_any_free_blocks: bool,
    pub read_hits_on_write_data: bool,
    /// 0 = write-through; ≥ 1 = write-back (completion once data is in the buffer).
    pub fast_write_level: u32,
    pub combine_seq_writes: bool,
    pub stop_prefetch_in_sector: bool,
    pub immediate_read: bool,
    pub immediate_write: bool,
    /// Reconnect thresholds as fractions (DiskSim high/low water marks).
    pub high_water: f64,
    pub low_water: f64,
    pub watermark_by_reqsize: bool,
    /// DiskSim's `Allow almost read hits`: a read whose first block is the next one
    /// the running read-ahead will fetch joins the read-ahead (a queued sequential
    /// read streams on instead of waiting a revolution).
    #[serde(default)]
    pub almost_read_hits: bool,
}

impl Cache {
    /// No cache: every request goes to the media, no read-ahead, write-through.
    pub fn disabled() -> Cache {
        Cache {
            enabled: false,
            segments: 1,
            segment_blocks: 2048,
            max_write_segments: 1,
            separate_write_segment: false,
            read_ahead: ReadAhead::None,
            max_read_ahead: 0,
            read_ahead_over_requested: 1,
            read_ahead_on_idle_hit: false,
            read_any_free_blocks: false,
            read_hits_on_write_data: true,
            fast_write_level: 0,
            combine_seq_writes: false,
            stop_prefetch_in_sector: true,
            immediate_read: false,
            immediate_write: false,
            high_water: 0.0,
            low_water: 0.0,
            watermark_by_reqsize: true,
            almost_read_hits: false,
        }
    }
}

/// Scheduling inside the drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FirmwarePolicy {
    Fcfs,
    /// Shortest positioning time first, from the drive's own geometry.
    Sptf,
    /// A limited SPTF, modelling the firmware flaw of the proximal I/O paper §2.5
    /// (Figure 4: strands issued in random order get no benefit from the drive's
    /// reordering; issued in ascending LBN order they do). The firmware scans its queue
    /// in arrival order and stops at the first command whose LBN is below its
    /// predecessor's: SPTF chooses only among the leading ascending-LBN run. A queue
    /// filled in ascending order is one run (full SPTF); a randomly ordered one is
    /// nearly FIFO (a random order of 8 has a leading run of 1.7 on average).
    SptfAscendingRun,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Firmware {
    pub queue_depth: u32,
    pub policy: FirmwarePolicy,
    /// Command turnaround: a command's media access starts at least this long after
    /// the previous command's media access ended (positioning overlaps it). DiskSim
    /// has no such delay (0); drives whose firmware needs time to finish one command
    /// and set up the next show it as lost revolutions for close-by queued requests.
    #[serde(default)]
    pub turnaround_ms: f64,
    /// Firmware write cache in 512-byte sectors (0: off, writes go to the media before
    /// they complete). With it on, a write completes once its data is in the buffer
    /// and the drive writes it to the media later (`Drive`'s destage).
    #[serde(default)]
    pub write_cache_sectors: u64,
}

impl Default for Firmware {
    fn default() -> Self {
        Firmware {
            queue_depth: 1,
            policy: FirmwarePolicy::Fcfs,
            turnaround_ms: 0.0,
            write_cache_sectors: 0,
        }
    }
}
