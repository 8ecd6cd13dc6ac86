//! Open-loop workloads: requests at predetermined times.

use super::generator::RequestGen;
use super::spec::{Arrivals, OpenSpec};
use super::{rng, streams, WorkloadError};
use crate::time::SimTime;
use crate::trace::IoRecord;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The `count` requests of `spec`, in arrival order (the first at time 0).
///
/// # Panics
///
/// If the spec is invalid (see [`OpenSpec::validate`]; [`try_open_workload`] returns the
/// error instead), e.g. if no capacity was filled in.
pub fn open_workload(spec: &OpenSpec) -> Vec<IoRecord> {
    try_open_workload(spec).unwrap_or_else(|e| panic!("invalid workload spec: {e}"))
}

/// [`open_workload`], returning a [`WorkloadError`] for an invalid spec.
///
/// The same records as [`OpenStream`], collected.
pub fn try_open_workload(spec: &OpenSpec) -> Result<Vec<IoRecord>, WorkloadError> {
    Ok(OpenStream::new(spec)?.collect())
}

/// The `count` requests of an [`OpenSpec`], generated one at a time: exactly the records
/// of [`open_workload`], bit for bit and in the same order, in memory that does not
/// grow with `count` (the generator state, plus a Zipf pattern's bucket layout, which
/// depends on the number of buckets only).
///
/// ```
/// # use spindle::workload::*;
/// let spec = OpenSpec {
///     gen: GenSpec {
///         pattern: Pattern::Uniform,
///         sizes: Sizes::Fixed { sectors: 8 },
///         read_fraction: 0.5,
///         align: None,
///         start: 0,
///         span: None,
///         capacity: Some(1 << 20),
///     },
///     arrivals: Arrivals::Poisson { rate_per_s: 100.0 },
///     count: 1000,
///     seed: 1,
///     device: 0,
/// };
/// let stream = OpenStream::new(&spec).unwrap();
/// assert_eq!(stream.remaining(), 1000);
/// assert!(stream.eq(open_workload(&spec)));
/// ```
#[derive(Clone, Debug)]
pub struct OpenStream {
    gen: RequestGen,
    clock: Clock,
    device: u32,
    /// Records still to come.
    left: u64,
}

impl OpenStream {
    /// Validates `spec` and prepares its stream; nothing is drawn until the first `next`.
    pub fn new(spec: &OpenSpec) -> Result<OpenStream, WorkloadError> {
        spec.validate()?;
        Ok(OpenStream {
            gen: RequestGen::new(&spec.gen, spec.seed)?,
            clock: Clock::new(&spec.arrivals, spec.seed),
            device: spec.device,
            left: spec.count,
        })
    }

    /// Records still to come (`count` at first, 0 once exhausted).
    pub fn remaining(&self) -> u64 {
        self.left
    }
}

impl Iterator for OpenStream {
    type Item = IoRecord;

    fn next(&mut self) -> Option<IoRecord> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        // The arrival first, then the request: each from its own stream, so the order
        // only matters for clarity.
        let arrival = self.clock.next_arrival();
        let (lbn, blocks, write) = self.gen.next();
        Some(IoRecord {
            arrival,
            device: self.device,
            lbn,
            blocks,
            write,
            content: Vec::new(),
        })
    }

    /// Exact while the remaining count fits in a `usize`.
    fn size_hint(&self) -> (usize, Option<usize>) {
        match usize::try_from(self.left) {
            Ok(n) => (n, Some(n)),
            Err(_) => (usize::MAX, None),
        }
    }
}

impl std::iter::FusedIterator for OpenStream {}

/// Successive arrival times.
#[derive(Clone, Debug)]
struct Clock {
    arrivals: Arrivals,
    rng: ChaCha8Rng,
    index: u64,
    /// Poisson: the exact (unrounded) time of the next arrival, in ns.
    t_ns: f64,
}

impl Clock {
    fn new(arrivals: &Arrivals, seed: u64) -> Clock {
        Clock {
            arrivals: arrivals.clone(),
            rng: rng(seed, streams::OPEN_ARRIVALS),
            index: 0,
            t_ns: 0.0,
        }
    }

    fn next_arrival(&mut self) -> SimTime {
        let i = self.index;
        self.index += 1;
        match self.arrivals {
            Arrivals::Fixed { interval_ns } => SimTime(i.saturating_mul(interval_ns)),
            Arrivals::Poisson { rate_per_s } => {
                // Accumulate unrounded times so rounding errors do not build up.
                let t = self.t_ns;
                self.t_ns += exponential(&mut self.rng, 1e9 / rate_per_s);
                SimTime(t.round() as u64) // `as` saturates
            }
        }
    }
}

/// An exponential variate with mean `mean` (by inversion; 1 - u is in (0, 1]).
pub(crate) fn exponential<R: Rng + ?Sized>(rng: &mut R, mean: f64) -> f64 {
    let u: f64 = rng.gen();
    -(1.0 - u).ln() * mean
}
