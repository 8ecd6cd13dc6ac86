//! miniMimic's table on the log region: its recommended skips (LOGSKIP-F5.5, the
//! surfaces F5.8 and F5.10) and its predictions against the service times the log
//! skipper sees (F5.11).

use super::{
    edge_note, first_edge_4k, hline, journal_grid, journal_run, ms, size_skip, table, table_on,
    y_span, DISK, IDE_DISK, SWEET_KB,
};
use crate::experiments::logskip_edge::{note as spot_note, SpotGeometry};
use crate::experiments::options::RunOpts;
use crate::experiments::Check;
use crate::mimic::minimimic::Grid;
use crate::report::{ExperimentOutput, Plot, PlotKind, Series, Table};
use crate::stack::journal::SharedTable;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::rc::Rc;

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
