//! What the proximal-I/O experiments share: PROX-T2's row (means over RAID batches)
//! and the layout-engine stack they age and measure (PROX-T2's staged rows, PROX-T3,
//! PROX-COST and the full-scale run). No experiment lives here, so the experiments
//! import this module and never one another.
//!
//! Scale: the paper's group holds 4 TB, filled to 89 % with 16 MB extents, then 2000
//! random 4 KiB updates per extent. A scaled run keeps every ratio — 16 MB extents,
//! 89 % fill, 2000 updates per extent, staging as a share of the volume, 1 MB stripe
//! unit and allocation range — with fewer extents, on the first part of each drive.

use super::options::Durability;
use crate::array::{ios_per_revolution, BatchReport, Raid4Config};
use crate::config::RunConfig;
use crate::layout::{Dle, LayoutPolicy};
use crate::store::{block_from, Block, DataMode};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// 16 MB extents in 4 KiB blocks.
pub const EXTENT_BLOCKS: u64 = 4096;
/// Serial reads go in requests of at most this many blocks (indirect-block fan-out).
pub const READ_REQUEST_BLOCKS: u64 = 974;

/// One aging setup.
#[derive(Clone, Debug, Serialize)]
pub struct AgingSpec {
    pub extents: u32,
    /// Fraction of the volume filled with extents.
    pub fill: f64,
    /// Random single-block updates per extent.
    pub updates_per_extent: u64,
    /// Staging area as a fraction of the volume (0 for the baselines).
    pub staging: f64,
    pub policy: LayoutPolicy,
    pub seed: u64,
    /// Real bytes (every scaled run) or timing only (the full-scale run).
    pub data: DataMode,
    /// Age without simulating any I/O (needs timing only): the fill and the random
    /// updates only decide where blocks live; the measured destages are timed.
    pub layout_only_aging: bool,
    /// When a destage's writes count as done (flushed, written through, or cached).
    pub durability: Durability,
}

impl AgingSpec {
    /// The paper's full scale on a volume of `volume_blocks` (the whole drives): as
    /// many 16 MB extents as fill it to `fill`.
    pub fn full_scale_extents(volume_blocks: u64, fill: f64) -> u32 {
        (fill * volume_blocks as f64 / EXTENT_BLOCKS as f64).floor() as u32
    }

    pub fn volume_blocks(&self, stripe_blocks: u64) -> u64 {
        let want = (self.extents as f64 * EXTENT_BLOCKS as f64 / self.fill).ceil() as u64;
        want.div_ceil(stripe_blocks) * stripe_blocks
    }

    pub fn scale_note(&self) -> String {
        let gb = self.extents as f64 * EXTENT_BLOCKS as f64 * 4096.0 / self.fill / 1e9;
        format!(
            "{} extents of 16 MB, {:.0} % full ({gb:.2} GB volume; the paper: ~212,000 extents in 4 TB), \
             {} random 4 KiB updates per extent",
            self.extents,
            100.0 * self.fill,
            self.updates_per_extent
        )
    }
}

/// The stack every layout-engine experiment runs, as a user writes it: the layout
/// engine (`policy`, staging `staging` of the volume on an X25-M) over a 4+1 RAID-4
/// of wd-re3 drives (1 MB stripe unit = allocation range), each member queued in
/// issue order with 8 outstanding (the paper's RAID layer), managing the first
/// `volume_blocks` of the volume. The experiments drive the engine call by call
/// (aging, then measured destages or reads), so the workload is theirs.
pub fn stack_toml(
    policy: LayoutPolicy,
    staging: f64,
    volume_blocks: u64,
    data: DataMode,
    durability: Durability,
) -> Result<String, String> {
    let kind = match policy {
        LayoutPolicy::Proximal => "dle",
        LayoutPolicy::UpdateInPlace => "update-in-place",
        LayoutPolicy::WriteAnywhere => "write-anywhere",
    };
    // The engine takes a percentage; it must give back this very fraction.
    let pct = staging * 100.0;
    if pct / 100.0 != staging || !volume_blocks.is_multiple_of(256) {
        return Err(format!(
            "layout stack: staging {staging} or volume {volume_blocks} blocks has no exact TOML form"
        ));
    }
    // Only the DLE stages; a baseline takes no staging-pct.
    let staging_line = match policy {
        LayoutPolicy::Proximal => format!("staging-pct = {pct:?}\n"),
        _ if staging == 0.0 => String::new(),
        _ => {
            return Err(format!(
                "layout stack: {kind} stages nothing, staging {staging}"
            ))
        }
    };
    let data = match data {
        DataMode::RealBytes => "real-bytes",
        DataMode::TimingOnly => "timing-only",
    };
    Ok(format!(
        "# The workload is the experiment's own: it drives the engine call by call.\n\
         [workload]\n\
         [layout]\nkind = \"{kind}\"\n{staging_line}volume-mib = {}\n\
         data = \"{data}\"\nsync-writes = {}\n\
         [[disks]]\ndisk = \"wd-re3\"\n{}",
        volume_blocks / 256,
        durability.sync_writes(),
        write_cache_line(durability.write_cache_kib()),
    ))
}

/// The `[[disks]]` line that sets the members' write cache (KiB; 0 under the
/// write-through policy), empty for the drive's own cache.
pub fn write_cache_line(kib: Option<u64>) -> String {
    kib.map_or(String::new(), |k| format!("write-cache-kib = {k}\n"))
}

/// Builds the stack `toml` describes and takes its layout engine (and RAID-4) out.
pub fn layout_stack(toml: &str) -> Result<Dle, String> {
    let c = RunConfig::from_toml(toml, "layout stack").map_err(|e| e.to_string())?;
    Ok(c.layout_stack().map_err(|e| e.to_string())?.into_dle())
}

fn content(e: u32, o: u64, v: u64) -> Block {
    block_from(format!("e{e} o{o} v{v}").as_bytes())
}

/// Progress of a long run: (phase, work done, work total).
pub type ProgressFn<'a> = &'a mut dyn FnMut(&str, u64, u64);

/// Builds the group and engine, writes every extent serially, then applies the random
/// updates (staged and destaged as the policy does). Returns the aged engine.
pub fn aged_engine(spec: &AgingSpec) -> Result<Dle, String> {
    aged_engine_with(spec, &mut |_, _, _| {})
}

/// `aged_engine`, reporting progress about a thousand times per phase.
pub fn aged_engine_with(spec: &AgingSpec, progress: ProgressFn) -> Result<Dle, String> {
    // The default RAID-4 of the stack: 4+1, 1 MB stripe unit.
    let raid_cfg = Raid4Config::default();
    let stripe = raid_cfg.stripe_unit_blocks * raid_cfg.data_disks as u64;
    let mut d = layout_stack(&stack_toml(
        spec.policy,
        spec.staging,
        spec.volume_blocks(stripe),
        spec.data,
        spec.durability,
    )?)?;
    d.set_layout_only(spec.layout_only_aging)
        .map_err(|e| e.to_string())?;
    let timing_only = spec.data == DataMode::TimingOnly;
    let extents = u64::from(spec.extents);
    let every = (extents / 1000).max(1);
    for e in 0..spec.extents {
        d.create(e, EXTENT_BLOCKS).map_err(|e| e.to_string())?;
        if timing_only {
            d.write_timing_only(e, 0, EXTENT_BLOCKS)
        } else {
            let data: Vec<Block> = (0..EXTENT_BLOCKS).map(|o| content(e, o, 0)).collect();
            d.write(e, 0, &data)
        }
        .map_err(|e| e.to_string())?;
        if u64::from(e).is_multiple_of(every) {
            progress("fill", u64::from(e), extents);
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let updates = spec.updates_per_extent * extents;
    let every = (updates / 1000).max(1);
    for i in 0..updates {
        let e = rng.gen_range(0..spec.extents);
        let o = rng.gen_range(0..EXTENT_BLOCKS);
        if timing_only {
            d.write_timing_only(e, o, 1)
        } else {
            d.write(e, o, &[content(e, o, i + 1)])
        }
        .map_err(|e| e.to_string())?;
        if i.is_multiple_of(every) {
            progress("aging updates", i, updates);
        }
    }
    d.set_layout_only(false).map_err(|e| e.to_string())?;
    Ok(d)
}

/// After aging: `destages` more full staging cycles of random updates, each RAID batch
/// preceded by random head moves; returns the batches' reports.
pub fn measure_destages(
    d: &mut Dle,
    spec: &AgingSpec,
    destages: u64,
) -> Result<Vec<BatchReport>, String> {
    measure_destages_with(d, spec, destages, &mut |_, _, _| {})
}

/// `measure_destages`, reporting how full the staging area is as progress.
pub fn measure_destages_with(
    d: &mut Dle,
    spec: &AgingSpec,
    destages: u64,
    progress: ProgressFn,
) -> Result<Vec<BatchReport>, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed ^ 0xdead);
    d.scatter = Some(ChaCha8Rng::seed_from_u64(spec.seed ^ 0xbeef));
    let first = d.batches.len();
    let start = d.stats.destages;
    let staging = d.config().staging_blocks;
    let every = (staging / 100).max(1);
    let mut i = 0u64;
    while d.stats.destages < start + destages {
        let e = rng.gen_range(0..spec.extents);
        let o = rng.gen_range(0..EXTENT_BLOCKS);
        i += 1;
        if spec.data == DataMode::TimingOnly {
            d.write_timing_only(e, o, 1)
        } else {
            d.write(e, o, &[content(e, o, 1_000_000 + i)])
        }
        .map_err(|e| e.to_string())?;
        if i.is_multiple_of(every) {
            progress(
                "measured cycles: staging",
                d.staged_blocks() as u64,
                staging,
            );
        }
    }
    d.scatter = None;
    Ok(d.batches[first..].to_vec())
}

/// One staged row of PROX-T2.
pub fn t2_row(spec: &AgingSpec, destages: u64) -> Result<T2Row, String> {
    let mut d = aged_engine(spec)?;
    let reports = measure_destages(&mut d, spec, destages)?;
    let rev_ms = 60_000.0 / d.raid().disk_params().mech.rpm;
    Ok(T2Row::from_batches(
        &format!("{:.0}%", 100.0 * spec.staging),
        &reports,
        rev_ms,
    ))
}

/// The staged rows of PROX-T2 and how they were made.
pub struct StagedRows {
    pub rows: Vec<(f64, T2Row)>,
    pub note: String,
}

/// One row of PROX-T2: means over batches.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct T2Row {
    pub label: String,
    pub batches: usize,
    pub resp_ms: f64,
    pub user_writes: f64,
    pub disk_ios: f64,
    pub amplification: f64,
    /// The paper's I/Os per revolution: [`ios_per_revolution`] on the row's means.
    pub ios_per_rev: f64,
    /// Per data disk that did I/O in the batch.
    pub data_ios: f64,
    pub data_st_ms: f64,
    pub data_util: f64,
    pub parity_ios: f64,
    /// Of `parity_ios`, the reads (the rest are writes).
    pub parity_reads: f64,
    pub parity_st_ms: f64,
    pub parity_util: f64,
    /// From the batch's start to its last read's completion (the rest is writes).
    pub read_phase_ms: f64,
}

impl T2Row {
    /// Averages batch reports. Per disk and batch, ST is the paper's: "the difference
    /// between the completions of the last two I/Os", averaged over the disk's I/Os,
    /// where the first I/O's predecessor is the anti short-stroke read that completed
    /// before the batch began, so ST = (last completion − batch start) / I/Os; the
    /// utilization that results is I/Os × ST / response. (Drive busy time / I/Os would
    /// differ once writes complete from a drive cache.) I/Os per revolution: see
    /// [`ios_per_revolution`], on the row's means.
    pub fn from_batches(label: &str, batches: &[BatchReport], rev_ms: f64) -> T2Row {
        let n = batches.len().max(1) as f64;
        let mut row = T2Row {
            label: label.into(),
            batches: batches.len(),
            ..T2Row::default()
        };
        let (mut data_n, mut parity_n) = (0.0, 0.0);
        for b in batches {
            let resp = b.response_ms().max(1e-9);
            row.resp_ms += resp;
            row.read_phase_ms += b.read_phase_ms();
            row.user_writes += b.user_writes as f64;
            row.disk_ios += b.disk_ios() as f64;
            let parity = b.disks.len().saturating_sub(1);
            for (i, d) in b.disks.iter().enumerate() {
                if d.ios() == 0 {
                    continue;
                }
                let span = d
                    .last_done
                    .map_or(0.0, |t| t.0.saturating_sub(b.start_ns) as f64 / 1e6);
                let st = span / d.ios() as f64;
                if i == parity {
                    row.parity_ios += d.ios() as f64;
                    row.parity_reads += d.reads as f64;
                    row.parity_st_ms += st;
                    row.parity_util += span / resp;
                    parity_n += 1.0;
                } else {
                    row.data_ios += d.ios() as f64;
                    row.data_st_ms += st;
                    row.data_util += span / resp;
                    data_n += 1.0;
                }
            }
        }
        row.resp_ms /= n;
        row.read_phase_ms /= n;
        row.user_writes /= n;
        row.disk_ios /= n;
        row.amplification = row.disk_ios / row.user_writes.max(1e-9);
        for (v, k) in [
            (&mut row.data_ios, data_n),
            (&mut row.data_st_ms, data_n),
            (&mut row.data_util, data_n),
            (&mut row.parity_ios, parity_n),
            (&mut row.parity_reads, parity_n),
            (&mut row.parity_st_ms, parity_n),
            (&mut row.parity_util, parity_n),
        ] {
            *v /= f64::max(k, 1.0);
        }
        row.ios_per_rev = ios_per_revolution(row.data_ios, row.parity_ios, row.resp_ms, rev_ms);
        row
    }

    pub fn columns() -> Vec<String> {
        [
            "configuration",
            "resp. time (ms)",
            "user writes",
            "disk I/Os",
            "I/O ampl.",
            "I/Os p. rev.",
            "data I/Os",
            "data ST (ms)",
            "data util",
            "parity I/Os",
            "parity ST (ms)",
            "parity util",
            "read phase (ms)",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    pub fn cells(&self) -> Vec<String> {
        vec![
            self.label.clone(),
            format!("{:.1}", self.resp_ms),
            format!("{:.1}", self.user_writes),
            format!("{:.1}", self.disk_ios),
            format!("{:.2}x", self.amplification),
            format!("{:.2}", self.ios_per_rev),
            format!("{:.1}", self.data_ios),
            format!("{:.2}", self.data_st_ms),
            format!("{:.0}%", 100.0 * self.data_util),
            format!("{:.1}", self.parity_ios),
            format!("{:.2}", self.parity_st_ms),
            format!("{:.0}%", 100.0 * self.parity_util),
            format!("{:.1}", self.read_phase_ms),
        ]
    }
}
