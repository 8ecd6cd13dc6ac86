//! A run summarised the way fio's JSON output (`fio --output-format=json`) summarises
//! a job, so fio's tooling and habits apply to spindle runs.
//!
//! [`FioSummary`] is fed every completed [`RequestLog`], one at a time, and keeps per
//! direction (read, write) what fio's `jobs[i].read` / `jobs[i].write` objects hold.
//! Key names and value types are fio's (fio 3.x `stat.c`, `add_ddir_status_json` and
//! `add_ddir_lat_json`): `io_bytes`, `io_kbytes`, `bw_bytes` (bytes/s), `bw` (KiB/s),
//! `iops`, `runtime` (ms), `total_ios`, `short_ios`, `drop_ios`, and three latency
//! objects `slat_ns`, `clat_ns`, `lat_ns`, each with `min`, `max` (integer ns),
//! `mean`, `stddev` (ns, sample standard deviation as fio's `calc_lat`: divided by
//! N − 1), `N` and `percentile` keyed as fio keys it (`"%f"` of the percentile:
//! `"1.000000"` … `"99.990000"`, fio's default list), valued in integer ns. As in fio,
//! a direction without I/O has zeros and no `percentile` object.
//!
//! # What fio's latencies mean here
//!
//! fio defines (HOWTO "Interpreting the output", and fio's `io_u` timestamps):
//! *slat*, submission latency, the time to submit the I/O (`issue_time −
//! start_time`); *clat*, completion latency, from submission to completion; *lat*,
//! total latency, from when the I/O was created to completion (`slat + clat`).
//! In a spindle stack a request is created when it arrives at the host (`arrival`),
//! is issued to the device below when the host queue's scheduler sends it
//! (`dispatch`), and completes at `done`. So:
//!
//! * `lat_ns`  = `done − arrival`, the response time (the same value as
//!   [`crate::stack::metrics::Metrics`]'s response times);
//! * `slat_ns` = `dispatch − arrival`, the wait in the host queue before the request
//!   was issued below;
//! * `clat_ns` = `done − dispatch`, from issue to the device until completion: the
//!   device's own queue (a drive's command queue at queue depth > 1) and its service.
//!
//! `lat = slat + clat` holds exactly for every request, as in fio. (A stack's service
//! time `done − start`, the time the drive worked on a request, is spindle's "at disk"
//! figure; it equals `clat` when the drive holds one request at a time.) Percentiles are
//! kept for all three, as fio does with `slat_percentiles=1`, `clat_percentiles=1` and
//! `lat_percentiles=1`.
//!
//! `runtime` is the run's makespan (first arrival to last completion) in whole ms, the
//! same for both directions as for one fio job; `bw_bytes` and `iops` divide by the
//! makespan in ns (fio divides by whole ms), 0 for a run of no time. Background
//! requests a freeblock scheduler makes up itself are not the workload's I/O and are not
//! counted (fio's job never sees them).
//!
//! Left out (no meaning in a simulation, or not kept): the `trim` and `sync`
//! directions, the per-interval bandwidth and IOPS samples (`bw_min` … `iops_samples`),
//! CPU use, I/O depth and latency-bucket distributions, `disk_util`, and the root's
//! timestamps (a run's output is the same for the same seed).
//!
//! # Precision and memory
//!
//! Counts, byte totals, `min`, `max` and `mean` are exact (integer sums in `u128`);
//! `stddev` is Welford's running variance in `f64` (relative error about 1e-12).
//! Percentiles come from an [`hdrhistogram`] with 3 significant digits per latency kind
//! and direction, read as [`crate::stack::metrics::MetricsSink`] reads its quantiles:
//! the value at rank `ceil(p / 100 · N)` (fio's rank: the first bucket whose cumulative
//! count reaches `p / 100 · N`) is the middle of the bucket holding that rank, clamped
//! to the exact `min` and `max`; so a reported percentile `r` and the exact one `v`
//! satisfy `|r − v| <= v / 2048` (< 0.05 %), and `r == v` below 2048 ns. fio's own
//! histogram is coarser (up to 1/64, 1.6 %). Memory is six histograms whose size depends
//! on the largest latency (about 224 KiB each for latencies up to 100 s), never on the
//! number of requests.

use super::metrics::{hist_at_ranks, RequestLog};
use hdrhistogram::Histogram;
use serde_json::{json, Map, Value};

/// fio's default percentile list (`percentile_list`), in percent.
pub const PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// Bytes of one sector (a request's `blocks`).
const SECTOR_BYTES: u64 = 512;

/// One latency kind of one direction: exact moments and a histogram.
#[derive(Clone, Debug)]
struct Lat {
    hist: Buckets,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
    /// Welford's running mean and sum of squared deviations (ns, ns²).
    w_mean: f64,
    w_m2: f64,
}

/// Counts per bucket of an [`hdrhistogram`] with 3 significant digits (lowest
/// discernible value 1): the same buckets, counted with a few instructions per value
/// (a request's summary records three values, and `Histogram::record`'s range checks,
/// resizing and min/max tracking were most of a summary's cost). Turned into the
/// `Histogram` only when percentiles are read, so they are the same to the bit.
#[derive(Clone, Debug, Default)]
struct Buckets {
    counts: Vec<u64>,
}

/// `Histogram::<u64>::new(3)`'s layout: 2048 sub-buckets (log2 = 11), half of them
/// (log2 = 10) used per bucket above the first, unit magnitude 0.
const SUB_BUCKET_MASK: u64 = 2047;
const HALF_MAGNITUDE: u32 = 10;
const HALF_COUNT: u64 = 1 << HALF_MAGNITUDE;
/// 64 − unit magnitude − log2(sub-bucket count).
const LEADING_ZERO_BASE: u32 = 53;

impl Buckets {
    /// The index of `v`'s bucket, as `Histogram::index_for` computes it.
    #[inline]
    fn index(v: u64) -> usize {
        let bucket = LEADING_ZERO_BASE - (v | SUB_BUCKET_MASK).leading_zeros();
        let sub = v >> bucket;
        (((u64::from(bucket) + 1) << HALF_MAGNITUDE) + sub - HALF_COUNT) as usize
    }

    /// The lowest value of bucket `i` (`Histogram::value_for`).
    fn value(i: usize) -> u64 {
        let bucket = (i >> HALF_MAGNITUDE) as i64 - 1;
        let sub = (i as u64 & (HALF_COUNT - 1)) + HALF_COUNT;
        if bucket < 0 {
            sub - HALF_COUNT
        } else {
            sub << bucket
        }
    }

    #[inline]
    fn record(&mut self, v: u64) {
        let i = Buckets::index(v);
        if i >= self.counts.len() {
            // At most 56,320 buckets (u64::MAX's index + 1): 440 KiB.
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
    }

    /// The same counts as an `hdrhistogram`.
    fn histogram(&self) -> Histogram<u64> {
        let mut h = Histogram::new(3).expect("3 significant digits are supported");
        for (i, &c) in self.counts.iter().enumerate() {
            if c > 0 && h.record_n(Buckets::value(i), c).is_err() {
                // Beyond what the histogram can resize to: counted at its top.
                h.saturating_record_n(Buckets::value(i), c);
            }
        }
        h
    }
}

impl Lat {
    fn new() -> Lat {
        Lat {
            hist: Buckets::default(),
            n: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
            w_mean: 0.0,
            w_m2: 0.0,
        }
    }

    #[inline]
    fn record(&mut self, v: u64) {
        self.n += 1;
        self.sum += u128::from(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        let x = v as f64;
        let d = x - self.w_mean;
        self.w_mean += d / self.n as f64;
        self.w_m2 += d * (x - self.w_mean);
        self.hist.record(v);
    }

    fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    fn stddev(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            (self.w_m2.max(0.0) / (self.n - 1) as f64).sqrt()
        }
    }

    /// The value (ns) at each of fio's percentiles.
    fn percentiles(&self) -> Vec<u64> {
        let n = self.n as f64;
        let ranks: Vec<u64> = PERCENTILES
            .iter()
            .map(|p| ((p / 100.0 * n).ceil() as u64).clamp(1, self.n))
            .collect();
        hist_at_ranks(&self.hist.histogram(), self.n, self.min, self.max, &ranks)
    }

    fn to_json(&self) -> Value {
        let mut o = Map::new();
        let (min, max) = if self.n == 0 {
            (0, 0)
        } else {
            (self.min, self.max)
        };
        o.insert("min".into(), json!(min));
        o.insert("max".into(), json!(max));
        o.insert("mean".into(), json!(self.mean()));
        o.insert("stddev".into(), json!(self.stddev()));
        o.insert("N".into(), json!(self.n));
        if self.n > 0 {
            let p: Map<String, Value> = PERCENTILES
                .iter()
                .zip(self.percentiles())
                .map(|(p, v)| (percentile_key(*p), json!(v)))
                .collect();
            o.insert("percentile".into(), Value::Object(p));
        }
        Value::Object(o)
    }
}

/// A percentile as fio keys it: C's `"%f"` (six decimals).
pub fn percentile_key(p: f64) -> String {
    format!("{p:.6}")
}

/// One direction's totals and latencies.
#[derive(Clone, Debug)]
struct Dir {
    ios: u64,
    bytes: u64,
    slat: Lat,
    clat: Lat,
    lat: Lat,
}

impl Dir {
    fn new() -> Dir {
        Dir {
            ios: 0,
            bytes: 0,
            slat: Lat::new(),
            clat: Lat::new(),
            lat: Lat::new(),
        }
    }

    fn to_json(&self, makespan_ns: u64) -> Value {
        let (bw_bytes, iops) = if makespan_ns > 0 {
            (
                (u128::from(self.bytes) * 1_000_000_000 / u128::from(makespan_ns)) as u64,
                self.ios as f64 * 1e9 / makespan_ns as f64,
            )
        } else {
            (0, 0.0)
        };
        json!({
            "io_bytes": self.bytes,
            "io_kbytes": self.bytes >> 10,
            "bw_bytes": bw_bytes,
            "bw": bw_bytes / 1024,
            "iops": iops,
            "runtime": runtime_ms(makespan_ns),
            "total_ios": self.ios,
            "short_ios": 0,
            "drop_ios": 0,
            "slat_ns": self.slat.to_json(),
            "clat_ns": self.clat.to_json(),
            "lat_ns": self.lat.to_json(),
        })
    }
}

/// Nanoseconds as whole milliseconds, rounded to nearest.
fn runtime_ms(ns: u64) -> u64 {
    (ns + 500_000) / 1_000_000
}

/// fio's per-job summary, computed online in bounded memory (see the module doc).
#[derive(Clone, Debug)]
pub struct FioSummary {
    read: Dir,
    write: Dir,
    /// Earliest arrival (`u64::MAX` before the first log) and latest completion.
    first_arrival_ns: u64,
    last_done_ns: u64,
}

impl Default for FioSummary {
    fn default() -> Self {
        FioSummary::new()
    }
}

impl FioSummary {
    pub fn new() -> FioSummary {
        FioSummary {
            read: Dir::new(),
            write: Dir::new(),
            first_arrival_ns: u64::MAX,
            last_done_ns: 0,
        }
    }

    /// Counts one completed request (background requests are skipped).
    #[inline]
    pub fn record(&mut self, log: &RequestLog) {
        if log.background {
            return;
        }
        let d = if log.write {
            &mut self.write
        } else {
            &mut self.read
        };
        d.ios += 1;
        d.bytes += u64::from(log.blocks) * SECTOR_BYTES;
        // The engine's times are ordered (arrival <= dispatch <= done); saturate anyway.
        let slat = log.dispatch.0.saturating_sub(log.arrival.0);
        let clat = log.done.0.saturating_sub(log.dispatch.0);
        d.slat.record(slat);
        d.clat.record(clat);
        d.lat.record(slat + clat);
        self.first_arrival_ns = self.first_arrival_ns.min(log.arrival.0);
        self.last_done_ns = self.last_done_ns.max(log.done.0);
    }

    /// Requests counted so far (both directions).
    pub fn total_ios(&self) -> u64 {
        self.read.ios + self.write.ios
    }

    /// First arrival to last completion, ns (0 before any request).
    pub fn makespan_ns(&self) -> u64 {
        self.last_done_ns.saturating_sub(self.first_arrival_ns)
    }

    /// fio's `jobs[i]` object: `jobname`, `groupid`, `error`, `job options` (the
    /// given name–value pairs, as strings like fio's), `read`, `write` and
    /// `job_runtime` (ms).
    pub fn job_json(&self, jobname: &str, options: &[(String, String)]) -> Value {
        let m = self.makespan_ns();
        let opts: Map<String, Value> = options
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        json!({
            "jobname": jobname,
            "groupid": 0,
            "error": 0,
            "job options": opts,
            "read": self.read.to_json(m),
            "write": self.write.to_json(m),
            "job_runtime": runtime_ms(m),
        })
    }

    /// fio's whole output for one job: `{"fio version": "spindle-<version>", "jobs":
    /// [job]}` (see [`FioSummary::job_json`]).
    pub fn to_json(&self, jobname: &str, options: &[(String, String)]) -> Value {
        json!({
            "fio version": format!("spindle-{}", env!("CARGO_PKG_VERSION")),
            "jobs": [self.job_json(jobname, options)],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::hdd::Breakdown;
    use crate::time::SimTime;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A request arriving at `arrival`, issued `slat` later, done `clat` after that.
    fn log(id: u64, write: bool, blocks: u32, arrival: u64, slat: u64, clat: u64) -> RequestLog {
        RequestLog {
            id,
            device: 0,
            lbn: id * 8,
            blocks,
            write,
            arrival: SimTime(arrival),
            dispatch: SimTime(arrival + slat),
            start: SimTime(arrival + slat + clat / 3),
            done: SimTime(arrival + slat + clat),
            breakdown: Breakdown::default(),
            cache_hit: false,
            process: None,
            background: false,
        }
    }

    fn summary(logs: &[RequestLog]) -> Value {
        let mut s = FioSummary::new();
        for l in logs {
            s.record(l);
        }
        s.to_json("job", &[("rw".into(), "randrw".into())])
    }

    #[test]
    fn hand_made_logs_give_exact_totals_and_moments() {
        // Reads: clat 1000, 2000, 3000 ns; slat 0, 10, 20; 8 sectors each.
        // One write of 1 sector: slat 5, clat 7. Makespan: 0 .. 1_000_000_000 (1 s).
        let logs = [
            log(0, false, 8, 0, 0, 1000),
            log(1, false, 8, 100, 10, 2000),
            log(2, false, 8, 200, 20, 3000),
            log(3, true, 1, 999_999_988, 5, 7),
        ];
        let v = summary(&logs);
        assert_eq!(
            v["fio version"],
            json!(format!("spindle-{}", env!("CARGO_PKG_VERSION")))
        );
        let job = &v["jobs"][0];
        assert_eq!(job["jobname"], "job");
        assert_eq!(job["job options"]["rw"], "randrw");
        assert_eq!(job["job_runtime"], 1000);
        let r = &job["read"];
        assert_eq!(r["total_ios"], 3);
        assert_eq!(r["io_bytes"], 3 * 8 * 512);
        assert_eq!(r["io_kbytes"], 12);
        assert_eq!(r["bw_bytes"], 12288);
        assert_eq!(r["bw"], 12);
        assert_eq!(r["iops"], 3.0);
        assert_eq!(r["runtime"], 1000);
        let c = &r["clat_ns"];
        assert_eq!(
            (c["min"].as_u64(), c["max"].as_u64()),
            (Some(1000), Some(3000))
        );
        assert_eq!(c["mean"], 2000.0);
        assert_eq!(c["stddev"], 1000.0);
        assert_eq!(c["N"], 3);
        let l = &r["lat_ns"];
        assert_eq!(
            (l["min"].as_u64(), l["max"].as_u64()),
            (Some(1000), Some(3020))
        );
        assert_eq!(l["mean"], 2010.0);
        assert_eq!(r["slat_ns"]["mean"], 10.0);
        assert_eq!(r["slat_ns"]["stddev"], 10.0);
        // Below 2048 ns percentiles are exact; rank ceil(p/100 * 3).
        let p = &c["percentile"];
        assert_eq!(p.as_object().unwrap().len(), 17);
        assert_eq!(p["1.000000"], 1000);
        assert_eq!(p["30.000000"], 1000);
        assert_eq!(p["40.000000"], 2000);
        assert_eq!(p["60.000000"], 2000);
        assert_eq!(p["70.000000"], 3000);
        assert_eq!(p["99.990000"], 3000);
        let w = &job["write"];
        assert_eq!(w["total_ios"], 1);
        assert_eq!(w["io_bytes"], 512);
        assert_eq!(w["clat_ns"]["stddev"], 0.0);
        assert_eq!(w["lat_ns"]["min"], 12);
        assert_eq!(w["lat_ns"]["percentile"]["50.000000"], 12);
    }

    #[test]
    fn fio_keys_exactly() {
        let keys: Vec<String> = PERCENTILES.iter().map(|&p| percentile_key(p)).collect();
        assert_eq!(
            keys,
            [
                "1.000000",
                "5.000000",
                "10.000000",
                "20.000000",
                "30.000000",
                "40.000000",
                "50.000000",
                "60.000000",
                "70.000000",
                "80.000000",
                "90.000000",
                "95.000000",
                "99.000000",
                "99.500000",
                "99.900000",
                "99.950000",
                "99.990000"
            ]
        );
        let v = summary(&[log(0, false, 8, 0, 1, 2)]);
        let mut dir: Vec<&String> = v["jobs"][0]["read"].as_object().unwrap().keys().collect();
        dir.sort();
        assert_eq!(
            dir,
            [
                "bw",
                "bw_bytes",
                "clat_ns",
                "drop_ios",
                "io_bytes",
                "io_kbytes",
                "iops",
                "lat_ns",
                "runtime",
                "short_ios",
                "slat_ns",
                "total_ios"
            ]
        );
        let mut lat: Vec<&String> = v["jobs"][0]["read"]["clat_ns"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        lat.sort();
        assert_eq!(lat, ["N", "max", "mean", "min", "percentile", "stddev"]);
    }

    #[test]
    fn an_empty_direction_is_zeros_without_percentiles() {
        let v = summary(&[log(0, false, 8, 0, 1, 2)]);
        let w = &v["jobs"][0]["write"];
        assert_eq!(w["total_ios"], 0);
        assert_eq!(w["iops"], 0.0);
        for k in ["slat_ns", "clat_ns", "lat_ns"] {
            assert_eq!(
                w[k],
                json!({"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0})
            );
        }
        // No requests at all, or a run of no time: no division by zero.
        let e = summary(&[]);
        assert_eq!(e["jobs"][0]["read"]["bw_bytes"], 0);
        assert_eq!(e["jobs"][0]["job_runtime"], 0);
        let mut bg = log(1, true, 8, 0, 1, 2);
        bg.background = true;
        assert_eq!(summary(&[bg])["jobs"][0]["write"]["total_ios"], 0);
    }

    /// The buckets count every value where `Histogram::record` counts it: the same
    /// histogram, bucket for bucket, so the percentiles are the same to the bit.
    #[test]
    fn buckets_are_the_histograms_buckets() {
        let mut edges = vec![
            0u64,
            1,
            2,
            1023,
            1024,
            2047,
            2048,
            2049,
            4095,
            4096,
            u64::MAX,
        ];
        for k in 1..64 {
            let p = 1u64 << k;
            edges.extend([p - 1, p, p + 1, p + p / 3]);
        }
        for seed in [1u64, 5, 42] {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut values = edges.clone();
            values.extend((0..20_000).map(|_| rng.gen::<u64>() >> rng.gen_range(0..64)));
            let mut direct = Histogram::<u64>::new(3).unwrap();
            let mut b = Buckets::default();
            for &v in &values {
                direct.record(v).unwrap();
                b.record(v);
                assert_eq!(
                    Buckets::value(Buckets::index(v)),
                    direct.lowest_equivalent(v),
                    "{v}"
                );
            }
            let ours = b.histogram();
            let rec = |h: &Histogram<u64>| -> Vec<(u64, u64)> {
                h.iter_recorded()
                    .map(|x| (x.value_iterated_to(), x.count_at_value()))
                    .collect()
            };
            assert_eq!(rec(&ours), rec(&direct));
            assert_eq!(ours.len(), direct.len());
        }
    }

    /// The exact sorted-list value at fio's rank `ceil(p / 100 · n)`.
    fn exact(sorted: &[u64], p: f64) -> u64 {
        let n = sorted.len();
        sorted[((p / 100.0 * n as f64).ceil() as usize).clamp(1, n) - 1]
    }

    #[test]
    fn random_logs_match_a_direct_computation() {
        for seed in [1u64, 2, 3, 17, 99] {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let n = rng.gen_range(1..5000);
            let logs: Vec<RequestLog> = (0..n)
                .map(|i| {
                    // Log-spread latencies, 100 ns .. 10 s.
                    let write = rng.gen_bool(0.3);
                    let blocks = rng.gen_range(1..257);
                    let mut lg = |lo: f64, hi: f64| (lo * (hi / lo).powf(rng.gen::<f64>())) as u64;
                    let (slat, clat) = (lg(1.0, 1e8), lg(100.0, 1e10));
                    log(i, write, blocks, lg(1.0, 1e12), slat, clat)
                })
                .collect();
            let v = summary(&logs);
            let job = &v["jobs"][0];
            let first = logs.iter().map(|l| l.arrival.0).min().unwrap();
            let last = logs.iter().map(|l| l.done.0).max().unwrap();
            let makespan = last - first;
            for (dir, write) in [("read", false), ("write", true)] {
                let d: Vec<&RequestLog> = logs.iter().filter(|l| l.write == write).collect();
                let o = &job[dir];
                let bytes: u64 = d.iter().map(|l| l.blocks as u64 * 512).sum();
                assert_eq!(o["total_ios"], d.len() as u64);
                assert_eq!(o["io_bytes"], bytes);
                assert_eq!(
                    o["bw_bytes"],
                    (bytes as u128 * 1_000_000_000 / makespan as u128) as u64
                );
                assert_eq!(o["iops"], d.len() as f64 * 1e9 / makespan as f64);
                type Get = fn(&RequestLog) -> u64;
                let kinds: [(&str, Get); 3] = [
                    ("slat_ns", |l| l.dispatch.0 - l.arrival.0),
                    ("clat_ns", |l| l.done.0 - l.dispatch.0),
                    ("lat_ns", |l| l.done.0 - l.arrival.0),
                ];
                for (k, get) in kinds {
                    let mut xs: Vec<u64> = d.iter().map(|l| get(l)).collect();
                    xs.sort_unstable();
                    let o = &o[k];
                    assert_eq!(o["N"], xs.len() as u64);
                    if xs.is_empty() {
                        assert!(o.get("percentile").is_none());
                        continue;
                    }
                    assert_eq!(o["min"], xs[0]);
                    assert_eq!(o["max"], *xs.last().unwrap());
                    let sum: u128 = xs.iter().map(|&x| x as u128).sum();
                    let mean = sum as f64 / xs.len() as f64;
                    assert_eq!(o["mean"], mean);
                    if xs.len() > 1 {
                        let var = xs.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>()
                            / (xs.len() - 1) as f64;
                        let sd = o["stddev"].as_f64().unwrap();
                        assert!(
                            (sd - var.sqrt()).abs() <= 1e-9 * var.sqrt().max(1.0),
                            "{sd}"
                        );
                    }
                    for p in PERCENTILES {
                        let got = o["percentile"][percentile_key(p)].as_u64().unwrap() as f64;
                        let want = exact(&xs, p) as f64;
                        assert!(
                            (got - want).abs() <= want / 2048.0 + 1e-9,
                            "seed {seed} {dir} {k} p{p}: got {got}, exact {want}"
                        );
                    }
                }
            }
        }
    }
}
