//! Everything that describes one disk drive: geometry, mechanics, controller and cache.
//! Presets and the DiskSim importer both produce a [`DiskParams`].

use super::buffer_residual::BufferResidual;
use super::geometry::GeometrySpec;
use super::residual::PositioningResidual;
use super::seek::SeekCurve;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[serde(deny_unknown_fields)]
pub struct Mechanics {
    pub seek: SeekCurve,
    /// Time to switch heads; a seek and a head switch overlap (the longer one counts).
    pub head_switch_ms: f64,
    /// Added to every non-zero positioning time of a write; may be negative. Where the
    /// firmware has a command turnaround, the settle comes after it (see
    /// `Firmware::turnaround_ms`).
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
    /// Measured corrections to a foreground read's positioning, by class (fitted by
    /// `spindle calibrate`; none by default).
    #[serde(default, skip_serializing_if = "PositioningResidual::is_none")]
    pub read_residual: PositioningResidual,
}

fn default_drift_period() -> f64 {
    60.0
}

/// Command-processing overheads (ms), indexed by the type of the previous request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[serde(deny_unknown_fields)]
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
#[serde(deny_unknown_fields)]
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
#[serde(deny_unknown_fields)]
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
    /// DiskSim's choice of a write's segment (`disk_buffer_select_write_segment`),
    /// made when the write arrives: never the segment a read-ahead is filling, which
    /// keeps the data it holds when the read-ahead stops for the write (DiskSim only
    /// empties clean segments no request is using). Set for whole DiskSim
    /// configurations; off, a write may take over the stopped read-ahead's segment.
    #[serde(default, skip_serializing_if = "is_false")]
    pub disksim_write_segment: bool,
    /// Measured corrections to the time of requests served from the buffer (fitted by
    /// `spindle calibrate`; none by default).
    #[serde(default, skip_serializing_if = "BufferResidual::is_none")]
    pub buffer_residual: BufferResidual,
}

fn is_false(b: &bool) -> bool {
    !*b
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
            disksim_write_segment: false,
            buffer_residual: Default::default(),
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
#[serde(deny_unknown_fields)]
pub struct Firmware {
    pub queue_depth: u32,
    pub policy: FirmwarePolicy,
    /// Command turnaround: a command's media access starts at least this long after
    /// the previous command's media access ended (positioning overlaps it). DiskSim
    /// has no such delay (0); drives whose firmware needs time to finish one command
    /// and set up the next show it as lost revolutions for close-by queued requests.
    /// It is the floor a read's repositioning meets; a write's extra settle is added
    /// after it (the proximal I/O paper's slower write strands, PROX-T1).
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

/// Largest rotation speed a drive may have, rpm (a 60 µs revolution). Faster spindles
/// would make a revolution shorter than the model's picosecond clock can divide.
pub const MAX_RPM: f64 = 1_000_000.0;
/// Smallest rotation speed, rpm (a one-minute revolution).
pub const MIN_RPM: f64 = 1.0;
/// Most cache segments a drive may have (each is a small record held in memory).
pub const MAX_CACHE_SEGMENTS: u32 = 1 << 16;
/// Largest cache segment, 512-byte sectors (8 GiB).
pub const MAX_SEGMENT_BLOCKS: u32 = 1 << 24;
/// Most cylinders a drive may have (the seek table holds one entry per distance).
pub const MAX_CYLINDERS: u32 = 1 << 22;
/// Most data surfaces (heads).
pub const MAX_SURFACES: u32 = 1 << 10;
/// Most sectors per track.
pub const MAX_SECTORS_PER_TRACK: u32 = 1 << 20;
/// Most zones.
pub const MAX_ZONES: usize = 1 << 12;
/// Largest capacity, 512-byte sectors (2^48 sectors = 128 PiB).
pub const MAX_CAPACITY_SECTORS: u64 = 1 << 48;
/// Deepest command queue inside a drive.
pub const MAX_FIRMWARE_QUEUE_DEPTH: u32 = 1 << 16;
/// Largest firmware write cache, 512-byte sectors (2 TiB).
pub const MAX_WRITE_CACHE_SECTORS: u64 = 1 << 32;
/// Longest time any one overhead, delay or seek may take, ms (a seek table entry is
/// held in u32 nanoseconds: at most 4.29 s).
pub const MAX_TIME_MS: f64 = 4_000.0;

/// A parameter outside its documented range: which one, its value and what was expected.
fn out_of_range(name: &str, value: impl std::fmt::Display, expected: &str) -> String {
    format!("{name} must be {expected}, got {value}")
}

/// A seek table's points: at least one, distances strictly increasing (the lookup
/// interpolates between neighbours), times within the limit. A point at distance 0
/// only anchors the interpolation towards the first one (a drive that does not move
/// never seeks), so its time may be any in range (calibration shifts it with the rest).
fn check_seek_table(points: &[(u32, f64)]) -> Result<(), String> {
    if points.is_empty() {
        return Err("the seek table must hold at least one (distance, ms) point, got none".into());
    }
    let mut last: Option<u32> = None;
    for &(d, ms) in points {
        if last.is_some_and(|l| d <= l) {
            return Err(out_of_range(
                "a seek table distance",
                d,
                &format!("above the previous one ({})", last.unwrap_or(0)),
            ));
        }
        if d == 0 {
            // Calibration shifts the anchor with every other point, below 0 too.
            check_time("the seek table's anchor at 0 cylinders", ms, true)?;
        } else {
            check_time(&format!("the seek time at {d} cylinders"), ms, false)?;
        }
        last = Some(d);
    }
    Ok(())
}

fn check_time(name: &str, ms: f64, may_be_negative: bool) -> Result<(), String> {
    let lo = if may_be_negative { -MAX_TIME_MS } else { 0.0 };
    if ms.is_finite() && ms >= lo && ms <= MAX_TIME_MS {
        Ok(())
    } else if may_be_negative {
        Err(out_of_range(
            name,
            ms,
            &format!("a time within -{MAX_TIME_MS}..={MAX_TIME_MS} ms"),
        ))
    } else {
        Err(out_of_range(
            name,
            ms,
            &format!("a time within 0..={MAX_TIME_MS} ms"),
        ))
    }
}

/// A parameter outside its range: the message, and where the parameter sits in a drive
/// file (`cache.high_water`, `geometry.zones.3.spt`: tables and keys, numbers index
/// arrays), so that a drive file's reader can point at its line.
#[derive(Clone, Debug, PartialEq)]
pub struct InvalidParam {
    pub key: String,
    pub msg: String,
}

/// [`out_of_range`] for the parameter at `key`.
fn out_of_range_at(
    key: impl Into<String>,
    name: &str,
    value: impl std::fmt::Display,
    expected: &str,
) -> InvalidParam {
    invalid(key, out_of_range(name, value, expected))
}

fn invalid(key: impl Into<String>, msg: String) -> InvalidParam {
    InvalidParam {
        key: key.into(),
        msg,
    }
}

/// [`check_time`] for the parameter at `key`.
fn check_time_at(
    key: &str,
    name: &str,
    ms: f64,
    may_be_negative: bool,
) -> Result<(), InvalidParam> {
    check_time(name, ms, may_be_negative).map_err(|m| invalid(key, m))
}

impl DiskParams {
    /// Checks every number against its documented limit (the `MAX_*` constants of this
    /// module), before anything is allocated from it. Errors name the parameter, its
    /// value and the range expected.
    pub fn validate(&self) -> Result<(), String> {
        self.check().map_err(|e| e.msg)
    }

    /// [`DiskParams::validate`], saying which parameter failed.
    pub fn check(&self) -> Result<(), InvalidParam> {
        if self.name.trim().is_empty() {
            return Err(invalid("name", "the drive's name must not be empty".into()));
        }
        if let SeekCurve::Table { points } = &self.mech.seek {
            check_seek_table(points).map_err(|m| invalid("mech.seek", m))?;
        }
        let g = &self.geometry;
        if g.surfaces == 0 || g.surfaces > MAX_SURFACES {
            return Err(out_of_range_at(
                "geometry.surfaces",
                "surfaces",
                g.surfaces,
                &format!("within 1..={MAX_SURFACES}"),
            ));
        }
        if g.zones.is_empty() || g.zones.len() > MAX_ZONES {
            return Err(out_of_range_at(
                "geometry.zones",
                "the number of zones",
                g.zones.len(),
                &format!("within 1..={MAX_ZONES}"),
            ));
        }
        let mut capacity: u128 = 0;
        for (i, z) in g.zones.iter().enumerate() {
            if z.last_cyl >= MAX_CYLINDERS {
                return Err(out_of_range_at(
                    format!("geometry.zones.{i}.last_cyl"),
                    &format!("zone {i}: last cylinder"),
                    z.last_cyl,
                    &format!("below {MAX_CYLINDERS} (at most {MAX_CYLINDERS} cylinders)"),
                ));
            }
            if z.spt == 0 || z.spt > MAX_SECTORS_PER_TRACK {
                return Err(out_of_range_at(
                    format!("geometry.zones.{i}.spt"),
                    &format!("zone {i}: sectors per track"),
                    z.spt,
                    &format!("within 1..={MAX_SECTORS_PER_TRACK}"),
                ));
            }
            let cyls = (z.last_cyl as u128 + 1).saturating_sub(z.first_cyl as u128);
            capacity += cyls * g.surfaces as u128 * z.spt as u128;
        }
        if capacity > MAX_CAPACITY_SECTORS as u128 {
            return Err(out_of_range_at(
                "geometry.zones",
                "the raw capacity",
                format!("{capacity} sectors"),
                &format!("at most {MAX_CAPACITY_SECTORS} sectors"),
            ));
        }
        let m = &self.mech;
        m.read_residual
            .validate()
            .map_err(|e| invalid("mech.read_residual", e))?;
        self.cache
            .buffer_residual
            .validate()
            .map_err(|e| invalid("cache.buffer_residual", e))?;
        if !(m.rpm >= MIN_RPM && m.rpm <= MAX_RPM) {
            return Err(out_of_range_at(
                "mech.rpm",
                "rotation speed",
                format!("{} rpm", m.rpm),
                &format!("within {MIN_RPM}..={MAX_RPM} rpm"),
            ));
        }
        check_time_at(
            "mech.head_switch_ms",
            "head switch time",
            m.head_switch_ms,
            false,
        )?;
        check_time_at(
            "mech.write_settle_ms",
            "write settle delay",
            m.write_settle_ms,
            true,
        )?;
        let c = &self.ctrl;
        let times = [
            (
                "ctrl.read_hit.after_read",
                "read hit overhead after a read",
                c.read_hit.after_read,
            ),
            (
                "ctrl.read_hit.after_write",
                "read hit overhead after a write",
                c.read_hit.after_write,
            ),
            (
                "ctrl.read_miss.after_read",
                "read miss overhead after a read",
                c.read_miss.after_read,
            ),
            (
                "ctrl.read_miss.after_write",
                "read miss overhead after a write",
                c.read_miss.after_write,
            ),
            (
                "ctrl.write_hit.after_read",
                "write hit overhead after a read",
                c.write_hit.after_read,
            ),
            (
                "ctrl.write_hit.after_write",
                "write hit overhead after a write",
                c.write_hit.after_write,
            ),
            (
                "ctrl.write_miss.after_read",
                "write miss overhead after a read",
                c.write_miss.after_read,
            ),
            (
                "ctrl.write_miss.after_write",
                "write miss overhead after a write",
                c.write_miss.after_write,
            ),
            (
                "ctrl.read_complete_ms",
                "read completion overhead",
                c.read_complete_ms,
            ),
            (
                "ctrl.write_complete_ms",
                "write completion overhead",
                c.write_complete_ms,
            ),
            (
                "ctrl.data_prep_ms",
                "data preparation overhead",
                c.data_prep_ms,
            ),
            (
                "ctrl.first_reselect_ms",
                "first reselect overhead",
                c.first_reselect_ms,
            ),
            (
                "ctrl.other_reselect_ms",
                "other reselect overhead",
                c.other_reselect_ms,
            ),
            (
                "ctrl.read_disconnect.after_read",
                "read disconnect after a read",
                c.read_disconnect.after_read,
            ),
            (
                "ctrl.read_disconnect.after_write",
                "read disconnect after a write",
                c.read_disconnect.after_write,
            ),
            (
                "ctrl.write_disconnect_ms",
                "write disconnect overhead",
                c.write_disconnect_ms,
            ),
            ("ctrl.min_seek_ms", "minimum seek delay", c.min_seek_ms),
            (
                "ctrl.bus_read_block_ms",
                "bus time per block read",
                c.bus_read_block_ms,
            ),
            (
                "ctrl.bus_write_block_ms",
                "bus time per block written",
                c.bus_write_block_ms,
            ),
            (
                "firmware.turnaround_ms",
                "command turnaround",
                self.firmware.turnaround_ms,
            ),
        ];
        for (key, name, ms) in times {
            check_time_at(key, name, ms, false)?;
        }
        if let Some(x) = &c.extra_write_disconnect {
            let x_times = [
                (
                    "command_ms",
                    "extra disconnect command overhead",
                    x.command_ms,
                    false,
                ),
                (
                    "disconnect_ms",
                    "extra disconnect overhead",
                    x.disconnect_ms,
                    false,
                ),
                (
                    "inter_disconnect_ms",
                    "extra disconnect inter-disconnect delay",
                    x.inter_disconnect_ms,
                    false,
                ),
                (
                    "second_disconnect_ms",
                    "extra disconnect 2nd disconnect overhead",
                    x.second_disconnect_ms,
                    false,
                ),
                (
                    "seek_delta_ms",
                    "extra disconnect seek delta",
                    x.seek_delta_ms,
                    true,
                ),
            ];
            for (key, name, ms, may_be_negative) in x_times {
                check_time_at(
                    &format!("ctrl.extra_write_disconnect.{key}"),
                    name,
                    ms,
                    may_be_negative,
                )?;
            }
        }
        let k = &self.cache;
        if k.segments == 0 || k.segments > MAX_CACHE_SEGMENTS {
            return Err(out_of_range_at(
                "cache.segments",
                "cache segments",
                k.segments,
                &format!("within 1..={MAX_CACHE_SEGMENTS}"),
            ));
        }
        if k.segment_blocks == 0 || k.segment_blocks > MAX_SEGMENT_BLOCKS {
            return Err(out_of_range_at(
                "cache.segment_blocks",
                "cache segment size",
                format!("{} sectors", k.segment_blocks),
                &format!("within 1..={MAX_SEGMENT_BLOCKS} sectors"),
            ));
        }
        if k.max_read_ahead > k.segment_blocks {
            return Err(out_of_range_at(
                "cache.max_read_ahead",
                "maximum read-ahead",
                k.max_read_ahead,
                &format!("at most the segment size ({})", k.segment_blocks),
            ));
        }
        if k.max_write_segments == 0 || k.max_write_segments > k.segments {
            return Err(out_of_range_at(
                "cache.max_write_segments",
                "maximum write segments",
                k.max_write_segments,
                &format!("within 1..={} (the cache segments)", k.segments),
            ));
        }
        if k.fast_write_level > 2 {
            return Err(out_of_range_at(
                "cache.fast_write_level",
                "fast write level",
                k.fast_write_level,
                "0 (write-through), 1 or 2 (write-back)",
            ));
        }
        if !(-1..=1).contains(&k.read_ahead_over_requested) {
            return Err(out_of_range_at(
                "cache.read_ahead_over_requested",
                "read-ahead over requested",
                k.read_ahead_over_requested,
                "-1, 0 or 1 (DiskSim's values)",
            ));
        }
        for (key, name, v) in [
            ("cache.high_water", "high water mark", k.high_water),
            ("cache.low_water", "low water mark", k.low_water),
        ] {
            // DiskSim's loader takes both within 0..=1 (a share of the request or segment).
            if !(0.0..=1.0).contains(&v) {
                return Err(out_of_range_at(
                    key,
                    name,
                    v,
                    "a fraction within 0..=1 (DiskSim's range)",
                ));
            }
        }
        let f = &self.firmware;
        if f.queue_depth == 0 || f.queue_depth > MAX_FIRMWARE_QUEUE_DEPTH {
            return Err(out_of_range_at(
                "firmware.queue_depth",
                "the drive's command queue depth",
                f.queue_depth,
                &format!("within 1..={MAX_FIRMWARE_QUEUE_DEPTH}"),
            ));
        }
        if f.write_cache_sectors > MAX_WRITE_CACHE_SECTORS {
            return Err(out_of_range_at(
                "firmware.write_cache_sectors",
                "the firmware write cache",
                format!("{} sectors", f.write_cache_sectors),
                &format!("at most {MAX_WRITE_CACHE_SECTORS} sectors"),
            ));
        }
        Ok(())
    }
}

/// Largest drive file `read_drive_file` reads (bytes).
pub const MAX_DRIVE_FILE_BYTES: u64 = 16 << 20;

impl DiskParams {
    /// The parameters as a spindle drive file (TOML), e.g. a calibrated drive.
    pub fn to_drive_file(&self) -> Result<String, String> {
        toml::to_string(self).map_err(|e| format!("cannot write the drive as TOML: {e}"))
    }

    /// Reads a spindle drive file (TOML, as `to_drive_file` writes it) and checks every
    /// parameter against its limit. Errors name the file and the line (of a syntax error, or
    /// of a parameter out of range).
    pub fn read_drive_file(path: &std::path::Path) -> Result<DiskParams, String> {
        let shown = path.display();
        let len = std::fs::metadata(path)
            .map_err(|e| format!("cannot read drive file {shown}: {e}"))?
            .len();
        if len > MAX_DRIVE_FILE_BYTES {
            return Err(format!(
                "drive file {shown} holds {len} bytes; at most {MAX_DRIVE_FILE_BYTES} are read"
            ));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read drive file {shown}: {e}"))?;
        let p: DiskParams = toml::from_str(&text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            match line {
                Some(l) => format!("{shown}:{l}: {}", e.message()),
                None => format!("{shown}: {}", e.message()),
            }
        })?;
        p.check().map_err(|e| match line_of_key(&text, &e.key) {
            Some(l) => format!("{shown}:{l}: {}", e.msg),
            None => format!("{shown}: {}", e.msg),
        })?;
        Ok(p)
    }
}

/// The line (from 1) of the value at `key` (dot-separated; numbers index arrays) in a
/// drive file's text, or of the deepest table on its way that the file writes (a key
/// left to its default has no line of its own).
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    let doc = toml_edit::ImDocument::parse(text).ok()?;
    let mut item = doc.as_item();
    let mut span = None;
    for part in key.split('.') {
        let next = match part.parse::<usize>() {
            Ok(i) => item.get(i),
            Err(_) => item.get(part),
        };
        let Some(next) = next else {
            break;
        };
        item = next;
        span = item.span().or(span);
    }
    let start = span?.start;
    Some(text.get(..start)?.matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys of each kind `check` names (a table's key, a subtable's, an array entry's, a
    /// default the file leaves out) are found in a drive file as `to_drive_file` writes
    /// it, and an out-of-range value there is reported at its own line.
    #[test]
    fn a_drive_file_error_names_the_line_of_its_key() {
        let p = crate::disk::presets::disksim_preset("hp_c2247a").unwrap();
        let text = p.to_drive_file().unwrap();
        let line = |needle: &str| {
            text.lines()
                .position(|l| l.trim_start().starts_with(needle))
                .map(|i| i + 1)
        };
        assert_eq!(line_of_key(&text, "cache.high_water"), line("high_water ="));
        assert_eq!(line_of_key(&text, "ctrl.read_hit.after_write"), {
            let from = line("[ctrl.read_hit]").unwrap();
            text.lines()
                .skip(from)
                .position(|l| l.starts_with("after_write"))
                .map(|i| i + from + 1)
        });
        let zone2 = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.starts_with("[[geometry.zones]]"))
            .nth(2)
            .map(|(i, _)| i)
            .unwrap();
        let spt2 = text
            .lines()
            .skip(zone2)
            .position(|l| l.starts_with("spt ="))
            .map(|i| i + zone2 + 1);
        assert_eq!(line_of_key(&text, "geometry.zones.2.spt"), spt2);
        // A key the file leaves to its default: the table's header.
        assert_eq!(line_of_key(&text, "mech.read_residual"), line("[mech]"));
        assert_eq!(line_of_key(&text, "nowhere.at_all"), None);

        let dir = std::env::temp_dir().join(format!("spindle-drive-line-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.toml");
        std::fs::write(&path, text.replace("high_water = 0.75", "high_water = 1.5")).unwrap();
        let e = DiskParams::read_drive_file(&path).unwrap_err();
        let want = format!(
            "d.toml:{}: high water mark must be",
            line("high_water =").unwrap()
        );
        assert!(e.contains(&want), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn water_marks_are_fractions_within_0_and_1() {
        let p = crate::disk::presets::preset("hp-c2249a").unwrap();
        for v in [0.0, 0.5, 1.0] {
            let mut q = p.clone();
            q.cache.high_water = v;
            q.cache.low_water = v;
            assert!(q.validate().is_ok(), "{v}");
        }
        for v in [1.5, -0.1, f64::NAN, f64::INFINITY] {
            let mut q = p.clone();
            q.cache.high_water = v;
            assert!(q.validate().unwrap_err().contains("high water mark"), "{v}");
            let mut q = p.clone();
            q.cache.low_water = v;
            assert!(q.validate().unwrap_err().contains("low water mark"), "{v}");
        }
    }
}
