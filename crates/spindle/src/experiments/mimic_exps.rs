//! Disk Mimic experiments of the thesis's chapter 3 (MIMIC-F3.1, F3.3–F3.9, MIMIC-MEM) on
//! the base simulated disk. MIMIC-REAL is in [`super::mimic_real`]; chapter 4's freeblock
//! scheduling in [`super::freeblk_exps`] and [`super::freeblk_eq`].

use super::options::RunOpts;
use super::Check;
use crate::disk::hdd::Hdd;
use crate::disk::presets::{preset, T3_1};
use crate::engine::Source;
use crate::mimic::{DiskMimic, Metric};
use crate::report::{ExperimentOutput, Plot, PlotKind, Series, Table};
use crate::runner::{simulate, StackSpec};
use crate::sched::SchedulerKind;
use crate::trace::IoRecord;
use std::fmt::Write as _;

/// The busiest disk of the HP trace (device 0), compressed by `factor`.
pub(super) fn hp_device0(factor: f64) -> Result<Vec<IoRecord>, String> {
    let recs: Vec<IoRecord> = crate::trace::resolve("sample:hplajw")
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|r| r.device == 0)
        .collect();
    Ok(crate::workload::compress(&recs, factor))
}

/// Total time at the disk (s) of `recs` on `disk` under `sched`.
fn time_at_disk(
    disk: &crate::disk::params::DiskParams,
    sched: SchedulerKind,
    recs: &[IoRecord],
    samples: u32,
) -> Result<f64, String> {
    time_at_disk_interpolated(disk, sched, recs, samples, &[])
}

/// Like [`time_at_disk`], with the Mimic interpolating by the ladder `rungs`.
fn time_at_disk_interpolated(
    disk: &crate::disk::params::DiskParams,
    sched: SchedulerKind,
    recs: &[IoRecord],
    samples: u32,
    rungs: &[(u32, f64)],
) -> Result<f64, String> {
    let spec = StackSpec {
        hold_overlapping: true,
        mimic_samples: samples,
        mimic_interpolation: rungs.to_vec(),
        ..StackSpec::one_disk(disk.clone(), sched)
    };
    let r = simulate(&spec, Source::records(recs), &mut |_| {}).map_err(|e| e.to_string())?;
    Ok(r.metrics.total_disk_time_ms / 1000.0)
}

fn base_mimic(samples: u32, seed: u64) -> Result<DiskMimic, String> {
    let hdd = Hdd::new(preset("mimic-base")?).map_err(|e| e.to_string())?;
    Ok(DiskMimic::offline(
        Box::new(hdd),
        samples,
        Metric::Mean,
        seed,
    ))
}

/// MIMIC-F3.1: sorted probe times at three inter-request distances on the base disk.
pub fn mimic_f3_1(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let n = if o.quick { 300 } else { 1000 };
    let mut out = ExperimentOutput::new(
        "MIMIC-F3.1",
        "Distribution of off-line probe times at three distances (Figure 3.1)",
        format!(
            "{n} off-line probes each at inter-request distances of 132, 224 and 300 KB on the \
             thesis's base disk (Table 3.1 #1), each probe pair after a random access; the probe \
             times sorted. The thesis measured a real IBM 9LZX; we check the simulated base \
             disk for plateaus, one near a revolution plus a switch at 132 KB, and a slower mean at \
             132 KB than at 224 KB."
        ),
        o.seed,
    );
    let mut m = base_mimic(n, o.seed)?;
    out.csv = "distance_kb,rank,ms\n".into();
    let mut series = Vec::new();
    let mut means = Vec::new();
    for kb in [132i64, 224, 300] {
        let d = kb * 2;
        m.predict(false, false, d);
        let s: Vec<f64> = m
            .samples(false, false, d)
            .unwrap_or(&[])
            .iter()
            .map(|&ns| ns as f64 / 1e6)
            .collect();
        for (i, v) in s.iter().enumerate() {
            let _ = writeln!(out.csv, "{kb},{i},{v:.6}");
        }
        // Plateaus: runs of sorted samples within 0.2 ms of each other holding ≥ 2 %.
        let mut plateaus = 0;
        let mut start = 0;
        for i in 1..=s.len() {
            if i == s.len() || s[i] - s[i - 1] > 0.2 {
                if (i - start) as f64 >= 0.02 * s.len() as f64 {
                    plateaus += 1;
                }
                start = i;
            }
        }
        out.checks.push(Check::holds(
            "MIMIC-F3.1",
            &format!("{kb} KB: {plateaus} plateaus (≥ 2)"),
            plateaus >= 2,
        ));
        let mean = s.iter().sum::<f64>() / s.len().max(1) as f64;
        means.push(mean);
        if kb == 132 {
            // Dominant plateau near one revolution plus a switch (6.6–6.8 ms).
            let near = s.iter().filter(|&&v| (6.3..=7.1).contains(&v)).count() as f64
                / s.len().max(1) as f64;
            out.checks.push(Check::range(
                "MIMIC-F3.1",
                "132 KB: fraction of probes at 6.3–7.1 ms",
                0.8,
                1.0,
                near,
            ));
        }
        series.push(Series {
            label: format!("{kb} KB"),
            points: s.iter().enumerate().map(|(i, &v)| (i as f64, v)).collect(),
        });
    }
    out.checks.push(Check::holds(
        "MIMIC-F3.1",
        &format!(
            "mean at 132 KB ({:.2} ms) above 224 KB ({:.2} ms)",
            means[0], means[1]
        ),
        means[0] > means[1],
    ));
    out.plots.push(Plot {
        title: "Sorted probe times".into(),
        x_label: "probe (sorted)".into(),
        y_label: "time (ms)".into(),
        kind: PlotKind::Line,
        series,
        log_x: false,
        // The thesis's text for its real IBM 9LZX at 132 KB: about 10 % of probes take
        // 1.8 ms and about 90 % take 6.8 ms (the curves themselves are figure-only).
        paper: vec![Series {
            label: "paper (text, real 9LZX): 132 KB, ~10 % at 1.8 ms, ~90 % at 6.8 ms".into(),
            points: {
                let cut = 0.1 * n as f64;
                let last = n.saturating_sub(1) as f64;
                vec![(0.0, 1.8), (cut, 1.8), (cut, 6.8), (last, 6.8)]
            },
        }],
        x_categories: Vec::new(),
    });
    Ok(out)
}

/// MIMIC-F3.5: mean service time against signed inter-request distance.
pub fn mimic_f3_5(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let samples = if o.quick { 10 } else { 30 };
    let mut out = ExperimentOutput::new(
        "MIMIC-F3.5",
        "Mean service time against inter-request distance (Figure 3.5)",
        format!(
            "The Disk Mimic's mean ({samples} probes per distance) on the base disk over the whole \
             signed distance range (top) and a close-up of ±3 tracks (bottom). The band between the \
             fastest and slowest probes at a distance is the rotational latency; its centre follows \
             the seek curve; the close-up is a saw-tooth with a period of one track (272 sectors)."
        ),
        o.seed,
    );
    let mut m = base_mimic(samples, o.seed)?;
    let cap = Hdd::new(preset("mimic-base")?)
        .map_err(|e| e.to_string())?
        .capacity() as i64;
    let steps = if o.quick { 60 } else { 200 };
    let mut wide = Vec::new();
    out.csv = "distance_sectors,mean_ms\n".into();
    for k in -steps..=steps {
        let d = k * (cap / 2 - 1) / steps;
        let mean = m.predict(false, false, d) as f64 / 1e6;
        wide.push((d as f64, mean));
        let _ = writeln!(out.csv, "{d},{mean:.6}");
    }
    // Band width: how far the mean moves among distances 37 sectors
    // apart (within a few cylinders: the same seek, every rotational offset), at
    // several places on the disk.
    let mut widths = Vec::new();
    for k in 1..=8i64 {
        let centre = k * (cap / 2 - 1) / 9;
        let means: Vec<f64> = (0..200)
            .map(|j| m.predict(false, false, centre + j * 37) as f64 / 1e6)
            .collect();
        let lo = means.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        widths.push(hi - lo);
    }
    let mut close = Vec::new();
    for d in (-3 * 272..=3 * 272).step_by(4) {
        close.push((d as f64, m.predict(false, false, d) as f64 / 1e6));
    }
    widths.sort_by(f64::total_cmp);
    let band = widths.get(widths.len() / 2).copied().unwrap_or(0.0);
    out.checks.push(Check::relative(
        "MIMIC-F3.5",
        "band width (spread of means over distances within a few cylinders), ms",
        6.0,
        band,
        0.15,
    ));
    // Saw-tooth period: the close-up's autocorrelation peak (the Mimic's own period
    // estimate; the close-up is sampled every 4 sectors). Counting drops instead is
    // thrown by one noisy mean among few probes.
    let means: Vec<f64> = close.iter().map(|p| p.1).collect();
    let period = crate::mimic::period(&means).map_or(0.0, |lag| 4.0 * lag as f64);
    out.checks.push(Check::relative(
        "MIMIC-F3.5",
        "close-up saw-tooth period, sectors",
        272.0,
        period,
        0.20,
    ));
    out.plots.push(Plot {
        title: "Mean time vs distance, whole disk".into(),
        x_label: "inter-request distance (sectors)".into(),
        y_label: "mean time (ms)".into(),
        kind: PlotKind::Points,
        series: vec![Series {
            label: "Disk Mimic mean".into(),
            points: wide,
        }],
        log_x: false,
        paper: Vec::new(),
        x_categories: Vec::new(),
    });
    out.plots.push(Plot {
        title: "Close-up: ±3 tracks".into(),
        x_label: "inter-request distance (sectors)".into(),
        y_label: "mean time (ms)".into(),
        kind: PlotKind::Line,
        series: vec![Series {
            label: "Disk Mimic mean".into(),
            points: close,
        }],
        log_x: false,
        paper: Vec::new(),
        x_categories: Vec::new(),
    });
    Ok(out)
}

/// MIMIC-F3.4: SMTF against the number of samples per distance.
pub fn mimic_f3_4(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let counts: Vec<u32> = if o.quick {
        vec![1, 3, 10]
    } else {
        vec![1, 2, 5, 10, 20, 50, 100]
    };
    let mut out = ExperimentOutput::new(
        "MIMIC-F3.4",
        "Sensitivity to the number of samples (Figure 3.4)",
        "Time at the disk of SMTF (mean) on the base disk with the HP trace's busiest disk at \
         compression 20, as the Disk Mimic's samples per distance grow, against FCFS, C-LOOK, SSTF \
         and greedy-optimal.",
        o.seed,
    );
    let recs = hp_device0(20.0)?;
    let disk = preset("mimic-base")?;
    let mut base = Vec::new();
    for s in [
        SchedulerKind::Fcfs,
        SchedulerKind::CLook,
        SchedulerKind::Sstf,
        SchedulerKind::Greedy,
    ] {
        base.push((s, time_at_disk(&disk, s, &recs, 1)?));
    }
    let mut smtf = Vec::new();
    for &n in &counts {
        smtf.push((
            n,
            time_at_disk(&disk, SchedulerKind::Smtf(Metric::Mean), &recs, n)?,
        ));
    }
    out.csv = "scheduler,samples,time_at_disk_s\n".into();
    for (s, t) in &base {
        let _ = writeln!(out.csv, "{},,{t:.6}", s.name());
    }
    for (n, t) in &smtf {
        let _ = writeln!(out.csv, "smtf,{n},{t:.6}");
    }
    let worst_base = base
        .iter()
        .filter(|(s, _)| *s != SchedulerKind::Greedy)
        .map(|b| b.1)
        .fold(f64::INFINITY, f64::min);
    if let Some(&(_, one)) = smtf.first() {
        out.checks.push(Check::holds(
            "MIMIC-F3.4",
            &format!(
                "SMTF with 1 sample ({one:.1} s) below FCFS, C-LOOK and SSTF ({worst_base:.1} s)"
            ),
            one < worst_base,
        ));
    }
    let at = |n: u32| smtf.iter().find(|s| s.0 == n).map(|s| s.1);
    if let (Some(t10), Some(tmax)) = (at(10), smtf.last().map(|s| s.1)) {
        out.checks.push(Check::relative(
            "MIMIC-F3.4",
            "SMTF with 10 samples vs the most samples",
            tmax,
            t10,
            0.02,
        )
        .reference("our SMTF with the most samples")
        .consistency_if(smtf.last().map(|s| s.0) == Some(10), "In quick mode 10 samples is the most samples run, so this compares a number with itself"));
    }
    let ok = smtf.windows(2).all(|w| w[1].1 <= w[0].1 * 1.01);
    out.checks.push(Check::holds(
        "MIMIC-F3.4",
        "SMTF time non-increasing in samples (±1 %)",
        ok,
    ));
    let mut series: Vec<Series> = vec![Series {
        label: "smtf".into(),
        points: smtf.iter().map(|(n, t)| (*n as f64, *t)).collect(),
    }];
    for (s, t) in &base {
        series.push(Series {
            label: s.name(),
            points: counts.iter().map(|&n| (n as f64, *t)).collect(),
        });
    }
    out.plots.push(Plot {
        title: "Time at the disk vs samples per distance".into(),
        x_label: "samples per distance".into(),
        y_label: "time at the disk (s)".into(),
        kind: PlotKind::Line,
        series,
        log_x: true,
        paper: Vec::new(),
        x_categories: Vec::new(),
    });
    Ok(out)
}

/// MIMIC-F3.7: the eight Table 3.1 disks.
pub fn mimic_f3_7(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let samples = if o.quick { 5 } else { 20 };
    let mut out = ExperimentOutput::new(
        "MIMIC-F3.7",
        "Sensitivity to disk characteristics (Figure 3.7)",
        format!(
            "Time at the disk relative to greedy-optimal on each Table 3.1 disk, for FCFS, C-LOOK, \
             SSTF and SMTF (mean, {samples} samples per distance), with the HP trace's busiest disk \
             at compression 20. SMTF runs twice: on the all-probed table, and on a table \
             interpolated by Table 3.2's ladder (\"SMTF interp.\"), as the figure does (the thesis: \
             without interpolation is very similar). The ratio ranges the thesis's figure shows are checked against \
             the all-probed SMTF; being within 8 % of greedy-optimal and below C-LOOK and \
             SSTF are checked for both."
        ),
        o.seed,
    );
    let recs = hp_device0(20.0)?;
    let scheds = [
        SchedulerKind::Fcfs,
        SchedulerKind::CLook,
        SchedulerKind::Sstf,
        SchedulerKind::Smtf(Metric::Mean),
    ];
    let mut table = Table::new(&[
        "disk",
        "greedy s",
        "FCFS",
        "C-LOOK",
        "SSTF",
        "SMTF",
        "SMTF interp.",
    ]);
    out.csv = "disk,scheduler,time_at_disk_s,relative_to_greedy\n".into();
    let mut bars: Vec<Vec<(f64, f64)>> = vec![vec![]; scheds.len() + 1];
    let mut fcfs_max: f64 = 0.0;
    // Where C-LOOK or SSTF came within 5 % of SMTF: (disk, scheduler, its time, SMTF's),
    // each relative to greedy-optimal.
    let mut close: Vec<(&str, &str, f64, f64)> = Vec::new();
    // (disk, greedy-optimal's time at the disk in s, FCFS / greedy-optimal).
    let mut fcfs_by_load: Vec<(&str, f64, f64)> = Vec::new();
    for (i, t) in T3_1.iter().enumerate() {
        let disk = preset(t.name)?;
        let greedy = time_at_disk(&disk, SchedulerKind::Greedy, &recs, samples)?;
        let mut row = vec![t.label.to_string(), format!("{greedy:.1}")];
        let mut rel = Vec::new();
        for (k, &s) in scheds.iter().enumerate() {
            let v = time_at_disk(&disk, s, &recs, samples)?;
            let r = v / greedy;
            rel.push(r);
            row.push(format!("{r:.3}"));
            bars[k].push((i as f64, r));
            let _ = writeln!(out.csv, "{},{},{v:.6},{r:.6}", t.name, s.name());
        }
        let smtf = SchedulerKind::Smtf(Metric::Mean);
        let v = time_at_disk_interpolated(&disk, smtf, &recs, samples, crate::mimic::TABLE_3_2)?;
        let interp = v / greedy;
        row.push(format!("{interp:.3}"));
        bars[scheds.len()].push((i as f64, interp));
        let _ = writeln!(out.csv, "{},smtf-interpolated,{v:.6},{interp:.6}", t.name);
        table.rows.push(row);
        let (fcfs, clook, sstf, smtf) = (rel[0], rel[1], rel[2], rel[3]);
        fcfs_max = fcfs_max.max(fcfs);
        fcfs_by_load.push((t.label, greedy, fcfs));
        for (name, v) in [("C-LOOK", clook), ("SSTF", sstf)] {
            if v / smtf < 1.05 {
                close.push((t.label, name, v, smtf));
            }
        }
        for (name, v) in [("SMTF", smtf), ("SMTF interp.", interp)] {
            out.checks.push(Check::below(
                "MIMIC-F3.7",
                &format!("{}: {name} / greedy-optimal (≤ 1.08 + 2 pp)", t.label),
                1.10 + 1e-12,
                v,
            ));
            out.checks.push(Check::holds(
                "MIMIC-F3.7",
                &format!(
                    "{}: {name} ({v:.3}) below C-LOOK ({clook:.3}) and SSTF ({sstf:.3})",
                    t.label
                ),
                v < clook.min(sstf),
            ));
        }
        for (name, v) in [("C-LOOK", clook), ("SSTF", sstf)] {
            out.checks.push(Check::range(
                "MIMIC-F3.7",
                &format!("{}: {name} / SMTF", t.label),
                1.05,
                1.55,
                v / smtf,
            ));
        }
        if t.name == "mimic-slow-seek" || t.name == "mimic-fast-rotate" {
            out.checks.push(Check::holds(
                "MIMIC-F3.7",
                &format!("{}: SSTF ({sstf:.3}) below C-LOOK ({clook:.3})", t.label),
                sstf < clook,
            ));
        }
    }
    out.checks.push(Check::at_least(
        "MIMIC-F3.7",
        "largest FCFS / greedy-optimal (on some disk)",
        2.0,
        fcfs_max,
    ));
    out.description.push_str(&close_to_smtf_note(&close));
    fcfs_by_load.sort_by(|a, b| b.1.total_cmp(&a.1));
    out.description.push_str(&format!(
        "\n\nFCFS / greedy-optimal by disk, the busiest first (greedy-optimal's time at the \
         disk, s): {}. The same trace keeps a slower disk busier and its queue longer, and the \
         longer the queue the more an order-blind scheduler gives away; our largest ratio, \
         {fcfs_max:.2}, misses the thesis's \"sometimes more than a factor of two\". The \
         thesis gives its bars no numbers, so we cannot tell on which disk, or under how long \
         a queue, its FCFS passed 2×.",
        fcfs_by_load
            .iter()
            .map(|(d, g, f)| format!("{d} {f:.2} ({g:.0})"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    out.tables.push(table);
    out.plots.push(Plot {
        title: "Time at the disk relative to greedy-optimal (the disks of Table 3.1)".into(),
        x_label: "disk".into(),
        y_label: "time / greedy-optimal".into(),
        kind: PlotKind::Bars,
        series: scheds
            .iter()
            .map(|s| s.name())
            .chain(std::iter::once("smtf-interpolated".to_string()))
            .zip(bars)
            .map(|(label, points)| Series { label, points })
            .collect(),
        log_x: false,
        paper: Vec::new(),
        x_categories: T3_1.iter().map(|t| t.label.to_string()).collect(),
    });
    Ok(out)
}

/// Why C-LOOK or SSTF can come within 5 % of SMTF on some Table 3.1 disks: the gain
/// over them that even greedy-optimal (exact positioning times) finds there. Rows are
/// (disk, scheduler, its time, SMTF's time), times relative to greedy-optimal.
fn close_to_smtf_note(close: &[(&str, &str, f64, f64)]) -> String {
    if close.is_empty() {
        return String::new();
    }
    let cases: Vec<String> = close
        .iter()
        .map(|(disk, name, v, smtf)| {
            format!(
                "{disk}, {name}: greedy-optimal is {:.1} % faster than {name}, SMTF {:.1} % \
                 slower than greedy-optimal",
                (1.0 - 1.0 / v) * 100.0,
                (smtf - 1.0) * 100.0
            )
        })
        .collect();
    format!(
        "\n\nWhere C-LOOK or SSTF comes within 5 % of SMTF (the lower end of the 10-50 % range, \
         with its 0.05 margin), the scheduler that knows the exact positioning time of every \
         queued request gains little over them either: {}. SMTF chooses greedily as well, from predicted \
         rather than exact times, so with a gain this small to find no Disk Mimic could put \
         C-LOOK or SSTF 10 % behind it. On the disks with a 2 ms revolution (Fast rotate, Fast \
         seek+rot), rotational latency, the part of positioning that SMTF saves and a \
         seek-ordering scheduler does not, is a third of the base disk's. The thesis says as \
         much of disk 4: \"C-LOOK and SSTF perform relatively well when seek time dominates \
         performance (e.g., disks 3 and 4)\"; its 10-50 % is a summary (section 3.2: \"for a \
         variety of simulated and real disks\"), and the figure's bars are not given as \
         numbers, so we keep the range as the check and leave these misses visible.",
        cases.join("; ")
    )
}

/// The thesis's Online-Set+SSTF slowdown against off-line SMTF after 4 days.
const F3_9_CONVERGED: f64 = 0.03;

/// MIMIC-F3.9: on-line SMTF variants against off-line SMTF, day by day.
pub fn mimic_f3_9(o: &RunOpts) -> Result<ExperimentOutput, String> {
    use crate::sched::Base;
    let factor = 20.0;
    let mut out = ExperimentOutput::new(
        "MIMIC-F3.9",
        "On-line SMTF (Figure 3.9)",
        "The Disk Mimic configured on-line from the workload's own requests (service times as \
         the host sees them), driving Online-Set and Online-Priority over a base of SSTF or C-LOOK, \
         on the base disk with the HP trace's busiest disk at compression 20. Slowdown relative \
         to off-line SMTF (10 samples per distance), per day of the trace. The thesis's week held \
         ~750,000 requests; hplajw's busiest disk has 42,252, so convergence \"after 4 days\" is \
         checked as the slowdown on the last day. The thesis's days held similar request counts \
         (~150,000 after one day), hplajw's do not (254 requests on day 1, 485 on day 2, 20,600 \
         on day 4), so \"better than both baselines after one day\" is checked on sevenths of \
         the trace's requests in arrival order (the learning volume the thesis's day stands \
         for): from the second seventh on. The calendar-day and per-seventh values are both in \
         the CSV and plots. (Calendar days would not test the claim: after day 2's 254 observed \
         requests Online-Set+SSTF can still trail C-LOOK while already beating its SSTF \
         base, because it inherits SSTF's handicap against C-LOOK until it has observed \
         enough distances, as its definition implies.)",
        o.seed,
    );
    let recs = hp_device0(factor)?;
    let disk = preset("mimic-base")?;
    let day_ns = 86_400e9 / factor;
    // Time at the disk per calendar day and per seventh of the requests (arrival order).
    type Bins = (Vec<f64>, Vec<f64>);
    let per_day = |sched: SchedulerKind| -> Result<Bins, String> {
        let spec = StackSpec {
            hold_overlapping: true,
            ..StackSpec::one_disk(disk.clone(), sched)
        };
        let r = simulate(&spec, Source::records(&recs), &mut |_| {}).map_err(|e| e.to_string())?;
        let mut days = vec![0.0; 7];
        let mut by_arrival: Vec<(u64, u64)> = r
            .requests
            .iter()
            .map(|l| (l.arrival.0, l.service_ns()))
            .collect();
        by_arrival.sort_unstable();
        let n = by_arrival.len().max(1);
        let mut sevenths = vec![0.0; 7];
        for (k, &(arrival, service)) in by_arrival.iter().enumerate() {
            let d = ((arrival as f64 / day_ns) as usize).min(6);
            days[d] += service as f64 / 1e9;
            sevenths[(k * 7 / n).min(6)] += service as f64 / 1e9;
        }
        Ok((days, sevenths))
    };
    let scheds = [
        SchedulerKind::Sstf,
        SchedulerKind::CLook,
        SchedulerKind::OnlineSet(Base::Sstf),
        SchedulerKind::OnlineSet(Base::CLook),
        SchedulerKind::OnlinePriority(Base::Sstf),
        SchedulerKind::OnlinePriority(Base::CLook),
    ];
    let (offline, offline7) = per_day(SchedulerKind::Smtf(Metric::Mean))?;
    let mut results = Vec::new();
    out.csv = "scheduler,unit,index,time_at_disk_s,slowdown_vs_offline_smtf\n".into();
    for s in scheds {
        let (days, sevenths) = per_day(s)?;
        for (unit, bins, base) in [("day", &days, &offline), ("seventh", &sevenths, &offline7)] {
            for (d, t) in bins.iter().enumerate() {
                let _ = writeln!(
                    out.csv,
                    "{},{unit},{},{t:.6},{:.6}",
                    s.name(),
                    d + 1,
                    t / base[d] - 1.0
                );
            }
        }
        results.push((s, days, sevenths));
    }
    let slow = |s: SchedulerKind, d: usize| {
        results
            .iter()
            .find(|r| r.0 == s)
            .map(|r| r.1[d] / offline[d] - 1.0)
            .unwrap_or(f64::NAN)
    };
    let slow7 = |s: SchedulerKind, d: usize| {
        results
            .iter()
            .find(|r| r.0 == s)
            .map(|r| r.2[d] / offline7[d] - 1.0)
            .unwrap_or(f64::NAN)
    };
    let last = 6;
    let set_sstf = slow(SchedulerKind::OnlineSet(Base::Sstf), last);
    out.checks.push(Check::below(
        "MIMIC-F3.9",
        "Online-Set+SSTF slowdown vs off-line SMTF on the last day (≤ 3 % + 2 pp)",
        F3_9_CONVERGED + 0.02 + 1e-12,
        set_sstf,
    ));
    out.checks.push(Check::holds(
        "MIMIC-F3.9",
        "last day: Online-Set+SSTF no slower than Online-Set+C-LOOK",
        set_sstf <= slow(SchedulerKind::OnlineSet(Base::CLook), last),
    ));
    out.checks.push(Check::holds(
        "MIMIC-F3.9",
        "last day: Online-Set+SSTF no slower than Online-Priority+SSTF",
        set_sstf <= slow(SchedulerKind::OnlinePriority(Base::Sstf), last),
    ));
    let beats = (1..7).all(|d| {
        let set = slow7(SchedulerKind::OnlineSet(Base::Sstf), d);
        set < slow7(SchedulerKind::Sstf, d) && set < slow7(SchedulerKind::CLook, d)
    });
    // "Never worse than SSTF" while it learns.
    let never_worse = (0..7).all(|d| {
        slow(SchedulerKind::OnlineSet(Base::Sstf), d) <= slow(SchedulerKind::Sstf, d)
            && slow7(SchedulerKind::OnlineSet(Base::Sstf), d) <= slow7(SchedulerKind::Sstf, d)
    });
    out.checks.push(Check::holds(
        "MIMIC-F3.9",
        "Online-Set+SSTF no slower than SSTF on every day and every seventh of the requests",
        never_worse,
    ));
    let n = recs.len();
    out.checks.push(Check::holds("MIMIC-F3.9", &format!(
            "Online-Set+SSTF below both SSTF and C-LOOK from the second seventh of the requests on (request {} of {n})",
            n.div_ceil(7) + 1
        ), beats));
    for (title, x_label, sevenths) in [
        (
            "Slowdown relative to off-line SMTF, per day",
            "day of the trace",
            false,
        ),
        (
            "Slowdown relative to off-line SMTF, per seventh of the requests",
            "seventh of the trace's requests (arrival order)",
            true,
        ),
    ] {
        out.plots.push(Plot {
            title: title.into(),
            x_label: x_label.into(),
            y_label: "slowdown vs off-line SMTF".into(),
            kind: PlotKind::Line,
            series: results
                .iter()
                .map(|(s, days, sev)| {
                    let (bins, base) = if sevenths {
                        (sev, &offline7)
                    } else {
                        (days, &offline)
                    };
                    Series {
                        label: s.name(),
                        points: bins
                            .iter()
                            .enumerate()
                            .map(|(d, t)| ((d + 1) as f64, t / base[d] - 1.0))
                            .collect(),
                    }
                })
                .collect(),
            log_x: false,
            // The thesis states one number: within 3 % after 4 days (its days, not
            // sevenths; the rest of its figure has no printed values).
            paper: if sevenths {
                Vec::new()
            } else {
                vec![Series {
                    label: "paper (text): Online-Set+SSTF within 3 % from day 4".into(),
                    points: (4..=7).map(|d| (d as f64, F3_9_CONVERGED)).collect(),
                }]
            },
            x_categories: Vec::new(),
        });
    }
    Ok(out)
}

/// MIMIC-F3.6 / ALG-MIMIC-T3.2: interpolation.
/// Probes per distance of MIMIC-F3.6's reference, the estimate of each distance's
/// actual mean that interpolation errors are measured against: enough that its own
/// noise is small beside the 2 % being checked (the report prints what is left).
const REFERENCE_SAMPLES: u32 = 200;

pub fn mimic_f3_6(o: &RunOpts) -> Result<ExperimentOutput, String> {
    use crate::mimic::TABLE_3_2;
    let samples = if o.quick { 5 } else { 10 };
    // Which intervals the ladder happens to accept depends on the random check points,
    // so one probe seed is one draw from a spread: the time check compares means over
    // several probe seeds.
    let seeds: u64 = if o.quick { 2 } else { 5 };
    let mut out = ExperimentOutput::new(
        "MIMIC-F3.6",
        "Sensitivity to interpolation (Figure 3.6, Table 3.2)",
        format!(
            "Off-line Disk Mimic with interpolation. Before interpolating an operation pair the \
             Mimic probes three windows of consecutive distances densely (from 1, from half the \
             capacity and from minus half the capacity; ordinary table entries) and takes the \
             saw-tooth period of each from its autocorrelation; their median is the widest interval \
             linear interpolation is tried on (thesis §3.6.3: \"care must be taken to ensure that \
             this model is applied to only relatively short distances\"). The left/right recursion \
             starts from the grid of period-wide intervals: an interval whose probed ends predict \
             randomly chosen (distinct) check points within the allowable error is interpolated, \
             otherwise it is split at its first check point (resolved lazily along the distances \
             SMTF asks for). With Table 3.2's ladder the check points accumulate: the first must be \
             within 1 %, or the first two within 2 %, or the first three within 5 %, 4 within 10 %, \
             5 within 15 %, 10 within 20 %. SMTF on the base disk with the HP trace's busiest disk \
             at compression 20 ({samples} samples per distance) is compared with the all-probed \
             table, as the mean over {seeds} probe seeds (per-seed times in the CSV). The \
             interpolated fraction is the share of {} uniformly random distances that fall inside \
             an accepted interval rather than being probed. Single rungs N = 1 and N = 10 at 5 % are \
             checked for their mean interpolation error: over interpolated distances, the \
             interpolated value against the distance's actual mean, which we estimate by probing \
             the distance {REFERENCE_SAMPLES} times.\n\n\
             Finding: the probed mean against distance is a saw-tooth (period 236 sectors on the \
             base disk, one track less the track skew, which the Mimic measures as 235–236; \
             amplitude one revolution), and an interval spanning many teeth can pass the ladder \
             by chance. Started from the whole signed range (the thesis does not say where its \
             first left/right were), the search met ~17 such chances on the way to any distance: \
             99 % interpolated and +4 % (5 seeds) to +12 % (2 seeds, 5 samples) time at the disk. \
             Limited to one period, an interval holds at most about one drop and the recursion \
             splits towards it: about 90 % of distances are interpolated, as in the paper, with \
             scheduling within 1 % of the all-probed table.",
            if o.quick { 300 } else { 2000 }
        ),
        o.seed,
    );
    let recs = hp_device0(20.0)?;
    let disk = preset("mimic-base")?;
    let run = |interp: Vec<(u32, f64)>, mimic_seed: u64| -> Result<f64, String> {
        let spec = StackSpec {
            hold_overlapping: true,
            mimic_samples: samples,
            mimic_interpolation: interp,
            mimic_seed,
            ..StackSpec::one_disk(disk.clone(), SchedulerKind::Smtf(Metric::Mean))
        };
        let r = simulate(&spec, Source::records(&recs), &mut |_| {}).map_err(|e| e.to_string())?;
        Ok(r.metrics.total_disk_time_ms / 1000.0)
    };
    let mut per_seed = Vec::new();
    for k in 0..seeds {
        // Seed 1, first draw: the stack's default Mimic seed.
        let ms = (o.seed.wrapping_sub(1).wrapping_add(k)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        per_seed.push((ms, run(Vec::new(), ms)?, run(TABLE_3_2.to_vec(), ms)?));
    }
    let plain = per_seed.iter().map(|p| p.1).sum::<f64>() / seeds as f64;
    let ladder = per_seed.iter().map(|p| p.2).sum::<f64>() / seeds as f64;
    // Interpolated fraction and table size, from a Mimic asked uniformly random
    // distances: the share of them that land in an accepted interval estimates the
    // share of all distances the fully configured table would interpolate.
    // The interpolation error is measured against each distance's actual mean (the
    // thesis: interpolated values "accurate to that level"), estimated by probing it
    // REFERENCE_SAMPLES times; a second such estimate measures what noise is left in it.
    let mut reference = base_mimic(REFERENCE_SAMPLES, o.seed ^ 77)?;
    let mut reference2 = base_mimic(REFERENCE_SAMPLES, o.seed ^ 78)?;
    let mut ref_noise = Vec::new();
    let mut fraction_for =
        |rungs: &[(u32, f64)], errors: bool| -> Result<(f64, usize, f64), String> {
            let mut m = base_mimic(samples, o.seed)?.with_interpolation(rungs);
            let cap = Hdd::new(preset("mimic-base")?)
                .map_err(|e| e.to_string())?
                .capacity() as i64;
            let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(o.seed);
            let mut errs = Vec::new();
            let n = if o.quick { 300 } else { 2000 };
            let mut inside = 0usize;
            for _ in 0..n {
                let d = rand::Rng::gen_range(&mut rng, -cap / 2..cap / 2);
                let v = m.predict(false, false, d) as f64;
                if m.is_interpolated(false, false, d) {
                    inside += 1;
                    if errors && errs.len() < 300 {
                        let t = reference.predict(false, false, d) as f64;
                        errs.push((v - t).abs() / t);
                        let t2 = reference2.predict(false, false, d) as f64;
                        ref_noise.push((t2 - t).abs() / t);
                    }
                }
            }
            let mean_err = errs.iter().sum::<f64>() / errs.len().max(1) as f64;
            Ok((
                inside as f64 / n as f64,
                m.entries() + m.intervals(),
                mean_err,
            ))
        };
    let (frac, entries, _) = fraction_for(TABLE_3_2, false)?;
    let (_, _, err1) = fraction_for(&[(1, 0.05)], true)?;
    let (_, _, err10) = fraction_for(&[(10, 0.05)], true)?;
    let ref_noise = ref_noise.iter().sum::<f64>() / ref_noise.len().max(1) as f64;
    out.csv = format!(
        "metric,value\ntime_at_disk_all_probed_s,{plain:.6}\ntime_at_disk_table_3_2_s,{ladder:.6}\n\
         interpolated_fraction,{frac:.6}\ntable_entries,{entries}\nmean_error_n1_5pct,{err1:.6}\nmean_error_n10_5pct,{err10:.6}\n"
    );
    for (ms, p, l) in &per_seed {
        let _ = writeln!(
            out.csv,
            "time_at_disk_all_probed_s_seed_{ms:016x},{p:.6}\ntime_at_disk_table_3_2_s_seed_{ms:016x},{l:.6}"
        );
    }
    out.checks.push(
        Check::relative(
            "MIMIC-F3.6",
            &format!(
                "time at disk with Table 3.2 ladder vs all probed (mean of {seeds} probe seeds)"
            ),
            plain,
            ladder,
            0.02,
        )
        .reference("our time with every distance probed"),
    );
    out.checks.push(Check::absolute(
        "MIMIC-F3.6",
        "fraction of distances interpolated (Table 3.2)",
        0.90,
        frac,
        0.05,
    ));
    out.checks.push(Check::at_least(
        "MIMIC-F3.6",
        "mean interpolation error, N = 1 at 5 %",
        0.15,
        err1,
    ));
    out.description.push_str(&format!(
        "\n\nThe reference: two independent {REFERENCE_SAMPLES}-sample estimates of the same \
         distances differ by {:.2} % on average, so it adds little to the errors measured \
         against it. (Against a table probed with the Mimic's own {samples} samples the \
         reference's noise would be of the size of the N = 10 error itself.) N = 1 at 5 %: \
         mean error {:.1} %, below the paper's 25 % and the 15 % we accept. With intervals no \
         wider than one saw-tooth period, a single check point that happens to land within 5 % \
         accepts an interval that holds at most about one drop, so the error it lets through \
         is bounded by that drop; the paper's 25 % presumably reflects wider intervals, which \
         we do not use because they spoil scheduling (above). N = 10 at 5 %: mean error \
         {:.2} % (paper: under 1 %); what remains is mostly the noise of the {samples}-sample \
         probes at the interval's ends, which linear interpolation carries into every distance \
         between them (it falls when the Mimic probes each distance more often), plus the \
         reference's own.",
        ref_noise * 100.0,
        err1 * 100.0,
        err10 * 100.0
    ));
    out.checks.push(Check::below(
        "MIMIC-F3.6",
        "mean interpolation error, N = 10 at 5 % (≤ 2 %)",
        0.02 + 1e-12,
        err10,
    ));
    Ok(out)
}

/// MIMIC-F3.8: C-LOOK's slowdown against SMTF as workload locality falls.
///
/// The workload follows the thesis's words (§3.6.4): "a synthetically generated trace"
/// (Fig. 3.8 caption) of "random 1 KB reads and writes with no idle time" whose x-axis
/// is "the maximum inter-request distance existent in the trace", where the
/// inter-request distance is "the logical distance from the first block of the current
/// request to the last block of the previous request" (§2.3.2). So the varied quantity
/// bounds the distance between consecutive requests of one trace: the trace is a random
/// walk ([`crate::workload::Pattern::Walk`]) over the whole disk, each request within
/// the maximum distance of the previous one, replayed in order back to back
/// ([`crate::workload::WindowedReplay`]). (An earlier version confined independent
/// uniform requests to a region of that size, which also bounds the distance but keeps
/// every queued request inside the region; in a replayed trace the queued requests are
/// trace neighbours, spread along the walk.) How many requests the replay keeps
/// outstanding is not stated; 16 is our decision, kept from the earlier closed loop and
/// not fitted (quick mode, 4 to 32 outstanding: 24 to 40 % at 25 MB, 10.5 to 7.5 % at
/// 1.3 GB).
pub fn mimic_f3_8(o: &RunOpts) -> Result<ExperimentOutput, String> {
    use crate::workload::{
        try_open_workload, Arrivals, GenSpec, OpenSpec, Pattern, Sizes, WindowedReplay,
    };
    let (runs, requests) = if o.quick { (3, 1500) } else { (20, 5000) };
    let outstanding = 16;
    let mut out = ExperimentOutput::new(
        "MIMIC-F3.8",
        "Performance against workload locality (Figure 3.8)",
        format!(
            "A synthetic trace of random 1 KB reads and writes (half each) on the base disk, \
             built as the thesis's x-axis reads (\"the maximum inter-request distance existent \
             in the trace\", the distance between consecutive requests): a random walk over the \
             whole disk in which each request starts uniformly within the maximum distance (25 \
             MB to 1.3 GB) of the previous request's last block. The trace is replayed in order \
             with no idle time, {outstanding} requests outstanding (unstated in the thesis; \
             decided here). C-LOOK's slowdown relative to off-line SMTF (10 samples per \
             distance), mean of {runs} runs (traces) of {requests} requests."
        ),
        o.seed,
    );
    let disk = preset("mimic-base")?;
    let cap = Hdd::new(disk.clone())
        .map_err(|e| e.to_string())?
        .capacity();
    let spans_mb = [25u64, 100, 400, 1300];
    let mut points = Vec::new();
    out.csv = "max_distance_mb,run,clook_s,smtf_s,slowdown\n".into();
    for &mb in &spans_mb {
        let max_step = (mb * 2048).min(cap);
        let mut slow = Vec::new();
        for run in 0..runs {
            let trace = try_open_workload(&OpenSpec {
                gen: GenSpec {
                    pattern: Pattern::Walk { max_step },
                    sizes: Sizes::Fixed { sectors: 2 },
                    read_fraction: 0.5,
                    align: None,
                    start: 0,
                    span: None,
                    capacity: Some(cap),
                },
                arrivals: Arrivals::Fixed { interval_ns: 0 },
                count: requests,
                seed: o.seed ^ (mb << 8) ^ run,
                device: 0,
            })
            .map_err(|e| e.to_string())?;
            let time = |s: SchedulerKind| -> Result<f64, String> {
                let mut w = WindowedReplay::new(trace.clone(), outstanding);
                let stack = StackSpec::one_disk(disk.clone(), s);
                let r = simulate(&stack, Source::Closed(&mut w), &mut |_| {})
                    .map_err(|e| e.to_string())?;
                Ok(r.metrics.makespan_ms / 1000.0)
            };
            let (c, s) = (
                time(SchedulerKind::CLook)?,
                time(SchedulerKind::Smtf(Metric::Mean))?,
            );
            let _ = writeln!(out.csv, "{mb},{run},{c:.6},{s:.6},{:.6}", c / s - 1.0);
            slow.push(c / s - 1.0);
        }
        let mean = slow.iter().sum::<f64>() / slow.len() as f64;
        points.push((mb as f64, mean * 100.0));
    }
    let first = points.first().map(|p| p.1).unwrap_or(f64::NAN);
    let last = points.last().map(|p| p.1).unwrap_or(f64::NAN);
    out.checks.push(Check::absolute(
        "MIMIC-F3.8",
        "C-LOOK slowdown vs SMTF at 25 MB, %",
        32.0,
        first,
        8.0,
    ));
    out.checks.push(Check::absolute(
        "MIMIC-F3.8",
        "C-LOOK slowdown vs SMTF at 1.3 GB, %",
        8.0,
        last,
        4.0,
    ));
    let mono = points.windows(2).all(|w| w[1].1 <= w[0].1);
    out.checks.push(Check::holds(
        "MIMIC-F3.8",
        "slowdown decreasing as the maximum distance grows",
        mono,
    ));
    out.plots.push(Plot {
        title: "C-LOOK slowdown relative to SMTF".into(),
        x_label: "maximum inter-request distance (MB)".into(),
        y_label: "slowdown (%)".into(),
        kind: PlotKind::Line,
        series: vec![Series {
            label: "C-LOOK vs SMTF".into(),
            points,
        }],
        log_x: true,
        paper: vec![Series {
            label: "paper (real 9LZX)".into(),
            points: vec![(25.0, 32.0), (1300.0, 8.0)],
        }],
        x_categories: Vec::new(),
    });
    Ok(out)
}

/// MIMIC-F3.3: how well each summary metric predicts, against how well it schedules.
pub fn mimic_f3_3(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let samples = 10;
    let mut out =
        ExperimentOutput::new(
            "MIMIC-F3.3",
            "Demerit figures of the summary metrics (Figure 3.3)",
            format!(
            "SMTF on the base disk with the HP trace's busiest disk at compression 20 under the \
             probabilistic, mean, maximum and minimum summary metrics ({samples} samples per \
             distance). For every request the Disk Mimic's prediction is set against the observed \
             service time; the demerit is the RMS horizontal distance between the two \
             distributions (as for the drive validation). The thesis used one day of the trace; we \
             use the {}.",
            if o.quick { "busiest day (day 4)" } else { "whole week" }
        ),
            o.seed,
        );
    let mut recs = hp_device0(20.0)?;
    if o.quick {
        let day = 86_400e9 / 20.0;
        recs.retain(|r| (3.0 * day..4.0 * day).contains(&(r.arrival.0 as f64)));
    }
    let disk = preset("mimic-base")?;
    let mut rows = Vec::new();
    out.csv = "metric,demerit_ms,time_at_disk_s\n".into();
    let mut series = Vec::new();
    for m in [
        Metric::Probabilistic,
        Metric::Mean,
        Metric::Max,
        Metric::Min,
    ] {
        let spec = StackSpec {
            hold_overlapping: true,
            mimic_samples: samples,
            ..StackSpec::one_disk(disk.clone(), SchedulerKind::Smtf(m))
        };
        let r = simulate(&spec, Source::records(&recs), &mut |_| {}).map_err(|e| e.to_string())?;
        let predicted: Vec<f64> = r.predictions.iter().map(|p| p.0).collect();
        let observed: Vec<f64> = r.predictions.iter().map(|p| p.1).collect();
        let demerit = crate::validate::demerit::rms_demerit(&predicted, &observed);
        let t = r.metrics.total_disk_time_ms / 1000.0;
        let _ = writeln!(out.csv, "{},{demerit:.6},{t:.6}", m.name());
        series.push(Series {
            label: format!("model ({})", m.name()),
            points: crate::validate::demerit::cdf_rows(&predicted),
        });
        if m == Metric::Mean {
            series.push(Series {
                label: "disk (observed)".into(),
                points: crate::validate::demerit::cdf_rows(&observed),
            });
        }
        rows.push((m, demerit, t));
    }
    let get = |m: Metric| {
        rows.iter()
            .find(|r| r.0 == m)
            .copied()
            .unwrap_or((m, f64::NAN, f64::NAN))
    };
    let (_, dp, _) = get(Metric::Probabilistic);
    let (_, dmean, tmean) = get(Metric::Mean);
    let (_, dmax, tmax) = get(Metric::Max);
    let (_, _, tmin) = get(Metric::Min);
    out.checks.push(Check::holds(
        "MIMIC-F3.3",
        &format!("probabilistic demerit ({dp:.3} ms) below mean ({dmean:.3}) and max ({dmax:.3})"),
        dp < dmean && dp < dmax,
    ));
    out.checks.push(Check::holds(
        "MIMIC-F3.3",
        &format!("scheduling: mean ({tmean:.1} s) < max ({tmax:.1} s) < min ({tmin:.1} s)"),
        tmean < tmax && tmax < tmin,
    ));
    out.plots.push(Plot {
        title: "Predicted vs observed service times".into(),
        x_label: "service time (ms)".into(),
        y_label: "fraction of requests".into(),
        kind: PlotKind::Step,
        series,
        log_x: true,
        paper: Vec::new(),
        x_categories: Vec::new(),
    });
    Ok(out)
}

/// MIMIC-MEM: how big the Disk Mimic's distance table is, full and interpolated
/// (thesis §2.3, §3.6.3).
pub fn mimic_mem(o: &RunOpts) -> Result<ExperimentOutput, String> {
    use crate::mimic::TABLE_3_2;
    let samples = 10;
    // Operation pairs (previous, current write?) whose interpolated table is configured
    // in full; quick mode does read→read only, the other pairs behave alike.
    let pairs: Vec<(bool, bool)> = if o.quick {
        vec![(false, false)]
    } else {
        vec![(false, false), (false, true), (true, false), (true, true)]
    };
    let mut out = ExperimentOutput::new(
        "MIMIC-MEM",
        "Disk Mimic table size, full and interpolated (§2.3, §3.6.3)",
        String::new(),
        o.seed,
    );
    let capacity = |name: &str| -> Result<u64, String> {
        Ok(Hdd::new(preset(name)?)
            .map_err(|e| e.to_string())?
            .capacity())
    };
    let gb = |sectors: u64| sectors as f64 * 512.0 / 1e9;
    // The full table: every signed distance (2 × sectors) for each of the 4 operation
    // pairs (catalog).
    let full_entries = |sectors: u64| 2 * sectors * 4;

    // The Table 3.2 configuration on the base disk, sampled: `windows` windows of
    // `CELLS` period-wide grid intervals, one at a random place in each equal stratum of
    // the signed range, have every interval decided, and what the table keeps there is
    // counted. (Configuring all 35.5 million distances of a pair keeps ~2.9 million
    // probed entries and took ~30 s per pair; the stratified sample gives the same share
    // to a tenth of a percentage point.)
    const CELLS: i64 = 64;
    let windows: i64 = if o.quick { 128 } else { 256 };
    let cap = capacity("mimic-base")?;
    let mut kept = 0usize;
    let mut kept_bytes = 0usize;
    let mut intervals = 0usize;
    let mut resolved = 0u64;
    let mut per_entry = f64::NAN;
    let mut widths = Vec::new();
    for (k, &(pw, cw)) in pairs.iter().enumerate() {
        let mut m = base_mimic(samples, o.seed ^ k as u64)?.with_interpolation(TABLE_3_2);
        let width = m.learn_width(pw, cw).ok_or("no probe device")?;
        widths.push(width);
        let mut rng =
            <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(o.seed ^ k as u64);
        let icap = cap as i64;
        let stratum = 2 * icap / windows;
        let span = CELLS * width;
        let (mut n_entries, mut n_intervals) = (0usize, 0usize);
        for s in 0..windows {
            let lo = -icap + s * stratum;
            let from = rand::Rng::gen_range(&mut rng, lo..lo + (stratum - span).max(1));
            let (l, r) = m
                .resolve_range(pw, cw, from, from + span)
                .ok_or("no probe device")?;
            n_entries += m.entries_between(pw, cw, l, r);
            n_intervals += m.intervals_between(pw, cw, l, r);
            resolved += (r - l + 1) as u64;
        }
        kept += n_entries;
        intervals += n_intervals;
        kept_bytes += n_entries * (m.memory_bytes() / m.entries().max(1))
            + n_intervals * std::mem::size_of::<(bool, bool, i64, i64)>();
        if k == 0 {
            // Bytes per entry, from the table's own accounting (key, mean, samples).
            per_entry = m.memory_bytes() as f64 / m.entries().max(1) as f64;
        }
    }
    let share = kept as f64 / resolved as f64;
    let byte_share = kept_bytes as f64 / (resolved as f64 * per_entry);
    // The smallest entry the table can hold: one sample.
    let per_entry_1 = {
        let mut m = base_mimic(1, o.seed)?;
        for d in [-100_000i64, -1, 1, 272, 100_000] {
            m.predict(false, false, d);
        }
        m.memory_bytes() as f64 / m.entries().max(1) as f64
    };
    let entries = full_entries(cap);
    let full_bytes = entries as f64 * per_entry;
    let per_gb = full_bytes / gb(cap);
    // The thesis's 10 GB disk (decimal GB, 512-byte sectors).
    let ten_gb = 10e9 as u64 / 512;
    let ten_bytes = full_entries(ten_gb) as f64 * per_entry;
    let ten_bytes_1 = full_entries(ten_gb) as f64 * per_entry_1;
    let paper_per_entry = 800e6 / full_entries(ten_gb) as f64;
    let quarter_tb = full_entries(250e9 as u64 / 512) as f64 * per_entry;

    let mut table = Table::new(&["quantity", "ours", "paper"]);
    let mut row = |q: &str, ours: String, paper: &str| {
        table.rows.push(vec![q.into(), ours, paper.into()]);
    };
    row("base disk sectors", format!("{cap}"), "-");
    row(
        "full table entries (2 × sectors × 4 operation pairs)",
        format!("{entries}"),
        "-",
    );
    row(
        &format!("bytes per entry ({samples} samples kept)"),
        format!("{per_entry:.1}"),
        &format!("{paper_per_entry:.2} (implied by 800 MB for 10 GB)"),
    );
    row(
        "bytes per entry (1 sample, the least the table stores)",
        format!("{per_entry_1:.1}"),
        "-",
    );
    row(
        "full table, base disk (MB)",
        format!("{:.0}", full_bytes / 1e6),
        "-",
    );
    row(
        "full table per GB of disk (MB)",
        format!("{:.1}", per_gb / 1e6),
        "≥ 80",
    );
    row(
        "full table, 10 GB disk (MB)",
        format!(
            "{:.0} ({:.0} with 1 sample)",
            ten_bytes / 1e6,
            ten_bytes_1 / 1e6
        ),
        "> 800",
    );
    row(
        "full distance table, 250 GB disk (GB)",
        format!("{:.0}", quarter_tb / 1e9),
        "~3000 (indexed also by size and inter-arrival time)",
    );
    let limits = widths
        .iter()
        .map(|w| w.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    row(
        "Table 3.2 table: widest interval (learned saw-tooth period), sectors",
        limits.clone(),
        "-",
    );
    row(
        &format!(
            "Table 3.2 table: entries kept ({} operation pair{}, sampled distances)",
            pairs.len(),
            if pairs.len() > 1 { "s" } else { "" }
        ),
        format!("{kept} of {resolved}"),
        "-",
    );
    row(
        "Table 3.2 table: share of entries kept",
        format!("{:.2} %", share * 100.0),
        "10 %",
    );
    row(
        "Table 3.2 table: share of bytes kept (entries + intervals)",
        format!("{:.2} % ({intervals} intervals)", byte_share * 100.0),
        "10 %",
    );
    row(
        "Table 3.2 table: memory saving",
        format!("{:.0}×", 1.0 / byte_share),
        "10×",
    );
    out.csv = format!(
        "quantity,value\nsectors,{cap}\nfull_entries,{entries}\nbytes_per_entry,{per_entry:.3}\n\
         bytes_per_entry_1_sample,{per_entry_1:.3}\nfull_table_bytes,{full_bytes:.0}\n\
         full_table_bytes_per_gb,{per_gb:.0}\nfull_table_bytes_10gb,{ten_bytes:.0}\n\
         full_table_bytes_10gb_1_sample,{ten_bytes_1:.0}\nfull_table_bytes_250gb,{quarter_tb:.0}\n\
         interp_pairs,{}\ninterp_entries_kept,{kept}\ninterp_distances,{resolved}\n\
         interp_intervals,{intervals}\ninterp_share_entries,{share:.6}\ninterp_share_bytes,{byte_share:.6}\n\
         interp_interval_limit,\"{limits}\"\n",
        pairs.len()
    );
    // Linear growth: the three Table 3.1 capacities.
    let mut growth = Vec::new();
    for name in ["mimic-less-capacity", "mimic-base", "mimic-more-capacity"] {
        let c = capacity(name)?;
        let bytes = full_entries(c) as f64 * per_entry;
        growth.push((gb(c), bytes));
        let _ = writeln!(out.csv, "full_table_bytes_{name},{bytes:.0}");
        row(
            &format!("full table, {name} ({:.2} GB), MB", gb(c)),
            format!("{:.0} ({:.1} MB/GB)", bytes / 1e6, bytes / 1e6 / gb(c)),
            "linear in size",
        );
    }
    out.tables.push(table);
    let per_gb_all: Vec<f64> = growth.iter().map(|(g, b)| b / g).collect();
    let spread = per_gb_all.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        / per_gb_all.iter().copied().fold(f64::INFINITY, f64::min)
        - 1.0;

    out.checks.push(Check::below(
        "MIMIC-MEM",
        "share of full-table entries the Table 3.2 table keeps (≤ 10 % + 5 pp)",
        0.15 + 1e-12,
        share,
    ).consistency("Arithmetic on the table's entry count; the same interpolation is checked against the paper in MIMIC-F3.6."));
    out.checks.push(
        Check::at_least(
            "MIMIC-MEM",
            "full table of a 10 GB disk at our bytes per entry, MB (\"can exceed 800 MB\")",
            800.0,
            ten_bytes / 1e6,
        )
        .consistency("Arithmetic: entries times our bytes per entry; no simulated result."),
    );
    out.checks.push(Check::holds(
        "MIMIC-MEM",
        &format!(
            "full table grows linearly with capacity: bytes per GB equal (spread {:.2} %) over 2.27–36.4 GB",
            spread * 100.0
        ),
        spread < 0.01,
    ).consistency("Arithmetic: the entry count is linear in capacity by construction."));
    out.description = format!(
        "The Disk Mimic's table is keyed by operation pair (previous, current: read or write) \
         and signed inter-request distance, so the full table of a disk with S sectors has \
         2 × S × 4 entries; each entry costs what the table's own memory accounting charges \
         (key, mean, and the samples kept: {per_entry:.0} bytes with {samples} samples, \
         {per_entry_1:.0} with one). The base disk (Table 3.1 #1, {cap} sectors, {:.2} GB) \
         thus needs {entries} entries, {:.2} GB, {:.0} MB per GB of disk. The thesis's 10 GB \
         disk at our bytes per entry: {:.0} MB (paper: \"can exceed 800 MB\", which at our entry \
         count means {paper_per_entry:.1} bytes per entry, about one 4-byte mean each; our \
         entries also keep their key and samples). The size grows linearly with capacity \
         (the count is 8 entries per sector; shown for the 2.27, 9.09 and 36.4 GB disks of \
         Table 3.1). §2.3's 3 TB for a 250 GB disk indexes also by request size and \
         inter-arrival time; the distance table alone would be {:.0} GB.\n\n\
         The interpolated table is configured with Table 3.2's ladder ({samples} samples per \
         distance) from period-wide grid intervals (the saw-tooth period the Mimic measures \
         through the device, {limits} sectors; see MIMIC-F3.6), for {} operation pair{} ({}), \
         on a stratified sample of the signed range: in each of {windows} equal strata one \
         window of {CELLS} grid intervals at a random place has every interval decided. Of the \
         {resolved} distances so covered it keeps {kept} probed entries ({:.2} %; {:.2} % of \
         the bytes counting its {intervals} interval records, a {:.0}× saving). The paper \
         reports 90 % interpolated, i.e. 10 % kept and a 10-fold saving. (Before the interval \
         width was limited, the ladder accepted wide intervals spanning many rotational \
         saw-teeth and kept only 0.6 %: a larger saving bought with worse scheduling.)",
        gb(cap),
        full_bytes / 1e9,
        per_gb / 1e6,
        ten_bytes / 1e6,
        quarter_tb / 1e9,
        pairs.len(),
        if pairs.len() > 1 { "s" } else { "" },
        if o.quick {
            "read after read; quick mode"
        } else {
            "all four"
        },
        share * 100.0,
        byte_share * 100.0,
        1.0 / byte_share,
    );
    out.plots.push(Plot {
        title: "Full distance table size against disk capacity".into(),
        x_label: "capacity (GB)".into(),
        y_label: "full table (GB)".into(),
        kind: PlotKind::Line,
        series: vec![Series {
            label: format!("{per_entry:.0} bytes per entry"),
            points: growth.iter().map(|(g, b)| (*g, b / 1e9)).collect(),
        }],
        log_x: false,
        paper: vec![Series {
            label: "thesis: over 0.8 GB for a 10 GB disk".into(),
            points: vec![(10.0, 0.8)],
        }],
        x_categories: Vec::new(),
    });
    Ok(out)
}
