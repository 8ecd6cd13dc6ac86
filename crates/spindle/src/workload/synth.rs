//! DiskSim's synthetic generator (`disksim_synthio` with its `disksim_synthgen`
//! generators) as a spindle workload: independent processes, each a loop of "think,
//! issue a request, maybe wait", mixing open and closed behaviour request by request.
//!
//! Each generator draws its next request when the previous one is issued (or, for a
//! time-critical one, when it completes): with probability `p_seq` it continues where
//! the previous request ended (if that still fits on the device), with `p_local` it
//! starts a local distance away from the previous start, otherwise anywhere on one of
//! its devices. Its think time before issue comes from the matching inter-arrival
//! distribution; its size from `sizes`; start and size are whole multiples of the
//! blocking factor. Then its class:
//!
//! * time-critical (`p_critical`): the process stops until the request completes, then
//!   draws and thinks for the next one (closed-loop behaviour);
//! * time-limited (`p_limited`): the process goes on, but at a time limit it stops
//!   until that request completes, if it has not;
//! * otherwise it never waits (open-loop behaviour).
//!
//! Think times and time limits are process *computing* time, as DiskSim's process-flow
//! model counts them: a process that waits is not computing. Time limits follow what
//! DiskSim does (`synthio_appendio`), not what its manual suggests: a limit is drawn
//! with its request and counts from that draw, the request's think time included; a
//! pending limit goes before the next issue only if it falls strictly within that
//! request's think time, and otherwise counts again from the next draw. Limits thus
//! fire late (DiskSim's synthmixed.parv reports 1.6 s from issue to limit on average)
//! and processes rarely stop at one.
//!
//! Stop conditions, as DiskSim: a global count of generated requests (each generator's
//! first request is counted at start) and a maximum time. Both are checked when a
//! generator draws its next request; when either is reached the whole workload stops
//! ([`SynthLoop::stopped_at`]); DiskSim discards requests still in flight at that
//! instant, so a DiskSim-style report counts only requests done by then.
//!
//! **CPUs.** In DiskSim a generator is a process that needs a processor to think, and
//! spindle follows DiskSim's process-flow dispatcher (`disksim_pfsim.c`,
//! `disksim_pfdisp.c`): every process starts in one dispatch queue, the last
//! generator first, and each processor takes the first ready one. A process keeps its
//! processor until it sleeps (at the issue of a time-critical request; at a time limit
//! whose request is still out); the processor then takes the next ready process, or
//! idles. A completion wakes its process onto the end of the queue, and, since every
//! completion interrupt runs on processor 0, only processor 0, if idle, takes it
//! there and then: an idle processor other than 0 never looks at the queue again.
//! So an open generator that never waits holds its processor for ever (synthopen.parv,
//! one processor, three generators: only the third runs), and generators that both
//! wait and think end up time-shared on processor 0 (synthmixed.parv, five
//! generators on five processors: processors 1 to 4 go idle one by one).

use super::rand48::{Rand48, DISKSIM_RUN_SEED};
use super::{rng, WorkloadError};
use crate::time::SimTime;
use crate::trace::IoRecord;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Largest storage capacity per device, sectors (DiskSim holds it in a C `int`).
pub const MAX_SYNTH_SECTORS: u64 = i32::MAX as u64;
/// Largest number of generators.
pub const MAX_SYNTH_GENERATORS: usize = 4096;
/// Largest number of devices one generator addresses.
pub const MAX_SYNTH_DEVICES: usize = 65_536;
/// Largest request count.
pub const MAX_SYNTH_REQUESTS: u64 = 1 << 32;
/// Largest maximum time, ms (about 11.6 days).
pub const MAX_SYNTH_TIME_MS: f64 = 1e9;
/// Draws tried for one request's placement, size or think time before the generator
/// gives up with an error (a distribution that almost never yields a usable value).
pub const MAX_REDRAWS: u32 = 1_000_000;

/// A random variable as DiskSim's synthgen lists write it (`[ name, a, b (, c) ]`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Dist {
    /// Uniform over `[min, max)`.
    Uniform { min: f64, max: f64 },
    /// Normal; DiskSim's list form uses its second number directly as the standard
    /// deviation (the name "variance" notwithstanding), so this does too.
    Normal { mean: f64, sd: f64 },
    /// `base` plus an exponential of mean `mean`.
    Exponential { base: f64, mean: f64 },
    /// `base` plus a Poisson count of mean `mean`.
    Poisson { base: f64, mean: f64 },
    /// `second` with probability `p_second`, else `default`.
    #[serde(rename = "twovalue")]
    TwoValue {
        default: f64,
        second: f64,
        p_second: f64,
    },
}

impl Dist {
    /// Checks the parameters; `what` names the distribution in the message.
    pub fn validate(&self, what: &str) -> Result<(), WorkloadError> {
        let fin = |name: &str, v: f64| {
            if v.is_finite() && v.abs() <= 1e15 {
                Ok(())
            } else {
                Err(WorkloadError::new(
                    format!("{what}.{name}"),
                    format!("must be a finite number of magnitude at most 1e15, got {v}"),
                ))
            }
        };
        match *self {
            Dist::Uniform { min, max } => {
                fin("min", min)?;
                fin("max", max)?;
                if max <= min {
                    return Err(WorkloadError::new(
                        format!("{what}.max"),
                        format!("must be greater than the minimum {min}, got {max}"),
                    ));
                }
            }
            Dist::Normal { mean, sd } => {
                fin("mean", mean)?;
                fin("sd", sd)?;
                if sd < 0.0 {
                    return Err(WorkloadError::new(
                        format!("{what}.sd"),
                        format!("must be at least 0, got {sd}"),
                    ));
                }
            }
            Dist::Exponential { base, mean } => {
                fin("base", base)?;
                fin("mean", mean)?;
                if mean < 0.0 {
                    return Err(WorkloadError::new(
                        format!("{what}.mean"),
                        format!("must be at least 0, got {mean}"),
                    ));
                }
            }
            Dist::Poisson { base, mean } => {
                fin("base", base)?;
                fin("mean", mean)?;
                if !(0.0..=700.0).contains(&mean) {
                    return Err(WorkloadError::new(
                        format!("{what}.mean"),
                        format!("must be within 0..=700 (e^-mean must not underflow), got {mean}"),
                    ));
                }
            }
            Dist::TwoValue {
                default,
                second,
                p_second,
            } => {
                fin("default", default)?;
                fin("second", second)?;
                if !(0.0..=1.0).contains(&p_second) {
                    return Err(WorkloadError::new(
                        format!("{what}.p-second"),
                        format!("must be within 0..=1, got {p_second}"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Whether every draw is 0 or below (a think time that is always 0 after
    /// DiskSim's redraws of negative values).
    pub fn is_zero(&self) -> bool {
        match *self {
            Dist::Uniform { max, .. } => max <= 0.0,
            Dist::Normal { mean, sd } => sd == 0.0 && mean <= 0.0,
            Dist::Exponential { base, mean } | Dist::Poisson { base, mean } => {
                mean == 0.0 && base <= 0.0
            }
            Dist::TwoValue {
                default,
                second,
                p_second,
            } => (p_second == 1.0 || default <= 0.0) && (p_second == 0.0 || second <= 0.0),
        }
    }

    /// Whether a draw can be at least `at_least` (so a redraw loop can end).
    fn can_reach(&self, at_least: f64) -> bool {
        match *self {
            Dist::Uniform { max, .. } => max > at_least,
            Dist::Normal { mean, sd } => sd > 0.0 || mean >= at_least,
            Dist::Exponential { base, mean } => mean > 0.0 || base >= at_least,
            Dist::Poisson { base, mean } => mean > 0.0 || base >= at_least,
            Dist::TwoValue {
                default,
                second,
                p_second,
            } => (p_second < 1.0 && default >= at_least) || (p_second > 0.0 && second >= at_least),
        }
    }

    /// One draw.
    pub fn draw<R: Uniform + ?Sized>(&self, rng: &mut R) -> f64 {
        match *self {
            Dist::Uniform { min, max } => min + (max - min) * rng.uniform(),
            Dist::Normal { mean, sd } => {
                // Rejection from two exponentials, as DiskSim draws its normal.
                let y1 = loop {
                    let y2 = -(1.0 - rng.uniform()).ln();
                    let y1 = -(1.0 - rng.uniform()).ln();
                    if y2 - (y1 - 1.0) * (y1 - 1.0) / 2.0 > 0.0 {
                        break y1;
                    }
                };
                let y1 = if rng.uniform() < 0.5 { -y1 } else { y1 };
                mean + sd * y1
            }
            Dist::Exponential { base, mean } => base - mean * (1.0 - rng.uniform()).ln(),
            Dist::Poisson { base, mean } => {
                let stop = (-mean).exp();
                let mut prod = 1.0;
                let mut count = -1.0;
                while prod >= stop {
                    prod *= rng.uniform();
                    count += 1.0;
                }
                base + count
            }
            Dist::TwoValue {
                default,
                second,
                p_second,
            } => {
                if rng.uniform() < p_second {
                    second
                } else {
                    default
                }
            }
        }
    }
}

/// One `disksim_synthgen`: a generator process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SynthGen {
    /// Device numbers (as in [`IoRecord::device`]) this generator addresses.
    pub devices: Vec<u32>,
    /// Sectors addressable on each device.
    pub capacity: u64,
    /// Unit of start and size, sectors.
    pub blocking: u32,
    pub p_seq: f64,
    pub p_local: f64,
    pub p_read: f64,
    pub p_critical: f64,
    pub p_limited: f64,
    /// Computing time before a time-limited request makes the process wait, ms.
    pub time_limit: Dist,
    /// Think time before a request at an unrelated address, ms.
    pub general_think: Dist,
    /// Think time before a sequential request, ms.
    pub seq_think: Dist,
    /// Think time before a local request, ms.
    pub local_think: Dist,
    /// Distance of a local request's start from the previous start, sectors.
    pub local_distance: Dist,
    /// Request size, sectors (rounded up to the blocking factor).
    pub sizes: Dist,
}

/// A source of uniform draws for the generator: spindle's own per-generator
/// streams, or DiskSim's one `drand48` stream.
pub trait Uniform {
    /// A value in [0, 1).
    fn uniform(&mut self) -> f64;
    /// An index in 0..n.
    fn below(&mut self, n: u64) -> u64;
}

impl Uniform for ChaCha8Rng {
    fn uniform(&mut self) -> f64 {
        self.gen::<f64>()
    }
    fn below(&mut self, n: u64) -> u64 {
        self.gen_range(0..n)
    }
}

impl Uniform for Rand48 {
    fn uniform(&mut self) -> f64 {
        self.next_f64()
    }
    fn below(&mut self, n: u64) -> u64 {
        // C's (int)(drand48() * n).
        ((self.next_f64() * n as f64) as u64).min(n.saturating_sub(1))
    }
}

/// Which random numbers the generators draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SynthStream {
    /// Each generator its own stream from the seed (independent of the others'
    /// timing).
    #[default]
    PerGenerator,
    /// DiskSim's: one `drand48` stream for all, seeded with the seed for the first
    /// requests (last generator first, as DiskSim's process list runs), then with
    /// DiskSim's fixed run seed; a generator's first request draws no access type.
    /// The requests then are DiskSim's own for the same file (see
    /// [`super::rand48`]).
    Disksim,
}

/// A whole `disksim_synthio`: its generators, stop conditions and processors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SynthSpec {
    pub generators: Vec<SynthGen>,
    /// Stop after generating this many requests (over all generators).
    pub requests: u64,
    /// Stop when a generator draws a request at or after this time, ms.
    pub max_time_ms: f64,
    /// Processors of DiskSim's process-flow model (see the module comment).
    pub cpus: u32,
    #[serde(default)]
    pub seed: u64,
    /// Which random numbers the generators draw.
    #[serde(default)]
    pub stream: SynthStream,
}

fn prob(field: String, p: f64) -> Result<(), WorkloadError> {
    if (0.0..=1.0).contains(&p) {
        Ok(())
    } else {
        Err(WorkloadError::new(
            field,
            format!("must be within 0..=1, got {p}"),
        ))
    }
}

impl SynthGen {
    /// A generator whose requests never make its process wait.
    pub fn never_waits(&self) -> bool {
        self.p_critical == 0.0 && self.p_limited == 0.0
    }

    fn blocks_per_device(&self) -> u64 {
        self.capacity / u64::from(self.blocking.max(1))
    }

    pub fn validate(&self, at: &str) -> Result<(), WorkloadError> {
        let f = |name: &str| format!("{at}.{name}");
        if self.devices.is_empty() || self.devices.len() > MAX_SYNTH_DEVICES {
            return Err(WorkloadError::new(
                f("devices"),
                format!(
                    "must list 1..={MAX_SYNTH_DEVICES} devices, got {}",
                    self.devices.len()
                ),
            ));
        }
        if self.blocking == 0 {
            return Err(WorkloadError::new(
                f("blocking"),
                "must be at least 1, got 0",
            ));
        }
        if self.capacity > MAX_SYNTH_SECTORS {
            return Err(WorkloadError::new(
                f("capacity"),
                format!(
                    "must be at most {MAX_SYNTH_SECTORS} sectors, got {}",
                    self.capacity
                ),
            ));
        }
        if self.blocks_per_device() < 2 {
            return Err(WorkloadError::new(
                f("capacity"),
                format!(
                    "must hold at least 2 units of the blocking factor {} (a request must end before the last unit), got {} sectors",
                    self.blocking, self.capacity
                ),
            ));
        }
        prob(f("p-seq"), self.p_seq)?;
        prob(f("p-local"), self.p_local)?;
        prob(f("p-read"), self.p_read)?;
        prob(f("p-critical"), self.p_critical)?;
        prob(f("p-limited"), self.p_limited)?;
        if self.p_seq + self.p_local > 1.0 + 1e-12 {
            return Err(WorkloadError::new(
                f("p-local"),
                format!(
                    "plus p-seq must be at most 1, got {} + {}",
                    self.p_local, self.p_seq
                ),
            ));
        }
        if self.p_critical + self.p_limited > 1.0 + 1e-12 {
            return Err(WorkloadError::new(
                f("p-limited"),
                format!(
                    "plus p-critical must be at most 1, got {} + {}",
                    self.p_limited, self.p_critical
                ),
            ));
        }
        // Think times and limits are redrawn while negative; a size is redrawn until
        // at least one sector: each must be able to get there.
        for (name, d, min) in [
            ("time-limit", &self.time_limit, 0.0),
            ("general-think", &self.general_think, 0.0),
            ("seq-think", &self.seq_think, 0.0),
            ("local-think", &self.local_think, 0.0),
            ("local-distance", &self.local_distance, f64::MIN),
            ("sizes", &self.sizes, 1.0),
        ] {
            d.validate(&f(name))?;
            if min > f64::MIN && !d.can_reach(min) {
                return Err(WorkloadError::new(
                    f(name),
                    format!(
                        "can never draw a value of at least {min}, so it would be redrawn for ever"
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl SynthSpec {
    pub fn validate(&self) -> Result<(), WorkloadError> {
        let n = self.generators.len();
        if n == 0 || n > MAX_SYNTH_GENERATORS {
            return Err(WorkloadError::new(
                "generators",
                format!("must list 1..={MAX_SYNTH_GENERATORS} generators, got {n}"),
            ));
        }
        for (i, g) in self.generators.iter().enumerate() {
            g.validate(&format!("generators[{i}]"))?;
        }
        if self.requests == 0 || self.requests > MAX_SYNTH_REQUESTS {
            return Err(WorkloadError::new(
                "requests",
                format!(
                    "must be within 1..={MAX_SYNTH_REQUESTS}, got {}",
                    self.requests
                ),
            ));
        }
        if !(self.max_time_ms > 0.0 && self.max_time_ms <= MAX_SYNTH_TIME_MS) {
            return Err(WorkloadError::new(
                "max-time-ms",
                format!(
                    "must be within 0 (exclusive) ..= {MAX_SYNTH_TIME_MS}, got {}",
                    self.max_time_ms
                ),
            ));
        }
        if self.cpus == 0 {
            return Err(WorkloadError::new("cpus", "must be at least 1, got 0"));
        }
        Ok(())
    }

    /// The generators that start on a processor (see the module comment on CPUs):
    /// with fewer processors than generators, the last ones of the list.
    pub fn running(&self) -> std::ops::Range<usize> {
        let n = self.generators.len();
        n.saturating_sub(self.cpus as usize)..n
    }
}

/// Request numbers (engine indices) of time-critical and time-limited requests, filled
/// in by [`SynthLoop::with_urgent`]'s loop as it hands requests to the engine (which
/// numbers them in that order), for a queue that serves them first.
pub type Urgent = std::rc::Rc<std::cell::RefCell<rustc_hash::FxHashSet<u64>>>;

/// A generated request not yet issued.
#[derive(Clone, Copy, Debug)]
struct Drawn {
    device: u32,
    /// In units of the blocking factor.
    block: u64,
    count: u64,
    read: bool,
    critical: bool,
    limited: bool,
    /// Computing time before its issue, ns.
    think: u64,
    /// The process's sequence number for it.
    seq: u64,
}
/// What a process does when it next runs on a processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resume {
    /// Checks the stop conditions and draws its next request (DiskSim's synthio
    /// event, after an issue or after waking from a time-critical request).
    Generate,
    /// Goes on thinking towards its pending request.
    Advance,
}

/// Where a process is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// On a processor, thinking towards the issue of `pending` (handed to the engine).
    Issuing,
    /// On a processor, computing up to the time limit of its request `seq`, reached
    /// at `at` (a tick is asked for then): it sleeps there if the request is still out.
    Limit { seq: u64, at: SimTime },
    /// Off its processor until its request `seq` completes.
    Asleep { seq: u64, then: Resume },
    /// Woken (or never yet run), in the dispatch queue.
    Ready(Resume),
    /// Stopped.
    Idle,
}

struct Process {
    /// DiskSim's list of pending time limits (`gen->limits`): (computing time after
    /// the previous entry, request), earliest first. Its head counts from the latest
    /// generation: DiskSim re-bases the list each time it draws a request.
    limits: Vec<(u64, u64)>,
    /// The limits placed before the pending request's issue: (computing time after
    /// the previous one or the draw, request).
    before: std::collections::VecDeque<(u64, u64)>,
    /// Outstanding time-limited requests (process sequence numbers).
    outstanding: Vec<u64>,
    /// The next request's sequence number.
    next_seq: u64,
    /// The request being thought towards (or issued and not yet classified).
    pending: Option<Drawn>,
    /// The previous request, for sequential and local draws.
    prev: Option<Drawn>,
    state: State,
    /// The processor it runs on.
    cpu: Option<usize>,
}

/// The running generator: a [`crate::engine::ClosedSource`] whose processes issue
/// without waiting, wait for completion, or wait after a time limit, request by request.
pub struct SynthLoop {
    spec: SynthSpec,
    procs: Vec<Process>,
    /// The random numbers the generators draw.
    streams: Streams,
    generated: u64,
    end: SimTime,
    /// When a stop condition was reached (shared: see [`SynthLoop::stop_signal`]).
    stopped_at: std::rc::Rc<std::cell::Cell<Option<SimTime>>>,
    error: Option<String>,
    /// The process on each processor.
    cpus: Vec<Option<usize>>,
    /// Processes ready to run, first to run first (DiskSim's dispatch queue).
    dispq: std::collections::VecDeque<usize>,
    /// Requests made ready, for the engine ([`crate::engine::ClosedSource::take_other`]).
    ready: std::collections::VecDeque<(u32, IoRecord)>,
    /// Times at which a process reaches a time limit, for the engine.
    ticks: Vec<SimTime>,
    /// Requests handed to the engine so far (the next one's engine index).
    handed: u64,
    urgent: Option<Urgent>,
    /// Engine index to process sequence number, for requests a process may wait on.
    seq_of: rustc_hash::FxHashMap<u64, u64>,
}

/// Generator `g`'s random numbers: the shared stream if there is one, else its own.
/// (An enum, not a trait object, so the draws inline.)
enum Stream<'a> {
    Shared(&'a mut Rand48),
    Own(&'a mut ChaCha8Rng),
}

impl Uniform for Stream<'_> {
    fn uniform(&mut self) -> f64 {
        match self {
            Stream::Shared(r) => r.uniform(),
            Stream::Own(r) => r.uniform(),
        }
    }
    fn below(&mut self, n: u64) -> u64 {
        match self {
            Stream::Shared(r) => r.below(n),
            Stream::Own(r) => r.below(n),
        }
    }
}

/// The generators' streams: DiskSim's one shared stream ([`SynthStream::Disksim`]),
/// or one per generator ([`SynthStream::PerGenerator`]), made only then (a ChaCha
/// stream's set-up asks the processor for its features, a slow instruction under a
/// hypervisor, for streams a DiskSim run would never draw from).
enum Streams {
    Shared(Rand48),
    Own(Vec<ChaCha8Rng>),
}

#[inline]
fn stream(streams: &mut Streams, g: usize) -> Stream<'_> {
    match streams {
        Streams::Shared(r) => Stream::Shared(r),
        Streams::Own(v) => Stream::Own(&mut v[g]),
    }
}

fn ms_to_ns(ms: f64) -> u64 {
    // Draws are bounded (validate), and the workload stops at the maximum time.
    // Rounds half away from zero as `f64::round`, without its call into the C library
    // (one or two per request); `round_ns_matches_f64_round` checks the two agree.
    let x = ms * 1e6;
    if x.is_nan() || x <= 0.0 {
        return 0;
    }
    if x >= (1u64 << 62) as f64 {
        return 1 << 62;
    }
    // Exact: below 2^53 the fraction is representable, above it `x` is whole.
    let whole = x as u64;
    whole + u64::from(x - whole as f64 >= 0.5)
}

impl SynthLoop {
    pub fn new(spec: &SynthSpec) -> Result<SynthLoop, WorkloadError> {
        spec.validate()?;
        let procs = (0..spec.generators.len())
            .map(|_| Process {
                limits: Vec::new(),
                before: Default::default(),
                outstanding: Vec::new(),
                next_seq: 0,
                pending: None,
                prev: None,
                state: State::Idle,
                cpu: None,
            })
            .collect();
        Ok(SynthLoop {
            spec: spec.clone(),
            procs,
            streams: match spec.stream {
                // DiskSim seeds its stream with the seed for the first requests.
                SynthStream::Disksim => Streams::Shared(Rand48::seeded(spec.seed)),
                SynthStream::PerGenerator => Streams::Own(
                    (0..spec.generators.len())
                        .map(|g| rng(spec.seed, super::streams::synth_generator(g as u32)))
                        .collect(),
                ),
            },
            generated: 0,
            end: SimTime(ms_to_ns(spec.max_time_ms)),
            stopped_at: Default::default(),
            error: None,
            cpus: vec![None; spec.cpus as usize],
            dispq: Default::default(),
            ready: Default::default(),
            ticks: Vec::new(),
            handed: 0,
            urgent: None,
            seq_of: Default::default(),
        })
    }

    /// Records the engine index of every time-critical and time-limited request in
    /// `urgent` (the loop must be the engine's only source of requests).
    pub fn with_urgent(mut self, urgent: Urgent) -> SynthLoop {
        self.urgent = Some(urgent);
        self
    }

    /// When the workload stopped (a stop condition was reached), if it did.
    pub fn stopped_at(&self) -> Option<SimTime> {
        self.stopped_at.get()
    }

    /// The stop time as the run goes (set once, at or after the simulated time of
    /// the event that reaches the stop condition), for a caller that counts
    /// completions as they come instead of keeping them all.
    pub fn stop_signal(&self) -> std::rc::Rc<std::cell::Cell<Option<SimTime>>> {
        self.stopped_at.clone()
    }

    /// Requests generated so far (DiskSim's count, including first requests of
    /// generators that never run).
    pub fn generated(&self) -> u64 {
        self.generated
    }

    /// A generator that could not draw a usable request (see [`MAX_REDRAWS`]).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    fn fail(&mut self, g: usize, what: &str) {
        if self.error.is_none() {
            self.error = Some(format!(
                "generator {g}: no usable {what} in {MAX_REDRAWS} draws"
            ));
        }
    }

    /// A non-negative draw (DiskSim redraws negative times).
    fn time_draw(&mut self, g: usize, d: Dist, what: &str) -> Option<u64> {
        let mut r = stream(&mut self.streams, g);
        for _ in 0..MAX_REDRAWS {
            let v = d.draw(&mut r);
            if v >= 0.0 {
                return Some(ms_to_ns(v));
            }
        }
        self.fail(g, what);
        None
    }

    /// A size in blocking units, with a start drawn by `start` until the request fits
    /// (ends before the device's last unit, as DiskSim requires).
    fn place(
        &mut self,
        g: usize,
        mut start: impl FnMut(&mut Stream, &SynthGen) -> i64,
    ) -> Option<(u64, u64)> {
        let gen = &self.spec.generators[g];
        let bf = i64::from(gen.blocking);
        let blocks = gen.blocks_per_device() as i64;
        let mut r = stream(&mut self.streams, g);
        for _ in 0..MAX_REDRAWS {
            let b = start(&mut r, gen);
            let size = gen.sizes.draw(&mut r);
            // C's (int) truncation, then whole blocking units rounded up.
            let sectors = size.clamp(-1e15, 1e15) as i64;
            let count = (sectors + bf - 1) / bf;
            if count > 0 && b >= 0 && b + count < blocks {
                return Some((b as u64, count as u64));
            }
        }
        self.fail(g, "request placement and size");
        None
    }

    /// Whether the generators draw from DiskSim's shared stream.
    fn disksim_stream(&self) -> bool {
        matches!(self.streams, Streams::Shared(_))
    }

    #[inline]
    fn uniform(&mut self, g: usize) -> f64 {
        stream(&mut self.streams, g).uniform()
    }

    /// Draw generator `g`'s next request after `prev` (none: the first).
    fn draw(&mut self, g: usize) -> Option<Drawn> {
        // The scalars this draw needs, copied out (not the whole generator, whose
        // device list would be cloned per request) so `self` stays free to borrow.
        let gen = &self.spec.generators[g];
        let (p_seq, p_local, p_read) = (gen.p_seq, gen.p_local, gen.p_read);
        let (p_critical, p_limited) = (gen.p_critical, gen.p_limited);
        let (seq_think, local_think, general_think) =
            (gen.seq_think, gen.local_think, gen.general_think);
        let bf = i64::from(gen.blocking);
        let n = gen.devices.len();
        let blocks = gen.blocks_per_device();
        let prev = self.procs[g].prev;
        // DiskSim draws no access type for a generator's first request.
        let u: f64 = if prev.is_none() && self.disksim_stream() {
            1.0
        } else {
            self.uniform(g)
        };
        let mut d = match prev {
            Some(p) if u <= p_seq && p.block + 2 * p.count < blocks => Drawn {
                block: p.block + p.count,
                think: self.time_draw(g, seq_think, "sequential think time")?,
                ..p
            },
            Some(p) if u > p_seq && u < p_seq + p_local => {
                let think = self.time_draw(g, local_think, "local think time")?;
                let from = p.block as i64;
                let (block, count) = self.place(g, |r, gen| {
                    let dist = gen.local_distance.draw(r).clamp(-1e15, 1e15) as i64;
                    from + dist / bf
                })?;
                let read = self.uniform(g) < p_read;
                Drawn {
                    device: p.device,
                    block,
                    count,
                    read,
                    critical: false,
                    limited: false,
                    think,
                    seq: 0,
                }
            }
            _ => {
                let think = self.time_draw(g, general_think, "general think time")?;
                let i = stream(&mut self.streams, g).below(n as u64) as usize;
                let device = self.spec.generators[g].devices[i];
                let (block, count) = self.place(g, |r, _| r.below(blocks) as i64)?;
                let read = self.uniform(g) < p_read;
                Drawn {
                    device,
                    block,
                    count,
                    read,
                    critical: false,
                    limited: false,
                    think,
                    seq: 0,
                }
            }
        };
        let class = self.uniform(g) - p_critical;
        d.critical = class < 0.0;
        d.limited = !d.critical && class < p_limited;
        let p = &mut self.procs[g];
        d.seq = p.next_seq;
        p.next_seq += 1;
        Some(d)
    }

    /// Where DiskSim puts the time limits as it appends request `d` (think time
    /// `d.think`) to the process (`synthio_appendio`): a time-limited request's limit
    /// (drawn now, counted from the draw, so including the think time) joins the
    /// pending list; then the limits that fall strictly within the think time go
    /// before the issue. The rest wait for the next draw, from which they count
    /// again (DiskSim does not age them by the computing time that passes).
    fn append(&mut self, g: usize, mut d: Drawn) -> Option<Drawn> {
        if d.limited {
            let limit = self.spec.generators[g].time_limit;
            let lim = self.time_draw(g, limit, "time limit")?;
            let p = &mut self.procs[g];
            let mut t = lim.saturating_add(d.think);
            // Insert into the delta list, after equal times.
            let mut i = 0;
            while i < p.limits.len() && t >= p.limits[i].0 {
                t -= p.limits[i].0;
                i += 1;
            }
            if let Some(next) = p.limits.get_mut(i) {
                next.0 -= t;
            }
            p.limits.insert(i, (t, d.seq));
        }
        let p = &mut self.procs[g];
        p.before.clear();
        let mut fired = 0;
        for &(delta, seq) in &p.limits {
            if delta >= d.think {
                break;
            }
            d.think -= delta;
            p.before.push_back((delta, seq));
            fired += 1;
        }
        p.limits.drain(..fired);
        Some(d)
    }

    /// The stop check and draw DiskSim makes after each issue (or completion of a
    /// time-critical request), at `now`.
    fn generate(&mut self, g: usize, now: SimTime) -> bool {
        if self.stopped_at.get().is_some() {
            return false;
        }
        if now >= self.end || self.generated >= self.spec.requests {
            self.stopped_at.set(Some(now));
            return false;
        }
        self.generated += 1;
        match self.draw(g).and_then(|d| self.append(g, d)) {
            Some(d) => {
                self.procs[g].pending = Some(d);
                true
            }
            None => {
                self.stopped_at.set(Some(now));
                false
            }
        }
    }

    /// Process `g` runs from `now` towards its pending request: through the time
    /// limits that fall first (waiting where one's request is outstanding) to the
    /// issue.
    fn advance(&mut self, g: usize, mut now: SimTime) -> Option<IoRecord> {
        if self.stopped_at.get().is_some() {
            self.procs[g].state = State::Idle;
            return None;
        }
        let blocking = u64::from(self.spec.generators[g].blocking);
        let p = &mut self.procs[g];
        let mut d = p.pending?;
        while let Some((delta, seq)) = p.before.pop_front() {
            now = SimTime(now.0.saturating_add(delta));
            if p.outstanding.contains(&seq) {
                p.state = State::Limit { seq, at: now };
                return None;
            }
        }
        let wait = d.think;
        d.think = 0;
        p.pending = Some(d);
        p.state = State::Issuing;
        Some(IoRecord {
            arrival: SimTime(now.0.saturating_add(wait)),
            device: d.device,
            lbn: d.block * blocking,
            blocks: (d.count * blocking) as u32,
            write: !d.read,
            content: Vec::new(),
        })
    }
}

impl SynthLoop {
    /// Process `g`, on a processor, computes from `now`: draws its next request
    /// first if `resume` says so, then thinks towards it. Its request goes to the
    /// engine; a time limit on the way asks for a tick.
    fn run(&mut self, g: usize, now: SimTime, resume: Resume) {
        if resume == Resume::Generate && !self.generate(g, now) {
            self.procs[g].state = State::Idle;
            return;
        }
        match self.advance(g, now) {
            Some(rec) => {
                // The engine numbers requests in the order they are handed over.
                if let (Some(u), Some(d)) = (&self.urgent, self.procs[g].pending) {
                    if d.critical || d.limited {
                        u.borrow_mut().insert(self.handed);
                    }
                }
                self.handed += 1;
                self.ready.push_back((g as u32, rec));
            }
            None => {
                if let State::Limit { at, .. } = self.procs[g].state {
                    self.ticks.push(at);
                }
            }
        }
    }

    /// Process `g` stops until its request `seq` completes; its processor takes the
    /// next ready process, or idles.
    fn sleep(&mut self, g: usize, now: SimTime, seq: u64, then: Resume) {
        self.procs[g].state = State::Asleep { seq, then };
        if let Some(c) = self.procs[g].cpu.take() {
            self.cpus[c] = None;
            self.dispatch(c, now);
        }
    }

    /// An idle processor `c` runs the first ready process, if any. DiskSim does this
    /// only when a process stops on `c`, and on processor 0 at the end of each
    /// interrupt (every completion interrupt goes to processor 0): a woken process
    /// never reaches an idle processor other than 0.
    fn dispatch(&mut self, c: usize, now: SimTime) {
        if self.cpus[c].is_some() || self.stopped_at.get().is_some() {
            return;
        }
        while let Some(h) = self.dispq.pop_front() {
            if let State::Ready(resume) = self.procs[h].state {
                self.cpus[c] = Some(h);
                self.procs[h].cpu = Some(c);
                self.procs[h].state = State::Issuing;
                self.run(h, now, resume);
                return;
            }
        }
    }
}

impl crate::engine::ClosedSource for SynthLoop {
    fn start(&mut self) -> Vec<(u32, IoRecord)> {
        // Every generator draws its first request (DiskSim counts them all) and joins
        // the dispatch queue, last generator first; each processor takes one.
        // DiskSim's process list runs from the last generator.
        let order: Vec<usize> = if self.disksim_stream() {
            (0..self.procs.len()).rev().collect()
        } else {
            (0..self.procs.len()).collect()
        };
        for g in order {
            self.generated += 1;
            match self.draw(g).and_then(|d| self.append(g, d)) {
                Some(d) => self.procs[g].pending = Some(d),
                None => {
                    self.stopped_at.set(Some(SimTime::ZERO));
                    return Vec::new();
                }
            }
            self.procs[g].state = State::Ready(Resume::Advance);
        }
        if let Streams::Shared(r) = &mut self.streams {
            // DiskSim reseeds as the run starts.
            *r = Rand48::seeded(DISKSIM_RUN_SEED);
        }
        self.dispq = (0..self.procs.len()).rev().collect();
        for c in 0..self.cpus.len() {
            self.dispatch(c, SimTime::ZERO);
        }
        self.ready.drain(..).collect()
    }

    fn on_complete(&mut self, process: u32, now: SimTime) -> Option<IoRecord> {
        // Unused: the engine calls `completed`, which knows which request it was.
        let _ = (process, now);
        None
    }

    fn issued(&mut self, process: u32, index: u64, now: SimTime) -> Option<IoRecord> {
        let g = process as usize;
        let d = self.procs.get_mut(g)?.pending.take()?;
        self.procs[g].prev = Some(d);
        if d.critical || d.limited {
            self.seq_of.insert(index, d.seq);
        }
        if d.critical {
            self.sleep(g, now, d.seq, Resume::Generate);
            return None;
        }
        if d.limited {
            self.procs[g].outstanding.push(d.seq);
        }
        self.run(g, now, Resume::Generate);
        None
    }

    fn completed(&mut self, process: u32, index: u64, now: SimTime) -> Option<IoRecord> {
        let g = process as usize;
        let seq = self.seq_of.remove(&index)?;
        let p = self.procs.get_mut(g)?;
        p.outstanding.retain(|&i| i != seq);
        match p.state {
            State::Asleep { seq: i, then } if i == seq => {
                // The completion interrupt (on processor 0) makes it ready.
                p.state = State::Ready(then);
                self.dispq.push_back(g);
                self.dispatch(0, now);
            }
            // Done before the limit: the process never stopped and computes on.
            State::Limit { seq: i, at } if i == seq => {
                self.procs[g].state = State::Issuing;
                self.run(g, at.max(now), Resume::Advance);
            }
            _ => {}
        }
        None
    }

    fn take_other(&mut self) -> Option<(u32, IoRecord)> {
        self.ready.pop_front()
    }

    fn take_tick(&mut self) -> Option<SimTime> {
        self.ticks.pop()
    }

    fn tick(&mut self, now: SimTime) {
        // A process reaching a time limit whose request is still out sleeps.
        for g in 0..self.procs.len() {
            if let State::Limit { seq, at } = self.procs[g].state {
                if at == now && self.procs[g].outstanding.contains(&seq) {
                    self.sleep(g, now, seq, Resume::Advance);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::hdd::Request;
    use crate::engine::{run, RequestLog, RunOptions, Source, Units};
    use crate::node::{Device, Done};

    /// Serves every request in a fixed time, all in parallel.
    struct Delay {
        ns: u64,
        busy: Vec<(SimTime, Request)>,
    }

    impl Device for Delay {
        fn capacity(&self) -> u64 {
            1 << 40
        }
        fn outstanding(&self) -> usize {
            self.busy.len()
        }
        fn can_accept(&self) -> bool {
            true
        }
        fn submit(&mut self, now: SimTime, req: Request) {
            self.busy.push((SimTime(now.0 + self.ns), req));
        }
        fn next_wake(&self) -> Option<SimTime> {
            self.busy.iter().map(|b| b.0).min()
        }
        fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
            let (done, busy): (Vec<_>, Vec<_>) = self.busy.drain(..).partition(|b| b.0 <= now);
            self.busy = busy;
            for (t, req) in done {
                out.push(Done::served(req, SimTime(t.0 - self.ns), t));
            }
        }
        fn describe(&self, _depth: usize, _out: &mut String) {}
        fn report_until(&self, _: &str, _: SimTime, _: &mut Vec<crate::node::NodeReport>) {}
    }

    fn open_gen(device: u32) -> SynthGen {
        SynthGen {
            devices: vec![device],
            capacity: 17_783_240,
            blocking: 8,
            p_seq: 0.0,
            p_local: 0.0,
            p_read: 0.66,
            p_critical: 0.0,
            p_limited: 0.0,
            time_limit: Dist::Normal {
                mean: 30.0,
                sd: 100.0,
            },
            general_think: Dist::Exponential {
                base: 0.0,
                mean: 25.0,
            },
            seq_think: Dist::Normal { mean: 0.0, sd: 0.0 },
            local_think: Dist::Exponential {
                base: 0.0,
                mean: 0.0,
            },
            local_distance: Dist::Normal {
                mean: 0.0,
                sd: 40000.0,
            },
            sizes: Dist::Exponential {
                base: 0.0,
                mean: 8.0,
            },
        }
    }

    fn spec(generators: Vec<SynthGen>, cpus: u32, seed: u64) -> SynthSpec {
        SynthSpec {
            generators,
            requests: 10_000,
            max_time_ms: 1e6,
            cpus,
            seed,
            stream: SynthStream::PerGenerator,
        }
    }

    /// Runs `spec` on a device answering in `service_ms`; the completed requests in
    /// completion order, and the loop.
    fn drive(spec: &SynthSpec, service_ms: u64) -> (Vec<RequestLog>, SynthLoop) {
        let mut src = SynthLoop::new(spec).expect("valid");
        let mut dev = Delay {
            ns: service_ms * 1_000_000,
            busy: Vec::new(),
        };
        let mut logs = Vec::new();
        run(
            &mut dev,
            &Units::single(1 << 40),
            Source::Closed(&mut src),
            RunOptions::default(),
            &mut |l| logs.push(*l),
        )
        .expect("runs");
        assert!(src.error().is_none());
        (logs, src)
    }

    #[test]
    fn round_ns_matches_f64_round() {
        let old = |ms: f64| (ms * 1e6).round().clamp(0.0, (1u64 << 62) as f64) as u64;
        let mut r = Rand48::seeded(9);
        let mut cases = vec![
            0.0,
            -0.0,
            0.4e-6,
            0.5e-6,
            0.6e-6,
            1.5e-6,
            2.5e-6,
            -0.4e-6,
            -0.6e-6,
            -3.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4.503_599_627_370_495e9,
            4.503_599_627_370_496e9,
            9.007_199_254_740_993e9,
            4.611_686_018_427_388e12,
            1e300,
            // Just under half a nanosecond.
            f64::from_bits(0.5e-6f64.to_bits() - 1),
        ];
        for _ in 0..100_000 {
            let u = r.next_f64();
            cases.push(u * 1e3);
            cases.push((u * 1e7).floor() / 1e6 + 0.5e-6);
            cases.push(-u * 10.0);
        }
        for ms in cases {
            assert_eq!(ms_to_ns(ms), old(ms), "{ms}");
        }
    }

    #[test]
    fn disksims_stream_changes_only_the_first_request_with_the_seed() {
        // DiskSim reseeds its one stream as the run starts: two seeds give the same
        // requests after each generator's first; spindle's own streams do not.
        let key = |l: &RequestLog| (l.lbn, l.blocks, l.write);
        let requests = |seed, stream| {
            let s = SynthSpec {
                stream,
                requests: 200,
                ..spec(vec![open_gen(0)], 1, seed)
            };
            let (mut logs, _) = drive(&s, 1);
            logs.sort_by_key(|l| l.arrival);
            logs.iter().map(key).collect::<Vec<_>>()
        };
        let (a, b) = (
            requests(1, SynthStream::Disksim),
            requests(2, SynthStream::Disksim),
        );
        assert_eq!(a.len(), 200);
        assert_ne!(a[0], b[0], "the seed draws the first request");
        assert_eq!(a[1..], b[1..], "the rest is DiskSim's run stream");
        let (c, d) = (
            requests(1, SynthStream::PerGenerator),
            requests(2, SynthStream::PerGenerator),
        );
        assert_ne!(c[1..], d[1..]);
    }

    #[test]
    fn an_open_generator_draws_diskims_statistics_for_any_seed() {
        // Sizes: floor(X) >= 1 sector, rounded up to 8: X - 1 is again exponential
        // (mean 8), so the count of 8-sector units is geometric with ratio e^-1.
        let mean_sectors = 8.0 / (1.0 - (-1.0f64).exp());
        for seed in [1, 2, 3, 11, 42] {
            let (mut logs, src) = drive(&spec(vec![open_gen(0)], 1, seed), 1);
            assert_eq!(logs.len(), 10_000, "every generated request is issued");
            assert_eq!(src.generated(), 10_000);
            assert!(src.stopped_at().is_some());
            logs.sort_by_key(|l| l.arrival);
            let n = logs.len() as f64;
            let reads = logs.iter().filter(|l| !l.write).count() as f64 / n;
            assert!((reads - 0.66).abs() < 0.02, "seed {seed}: reads {reads}");
            let size = logs.iter().map(|l| l.blocks as f64).sum::<f64>() / n;
            assert!(
                (size / mean_sectors - 1.0).abs() < 0.04,
                "seed {seed}: mean size {size} vs {mean_sectors}"
            );
            assert!(logs.iter().all(|l| l.blocks % 8 == 0 && l.lbn % 8 == 0));
            assert!(logs
                .iter()
                .all(|l| l.lbn + u64::from(l.blocks) < 17_783_240 / 8 * 8));
            let span = (logs[logs.len() - 1].arrival.0 - logs[0].arrival.0) as f64;
            let gap_ms = span / (n - 1.0) / 1e6;
            assert!(
                (gap_ms / 25.0 - 1.0).abs() < 0.04,
                "seed {seed}: gap {gap_ms}"
            );
        }
    }

    #[test]
    fn with_one_processor_only_the_last_open_generator_runs() {
        let s = spec(vec![open_gen(0), open_gen(1), open_gen(2)], 1, 7);
        let (logs, src) = drive(&s, 1);
        assert!(logs.iter().all(|l| l.device == 0 && l.process == Some(2)));
        // Three first requests are counted as generated; two never issue.
        assert_eq!(src.generated(), 10_000);
        assert_eq!(logs.len(), 9_998);
        // With three processors all three run.
        let s = SynthSpec { cpus: 3, ..s };
        let (logs, _) = drive(&s, 1);
        for p in 0..3 {
            let k = logs.iter().filter(|l| l.process == Some(p)).count();
            assert!((3_000..3_700).contains(&k), "process {p}: {k}");
        }
    }

    #[test]
    fn time_critical_requests_make_their_process_wait() {
        let mut g = open_gen(0);
        g.p_critical = 1.0;
        g.general_think = Dist::Exponential {
            base: 0.0,
            mean: 0.0,
        };
        for seed in [1, 5, 9] {
            let (logs, _) = drive(&spec(vec![g.clone(); 5], 5, seed), 10);
            for p in 0..5 {
                let mine: Vec<_> = logs.iter().filter(|l| l.process == Some(p)).collect();
                for w in mine.windows(2) {
                    assert_eq!(
                        w[1].arrival, w[0].done,
                        "zero think: next issue at completion"
                    );
                }
            }
            // Five processes, one request each in flight, 10 ms apiece.
            let end = logs.iter().map(|l| l.done.0).max().unwrap();
            assert_eq!(end, 10_000 / 5 * 10_000_000);
        }
    }

    #[test]
    fn time_limits_count_from_the_latest_draw_as_diskims_do() {
        // DiskSim counts a limit from the draw of its request, think time included,
        // and re-bases pending limits at every draw: with a constant 10 ms think and a
        // 0 ms limit, a limit (10 ms) is never strictly within the next think (10 ms),
        // so the process never waits although every request takes 30 ms.
        let mut g = open_gen(0);
        g.p_limited = 1.0;
        g.general_think = constant(10.0);
        g.time_limit = constant(0.0);
        let (mut logs, _) = drive(&spec(vec![g.clone()], 1, 2), 30);
        logs.sort_by_key(|l| l.arrival);
        for w in logs.windows(2) {
            assert_eq!(w[1].arrival.0 - w[0].arrival.0, 10_000_000);
        }
        // With varying thinks, a limit falls within the next think whenever that
        // think is the longer: the process then waits for the request, which is out.
        g.general_think = Dist::Uniform {
            min: 5.0,
            max: 15.0,
        };
        for seed in [2, 4] {
            let (mut logs, _) = drive(&spec(vec![g.clone()], 1, seed), 30);
            logs.sort_by_key(|l| l.arrival);
            let waited = logs
                .windows(2)
                .filter(|w| w[1].arrival >= w[0].done)
                .count();
            let n = logs.len() - 1;
            assert!(
                waited > n / 10 && waited < n,
                "seed {seed}: waited {waited} of {n}"
            );
        }
        let mut g = open_gen(0);
        g.p_limited = 1.0;
        // A limit far beyond the think times: the process never waits (open).
        g.time_limit = Dist::Uniform { min: 1e5, max: 2e5 };
        let (mut limited, _) = drive(&spec(vec![g.clone()], 1, 3), 30);
        let (mut open, _) = drive(&spec(vec![open_gen(0)], 1, 3), 30);
        limited.sort_by_key(|l| l.arrival);
        open.sort_by_key(|l| l.arrival);
        let overlaps = limited
            .windows(2)
            .filter(|w| w[1].arrival < w[0].done)
            .count();
        assert!(
            overlaps > 100,
            "requests overlap as in an open loop: {overlaps}"
        );
        let gap =
            |v: &[RequestLog]| (v[v.len() - 1].arrival.0 - v[0].arrival.0) / (v.len() as u64 - 1);
        let (a, b) = (gap(&limited) as f64, gap(&open) as f64);
        assert!((a / b - 1.0).abs() < 0.06, "{a} vs {b}");
    }

    #[test]
    fn sequential_requests_follow_on_and_runs_are_deterministic() {
        let mut g = open_gen(0);
        g.p_seq = 1.0;
        let (mut logs, _) = drive(&spec(vec![g.clone()], 1, 5), 1);
        logs.sort_by_key(|l| l.arrival);
        let follow = logs
            .windows(2)
            .filter(|w| w[1].lbn == w[0].lbn + u64::from(w[0].blocks))
            .count();
        assert!(follow >= logs.len() - 5, "{follow}");
        let key = |v: &[RequestLog]| {
            v.iter()
                .map(|l| (l.arrival, l.lbn, l.blocks, l.write))
                .collect::<Vec<_>>()
        };
        let (again, _) = drive(&spec(vec![g.clone()], 1, 5), 1);
        let mut again = again;
        again.sort_by_key(|l| l.arrival);
        assert_eq!(key(&logs), key(&again));
        let (other, _) = drive(&spec(vec![g], 1, 6), 1);
        assert_ne!(key(&logs), key(&other));
    }

    /// A generator that both thinks and waits for every request (time-critical).
    fn waiting_thinker(device: u32) -> SynthGen {
        let mut g = open_gen(device);
        g.p_critical = 1.0;
        g
    }

    fn constant(ms: f64) -> Dist {
        Dist::TwoValue {
            default: ms,
            second: ms,
            p_second: 0.0,
        }
    }

    #[test]
    fn woken_processes_run_only_on_processor_zero() {
        // Two generators that think 10 ms and wait for each request, two processors,
        // a 1 ms device. Both issue at 10 ms and sleep; both wake at 11 ms, into the
        // dispatch queue, which only processor 0 takes from: processor 1 stays idle
        // for good, and the two processes take turns on processor 0, one request
        // every 10 ms (with a processor each: two every 11 ms).
        for seed in [3, 8] {
            let mut g = waiting_thinker(0);
            g.general_think = constant(10.0);
            let s = SynthSpec {
                requests: 400,
                ..spec(vec![g.clone(), g], 2, seed)
            };
            let (mut logs, _) = drive(&s, 1);
            logs.sort_by_key(|l| (l.arrival, l.id));
            let ms = |t: SimTime| t.0 / 1_000_000;
            assert_eq!((ms(logs[0].arrival), ms(logs[1].arrival)), (10, 10));
            for (i, w) in logs[2..].windows(2).enumerate() {
                assert_eq!(
                    w[1].arrival.0 - w[0].arrival.0,
                    10_000_000,
                    "seed {seed} at {i}"
                );
                assert_ne!(w[1].process, w[0].process, "they alternate");
            }
            assert_eq!(ms(logs[2].arrival), 21);
        }
    }

    #[test]
    fn a_process_that_never_waits_keeps_its_processor_from_woken_ones() {
        // Processor 0 starts with the last generator (open, never sleeps); the waiting
        // one starts on processor 1, sleeps at its first issue, and, woken, never gets
        // a processor again: processor 0 is never idle and processor 1 never looks.
        let s = SynthSpec {
            requests: 3_000,
            ..spec(vec![waiting_thinker(0), open_gen(0)], 2, 4)
        };
        let (logs, _) = drive(&s, 1);
        assert_eq!(logs.iter().filter(|l| l.process == Some(0)).count(), 1);
        assert!(logs.iter().filter(|l| l.process == Some(1)).count() > 2_900);
    }

    #[test]
    fn the_maximum_time_stops_the_workload() {
        let s = SynthSpec {
            max_time_ms: 1000.0,
            ..spec(vec![open_gen(0)], 1, 1)
        };
        let (logs, src) = drive(&s, 1);
        let stop = src.stopped_at().expect("stopped");
        assert!(stop.0 >= 1_000_000_000);
        assert!((20..80).contains(&logs.len()), "{}", logs.len());
        assert!(logs.iter().all(|l| l.arrival <= stop));
    }
}
