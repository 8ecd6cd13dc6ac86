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
//! none). SCSI Disk 2 and the IDE WD1200BB (F5.9/F5.13/F5.16, F5.10/F5.14/F5.17) have
//! no sourced model here and are not run.

use super::logskip_edge::{note as spot_note, SpotGeometry};
use super::options::RunOpts;
use super::{Check, StackToml};
use crate::engine::{self, ClosedSource, RunOptions, Source};
use crate::layers::{with_layers, LayerSpec};
use crate::mimic::minimimic::{sample, sample_times, Grid, MiniMimic, Region};
use crate::node::{Device, NodeReport};
use crate::report::{ExperimentOutput, Plot, PlotKind, Series, Table};
use crate::stack::journal::{Probe, SharedTable};
use crate::time::SimTime;
use crate::trace::IoRecord;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::rc::Rc;

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

/// The thesis's mean service time of back-to-back 4 KB writes at skip 0 (Figure 5.1), ms.
const F5_1_MEAN_MS: f64 = 6.13;
/// The think times between which the thesis's mean service time is least (Figure 5.6), ms.
const F5_6_LEAST_MS: (f64, f64) = (5.0, 6.0);
/// The thesis's two rotational sweet spots: plateau boundaries (Figure 5.4) and
/// recommended skips (Figure 5.5), KB.
const SWEET_KB: [f64; 2] = [28.0, 144.0];
/// The thesis's no-optimization bandwidth (blocks, MB/s) at 1 and 32 blocks (Figure 5.12).
const F5_12_NONE_MB_S: [(u32, f64); 2] = [(1, 1.0), (32, 7.0)];
/// The thesis's bandwidth at 12 blocks on the IDE disk, no optimization and skipping
/// alone (Figure 5.14), MB/s.
const F5_14_AT_12_MB_S: (f64, f64) = (3.0, 10.0);

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

/// A vertical line at `x` from `span.0` to `span.1`: one stated value on the x axis.
fn vline(label: &str, x: f64, span: (f64, f64)) -> Series {
    Series {
        label: label.into(),
        points: vec![(x, span.0), (x, span.1)],
    }
}

/// A horizontal line at `y` from `span.0` to `span.1`: one stated value on the y axis.
fn hline(label: &str, y: f64, span: (f64, f64)) -> Series {
    Series {
        label: label.into(),
        points: vec![(span.0, y), (span.1, y)],
    }
}

/// LOGSKIP-F5.1: sorted service times of 4 KB writes, skip 0, no think time.
pub fn logskip_f5_1(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.1",
        "Individual service times, 4 KB writes, skip 0, no think time (Figure 5.1)",
        "Back-to-back synchronous 4 KB writes, each starting where the previous ended, on the \
         log region of SCSI Disk 1 (the mimic-9lzx preset: Table 3.1's 9LZX with DiskSim's \
         IBM 18ES controller overheads), timed by the miniMimic sampler (chains of writes from \
         random places in the 40 MB log).",
        o.seed,
    );
    let n = if o.quick { 200 } else { 1000 };
    let mut d = stack(&stack_toml(DISK, None), None, None)?;
    let grid = Grid::slice(vec![0], 4, 0, 50);
    let mut times: Vec<u64> = Vec::new();
    for k in 0..n / 50 {
        let t = sample_times(d.as_mut(), log_region(), grid.clone(), o.seed + k as u64)?;
        times.extend(t.into_iter().map(|(_, ns)| ns));
    }
    times.sort_unstable();
    let mean = ms(times.iter().sum::<u64>() as f64 / times.len() as f64);
    let over = times.iter().filter(|&&t| t > 6_000_000).count() as f64 / times.len() as f64;
    out.plots.push(Plot {
        title: "Sorted service times, 4 KB writes, skip 0".into(),
        x_label: "request (sorted)".into(),
        y_label: "service time (ms)".into(),
        kind: PlotKind::Line,
        series: vec![Series {
            label: "simulated SCSI Disk 1".into(),
            points: times
                .iter()
                .enumerate()
                .map(|(i, &t)| (i as f64, ms(t as f64)))
                .collect(),
        }],
        log_x: false,
        paper: vec![hline(
            &format!("paper: mean {F5_1_MEAN_MS} ms"),
            F5_1_MEAN_MS,
            (0.0, times.len().saturating_sub(1) as f64),
        )],
        x_categories: vec![],
    });
    out.csv = "rank,service_ms\n".into();
    for (i, t) in times.iter().enumerate() {
        let _ = writeln!(out.csv, "{i},{:.4}", ms(*t as f64));
    }
    out.checks.push(Check::absolute(
        "LOGSKIP-F5.1",
        "mean service time (ms)",
        F5_1_MEAN_MS,
        mean,
        0.4,
    ));
    out.checks.push(Check::at_least(
        "LOGSKIP-F5.1",
        "fraction of writes longer than a rotation (6 ms)",
        0.5,
        over,
    ));
    Ok(out)
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

/// LOGSKIP-F5.2: mean service time against skip distance, 4 KB, no think time.
pub fn logskip_f5_2(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.2",
        "Mean service time vs skip distance, 4 KB writes, no think time (Figure 5.2)",
        "miniMimic's sampler on SCSI Disk 1's log region: per skip distance (−200…+200 KB in \
         4 KB steps), chains of 4 KB writes each `skip` after the end of the previous one, \
         issued as it completes; the mean of the timed writes. The saw-tooth's period is \
         measured as the distance from the best skip to the least mean 64–200 KB from it.",
        o.seed,
    );
    let samples = if o.quick { 10 } else { 50 };
    let skips: Vec<i32> = (-200..=200).step_by(4).collect();
    let m = table(Grid::slice(skips.clone(), 4, 0, samples), o.seed)?;
    let means: Vec<f64> = (0..skips.len())
        .map(|k| ms(m.cell(0, 0, k).mean_ns().unwrap_or(f64::NAN)))
        .collect();
    let (best_k, best) =
        means.iter().enumerate().fold(
            (0, f64::INFINITY),
            |a, (k, &v)| if v < a.1 { (k, v) } else { a },
        );
    if let Some(e) = falling_edges(&skips, &means, ROTATION_MS / 4.0)
        .into_iter()
        .find(|&e| e > 0)
    {
        out.description.push_str(&edge_note(e));
        out.description.push_str(&format!(
            " Here the least mean is {:.2} ms below the thesis's 1.57 ms.",
            1.57 - best
        ));
    }
    let at_28 = skips
        .iter()
        .position(|&s| s == 28)
        .map(|k| means[k])
        .filter(|v| v.is_finite());
    out.description
        .push_str(&spot_note(&SpotGeometry::of(DISK)?, at_28));
    // The neighbouring sweet spot: the least mean 64–200 KB away from the best, on
    // either side.
    let next = (0..skips.len())
        .filter(|&k| (64..=200).contains(&(skips[k] - skips[best_k]).abs()))
        .min_by(|&a, &b| means[a].total_cmp(&means[b]))
        .map(|k| (skips[k] - skips[best_k]).abs());
    out.plots.push(Plot {
        title: "Mean service time vs skip distance, 4 KB".into(),
        x_label: "skip distance (KB)".into(),
        y_label: "mean service time (ms)".into(),
        kind: PlotKind::Line,
        series: vec![Series {
            label: "simulated SCSI Disk 1".into(),
            points: skips
                .iter()
                .zip(&means)
                .map(|(&s, &v)| (f64::from(s), v))
                .collect(),
        }],
        log_x: false,
        paper: vec![Series {
            label: "thesis minimum (28 KB, 1.57 ms)".into(),
            points: vec![(28.0, 1.57)],
        }],
        x_categories: vec![],
    });
    out.csv = "skip_kib,mean_ms\n".into();
    for (s, v) in skips.iter().zip(&means) {
        let _ = writeln!(out.csv, "{s},{v:.4}");
    }
    out.checks.push(Check::range(
        "LOGSKIP-F5.2",
        "skip with the least mean (KB)",
        20.0,
        36.0,
        f64::from(skips[best_k]),
    ));
    out.checks.push(Check::absolute(
        "LOGSKIP-F5.2",
        "least mean service time (ms)",
        1.57,
        best,
        0.25,
    ));
    // One track of the 9LZX model: 272 sectors = 136 KB.
    out.checks.push(Check::relative(
        "LOGSKIP-F5.2",
        "saw-tooth period: best skip to the neighbouring sweet spot (KB), vs one track (136 KB)",
        136.0,
        f64::from(next.unwrap_or(0)),
        0.15,
    ));
    Ok(out)
}

/// LOGSKIP-F5.6: mean service time against think time, 4 KB, skip 0.
pub fn logskip_f5_6(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.6",
        "Mean service time vs think time, 4 KB writes, skip 0 (Figure 5.6)",
        "miniMimic's sampler on SCSI Disk 1's log region: sequential 4 KB writes (skip 0), \
         each issued a think time (0–12 ms in 200 µs steps) after the previous completed.",
        o.seed,
    );
    let samples = if o.quick { 10 } else { 50 };
    let thinks: Vec<u32> = (0..=12_000).step_by(200).collect();
    let grid = Grid {
        skips_kib: vec![0],
        sizes_kib: vec![4],
        thinks_us: thinks.clone(),
        samples,
    };
    let m = table(grid, o.seed)?;
    let means: Vec<f64> = (0..thinks.len())
        .map(|t| ms(m.cell(0, t, 0).mean_ns().unwrap_or(f64::NAN)))
        .collect();
    // The minimum over the first rotation (0–6 ms).
    let first: Vec<usize> = (0..thinks.len()).filter(|&t| thinks[t] < 6000).collect();
    let tmin = first
        .iter()
        .copied()
        .min_by(|&a, &b| means[a].total_cmp(&means[b]))
        .map_or(0.0, |t| f64::from(thinks[t]) / 1000.0);
    // Periodicity: the largest relative gap between t and t + 6 ms.
    let shift = 30; // 6 ms in 200 µs steps
    let worst = (0..thinks.len() - shift)
        .map(|t| (means[t + shift] - means[t]).abs() / means[t])
        .fold(0.0, f64::max);
    out.plots.push(Plot {
        title: "Mean service time vs think time, 4 KB, skip 0".into(),
        x_label: "think time (ms)".into(),
        y_label: "mean service time (ms)".into(),
        kind: PlotKind::Line,
        series: vec![Series {
            label: "simulated SCSI Disk 1".into(),
            points: thinks
                .iter()
                .zip(&means)
                .map(|(&t, &v)| (f64::from(t) / 1000.0, v))
                .collect(),
        }],
        log_x: false,
        paper: {
            let span = y_span(&means);
            vec![
                vline(
                    &format!(
                        "paper: least mean between {} and {} ms think time",
                        F5_6_LEAST_MS.0, F5_6_LEAST_MS.1
                    ),
                    F5_6_LEAST_MS.0,
                    span,
                ),
                vline("", F5_6_LEAST_MS.1, span),
            ]
        },
        x_categories: vec![],
    });
    out.csv = "think_ms,mean_ms\n".into();
    for (t, v) in thinks.iter().zip(&means) {
        let _ = writeln!(out.csv, "{},{v:.4}", f64::from(*t) / 1000.0);
    }
    out.checks.push(Check::range(
        "LOGSKIP-F5.6",
        "think time of the least mean (ms)",
        F5_6_LEAST_MS.0,
        F5_6_LEAST_MS.1,
        tmin,
    ));
    out.checks.push(Check::below(
        "LOGSKIP-F5.6",
        "largest |mean(t + 6 ms) − mean(t)| / mean(t) (periodic with the rotation)",
        0.10,
        worst,
    ));
    Ok(out)
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

/// Least-squares line through `pts`: (slope, intercept, R²).
fn linear_fit(pts: &[(f64, f64)]) -> (f64, f64, f64) {
    let n = pts.len() as f64;
    let (sx, sy) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    let (mx, my) = (sx / n, sy / n);
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let slope = sxy / sxx;
    let icpt = my - slope * mx;
    let ss_res: f64 = pts
        .iter()
        .map(|p| (p.1 - (icpt + slope * p.0)).powi(2))
        .sum();
    let ss_tot: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    (slope, icpt, 1.0 - ss_res / ss_tot)
}

/// LOGSKIP-F5.3: mean service time against request size at skips 0 and 28 KB.
pub fn logskip_f5_3(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.3",
        "Mean service time vs request size at skip 0 KB and 28 KB (Figure 5.3)",
        "miniMimic's table on SCSI Disk 1's log region (sizes 4–200 KB, skips 0–300 KB, no \
         think time). At skip 0 a straight line is fitted to mean against size; at 28 KB the \
         largest excess of a size's mean over that skip's own fitted line is reported.",
        o.seed,
    );
    let m = size_skip(o)?;
    let sizes = m.grid.sizes_kib.clone();
    let col = |skip: i32| -> Vec<(f64, f64)> {
        let k = m
            .grid
            .skips_kib
            .iter()
            .position(|&s| s == skip)
            .unwrap_or(0);
        sizes
            .iter()
            .enumerate()
            .map(|(i, &sz)| {
                (
                    f64::from(sz),
                    ms(m.cell(i, 0, k).mean_ns().unwrap_or(f64::NAN)),
                )
            })
            .collect()
    };
    let (s0, s28) = (col(0), col(28));
    let (_, _, r2) = linear_fit(&s0);
    let (b, a, _) = linear_fit(&s28);
    if let Some(e) = first_edge_4k(o)? {
        out.description.push_str(&edge_note(e));
    }
    let excess = s28
        .iter()
        .map(|p| p.1 - (a + b * p.0))
        .fold(f64::MIN, f64::max);
    out.plots.push(Plot {
        title: "Mean service time vs request size".into(),
        x_label: "request size (KB)".into(),
        y_label: "mean service time (ms)".into(),
        kind: PlotKind::Line,
        series: vec![
            Series {
                label: "skip 0 KB".into(),
                points: s0.clone(),
            },
            Series {
                label: "skip 28 KB".into(),
                points: s28.clone(),
            },
        ],
        log_x: false,
        paper: vec![],
        x_categories: vec![],
    });
    out.csv = "size_kib,skip0_ms,skip28_ms\n".into();
    for (p, q) in s0.iter().zip(&s28) {
        let _ = writeln!(out.csv, "{},{:.4},{:.4}", p.0, p.1, q.1);
    }
    out.checks.push(Check::at_least(
        "LOGSKIP-F5.3",
        "R² of a line through skip 0's means",
        0.95,
        r2,
    ));
    out.checks.push(Check::at_least(
        "LOGSKIP-F5.3",
        "skip 28 KB: largest mean above its linear trend (ms)",
        3.0,
        excess,
    ));
    Ok(out)
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

/// The median of `v` (the lower middle of an even count); `None` when empty.
fn median_i32(v: &mut [i32]) -> Option<i32> {
    v.sort_unstable();
    v.get(v.len().saturating_sub(1) / 2).copied()
}

/// SCSI Disk 1's rotation, ms (10,000 rpm): a quarter of it is the falling edge that
/// marks a plateau boundary.
const ROTATION_MS: f64 = 6.0;

/// LOGSKIP-F5.4: mean service time over request size × skip distance, and where its
/// plateaus change.
pub fn logskip_f5_4(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.4",
        "Mean service time vs request size × skip distance (Figure 5.4)",
        "miniMimic's table on SCSI Disk 1's log region (sizes 4–200 KB, skips 0–300 KB in \
         4 KB steps, no think time). A plateau boundary is a skip at which the mean falls by \
         more than a quarter rotation (1.5 ms) from the skip before: the first skip far \
         enough ahead to be written without waiting for the platter to come round. Per size \
         the first two boundaries are taken; the checks use their medians over the sizes. \
         The thesis draws a 3-D surface; the plot shows its slices at five sizes and the CSV \
         the whole surface.",
        o.seed,
    );
    let m = size_skip(o)?;
    let skips = m.grid.skips_kib.clone();
    let sizes = m.grid.sizes_kib.clone();
    let means = |si: usize| -> Vec<f64> {
        (0..skips.len())
            .map(|k| ms(m.cell(si, 0, k).mean_ns().unwrap_or(f64::NAN)))
            .collect()
    };
    let (mut first, mut second) = (Vec::new(), Vec::new());
    let mut tab = Table::new(&["size (KB)", "first boundary (KB)", "second boundary (KB)"]);
    out.csv = "size_kib,skip_kib,mean_ms\n".into();
    for (si, &sz) in sizes.iter().enumerate() {
        let row = means(si);
        for (k, v) in row.iter().enumerate() {
            let _ = writeln!(out.csv, "{sz},{},{v:.4}", skips[k]);
        }
        let edges = falling_edges(&skips, &row, ROTATION_MS / 4.0);
        let show = |e: Option<&i32>| e.map_or("—".to_string(), |v| v.to_string());
        tab.rows.push(vec![
            sz.to_string(),
            show(edges.first()),
            show(edges.get(1)),
        ]);
        if let Some(&e) = edges.first() {
            first.push(e);
        }
        if let Some(&e) = edges.get(1) {
            second.push(e);
        }
    }
    out.tables.push(tab);
    let shown: Vec<usize> = [4u32, 32, 64, 128, 200]
        .iter()
        .filter_map(|&z| sizes.iter().position(|&s| s == z))
        .collect();
    out.plots.push(Plot {
        title: "Mean service time vs skip distance, by request size".into(),
        x_label: "skip distance (KB)".into(),
        y_label: "mean service time (ms)".into(),
        kind: PlotKind::Line,
        series: shown
            .iter()
            .map(|&si| Series {
                label: format!("{} KB", sizes[si]),
                points: skips
                    .iter()
                    .zip(means(si))
                    .map(|(&s, v)| (f64::from(s), v))
                    .collect(),
            })
            .collect(),
        log_x: false,
        paper: {
            let all: Vec<f64> = shown.iter().flat_map(|&si| means(si)).collect();
            let span = y_span(&all);
            vec![
                vline(
                    &format!(
                        "paper: plateau boundaries at {} and {} KB",
                        SWEET_KB[0], SWEET_KB[1]
                    ),
                    SWEET_KB[0],
                    span,
                ),
                vline("", SWEET_KB[1], span),
            ]
        },
        x_categories: vec![],
    });
    let distinct = {
        let mut f = first.clone();
        f.sort_unstable();
        f.dedup();
        f.len()
    };
    if distinct < 2 {
        out.description.push_str(
            "\n\nWhy the first boundary does not move with request size here: the drive \
             model starts writing a request to the media as soon as its first sectors \
             have crossed the bus (DiskSim's overlapped transfer), so the time from the \
             end of one write to the first sector of the next, and with it the nearest \
             reachable skip, is the same for every size. The thesis's disk moved it with \
             size, plausibly because it took in more of a write before starting on the \
             media; that is a reading of the figure, not tested here.",
        );
    }
    let n_sizes = sizes.len() as f64;
    let (f_med, s_med) = (median_i32(&mut first), median_i32(&mut second));
    out.checks.push(Check::absolute(
        "LOGSKIP-F5.4",
        "first plateau boundary, median over sizes (KB)",
        SWEET_KB[0],
        f_med.map_or(f64::NAN, f64::from),
        8.0,
    ));
    out.checks.push(Check::absolute(
        "LOGSKIP-F5.4",
        "second plateau boundary, median over sizes (KB)",
        SWEET_KB[1],
        s_med.map_or(f64::NAN, f64::from),
        16.0,
    ));
    out.checks.push(Check::at_least(
        "LOGSKIP-F5.4",
        "fraction of sizes with two boundaries in 0–300 KB",
        0.8,
        second.len() as f64 / n_sizes,
    ));
    out.checks.push(Check::at_least(
        "LOGSKIP-F5.4",
        "distinct first boundaries across sizes (the transition differs by size)",
        2.0,
        distinct as f64,
    ));
    Ok(out)
}

/// LOGSKIP-F5.7: mean service time over think time × skip distance (4 KB writes).
pub fn logskip_f5_7(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.7",
        "Mean service time vs think time × skip distance, 4 KB writes (Figure 5.7)",
        "miniMimic's table on SCSI Disk 1's log region: 4 KB writes, skips 0–300 KB in 4 KB \
         steps, think times 0–7 ms in 200 µs steps. The thesis calls the surface too complex \
         to interpolate; the check is that the best skip, as think time grows, changes \
         direction at least once (it is not monotone). The plot shows the best skip and its \
         mean per think time; the CSV holds the whole surface.",
        o.seed,
    );
    let samples = if o.quick { 5 } else { 50 };
    let grid = Grid {
        skips_kib: (0..=300).step_by(4).collect(),
        sizes_kib: vec![4],
        thinks_us: (0..=7000).step_by(200).collect(),
        samples,
    };
    let m = table(grid, o.seed)?;
    let (skips, thinks) = (m.grid.skips_kib.clone(), m.grid.thinks_us.clone());
    out.csv = "think_ms,skip_kib,mean_ms\n".into();
    let mut best: Vec<(f64, i32, f64)> = Vec::new();
    for (ti, &t) in thinks.iter().enumerate() {
        let mut b = (f64::INFINITY, 0);
        for (k, &sk) in skips.iter().enumerate() {
            let v = ms(m.cell(0, ti, k).mean_ns().unwrap_or(f64::NAN));
            let _ = writeln!(out.csv, "{},{sk},{v:.4}", f64::from(t) / 1000.0);
            if v < b.0 {
                b = (v, sk);
            }
        }
        best.push((f64::from(t) / 1000.0, b.1, b.0));
    }
    // Direction changes of the best skip as think time grows (flat steps skipped).
    let mut reversals = 0;
    let mut dir = 0i32;
    for w in best.windows(2) {
        let d = (w[1].1 - w[0].1).signum();
        if d != 0 {
            if dir != 0 && d != dir {
                reversals += 1;
            }
            dir = d;
        }
    }
    out.plots.push(Plot {
        title: "Best skip distance vs think time, 4 KB".into(),
        x_label: "think time (ms)".into(),
        y_label: "best skip (KB)".into(),
        kind: PlotKind::Line,
        series: vec![Series {
            label: "simulated SCSI Disk 1".into(),
            points: best.iter().map(|b| (b.0, f64::from(b.1))).collect(),
        }],
        log_x: false,
        paper: vec![],
        x_categories: vec![],
    });
    let mut tab = Table::new(&["think (ms)", "best skip (KB)", "its mean (ms)"]);
    for b in &best {
        tab.rows.push(vec![
            format!("{:.1}", b.0),
            b.1.to_string(),
            format!("{:.3}", b.2),
        ]);
    }
    out.tables.push(tab);
    out.checks.push(Check::at_least(
        "LOGSKIP-F5.7",
        "direction changes of the best skip as think time grows 0–7 ms",
        1.0,
        f64::from(reversals),
    ));
    Ok(out)
}

/// LOGSKIP-F5.8: miniMimic's recommendation surface over (size, think) on SCSI Disk 1.
pub fn logskip_f5_8(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.8",
        "miniMimic recommendation surface, SCSI Disk 1 (Figure 5.8)",
        "miniMimic's whole table on SCSI Disk 1's log region (the thesis's grid: sizes 4–200 \
         KB, skips 0–300 KB in 4 KB steps, think 0–7 ms in 200 µs steps, 50 samples; with \
         --quick a coarse grid: 7 sizes, skips in 12 KB steps, think in 1 ms steps, 10 \
         samples). For every single skip distance, its worst excess over the best mean \
         across the (size, think) cells is computed; the check is that even the best single \
         skip is more than 5 % from optimal somewhere, which is why miniMimic keeps a whole \
         table. SCSI Disk 2 (Figure 5.9) has no model here: the thesis gives no difference from Disk 1.",
        o.seed,
    );
    recommendation_surface(&mut out, "LOGSKIP-F5.8", DISK, o)?;
    Ok(out)
}

/// LOGSKIP-F5.10: the same surface on the IDE disk.
pub fn logskip_f5_10(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.10",
        "miniMimic recommendation surface, IDE disk (Figure 5.10)",
        "As LOGSKIP-F5.8 on the IDE disk, the WD1200BB (preset wd1200bb: rpm, seeks, \
         overhead, buffer and media rate from the WD Caviar BB family datasheet; platters, \
         zones and caching assumed, see `spindle disks`). The thesis calls this surface \
         irregular but less complex than SCSI Disk 1's; the check is the same: no single \
         skip distance is within 5 % of optimal in every (size, think) cell.",
        o.seed,
    );
    recommendation_surface(&mut out, "LOGSKIP-F5.10", IDE_DISK, o)?;
    Ok(out)
}

/// miniMimic's whole table on `disk`: the recommended skip per (size, think) cell, a
/// plot by size, and the check that even the best single skip is more than 5 % from
/// optimal in some cell (why miniMimic keeps a table).
fn recommendation_surface(
    out: &mut ExperimentOutput,
    id: &str,
    disk: &str,
    o: &RunOpts,
) -> Result<(), String> {
    let grid = if o.quick {
        Grid::quick()
    } else {
        Grid::thesis()
    };
    let m = table_on(disk, grid, o.seed)?;
    let g = m.grid.clone();
    let mean = |si: usize, ti: usize, k: usize| m.cell(si, ti, k).mean_ns().unwrap_or(f64::NAN);
    // Per cell, the best mean; per skip, its worst ratio to it over all cells.
    let mut worst = vec![0.0f64; g.skips_kib.len()];
    out.csv = "size_kib,think_ms,recommended_skip_kib,mean_ms\n".into();
    let mut surface: Vec<(u32, u32, i32)> = Vec::new();
    for (si, &sz) in g.sizes_kib.iter().enumerate() {
        for (ti, &t) in g.thinks_us.iter().enumerate() {
            let (bk, bv) = (0..g.skips_kib.len()).map(|k| (k, mean(si, ti, k))).fold(
                (0, f64::INFINITY),
                |a, (k, v)| if v < a.1 { (k, v) } else { a },
            );
            let _ = writeln!(
                out.csv,
                "{sz},{},{},{:.4}",
                f64::from(t) / 1000.0,
                g.skips_kib[bk],
                ms(bv)
            );
            surface.push((sz, t, g.skips_kib[bk]));
            for (k, w) in worst.iter_mut().enumerate() {
                *w = w.max(mean(si, ti, k) / bv - 1.0);
            }
        }
    }
    let (best_k, best_single) =
        worst
            .iter()
            .copied()
            .enumerate()
            .fold(
                (0, f64::INFINITY),
                |a, (k, v)| if v < a.1 { (k, v) } else { a },
            );
    let shown: Vec<u32> = [4u32, 32, 128, 200]
        .into_iter()
        .filter(|z| g.sizes_kib.contains(z))
        .collect();
    // Sizes whose recommendations are the same at every think time are one series (drawn
    // apart they would hide each other).
    type Group = (Vec<u32>, Vec<(f64, f64)>);
    let mut groups: Vec<Group> = Vec::new();
    for &z in &shown {
        let points: Vec<(f64, f64)> = surface
            .iter()
            .filter(|c| c.0 == z)
            .map(|c| (f64::from(c.1) / 1000.0, f64::from(c.2)))
            .collect();
        match groups.iter_mut().find(|g| g.1 == points) {
            Some(g) => g.0.push(z),
            None => groups.push((vec![z], points)),
        }
    }
    if let Some(same) = groups.iter().find(|g| g.0.len() > 1) {
        let sizes: Vec<String> = same.0.iter().map(|z| format!("{z} KB")).collect();
        let _ = write!(
            out.description,
            "\n\nThe plot's {} writes get the same recommendation at every think time, so \
             they are drawn as one line: the drive model starts writing a request to the \
             media as soon as its first sectors have crossed the bus, so the nearest \
             reachable skip after a write does not depend on its size.",
            sizes.join(", ")
        );
    }
    out.plots.push(Plot {
        title: "Recommended skip vs think time, by request size".into(),
        x_label: "think time (ms)".into(),
        y_label: "recommended skip (KB)".into(),
        kind: PlotKind::Line,
        series: groups
            .into_iter()
            .map(|(sizes, points)| Series {
                label: if sizes.len() == 1 {
                    format!("{} KB", sizes[0])
                } else {
                    let s: Vec<String> = sizes.iter().map(|z| z.to_string()).collect();
                    format!("{} KB (the same)", s.join(", "))
                },
                points,
            })
            .collect(),
        log_x: false,
        paper: vec![],
        x_categories: vec![],
    });
    let distinct = {
        let mut v: Vec<i32> = surface.iter().map(|c| c.2).collect();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    let mut tab = Table::new(&["figure", "value"]);
    tab.rows.push(vec![
        "(size, think) cells".into(),
        surface.len().to_string(),
    ]);
    tab.rows.push(vec![
        "distinct recommended skips".into(),
        distinct.to_string(),
    ]);
    tab.rows.push(vec![
        "best single skip (KB)".into(),
        g.skips_kib[best_k].to_string(),
    ]);
    tab.rows.push(vec![
        "its worst excess over the optimum".into(),
        format!("{:.1} %", best_single * 100.0),
    ]);
    out.tables.push(tab);
    out.checks.push(Check::at_least(
        id,
        "best single skip's worst excess over the optimal mean across cells",
        0.05,
        best_single,
    ));
    Ok(())
}

/// LOGSKIP-F5.5: recommended skip against request size (no think time).
pub fn logskip_f5_5(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.5",
        "Recommended skip distance vs request size (Figure 5.5)",
        "miniMimic's recommendation (the skip with the least mean) per request size, from \
         its table on SCSI Disk 1's log region (sizes 4–200 KB, skips 0–300 KB, no think \
         time). The recommendations are grouped into clusters 8 KB wide around their two \
         most frequent values.",
        o.seed,
    );
    let m = size_skip(o)?;
    let recs: Vec<(u32, i32)> = m
        .grid
        .sizes_kib
        .iter()
        .filter_map(|&sz| m.recommend(sz, 0).map(|a| (sz, a.skip_kib)))
        .collect();
    let mut counts: BTreeMap<i32, usize> = BTreeMap::new();
    for &(_, s) in &recs {
        *counts.entry(s).or_default() += 1;
    }
    let near = |c: i32| recs.iter().filter(|r| (r.1 - c).abs() <= 8).count();
    // The value whose ±8 KB neighbourhood holds most recommendations, then the next
    // such value outside it.
    let c1 = counts
        .keys()
        .copied()
        .max_by_key(|&c| (near(c), -c))
        .unwrap_or(0);
    let c2 = counts
        .keys()
        .copied()
        .filter(|&c| (c - c1).abs() > 16)
        .max_by_key(|&c| (near(c), -c))
        .unwrap_or(c1);
    let covered = recs
        .iter()
        .filter(|r| (r.1 - c1).abs() <= 8 || (r.1 - c2).abs() <= 8)
        .count() as f64
        / recs.len().max(1) as f64;
    if let Some(e) = first_edge_4k(o)? {
        out.description.push_str(&edge_note(e));
    }
    // How far each size's best skip beyond one track (the second sweet spot) is from its
    // best skip: the thesis's sizes split between the two, so there they were close.
    let g = SpotGeometry::of(DISK)?;
    let track_kib = (g.spt / 2) as i32;
    let mut gaps: Vec<f64> = (0..m.grid.sizes_kib.len())
        .filter_map(|si| {
            let mean = |k: usize| m.cell(si, 0, k).mean_ns().unwrap_or(f64::INFINITY);
            let ks = 0..m.grid.skips_kib.len();
            let best = ks.clone().map(mean).fold(f64::INFINITY, f64::min);
            let second = ks
                .filter(|&k| (track_kib..2 * track_kib).contains(&m.grid.skips_kib[k]))
                .map(mean)
                .fold(f64::INFINITY, f64::min);
            (best.is_finite() && second.is_finite()).then(|| ms(second - best))
        })
        .collect();
    gaps.sort_by(f64::total_cmp);
    if let Some(&mid) = gaps.get(gaps.len().saturating_sub(1) / 2) {
        let _ = write!(
            out.description,
            "\n\nWhy there is no second cluster here: for the median size, the best skip \
             between one and two tracks ({track_kib}–{} KB) is {mid:.2} ms slower than the \
             best skip; {} of {} sizes prefer it.",
            2 * track_kib - 4,
            gaps.iter().filter(|&&v| v <= 0.0).count(),
            gaps.len(),
        );
    }
    out.description.push_str(&spot_note(&g, None));
    let (lo, hi) = (c1.min(c2), c1.max(c2));
    out.plots.push(Plot {
        title: "Recommended skip distance vs request size".into(),
        x_label: "request size (KB)".into(),
        y_label: "recommended skip (KB)".into(),
        kind: PlotKind::Points,
        series: vec![Series {
            label: "miniMimic, simulated SCSI Disk 1".into(),
            points: recs
                .iter()
                .map(|&(a, b)| (f64::from(a), f64::from(b)))
                .collect(),
        }],
        log_x: false,
        paper: {
            let sizes: Vec<f64> = recs.iter().map(|r| f64::from(r.0)).collect();
            let span = y_span(&sizes);
            vec![
                hline(
                    &format!(
                        "paper: recommendations at {} and {} KB",
                        SWEET_KB[0], SWEET_KB[1]
                    ),
                    SWEET_KB[0],
                    span,
                ),
                hline("", SWEET_KB[1], span),
            ]
        },
        x_categories: vec![],
    });
    out.csv = "size_kib,recommended_skip_kib\n".into();
    for (a, b) in &recs {
        let _ = writeln!(out.csv, "{a},{b}");
    }
    out.checks.push(Check::at_least(
        "LOGSKIP-F5.5",
        "fraction of sizes whose recommendation lies within ±8 KB of the two clusters",
        0.8,
        covered,
    ));
    out.checks.push(Check::absolute(
        "LOGSKIP-F5.5",
        "first cluster (KB)",
        SWEET_KB[0],
        f64::from(lo),
        8.0,
    ));
    out.checks.push(Check::absolute(
        "LOGSKIP-F5.5",
        "second cluster (KB)",
        SWEET_KB[1],
        f64::from(hi),
        8.0,
    ));
    Ok(out)
}

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

/// Log bandwidth of the four configurations (rows, `CONFIGS` order) against
/// transaction size (columns) on `disk`, no think time; the table, CSV and bar plot
/// go into `out`.
fn bandwidth_by_size(
    out: &mut ExperimentOutput,
    disk: &str,
    sizes: &[u32],
    n: usize,
    samples: u32,
    seed: u64,
) -> Result<Vec<Vec<f64>>, String> {
    let t = SharedTable(Rc::new(table_on(
        disk,
        journal_grid(sizes, vec![0], samples),
        seed,
    )?));
    let mut bw = vec![vec![0.0; sizes.len()]; 4];
    let mut tab = Table::new(&[
        "blocks",
        "no chksm/no skip",
        "chksm/no skip",
        "no chksm/skip",
        "chksm/skip",
        "cleanings",
    ]);
    out.csv = "blocks,config,mb_s\n".into();
    for (i, &b) in sizes.iter().enumerate() {
        let mut cleanings = 0;
        for (c, &(label, ck, sk)) in CONFIGS.iter().enumerate() {
            let r = journal_run(disk, (ck, sk), &t, b, 0, n, seed)?;
            bw[c][i] = r.mb_s;
            cleanings += r.cleanings;
            let _ = writeln!(out.csv, "{b},{label},{:.3}", r.mb_s);
        }
        let mut row = vec![b.to_string()];
        row.extend(bw.iter().map(|v| format!("{:.2}", v[i])));
        row.push(cleanings.to_string());
        tab.rows.push(row);
    }
    out.tables.push(tab);
    out.plots.push(Plot {
        title: "Log bandwidth vs blocks per transaction".into(),
        x_label: "blocks per transaction".into(),
        y_label: "bandwidth (MB/s)".into(),
        kind: PlotKind::Bars,
        series: CONFIGS
            .iter()
            .zip(&bw)
            .map(|(c, v)| Series {
                label: c.0.into(),
                points: v.iter().enumerate().map(|(i, &y)| (i as f64, y)).collect(),
            })
            .collect(),
        log_x: false,
        paper: vec![],
        x_categories: sizes.iter().map(|b| b.to_string()).collect(),
    });
    Ok(bw)
}

/// Whether column `i` of `bw` (rows in `CONFIGS` order) is in the thesis's order:
/// chksm/skip ≥ skip ≥ chksm ≥ none.
fn thesis_order(bw: &[Vec<f64>], i: usize) -> bool {
    bw[3][i] >= bw[2][i] && bw[2][i] >= bw[1][i] && bw[1][i] >= bw[0][i]
}

/// LOGSKIP-F5.12: log bandwidth against transaction size, no think time.
pub fn logskip_f5_12(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.12",
        "Log bandwidth vs blocks per transaction, no think time, SCSI Disk 1 (Figure 5.12)",
        "Stacks `[[layer]] kind = \"journal\"` (40 MB log; checksum and skip on or off) over \
         SCSI Disk 1 (mimic-9lzx). The workload is the modified TPC-B: one synchronous write \
         of n blocks per transaction at a random home place, the next issued when it \
         completes. Each transaction is an (n + 1)-block log write (descriptor + data) and, \
         without checksums, a 4 KB commit. miniMimic is sampled on the log region first \
         (skips 0–300 KB in 4 KB steps, the sizes the journal writes, think 0) and refined \
         on-line. Bandwidth is counted as we read the thesis (it does not define it for this \
         figure): log bytes (descriptor + data + commit) per second of log I/O, cleaning excluded.",
        o.seed,
    );
    let sizes: Vec<u32> = if o.quick {
        vec![1, 4, 32]
    } else {
        vec![1, 2, 4, 8, 16, 32]
    };
    let (n, samples) = if o.quick { (150, 10) } else { (500, 50) };
    let bw = bandwidth_by_size(&mut out, DISK, &sizes, n, samples, o.seed)?;
    // The thesis's no-optimization values, over that series' bars.
    if let Some(plot) = out.plots.last_mut() {
        plot.paper = vec![Series {
            label: "paper: no chksm/no skip, about 1 and 7 MB/s".into(),
            points: F5_12_NONE_MB_S
                .iter()
                .filter_map(|&(b, v)| sizes.iter().position(|&s| s == b).map(|i| (i as f64, v)))
                .collect(),
        }];
    }
    let gain = |c: usize| (bw[c][0] / bw[0][0] - 1.0) * 100.0;
    // Log I/O time of a one-block transaction (12 KB of log) in each configuration,
    // ours and as the thesis's gains imply from our own unoptimized time.
    let txn_ms = |mb_s: f64| 12.0 * 1024.0 / (mb_s * 1e6) * 1e3;
    let t: Vec<f64> = (0..4).map(|c| txn_ms(bw[c][0])).collect();
    out.description.push_str(&format!(
        "\n\nWhy the gains at one block run high: a one-block transaction's log I/O takes \
         {:.2} ms here with no optimization, {:.2} ms with skipping (two writes) and {:.2} ms \
         with both (one 12 KB write). The thesis's +317 % and +459 % put the same two at \
         about {:.2} and {:.2} ms for our unoptimized time, so our skipped writes are \
         faster: by about {:.2} ms a write without checksums and {:.2} ms for the \
         checksummed one. The first is of the kind LOGSKIP-F5.2 shows (our best 4 KB \
         skip is 20 KB at about 1.2 ms, the thesis's 28 KB at 1.57 ms): the simulated drive \
         reaches the next write's first sector sooner after the previous one ends than the \
         thesis's 9LZX and host did. Their per-command costs (the 9LZX's command overhead, \
         the path through a user-level emulator and the raw device on a 550 MHz machine) \
         are not stated, and are not tuned to this figure. The larger gap with checksums \
         is not explained by the thesis; its skipped writes can miss a revolution now and \
         then (it reports so for 3 ms of think time, §5.6.3), while this drive's \
         timing has no jitter, so a skip that clears the edge clears it every time.",
        t[0],
        t[2],
        t[3],
        t[0] / 4.17,
        t[0] / 5.59,
        (t[0] / 4.17 - t[2]) / 2.0,
        t[0] / 5.59 - t[3],
    ));
    out.checks.push(Check::absolute(
        "LOGSKIP-F5.12",
        "checksumming gain at 1 block (%)",
        91.0,
        gain(1),
        20.0,
    ));
    out.checks.push(Check::absolute(
        "LOGSKIP-F5.12",
        "skipping gain at 1 block (%)",
        317.0,
        gain(2),
        50.0,
    ));
    out.checks.push(Check::absolute(
        "LOGSKIP-F5.12",
        "skipping + checksumming gain at 1 block (%)",
        459.0,
        gain(3),
        70.0,
    ));
    // The chapter's and the conclusion's headline figures (LOGSKIP-SUM), from the
    // same runs: skipping alone "more than 300 %", with checksums "up to 450 %".
    // The catalog counts these under LOGSKIP-F5.12 (the same runs, looser bounds): they
    // are shown, not counted twice.
    let same_runs = "The same runs as LOGSKIP-F5.12's gains, against the chapter's rounder \
        headline; counted once, as LOGSKIP-F5.12's checks.";
    out.checks.push(
        Check::at_least(
            "LOGSKIP-SUM",
            "skipping gain at 1 block, more than (%)",
            300.0,
            gain(2),
        )
        .consistency(same_runs),
    );
    let best_both = (0..sizes.len())
        .map(|i| (bw[3][i] / bw[0][i] - 1.0) * 100.0)
        .fold(f64::MIN, f64::max);
    out.checks.push(
        Check::absolute(
            "LOGSKIP-SUM",
            "skipping + checksumming: largest gain over sizes (%)",
            450.0,
            best_both,
            70.0,
        )
        .consistency(same_runs),
    );
    let ordered = (0..sizes.len()).all(|i| thesis_order(&bw, i));
    out.checks.push(Check::holds(
        "LOGSKIP-F5.12",
        "chksm/skip ≥ skip ≥ chksm ≥ none at every size",
        ordered,
    ));
    out.checks.push(Check::relative(
        "LOGSKIP-F5.12",
        "no-optimization bandwidth at 1 block (MB/s)",
        F5_12_NONE_MB_S[0].1,
        bw[0][0],
        0.25,
    ));
    if let Some(&last) = bw[0].last() {
        if sizes.last() == Some(&32) {
            out.checks.push(Check::relative(
                "LOGSKIP-F5.12",
                "no-optimization bandwidth at 32 blocks (MB/s)",
                F5_12_NONE_MB_S[1].1,
                last,
                0.25,
            ));
        }
    }
    Ok(out)
}

/// Log bandwidth of the four configurations (rows) against think time in ms
/// (columns) on `disk`, 4-block transactions; table, CSV and plot go into `out`.
fn bandwidth_by_think(
    out: &mut ExperimentOutput,
    disk: &str,
    thinks: &[u32],
    n: usize,
    samples: u32,
    seed: u64,
) -> Result<Vec<Vec<f64>>, String> {
    let t = SharedTable(Rc::new(table_on(
        disk,
        journal_grid(&[4], (0..=7000).step_by(200).collect(), samples),
        seed,
    )?));
    let mut bw = vec![vec![0.0; thinks.len()]; 4];
    out.csv = "think_ms,config,mb_s\n".into();
    let mut tab = Table::new(&[
        "think (ms)",
        "no chksm/no skip",
        "chksm/no skip",
        "no chksm/skip",
        "chksm/skip",
    ]);
    for (i, &th) in thinks.iter().enumerate() {
        for (c, &(label, ck, sk)) in CONFIGS.iter().enumerate() {
            let r = journal_run(disk, (ck, sk), &t, 4, u64::from(th) * 1_000_000, n, seed)?;
            bw[c][i] = r.mb_s;
            let _ = writeln!(out.csv, "{th},{label},{:.3}", r.mb_s);
        }
        let mut row = vec![th.to_string()];
        row.extend(bw.iter().map(|v| format!("{:.2}", v[i])));
        tab.rows.push(row);
    }
    out.tables.push(tab);
    out.plots.push(Plot {
        title: "Log bandwidth vs think time, 4-block transactions".into(),
        x_label: "think time (ms)".into(),
        y_label: "bandwidth during I/O (MB/s)".into(),
        kind: PlotKind::Line,
        series: CONFIGS
            .iter()
            .zip(&bw)
            .map(|(c, v)| Series {
                label: c.0.into(),
                points: thinks
                    .iter()
                    .zip(v)
                    .map(|(&x, &y)| (f64::from(x), y))
                    .collect(),
            })
            .collect(),
        log_x: false,
        paper: vec![],
        x_categories: vec![],
    });
    Ok(bw)
}

/// LOGSKIP-F5.14: F5.12 on the IDE disk.
pub fn logskip_f5_14(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.14",
        "Log bandwidth vs blocks per transaction, no think time, IDE disk (Figure 5.14)",
        "As LOGSKIP-F5.12 on the IDE disk, the WD1200BB (preset wd1200bb, see LOGSKIP-F5.10). \
         The thesis sees every configuration drop sharply above 12 blocks and blames request \
         splitting by the disk or its driver; neither is described, so neither is modelled \
         here and that drop is NOT reproduced (the table shows what the model does past 12 \
         blocks). The check is the one stated number: skipping alone against no \
         optimization at 12 blocks (about 3 → 10 MB/s).",
        o.seed,
    );
    let sizes: Vec<u32> = if o.quick {
        vec![1, 12, 16]
    } else {
        vec![1, 2, 4, 8, 12, 16, 32]
    };
    let (n, samples) = if o.quick { (150, 10) } else { (500, 50) };
    let bw = bandwidth_by_size(&mut out, IDE_DISK, &sizes, n, samples, o.seed)?;
    // The thesis's two values at 12 blocks, over the bars of their series (no
    // optimization is series 0, skipping alone series 2).
    if let (Some(plot), Some(i12)) = (out.plots.last_mut(), sizes.iter().position(|&b| b == 12)) {
        let at = |v: f64| vec![(i12 as f64, v)];
        plot.paper = vec![
            Series {
                label: "paper: no chksm/no skip at 12 blocks, about 3 MB/s".into(),
                points: at(F5_14_AT_12_MB_S.0),
            },
            Series {
                label: String::new(),
                points: Vec::new(),
            },
            Series {
                label: "paper: no chksm/skip at 12 blocks, about 10 MB/s".into(),
                points: at(F5_14_AT_12_MB_S.1),
            },
        ];
    }
    let at12 = sizes
        .iter()
        .position(|&b| b == 12)
        .ok_or("no 12-block run")?;
    out.checks.push(Check::absolute(
        "LOGSKIP-F5.14",
        "skip-only / no-optimization bandwidth at 12 blocks",
        3.3,
        bw[2][at12] / bw[0][at12],
        0.7,
    ));
    out.checks.push(Check::relative(
        "LOGSKIP-F5.14",
        "no-optimization bandwidth at 12 blocks (MB/s)",
        F5_14_AT_12_MB_S.0,
        bw[0][at12],
        0.25,
    ));
    // Time per skip-only transaction at 12 blocks, ours and the thesis's "~10 MB/s":
    // a 13-block record and a 4 KB commit, 56 KB of log.
    let per_txn_ms = |mb_s: f64| 56.0 * 1024.0 / (mb_s * 1e6) * 1e3;
    let mut tab = Table::new(&[
        "12 blocks, skip only",
        "bandwidth (MB/s)",
        "ms per transaction",
    ]);
    tab.rows.push(vec![
        "this model".into(),
        format!("{:.2}", bw[2][at12]),
        format!("{:.2}", per_txn_ms(bw[2][at12])),
    ]);
    tab.rows.push(vec![
        "thesis (about)".into(),
        "10".into(),
        format!("{:.2}", per_txn_ms(10.0)),
    ]);
    out.tables.push(tab);
    out.description.push_str(&format!(
        " Where the model misses: skipping alone takes {:.2} ms per 12-block transaction \
         here (two writes, each command overhead and transfer, with the skip landing just \
         ahead of the head) against about {:.2} ms implied by the thesis's 10 MB/s, on a \
         drive whose turn is 8.33 ms. The real drive lost part of a turn per write that \
         the model does not: its firmware or driver timing is not described, and the \
         preset's 0.3 ms overhead is the datasheet's, not tuned.",
        per_txn_ms(bw[2][at12]),
        per_txn_ms(10.0)
    ));
    let below16: Vec<usize> = (0..sizes.len()).filter(|&i| sizes[i] < 16).collect();
    let ordered = below16.iter().all(|&i| thesis_order(&bw, i));
    out.checks.push(Check::holds(
        "LOGSKIP-F5.14",
        "chksm/skip ≥ skip ≥ chksm ≥ none below 16 blocks (as on SCSI)",
        ordered,
    ));
    Ok(out)
}

/// LOGSKIP-F5.17: F5.15 on the IDE disk.
pub fn logskip_f5_17(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.17",
        "Log bandwidth vs think time, 4-block transactions, IDE disk (Figure 5.17)",
        "As LOGSKIP-F5.15 on the IDE disk, the WD1200BB (preset wd1200bb, see LOGSKIP-F5.10). \
         The thesis finds skipping with checksums best and much more stable against think \
         time than checksums alone; the check compares their coefficients of variation \
         across the think times 0–6 ms.",
        o.seed,
    );
    let (n, samples) = if o.quick { (100, 20) } else { (500, 50) };
    let thinks: Vec<u32> = (0..=6).collect();
    let bw = bandwidth_by_think(&mut out, IDE_DISK, &thinks, n, samples, o.seed)?;
    let cv = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64;
        var.sqrt() / m
    };
    let (cv_both, cv_chk) = (cv(&bw[3]), cv(&bw[1]));
    let mut tab = Table::new(&["configuration", "coefficient of variation over think times"]);
    tab.rows
        .push(vec!["chksm/skip".into(), format!("{cv_both:.3}")]);
    tab.rows
        .push(vec!["chksm/no skip".into(), format!("{cv_chk:.3}")]);
    out.tables.push(tab);
    out.checks.push(Check::holds(
        "LOGSKIP-F5.17",
        &format!(
            "chksm/skip more stable than chksm alone (coefficient of variation {cv_both:.3} < {cv_chk:.3})"
        ),
        cv_both < cv_chk,
    ));
    let best = (0..thinks.len()).all(|i| (0..3).all(|c| bw[3][i] >= bw[c][i]));
    out.checks.push(Check::holds(
        "LOGSKIP-F5.17",
        "chksm/skip ≥ every other configuration at every think time",
        best,
    ));
    Ok(out)
}

/// LOGSKIP-F5.15: log bandwidth against think time, 4-block transactions.
pub fn logskip_f5_15(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.15",
        "Log bandwidth vs think time, 4-block transactions, SCSI Disk 1 (Figure 5.15)",
        "As LOGSKIP-F5.12, with 4-block transactions and a think time (0–6 ms) between one \
         transaction's completion and the next; miniMimic's grid spans think times 0–7 ms \
         in 200 µs steps. Bandwidth counts log bytes per second of log I/O (think time and \
         cleaning excluded).",
        o.seed,
    );
    let (n, samples) = if o.quick { (100, 20) } else { (500, 50) };
    let thinks: Vec<u32> = (0..=6).collect();
    let bw = bandwidth_by_think(&mut out, DISK, &thinks, n, samples, o.seed)?;
    for (c, name) in [(0, "no chksm/no skip"), (1, "chksm/no skip")] {
        let peak = (0..thinks.len())
            .max_by(|&a, &b| bw[c][a].total_cmp(&bw[c][b]))
            .unwrap_or(0);
        out.checks.push(Check::range(
            "LOGSKIP-F5.15",
            &format!("{name}: think time of the peak (ms)"),
            4.0,
            5.0,
            f64::from(thinks[peak]),
        ));
        out.checks.push(Check::relative(
            "LOGSKIP-F5.15",
            &format!("{name}: bandwidth at 6 ms vs at 0 ms (ratio)"),
            1.0,
            bw[c][6] / bw[c][0],
            0.15,
        ));
    }
    let best = (0..thinks.len()).all(|i| (0..3).all(|c| bw[3][i] >= bw[c][i]));
    out.checks.push(Check::holds(
        "LOGSKIP-F5.15",
        "chksm/skip ≥ every other configuration at every think time",
        best,
    ));
    let chk_wins = (3..=5).any(|i| bw[1][i] > bw[2][i]);
    out.checks.push(Check::holds(
        "LOGSKIP-F5.15",
        "chksm > skip-only for some think time in 3–5 ms",
        chk_wins,
    ));
    Ok(out)
}

/// LOGSKIP-F5.11: miniMimic's predictions against the service times it sees.
pub fn logskip_f5_11(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "LOGSKIP-F5.11",
        "miniMimic: predicted vs actual service times of the 8 KB log writes (Figure 5.11)",
        "The log skipper (journal layer, skip on, commit blocks) replays 500 TPC-B transactions \
         of one 4 KB block with no think time on SCSI Disk 1. For each 8 KB synchronous write \
         (descriptor + data) placed where miniMimic recommended, its predicted mean, minimum \
         and maximum (the recommended cell, 50 samples off-line, refined on-line as writes \
         complete) against the measured service time.",
        o.seed,
    );
    let (n, samples) = if o.quick { (200, 20) } else { (500, 50) };
    let mut grid = journal_grid(&[1], vec![0], samples);
    grid.samples = samples;
    let t = SharedTable(Rc::new(table(grid, o.seed)?));
    let r = journal_run(DISK, (false, true), &t, 1, 0, n, o.seed)?;
    let inside = r.probe.0.borrow();
    let recs: Vec<_> = inside
        .log_writes
        .iter()
        .filter(|w| w.record && w.predicted.is_some())
        .collect();
    let k = recs.len().max(1) as f64;
    let actual = recs.iter().map(|w| w.actual_ns as f64).sum::<f64>() / k;
    let pred = recs
        .iter()
        .filter_map(|w| w.predicted.and_then(|c| c.mean_ns()))
        .sum::<f64>()
        / k;
    let inside_bounds = recs
        .iter()
        .filter(|w| {
            w.predicted
                .is_some_and(|c| c.min_ns <= w.actual_ns && w.actual_ns <= c.max_ns)
        })
        .count() as f64
        / k;
    let mut sorted: Vec<f64> = recs.iter().map(|w| ms(w.actual_ns as f64)).collect();
    sorted.sort_by(f64::total_cmp);
    out.plots.push(Plot {
        title: "Sorted actual service times of the 8 KB log writes".into(),
        x_label: "request (sorted)".into(),
        y_label: "service time (ms)".into(),
        kind: PlotKind::Line,
        series: vec![
            Series {
                label: "actual".into(),
                points: sorted
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| (i as f64, v))
                    .collect(),
            },
            Series {
                label: "predicted average".into(),
                points: vec![(0.0, ms(pred)), (sorted.len() as f64, ms(pred))],
            },
        ],
        log_x: false,
        paper: vec![],
        x_categories: vec![],
    });
    out.csv = format!(
        "writes_at_recommendation,actual_mean_ms,predicted_mean_ms,inside_min_max\n{},{:.4},{:.4},{:.4}\n",
        recs.len(),
        ms(actual),
        ms(pred),
        inside_bounds
    );
    out.checks.push(Check::below(
        "LOGSKIP-F5.11",
        "|predicted − actual mean| / actual mean",
        0.02,
        (pred - actual).abs() / actual,
    ));
    out.checks.push(Check::at_least(
        "LOGSKIP-F5.11",
        "fraction of measured times inside [predicted min, predicted max]",
        0.98,
        inside_bounds,
    ));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_stack_builds_from_toml_and_runs() {
        let t = SharedTable(Rc::new(table(journal_grid(&[1], vec![0], 2), 1).unwrap()));
        for (_, ck, sk) in CONFIGS {
            let r = journal_run(DISK, (ck, sk), &t, 1, 0, 30, 1).unwrap();
            assert!(r.mb_s > 0.0);
            assert_eq!(r.probe.0.borrow().txs.len(), 30);
        }
    }

    /// The report's sweet-spot note works the spots out from the drive's parameters;
    /// the sampled drive must put its plateau edges at the same skips, or the note
    /// explains a different drive.
    #[test]
    fn the_sweet_spot_note_matches_the_sampled_drive() {
        let skips: Vec<i32> = (0..=300).step_by(4).collect();
        let m = table(Grid::slice(skips.clone(), 4, 0, 10), 3).unwrap();
        let means: Vec<f64> = (0..skips.len())
            .map(|k| ms(m.cell(0, 0, k).mean_ns().unwrap()))
            .collect();
        let edges = falling_edges(&skips, &means, ROTATION_MS / 4.0);
        let g = SpotGeometry::of(DISK).unwrap();
        let (a, b) = g.spots(g.delay_ms, true);
        let want: Vec<i32> = [a, b].into_iter().flatten().map(|v| v as i32).collect();
        assert_eq!(edges[..2], want[..], "{edges:?} vs {want:?}");
        // And the note's mean model agrees with the sampled mean at the first spot.
        let k = skips.iter().position(|&s| s == want[0]).unwrap();
        let model = g.mean_ms(want[0] as u32, g.delay_ms, true);
        assert!((means[k] - model).abs() < 0.1, "{} vs {model}", means[k]);
    }
}
