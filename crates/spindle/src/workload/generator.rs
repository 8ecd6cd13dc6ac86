//! The request generator: addresses, sizes and read/write from a [`GenSpec`].

use super::spec::{GenSpec, Pattern, Sizes};
use super::zipf::Zipf;
use super::{rng, streams, WorkloadError};
use rand::distributions::{Distribution, WeightedIndex};
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// Draws `(lbn, blocks, write)` triples from a validated [`GenSpec`], deterministically
/// from a seed. Every request lies within `[start, start + span)`, hence within the
/// capacity.
///
/// Per request it draws, in order, the size, the position, and read/write, all from
/// one ChaCha8 stream; the Zipf bucket layout comes from a separate stream of the same
/// seed. `RequestGen::new(&spec.gen, spec.seed)` yields exactly the addresses that
/// [`super::open_workload`] gives for `spec`.
#[derive(Clone, Debug)]
pub struct RequestGen {
    start: u64,
    span: u64,
    align: Option<u64>,
    read_fraction: f64,
    sizes: SizeDist,
    pattern: PatternState,
    rng: ChaCha8Rng,
}

#[derive(Clone, Debug)]
enum SizeDist {
    Fixed(u32),
    Uniform(u32, u32),
    Choice(Vec<u32>, WeightedIndex<f64>),
}

#[derive(Clone, Debug)]
enum PatternState {
    Uniform,
    Sequential {
        run_len: u64,
        /// Requests left in the current run.
        left: u64,
        /// Where the next request of the run starts.
        next: u64,
    },
    Walk {
        max_step: u64,
        /// The previous request's last sector (offset from `start`), once there is one.
        last: Option<u64>,
    },
    Zipf {
        zipf: Zipf,
        buckets: u64,
        /// Bucket index by popularity rank (rank 1 at index 0).
        layout: Arc<[u32]>,
    },
}

impl RequestGen {
    /// A generator for `spec` (validated here) seeded with `seed`.
    pub fn new(spec: &GenSpec, seed: u64) -> Result<RequestGen, WorkloadError> {
        spec.validate()?;
        let layout = zipf_layout(spec, seed);
        RequestGen::build(spec, layout, rng(seed, streams::OPEN_REQUESTS))
    }

    /// A generator sharing an already built Zipf layout, drawing from `rng`.
    /// `spec` must be valid.
    pub(crate) fn build(
        spec: &GenSpec,
        layout: Option<Arc<[u32]>>,
        rng: ChaCha8Rng,
    ) -> Result<RequestGen, WorkloadError> {
        let span = spec.resolved_span()?;
        let sizes = match &spec.sizes {
            Sizes::Fixed { sectors } => SizeDist::Fixed(*sectors),
            Sizes::Uniform { min, max } => SizeDist::Uniform(*min, *max),
            Sizes::Choice { choices } => {
                let w = WeightedIndex::new(choices.iter().map(|c| c.1)).map_err(|e| {
                    WorkloadError::new("sizes.choices", format!("has bad weights: {e}"))
                })?;
                SizeDist::Choice(choices.iter().map(|c| c.0).collect(), w)
            }
        };
        let pattern = match spec.pattern {
            Pattern::Uniform => PatternState::Uniform,
            Pattern::Sequential { run_len } => PatternState::Sequential {
                run_len,
                left: 0,
                next: 0,
            },
            Pattern::Walk { max_step } => PatternState::Walk {
                max_step,
                last: None,
            },
            Pattern::Zipf { theta, buckets } => PatternState::Zipf {
                zipf: Zipf::new(buckets, theta)?,
                buckets,
                layout: layout.expect("a Zipf pattern has a layout"),
            },
        };
        Ok(RequestGen {
            start: spec.start,
            span,
            align: spec.align,
            read_fraction: spec.read_fraction,
            sizes,
            pattern,
            rng,
        })
    }

    /// The next request: `(first sector, sectors, is_write)`. The sequence never ends.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> (u64, u32, bool) {
        let blocks = match &self.sizes {
            SizeDist::Fixed(n) => *n,
            SizeDist::Uniform(min, max) => self.rng.gen_range(*min..=*max),
            SizeDist::Choice(sizes, w) => sizes[w.sample(&mut self.rng)],
        };
        let size = blocks as u64;
        let align = self.align.unwrap_or(size);
        // Aligned start slots k, at start + k * align, whose request fits in the region.
        let last_slot = (self.span - size) / align;
        let offset = match &mut self.pattern {
            PatternState::Uniform => self.rng.gen_range(0..=last_slot) * align,
            PatternState::Sequential {
                run_len,
                left,
                next,
            } => {
                // `next <= span` always; written so that it cannot overflow.
                let off = if *left > 0 && size <= self.span - *next {
                    *next
                } else {
                    *left = *run_len;
                    self.rng.gen_range(0..=last_slot) * align
                };
                *left -= 1;
                *next = off + size;
                off
            }
            PatternState::Walk { max_step, last } => {
                let slot = match *last {
                    None => self.rng.gen_range(0..=last_slot),
                    Some(p) => {
                        // Aligned slots whose first sector is within `max_step` of `p`.
                        let lo = p.saturating_sub(*max_step).div_ceil(align);
                        let hi = (p.saturating_add(*max_step) / align).min(last_slot);
                        if lo <= hi {
                            self.rng.gen_range(lo..=hi)
                        } else {
                            (p.saturating_add(align / 2) / align).min(last_slot)
                        }
                    }
                };
                let off = slot * align;
                *last = Some(off + size - 1);
                off
            }
            PatternState::Zipf {
                zipf,
                buckets,
                layout,
            } => {
                let rank = zipf.sample(&mut self.rng);
                let b = layout[(rank - 1) as usize] as u64;
                let (lo, hi) = bucket_range(self.span, *buckets, b);
                let pos = self.rng.gen_range(lo..hi);
                (pos / align).min(last_slot) * align
            }
        };
        let write = self.rng.gen::<f64>() >= self.read_fraction;
        (self.start + offset, blocks, write)
    }

    /// For a Zipf pattern, the bucket index of each popularity rank (the hottest bucket
    /// first). Bucket `b` covers offsets `[b * span / buckets, (b + 1) * span / buckets)`
    /// from `start` (rounded down).
    pub fn zipf_layout(&self) -> Option<&[u32]> {
        match &self.pattern {
            PatternState::Zipf { layout, .. } => Some(layout),
            _ => None,
        }
    }
}

/// Offsets `[lo, hi)` of bucket `b` of `buckets` equal parts of `span` (never empty,
/// as `buckets <= span`).
fn bucket_range(span: u64, buckets: u64, b: u64) -> (u64, u64) {
    let edge = |i: u64| (i as u128 * span as u128 / buckets as u128) as u64;
    (edge(b), edge(b + 1))
}

/// The seeded random permutation of Zipf ranks to buckets, if the pattern is Zipf.
pub(crate) fn zipf_layout(spec: &GenSpec, seed: u64) -> Option<Arc<[u32]>> {
    match spec.pattern {
        Pattern::Zipf { buckets, .. } => {
            let mut layout: Vec<u32> = (0..buckets as u32).collect();
            layout.shuffle(&mut rng(seed, streams::LAYOUT));
            Some(layout.into())
        }
        _ => None,
    }
}
