//! Replaying a workload through a layout engine over a RAID-4 group (`layout = "dle"`
//! in a run configuration): trace sectors map to 16 MB extents of the volume, requests
//! are served one at a time in arrival order, and the summary reports response times
//! and what the back end did (destage batches, amplification, I/Os per revolution).

use super::dle::{Dle, DleConfig, LayoutPolicy};
use crate::array::{BatchReport, Raid4, Raid4Config};
use crate::disk::params::DiskParams;
use crate::experiments::prox_raid::T2Row;
use crate::flash::presets::preset as flash_preset;
use crate::store::{block_from, SECTORS_PER_BLOCK};
use crate::time::SimTime;
use crate::trace::IoRecord;
use serde::{Deserialize, Serialize};

/// Blocks per extent (16 MB) when a flat trace address space is cut into extents.
const EXTENT_BLOCKS: u64 = 4096;

/// The `[layout]` table of a run configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LayoutConfig {
    /// `dle` (flash staging + proximal destage), `update-in-place` or `write-anywhere`.
    pub kind: LayoutPolicy,
    /// Staging area as a percentage of the volume.
    #[serde(default = "default_staging_pct")]
    pub staging_pct: f64,
    /// Writes smaller than this go to staging (KiB).
    #[serde(default = "default_threshold_kib")]
    pub threshold_kib: u64,
    /// Allocation range and stripe unit (KiB).
    #[serde(default = "default_range_kib")]
    pub allocation_range_kib: u64,
    #[serde(default = "default_data_disks")]
    pub data_disks: usize,
    /// Flash preset of the staging device.
    #[serde(default = "default_flash")]
    pub flash: String,
}

fn default_staging_pct() -> f64 {
    1.0
}
fn default_threshold_kib() -> u64 {
    168
}
fn default_range_kib() -> u64 {
    1024
}
fn default_data_disks() -> usize {
    4
}
fn default_flash() -> String {
    "x25m-g2".into()
}

impl LayoutConfig {
    /// The defaults: 1 % staging, 168 KiB threshold, 1 MB ranges, 4+1, X25 staging.
    pub fn new(kind: LayoutPolicy) -> LayoutConfig {
        LayoutConfig {
            kind,
            staging_pct: default_staging_pct(),
            threshold_kib: default_threshold_kib(),
            allocation_range_kib: default_range_kib(),
            data_disks: default_data_disks(),
            flash: default_flash(),
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=100.0).contains(&self.staging_pct) {
            return Err(format!(
                "layout.staging-pct must be 0-100, got {}",
                self.staging_pct
            ));
        }
        if self.allocation_range_kib == 0 || !self.allocation_range_kib.is_multiple_of(4) {
            return Err(format!(
                "layout.allocation-range-kib must be a positive multiple of 4, got {}",
                self.allocation_range_kib
            ));
        }
        if self.data_disks == 0 {
            return Err("layout.data-disks must be at least 1".into());
        }
        Ok(())
    }
}

/// What a replay did.
#[derive(Clone, Debug, Serialize)]
pub struct LayoutRunResult {
    pub requests: usize,
    pub reads: usize,
    pub writes: usize,
    pub mean_response_ms: f64,
    pub p50_response_ms: f64,
    pub p99_response_ms: f64,
    pub max_response_ms: f64,
    pub simulated_s: f64,
    pub staged_blocks: u64,
    pub direct_blocks: u64,
    pub destages: u64,
    /// PROX-T2's columns over every RAID write batch (destaged extents and direct writes).
    pub write_batches: T2Row,
}

/// Replays `records` (in arrival order) through the layout over a RAID-4 of `disk`.
pub fn replay_layout(
    disk: &DiskParams,
    cfg: &LayoutConfig,
    records: &[IoRecord],
    progress: &mut dyn FnMut(usize),
) -> Result<LayoutRunResult, String> {
    cfg.validate()?;
    let range = cfg.allocation_range_kib / 4;
    let raid_cfg = Raid4Config {
        data_disks: cfg.data_disks,
        stripe_unit_blocks: range,
        ..Raid4Config::default()
    };
    let raid = Raid4::new(disk.clone(), raid_cfg).map_err(|e| e.to_string())?;
    let volume = raid.layout().volume_blocks();
    let dle_cfg = DleConfig {
        policy: cfg.kind,
        staging_blocks: (cfg.staging_pct / 100.0 * volume as f64).round() as u64,
        small_write_blocks: cfg.threshold_kib.div_ceil(4),
        range_blocks: range,
        ..DleConfig::default()
    };
    let flash = flash_preset(&cfg.flash).map_err(|e| e.to_string())?;
    let mut d = Dle::new(raid, flash, dle_cfg).map_err(|e| e.to_string())?;
    let extents = volume.min(u64::from(u32::MAX)) / EXTENT_BLOCKS;
    let mut created = rustc_hash::FxHashSet::default();
    let mut resp = Vec::with_capacity(records.len());
    let (mut reads, mut writes) = (0, 0);
    for (i, r) in records.iter().enumerate() {
        // One request at a time: the next starts when this one's disk and flash work ends.
        let free = d.raid().now().max(d.flash_done);
        d.raid_mut().idle_until(free.max(SimTime(r.arrival.0)));
        let start = d.raid().now().max(SimTime(r.arrival.0));
        let first = r.lbn / SECTORS_PER_BLOCK;
        let last = (r.lbn + u64::from(r.blocks.max(1)) - 1) / SECTORS_PER_BLOCK;
        // A request crossing extents is served extent by extent.
        let mut b = first;
        while b <= last {
            let extent = (b / EXTENT_BLOCKS) % extents.max(1);
            let off = b % EXTENT_BLOCKS;
            let n = (last - b + 1).min(EXTENT_BLOCKS - off);
            let e = extent as u32;
            if created.insert(e) {
                d.create(e, EXTENT_BLOCKS).map_err(|x| x.to_string())?;
            }
            if r.write {
                let data: Vec<_> = (0..n)
                    .map(|k| block_from(format!("request {i} block {}", b + k).as_bytes()))
                    .collect();
                d.write(e, off, &data)
                    .map_err(|x| format!("request {i}: {x}"))?;
            } else {
                d.read(e, off, n).map_err(|x| format!("request {i}: {x}"))?;
            }
            b += n;
        }
        if r.write {
            writes += 1;
        } else {
            reads += 1;
        }
        let done = d.raid().now().max(d.flash_done);
        resp.push((done.0.saturating_sub(start.0)) as f64 / 1e6);
        if i % 1024 == 0 {
            progress(i);
        }
    }
    progress(records.len());
    let batches: Vec<BatchReport> = d.batches.clone();
    let rev_ms = 60_000.0 / disk.mech.rpm;
    let mut sorted = resp.clone();
    sorted.sort_by(f64::total_cmp);
    let q = |p: f64| {
        sorted
            .get(((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0.0)
    };
    Ok(LayoutRunResult {
        requests: records.len(),
        reads,
        writes,
        mean_response_ms: resp.iter().sum::<f64>() / resp.len().max(1) as f64,
        p50_response_ms: q(0.5),
        p99_response_ms: q(0.99),
        max_response_ms: sorted.last().copied().unwrap_or(0.0),
        simulated_s: d.raid().now().as_ms() / 1e3,
        staged_blocks: d.stats.staged_blocks,
        direct_blocks: d.stats.direct_blocks,
        destages: d.stats.destages,
        write_batches: T2Row::from_batches("write batches", &batches, rev_ms),
    })
}
