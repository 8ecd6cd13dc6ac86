//! The storage stack and its simulation loop: a workload feeds host queues, a host
//! scheduler per drive decides what each drive gets next, the drives serve, and
//! completions flow back (to a closed-loop workload, to held requests, to the metrics).
//!
//! Everything runs on one deterministic event queue over integer nanoseconds: same
//! inputs, same output, bit for bit.

pub mod config;
pub mod metrics;

use crate::disk::drive::Drive;
use crate::disk::hdd::{DiskError, Request};
use crate::disk::params::DiskParams;
use crate::engine::EventQueue;
use crate::sched::{HostQueue, SchedulerKind};
use crate::time::SimTime;
use crate::trace::IoRecord;
use metrics::{Metrics, RequestLog};
use std::collections::HashMap;

/// What to build: the drives and how the host schedules them.
#[derive(Clone, Debug)]
pub struct StackSpec {
    pub disks: Vec<DiskParams>,
    pub scheduler: SchedulerKind,
    /// Requests the host keeps outstanding at each drive.
    pub queue_depth: u32,
    /// Aging bound for the host scheduler (ms), if any.
    pub max_wait_ms: Option<f64>,
    /// Hold a request to blocks that an earlier request still being served touches
    /// until that one completes (the thesis's rule for compressed traces, §3.5).
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
    /// Remove idle time from the workload: whenever nothing is outstanding anywhere in
    /// the stack (no request queued, held or at a drive) and the next arrival lies in
    /// the future, the clock jumps to it, and that arrival and every later one move
    /// earlier by the gap. Busy periods are thus laid end to end with their internal
    /// spacing and order unchanged, and the drives never sit idle while requests
    /// remain (thesis §3.6.4, "idle time is removed from the trace").
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
}

/// A closed-loop workload: processes that issue a request, wait for it, think, and
/// issue the next.
pub trait ClosedSource {
    /// Each process's first request (arrival times set).
    fn start(&mut self) -> Vec<(u32, IoRecord)>;
    /// Process `process`'s request completed at `now`: its next request, if any.
    fn on_complete(&mut self, process: u32, now: SimTime) -> Option<IoRecord>;
}

impl ClosedSource for crate::workload::ClosedLoop {
    fn start(&mut self) -> Vec<(u32, IoRecord)> {
        crate::workload::ClosedLoop::start(self)
    }
    fn on_complete(&mut self, process: u32, now: SimTime) -> Option<IoRecord> {
        crate::workload::ClosedLoop::on_complete(self, process, now)
    }
}

impl ClosedSource for crate::workload::WindowedReplay {
    fn start(&mut self) -> Vec<(u32, IoRecord)> {
        crate::workload::WindowedReplay::start(self)
    }
    fn on_complete(&mut self, process: u32, now: SimTime) -> Option<IoRecord> {
        crate::workload::WindowedReplay::on_complete(self, process, now)
    }
}

pub enum Source<'a> {
    /// Requests with fixed arrival times (a trace or an open synthetic workload).
    Open(&'a [IoRecord]),
    Closed(&'a mut dyn ClosedSource),
}

#[derive(Debug, thiserror::Error)]
pub enum StackError {
    #[error("{0}")]
    Disk(#[from] DiskError),
    #[error("request {index} (device {device}, LBN {lbn}, {blocks} sectors) lies beyond the {capacity}-sector disk it maps to")]
    BeyondCapacity {
        index: usize,
        device: u32,
        lbn: u64,
        blocks: u32,
        capacity: u64,
    },
    #[error("the stack has no disks")]
    NoDisks,
}

/// The outcome of a run.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub requests: Vec<RequestLog>,
    pub metrics: Metrics,
    /// SMTF runs: the Disk Mimic's (predicted, observed) service time per request, ms.
    pub predictions: Vec<(f64, f64)>,
}

#[derive(Clone, Debug)]
struct Pending {
    rec: IoRecord,
    index: usize,
    process: Option<u32>,
}

#[derive(Debug)]
enum Event {
    Arrival(Pending),
}

/// Per-request bookkeeping while it is in the system.
#[derive(Clone, Debug)]
struct InFlight {
    pending: Pending,
    background: bool,
    drive: usize,
    lbn: u64,
    arrival: SimTime,
    dispatch: SimTime,
}

/// Maps a trace device to (drive, LBN offset). With fewer drives than trace devices,
/// device d goes to drive d mod n, laid after the devices before it on that drive.
struct DeviceMap {
    drives: usize,
    stride: u64,
}

impl DeviceMap {
    fn new(drives: usize, records: &[IoRecord]) -> DeviceMap {
        let max_end = records
            .iter()
            .map(|r| r.lbn + r.blocks as u64)
            .max()
            .unwrap_or(0);
        DeviceMap {
            drives,
            stride: max_end,
        }
    }
    fn map(&self, device: u32) -> (usize, u64) {
        let d = device as usize;
        (d % self.drives, (d / self.drives) as u64 * self.stride)
    }
}

/// Runs `source` through the stack. `progress` is told how many requests completed.
pub fn simulate(
    spec: &StackSpec,
    mut source: Source,
    progress: &mut dyn FnMut(usize),
) -> Result<RunResult, StackError> {
    if spec.disks.is_empty() {
        return Err(StackError::NoDisks);
    }
    let depth = spec.queue_depth.max(1);
    let mut drives: Vec<Drive> = Vec::with_capacity(spec.disks.len());
    for p in &spec.disks {
        let mut p = p.clone();
        p.firmware.queue_depth = p.firmware.queue_depth.max(depth);
        drives.push(Drive::new(p)?);
    }
    let mut queues: Vec<HostQueue> = Vec::with_capacity(spec.disks.len());
    for (i, p) in spec.disks.iter().enumerate() {
        let mut q = HostQueue::new(spec.scheduler, spec.max_wait_ms);
        if spec.scheduler == SchedulerKind::Freeblock {
            // The freeblock scheduler consults an off-line Disk Mimic (mean) and keeps the
            // background job's candidates.
            let probe = crate::disk::hdd::Hdd::new(p.clone())?;
            let cap = probe.capacity();
            let seed = 0xF8EE ^ i as u64;
            q = q
                .with_mimic(crate::mimic::DiskMimic::offline(
                    Box::new(probe),
                    spec.mimic_samples,
                    crate::mimic::Metric::Mean,
                    seed,
                ))
                .with_background(crate::sched::BackgroundPool::new(
                    spec.background_outstanding as usize,
                    cap,
                    8,
                    seed,
                    (1 << 40) + ((i as u64) << 32),
                ));
        }
        if matches!(
            spec.scheduler,
            SchedulerKind::OnlineSet(_) | SchedulerKind::OnlinePriority(_)
        ) {
            // On-line configuration: the Mimic learns from the workload's own requests.
            q = q.with_mimic(crate::mimic::DiskMimic::online(
                crate::mimic::Metric::Mean,
                0x5EED ^ i as u64,
            ));
        }
        if let SchedulerKind::Smtf(metric) = spec.scheduler {
            // Off-line configuration: the Mimic probes an identical drive of its own
            // and sees only request and completion times.
            let probe = crate::disk::hdd::Hdd::new(p.clone())?;
            let seed = 0x5EED ^ i as u64 ^ spec.mimic_seed;
            let mut m =
                crate::mimic::DiskMimic::offline(Box::new(probe), spec.mimic_samples, metric, seed);
            if !spec.mimic_interpolation.is_empty() {
                m = m.with_interpolation(&spec.mimic_interpolation);
            }
            q = q.with_mimic(m);
        }
        queues.push(q);
    }

    let mut events: EventQueue<Event> = EventQueue::new();
    let mut next_index = 0usize;
    let map = match &source {
        Source::Open(recs) => DeviceMap::new(drives.len(), recs),
        Source::Closed(_) => DeviceMap {
            drives: drives.len(),
            stride: 0,
        },
    };
    // With `remove_idle`, events stay keyed by their workload time; the time the stack
    // sees is that minus `shift`, the idle time removed so far.
    let mut shift = 0u64;
    let mut clock = SimTime::ZERO;
    let push_arrival = |events: &mut EventQueue<Event>,
                        rec: IoRecord,
                        process: Option<u32>,
                        next_index: &mut usize,
                        shift: u64| {
        let index = *next_index;
        *next_index += 1;
        events.schedule(
            SimTime(rec.arrival.0.saturating_add(shift)),
            Event::Arrival(Pending {
                rec,
                index,
                process,
            }),
        );
    };
    match &mut source {
        Source::Open(recs) => {
            for r in recs.iter() {
                push_arrival(&mut events, r.clone(), None, &mut next_index, 0);
            }
        }
        Source::Closed(c) => {
            for (p, r) in c.start() {
                push_arrival(&mut events, r, Some(p), &mut next_index, 0);
            }
        }
    }

    let mut in_flight: HashMap<u64, InFlight> = HashMap::new();
    // Requests held behind an overlapping unserviced request, by the blocker's id.
    let mut held: HashMap<u64, Vec<Pending>> = HashMap::new();
    let mut logs: Vec<RequestLog> = Vec::new();
    let mut last_done = vec![SimTime::ZERO; drives.len()];

    loop {
        let mut next_arrival = events
            .peek_time()
            .map(|t| SimTime(t.0.saturating_sub(shift)));
        if spec.remove_idle && in_flight.is_empty() && held.is_empty() {
            if let Some(a) = next_arrival.filter(|&a| a > clock) {
                shift += a.0 - clock.0;
                next_arrival = Some(clock);
            }
        }
        let next_done = drives
            .iter()
            .enumerate()
            .filter_map(|(i, d)| d.next_completion().map(|t| (t, i)))
            .min();
        let arrival_first = match (next_arrival, next_done) {
            (None, None) => break,
            (Some(a), Some((d, _))) => a <= d,
            (Some(_), None) => true,
            (None, Some(_)) => false,
        };
        if arrival_first {
            let Some((at, Event::Arrival(p))) = events.pop() else {
                break;
            };
            let now = SimTime(at.0.saturating_sub(shift));
            clock = now;
            let (drive, offset) = map.map(p.rec.device);
            let lbn = p.rec.lbn + offset;
            let cap = drives[drive].hdd().capacity();
            if lbn + p.rec.blocks.max(1) as u64 > cap {
                return Err(StackError::BeyondCapacity {
                    index: p.index,
                    device: p.rec.device,
                    lbn: p.rec.lbn,
                    blocks: p.rec.blocks,
                    capacity: cap,
                });
            }
            let end = lbn + p.rec.blocks.max(1) as u64;
            let blocker = spec
                .hold_overlapping
                .then(|| {
                    in_flight
                        .iter()
                        .filter(|(_, f)| {
                            f.drive == drive
                                && f.lbn < end
                                && lbn < f.lbn + f.pending.rec.blocks as u64
                        })
                        .map(|(id, _)| *id)
                        .min()
                })
                .flatten();
            match blocker {
                Some(b) => held.entry(b).or_default().push(p),
                None => admit(p, now, drive, lbn, &mut queues, &mut in_flight),
            }
            dispatch(drive, now, depth, &mut drives, &mut queues, &mut in_flight);
        } else {
            let Some((now, d)) = next_done else { break };
            clock = now;
            let Some(c) = drives[d].complete() else {
                continue;
            };
            let id = c.completion.id;
            if let Some(f) = in_flight.get(&id) {
                // What the host can observe: from when the drive could start on it (sent,
                // and the previous request done) to its completion.
                let began = f.dispatch.max(last_done[d]);
                queues[d].completed(id, now.0.saturating_sub(began.0));
            }
            last_done[d] = now;
            if let Some(f) = in_flight.remove(&id) {
                logs.push(RequestLog {
                    id: f.pending.index as u64,
                    device: d as u32,
                    lbn: f.lbn,
                    blocks: f.pending.rec.blocks,
                    write: f.pending.rec.write,
                    arrival: f.arrival,
                    dispatch: f.dispatch,
                    start: c.completion.start,
                    done: now,
                    breakdown: c.completion.breakdown,
                    cache_hit: c.completion.cache_hit,
                    process: f.pending.process,
                    background: f.background,
                });
                progress(logs.len());
                if let (Some(proc_), Source::Closed(src)) = (f.pending.process, &mut source) {
                    if let Some(next) = src.on_complete(proc_, now) {
                        push_arrival(&mut events, next, Some(proc_), &mut next_index, shift);
                    }
                }
            }
            // Requests that waited on this one may go now (as if issued now).
            if let Some(list) = held.remove(&id) {
                for p in list {
                    let (drive, offset) = map.map(p.rec.device);
                    let lbn = p.rec.lbn + offset;
                    admit(p, now, drive, lbn, &mut queues, &mut in_flight);
                    dispatch(drive, now, depth, &mut drives, &mut queues, &mut in_flight);
                }
            }
            dispatch(d, now, depth, &mut drives, &mut queues, &mut in_flight);
        }
    }
    logs.sort_by_key(|l| l.id);
    let mut metrics = Metrics::from_logs(&logs, drives.len());
    // Media time a drive spent writing cached writes counts as busy too.
    if metrics.makespan_ms > 0.0 {
        for (u, d) in metrics.utilization.iter_mut().zip(&drives) {
            *u += d.destage_stats().busy_ns as f64 / 1e6 / metrics.makespan_ms;
        }
    }
    let predictions = queues
        .iter()
        .flat_map(|q| {
            q.predictions()
                .iter()
                .map(|&(p, o)| (p as f64 / 1e6, o as f64 / 1e6))
        })
        .collect();
    Ok(RunResult {
        requests: logs,
        metrics,
        predictions,
    })
}

fn admit(
    p: Pending,
    now: SimTime,
    drive: usize,
    lbn: u64,
    queues: &mut [HostQueue],
    in_flight: &mut HashMap<u64, InFlight>,
) {
    let id = p.index as u64;
    let req = Request {
        id,
        lbn,
        blocks: p.rec.blocks.max(1),
        write: p.rec.write,
    };
    queues[drive].push(req, now);
    in_flight.insert(
        id,
        InFlight {
            background: false,
            pending: p,
            drive,
            lbn,
            arrival: now,
            dispatch: now,
        },
    );
}

/// Sends waiting requests to drive `d` while it has room.
fn dispatch(
    d: usize,
    now: SimTime,
    depth: u32,
    drives: &mut [Drive],
    queues: &mut [HostQueue],
    in_flight: &mut HashMap<u64, InFlight>,
) {
    while drives[d].outstanding() < depth as usize {
        let Some(w) = queues[d].pop(Some(drives[d].hdd()), now) else {
            break;
        };
        if w.background {
            // A free background request: it enters the system as it is sent.
            let rec = IoRecord {
                arrival: now,
                device: d as u32,
                lbn: w.req.lbn,
                blocks: w.req.blocks,
                write: w.req.write,
                content: Vec::new(),
            };
            let pending = Pending {
                rec,
                index: w.req.id as usize,
                process: None,
            };
            in_flight.insert(
                w.req.id,
                InFlight {
                    pending,
                    background: true,
                    drive: d,
                    lbn: w.req.lbn,
                    arrival: now,
                    dispatch: now,
                },
            );
        }
        if let Some(f) = in_flight.get_mut(&w.req.id) {
            f.dispatch = now;
        }
        drives[d].submit(now, w.req);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::presets::preset;

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
            simulate(&spec, Source::Open(&recs), &mut |_| {}).unwrap()
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
        let r = simulate(&spec, Source::Open(&recs), &mut |_| {}).unwrap();
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
