//! Log skipping and miniMimic (thesis ch. 5): write service times against skip
//! distance, request size and think time on SCSI Disk 1 (LOGSKIP-F5.1 to F5.7), the
//! recommendation surface (F5.8), and the journal layer's log bandwidth with and
//! without skipping and transactional checksums (F5.11, F5.12 with the chapter's
//! headline figures LOGSKIP-SUM, F5.15). Every stack is written as a user writes it (`[device]` and
//! `[[layer]] kind = "journal"` in TOML) and run on the engine; miniMimic's table is
//! sampled on the stack's own log region before the run and handed to the layer.
//!
//! SCSI Disk 1 is the `mimic-9lzx` preset: the thesis's Table 3.1 model of the 9LZX
//! with the controller overheads of DiskSim's validated IBM 18ES (the thesis states
//! none). The IDE disk's figures (F5.10, F5.14, F5.17) run on the `wd1200bb` preset,
//! built from the WD Caviar family's published specifications (see its preset). SCSI
//! Disk 2 (F5.9, F5.13, F5.16) has no sourced model here and is not run.
//!
//! Files:
//! - `mod.rs` (this one): what the others share: the drives, a stack from its TOML and
//!   miniMimic's table sampled on its log region, the size × skip table, the falling
//!   edges of the saw-tooth and the note on the 28 KB edge, the lines that draw a stated
//!   value, and TPC-B runs on a journal stack (its four configurations and grid);
//! - `service_times.rs`: service times against skip distance, think time and request
//!   size (LOGSKIP-F5.1 to F5.4, F5.6, F5.7);
//! - `minimimic.rs`: miniMimic's recommendations and its predictions (LOGSKIP-F5.5,
//!   F5.8, F5.10, F5.11);
//! - `log_bandwidth.rs`: the journal's log bandwidth with and without skipping and
//!   checksums (LOGSKIP-F5.12 with LOGSKIP-SUM, F5.14, F5.15, F5.17).

mod log_bandwidth;
mod minimimic;
mod service_times;

pub use log_bandwidth::{logskip_f5_12, logskip_f5_14, logskip_f5_15, logskip_f5_17};
pub use minimimic::{logskip_f5_10, logskip_f5_11, logskip_f5_5, logskip_f5_8};
pub use service_times::{
    logskip_f5_1, logskip_f5_2, logskip_f5_3, logskip_f5_4, logskip_f5_6, logskip_f5_7,
};

use super::options::RunOpts;
use super::StackToml;
use crate::engine::{self, ClosedSource, RunOptions, Source};
use crate::layers::{with_layers, LayerSpec};
use crate::mimic::minimimic::{sample, Grid, MiniMimic, Region};
use crate::node::{Device, NodeReport};
use crate::report::Series;
use crate::stack::journal::{Probe, SharedTable};
use crate::time::SimTime;
use crate::trace::IoRecord;
use rand::{Rng, SeedableRng};
use std::fmt::Write as _;

/// SCSI Disk 1, the drive of every stack here unless a figure names another.
const DISK: &str = "mimic-9lzx";
/// The thesis's IDE disk (Figures 5.10, 5.14, 5.17).
const IDE_DISK: &str = "wd1200bb";
/// The thesis's log, MiB.
const LOG_MIB: u64 = 40;

/// The stack's TOML: the drive, and a journal in the given mode if any.
fn stack_toml(disk: &str, journal: Option<(bool, bool)>) -> String {
    let mut s = format!("[device]\nkind = \"disk\"\ndisk = \"{disk}\"\n");
    if let Some((checksum, skip)) = journal {
        let _ = write!(
            s,
            "[[layer]]\nkind = \"journal\"\nchecksum = {checksum}\nskip = {skip}\nlog-mib = {LOG_MIB}\n"
        );
    }
    s
}

/// Builds the stack; a journal gets `table` and `probe`.
fn stack(
    toml_text: &str,
    table: Option<&SharedTable>,
    probe: Option<&Probe>,
) -> Result<Box<dyn Device>, String> {
    let mut s = StackToml::parse(toml_text)?;
    for l in &mut s.layer {
        if let LayerSpec::Journal(j) = l {
            j.table = table.cloned();
            j.probe = probe.cloned();
        }
    }
    with_layers(s.device()?.root, &s.layer)
}

/// The journal's log region on the drive (device blocks 1..=L).
fn log_region() -> Region {
    Region {
        start: 8,
        sectors: LOG_MIB * 256 * 8,
    }
}

/// Samples `grid` on a fresh bare SCSI Disk 1's log region.
fn table(grid: Grid, seed: u64) -> Result<MiniMimic, String> {
    table_on(DISK, grid, seed)
}

/// Samples `grid` on a fresh bare `disk`'s log region.
fn table_on(disk: &str, grid: Grid, seed: u64) -> Result<MiniMimic, String> {
    let mut d = stack(&stack_toml(disk, None), None, None)?;
    sample(d.as_mut(), log_region(), grid, seed)
}

fn ms(ns: f64) -> f64 {
    ns / 1e6
}

/// The thesis's two rotational sweet spots: plateau boundaries (Figure 5.4) and
/// recommended skips (Figure 5.5), KB.
const SWEET_KB: [f64; 2] = [28.0, 144.0];

/// The lowest and highest finite value of `v`, for drawing a stated value across a plot.
fn y_span(v: &[f64]) -> (f64, f64) {
    let f = v.iter().copied().filter(|x| x.is_finite());
    let lo = f.clone().fold(f64::INFINITY, f64::min);
    let hi = f.fold(f64::NEG_INFINITY, f64::max);
    if lo <= hi {
        (lo, hi)
    } else {
        (0.0, 1.0)
    }
}

/// A horizontal line at `y` from `span.0` to `span.1`: one stated value on the y axis.
fn hline(label: &str, y: f64, span: (f64, f64)) -> Series {
    Series {
        label: label.into(),
        points: vec![(span.0, y), (span.1, y)],
    }
}

/// SCSI Disk 1's track, KB (272 sectors).
const TRACK_KB: f64 = 136.0;

/// Why the thesis's 28 KB sweet spot sits on the edge of a missed rotation on the
/// 9LZX but clear of it here, from this run's own first reachable skip `edge_kb`: the
/// rotation between them is how much sooner the model's disk reaches the next write's
/// first sector than the real disk did.
fn edge_note(edge_kb: i32) -> String {
    let gap_ms = (28.0 - f64::from(edge_kb)) / TRACK_KB * ROTATION_MS;
    format!(
        "\n\nWhere the model differs from the 9LZX: here the nearest skip a 4 KB write \
         reaches without a missed rotation is {edge_kb} KB; on the thesis's disk it was 28 KB \
         ('right on the edge of writing the first sector without waiting for a rotation'). \
         The {:.0} KB between them is {gap_ms:.2} ms of rotation: the simulated disk gets from \
         the end of one write to the first sector of the next that much sooner. The likely \
         cause is the per-command overhead, which the thesis does not state for the 9LZX; \
         the model takes DiskSim's IBM 18ES overheads. So 28 KB lies {:.0} KB clear of the \
         edge here, and the effects that come from sitting on it (F5.3's outliers at 28 KB, \
         F5.5's second cluster of recommendations) do not appear. The overheads are not \
         tuned to close the gap, since the only source for the gap is the figures checked \
         (LOGSKIP-F5.2 works out the delay the thesis's two sweet spots imply).",
        28.0 - f64::from(edge_kb),
        28.0 - f64::from(edge_kb),
    )
}

/// The nearest skip (KB) reached without a missed rotation by 4 KB writes at no think
/// time: the first falling edge of their mean over skips 0–100 KB, from a short
/// sample of this run's seed.
fn first_edge_4k(o: &RunOpts) -> Result<Option<i32>, String> {
    let skips: Vec<i32> = (0..=100).step_by(4).collect();
    let m = table(Grid::slice(skips.clone(), 4, 0, 10), o.seed)?;
    let means: Vec<f64> = (0..skips.len())
        .map(|k| ms(m.cell(0, 0, k).mean_ns().unwrap_or(f64::NAN)))
        .collect();
    Ok(falling_edges(&skips, &means, ROTATION_MS / 4.0)
        .first()
        .copied())
}

/// miniMimic's size × skip table at no think time (sizes 4–200 KB, skips 0–300 KB).
fn size_skip(o: &RunOpts) -> Result<MiniMimic, String> {
    let samples = if o.quick { 10 } else { 50 };
    let grid = Grid {
        skips_kib: (0..=300).step_by(4).collect(),
        sizes_kib: (4..=200).step_by(4).collect(),
        thinks_us: vec![0],
        samples,
    };
    table(grid, o.seed)
}

/// The skips at which mean service time falls by more than a quarter rotation from
/// the previous skip of `means` (the falling edges of the saw-tooth: the first skip
/// far enough ahead to be reached before it passes under the head).
fn falling_edges(skips: &[i32], means: &[f64], drop_ms: f64) -> Vec<i32> {
    (1..means.len())
        .filter(|&k| means[k - 1] - means[k] > drop_ms)
        .map(|k| skips[k])
        .collect()
}

/// SCSI Disk 1's rotation, ms (10,000 rpm): a quarter of it is the falling edge that
/// marks a plateau boundary.
const ROTATION_MS: f64 = 6.0;

/// The thesis's modified TPC-B: one synchronous application write of `blocks` 4 KB
/// blocks per transaction at a random place, the next issued `think` after it
/// completes.
struct Tpcb {
    n: usize,
    issued: usize,
    blocks: u32,
    think_ns: u64,
    span_blocks: u64,
    rng: rand_chacha::ChaCha8Rng,
}

impl Tpcb {
    fn next(&mut self, at: SimTime) -> Option<IoRecord> {
        if self.issued == self.n {
            return None;
        }
        self.issued += 1;
        let b = self
            .rng
            .gen_range(0..self.span_blocks - u64::from(self.blocks));
        Some(IoRecord {
            arrival: at,
            device: 0,
            lbn: b * 8,
            blocks: self.blocks * 8,
            write: true,
            content: Vec::new(),
        })
    }
}

impl ClosedSource for Tpcb {
    fn start(&mut self) -> Vec<(u32, IoRecord)> {
        self.next(SimTime::ZERO)
            .map(|r| vec![(0, r)])
            .unwrap_or_default()
    }
    fn on_complete(&mut self, _p: u32, now: SimTime) -> Option<IoRecord> {
        self.next(SimTime(now.0 + self.think_ns))
    }
}

/// What one journal run measured.
struct JournalRun {
    /// Log bytes per second of log I/O (cleaning and think time excluded), MB/s.
    mb_s: f64,
    cleanings: u64,
    probe: Probe,
}

fn extra(n: &NodeReport, key: &str) -> u64 {
    n.extra
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
}

/// Runs `n` TPC-B transactions of `blocks` blocks with `think_ns` on a journal stack.
fn journal_run(
    disk: &str,
    (checksum, skip): (bool, bool),
    table: &SharedTable,
    blocks: u32,
    think_ns: u64,
    n: usize,
    seed: u64,
) -> Result<JournalRun, String> {
    let probe = Probe::default();
    let mut root = stack(
        &stack_toml(disk, Some((checksum, skip))),
        Some(table),
        Some(&probe),
    )?;
    let mut w = Tpcb {
        n,
        issued: 0,
        blocks,
        think_ns,
        span_blocks: 256 * 1024,
        rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
    };
    let units = crate::node::Units::single(root.capacity());
    engine::run(
        root.as_mut(),
        &units,
        Source::Closed(&mut w),
        RunOptions::default(),
        &mut |_| {},
    )
    .map_err(|e| e.to_string())?;
    let mut nodes = Vec::new();
    root.report("stack", &mut nodes);
    let j = nodes
        .iter()
        .find(|n| n.kind == "journal")
        .ok_or("no journal in the stack")?;
    let bytes = extra(j, "log bytes") as f64;
    let ns = extra(j, "log io ns").max(1) as f64;
    Ok(JournalRun {
        mb_s: bytes / ns * 1e9 / 1e6,
        cleanings: extra(j, "cleanings"),
        probe,
    })
}

/// The four configurations, in the thesis's bar order: (label, checksum, skip).
const CONFIGS: [(&str, bool, bool); 4] = [
    ("no chksm/no skip", false, false),
    ("chksm/no skip", true, false),
    ("no chksm/skip", false, true),
    ("chksm/skip", true, true),
];

/// miniMimic's grid for a workload of `blocks`-block transactions: the thesis's skips
/// (0–300 KB), the sizes the journal writes (descriptor + data, and the 4 KB commit)
/// and the given think times.
fn journal_grid(blocks: &[u32], thinks_us: Vec<u32>, samples: u32) -> Grid {
    // Descriptor + data (+ the commit block in checksum mode), and the lone commit.
    let mut sizes: Vec<u32> = blocks
        .iter()
        .flat_map(|b| [(b + 1) * 4, (b + 2) * 4])
        .collect();
    sizes.push(4);
    sizes.sort_unstable();
    sizes.dedup();
    Grid {
        skips_kib: (0..=300).step_by(4).collect(),
        sizes_kib: sizes,
        thinks_us,
        samples,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn journal_stack_builds_from_toml_and_runs() {
        let t = SharedTable(Rc::new(table(journal_grid(&[1], vec![0], 2), 1).unwrap()));
        for (_, ck, sk) in CONFIGS {
            let r = journal_run(DISK, (ck, sk), &t, 1, 0, 30, 1).unwrap();
            assert!(r.mb_s > 0.0);
            assert_eq!(r.probe.0.borrow().txs.len(), 30);
        }
    }
}
