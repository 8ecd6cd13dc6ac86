//! The trace filters of a run's `[workload]` (`device`, `limit`, `compress`) as
//! iterator adapters, for workloads streamed from a trace file
//! ([`crate::trace::open_trace`]) rather than held in a `Vec`.
//!
//! They take plain records or a trace stream's `Result<IoRecord, TraceError>` items
//! (any [`StreamItem`]); errors pass through untouched, so the first error still ends
//! the stream where the reader put it. Applied in the same order as the `Vec` versions
//! (device, then limit, then compression), they give the same records.

use super::compress_one;
use crate::trace::IoRecord;

/// An item of a record stream: a record, or a reader's `Result` (an error carries none).
pub trait StreamItem {
    fn record(&self) -> Option<&IoRecord>;
    fn record_mut(&mut self) -> Option<&mut IoRecord>;
}

impl StreamItem for IoRecord {
    fn record(&self) -> Option<&IoRecord> {
        Some(self)
    }
    fn record_mut(&mut self) -> Option<&mut IoRecord> {
        Some(self)
    }
}

impl<E> StreamItem for Result<IoRecord, E> {
    fn record(&self) -> Option<&IoRecord> {
        self.as_ref().ok()
    }
    fn record_mut(&mut self) -> Option<&mut IoRecord> {
        self.as_mut().ok()
    }
}

/// Keeps only trace device `device`'s records, renumbered device 0 (the `device` key:
/// `retain(|r| r.device == device)`, then every device set to 0).
pub fn only_device<I>(records: I, device: u32) -> impl Iterator<Item = I::Item>
where
    I: Iterator,
    I::Item: StreamItem,
{
    records
        .filter(move |item| item.record().is_none_or(|r| r.device == device))
        .map(|mut item| {
            if let Some(r) = item.record_mut() {
                r.device = 0;
            }
            item
        })
}

/// The first `n` records (the `limit` key: `truncate(n)`). Errors do not count; the
/// stream is not read past the `n`th record.
pub fn limit<I>(records: I, n: usize) -> Limit<I>
where
    I: Iterator,
    I::Item: StreamItem,
{
    Limit { records, left: n }
}

/// See [`limit`].
#[derive(Clone, Debug)]
pub struct Limit<I> {
    records: I,
    left: usize,
}

impl<I> Iterator for Limit<I>
where
    I: Iterator,
    I::Item: StreamItem,
{
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        if self.left == 0 {
            return None;
        }
        let item = self.records.next()?;
        if item.record().is_some() {
            self.left -= 1;
        }
        Some(item)
    }
}

/// The `n` records that arrive first, in arrival order (ties in file order): the whole
/// stream is read, but at most `n` records are held at once. What sorting every record
/// by arrival and keeping the first `n` gives, in memory for `n` alone.
pub fn earliest<E>(
    records: impl Iterator<Item = Result<IoRecord, E>>,
    n: usize,
) -> Result<Vec<IoRecord>, E> {
    use std::collections::BinaryHeap;
    /// A held record, ordered by arrival then by place in the file.
    struct Held(IoRecord, u64);
    impl Held {
        fn key(&self) -> (crate::time::SimTime, u64) {
            (self.0.arrival, self.1)
        }
    }
    impl PartialEq for Held {
        fn eq(&self, o: &Self) -> bool {
            self.key() == o.key()
        }
    }
    impl Eq for Held {}
    impl PartialOrd for Held {
        fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(o))
        }
    }
    impl Ord for Held {
        fn cmp(&self, o: &Self) -> std::cmp::Ordering {
            self.key().cmp(&o.key())
        }
    }
    // A max-heap of the `n` earliest so far: a later arrival than its top is dropped.
    let mut held: BinaryHeap<Held> = BinaryHeap::with_capacity(n.min(1 << 20));
    for (i, r) in records.enumerate() {
        let h = Held(r?, i as u64);
        if held.len() < n {
            held.push(h);
        } else if held.peek().is_some_and(|top| h < *top) {
            held.pop();
            held.push(h);
        }
    }
    // Keys are distinct (the place in the file), so an unstable sort is exact.
    let mut out = held.into_vec();
    out.sort_unstable();
    Ok(out.into_iter().map(|h| h.0).collect())
}

/// Time compression as a stream: [`super::compress`] record by record.
///
/// # Panics
///
/// If `factor` is not finite and positive (when called, not when iterated).
/// Smallest time-compression factor accepted (a factor below 1 stretches time; below
/// this, arrivals a few months into a trace would pass the clock's 584 years).
pub const MIN_COMPRESS: f64 = 1e-3;
/// Largest time-compression factor accepted.
pub const MAX_COMPRESS: f64 = 1e9;

/// Checks a compression factor against [`MIN_COMPRESS`]`..=`[`MAX_COMPRESS`].
pub fn check_compress(factor: f64) -> Result<(), super::WorkloadError> {
    if (MIN_COMPRESS..=MAX_COMPRESS).contains(&factor) {
        Ok(())
    } else {
        Err(super::WorkloadError::new(
            "compress",
            format!("must be within {MIN_COMPRESS}..={MAX_COMPRESS}, got {factor:e}"),
        ))
    }
}

pub fn compress_stream<I>(records: I, factor: f64) -> impl Iterator<Item = I::Item>
where
    I: Iterator,
    I::Item: StreamItem,
{
    assert!(
        factor.is_finite() && factor > 0.0,
        "compression factor must be finite and positive, got {factor}"
    );
    records.map(move |mut item| {
        if let Some(r) = item.record_mut() {
            compress_one(r, factor);
        }
        item
    })
}

/// Spreads records over `devices` devices: each record's device is drawn uniformly
/// from its own seeded stream, so a synthetic workload keeps every drive of a volume
/// set busy (`workload.spread`). Addresses and times are unchanged.
pub fn spread_devices<I>(records: I, devices: u32, seed: u64) -> impl Iterator<Item = I::Item>
where
    I: Iterator,
    I::Item: StreamItem,
{
    use rand::Rng;
    let mut rng = super::rng(seed, super::streams::SPREAD);
    let n = devices.max(1);
    records.map(move |mut item| {
        if let Some(r) = item.record_mut() {
            r.device = rng.gen_range(0..n);
        }
        item
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;
    use crate::trace::TraceError;
    use crate::workload::compress;

    fn records() -> Vec<IoRecord> {
        (0..50u64)
            .map(|i| IoRecord {
                arrival: SimTime(i * 1_234_567 + i % 3),
                device: (i % 3) as u32,
                lbn: i * 8,
                blocks: 8,
                write: i % 2 == 0,
                content: Vec::new(),
            })
            .collect()
    }

    /// What `WorkloadConfig::load` does to the `Vec`.
    fn vec_version(
        mut recs: Vec<IoRecord>,
        device: Option<u32>,
        n: Option<usize>,
        f: Option<f64>,
    ) -> Vec<IoRecord> {
        if let Some(d) = device {
            recs.retain(|r| r.device == d);
            for r in &mut recs {
                r.device = 0;
            }
        }
        if let Some(n) = n {
            recs.truncate(n);
        }
        if let Some(f) = f {
            recs = compress(&recs, f);
        }
        recs
    }

    fn stream_version<I>(
        recs: I,
        device: Option<u32>,
        n: Option<usize>,
        f: Option<f64>,
    ) -> Vec<I::Item>
    where
        I: Iterator + 'static,
        I::Item: StreamItem + 'static,
    {
        let mut s: Box<dyn Iterator<Item = I::Item>> = Box::new(recs);
        if let Some(d) = device {
            s = Box::new(only_device(s, d));
        }
        if let Some(n) = n {
            s = Box::new(limit(s, n));
        }
        if let Some(f) = f {
            s = Box::new(compress_stream(s, f));
        }
        s.collect()
    }

    #[test]
    fn same_records_as_the_vec_versions() {
        for device in [None, Some(0), Some(2), Some(7)] {
            for n in [None, Some(0), Some(5), Some(1000)] {
                for f in [None, Some(1.0), Some(3.0), Some(0.25)] {
                    let want = vec_version(records(), device, n, f);
                    let plain = stream_version(records().into_iter(), device, n, f);
                    assert_eq!(plain, want, "{device:?} {n:?} {f:?}");
                    let results = stream_version(
                        records().into_iter().map(Ok::<_, TraceError>),
                        device,
                        n,
                        f,
                    );
                    let results: Result<Vec<_>, _> = results.into_iter().collect();
                    assert_eq!(results.unwrap(), want, "{device:?} {n:?} {f:?}");
                }
            }
        }
    }

    #[test]
    fn errors_pass_through_and_limit_stops_reading() {
        let err = TraceError::file("x", "bad");
        let items = vec![
            Ok(records()[1].clone()),
            Err(err.clone()),
            Ok(records()[0].clone()),
        ];
        let out: Vec<_> = compress_stream(only_device(items.clone().into_iter(), 0), 2.0).collect();
        assert_eq!(out.len(), 2);
        assert_eq!(out[0], Err(err.clone()));
        // Device 1 is renumbered 0; the error is kept.
        let out: Vec<_> = only_device(items.clone().into_iter(), 1).collect();
        assert_eq!(out[0].as_ref().unwrap().device, 0);
        assert_eq!(out[1], Err(err.clone()));
        // An error does not count towards the limit.
        assert_eq!(limit(items.clone().into_iter(), 1).count(), 1);
        assert_eq!(limit(items.clone().into_iter(), 2).count(), 3);
        let mut read = 0;
        let counted = items.iter().inspect(|_| read += 1).cloned();
        assert_eq!(limit(counted, 1).count(), 1);
        assert_eq!(read, 1);
    }

    proptest::proptest! {
        /// The bounded heap keeps what sorting everything and truncating keeps, ties
        /// in file order included.
        #[test]
        fn earliest_is_sort_then_truncate(
            arrivals in proptest::collection::vec(0u64..20, 0..60),
            n in 0usize..70,
        ) {
            let recs: Vec<IoRecord> = arrivals
                .iter()
                .enumerate()
                .map(|(i, &a)| IoRecord {
                    arrival: SimTime(a),
                    device: 0,
                    lbn: i as u64,
                    blocks: 1,
                    write: false,
                    content: Vec::new(),
                })
                .collect();
            let mut sorted = recs.clone();
            sorted.sort_by_key(|r| r.arrival);
            sorted.truncate(n);
            let got = earliest(recs.into_iter().map(Ok::<_, TraceError>), n).unwrap();
            proptest::prop_assert_eq!(got, sorted);
        }
    }

    #[test]
    fn earliest_stops_at_the_first_error() {
        let items = vec![Ok(records()[0].clone()), Err(TraceError::file("x", "bad"))];
        assert!(earliest(items.into_iter(), 5).is_err());
    }
}
