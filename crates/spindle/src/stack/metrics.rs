//! What a run measured: per-request timings and their summary.

pub use crate::engine::RequestLog;
use crate::time::SimTime;
use hdrhistogram::Histogram;
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BreakdownMs {
    pub overhead_ms: f64,
    pub seek_ms: f64,
    pub rotation_ms: f64,
    pub transfer_ms: f64,
}

/// Summary of a run. Times in ms.
///
/// Computed by a [`MetricsSink`] (which [`Metrics::from_logs`] feeds): counts, means,
/// totals, the makespan and utilizations are exact; the response-time quantiles and the
/// CDF are within 1/2048 (< 0.05 %) of the exact values (see [`MetricsSink`]).
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
    /// Response-time distribution: (ms, fraction of requests at or below), at most 200
    /// points: the response time at rank `ceil(fraction * requests)` for fractions
    /// `k / points`, `k = 1..=points`.
    pub cdf: Vec<(f64, f64)>,
}

impl Metrics {
    /// The summary of `logs` on `drives` drives: [`MetricsSink`] fed every log.
    pub fn from_logs(logs: &[RequestLog], drives: usize) -> Metrics {
        let mut sink = MetricsSink::new(drives);
        for l in logs {
            sink.record(l);
        }
        sink.finish()
    }
}

/// Response-time quantiles are kept to 3 significant decimal digits (hdrhistogram's
/// precision): 2048 sub-buckets per power of two.
const SIGFIG: u8 = 3;

/// Points of [`Metrics::cdf`] (fewer when there are fewer requests).
const CDF_POINTS: usize = 200;

/// Computes [`Metrics`] online, one [`RequestLog`] at a time, in memory that does not
/// grow with the number of requests.
///
/// * **Exact**: the counts (requests, reads, writes, cache hits), every sum and mean
///   (integer nanosecond sums in `u128`, converted to ms once at the end, so the results
///   equal a direct computation over all logs), the largest response time, the makespan
///   (first arrival to last completion), and each drive's busy time.
/// * **Approximate**: the response-time quantiles (`p50`, `p90`, `p99`) and the
///   [`Metrics::cdf`] points. Response times are recorded in nanoseconds in an
///   auto-resizing [`hdrhistogram`] with 3 significant digits. A quantile `p` is, as for
///   an exact sorted list, the response time of rank `ceil(p * n)` (at least 1): the
///   histogram finds the bucket holding that rank exactly, and reports the bucket's
///   middle, clamped to the exact smallest and largest response times. So the reported
///   value `r` and the exact value `v` satisfy `|r - v| <= v / 2048` (a relative error
///   below 0.049 %), and `r == v` whenever `v < 2048 ns` or `v` is the maximum.
///
/// Memory: a few dozen counters, one `u128` per drive, and the histogram, whose size
/// depends only on the largest response time recorded (1024 `u64` counters per power of
/// two above 2048 ns: about 224 KiB for response times up to 100 s), never on the count.
/// Recording is O(1).
#[derive(Clone, Debug)]
pub struct MetricsSink {
    /// Response times in ns.
    hist: Histogram<u64>,
    requests: u64,
    reads: u64,
    cache_hits: u64,
    response_ns: u128,
    service_ns: u128,
    queue_ns: u128,
    overhead_ns: u128,
    seek_ns: u128,
    rotation_ns: u128,
    transfer_ns: u128,
    min_response_ns: u64,
    max_response_ns: u64,
    /// Earliest arrival (`u64::MAX` before the first log).
    first_arrival_ns: u64,
    /// Latest completion.
    last_done_ns: u64,
    /// Per drive: service time of its requests plus [`MetricsSink::add_busy_ns`] (the
    /// runners replace the utilizations with the drives' own busy time, overlaps once).
    busy_ns: Vec<u128>,
}

impl MetricsSink {
    /// An empty sink for a run on `drives` drives (logs of other devices count
    /// everywhere except in the utilizations).
    pub fn new(drives: usize) -> MetricsSink {
        MetricsSink {
            hist: Histogram::new(SIGFIG).expect("3 significant digits are supported"),
            requests: 0,
            reads: 0,
            cache_hits: 0,
            response_ns: 0,
            service_ns: 0,
            queue_ns: 0,
            overhead_ns: 0,
            seek_ns: 0,
            rotation_ns: 0,
            transfer_ns: 0,
            min_response_ns: u64::MAX,
            max_response_ns: 0,
            first_arrival_ns: u64::MAX,
            last_done_ns: 0,
            busy_ns: vec![0; drives],
        }
    }

    /// Counts one request.
    pub fn record(&mut self, log: &RequestLog) {
        let response = log.response_ns();
        let service = log.service_ns();
        self.requests += 1;
        self.reads += u64::from(!log.write);
        self.cache_hits += u64::from(log.cache_hit);
        self.response_ns += u128::from(response);
        self.service_ns += u128::from(service);
        self.queue_ns += u128::from(log.queue_ns());
        self.overhead_ns += u128::from(log.breakdown.overhead_ns);
        self.seek_ns += u128::from(log.breakdown.seek_ns);
        self.rotation_ns += u128::from(log.breakdown.rotation_ns);
        self.transfer_ns += u128::from(log.breakdown.transfer_ns);
        self.min_response_ns = self.min_response_ns.min(response);
        self.max_response_ns = self.max_response_ns.max(response);
        self.first_arrival_ns = self.first_arrival_ns.min(log.arrival.0);
        self.last_done_ns = self.last_done_ns.max(log.done.0);
        if let Some(b) = self.busy_ns.get_mut(log.device as usize) {
            *b += u128::from(service);
        }
        if self.hist.record(response).is_err() {
            // Beyond what the histogram can resize to (~73 years): counted at its top.
            self.hist.saturating_record(response);
        }
    }

    /// Adds `ns` of busy time to drive `drive` beyond its requests' service (e.g. the
    /// media time of destaging cached writes); ignored for a drive this sink does not
    /// have.
    pub fn add_busy_ns(&mut self, drive: usize, ns: u64) {
        if let Some(b) = self.busy_ns.get_mut(drive) {
            *b += u128::from(ns);
        }
    }

    /// Requests recorded so far.
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// The run's span, first arrival to last completion (`None` before any log): the
    /// time [`Metrics::makespan_ms`] measures.
    pub fn span(&self) -> Option<(SimTime, SimTime)> {
        (self.requests > 0).then_some((SimTime(self.first_arrival_ns), SimTime(self.last_done_ns)))
    }

    /// The summary of everything recorded so far (the sink can go on recording).
    pub fn finish(&self) -> Metrics {
        let n = self.requests;
        if n == 0 {
            return Metrics {
                utilization: vec![0.0; self.busy_ns.len()],
                ..Metrics::default()
            };
        }
        let ms = |ns: u128| ns as f64 / 1e6;
        let nf = n as f64;
        let makespan = ms(u128::from(
            self.last_done_ns.saturating_sub(self.first_arrival_ns),
        ));
        let rank = |p: f64| ((p * nf).ceil() as u64).clamp(1, n);
        let pcts = self.at_ranks(&[rank(0.50), rank(0.90), rank(0.99)]);
        let points = CDF_POINTS.min(n as usize);
        let fracs: Vec<f64> = (1..=points).map(|k| k as f64 / points as f64).collect();
        let ranks: Vec<u64> = fracs.iter().map(|&f| rank(f)).collect();
        let cdf = self
            .at_ranks(&ranks)
            .into_iter()
            .zip(fracs)
            .map(|(v, f)| (ms(u128::from(v)), f))
            .collect();
        Metrics {
            requests: n as usize,
            reads: self.reads as usize,
            writes: (n - self.reads) as usize,
            mean_response_ms: ms(self.response_ns) / nf,
            p50_response_ms: ms(u128::from(pcts[0])),
            p90_response_ms: ms(u128::from(pcts[1])),
            p99_response_ms: ms(u128::from(pcts[2])),
            max_response_ms: ms(u128::from(self.max_response_ns)),
            mean_service_ms: ms(self.service_ns) / nf,
            total_disk_time_ms: ms(self.service_ns),
            mean_queue_ms: ms(self.queue_ns) / nf,
            mean_breakdown: BreakdownMs {
                overhead_ms: ms(self.overhead_ns) / nf,
                seek_ms: ms(self.seek_ns) / nf,
                rotation_ms: ms(self.rotation_ns) / nf,
                transfer_ms: ms(self.transfer_ns) / nf,
            },
            cache_hit_fraction: self.cache_hits as f64 / nf,
            makespan_ms: makespan,
            throughput_per_s: if makespan > 0.0 {
                nf / (makespan / 1000.0)
            } else {
                0.0
            },
            utilization: self
                .busy_ns
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

    /// The response time (ns) at each of `ranks` (1-based, ascending, at most the
    /// count): the middle of the histogram bucket holding that rank, clamped to the exact
    /// smallest and largest response times; exact for the first and the last rank.
    fn at_ranks(&self, ranks: &[u64]) -> Vec<u64> {
        hist_at_ranks(
            &self.hist,
            self.requests,
            self.min_response_ns,
            self.max_response_ns,
            ranks,
        )
    }
}

/// The value at each of `ranks` (1-based, ascending, at most `n`) of the `n` values
/// recorded in `hist`, whose exact smallest and largest are `min` and `max`: the middle
/// of the bucket holding that rank, clamped to `min..=max`; exact for the first and the
/// last rank.
pub(crate) fn hist_at_ranks(
    hist: &Histogram<u64>,
    n: u64,
    min: u64,
    max: u64,
    ranks: &[u64],
) -> Vec<u64> {
    debug_assert!(ranks.windows(2).all(|w| w[0] <= w[1]));
    let mut out = Vec::with_capacity(ranks.len());
    let mut buckets = hist.iter_recorded();
    let (mut seen, mut value) = (0u64, 0u64);
    for &r in ranks {
        while seen < r {
            let Some(b) = buckets.next() else { break };
            seen += b.count_at_value();
            value = hist.median_equivalent(b.value_iterated_to());
        }
        let v = if r >= n {
            max
        } else if r <= 1 {
            min
        } else {
            value.clamp(min, max)
        };
        out.push(v);
    }
    out
}

/// The header line of [`write_requests_csv`].
pub fn write_requests_csv_header(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    writeln!(
        out,
        "id,device,lbn,blocks,op,arrival_ms,dispatch_ms,start_ms,done_ms,response_ms,service_ms,overhead_ms,seek_ms,rotation_ms,transfer_ms,cache_hit"
    )
}

/// One request's line of [`write_requests_csv`] (times in ms), for writing logs as they
/// come after [`write_requests_csv_header`].
pub fn write_request_csv_line(l: &RequestLog, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let ms = |ns: u64| ns as f64 / 1e6;
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
    )
}

/// Writes a header and one CSV line per request (times in ms).
pub fn write_requests_csv(
    logs: &[RequestLog],
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    write_requests_csv_header(out)?;
    for l in logs {
        write_request_csv_line(l, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::hdd::Breakdown;
    use crate::time::SimTime;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A log arriving at `arrival`, started `queue` later, done `service` after that.
    fn log(id: u64, device: u32, arrival: u64, queue: u64, service: u64) -> RequestLog {
        RequestLog {
            id,
            device,
            lbn: 8 * id,
            blocks: 8,
            write: id.is_multiple_of(3),
            arrival: SimTime(arrival),
            dispatch: SimTime(arrival + queue / 2),
            start: SimTime(arrival + queue),
            done: SimTime(arrival + queue + service),
            breakdown: Breakdown {
                overhead_ns: service / 10,
                seek_ns: service / 2,
                rotation_ns: service / 4,
                transfer_ns: service - service / 10 - service / 2 - service / 4,
            },
            cache_hit: id.is_multiple_of(7),
            process: None,
            background: false,
        }
    }

    /// Random logs on `drives` drives (one log of a device beyond them).
    fn random_logs(n: usize, drives: u32, seed: u64) -> Vec<RequestLog> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n as u64)
            .map(|i| {
                let device = if i == 5 {
                    drives
                } else {
                    rng.gen_range(0..drives)
                };
                log(
                    i,
                    device,
                    rng.gen_range(1_000..1_000_000_000_000),
                    rng.gen_range(0..50_000_000),
                    rng.gen_range(0..30_000_000),
                )
            })
            .collect()
    }

    /// The quantile of the exact sorted list: the value at rank `ceil(p * n)`.
    fn exact_quantile(sorted: &[u64], p: f64) -> f64 {
        let n = sorted.len();
        sorted[((p * n as f64).ceil() as usize).clamp(1, n) - 1] as f64 / 1e6
    }

    #[test]
    fn exact_fields_equal_a_direct_computation() {
        for (n, drives) in [(1, 1), (2, 2), (137, 3), (20_000, 4)] {
            let logs = random_logs(n, drives, n as u64);
            let m = Metrics::from_logs(&logs, drives as usize);
            let ms = |ns: u64| ns as f64 / 1e6;
            let sum = |f: &dyn Fn(&RequestLog) -> u64| logs.iter().map(f).sum::<u64>();
            let nf = n as f64;
            assert_eq!(m.requests, n);
            assert_eq!(m.reads, logs.iter().filter(|l| !l.write).count());
            assert_eq!(m.writes, logs.iter().filter(|l| l.write).count());
            assert_eq!(
                m.cache_hit_fraction,
                logs.iter().filter(|l| l.cache_hit).count() as f64 / nf
            );
            assert_eq!(m.mean_response_ms, ms(sum(&|l| l.response_ns())) / nf);
            assert_eq!(m.mean_service_ms, ms(sum(&|l| l.service_ns())) / nf);
            assert_eq!(m.total_disk_time_ms, ms(sum(&|l| l.service_ns())));
            assert_eq!(m.mean_queue_ms, ms(sum(&|l| l.queue_ns())) / nf);
            assert_eq!(
                m.mean_breakdown,
                BreakdownMs {
                    overhead_ms: ms(sum(&|l| l.breakdown.overhead_ns)) / nf,
                    seek_ms: ms(sum(&|l| l.breakdown.seek_ns)) / nf,
                    rotation_ms: ms(sum(&|l| l.breakdown.rotation_ns)) / nf,
                    transfer_ms: ms(sum(&|l| l.breakdown.transfer_ns)) / nf,
                }
            );
            let first = logs.iter().map(|l| l.arrival.0).min().unwrap();
            let last = logs.iter().map(|l| l.done.0).max().unwrap();
            let makespan = ms(last - first);
            assert_eq!(m.makespan_ms, makespan);
            let expected_tput = if makespan > 0.0 {
                nf / (makespan / 1000.0)
            } else {
                0.0
            };
            assert_eq!(m.throughput_per_s, expected_tput);
            let max = logs.iter().map(|l| l.response_ns()).max().unwrap();
            assert_eq!(m.max_response_ms, ms(max));
            let utilization: Vec<f64> = (0..drives)
                .map(|d| {
                    let busy = logs
                        .iter()
                        .filter(|l| l.device == d)
                        .map(|l| l.service_ns())
                        .sum::<u64>();
                    if makespan > 0.0 {
                        ms(busy) / makespan
                    } else {
                        0.0
                    }
                })
                .collect();
            assert_eq!(m.utilization, utilization);
            assert_eq!(m.cdf.len(), n.min(200));
            assert_eq!(m.cdf.last().unwrap(), &(ms(max), 1.0));
        }
    }

    #[test]
    fn empty_and_extra_busy_time() {
        let m = MetricsSink::new(3).finish();
        assert_eq!(m.requests, 0);
        assert_eq!(m.utilization, vec![0.0; 3]);
        assert!(m.cdf.is_empty());
        assert_eq!(m, Metrics::from_logs(&[], 3));

        // Drive 0 serves 1 ms of a 10 ms makespan and destages for 2 ms more.
        let logs = [log(1, 0, 0, 9_000_000, 1_000_000), log(2, 1, 0, 0, 1_000)];
        let mut sink = MetricsSink::new(2);
        for l in &logs {
            sink.record(l);
        }
        assert_eq!(sink.requests(), 2);
        sink.add_busy_ns(0, 2_000_000);
        sink.add_busy_ns(7, 1); // no such drive: ignored
        let m = sink.finish();
        assert_eq!(m.makespan_ms, 10.0);
        assert_eq!(m.utilization, vec![0.3, 1e-3 / 10.0]);
        assert_eq!(
            m.total_disk_time_ms, 1.001,
            "extra busy time is not service"
        );
        // Finishing does not consume: the sink goes on.
        sink.record(&log(3, 1, 0, 0, 20_000_000));
        assert_eq!(sink.finish().requests, 3);
        assert_eq!(sink.finish().max_response_ms, 20.0);
    }

    #[test]
    fn small_response_times_are_exact() {
        // Below 2048 ns the histogram has 1 ns resolution: every quantile is exact.
        let logs: Vec<RequestLog> = (0..1000u64)
            .map(|i| log(i, 0, i, 0, (i * 7919) % 2048))
            .collect();
        let m = Metrics::from_logs(&logs, 1);
        let mut sorted: Vec<u64> = logs.iter().map(RequestLog::response_ns).collect();
        sorted.sort_unstable();
        assert_eq!(m.p50_response_ms, exact_quantile(&sorted, 0.5));
        assert_eq!(m.p90_response_ms, exact_quantile(&sorted, 0.9));
        assert_eq!(m.p99_response_ms, exact_quantile(&sorted, 0.99));
        for (ms, frac) in &m.cdf {
            assert_eq!(*ms, exact_quantile(&sorted, *frac));
        }
    }

    /// A response time spread log-uniformly over 1 µs..100 s.
    fn response_ns() -> impl Strategy<Value = u64> {
        (0.0..=1.0f64).prop_map(|u| (1e3 * 1e8f64.powf(u)).round() as u64)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Every quantile and CDF point within 1/2048 (the documented bound; < 0.1 %)
        /// of the value at the same rank of the exact sorted list.
        #[test]
        fn quantiles_are_within_the_bound(
            resp in prop::collection::vec(response_ns(), 1..3000),
            dup in 0..4usize,
        ) {
            // Some repeated values too (ties across ranks).
            let mut resp = resp;
            for i in 0..resp.len() / 2 * dup / 4 {
                resp[2 * i + 1] = resp[2 * i];
            }
            let logs: Vec<RequestLog> = resp
                .iter()
                .enumerate()
                .map(|(i, &r)| log(i as u64, 0, i as u64 * 1000, r / 3, r - r / 3))
                .collect();
            let m = Metrics::from_logs(&logs, 1);
            let mut sorted = resp.clone();
            sorted.sort_unstable();
            let close = |got: f64, p: f64| {
                let want = exact_quantile(&sorted, p);
                let err = (got - want).abs();
                prop_assert!(
                    err <= want / 2048.0 * (1.0 + 1e-9) && err <= want * 1e-3,
                    "p {p}: got {got} ms, exact {want} ms"
                );
                Ok(())
            };
            close(m.p50_response_ms, 0.5)?;
            close(m.p90_response_ms, 0.9)?;
            close(m.p99_response_ms, 0.99)?;
            close(m.max_response_ms, 1.0)?;
            prop_assert_eq!(m.max_response_ms, *sorted.last().unwrap() as f64 / 1e6);
            let points = resp.len().min(200);
            prop_assert_eq!(m.cdf.len(), points);
            for (k, &(ms, frac)) in m.cdf.iter().enumerate() {
                prop_assert_eq!(frac, (k + 1) as f64 / points as f64);
                close(ms, frac)?;
            }
            prop_assert!(m.cdf.windows(2).all(|w| w[0].0 <= w[1].0));
        }
    }

    #[test]
    fn memory_does_not_grow_with_the_count() {
        let mut sink = MetricsSink::new(2);
        // The range first (1 µs and 100 s), so the histogram has its full size.
        sink.record(&log(0, 0, 0, 0, 1_000));
        sink.record(&log(1, 1, 0, 0, 100_000_000_000));
        let size = sink.hist.distinct_values();
        assert!(size < 40_000, "{size} counters for 1 µs..100 s");
        // Then 10 million more, spread over the range (a cheap LCG; log-ish spread).
        let n = 10_000_000u64;
        let mut x = 12345u64;
        let mut template = log(2, 0, 0, 0, 0);
        for i in 0..n {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let resp = (1_000u64 << ((x >> 59) % 27)) | ((x >> 40) & 0x3ff);
            template.id = i;
            template.device = (x & 1) as u32;
            template.done = SimTime(resp.min(100_000_000_000));
            sink.record(&template);
        }
        assert_eq!(sink.hist.distinct_values(), size);
        assert_eq!(sink.hist.len(), n + 2);
        assert_eq!(sink.requests(), n + 2);
        let m = sink.finish();
        assert_eq!(m.requests as u64, n + 2);
        assert_eq!(m.max_response_ms, 100_000.0);
        assert_eq!(m.cdf.len(), 200);
    }

    #[test]
    fn csv_lines_stream_the_same_bytes() {
        let logs = [
            RequestLog {
                id: 7,
                device: 1,
                lbn: 1234,
                blocks: 8,
                write: true,
                arrival: SimTime(1_000_000),
                dispatch: SimTime(1_500_000),
                start: SimTime(2_000_000),
                done: SimTime(3_250_000),
                breakdown: Breakdown {
                    overhead_ns: 100_000,
                    seek_ns: 500_000,
                    rotation_ns: 400_000,
                    transfer_ns: 250_000,
                },
                cache_hit: false,
                process: Some(3),
                background: false,
            },
            RequestLog {
                write: false,
                cache_hit: true,
                id: 8,
                done: SimTime(2_000_001),
                ..log(8, 0, 0, 0, 0)
            },
        ];
        let mut all = Vec::new();
        write_requests_csv(&logs, &mut all).unwrap();
        let expected = "id,device,lbn,blocks,op,arrival_ms,dispatch_ms,start_ms,done_ms,response_ms,service_ms,overhead_ms,seek_ms,rotation_ms,transfer_ms,cache_hit\n\
            7,1,1234,8,W,1.000000,1.500000,2.000000,3.250000,2.250000,1.250000,0.100000,0.500000,0.400000,0.250000,0\n\
            8,0,64,8,R,0.000000,0.000000,0.000000,2.000001,2.000001,2.000001,0.000000,0.000000,0.000000,0.000000,1\n";
        assert_eq!(String::from_utf8(all.clone()).unwrap(), expected);
        let mut streamed = Vec::new();
        write_requests_csv_header(&mut streamed).unwrap();
        for l in &logs {
            write_request_csv_line(l, &mut streamed).unwrap();
        }
        assert_eq!(streamed, all);
    }
}
