//! DiskSim's rms "demerit" (reference §10): the Ruemmler–Wilkes figure of
//! merit, i.e. the root-mean-square horizontal distance between two access
//! time CDFs.
//!
//! DiskSim does not compare raw samples. Each side is first binned into the
//! statistics distribution "1750 buckets, scale 1000, start 0, step 1, grow 1%",
//! printed as a CDF with 6-decimal cumulative fractions, and read back by the
//! `rms` tool. To reproduce its numbers (e.g. 0.107098 for cheetah9LP) we
//! rebuild that printed CDF exactly, including the rounding of the cumulative
//! column, and then sample it the same way `rms` does.

use std::sync::OnceLock;

/// Number of buckets in the stat definition.
const BUCKETS: usize = 1750;
/// The stat definition's scale: values in ms are binned in whole µs.
const SCALE: f64 = 1000.0;
/// Probability step between CDF samples; 10,000 samples in all.
const P_STEP: f64 = 0.0001;

/// Bucket edges in µs: b0 = 0, b_{k+1} = b_k + 1 + ⌊b_k/100⌋ (step 1, grow 1%).
/// Bucket i (1..=1750) holds truncated values in [b_{i-1}, b_i); the last one
/// also takes everything beyond. b_1750 is about 2.07e9 µs.
fn edges_us() -> &'static [u64; BUCKETS + 1] {
    static EDGES: OnceLock<[u64; BUCKETS + 1]> = OnceLock::new();
    EDGES.get_or_init(|| {
        let mut edges = [0u64; BUCKETS + 1];
        for k in 1..=BUCKETS {
            edges[k] = edges[k - 1] + 1 + edges[k - 1] / 100;
        }
        edges
    })
}

/// The bucket (1..=BUCKETS) a value in ms falls into.
///
/// The value is truncated to whole µs as DiskSim does. Values that DiskSim
/// never produces are clamped rather than rejected: negative values go to the
/// first bucket, +∞ and NaN to the last (overflow) bucket.
fn bucket_of(value_ms: f64, edges: &[u64; BUCKETS + 1]) -> usize {
    let us = (value_ms * SCALE).floor();
    if us.is_nan() {
        return BUCKETS;
    }
    // Number of edges <= us; both sides are integers, so the f64 compare is exact.
    let above = edges.partition_point(|&b| b as f64 <= us);
    above.clamp(1, BUCKETS)
}

/// A cumulative fraction as `rms` sees it after DiskSim printed it with `%f`
/// (6 decimals). Rust's `{:.6}` is exact with ties to even, like glibc's printf.
fn as_printed(y: f64) -> f64 {
    format!("{y:.6}").parse().unwrap_or(y)
}

/// The `(edge_ms, cumulative)` rows DiskSim would print for these values (in
/// ms), as `rms` reads them back: row 0 is `(0, 0)`, row i is
/// `(b_i / 1000, fraction of values truncated below b_i µs)` with the fraction
/// rounded to 6 decimals, and the rows stop at the first one whose rounded
/// cumulative reaches 1.0.
///
/// The cumulative is computed as count/n; DiskSim may sum per-bucket
/// fractions instead, which can only differ on an exact 6-decimal rounding tie.
/// An empty input yields just row 0.
pub fn cdf_rows(values_ms: &[f64]) -> Vec<(f64, f64)> {
    let mut rows = vec![(0.0, 0.0)];
    if values_ms.is_empty() {
        return rows;
    }
    let edges = edges_us();
    // Counting into buckets avoids a sort and is exactly what DiskSim stores.
    let mut counts = vec![0u64; BUCKETS + 1];
    for &v in values_ms {
        counts[bucket_of(v, edges)] += 1;
    }
    let n = values_ms.len() as f64;
    let mut below = 0u64;
    for i in 1..=BUCKETS {
        below += counts[i];
        let y = as_printed(below as f64 / n);
        rows.push((edges[i] as f64 / SCALE, y));
        if y >= 1.0 {
            break;
        }
    }
    rows
}

/// Walks a CDF for non-decreasing probabilities, giving the interpolated x(p).
struct Quantiles<'a> {
    rows: &'a [(f64, f64)],
    /// Index of the first row with y >= the last p asked for.
    j: usize,
}

impl<'a> Quantiles<'a> {
    fn new(rows: &'a [(f64, f64)]) -> Self {
        Quantiles { rows, j: 1 }
    }

    /// x(p) for 0 < p <= 1, with p never smaller than on the previous call.
    fn at(&mut self, p: f64) -> f64 {
        // p only grows, so the first row with y >= p can only move forward.
        while self.j < self.rows.len() && self.rows[self.j].1 < p {
            self.j += 1;
        }
        let Some(&(x1, y1)) = self.rows.get(self.j) else {
            // Unreachable for curves from `cdf_rows` (they end at y = 1.0 > p),
            // but stay total: beyond the curve, x is its last edge.
            return self.rows.last().map_or(f64::NAN, |r| r.0);
        };
        // Row 0 is (0, 0) and p > 0, so j >= 1. Since j is the first row with
        // y >= p we have y0 < p <= y1: the divisor is never zero, and flat
        // stretches of the CDF (y1 == y0) are skipped over, never interpolated.
        let (x0, y0) = self.rows[self.j - 1];
        x0 + (p - y0) / (y1 - y0) * (x1 - x0)
    }
}

/// The rms demerit between simulated and measured access times, both in ms;
/// the result is in ms.
///
/// For p = 0.0001, 0.0002, … (accumulated by repeated f64 addition while
/// p <= 1.0, which is exactly 10,000 samples, the last just below 1.0), each
/// curve from [`cdf_rows`] is inverted by linear interpolation and the rms of
/// the differences is returned. It is symmetric in its arguments.
///
/// Returns NaN if either input is empty: there is no distribution to compare.
pub fn rms_demerit(simulated_ms: &[f64], measured_ms: &[f64]) -> f64 {
    if simulated_ms.is_empty() || measured_ms.is_empty() {
        return f64::NAN;
    }
    let sim_rows = cdf_rows(simulated_ms);
    let meas_rows = cdf_rows(measured_ms);
    let mut sim = Quantiles::new(&sim_rows);
    let mut meas = Quantiles::new(&meas_rows);

    let mut sum_sq = 0.0;
    let mut samples = 0u32;
    // Accumulating p (rather than computing k * 0.0001) matters: the drift
    // decides which side of a CDF row some p fall on, just as in `rms`.
    let mut p = P_STEP;
    while p <= 1.0 {
        let d = sim.at(p) - meas.at(p);
        sum_sq += d * d;
        samples += 1;
        p += P_STEP;
    }
    (sum_sq / f64::from(samples)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Deterministic pseudo-random values in [lo, hi) ms (64-bit LCG).
    fn spread(n: usize, lo: f64, hi: f64, seed: u64) -> Vec<f64> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                lo + (hi - lo) * ((state >> 11) as f64 / (1u64 << 53) as f64)
            })
            .collect()
    }

    #[test]
    fn bucket_edges() {
        let e = edges_us();
        assert_eq!(&e[..4], &[0, 1, 2, 3]);
        assert_eq!(e[100], 100);
        assert_eq!(&e[101..104], &[102, 104, 106]);
        assert_eq!(e[BUCKETS], 2_069_657_113);
        // Truncation to µs, the first bucket and overflow.
        assert_eq!(bucket_of(0.0, e), 1);
        assert_eq!(bucket_of(0.0009999, e), 1);
        assert_eq!(bucket_of(0.001, e), 2);
        assert_eq!(bucket_of(0.1015, e), 101); // 101 µs is in [100, 102)
        assert_eq!(bucket_of(0.102, e), 102);
        assert_eq!(bucket_of(-3.0, e), 1);
        assert_eq!(bucket_of(1e12, e), BUCKETS);
        assert_eq!(bucket_of(f64::INFINITY, e), BUCKETS);
        assert_eq!(bucket_of(f64::NAN, e), BUCKETS);
    }

    #[test]
    fn the_p_loop_has_10000_samples() {
        let (mut p, mut n) = (P_STEP, 0);
        while p <= 1.0 {
            n += 1;
            p += P_STEP;
        }
        assert_eq!(n, 10_000);
    }

    #[test]
    fn rows_for_a_small_example() {
        // 10.5 µs and 30.5 µs truncate to 10 and 30: buckets 11 and 31.
        let rows = cdf_rows(&[0.0105, 0.0305]);
        assert_eq!(rows.len(), 32);
        assert_eq!(rows[0], (0.0, 0.0));
        assert_eq!(rows[10], (0.010, 0.0));
        assert_eq!(rows[11], (0.011, 0.5));
        assert_eq!(rows[30], (0.030, 0.5));
        assert_eq!(rows[31], (0.031, 1.0));
        assert_eq!(cdf_rows(&[]), vec![(0.0, 0.0)]);
    }

    #[test]
    fn cumulative_is_rounded_to_six_decimals() {
        let rows = cdf_rows(&[0.0005, 0.0015, 0.0025]);
        assert_eq!(rows[1].1, 0.333333);
        assert_eq!(rows[2].1, 0.666667);
        assert_eq!(rows[3].1, 1.0);

        // 2,499,999 of 2,500,000 is 0.9999996, printed as 1.000000: the curve
        // ends there and never reaches the bucket of the single large value.
        let mut values = vec![1.0; 2_500_000];
        values[0] = 50.0;
        let rows = cdf_rows(&values);
        let &(x, y) = rows.last().unwrap();
        assert_eq!(y, 1.0);
        assert!(x > 1.0 && x < 1.02, "last edge {x}");
    }

    #[test]
    fn identical_inputs_have_zero_demerit() {
        let v = spread(10_000, 0.5, 30.0, 1);
        assert_eq!(rms_demerit(&v, &v), 0.0);
        // Only the distribution matters, not the order.
        let mut reversed = v.clone();
        reversed.reverse();
        assert_eq!(rms_demerit(&v, &reversed), 0.0);
    }

    #[test]
    fn empty_input_is_nan() {
        assert!(rms_demerit(&[], &[1.0]).is_nan());
        assert!(rms_demerit(&[1.0], &[]).is_nan());
        assert!(rms_demerit(&[], &[]).is_nan());
    }

    #[test]
    fn hand_computed_example() {
        // Curves from `rows_for_a_small_example` against a single 20.5 µs value:
        //   A = {10.5, 30.5} µs: x_A(p) = 0.010 + 0.002 p        for p <= 1/2
        //                                 0.030 + 0.002 (p - 1/2) for p > 1/2
        //   B = {20.5} µs:       x_B(p) = 0.020 + 0.001 p
        // so |x_A - x_B| = 0.010 - 0.001 t with t = p on the lower half and
        // t = 1 - p on the upper half. Mean square = 2 ∫_0^{1/2} (0.01 - 0.001 t)² dt
        // = 2 (0.01² / 2 - 0.01 · 0.001 / 4 + 0.001² / 24) = 9.508333…e-5.
        let expected = (2.0_f64 * (1e-4 / 2.0 - 1e-5 / 4.0 + 1e-6 / 24.0)).sqrt();
        let got = rms_demerit(&[0.0105, 0.0305], &[0.0205]);
        // The p loop is a 10,000-step right-endpoint Riemann sum of a smooth
        // integrand; its error here is far below 1e-9.
        assert!(
            (got - expected).abs() < 1e-9,
            "got {got}, expected {expected}"
        );
    }

    #[test]
    fn shift_by_one_ms_is_about_one_ms() {
        // v in [2, 10) ms, shifted in [3, 11) ms. For each p both curves pick
        // the same rank r (same n), and x(p) lies in the bucket holding the r-th
        // smallest truncated value, so it is off from that value by less than
        // the bucket width: at most 1 + ⌊9999/100⌋ = 100 µs below 10 ms and
        // 1 + ⌊11000/100⌋ = 111 µs below 11 ms. Truncation of v and v + 1 to µs
        // adds at most 1 µs. So every difference is within 0.212 ms of 1.0, and
        // so is their rms.
        let v = spread(10_000, 2.0, 10.0, 7);
        let shifted: Vec<f64> = v.iter().map(|x| x + 1.0).collect();
        let got = rms_demerit(&shifted, &v);
        assert!((got - 1.0).abs() <= 0.212, "got {got}");

        // With values dense in every bucket (a 0.8 µs grid) the CDF is linear
        // between edges, so interpolation is exact up to the grid step and the
        // 1 µs truncation; only the partly filled end buckets (≤ 111 µs wide,
        // about 1% of the p samples each) add more. 5 µs covers all of that.
        let grid: Vec<f64> = (0..10_000)
            .map(|i| 2.0 + 8.0 * i as f64 / 10_000.0)
            .collect();
        let shifted: Vec<f64> = grid.iter().map(|x| x + 1.0).collect();
        let got = rms_demerit(&shifted, &grid);
        assert!((got - 1.0).abs() < 0.005, "got {got}");
    }

    #[test]
    fn demerit_on_a_real_trace() {
        use crate::validate::trace::read_validate_trace;
        let local = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/disksim/cheetah9LP.trace"
        );
        let path = if std::path::Path::new(local).is_file() {
            local
        } else {
            "/work/shared/data/disksim/cheetah9LP.trace"
        };
        let measured: Vec<f64> = read_validate_trace(std::path::Path::new(path))
            .unwrap()
            .iter()
            .map(|r| r.measured_us / 1000.0)
            .collect();
        assert_eq!(rms_demerit(&measured, &measured), 0.0);
        let rows = cdf_rows(&measured);
        assert_eq!(rows.last().unwrap().1, 1.0);
        // Scaling every time by 2% moves each quantile by 2% of itself; the
        // rms of that is 2% of the rms access time (~4.9 ms) give or take
        // bucket resolution (1% of the value on each side).
        let slower: Vec<f64> = measured.iter().map(|x| x * 1.02).collect();
        let d = rms_demerit(&slower, &measured);
        assert!(d > 0.02 && d < 0.2, "got {d}");
    }

    proptest! {
        #[test]
        fn symmetric_and_non_negative(
            a in proptest::collection::vec(0.0f64..200.0, 1..300),
            b in proptest::collection::vec(0.0f64..200.0, 1..300),
        ) {
            let ab = rms_demerit(&a, &b);
            prop_assert!(ab >= 0.0);
            prop_assert_eq!(ab, rms_demerit(&b, &a));
        }

        #[test]
        fn bucket_matches_a_linear_scan(v in 0.0f64..3e6) {
            let e = edges_us();
            let us = (v * SCALE).floor();
            let expected = (1..=BUCKETS)
                .find(|&i| (e[i - 1] as f64) <= us && us < e[i] as f64)
                .unwrap_or(BUCKETS);
            prop_assert_eq!(bucket_of(v, e), expected);
        }

        #[test]
        fn never_panics(
            a in proptest::collection::vec(any::<f64>(), 0..50),
            b in proptest::collection::vec(any::<f64>(), 0..50),
        ) {
            let _ = rms_demerit(&a, &b);
        }
    }
}
