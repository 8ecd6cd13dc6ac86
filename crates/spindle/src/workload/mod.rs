//! Synthetic workloads: seeded request generators, open-loop arrival processes, a
//! closed-loop driver, and trace time compression.
//!
//! Everything here is deterministic: a spec plus its `seed` always yields the same
//! requests, bit for bit. Randomness comes from [`ChaCha8Rng`] seeded from the `u64`
//! seed, with a separate ChaCha *stream* per purpose (hot-spot layout, addresses,
//! arrivals, each closed-loop process), so changing one aspect of a spec (say, the
//! arrival rate) leaves the others (the address sequence) unchanged.
//!
//! * [`RequestGen`] draws `(lbn, blocks, write)` from a [`GenSpec`]: an address
//!   [`Pattern`] (uniform, sequential runs, Zipf-popular buckets, or a random walk
//!   bounded by the inter-request distance), a size
//!   distribution ([`Sizes`]), an alignment, a read fraction, and the device capacity.
//! * [`open_workload`] turns an [`OpenSpec`] into a list of [`IoRecord`]s with
//!   [`Arrivals`] fixed-interval or Poisson; [`OpenStream`] yields the same records one
//!   at a time in memory that does not grow with the request count (the list is that
//!   stream, collected).
//! * [`ClosedLoop`] runs a [`ClosedSpec`]: `processes` processes that each issue a
//!   request, wait for it to complete, think ([`Think`]), and issue the next. The
//!   simulation loop (in the storage stack) calls [`ClosedLoop::start`] and
//!   [`ClosedLoop::on_complete`].
//! * [`SynthLoop`] runs a [`SynthSpec`], DiskSim's synthetic generator (`disksim_synthio`,
//!   read from a `.parv` by `disksim::synthio`): generator processes whose requests are,
//!   one by one, open (never waited for), time-critical (waited for) or time-limited
//!   (waited for after a computing-time limit); see [`synth`] for DiskSim's processor
//!   rule.
//! * [`WindowedReplay`] replays a fixed request sequence (a synthetic or real trace) in
//!   order with no idle time, keeping a fixed number of requests outstanding.
//! * [`only_device`], [`limit`] and [`compress_stream`]: a run's trace filters as
//!   iterator adapters, for traces streamed from their file (see [`StreamItem`]).
//! * [`compress`] divides a trace's arrival times by a factor (the thesis's time
//!   compression, §3.5 / MIMIC-F3.2). Compressing a trace can make a request arrive
//!   while an earlier request to the same blocks is still being served; the thesis
//!   holds such a request until the earlier one completes. That rule needs completion
//!   times, so the host queue applies it (`hold_overlapping`). [`overlaps`] says
//!   whether two trace records touch a common block.
//!
//! # TOML shape
//!
//! The specs (de)serialize with serde, kebab-case field names and `kind`-tagged enums,
//! so a config file can carry them. [`WorkloadSpec`] is the `[workload]` table:
//!
//! ```toml
//! [workload]
//! kind = "synthetic"               # open loop ("closed" for a closed loop, below)
//! pattern = { kind = "zipf", theta = 0.9, buckets = 1000 }
//!     # or { kind = "uniform" } | { kind = "sequential", run-len = 16 }
//!     #  | { kind = "walk", max-step = 51200 }
//! sizes = { kind = "fixed", sectors = 8 }
//!     # or { kind = "uniform", min = 8, max = 128 }
//!     #  | { kind = "choice", choices = [[8, 3.0], [128, 1.0]] }   # [sectors, weight]
//! read-fraction = 0.66
//! arrivals = { kind = "poisson", rate-per-s = 100 }
//!     # or { kind = "fixed", interval-ns = 1000000 }
//! count = 10000
//! seed = 1                         # optional, default 0
//! # optional:
//! # align = 8                      # sectors; default: each request's own size
//! # start = 0                      # first sector of the addressed region
//! # span = 1000000                 # sectors in the region; default: capacity - start
//! # capacity = 17783240            # device sectors; normally filled in from the disk
//! # device = 0                     # device number written into the records
//! ```
//!
//! ```toml
//! [workload]
//! kind = "closed"
//! processes = 8
//! think = { kind = "exponential", mean-ns = 5000000 }
//!     # or { kind = "fixed", ns = 1000000 } | { kind = "none" } (the default)
//! requests = 10000                 # in total, over all processes
//! pattern = { kind = "uniform" }
//! sizes = { kind = "fixed", sectors = 8 }
//! read-fraction = 1.0
//! seed = 1
//! # align, start, span, capacity, device as above
//! ```
//!
//! Unknown fields are rejected. Deserialization checks only the shape; call
//! `validate()` (or let the constructors do it) for the value checks, which return a
//! [`WorkloadError`] naming the field, e.g. `read-fraction must be within 0..=1, got 1.5`.
//! The device capacity is usually known only from the disk model: fill it in with
//! `with_capacity` before generating.

mod closed;
mod generator;
mod open;
pub mod rand48;
mod replay;
mod spec;
mod stream;
pub mod synth;
pub mod zipf;

pub use closed::ClosedLoop;
pub use generator::RequestGen;
pub use open::{open_workload, try_open_workload, OpenStream};
pub use replay::WindowedReplay;
pub use spec::{
    check_sectors_moved, Arrivals, ClosedSpec, GenSpec, OpenSpec, Pattern, Sizes, Think,
    WorkloadSpec, MAX_PROCESSES, MAX_REQUESTS, MAX_SECTORS_MOVED, MAX_ZIPF_BUCKETS,
};
pub use stream::{
    check_compress, compress_stream, earliest, limit, only_device, spread_devices, Limit,
    StreamItem, MAX_COMPRESS, MIN_COMPRESS,
};
pub use synth::{Dist, SynthGen, SynthLoop, SynthSpec};
pub use zipf::Zipf;

use crate::time::SimTime;
use crate::trace::IoRecord;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// An invalid workload spec: which field, and what is wrong with it.
///
/// Displays as `"{field} {problem}"`, e.g. `read-fraction must be within 0..=1, got 1.5`.
/// Field names are the kebab-case TOML names, dotted for nested tables
/// (`pattern.theta`, `arrivals.rate-per-s`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field} {problem}")]
pub struct WorkloadError {
    /// The offending field, as written in TOML (`read-fraction`, `pattern.buckets`).
    pub field: String,
    /// What is wrong, starting with a verb phrase (`must be within 0..=1, got 1.5`).
    pub problem: String,
}

impl WorkloadError {
    pub fn new(field: impl Into<String>, problem: impl Into<String>) -> WorkloadError {
        WorkloadError {
            field: field.into(),
            problem: problem.into(),
        }
    }
}

/// ChaCha stream numbers: one per purpose, so each is independent of the others.
pub(crate) mod streams {
    /// The Zipf bucket permutation (where the hot spots are).
    pub const LAYOUT: u64 = 0;
    /// Open loop: addresses, sizes, read/write.
    pub const OPEN_REQUESTS: u64 = 1;
    /// Open loop: arrival times.
    pub const OPEN_ARRIVALS: u64 = 2;
    /// Spreading requests over devices (far from the per-process streams).
    pub const SPREAD: u64 = u64::MAX - 1;
    /// Closed loop, process `p`: requests.
    pub fn process_requests(p: u32) -> u64 {
        3 + 2 * p as u64
    }
    /// Closed loop, process `p`: think times.
    pub fn process_think(p: u32) -> u64 {
        4 + 2 * p as u64
    }
    /// DiskSim synthetic generator `g` (far from the closed-loop streams).
    pub fn synth_generator(g: u32) -> u64 {
        (1 << 62) + g as u64
    }
}

/// The generator for `seed`, on its own `stream`.
pub(crate) fn rng(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(stream);
    r
}

/// Time compression: every arrival divided by `factor` (rounded to the nearest
/// nanosecond); everything else unchanged. `factor` > 1 speeds the trace up.
///
/// Order is preserved (division is monotonic). Requests that now overlap in time with
/// an unfinished earlier request to the same blocks are *not* delayed here: a host queue
/// with `hold_overlapping` holds them until every such earlier request completes.
///
/// # Panics
///
/// If `factor` is not finite and positive.
pub fn compress(records: &[IoRecord], factor: f64) -> Vec<IoRecord> {
    compress_stream(records.iter().cloned(), factor).collect()
}

/// Divides one record's arrival by `factor`, rounded to the nearest nanosecond.
fn compress_one(record: &mut IoRecord, factor: f64) {
    record.arrival = SimTime((record.arrival.0 as f64 / factor).round() as u64);
}

/// Whether `a` and `b` touch a common block: same device and intersecting sector
/// ranges `[lbn, lbn + blocks)`; a record of no sectors touches none. (The host queue's
/// hold rule, thesis §3.5, keeps its own index and counts a request of no sectors as
/// one sector; the engine sends none shorter.)
pub fn overlaps(a: &IoRecord, b: &IoRecord) -> bool {
    a.device == b.device
        && a.blocks > 0
        && b.blocks > 0
        && a.lbn < b.lbn.saturating_add(b.blocks as u64)
        && b.lbn < a.lbn.saturating_add(a.blocks as u64)
}

/// A guest writing one long sequential run faster than the array takes it: writes of
/// 4..=64 KiB (seeded) back to back from a seeded 4 KiB-aligned start.
pub fn sequential_guest(seed: u64, total_mib: u64) -> Vec<IoRecord> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut lbn = rng.gen_range(0..4096u64) * 8;
    let end = lbn + total_mib * 2048;
    let mut out = Vec::new();
    let mut t = 0u64;
    while lbn < end {
        let blocks = rng.gen_range(1..=16u32) * 8;
        out.push(IoRecord {
            arrival: SimTime(t),
            device: 0,
            lbn,
            blocks,
            write: true,
            content: Vec::new(),
        });
        lbn += u64::from(blocks);
        t += 20_000;
    }
    out
}
