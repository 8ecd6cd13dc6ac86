//! The journal layer's log bandwidth under the modified TPC-B, with and without
//! skipping and transactional checksums (LOGSKIP-F5.12 with LOGSKIP-SUM, F5.14, F5.15,
//! F5.17).

use super::{journal_grid, journal_run, table_on, CONFIGS, DISK, IDE_DISK};
use crate::experiments::options::RunOpts;
use crate::experiments::Check;
use crate::report::{ExperimentOutput, Plot, PlotKind, Series, Table};
use crate::stack::journal::SharedTable;
use std::fmt::Write as _;
use std::rc::Rc;

/// The thesis's no-optimization bandwidth (blocks, MB/s) at 1 and 32 blocks (Figure 5.12).
const F5_12_NONE_MB_S: [(u32, f64); 2] = [(1, 1.0), (32, 7.0)];
/// The thesis's bandwidth at 12 blocks on the IDE disk, no optimization and skipping
/// alone (Figure 5.14), MB/s.
const F5_14_AT_12_MB_S: (f64, f64) = (3.0, 10.0);

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
