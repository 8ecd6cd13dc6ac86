//! Workload specs: plain data, serde-(de)serializable, with validation.

use super::WorkloadError;
use serde::{Deserialize, Serialize};

/// At most this many Zipf buckets (the bucket permutation takes 4 bytes per bucket).
pub const MAX_ZIPF_BUCKETS: u64 = 1 << 24;

/// At most this many closed-loop processes.
pub const MAX_PROCESSES: u32 = 1 << 16;

/// At most this many requests in one synthetic workload (open `count`, closed
/// `requests`): a run at the limit takes minutes, not days.
pub const MAX_REQUESTS: u64 = 100_000_000;

/// At most this many sectors a synthetic workload may move in all (requests × the
/// largest request, 64 TiB): the drive model times every sector of a request, about
/// 6 ns each, so a run at the limit takes minutes, not days.
pub const MAX_SECTORS_MOVED: u64 = 1 << 37;

/// Refuses `requests` of up to `largest` sectors moving more than [`MAX_SECTORS_MOVED`].
pub fn check_sectors_moved(requests: u64, largest: u64) -> Result<(), String> {
    let moved = requests.saturating_mul(largest);
    if moved > MAX_SECTORS_MOVED {
        return Err(format!(
            "{requests} requests of up to {largest} sectors move up to {moved} sectors; at most {MAX_SECTORS_MOVED} (64 TiB) a run"
        ));
    }
    Ok(())
}

fn check_requests(field: &str, n: u64) -> Result<(), WorkloadError> {
    if n > MAX_REQUESTS {
        return Err(WorkloadError::new(
            field,
            format!("must be at most {MAX_REQUESTS}, got {n}"),
        ));
    }
    Ok(())
}

/// Where requests go, within the region `[start, start + span)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "kebab-case",
    deny_unknown_fields
)]
pub enum Pattern {
    /// Every aligned position equally likely. TOML: `{ kind = "uniform" }`.
    Uniform,
    /// Runs of `run_len` back-to-back requests, each starting where the previous one
    /// ended; each run starts at a uniformly random aligned position. A run that would
    /// pass the end of the region is cut short and a new run begins.
    /// TOML: `{ kind = "sequential", run-len = 16 }`.
    Sequential { run_len: u64 },
    /// The region is split into `buckets` equal parts; bucket popularity is Zipf(θ)
    /// (the rank-k bucket is chosen with probability `k^-θ / H(buckets, θ)`), ranks are
    /// assigned to buckets by a seeded random permutation (so the hot spots are
    /// scattered over the region), and the position within the bucket is uniform.
    /// TOML: `{ kind = "zipf", theta = 0.9, buckets = 1000 }`.
    Zipf { theta: f64, buckets: u64 },
    /// A random walk bounded by the inter-request distance: each request starts at most
    /// `max_step` sectors before or after the last sector of the previous request (the
    /// thesis's inter-request distance, "the logical distance from the first block of the
    /// current request to the last block of the previous request", §2.3.2), uniformly
    /// over the aligned positions in that window that keep the request in the region.
    /// The first request is uniform over the region. If the window holds no aligned
    /// position (a step smaller than the alignment), the request goes to the aligned
    /// position nearest the previous request's last sector. The largest inter-request
    /// distance in the sequence is thus `max_step` whenever `max_step` is at least the
    /// alignment. TOML: `{ kind = "walk", max-step = 51200 }`.
    Walk { max_step: u64 },
}

/// Request sizes, in 512-byte sectors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "kebab-case",
    deny_unknown_fields
)]
pub enum Sizes {
    /// TOML: `{ kind = "fixed", sectors = 8 }`.
    Fixed { sectors: u32 },
    /// Uniform over `min..=max`. TOML: `{ kind = "uniform", min = 8, max = 128 }`.
    Uniform { min: u32, max: u32 },
    /// `(sectors, weight)` pairs; a size is chosen with probability proportional to
    /// its weight. TOML: `{ kind = "choice", choices = [[8, 3.0], [128, 1.0]] }`.
    Choice { choices: Vec<(u32, f64)> },
}

impl Sizes {
    /// The largest size this distribution can produce (0 for an empty choice).
    pub fn max_sectors(&self) -> u32 {
        match self {
            Sizes::Fixed { sectors } => *sectors,
            Sizes::Uniform { max, .. } => *max,
            Sizes::Choice { choices } => choices.iter().map(|c| c.0).max().unwrap_or(0),
        }
    }

    pub fn validate(&self) -> Result<(), WorkloadError> {
        match self {
            Sizes::Fixed { sectors } => {
                if *sectors == 0 {
                    return Err(WorkloadError::new(
                        "sizes.sectors",
                        "must be at least 1, got 0",
                    ));
                }
            }
            Sizes::Uniform { min, max } => {
                if *min == 0 {
                    return Err(WorkloadError::new("sizes.min", "must be at least 1, got 0"));
                }
                if max < min {
                    return Err(WorkloadError::new(
                        "sizes.max",
                        format!("must be >= sizes.min ({min}), got {max}"),
                    ));
                }
            }
            Sizes::Choice { choices } => {
                if choices.is_empty() {
                    return Err(WorkloadError::new("sizes.choices", "must not be empty"));
                }
                for (i, &(sectors, weight)) in choices.iter().enumerate() {
                    if sectors == 0 {
                        return Err(WorkloadError::new(
                            format!("sizes.choices[{i}]"),
                            "must have at least 1 sector, got 0",
                        ));
                    }
                    if !(weight.is_finite() && weight >= 0.0) {
                        return Err(WorkloadError::new(
                            format!("sizes.choices[{i}]"),
                            format!(
                                "must have a finite weight >= 0, got {}",
                                crate::show::value(weight)
                            ),
                        ));
                    }
                }
                let total: f64 = choices.iter().map(|c| c.1).sum();
                if !(total.is_finite() && total > 0.0) {
                    return Err(WorkloadError::new(
                        "sizes.choices",
                        format!(
                            "must have a finite, positive total weight, got {}",
                            crate::show::value(total)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// What one request looks like: address pattern, size, alignment, read/write mix, and
/// the region and device it must stay within.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct GenSpec {
    pub pattern: Pattern,
    pub sizes: Sizes,
    /// Fraction of requests that are reads, in `[0, 1]`.
    pub read_fraction: f64,
    /// Requests start at `start + k * align` for whole `k` (alignment is relative to
    /// `start`, so it is absolute when `start` is a multiple of it, as with the default
    /// `start = 0`). `None`: align each request to its own size. Sequential runs keep
    /// going back to back after their aligned first request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub align: Option<u64>,
    /// First sector of the region requests fall in.
    #[serde(default)]
    pub start: u64,
    /// Sectors in the region; `None`: up to the capacity (`capacity - start`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<u64>,
    /// Device capacity in sectors; no request reaches past it. Usually unknown to the
    /// config file and filled in from the disk model with [`GenSpec::fill_capacity`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<u64>,
}

impl GenSpec {
    /// Sets the capacity if the spec does not give one.
    pub fn fill_capacity(&mut self, sectors: u64) {
        self.capacity.get_or_insert(sectors);
    }

    /// [`GenSpec::fill_capacity`], by value.
    pub fn with_capacity(mut self, sectors: u64) -> GenSpec {
        self.fill_capacity(sectors);
        self
    }

    /// The region's size in sectors (`span`, or `capacity - start`), once valid.
    pub fn resolved_span(&self) -> Result<u64, WorkloadError> {
        let capacity = match self.capacity {
            None => {
                return Err(WorkloadError::new(
                    "capacity",
                    "must be given (device sectors; normally filled in from the disk model)",
                ))
            }
            Some(0) => return Err(WorkloadError::new("capacity", "must be at least 1, got 0")),
            Some(c) => c,
        };
        if self.start >= capacity {
            return Err(WorkloadError::new(
                "start",
                format!(
                    "must be below the capacity ({capacity} sectors), got {}",
                    self.start
                ),
            ));
        }
        match self.span {
            None => Ok(capacity - self.start),
            Some(0) => Err(WorkloadError::new("span", "must be at least 1, got 0")),
            Some(span) if span > capacity - self.start => Err(WorkloadError::new(
                "span",
                format!(
                    "must end within the capacity: start {} + span {span} > {capacity} sectors",
                    self.start
                ),
            )),
            Some(span) => Ok(span),
        }
    }

    pub fn validate(&self) -> Result<(), WorkloadError> {
        if !(0.0..=1.0).contains(&self.read_fraction) {
            return Err(WorkloadError::new(
                "read-fraction",
                format!(
                    "must be within 0..=1, got {}",
                    crate::show::value(self.read_fraction)
                ),
            ));
        }
        if self.align == Some(0) {
            return Err(WorkloadError::new(
                "align",
                "must be at least 1 sector, got 0",
            ));
        }
        self.sizes.validate()?;
        let span = self.resolved_span()?;
        let largest = self.sizes.max_sectors() as u64;
        let most = crate::disk::hdd::MAX_REQUEST_SECTORS;
        if largest > u64::from(most) {
            return Err(WorkloadError::new(
                "sizes",
                format!("must be at most {most} sectors (2 GiB) a request, got {largest}"),
            ));
        }
        if largest > span {
            return Err(WorkloadError::new(
                "sizes",
                format!("must fit in the region: the largest request is {largest} sectors, the span {span}"),
            ));
        }
        match self.pattern {
            Pattern::Uniform => {}
            Pattern::Sequential { run_len } => {
                if run_len == 0 {
                    return Err(WorkloadError::new(
                        "pattern.run-len",
                        "must be at least 1, got 0",
                    ));
                }
            }
            Pattern::Walk { max_step } => {
                if max_step == 0 {
                    return Err(WorkloadError::new(
                        "pattern.max-step",
                        "must be at least 1, got 0",
                    ));
                }
            }
            Pattern::Zipf { theta, buckets } => {
                if !(theta.is_finite() && theta >= 0.0) {
                    return Err(WorkloadError::new(
                        "pattern.theta",
                        format!("must be finite and >= 0, got {}", crate::show::value(theta)),
                    ));
                }
                let most = span.min(MAX_ZIPF_BUCKETS);
                if buckets == 0 || buckets > most {
                    return Err(WorkloadError::new(
                        "pattern.buckets",
                        format!(
                            "must be within 1..={most} (at most one per sector of the span and \
                             at most {MAX_ZIPF_BUCKETS}), got {buckets}"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// When open-loop requests arrive. The first request arrives at time 0.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "kebab-case",
    deny_unknown_fields
)]
pub enum Arrivals {
    /// Request `i` at `i * interval_ns`. TOML: `{ kind = "fixed", interval-ns = 1000000 }`.
    Fixed { interval_ns: u64 },
    /// A Poisson process: exponential interarrival times with mean `1 / rate_per_s`
    /// seconds (arrival times rounded to the nanosecond).
    /// TOML: `{ kind = "poisson", rate-per-s = 100 }`.
    Poisson { rate_per_s: f64 },
}

/// Fastest Poisson arrival rate, requests per second: one per nanosecond, the clock's
/// resolution.
pub const MAX_RATE_PER_S: f64 = 1e9;

impl Arrivals {
    pub fn validate(&self) -> Result<(), WorkloadError> {
        match *self {
            Arrivals::Fixed { .. } => Ok(()),
            Arrivals::Poisson { rate_per_s } => {
                if rate_per_s.is_finite() && rate_per_s > 0.0 && rate_per_s <= MAX_RATE_PER_S {
                    Ok(())
                } else {
                    // Arrival times are whole nanoseconds: a faster rate would collapse
                    // arrivals onto the same instants.
                    Err(WorkloadError::new(
                        "arrivals.rate-per-s",
                        format!("must be within (0, {MAX_RATE_PER_S:e}] (one request per ns at most), got {}", crate::show::value(rate_per_s)),
                    ))
                }
            }
        }
    }
}

/// A closed-loop process's pause between a completion and its next request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "kebab-case",
    deny_unknown_fields
)]
pub enum Think {
    /// The next request arrives at the completion. TOML: `{ kind = "none" }`.
    #[default]
    None,
    /// TOML: `{ kind = "fixed", ns = 1000000 }`.
    Fixed { ns: u64 },
    /// Exponentially distributed (rounded to the nanosecond).
    /// TOML: `{ kind = "exponential", mean-ns = 5000000 }`.
    Exponential { mean_ns: f64 },
}

impl Think {
    pub fn validate(&self) -> Result<(), WorkloadError> {
        match *self {
            Think::None | Think::Fixed { .. } => Ok(()),
            Think::Exponential { mean_ns } => {
                if mean_ns.is_finite() && mean_ns >= 0.0 {
                    Ok(())
                } else {
                    Err(WorkloadError::new(
                        "think.mean-ns",
                        format!(
                            "must be finite and >= 0, got {}",
                            crate::show::value(mean_ns)
                        ),
                    ))
                }
            }
        }
    }
}

/// An open-loop synthetic workload: `count` requests from `gen` at `arrivals` times.
///
/// In TOML the [`GenSpec`] fields sit beside the others (no nested table); see the
/// module docs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "OpenToml", into = "OpenToml")]
pub struct OpenSpec {
    pub gen: GenSpec,
    pub arrivals: Arrivals,
    pub count: u64,
    pub seed: u64,
    /// Device number written into every record.
    pub device: u32,
}

impl OpenSpec {
    pub fn fill_capacity(&mut self, sectors: u64) {
        self.gen.fill_capacity(sectors);
    }

    pub fn with_capacity(mut self, sectors: u64) -> OpenSpec {
        self.fill_capacity(sectors);
        self
    }

    pub fn validate(&self) -> Result<(), WorkloadError> {
        check_requests("count", self.count)?;
        self.gen.validate()?;
        check_sectors_moved(self.count, self.gen.sizes.max_sectors() as u64)
            .map_err(|e| WorkloadError::new("count", format!("is too large: {e}")))?;
        self.arrivals.validate()?;
        // Simulated time is integer ns: the last arrival must fit, with room for the
        // requests' service after it (a saturated clock would be silently wrong).
        let span_ns = match self.arrivals {
            Arrivals::Fixed { interval_ns } => (interval_ns as f64) * (self.count as f64),
            // Expected span, with a margin for the spread of a Poisson sum.
            Arrivals::Poisson { rate_per_s } => 2.0 * self.count as f64 / rate_per_s * 1e9,
        };
        if span_ns >= MAX_WORKLOAD_SPAN_NS {
            return Err(WorkloadError::new(
                "arrivals",
                format!(
                    "must span at most {:.0e} s of simulated time; {} requests would take about {:.3e} s (raise the rate or lower the count)",
                    MAX_WORKLOAD_SPAN_NS / 1e9,
                    self.count,
                    span_ns / 1e9
                ),
            ));
        }
        Ok(())
    }
}

/// Longest span of arrivals an open workload may have, ns (about 31 years of
/// simulated time; the clock's limit is 584 years).
pub const MAX_WORKLOAD_SPAN_NS: f64 = 1e18;

/// A closed-loop synthetic workload: `processes` processes, each issuing a request,
/// waiting for it, thinking, and issuing the next, until `requests` requests have been
/// issued in total. Run it with [`super::ClosedLoop`].
///
/// In TOML the [`GenSpec`] fields sit beside the others; see the module docs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "ClosedToml", into = "ClosedToml")]
pub struct ClosedSpec {
    pub processes: u32,
    pub think: Think,
    /// Requests issued in total, over all processes.
    pub requests: u64,
    pub gen: GenSpec,
    pub seed: u64,
    /// Device number written into every record.
    pub device: u32,
}

impl ClosedSpec {
    pub fn fill_capacity(&mut self, sectors: u64) {
        self.gen.fill_capacity(sectors);
    }

    pub fn with_capacity(mut self, sectors: u64) -> ClosedSpec {
        self.fill_capacity(sectors);
        self
    }

    pub fn validate(&self) -> Result<(), WorkloadError> {
        if self.processes == 0 || self.processes > MAX_PROCESSES {
            return Err(WorkloadError::new(
                "processes",
                format!("must be within 1..={MAX_PROCESSES}, got {}", self.processes),
            ));
        }
        check_requests("requests", self.requests)?;
        self.think.validate()?;
        // Simulated time is integer ns: the thinking alone must fit (with a margin for
        // the spread of exponential think times), or the clock would saturate.
        let mean_think_ns = match self.think {
            Think::None => 0.0,
            Think::Fixed { ns } => ns as f64,
            Think::Exponential { mean_ns } => 2.0 * mean_ns,
        };
        let span_ns = mean_think_ns * self.requests as f64 / self.processes as f64;
        if mean_think_ns >= MAX_WORKLOAD_SPAN_NS || span_ns >= MAX_WORKLOAD_SPAN_NS {
            return Err(WorkloadError::new(
                "think",
                format!(
                    "must keep the run within {:.0e} s of simulated time; {} requests over {} processes would think for about {:.3e} s",
                    MAX_WORKLOAD_SPAN_NS / 1e9,
                    self.requests,
                    self.processes,
                    span_ns / 1e9
                ),
            ));
        }
        self.gen.validate()?;
        check_sectors_moved(self.requests, self.gen.sizes.max_sectors() as u64)
            .map_err(|e| WorkloadError::new("requests", format!("is too large: {e}")))
    }
}

/// A synthetic workload as a config file's `[workload]` table gives it, tagged by
/// `kind`: `"synthetic"` (open loop, [`OpenSpec`]) or `"closed"` ([`ClosedSpec`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum WorkloadSpec {
    Synthetic(OpenSpec),
    Closed(ClosedSpec),
}

impl WorkloadSpec {
    pub fn gen(&self) -> &GenSpec {
        match self {
            WorkloadSpec::Synthetic(s) => &s.gen,
            WorkloadSpec::Closed(s) => &s.gen,
        }
    }

    pub fn fill_capacity(&mut self, sectors: u64) {
        match self {
            WorkloadSpec::Synthetic(s) => s.fill_capacity(sectors),
            WorkloadSpec::Closed(s) => s.fill_capacity(sectors),
        }
    }

    pub fn with_capacity(mut self, sectors: u64) -> WorkloadSpec {
        self.fill_capacity(sectors);
        self
    }

    pub fn validate(&self) -> Result<(), WorkloadError> {
        match self {
            WorkloadSpec::Synthetic(s) => s.validate(),
            WorkloadSpec::Closed(s) => s.validate(),
        }
    }
}

// The TOML forms: the GenSpec fields flattened beside the others. Written out rather
// than `#[serde(flatten)]` so that unknown (e.g. misspelt) fields are still rejected.

#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct OpenToml {
    pattern: Pattern,
    sizes: Sizes,
    read_fraction: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    align: Option<u64>,
    #[serde(default)]
    start: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    span: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    capacity: Option<u64>,
    arrivals: Arrivals,
    count: u64,
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    device: u32,
}

impl From<OpenToml> for OpenSpec {
    fn from(t: OpenToml) -> OpenSpec {
        OpenSpec {
            gen: GenSpec {
                pattern: t.pattern,
                sizes: t.sizes,
                read_fraction: t.read_fraction,
                align: t.align,
                start: t.start,
                span: t.span,
                capacity: t.capacity,
            },
            arrivals: t.arrivals,
            count: t.count,
            seed: t.seed,
            device: t.device,
        }
    }
}

impl From<OpenSpec> for OpenToml {
    fn from(s: OpenSpec) -> OpenToml {
        let g = s.gen;
        OpenToml {
            pattern: g.pattern,
            sizes: g.sizes,
            read_fraction: g.read_fraction,
            align: g.align,
            start: g.start,
            span: g.span,
            capacity: g.capacity,
            arrivals: s.arrivals,
            count: s.count,
            seed: s.seed,
            device: s.device,
        }
    }
}

#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct ClosedToml {
    processes: u32,
    #[serde(default)]
    think: Think,
    requests: u64,
    pattern: Pattern,
    sizes: Sizes,
    read_fraction: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    align: Option<u64>,
    #[serde(default)]
    start: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    span: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    capacity: Option<u64>,
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    device: u32,
}

impl From<ClosedToml> for ClosedSpec {
    fn from(t: ClosedToml) -> ClosedSpec {
        ClosedSpec {
            processes: t.processes,
            think: t.think,
            requests: t.requests,
            gen: GenSpec {
                pattern: t.pattern,
                sizes: t.sizes,
                read_fraction: t.read_fraction,
                align: t.align,
                start: t.start,
                span: t.span,
                capacity: t.capacity,
            },
            seed: t.seed,
            device: t.device,
        }
    }
}

impl From<ClosedSpec> for ClosedToml {
    fn from(s: ClosedSpec) -> ClosedToml {
        let g = s.gen;
        ClosedToml {
            processes: s.processes,
            think: s.think,
            requests: s.requests,
            pattern: g.pattern,
            sizes: g.sizes,
            read_fraction: g.read_fraction,
            align: g.align,
            start: g.start,
            span: g.span,
            capacity: g.capacity,
            seed: s.seed,
            device: s.device,
        }
    }
}
