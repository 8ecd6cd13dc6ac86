//! Disk Mimic: a data-driven disk model (thesis ch. 2–3, catalog ALG-MIMIC).
//!
//! The Mimic predicts a request's service time from what it has *observed* of the
//! device — never from the simulator's internals. Its table is keyed by the previous
//! and current operation (read/write) and the signed inter-request distance (first LBN
//! of the current request minus the last LBN of the previous one); each entry
//! summarises the service times seen at that key by a metric: mean, median, maximum,
//! minimum, or a random draw from the samples ("probabilistic").
//!
//! Off-line configuration probes the device through [`ProbeDevice`]: before each probe
//! pair a random access defeats caching and prefetch, then the pair (A, B) is issued
//! back to back and B's service time recorded. Distances are probed when a scheduler
//! first asks for them, on a device of its own: the same entries an exhaustive
//! up-front probe would hold for those distances, without probing the billions of
//! distances a workload never uses.

pub mod minimimic;
pub mod real_device;
pub mod rotation;
pub mod smtf;
pub mod table;

use crate::disk::hdd::{Hdd, Request};
use crate::time::SimTime;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// How a table entry's samples become one predicted time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    Mean,
    Median,
    Max,
    Min,
    /// A random draw from the observed samples.
    Probabilistic,
}

impl Metric {
    pub const ALL: [Metric; 5] = [
        Metric::Mean,
        Metric::Median,
        Metric::Max,
        Metric::Probabilistic,
        Metric::Min,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Metric::Mean => "mean",
            Metric::Median => "median",
            Metric::Max => "max",
            Metric::Min => "min",
            Metric::Probabilistic => "prob",
        }
    }
}

impl FromStr for Metric {
    type Err = String;
    fn from_str(s: &str) -> Result<Metric, String> {
        match s {
            "mean" => Ok(Metric::Mean),
            "median" => Ok(Metric::Median),
            "max" | "maximum" => Ok(Metric::Max),
            "min" | "minimum" => Ok(Metric::Min),
            "prob" | "probabilistic" => Ok(Metric::Probabilistic),
            other => Err(format!(
                "unknown summary metric `{other}` (mean, median, max, min, prob)"
            )),
        }
    }
}

/// Anything that can serve a request and report when it completed: a simulated drive
/// now, a real block device later. The Mimic sees nothing else.
pub trait ProbeDevice {
    /// Issues `req` at `at` and returns its completion time.
    fn access(&mut self, at: SimTime, req: Request) -> SimTime;
    /// Addressable 512-byte sectors.
    fn capacity(&self) -> u64;
}

impl ProbeDevice for Hdd {
    fn access(&mut self, at: SimTime, req: Request) -> SimTime {
        self.service(at, req).done
    }
    fn capacity(&self) -> u64 {
        Hdd::capacity(self)
    }
}

/// The observed service times at one key, sorted (ns).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Entry {
    samples: Vec<u32>,
    mean: u32,
    /// Observations behind the mean.
    count: u64,
}

impl Entry {
    fn new(mut samples: Vec<u32>) -> Entry {
        samples.sort_unstable();
        let mean =
            (samples.iter().map(|&s| s as u64).sum::<u64>() / samples.len().max(1) as u64) as u32;
        let count = samples.len() as u64;
        Entry {
            samples,
            mean,
            count,
        }
    }

    fn value(&self, metric: Metric, rng: &mut ChaCha8Rng) -> u32 {
        let s = &self.samples;
        match metric {
            Metric::Mean => self.mean,
            Metric::Median => s.get(s.len() / 2).copied().unwrap_or(0),
            Metric::Max => s.last().copied().unwrap_or(0),
            Metric::Min => s.first().copied().unwrap_or(0),
            Metric::Probabilistic => {
                if s.is_empty() {
                    0
                } else {
                    s[rng.gen_range(0..s.len())]
                }
            }
        }
    }
}

/// The grid interval of `width` sectors holding `dist`, clipped to the signed range
/// `-cap..=cap`: `[k·width, (k+1)·width]`.
fn cell(dist: i64, width: i64, cap: i64) -> (i64, i64) {
    let l = dist.div_euclid(width) * width;
    (l.max(-cap), (l + width).min(cap))
}

/// A probe sample whose pair of requests does not fit on the device: not a time, and
/// the largest value so that SMTF never prefers such a distance. Measured times are
/// kept below it.
pub const DOES_NOT_FIT: u32 = u32::MAX;

/// Whether a probe pair of `b`-sector requests, the second starting `dist` sectors
/// past the first one's last sector, fits on a device of `cap` sectors.
pub fn pair_fits(cap: u64, b: u64, dist: i64) -> bool {
    pair_range(cap, b.max(1), dist).is_some()
}

/// Where the first request of a probe pair may start: `lo..hi`, if anywhere.
fn pair_range(cap: u64, b: u64, dist: i64) -> Option<(u64, u64)> {
    // A at x, B at x + b − 1 + dist; both within the device.
    let lo = (-(dist.min(0)) as u64).saturating_sub(b - 1);
    let hi = cap
        .saturating_sub(b)
        .saturating_sub((dist.max(0) as u64) + b - 1);
    (hi > lo).then_some((lo, hi))
}

/// Thesis Table 3.2: check points and the error each number of them may show.
pub const TABLE_3_2: &[(u32, f64)] = &[
    (1, 0.01),
    (2, 0.02),
    (3, 0.05),
    (4, 0.10),
    (5, 0.15),
    (10, 0.20),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    Accepted,
    /// Rejected: the two halves either side of this (probed) check point are examined.
    Split(i64),
}

/// Interpolation state: how each examined interval was decided.
struct Interp {
    rungs: Vec<(u32, f64)>,
    nodes: HashMap<(bool, bool, i64, i64), Node>,
    interpolated: u64,
    /// Per operation pair, what the dense probes taught: the widest interval the
    /// ladder may examine.
    learned: HashMap<(bool, bool), Learned>,
}

/// The interval limit learned for one operation pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Learned {
    /// Widest interval examined: the median of the windows' saw-tooth periods (a
    /// window that showed none counts as its length).
    width: i64,
    /// Whether `width` is a measured period (false: a window's length, a fallback).
    periodic: bool,
}

/// Each dense probe window that measures the saw-tooth period starts
/// `PERIOD_WINDOW_MIN` distances long and doubles until the period fits in it four
/// times, up to `PERIOD_WINDOW_MAX`.
pub const PERIOD_WINDOW_MIN: i64 = 1 << 10;
/// See [`PERIOD_WINDOW_MIN`].
pub const PERIOD_WINDOW_MAX: i64 = 1 << 15;

/// The period of a series sampled at unit spacing: the lag of the highest (biased)
/// autocorrelation after the first lag at which it turns negative, if that
/// autocorrelation is positive. The biased estimator shrinks with the lag, so the
/// fundamental beats its multiples.
pub fn period(x: &[f64]) -> Option<i64> {
    let n = x.len();
    if n < 4 {
        return None;
    }
    let mean = x.iter().sum::<f64>() / n as f64;
    let y: Vec<f64> = x.iter().map(|v| v - mean).collect();
    let var: f64 = y.iter().map(|v| v * v).sum();
    if var <= 0.0 {
        return None;
    }
    let mut crossed = false;
    let mut best: Option<(usize, f64)> = None;
    for lag in 1..n / 2 {
        let r = y[..n - lag]
            .iter()
            .zip(&y[lag..])
            .map(|(a, b)| a * b)
            .sum::<f64>()
            / var;
        if !crossed {
            crossed = r < 0.0;
            continue;
        }
        match best {
            Some((_, b)) if b >= r => {}
            _ => best = Some((lag, r)),
        }
    }
    best.filter(|&(_, r)| r > 0.0).map(|(lag, _)| lag as i64)
}

/// Observations an on-line entry keeps for its order statistics.
pub const ONLINE_SAMPLES: u32 = 32;

/// Table key: (previous was a write, current is a write, signed distance in sectors).
pub type Key = (bool, bool, i64);

/// The Mimic's table and how it is filled.
pub struct DiskMimic {
    /// The device probed off-line; `None` for a Mimic that learns on-line only.
    device: Option<Box<dyn ProbeDevice + Send>>,
    table: HashMap<Key, Entry>,
    /// Samples per probed distance.
    pub samples: u32,
    /// Probe request size (sectors): "e.g. 1 KB".
    pub probe_blocks: u32,
    pub metric: Metric,
    rng: ChaCha8Rng,
    clock: SimTime,
    probes_issued: u64,
    interp: Option<Interp>,
    /// A table loaded from a file: per operation pair its probed distances, sorted,
    /// to interpolate the distances it lacks (see [`DiskMimic::from_table`]).
    loaded: Option<HashMap<(bool, bool), Vec<i64>>>,
    /// Probe with reads only (the random access before each pair is a read too): a
    /// real device whose data must not be written.
    reads_only: bool,
}

impl DiskMimic {
    /// A Mimic whose table is `t` (a file `spindle mimic probe` wrote, of a simulated
    /// or a real device), with no device to probe. A distance the table holds is
    /// answered from its samples by `metric`; one it lacks, by linear interpolation
    /// between the nearest probed distances either side for the same operation pair
    /// (the nearest one's value beyond the last); a pair the table lacks (writes, when
    /// only reads were probed) uses the pair with the same current operation, else any
    /// probed pair.
    pub fn from_table(t: &table::MimicTable, metric: Metric, seed: u64) -> DiskMimic {
        let mut m = DiskMimic::with_device(None, t.samples_per_distance, metric, seed);
        m.probe_blocks = t.probe_sectors;
        let mut loaded: HashMap<(bool, bool), Vec<i64>> = HashMap::default();
        for e in &t.entries {
            m.table.insert(
                (e.prev_write, e.cur_write, e.distance),
                Entry {
                    samples: e.samples_ns.clone(),
                    mean: e.mean_ns,
                    count: e.samples_ns.len() as u64,
                },
            );
            loaded
                .entry((e.prev_write, e.cur_write))
                .or_default()
                .push(e.distance);
        }
        for v in loaded.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        m.loaded = Some(loaded);
        m
    }

    /// The random access before each probe pair is a read, never a write (the pairs'
    /// own operations are the caller's: ask only for read→read).
    pub fn reads_only(mut self) -> DiskMimic {
        self.reads_only = true;
        self
    }

    /// A loaded table's answer for a distance it did not probe (see
    /// [`DiskMimic::from_table`]).
    fn loaded_value(&mut self, pw: bool, cw: bool, dist: i64) -> Option<u32> {
        let loaded = self.loaded.as_ref()?;
        let pair = [(pw, cw), (!pw, cw), (pw, !cw), (!pw, !cw)]
            .into_iter()
            .find(|k| loaded.get(k).is_some_and(|v| !v.is_empty()))?;
        let ds = loaded.get(&pair)?;
        let i = ds.partition_point(|&d| d < dist);
        let metric = self.metric;
        let mut at = |d: i64| {
            self.table
                .get(&(pair.0, pair.1, d))
                .map(|e| e.value(metric, &mut self.rng) as f64)
        };
        let v = match (i.checked_sub(1).map(|j| ds[j]), ds.get(i).copied()) {
            (_, Some(r)) if r == dist => at(r)?,
            (Some(l), Some(r)) => {
                let (vl, vr) = (at(l)?, at(r)?);
                vl + (dist - l) as f64 / (r - l) as f64 * (vr - vl)
            }
            (Some(l), None) => at(l)?,
            (None, Some(r)) => at(r)?,
            (None, None) => return None,
        };
        Some(v.round().clamp(0.0, u32::MAX as f64) as u32)
    }

    /// A Mimic that probes `device` off-line, `samples` per distance.
    pub fn offline(
        device: Box<dyn ProbeDevice + Send>,
        samples: u32,
        metric: Metric,
        seed: u64,
    ) -> DiskMimic {
        DiskMimic::with_device(Some(device), samples.max(1), metric, seed)
    }

    /// A Mimic configured on-line: it knows only what [`DiskMimic::observe`] tells it.
    pub fn online(metric: Metric, seed: u64) -> DiskMimic {
        DiskMimic::with_device(None, ONLINE_SAMPLES, metric, seed)
    }

    fn with_device(
        device: Option<Box<dyn ProbeDevice + Send>>,
        samples: u32,
        metric: Metric,
        seed: u64,
    ) -> DiskMimic {
        DiskMimic {
            device,
            table: HashMap::default(),
            samples,
            probe_blocks: 2,
            metric,
            rng: ChaCha8Rng::seed_from_u64(seed),
            clock: SimTime::ZERO,
            probes_issued: 0,
            interp: None,
            loaded: None,
            reads_only: false,
        }
    }

    /// Records a service time seen for a real request (on-line configuration). An entry
    /// keeps its first `ONLINE_SAMPLES` observations for the order statistics and a
    /// running mean of all of them.
    pub fn observe(&mut self, prev_write: bool, cur_write: bool, dist: i64, service_ns: u64) {
        let v = service_ns.min(u64::from(DOES_NOT_FIT - 1)) as u32;
        let e = self.table.entry((prev_write, cur_write, dist)).or_default();
        e.count += 1;
        e.mean = ((e.mean as u64 * (e.count - 1) + v as u64) / e.count) as u32;
        if e.samples.len() < ONLINE_SAMPLES as usize {
            let at = e.samples.partition_point(|&s| s < v);
            e.samples.insert(at, v);
        }
    }

    /// Distinct keys in the table.
    pub fn entries(&self) -> usize {
        self.table.len()
    }

    /// Requests the Mimic has sent to its probe device.
    pub fn probes_issued(&self) -> u64 {
        self.probes_issued
    }

    /// Bytes the table holds: per entry the key, the mean and the samples.
    pub fn memory_bytes(&self) -> usize {
        self.table
            .values()
            .map(|e| std::mem::size_of::<Key>() + 4 + 4 * e.samples.len())
            .sum()
    }

    /// Bytes the table and its interpolation intervals hold: [`DiskMimic::memory_bytes`]
    /// plus, per accepted interval, its key (operation pair and both ends).
    pub fn total_memory_bytes(&self) -> usize {
        self.memory_bytes() + self.intervals() * std::mem::size_of::<(bool, bool, i64, i64)>()
    }

    /// Predicted service time (ns) of a `cur_write` request at signed distance `dist`
    /// after a `prev_write` one, probing the distance first if it has not been seen.
    pub fn predict(&mut self, prev_write: bool, cur_write: bool, dist: i64) -> u32 {
        let key = (prev_write, cur_write, dist);
        let metric = self.metric;
        if let Some(e) = self.table.get(&key) {
            return e.value(metric, &mut self.rng);
        }
        if self.device.is_none() {
            return self
                .loaded_value(prev_write, cur_write, dist)
                .unwrap_or(u32::MAX);
        }
        if self.interp.is_some() {
            if let Some(v) = self.interpolated(prev_write, cur_write, dist) {
                return v;
            }
            if let Some(e) = self.table.get(&key) {
                return e.value(metric, &mut self.rng);
            }
        }
        let e = self.probe(key);
        let v = e.value(metric, &mut self.rng);
        self.table.insert(key, e);
        v
    }

    /// Turns on interpolation with an allowable-error ladder of (check points, error)
    /// rungs, tried in order (thesis Table 3.2: [`TABLE_3_2`]).
    pub fn with_interpolation(mut self, rungs: &[(u32, f64)]) -> DiskMimic {
        self.interp = Some(Interp {
            rungs: rungs.to_vec(),
            nodes: HashMap::default(),
            interpolated: 0,
            learned: HashMap::default(),
        });
        self
    }

    /// Distances the resolved intervals interpolate (not probed).
    pub fn interpolated_distances(&self) -> u64 {
        self.interp.as_ref().map(|i| i.interpolated).unwrap_or(0)
    }

    /// Whether `dist` falls inside an accepted interpolation interval (without
    /// resolving anything new).
    pub fn is_interpolated(&self, pw: bool, cw: bool, dist: i64) -> bool {
        let Some(i) = self.interp.as_ref() else {
            return false;
        };
        if self.table.contains_key(&(pw, cw, dist)) {
            return false;
        }
        let (Some(cap), Some(learned)) = (
            self.device.as_ref().map(|d| d.capacity() as i64),
            i.learned.get(&(pw, cw)),
        ) else {
            return false;
        };
        let (mut l, mut r) = cell(dist, learned.width, cap);
        loop {
            match i.nodes.get(&(pw, cw, l, r)) {
                Some(Node::Accepted) => return l < dist && dist < r,
                Some(Node::Split(m)) if dist != *m => {
                    if dist < *m {
                        r = *m;
                    } else {
                        l = *m;
                    }
                }
                _ => return false,
            }
        }
    }

    /// The widest interval the ladder examines for this pair, in sectors, once learned
    /// (see [`DiskMimic::learn_width`]); `None` before, or without interpolation.
    pub fn interval_limit(&self, pw: bool, cw: bool) -> Option<i64> {
        self.interp
            .as_ref()?
            .learned
            .get(&(pw, cw))
            .map(|l| l.width)
    }

    /// Accepted interpolation intervals.
    pub fn intervals(&self) -> usize {
        self.interp
            .as_ref()
            .map(|i| i.nodes.values().filter(|n| **n == Node::Accepted).count())
            .unwrap_or(0)
    }

    fn ensure_probed(&mut self, key: Key) -> f64 {
        if !self.table.contains_key(&key) {
            let e = self.probe(key);
            self.table.insert(key, e);
        }
        self.table
            .get(&key)
            .map(|e| e.mean as f64)
            .unwrap_or(f64::MAX)
    }

    /// How wide an interval linear interpolation may be tried on, learned once per
    /// operation pair through the probe device alone.
    ///
    /// The thesis (§3.6.3) observes that the probed times follow "a distinct saw-tooth
    /// pattern; as a result, a simple linear model can likely be used to interpolate
    /// some distances, but care must be taken to ensure that this model is applied to
    /// only relatively short distances", and that "the length of the linear regions
    /// varies across different disks (as a function of the track and cylinder size)";
    /// it does not say how its first *left* and *right* were chosen. An interval that
    /// spans many teeth can pass the ladder by chance (each tooth's ramp crosses the
    /// chord somewhere), and a top-down search from the whole signed range meets ~17
    /// such chances on the way to any distance (the earlier implementation: 99 %
    /// interpolated, scheduling up to 12 % worse). So the Mimic measures the length of
    /// the linear regions itself. It probes densely three windows of consecutive
    /// distances (they are ordinary table entries): short ones from 1 up, and long ones
    /// from half the capacity up and from minus half the capacity up, since short
    /// distances (head switches within a cylinder) can show a less regular pattern than
    /// the seeks that make up most of the table (on the fast-rotating Table 3.1 disks
    /// the short window's strongest repeat is 436 sectors, the long windows' 164, one
    /// track less the track skew). Each window's period is the lag of its series'
    /// autocorrelation peak ([`period`]); a window doubles from
    /// [`PERIOD_WINDOW_MIN`] until it holds four periods, or reaches
    /// [`PERIOD_WINDOW_MAX`] and counts as its own length. The limit is the median of
    /// the three (one odd window cannot set it: on a multi-zone drive, whose zones blur
    /// the saw-tooth, one window of Cheetah 9LP's read→read showed a spurious period of
    /// 6 sectors where the others showed 141 and 162), and the left/right recursion then
    /// starts from a grid of intervals that wide, so each holds about one tooth's drop
    /// and the ladder's random middles converge on it. A flat series (writes absorbed
    /// by a write-back cache) shows no period, and its limit is the widest window.
    pub fn learn_width(&mut self, pw: bool, cw: bool) -> Option<i64> {
        let cap = self.device.as_ref()?.capacity() as i64;
        if let Some(l) = self.interp.as_ref()?.learned.get(&(pw, cw)) {
            return Some(l.width);
        }
        let mut found = Vec::new();
        for start in [1, cap / 2, -cap / 2] {
            let mut window = PERIOD_WINDOW_MIN;
            loop {
                let hi = window.min(cap - start + 1).max(1);
                let means: Vec<f64> = (start..start + hi)
                    .map(|d| self.ensure_probed((pw, cw, d)))
                    .collect();
                match period(&means) {
                    Some(p) if 4 * p <= hi => {
                        found.push((p, true));
                        break;
                    }
                    _ if hi >= PERIOD_WINDOW_MAX.min(cap - start + 1) => {
                        found.push((hi.max(2), false));
                        break;
                    }
                    _ => window *= 2,
                }
            }
        }
        found.sort_unstable();
        let (width, periodic) = found[found.len() / 2];
        let learned = Learned { width, periodic };
        self.interp.as_mut()?.learned.insert((pw, cw), learned);
        Some(learned.width)
    }

    /// Whether the limit for this pair is a measured period (false: the median window
    /// showed no saw-tooth and its length is the limit); `None` before learning.
    pub fn period_found(&self, pw: bool, cw: bool) -> Option<bool> {
        self.interp
            .as_ref()?
            .learned
            .get(&(pw, cw))
            .map(|l| l.periodic)
    }

    /// The decision for one interval, made now if it has not been made.
    fn decided(&mut self, pw: bool, cw: bool, l: i64, r: i64) -> Option<Node> {
        if let Some(s) = self.interp.as_ref()?.nodes.get(&(pw, cw, l, r)) {
            return Some(*s);
        }
        let s = self.resolve(pw, cw, l, r);
        self.interp.as_mut()?.nodes.insert((pw, cw, l, r), s);
        Some(s)
    }

    /// Off-line interpolation, resolved along the path to `dist` only: from the
    /// period-wide grid interval holding `dist` ([`DiskMimic::learn_width`]) down, an
    /// interval whose probed ends predict its randomly chosen check points within a
    /// rung's error is accepted and interpolated; otherwise it is split at its first
    /// check point. `None` when `dist` must be probed itself.
    fn interpolated(&mut self, pw: bool, cw: bool, dist: i64) -> Option<u32> {
        let cap = self.device.as_ref()?.capacity() as i64;
        let width = self.learn_width(pw, cw)?;
        if self.table.contains_key(&(pw, cw, dist)) {
            // Probed while learning the period.
            return None;
        }
        let (mut l, mut r) = cell(dist, width, cap);
        loop {
            if r - l <= 1 || dist == l || dist == r {
                return None;
            }
            match self.decided(pw, cw, l, r)? {
                Node::Accepted => {
                    let metric = self.metric;
                    let vl = self
                        .table
                        .get(&(pw, cw, l))
                        .map(|e| e.value(metric, &mut self.rng))?
                        as f64;
                    let vr = self
                        .table
                        .get(&(pw, cw, r))
                        .map(|e| e.value(metric, &mut self.rng))?
                        as f64;
                    let f = (dist - l) as f64 / (r - l) as f64;
                    return Some((vl + f * (vr - vl)).round() as u32);
                }
                Node::Split(m) => {
                    if dist == m {
                        return None;
                    }
                    if dist < m {
                        r = m;
                    } else {
                        l = m;
                    }
                }
            }
        }
    }

    /// Configures the whole interpolated table for one operation pair, as an off-line
    /// configuration that is not lazy would: the period is learned, then every
    /// period-wide grid interval over the signed distance range is decided (accepted,
    /// or split and its halves decided in turn) until each distance is either probed
    /// or inside an accepted interval. Without interpolation this does nothing (the
    /// full table would probe every distance).
    pub fn resolve_all(&mut self, pw: bool, cw: bool) {
        let Some(cap) = self.device.as_ref().map(|d| d.capacity() as i64) else {
            return;
        };
        self.resolve_range(pw, cw, -cap, cap);
    }

    /// [`DiskMimic::resolve_all`] restricted to the grid intervals that overlap the
    /// distances `from..=to` (a sample of the table, for estimates on large disks).
    /// Returns the distances those intervals cover, ends included.
    pub fn resolve_range(&mut self, pw: bool, cw: bool, from: i64, to: i64) -> Option<(i64, i64)> {
        let cap = self.device.as_ref()?.capacity() as i64;
        let width = self.learn_width(pw, cw)?;
        let (from, to) = (from.max(-cap), to.min(cap));
        let mut k = from.div_euclid(width);
        let covered = (cell(from, width, cap).0, cell(to - 1, width, cap).1);
        while k * width < to {
            let (l, r) = cell(k * width, width, cap);
            k += 1;
            self.ensure_probed((pw, cw, l));
            self.ensure_probed((pw, cw, r));
            let mut stack = vec![(l, r)];
            while let Some((l, r)) = stack.pop() {
                if r - l <= 1 {
                    continue;
                }
                if let Some(Node::Split(m)) = self.decided(pw, cw, l, r) {
                    self.ensure_probed((pw, cw, m));
                    stack.push((m, r));
                    stack.push((l, m));
                }
            }
        }
        Some(covered)
    }

    /// Probed entries of this operation pair at distances `from..=to`.
    pub fn entries_between(&self, pw: bool, cw: bool, from: i64, to: i64) -> usize {
        self.table
            .keys()
            .filter(|&&(a, b, d)| a == pw && b == cw && from <= d && d <= to)
            .count()
    }

    /// Accepted interpolation intervals of this operation pair lying within
    /// `from..=to`.
    pub fn intervals_between(&self, pw: bool, cw: bool, from: i64, to: i64) -> usize {
        self.interp
            .as_ref()
            .map(|i| {
                i.nodes
                    .iter()
                    .filter(|(&(a, b, l, r), n)| {
                        **n == Node::Accepted && a == pw && b == cw && from <= l && r <= to
                    })
                    .count()
            })
            .unwrap_or(0)
    }

    /// Decides one interval by the ladder.
    ///
    /// The check points accumulate (thesis §3.6.3: "if the interpolation of one
    /// distance between *left* and *right* has an error less than 1 %, it is deemed
    /// successful. Otherwise, if two distances … have errors less than 2 %, the
    /// interpolation is successful as well. Thus, progressively more check points can be
    /// made"): random middles are probed one after another, and after the k-th the
    /// interval is accepted if k is a rung's N and all k points so far lie within that
    /// rung's error. A point that misses stays among the checked ones: later rungs
    /// allow it more error but never draw a fresh set of points in its place. (An
    /// earlier version drew new points for every rung, 25 in all and six independent
    /// chances per interval, which accepted intervals spanning thousands of rotational
    /// saw-teeth.)
    fn resolve(&mut self, pw: bool, cw: bool, l: i64, r: i64) -> Node {
        let ml = self.ensure_probed((pw, cw, l));
        let mr = self.ensure_probed((pw, cw, r));
        let mut rungs = self
            .interp
            .as_ref()
            .map(|i| i.rungs.clone())
            .unwrap_or_default();
        rungs.sort_by_key(|&(n, _)| n);
        let most = rungs.iter().map(|&(n, _)| n).max().unwrap_or(0);
        let loosest = rungs.iter().map(|&(_, e)| e).fold(0.0, f64::max);
        let interior = r - l - 1;
        let probed_before = (l + 1..r)
            .filter(|&d| self.table.contains_key(&(pw, cw, d)))
            .count() as i64;
        if probed_before >= interior {
            // Nothing left to interpolate: every distance inside is probed.
            return Node::Split(l + (r - l) / 2);
        }
        // The thesis splits a rejected range at its (first) random middle.
        let mut first_middle = None;
        let mut worst = 0.0f64;
        // The check points are distinct distances ("N points between left and right").
        let mut drawn = Vec::new();
        for k in 1..=most {
            if k as i64 > interior {
                break;
            }
            let x = loop {
                let x = self.rng.gen_range(l + 1..r);
                if !drawn.contains(&x) {
                    break x;
                }
            };
            drawn.push(x);
            first_middle.get_or_insert(x);
            let probed = self.ensure_probed((pw, cw, x));
            let predicted = ml + (x - l) as f64 / (r - l) as f64 * (mr - ml);
            worst = worst.max((predicted - probed).abs() / probed);
            if rungs.iter().any(|&(n, e)| n == k && worst <= e) {
                // The check points inside, and any distance probed before (while
                // learning the period, or asked for directly), are probed, not
                // interpolated.
                let probed = (l + 1..r)
                    .filter(|&d| self.table.contains_key(&(pw, cw, d)))
                    .count() as u64;
                if let Some(i) = self.interp.as_mut() {
                    i.interpolated += (r - l - 1) as u64 - probed;
                }
                return Node::Accepted;
            }
            if worst > loosest {
                break;
            }
        }
        Node::Split(first_middle.unwrap_or(l + (r - l) / 2))
    }

    /// The table as JSON: every probed entry (operation pair, distance, samples in ns)
    /// and every accepted interpolation interval. Distances whose pair does not fit on
    /// the device were not measured and are left out, with any interval ending at one.
    pub fn to_json(&self) -> serde_json::Value {
        let fits = |e: &Entry| !e.samples.contains(&DOES_NOT_FIT);
        let mut entries: Vec<(&Key, &Entry)> = self.table.iter().filter(|(_, e)| fits(e)).collect();
        entries.sort_by_key(|(k, _)| **k);
        let mut intervals: Vec<(bool, bool, i64, i64)> = self
            .interp
            .as_ref()
            .map(|i| {
                i.nodes
                    .iter()
                    .filter(|(_, n)| **n == Node::Accepted)
                    .map(|(k, _)| *k)
                    .filter(|&(pw, cw, l, r)| {
                        [l, r]
                            .iter()
                            .all(|&d| self.table.get(&(pw, cw, d)).is_none_or(fits))
                    })
                    .collect()
            })
            .unwrap_or_default();
        intervals.sort_unstable();
        let mut limits: Vec<((bool, bool), Learned)> = self
            .interp
            .as_ref()
            .map(|i| i.learned.iter().map(|(k, l)| (*k, *l)).collect())
            .unwrap_or_default();
        limits.sort_unstable_by_key(|(k, _)| *k);
        serde_json::json!({
            "metric": self.metric.name(),
            "samples_per_distance": self.samples,
            "probe_sectors": self.probe_blocks,
            "entries": entries.iter().map(|((pw, cw, d), e)| serde_json::json!({
                "prev": if *pw { "W" } else { "R" },
                "cur": if *cw { "W" } else { "R" },
                "distance": d,
                "mean_ns": e.mean,
                "samples_ns": e.samples,
            })).collect::<Vec<_>>(),
            "intervals": intervals.iter().map(|(pw, cw, l, r)| serde_json::json!({
                "prev": if *pw { "W" } else { "R" },
                "cur": if *cw { "W" } else { "R" },
                "from": l,
                "to": r,
            })).collect::<Vec<_>>(),
            "interval_limits": limits.iter().map(|((pw, cw), l)| serde_json::json!({
                "prev": if *pw { "W" } else { "R" },
                "cur": if *cw { "W" } else { "R" },
                "sectors": l.width,
                "period_found": l.periodic,
            })).collect::<Vec<_>>(),
            "interpolated_distances": self.interpolated_distances(),
            "memory_bytes": self.total_memory_bytes(),
            "probe_requests": self.probes_issued,
        })
    }

    /// The sorted samples (ns) behind an entry, if the distance was probed.
    pub fn samples(&self, prev_write: bool, cur_write: bool, dist: i64) -> Option<&[u32]> {
        self.table
            .get(&(prev_write, cur_write, dist))
            .map(|e| e.samples.as_slice())
    }

    /// The table's entry, if the distance was probed.
    pub fn lookup(&mut self, prev_write: bool, cur_write: bool, dist: i64) -> Option<u32> {
        let metric = self.metric;
        let e = self.table.get(&(prev_write, cur_write, dist))?;
        Some(e.value(metric, &mut self.rng))
    }

    /// Probes one pair of request kinds at `dist` afresh (as [`DiskMimic::predict`] does
    /// for a distance it has not seen, without keeping the result): the service times
    /// (ns) of its samples, ascending; [`DOES_NOT_FIT`] for a sample whose pair does not fit
    /// on the device. Empty for a Mimic without a device.
    pub fn probe_samples(&mut self, prev_write: bool, cur_write: bool, dist: i64) -> Vec<u32> {
        self.probe((prev_write, cur_write, dist)).samples
    }

    /// Off-line probing of one key: `samples` times a random access, then a request of
    /// the previous kind at a random place and one of the current kind `dist` beyond
    /// its last sector, issued as soon as the first completes.
    fn probe(&mut self, (prev_write, cur_write, dist): Key) -> Entry {
        let Some(device) = self.device.as_mut() else {
            return Entry::default();
        };
        let cap = device.capacity();
        let b = self.probe_blocks.max(1) as u64;
        let mut out = Vec::with_capacity(self.samples as usize);
        for _ in 0..self.samples {
            let Some((lo, hi)) = pair_range(cap, b, dist) else {
                out.push(DOES_NOT_FIT);
                continue;
            };
            let x = self.rng.gen_range(lo..hi);
            let y = (x + b - 1).saturating_add_signed(dist);
            let away = self.rng.gen_range(0..cap.saturating_sub(b).max(1));
            // Drawn always, so a reads-only Mimic's other draws are the same.
            let away_write = self.rng.gen_bool(0.5) && !self.reads_only;
            let t0 = self.clock + 1_000_000;
            let t1 = device.access(
                t0,
                Request {
                    id: 0,
                    lbn: away,
                    blocks: b as u32,
                    write: away_write,
                },
            );
            let t2 = device.access(
                t1,
                Request {
                    id: 1,
                    lbn: x,
                    blocks: b as u32,
                    write: prev_write,
                },
            );
            let t3 = device.access(
                t2,
                Request {
                    id: 2,
                    lbn: y,
                    blocks: b as u32,
                    write: cur_write,
                },
            );
            out.push((t3.0 - t2.0).min(u64::from(DOES_NOT_FIT - 1)) as u32);
            self.clock = t3;
            self.probes_issued += 3;
        }
        Entry::new(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::presets::preset;

    fn mimic(metric: Metric) -> DiskMimic {
        let hdd = Hdd::new(preset("mimic-base").unwrap()).unwrap();
        DiskMimic::offline(Box::new(hdd), 20, metric, 7)
    }

    #[test]
    fn summaries_order_as_expected() {
        let (mut mean, mut max, mut min) =
            (mimic(Metric::Mean), mimic(Metric::Max), mimic(Metric::Min));
        let d = 272 * 10 * 50; // about 50 cylinders
        let (a, b, c) = (
            mean.predict(false, false, d),
            max.predict(false, false, d),
            min.predict(false, false, d),
        );
        assert!(c <= a && a <= b, "{c} {a} {b}");
        // A 50-cylinder seek and on average half a revolution.
        assert!(a > 2_000_000 && a < 10_000_000, "{a}");
    }

    #[test]
    fn probing_is_deterministic_and_cached() {
        let mut m1 = mimic(Metric::Mean);
        let mut m2 = mimic(Metric::Mean);
        assert_eq!(
            m1.predict(false, true, -5000),
            m2.predict(false, true, -5000)
        );
        let issued = m1.probes_issued();
        m1.predict(false, true, -5000);
        assert_eq!(m1.probes_issued(), issued);
        assert_eq!(m1.entries(), 1);
    }

    #[test]
    fn short_distances_are_mostly_rotation() {
        // Just past the previous request on the same track: a short wait, well under
        // a revolution on average.
        let mut m = mimic(Metric::Mean);
        let near = m.predict(false, false, 1);
        let far = m.predict(false, false, 272 * 10 * 3000);
        assert!(near < far, "{near} vs {far}");
    }

    #[test]
    fn online_mimic_knows_only_what_it_saw() {
        let mut m = DiskMimic::online(Metric::Mean, 1);
        assert_eq!(m.lookup(false, false, 100), None);
        assert_eq!(m.predict(false, false, 100), u32::MAX);
        m.observe(false, false, 100, 4_000_000);
        m.observe(false, false, 100, 6_000_000);
        assert_eq!(m.lookup(false, false, 100), Some(5_000_000));
        assert_eq!(m.lookup(true, false, 100), None);
    }

    #[test]
    fn interpolated_values_lie_between_probed_ends() {
        let mut m = mimic(Metric::Mean).with_interpolation(TABLE_3_2);
        for d in [-3_000_000i64, -70_000, 5, 123_456, 9_000_000] {
            m.predict(false, false, d);
        }
        assert!(m.interpolated_distances() > 0);
        assert!(m.intervals() > 0);
        // Every accepted interval predicts within the range of its ends.
        let json = m.to_json();
        for iv in json["intervals"].as_array().unwrap() {
            let (l, r) = (iv["from"].as_i64().unwrap(), iv["to"].as_i64().unwrap());
            let (a, b) = (
                m.lookup(false, false, l).unwrap(),
                m.lookup(false, false, r).unwrap(),
            );
            let mid = m.predict(false, false, l + (r - l) / 3);
            assert!(
                mid >= a.min(b) && mid <= a.max(b),
                "{mid} not within {a}..{b}"
            );
        }
    }

    #[test]
    fn period_of_a_saw_tooth() {
        // Ramps of 37 rising by 1, then a drop, with a little jitter.
        let x: Vec<f64> = (0..1000)
            .map(|i| (i % 37) as f64 + if i % 5 == 0 { 0.3 } else { 0.0 })
            .collect();
        assert_eq!(period(&x), Some(37));
        assert_eq!(period(&[1.0; 100]), None);
    }

    #[test]
    fn interval_limit_is_the_saw_tooth_period() {
        // Learned through the probe device alone; on these single-zone disks the
        // tooth is one track less the track skew.
        for (name, expect) in [("mimic-base", 272 - 36), ("mimic-less-capacity", 136 - 36)] {
            let hdd = Hdd::new(preset(name).unwrap()).unwrap();
            let mut m = DiskMimic::offline(Box::new(hdd), 5, Metric::Mean, 11)
                .with_interpolation(TABLE_3_2);
            assert_eq!(m.interval_limit(false, false), None);
            m.predict(false, false, 1_234_567);
            let limit = m.interval_limit(false, false).unwrap();
            // An estimate from noisy means: within a couple of sectors.
            assert!((limit - expect).abs() <= 2, "{name}: {limit} vs {expect}");
            assert_eq!(m.period_found(false, false), Some(true));
            // No accepted interval is wider than the limit.
            let json = m.to_json();
            for iv in json["intervals"].as_array().unwrap() {
                let w = iv["to"].as_i64().unwrap() - iv["from"].as_i64().unwrap();
                assert!(w <= limit, "{w}");
            }
        }
    }

    #[test]
    fn resolve_all_covers_every_distance() {
        let hdd = Hdd::new(preset("mimic-less-capacity").unwrap()).unwrap();
        let cap = hdd.capacity() as i64;
        let mut m =
            DiskMimic::offline(Box::new(hdd), 1, Metric::Mean, 3).with_interpolation(TABLE_3_2);
        m.resolve_all(true, false);
        let (entries, probes) = (m.entries(), m.probes_issued());
        assert!(entries > 2 && (entries as i64) < 2 * cap);
        // Every distance is counted once: probed, or interpolated.
        assert_eq!(
            m.interpolated_distances() + entries as u64,
            2 * cap as u64 + 1
        );
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for _ in 0..50 {
            let d = rng.gen_range(-cap..=cap);
            assert!(
                m.samples(true, false, d).is_some() || m.is_interpolated(true, false, d),
                "distance {d} neither probed nor interpolated"
            );
            m.predict(true, false, d);
        }
        // Fully configured: asking never probes again.
        assert_eq!(m.probes_issued(), probes);
        assert_eq!(m.entries(), entries);
    }
}
