//! MIMIC-REAL: SMTF against C-LOOK on the HP trace at the thesis's request rate, with
//! and without idle time (thesis §3.6.4).

use super::mimic_exps::hp_device0;
use super::options::RunOpts;
use super::Check;
use crate::disk::presets::preset;
use crate::engine::Source;
use crate::mimic::Metric;
use crate::report::{ExperimentOutput, Plot, PlotKind, Series, Table};
use crate::runner::{simulate, StackSpec};
use crate::sched::SchedulerKind;
use crate::trace::IoRecord;
use std::fmt::Write as _;

/// Share of scheduling decisions in `logs` (one drive, one request at the drive at a
/// time) made with at least two requests waiting at the host: those where the
/// scheduler had a choice.
fn share_with_choice(logs: &[crate::stack::metrics::RequestLog]) -> f64 {
    let mut arrivals: Vec<u64> = logs.iter().map(|l| l.arrival.0).collect();
    let mut dispatches: Vec<u64> = logs.iter().map(|l| l.dispatch.0).collect();
    arrivals.sort_unstable();
    dispatches.sort_unstable();
    let with_choice = dispatches
        .iter()
        .filter(|&&t| {
            // Waiting at t: arrived by t and not yet dispatched before t.
            let arrived = arrivals.partition_point(|&a| a <= t);
            let gone = dispatches.partition_point(|&d| d < t);
            arrived.saturating_sub(gone) >= 2
        })
        .count();
    with_choice as f64 / logs.len().max(1) as f64
}

/// Requests a day on the thesis's HP disk: "one day of the original trace (i.e.,
/// approximately 150,000 requests)" (§3.7).
const THESIS_HP_PER_DAY: f64 = 150_000.0;
/// The same rate read from "after four days, or only about 750,000 requests" (§3.7).
const THESIS_HP_PER_DAY_4D: f64 = 750_000.0 / 4.0;

/// How many times faster than `recs` arrive a trace of `per_day` requests a day arrives:
/// the factor that gives `recs` that rate when its arrival times are divided by it.
fn rate_factor(recs: &[IoRecord], per_day: f64) -> f64 {
    let first = recs.iter().map(|r| r.arrival.0).min().unwrap_or(0);
    let last = recs.iter().map(|r| r.arrival.0).max().unwrap_or(0);
    let days = (last - first) as f64 / 86_400e9;
    if days <= 0.0 {
        return 1.0;
    }
    per_day / (recs.len() as f64 / days)
}

/// MIMIC-REAL: SMTF against C-LOOK on the HP trace at the request rate of the thesis's
/// uncompressed trace, with and without its idle time (thesis §3.6.4, measured there on
/// a real IBM 9LZX).
///
/// **Which trace.** The thesis replays "the trace for the busiest disk from the week of
/// 5/30/92 to 6/5/92" uncompressed; its §3.7 says one day of that trace holds about
/// 150,000 requests. The HP trace we have from that week (hplajw, device 0) holds
/// about 6,000 a day: it is a single-user workstation, not the thesis's busiest disk.
/// What decides a scheduler's gain is how many requests wait at once, which the
/// arrival rate sets; so the stand-in divides hplajw's arrival times by the ratio of
/// the two rates ([`rate_factor`]), keeping its addresses, sizes, order and burst
/// shape. hplajw at its own rate is reported beside, as context.
///
/// **What "idle time removed" means here.** The thesis says only that the improvement
/// is 12 % "if idle time is removed from the trace". We take it literally: the time the
/// disk sits idle is cut out and nothing else. The replay ([`StackSpec::remove_idle`])
/// jumps, whenever nothing is queued, held or at the drive, to the next arrival, moving
/// it and every later arrival earlier by the gap; busy periods are laid end to end with
/// their internal spacing and order unchanged, so the drive is never idle while
/// requests remain and the run's length equals its time at the disk. Two other
/// readings were rejected: issuing each request when the previous completes leaves one
/// request in the queue at every decision, so no scheduler can differ (0 % by
/// construction); issuing every request at once removes all inter-arrival time, busy
/// or idle, which is the limit of the thesis's trace compression rather than idle
/// removal (reported for context in full mode).
pub fn mimic_real(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let samples = 10;
    let mut out = ExperimentOutput::new(
        "MIMIC-REAL",
        "SMTF vs C-LOOK on the HP trace at the thesis's request rate, with and without idle \
         time (§3.6.4)",
        String::new(),
        o.seed,
    );
    let own = hp_device0(1.0)?;
    let factor = rate_factor(&own, THESIS_HP_PER_DAY);
    let factor_4d = rate_factor(&own, THESIS_HP_PER_DAY_4D);
    let own_per_day = THESIS_HP_PER_DAY / factor;
    let recs = crate::workload::compress(&own, factor);
    let disk = preset("mimic-base")?;
    struct Row {
        case: &'static str,
        sched: SchedulerKind,
        disk_s: f64,
        resp_ms: f64,
        choice: f64,
        hits: f64,
    }
    let run = |case: &'static str,
               recs: &[IoRecord],
               remove_idle: bool,
               sched: SchedulerKind|
     -> Result<Row, String> {
        let spec = StackSpec {
            hold_overlapping: true,
            remove_idle,
            mimic_samples: samples,
            ..StackSpec::one_disk(disk.clone(), sched)
        };
        let r = simulate(&spec, Source::records(recs), &mut |_| {}).map_err(|e| e.to_string())?;
        Ok(Row {
            case,
            sched,
            disk_s: r.metrics.total_disk_time_ms / 1000.0,
            resp_ms: r.metrics.mean_response_ms,
            choice: share_with_choice(&r.requests),
            hits: r.metrics.cache_hit_fraction,
        })
    };
    let scheds = [
        SchedulerKind::CLook,
        SchedulerKind::Smtf(Metric::Mean),
        SchedulerKind::Greedy,
    ];
    const IDLE: &str = "with idle time";
    const BUSY: &str = "idle time removed";
    const OWN_IDLE: &str = "context: hplajw's own rate (with idle time)";
    const OWN_BUSY: &str = "context: hplajw's own rate (idle time removed)";
    const D4_IDLE: &str = "context: rate from the 4-day count (with idle time)";
    const D4_BUSY: &str = "context: rate from the 4-day count (idle time removed)";
    const ALL: &str = "context: all requests at once";
    // The context replays are not checked. Quick mode leaves out the two that only
    // show sensitivity (the other reading of the thesis's rate; every request at once,
    // which alone takes about a minute).
    let mut cases: Vec<(&'static str, Vec<IoRecord>, bool)> = vec![
        (IDLE, recs.clone(), false),
        (BUSY, recs.clone(), true),
        (OWN_IDLE, own.clone(), false),
        (OWN_BUSY, own.clone(), true),
    ];
    if !o.quick {
        let d4 = crate::workload::compress(&own, factor_4d);
        cases.push((D4_IDLE, d4.clone(), false));
        cases.push((D4_BUSY, d4, true));
        cases.push((ALL, crate::workload::compress(&own, 1e12), false));
    }
    let mut rows = Vec::new();
    for (case, rs, remove_idle) in &cases {
        for &s in &scheds {
            rows.push(run(case, rs, *remove_idle, s)?);
        }
    }
    let get = |case: &str, s: SchedulerKind| rows.iter().find(|r| r.case == case && r.sched == s);
    // Improvement of `s` over C-LOOK in time at the disk and in mean response time, %.
    let gain = |case: &str, s: SchedulerKind| -> (f64, f64) {
        match (get(case, SchedulerKind::CLook), get(case, s)) {
            (Some(c), Some(x)) => (
                (c.disk_s - x.disk_s) / c.disk_s * 100.0,
                (c.resp_ms - x.resp_ms) / c.resp_ms * 100.0,
            ),
            _ => (f64::NAN, f64::NAN),
        }
    };
    let smtf = SchedulerKind::Smtf(Metric::Mean);
    let paper = |case: &str| match case {
        IDLE => "8".to_string(),
        BUSY => "12".to_string(),
        _ => "-".to_string(),
    };
    let mut table = Table::new(&[
        "replay",
        "scheduler",
        "time at disk s",
        "gain vs C-LOOK (disk time) %",
        "paper %",
        "mean response ms",
        "gain vs C-LOOK (response) %",
        "decisions with a choice",
        "cache hits",
    ]);
    out.csv = "replay,scheduler,time_at_disk_s,gain_disk_pct,mean_response_ms,gain_response_pct,share_decisions_with_choice,cache_hit_fraction\n".into();
    for r in &rows {
        let (gd, gr) = gain(r.case, r.sched);
        let _ = writeln!(
            out.csv,
            "{},{},{:.6},{gd:.4},{:.6},{gr:.4},{:.6},{:.6}",
            r.case,
            r.sched.name(),
            r.disk_s,
            r.resp_ms,
            r.choice,
            r.hits
        );
        table.rows.push(vec![
            r.case.into(),
            r.sched.name(),
            format!("{:.1}", r.disk_s),
            format!("{gd:.2}"),
            if r.sched == smtf {
                paper(r.case)
            } else {
                "-".into()
            },
            format!("{:.2}", r.resp_ms),
            format!("{gr:.2}"),
            format!("{:.3}", r.choice),
            format!("{:.3}", r.hits),
        ]);
    }
    out.tables.push(table);
    let (idle, _) = gain(IDLE, smtf);
    let (busy, _) = gain(BUSY, smtf);
    let (g_idle, _) = gain(IDLE, SchedulerKind::Greedy);
    let (g_busy, _) = gain(BUSY, SchedulerKind::Greedy);
    let (_, r_idle) = gain(IDLE, smtf);
    let (own_idle, _) = gain(OWN_IDLE, smtf);
    let (own_busy, _) = gain(OWN_BUSY, smtf);
    let choice = |case: &str| get(case, SchedulerKind::CLook).map_or(f64::NAN, |r| r.choice);
    out.checks.push(Check::absolute(
        "MIMIC-REAL",
        "SMTF improvement over C-LOOK in time at the disk, with idle time, %",
        8.0,
        idle,
        4.0,
    ));
    out.checks.push(Check::absolute(
        "MIMIC-REAL",
        "SMTF improvement over C-LOOK in time at the disk, idle time removed, %",
        12.0,
        busy,
        4.0,
    ));
    out.checks.push(Check::holds(
        "MIMIC-REAL",
        &format!(
            "improvement larger with idle time removed ({busy:.2} %) than with it ({idle:.2} %)"
        ),
        busy > idle,
    ));
    let context = {
        let mut c = format!(
            "\n\nContext (not checked). At hplajw's own rate ({own_per_day:.0} requests a \
             day) the queue is rarely longer than one (C-LOOK had a choice in {o1:.1} % of \
             its decisions) and SMTF gains only {own_idle:.2} % with idle time and \
             {own_busy:.2} % without: at that rate there is little for any scheduler to \
             reorder.",
            o1 = choice(OWN_IDLE) * 100.0,
        );
        if !o.quick {
            let (d4_idle, _) = gain(D4_IDLE, smtf);
            let (d4_busy, _) = gain(D4_BUSY, smtf);
            let (all, _) = gain(ALL, smtf);
            let _ = write!(
                c,
                " The thesis's other count (750,000 requests in four days, 187,500 a day, \
                 {factor_4d:.1}× hplajw's rate) gives {d4_idle:.2} % with idle time and \
                 {d4_busy:.2} % without. At both rates the two replays differ by {d1:.2} and \
                 {d2:.2} points{flip}: within the spread of SMTF's choices, not a finding. We \
                 check the rate the thesis states for one day. With every request issued at once (only the overlap holds \
                 ordering them), SMTF gains {all:.2} %.",
                d1 = busy - idle,
                d2 = d4_busy - d4_idle,
                flip = if (busy > idle) != (d4_busy > d4_idle) {
                    ", the order between them changing with the rate"
                } else {
                    ""
                },
            );
        }
        c
    };
    let ok_idle = (idle - 8.0).abs() <= 4.0;
    let ok_busy = (busy - 12.0).abs() <= 4.0 && busy > idle;
    let why = if ok_idle && ok_busy {
        "Both within the tolerance.".to_string()
    } else {
        let mut w = String::new();
        if ok_idle {
            w.push_str("With idle time the gain is within the tolerance. ");
        }
        if !ok_busy {
            let _ = write!(
                w,
                "With idle time removed it is not: cutting out the idle periods hardly adds \
                 choice (C-LOOK had one in {c1:.1} % of its decisions with idle time, \
                 {c2:.1} % without), because the request that would have found the disk idle \
                 now arrives just as it frees and the rest keep their spacing; greedy-optimal \
                 gains {g_idle:.2} % and {g_busy:.2} %, so no scheduler's gain grows much \
                 either. The paper's rise from 8 % to 12 % needs more queueing than removing \
                 idle periods gives, so its replay probably also shortened the gaps inside \
                 busy periods; it does not say how, and we do not guess.",
                c1 = choice(IDLE) * 100.0,
                c2 = choice(BUSY) * 100.0,
            );
        }
        w
    };
    out.description = format!(
        "The thesis's base disk (Table 3.1 #1, modelled on the IBM 9LZX the thesis measured) \
         replays the HP trace, one request at the drive, a request to blocks that earlier \
         unfinished requests touch held until they complete. C-LOOK against off-line SMTF \
         (mean, {samples} samples per distance, 2-sector probes after a random access), with \
         greedy-optimal (the simulator's exact positioning time) as the ceiling. Metric: total \
         time at the disk, the thesis's metric throughout §3.6 (mean response times are in the \
         table too, not checked).\n\n\
         The trace. The thesis replays uncompressed \"the trace for the busiest disk from the \
         week of 5/30/92 to 6/5/92\", and says one day of it holds \"approximately 150,000 \
         requests\" (§3.7). The HP trace we have from that week, hplajw's busiest disk \
         (device 0, {n} requests), holds {own_per_day:.0} a day: a single-user workstation, \
         about {factor:.0} times quieter. How much a scheduler can gain depends on how many requests \
         wait at once, which the arrival rate sets, so we replay hplajw at the thesis's \
         rate: its arrival times divided by {factor:.1}, the ratio of the two rates, with \
         addresses, sizes, order and burst shape unchanged. This stands in for the thesis's \
         trace; it is not that trace.\n\n\
         \"Idle time removed\" is taken literally: whenever nothing is queued, held or at the \
         drive, the replay jumps to the next arrival and moves it and every later arrival \
         earlier by the gap, so busy periods follow each other directly with their internal \
         spacing and order unchanged and the disk is never idle while requests remain. \
         Issuing each request when the previous completes was rejected (one request waiting \
         at every decision: 0 % by construction), as was issuing all requests at once (that \
         removes the gaps inside busy periods too: the limit of trace compression, not idle \
         removal).\n\n\
         Paper (real 9LZX): SMTF 8 % better than C-LOOK, 12 % with idle time removed. Ours: \
         {idle:.2} % and {busy:.2} % in time at the disk ({r_idle:.1} % lower mean response \
         time with idle time). {why}{context}",
        n = own.len(),
    );
    out.plots.push(Plot {
        title: "SMTF and greedy-optimal improvement over C-LOOK (time at the disk)".into(),
        x_label: "replay".into(),
        y_label: "improvement over C-LOOK (%)".into(),
        kind: PlotKind::Bars,
        series: vec![
            Series {
                label: "SMTF (ours)".into(),
                points: vec![(0.0, idle), (1.0, busy)],
            },
            Series {
                label: "greedy-optimal (ours)".into(),
                points: vec![(0.0, g_idle), (1.0, g_busy)],
            },
        ],
        log_x: false,
        paper: vec![Series {
            label: "SMTF, paper (real 9LZX)".into(),
            points: vec![(0.0, 8.0), (1.0, 12.0)],
        }],
        x_categories: vec![IDLE.into(), BUSY.into()],
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn at(ns: u64) -> IoRecord {
        IoRecord {
            arrival: SimTime(ns),
            device: 0,
            lbn: 0,
            blocks: 8,
            write: false,
            content: Vec::new(),
        }
    }

    #[test]
    fn rate_factor_brings_a_trace_to_the_requested_rate() {
        // 101 requests over 2 days: 50.5 a day; 5,050 a day is 100 times that.
        let day = 86_400_000_000_000u64;
        let recs: Vec<IoRecord> = (0..=100).map(|i| at(i * 2 * day / 100)).collect();
        let f = rate_factor(&recs, 5_050.0);
        assert!((f - 100.0).abs() < 1e-9, "{f}");
        // Compressed by it, the trace spans 2/100 of a day: 5,050 requests a day.
        let c = crate::workload::compress(&recs, f);
        let span = c.last().unwrap().arrival.0 as f64 / day as f64;
        assert!((c.len() as f64 / span - 5_050.0).abs() < 1e-6);
        // A trace without a span is left alone.
        assert_eq!(rate_factor(&[at(5)], 150_000.0), 1.0);
        assert_eq!(rate_factor(&[], 150_000.0), 1.0);
    }
}
