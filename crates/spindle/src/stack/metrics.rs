//! What a run measured: per-request timings and their summary.

use crate::disk::hdd::Breakdown;
use crate::time::SimTime;
use serde::Serialize;

/// One request's life: arrival at the host, dispatch to the drive, start of service
/// inside the drive, completion.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RequestLog {
    pub id: u64,
    pub device: u32,
    pub lbn: u64,
    pub blocks: u32,
    pub write: bool,
    pub arrival: SimTime,
    pub dispatch: SimTime,
    pub start: SimTime,
    pub done: SimTime,
    pub breakdown: Breakdown,
    pub cache_hit: bool,
    /// The closed-loop process that issued it, if any.
    pub process: Option<u32>,
    /// A background request of a freeblock scheduler.
    pub background: bool,
}

impl RequestLog {
    pub fn response_ns(&self) -> u64 {
        self.done.0 - self.arrival.0
    }
    /// Time the drive spent on it ("time at the disk").
    pub fn service_ns(&self) -> u64 {
        self.done.0 - self.start.0
    }
    pub fn queue_ns(&self) -> u64 {
        self.start.0 - self.arrival.0
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BreakdownMs {
    pub overhead_ms: f64,
    pub seek_ms: f64,
    pub rotation_ms: f64,
    pub transfer_ms: f64,
}

/// Summary of a run. Times in ms.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Metrics {
    pub requests: usize,
    pub reads: usize,
    pub writes: usize,
    pub mean_response_ms: f64,
    pub p50_response_ms: f64,
    pub p90_response_ms: f64,
    pub p99_response_ms: f64,
    pub max_response_ms: f64,
    /// Mean time inside the drive per request (its service time).
    pub mean_service_ms: f64,
    /// Total time the drives spent serving requests.
    pub total_disk_time_ms: f64,
    /// Mean wait before the drive started on a request (host queue + drive queue).
    pub mean_queue_ms: f64,
    pub mean_breakdown: BreakdownMs,
    pub cache_hit_fraction: f64,
    pub makespan_ms: f64,
    pub throughput_per_s: f64,
    /// Busy fraction of each drive over the makespan (request service plus the media
    /// time of destaging cached writes).
    pub utilization: Vec<f64>,
    /// Response-time distribution: (ms, fraction of requests at or below).
    pub cdf: Vec<(f64, f64)>,
}

impl Metrics {
    pub fn from_logs(logs: &[RequestLog], drives: usize) -> Metrics {
        let n = logs.len();
        if n == 0 {
            return Metrics {
                utilization: vec![0.0; drives],
                ..Metrics::default()
            };
        }
        let ms = |ns: u64| ns as f64 / 1e6;
        let mut resp: Vec<u64> = logs.iter().map(RequestLog::response_ns).collect();
        resp.sort_unstable();
        let q = |p: f64| ms(resp[((p * n as f64).ceil() as usize).clamp(1, n) - 1]);
        let sum = |f: &dyn Fn(&RequestLog) -> u64| logs.iter().map(f).sum::<u64>();
        let first = logs.iter().map(|l| l.arrival).min().unwrap_or_default();
        let last = logs.iter().map(|l| l.done).max().unwrap_or_default();
        let makespan = ms(last.0 - first.0);
        let mut busy = vec![0u64; drives];
        for l in logs {
            if let Some(b) = busy.get_mut(l.device as usize) {
                *b += l.service_ns();
            }
        }
        let nf = n as f64;
        let cdf_points = 200.min(n);
        let cdf = (1..=cdf_points)
            .map(|k| {
                let frac = k as f64 / cdf_points as f64;
                (q(frac), frac)
            })
            .collect();
        Metrics {
            requests: n,
            reads: logs.iter().filter(|l| !l.write).count(),
            writes: logs.iter().filter(|l| l.write).count(),
            mean_response_ms: ms(sum(&|l| l.response_ns())) / nf,
            p50_response_ms: q(0.50),
            p90_response_ms: q(0.90),
            p99_response_ms: q(0.99),
            max_response_ms: ms(*resp.last().unwrap_or(&0)),
            mean_service_ms: ms(sum(&|l| l.service_ns())) / nf,
            total_disk_time_ms: ms(sum(&|l| l.service_ns())),
            mean_queue_ms: ms(sum(&|l| l.queue_ns())) / nf,
            mean_breakdown: BreakdownMs {
                overhead_ms: ms(sum(&|l| l.breakdown.overhead_ns)) / nf,
                seek_ms: ms(sum(&|l| l.breakdown.seek_ns)) / nf,
                rotation_ms: ms(sum(&|l| l.breakdown.rotation_ns)) / nf,
                transfer_ms: ms(sum(&|l| l.breakdown.transfer_ns)) / nf,
            },
            cache_hit_fraction: logs.iter().filter(|l| l.cache_hit).count() as f64 / nf,
            makespan_ms: makespan,
            throughput_per_s: if makespan > 0.0 {
                nf / (makespan / 1000.0)
            } else {
                0.0
            },
            utilization: busy
                .iter()
                .map(|&b| {
                    if makespan > 0.0 {
                        ms(b) / makespan
                    } else {
                        0.0
                    }
                })
                .collect(),
            cdf,
        }
    }
}

/// Writes one CSV line per request (times in ms).
pub fn write_requests_csv(
    logs: &[RequestLog],
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "id,device,lbn,blocks,op,arrival_ms,dispatch_ms,start_ms,done_ms,response_ms,service_ms,overhead_ms,seek_ms,rotation_ms,transfer_ms,cache_hit"
    )?;
    let ms = |ns: u64| ns as f64 / 1e6;
    for l in logs {
        writeln!(
            out,
            "{},{},{},{},{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{}",
            l.id,
            l.device,
            l.lbn,
            l.blocks,
            if l.write { "W" } else { "R" },
            l.arrival.as_ms(),
            l.dispatch.as_ms(),
            l.start.as_ms(),
            l.done.as_ms(),
            ms(l.response_ns()),
            ms(l.service_ns()),
            ms(l.breakdown.overhead_ns),
            ms(l.breakdown.seek_ns),
            ms(l.breakdown.rotation_ns),
            ms(l.breakdown.transfer_ns),
            u8::from(l.cache_hit)
        )?;
    }
    Ok(())
}
