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
pub fn try_open_workload(spec: &OpenSpec) -> Result<Vec<IoRecord>, WorkloadError> {
    spec.validate()?;
    let mut gen = RequestGen::new(&spec.gen, spec.seed)?;
    let mut clock = Clock::new(&spec.arrivals, spec.seed);
    let mut out = Vec::with_capacity(spec.count.min(1 << 20) as usize);
    for _ in 0..spec.count {
        let arrival = clock.next_arrival();
        let (lbn, blocks, write) = gen.next();
        out.push(IoRecord {
            arrival,
            device: spec.device,
            lbn,
            blocks,
            write,
            content: Vec::new(),
        });
    }
    Ok(out)
}

/// Successive arrival times.
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
