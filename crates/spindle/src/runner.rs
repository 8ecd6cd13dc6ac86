//! Running a stack: the classic "drives behind host queues" description
//! ([`StackSpec`]) that the experiments use, built into a device tree and run on the
//! engine, with every request's log kept for the caller.

use crate::disk::params::DiskParams;
use crate::engine::{self, RunOptions, Source};
use crate::node::{Device, NodeReport};
use crate::sched::SchedulerKind;
use crate::stack::metrics::{Metrics, MetricsSink, RequestLog};
use crate::stack::queue::QueueSpec;
use crate::time::SimTime;

pub use crate::engine::{ClosedSource, EngineError as StackError};

/// What to build: the drives and how the host schedules them.
#[derive(Clone, Debug)]
pub struct StackSpec {
    pub disks: Vec<DiskParams>,
    pub scheduler: SchedulerKind,
    /// Requests the host keeps outstanding at each drive.
    pub queue_depth: u32,
    /// Aging bound for the host scheduler (ms), if any.
    pub max_wait_ms: Option<f64>,
    /// Hold a request to blocks that earlier requests not yet completed touch until
    /// they complete (the thesis's rule for compressed traces, §3.5).
    pub hold_overlapping: bool,
    /// SMTF: samples per distance the Disk Mimic probes off-line.
    pub mimic_samples: u32,
    /// SMTF: interpolate with this allowable-error ladder (thesis Table 3.2) instead of
    /// probing every distance; empty = no interpolation.
    pub mimic_interpolation: Vec<(u32, f64)>,
    /// SMTF: mixed into the seed of the off-line Mimic's random draws (probe places,
    /// interpolation check points); 0 keeps the default seed.
    pub mimic_seed: u64,
    /// Freeblock: background candidate reads (4 KiB) kept outstanding at the host.
    pub background_outstanding: u32,
    /// Remove idle time from the workload (see [`RunOptions::remove_idle`]).
    pub remove_idle: bool,
}

impl StackSpec {
    /// One disk, one request outstanding at it, no aging or holding; SMTF probes 10
    /// samples per distance without interpolation. Adjust fields with struct update.
    pub fn one_disk(disk: DiskParams, scheduler: SchedulerKind) -> StackSpec {
        StackSpec {
            disks: vec![disk],
            scheduler,
            queue_depth: 1,
            max_wait_ms: None,
            hold_overlapping: false,
            mimic_samples: 10,
            mimic_interpolation: Vec::new(),
            mimic_seed: 0,
            background_outstanding: 0,
            remove_idle: false,
        }
    }

    fn queue(&self) -> QueueSpec {
        QueueSpec {
            kind: self.scheduler,
            depth: self.queue_depth.max(1),
            max_wait_ms: self.max_wait_ms,
            hold_overlapping: self.hold_overlapping,
            mimic_samples: self.mimic_samples,
            mimic_interpolation: self.mimic_interpolation.clone(),
            mimic_seed: self.mimic_seed,
            mimic_table: None,
            background_outstanding: self.background_outstanding,
            window: None,
            merge_sectors: None,
            batch_submit: false,
        }
    }
}

/// The outcome of a run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Every request, foreground and background, by id.
    pub requests: Vec<RequestLog>,
    pub metrics: Metrics,
    /// SMTF runs: the Disk Mimic's (predicted, observed) service time per request, ms.
    pub predictions: Vec<(f64, f64)>,
    /// Per-node statistics of the stack.
    pub nodes: Vec<NodeReport>,
}

/// Per-node statistics of a run over `span` (first arrival, last completion; `None`:
/// none completed). A drive's busy time runs to the run's end, not its own last
/// completion, so a destage after that counts; it is capped at the span, as work
/// past the end (background reads) is not the run's.
pub fn run_reports(root: &dyn Device, span: Option<(SimTime, SimTime)>) -> Vec<NodeReport> {
    let (start, end) = span.unwrap_or_default();
    let mut nodes = Vec::new();
    root.report_until("stack", end, &mut nodes);
    let span_ns = end.0.saturating_sub(start.0);
    for n in nodes.iter_mut().filter(|n| n.is_drive) {
        n.busy_ns = n.busy_ns.min(span_ns);
    }
    nodes
}

/// Busy fraction of each drive of the stack over `makespan_ms`.
pub fn drive_utilization(nodes: &[NodeReport], makespan_ms: f64) -> Vec<f64> {
    nodes
        .iter()
        .filter(|n| n.is_drive)
        .map(|n| {
            if makespan_ms > 0.0 {
                n.busy_ns as f64 / 1e6 / makespan_ms
            } else {
                0.0
            }
        })
        .collect()
}

/// Runs `source` through the stack. `progress` is told how many requests completed.
pub fn simulate(
    spec: &StackSpec,
    source: Source,
    progress: &mut dyn FnMut(usize),
) -> Result<RunResult, String> {
    if spec.disks.is_empty() {
        return Err("the stack has no disks".into());
    }
    let mut built = crate::stack::tree::build_from_params(&spec.disks, &spec.queue())?;
    let mut logs: Vec<RequestLog> = Vec::new();
    engine::run(
        built.root.as_mut(),
        &built.units,
        source,
        RunOptions {
            remove_idle: spec.remove_idle,
            ..RunOptions::default()
        },
        &mut |l| {
            logs.push(*l);
            progress(logs.len());
        },
    )
    .map_err(|e| e.to_string())?;
    logs.sort_by_key(|l| l.id);
    let mut sink = MetricsSink::new(built.drives);
    for l in &logs {
        sink.record(l);
    }
    let nodes = run_reports(built.root.as_ref(), sink.span());
    let mut metrics = sink.finish();
    metrics.utilization = drive_utilization(&nodes, metrics.makespan_ms);
    let mut raw = Vec::new();
    built.root.predictions(&mut raw);
    let predictions = raw
        .iter()
        .map(|&(p, o)| (p as f64 / 1e6, o as f64 / 1e6))
        .collect();
    Ok(RunResult {
        requests: logs,
        metrics,
        predictions,
        nodes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::presets::preset;
    use crate::time::SimTime;
    use crate::trace::IoRecord;

    fn rec(ms: u64, lbn: u64) -> IoRecord {
        IoRecord {
            arrival: SimTime(ms * 1_000_000),
            device: 0,
            lbn,
            blocks: 8,
            write: false,
            content: Vec::new(),
        }
    }

    /// A write-caching drive takes writes into its cache while its media destages
    /// older ones: both are busy time, but time counts once, so a drive saturated
    /// by writes is busy all the run and no more.
    #[test]
    fn a_drive_destaging_under_cached_writes_is_never_busier_than_the_run() {
        let disk = preset("wd-re3").unwrap();
        assert!(disk.firmware.write_cache_sectors > 0);
        // Random writes every 2 ms: more than the media can destage.
        let recs: Vec<IoRecord> = (0..600u64)
            .map(|i| IoRecord {
                arrival: SimTime(i * 2_000_000),
                lbn: (i * 7_919_993) % 1_000_000_000,
                write: true,
                ..rec(0, 0)
            })
            .collect();
        let spec = StackSpec::one_disk(disk, SchedulerKind::Fcfs);
        let run = simulate(&spec, Source::records(&recs), &mut |_| {}).unwrap();
        let u = run.metrics.utilization[0];
        assert!((0.9..=1.0).contains(&u), "utilization {u}");
    }

    #[test]
    fn remove_idle_lays_busy_periods_end_to_end() {
        // A busy period of two requests (the second arrives while the first is served),
        // a long idle gap, then two more the same way.
        let recs = vec![
            rec(0, 1_000),
            rec(1, 5_000_000),
            rec(10_000, 9_000_000),
            rec(10_002, 300_000),
        ];
        let disk = preset("mimic-base").unwrap();
        let run = |remove_idle: bool| {
            let spec = StackSpec {
                remove_idle,
                ..StackSpec::one_disk(disk.clone(), SchedulerKind::Fcfs)
            };
            simulate(&spec, Source::records(&recs), &mut |_| {}).unwrap()
        };
        let (with, without) = (run(false), run(true));
        let l = &without.requests;
        // Spacing inside a busy period is kept.
        assert_eq!(l[1].arrival.0 - l[0].arrival.0, 1_000_000);
        assert_eq!(l[3].arrival.0 - l[2].arrival.0, 2_000_000);
        // The request that would have found the disk idle arrives as it frees.
        assert_eq!(l[2].arrival, l[1].done);
        // Nothing else changes without the option.
        assert_eq!(with.requests[2].arrival.0, 10_000_000_000);
        assert!(without.metrics.makespan_ms < 100.0);
        let busy: u64 = l.iter().map(|r| r.done.0 - r.dispatch.0).sum();
        assert!(
            (without.metrics.makespan_ms - busy as f64 / 1e6).abs() < 1e-9,
            "never idle: makespan {} vs busy {}",
            without.metrics.makespan_ms,
            busy as f64 / 1e6
        );
    }

    #[test]
    fn utilization_counts_the_destaging_of_cached_writes() {
        // Writes 20 ms apart over a wide span: each completes from the cache, and the
        // drive writes it to the media while idle before the next arrives.
        let recs: Vec<IoRecord> = (0..20)
            .map(|i| IoRecord {
                write: true,
                ..rec(20 * i, 1 + i * 9_000_001)
            })
            .collect();
        let disk = preset("wd-re3").unwrap();
        assert!(disk.firmware.write_cache_sectors > 0);
        let spec = StackSpec::one_disk(disk, SchedulerKind::Fcfs);
        let r = simulate(&spec, Source::records(&recs), &mut |_| {}).unwrap();
        let service: u64 = r.requests.iter().map(|x| x.done.0 - x.dispatch.0).sum();
        let acks = service as f64 / 1e6 / r.metrics.makespan_ms;
        assert!(r.requests.iter().all(|x| x.cache_hit));
        // Nineteen random writes destaged (the last is still cached at the end) at
        // several ms each, against acknowledgements of a fraction of a ms.
        assert!(
            r.metrics.utilization[0] > acks + 0.1,
            "{:?} vs {acks}",
            r.metrics.utilization
        );
    }

    /// Drive 0 acknowledges two cached writes within about a ms, its media destaging
    /// the first (a long seek away) well after that; drive 1 serves a read at 50 ms.
    /// Drive 0's destage ends inside the run, so it counts in full; on drive 0 alone
    /// the run ends at the second write's acknowledgement, and busy time stops there.
    #[test]
    fn a_destage_after_the_drives_last_completion_counts_up_to_the_runs_end() {
        let write = |ms, lbn| IoRecord {
            write: true,
            ..rec(ms, lbn)
        };
        let mut recs = vec![write(0, 1_500_000_000), write(1, 100)];
        let disk = preset("wd-re3").unwrap();
        assert!(disk.firmware.write_cache_sectors > 0);
        let one = StackSpec::one_disk(disk, SchedulerKind::Fcfs);
        let alone = simulate(&one, Source::records(&recs), &mut |_| {}).unwrap();
        let own_ms = alone.metrics.makespan_ms;
        let busy_ms =
            |r: &RunResult| r.nodes.iter().find(|n| n.is_drive).unwrap().busy_ns as f64 / 1e6;
        assert!(busy_ms(&alone) <= own_ms, "{} > {own_ms}", busy_ms(&alone));
        assert!(alone.metrics.utilization[0] <= 1.0);

        recs.push(IoRecord {
            device: 1,
            ..rec(50, 100)
        });
        let two = StackSpec {
            disks: vec![one.disks[0].clone(); 2],
            ..one
        };
        let r = simulate(&two, Source::records(&recs), &mut |_| {}).unwrap();
        let drive0 = busy_ms(&r);
        // Beyond its own requests' span by most of a long-seek destage.
        assert!(
            drive0 > own_ms + 5.0,
            "drive 0 busy {drive0} ms, its requests {own_ms} ms"
        );
        assert!(drive0 <= r.metrics.makespan_ms);
        let u = drive0 / r.metrics.makespan_ms;
        assert!(
            (r.metrics.utilization[0] - u).abs() < 1e-12,
            "{:?}",
            r.metrics.utilization
        );
    }

    #[test]
    fn windowed_replay_keeps_the_window_outstanding_in_trace_order() {
        // Twenty requests spread over the disk, replayed with four outstanding: the
        // drive is never idle, at most four are in the stack at once, and FCFS serves
        // them in trace order.
        let recs: Vec<IoRecord> = (0..20).map(|i| rec(1_000 * i, 1 + i * 700_001)).collect();
        let disk = preset("mimic-base").unwrap();
        let spec = StackSpec::one_disk(disk, SchedulerKind::Fcfs);
        let mut w = crate::workload::WindowedReplay::new(recs.clone(), 4);
        let r = simulate(&spec, Source::Closed(&mut w), &mut |_| {}).unwrap();
        let mut l = r.requests.clone();
        assert_eq!(l.len(), 20);
        l.sort_by_key(|x| x.start);
        let lbns: Vec<u64> = l.iter().map(|x| x.lbn).collect();
        assert_eq!(lbns, recs.iter().map(|x| x.lbn).collect::<Vec<_>>());
        for (i, x) in l.iter().enumerate() {
            let open = l
                .iter()
                .filter(|y| y.arrival <= x.arrival && y.done > x.arrival)
                .count();
            assert!(open <= 4, "request {i}: {open} outstanding");
            if i < 4 {
                assert_eq!(x.arrival, SimTime::ZERO);
            } else {
                // Released by the completion of the request four places earlier.
                assert_eq!(x.arrival, l[i - 4].done);
            }
        }
        let busy: u64 = l.iter().map(|x| x.done.0 - x.dispatch.0).sum();
        assert!((r.metrics.makespan_ms - busy as f64 / 1e6).abs() < 1e-9);
    }
}
