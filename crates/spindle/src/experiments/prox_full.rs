//! PROX-T2 at the paper's full scale: a 4+1 RAID-4 of whole 1 TB wd-re3 drives,
//! filled to 89 % with 16 MB extents (209,612), 2000 random 4 KiB updates per extent
//! (419 M), then the 1 % staging row measured over whole destage cycles, beside the
//! baseline row.
//!
//! What makes it run in minutes and a few GB (decisions):
//! - The array keeps no bytes (`DataMode::TimingOnly`): the same disk I/Os, executor
//!   and drive model as with real bytes, hence the same timing (tested), without the
//!   ~60 GB of contents and per-block generations.
//! - Aging is layout-only: the fill and the random updates only decide where blocks
//!   live (the paper measures none of their I/O), so they run through the engine's
//!   allocator with no flash or disk simulation. The measured destage cycles after it
//!   run with full timing, each RAID batch preceded by one random read per drive, as
//!   in the scaled run. The clock starts the measurement at zero instead of after
//!   hours of aging I/O; the random head moves make that irrelevant to the statistics.

use super::options::RunOpts;
use super::prox_common::{
    aged_engine_with, layout_stack, measure_destages_with, AgingSpec, StagedRows, T2Row,
};
use crate::layout::{DestageProgress, LayoutPolicy};
use crate::store::DataMode;
use std::io::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The full-scale 1 % row and how it was made.
pub struct FullScaleRow {
    pub row: T2Row,
    pub spec: AgingSpec,
    pub volume_blocks: u64,
    pub staging_blocks: u64,
    pub destages: u64,
    pub aging_s: f64,
    pub measure_s: f64,
    /// Peak resident memory of the process (the OS's high-water mark), when known.
    pub peak_rss_mb: Option<f64>,
}

impl FullScaleRow {
    pub fn scale_note(&self) -> String {
        format!(
            "full scale: a 4+1 RAID-4 of whole wd-re3 drives ({:.2} TB data volume, {} blocks), \
             {} extents of 16 MB ({:.0} % full), {} random 4 KiB updates per extent ({} in all), \
             staging {} blocks ({:.0} % of the volume, {:.1} per extent). The array keeps no bytes \
             (timing only: the same disk I/Os and timing as real bytes), and the aging is \
             layout-only (its placements without simulated I/O); the row is the mean over every \
             extent batch of {} full destage cycle(s) after it, simulated with full timing, each \
             batch preceded by one random read per drive. Wall time: aging {:.0} s, measurement \
             {:.0} s{}.",
            self.volume_blocks as f64 * 4096.0 / 1e12,
            self.volume_blocks,
            self.spec.extents,
            100.0 * self.spec.fill,
            self.spec.updates_per_extent,
            self.spec.updates_per_extent * u64::from(self.spec.extents),
            self.staging_blocks,
            100.0 * self.spec.staging,
            self.staging_blocks as f64 / f64::from(self.spec.extents.max(1)),
            self.destages,
            self.aging_s,
            self.measure_s,
            self.peak_rss_mb
                .map(|m| format!("; peak resident memory {:.1} GB", m / 1024.0))
                .unwrap_or_default(),
        )
    }
}

/// Progress on stderr: the phase, its share done and the time since the start, at
/// most every few seconds and at every new phase.
struct Progress {
    start: Instant,
    last: Option<(String, Instant)>,
}

impl Progress {
    fn report(&mut self, phase: &str, done: u64, total: u64) {
        let now = Instant::now();
        let due = match &self.last {
            Some((p, t)) => p != phase || now.duration_since(*t).as_secs_f64() >= 5.0,
            None => true,
        };
        if due {
            let _ = writeln!(
                std::io::stderr(),
                "PROX-T2 full scale: {phase} {:5.1} % ({:.0} s elapsed)",
                100.0 * done as f64 / total.max(1) as f64,
                now.duration_since(self.start).as_secs_f64()
            );
            self.last = Some((phase.to_string(), now));
        }
    }
}

/// A destage progress hook that prints at most every 5 s (and at the end), with the
/// time since the measured destage began.
fn destage_progress() -> DestageProgress {
    let clock: Mutex<Option<(Instant, Instant)>> = Mutex::new(None);
    DestageProgress(Arc::new(move |done: u64, total: u64| {
        let Ok(mut clock) = clock.lock() else { return };
        let now = Instant::now();
        let (start, last) = clock.get_or_insert((now, now));
        if done == total || now.duration_since(*last).as_secs_f64() >= 5.0 {
            let _ = writeln!(std::io::stderr(),
                "PROX-T2 full scale: measured destage, extent batches {:5.1} % ({:.0} s into the measurement)",
                100.0 * done as f64 / total.max(1) as f64,
                now.duration_since(*start).as_secs_f64()
            );
            *last = now;
        }
    }))
}

/// The peak resident memory of this process (Linux: VmHWM in /proc/self/status).
fn peak_rss_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Ages the whole group layout-only, then measures `destages` full destage cycles of
/// the `staging` row (a fraction of the volume) with full timing.
pub fn full_scale_row(o: &RunOpts, staging: f64, destages: u64) -> Result<FullScaleRow, String> {
    // The whole group's data volume: the stack without a volume bound, timing only.
    let volume = layout_stack(
        "[workload]\n[layout]\nkind = \"dle\"\ndata = \"timing-only\"\n\
         [[disks]]\ndisk = \"wd-re3\"\n",
    )?
    .raid()
    .layout()
    .volume_blocks();
    let fill = 0.89;
    let spec = AgingSpec {
        extents: AgingSpec::full_scale_extents(volume, fill),
        fill,
        updates_per_extent: 2000,
        staging,
        policy: LayoutPolicy::Proximal,
        seed: o.seed,
        data: DataMode::TimingOnly,
        layout_only_aging: true,
        durability: o.durability,
    };
    let mut progress = Progress {
        start: Instant::now(),
        last: None,
    };
    let t = Instant::now();
    let mut d = aged_engine_with(&spec, &mut |p, a, b| progress.report(p, a, b))?;
    let aging_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    d.destage_progress = Some(destage_progress());
    let reports = measure_destages_with(&mut d, &spec, destages, &mut |p, a, b| {
        progress.report(p, a, b)
    })?;
    let measure_s = t.elapsed().as_secs_f64();
    progress.report("done", 1, 1);
    let rev_ms = 60_000.0 / d.raid().disk_params().mech.rpm;
    let row = T2Row::from_batches(
        &format!("{:.0}% (full scale)", 100.0 * staging),
        &reports,
        rev_ms,
    );
    debug_assert!(d.config().volume_blocks <= volume);
    Ok(FullScaleRow {
        row,
        volume_blocks: d.config().volume_blocks,
        staging_blocks: d.config().staging_blocks,
        spec,
        destages,
        aging_s,
        measure_s,
        peak_rss_mb: peak_rss_mb(),
    })
}

/// PROX-T2's staged rows at full scale: the 1 % row over one whole destage cycle.
pub fn full_scale_staged_rows(o: &RunOpts) -> Result<StagedRows, String> {
    let full = full_scale_row(o, 0.01, 1)?;
    let _ = writeln!(std::io::stderr(),
        "PROX-T2 full scale: 1 % row: {} batches, resp {:.1} ms, user writes {:.1}, ampl {:.2}x, \
         {:.2} I/Os per rev, data ST {:.2} ms, parity ST {:.2} ms; aging {:.0} s, measurement {:.0} s, \
         peak RSS {}",
        full.row.batches,
        full.row.resp_ms,
        full.row.user_writes,
        full.row.amplification,
        full.row.ios_per_rev,
        full.row.data_st_ms,
        full.row.parity_st_ms,
        full.aging_s,
        full.measure_s,
        full.peak_rss_mb
            .map_or("unknown".into(), |m| format!("{:.2} GB", m / 1024.0)),
    );
    Ok(StagedRows {
        note: full.scale_note(),
        rows: vec![(1.0, full.row)],
    })
}
