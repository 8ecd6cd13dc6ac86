//! A Disk Mimic probe table as measurements to calibrate a drive file to.
//!
//! `spindle mimic probe` times a device the Mimic's way: for each probed distance and
//! pair of request kinds, a random access, then a request and a second one the distance
//! beyond it, several times. A candidate drive file is scored by probing its model the
//! same way (the same distances and kinds, the same number of samples, the same seeded
//! positions for every candidate) and comparing mean service times. One distance's few
//! samples are dominated by where the platter happened to be, so the samples are pooled
//! in bins: for each pair of request kinds, its distances in order of size cut into up
//! to [`BINS`] groups of at least [`BIN_SAMPLES`] samples. A rotational latency spreads
//! over a whole turn (a standard deviation of 3 ms at 5,400 rpm), so a bin's mean of
//! 2,000 samples is good to about 0.07 ms; a distribution's quantiles would need many
//! times more samples for the same precision, and a mean also moves smoothly with an
//! overhead, which the fit needs. The score is the root mean square of the bins'
//! differences of means (ms), each bin weighted by its distances.
//!
//! The table does not record where on the device its probes landed, only the distances:
//! the model's probes land anywhere on the model. A table of a small file therefore
//! compares the file's short-range behaviour with the model's over its whole surface.

use super::calibrate::Measurements;
use crate::disk::hdd::Hdd;
use crate::disk::params::DiskParams;
use crate::mimic::table::{MimicTable, TableEntry};
use crate::mimic::{DiskMimic, Metric, DOES_NOT_FIT};

/// Bins of distances per pair of request kinds, at most...
pub const BINS: usize = 16;
/// ...each of at least this many samples (fewer bins for a small table).
pub const BIN_SAMPLES: usize = 2_000;

/// Probed distances of a table, with how to probe a model alike.
#[derive(Clone, Debug)]
pub struct ProbeSet {
    entries: Vec<TableEntry>,
    samples: u32,
    probe_sectors: u32,
    /// The table timed reads only (a device probed without writes).
    reads_only: bool,
    seed: u64,
}

impl ProbeSet {
    /// The distances of `table` that were probed (not interpolated) and have samples;
    /// `seed` places the model's probes.
    pub fn from_table(table: &MimicTable, seed: u64) -> ProbeSet {
        let entries: Vec<TableEntry> = table
            .entries
            .iter()
            .filter(|e| e.samples_ns.iter().any(|&s| s != DOES_NOT_FIT))
            .cloned()
            .collect();
        let reads_only = entries.iter().all(|e| !e.prev_write && !e.cur_write);
        ProbeSet {
            entries,
            samples: table.samples_per_distance.max(1),
            probe_sectors: table.probe_sectors.max(1),
            reads_only,
            seed,
        }
    }

    /// Every other distance, from the first or from the second: the two halves
    /// interleave, so each covers the whole range of distances.
    fn every_other(&self, from: usize) -> ProbeSet {
        ProbeSet {
            entries: self.entries.iter().skip(from).step_by(2).cloned().collect(),
            ..self.clone()
        }
    }
}

impl Measurements for ProbeSet {
    fn len(&self) -> usize {
        self.entries.len()
    }

    fn split_halves(&self) -> (ProbeSet, ProbeSet) {
        (self.every_other(0), self.every_other(1))
    }

    fn score(&self, params: &DiskParams) -> Option<f64> {
        let hdd = Hdd::new(params.clone()).ok()?;
        let mut mimic = DiskMimic::offline(Box::new(hdd), self.samples, Metric::Mean, self.seed);
        mimic.probe_blocks = self.probe_sectors;
        if self.reads_only {
            mimic = mimic.reads_only();
        }
        // (pair, |distance|, (sum, count) of measured and of simulated samples in ms)
        // of the distances that fit on both.
        type Row = ((bool, bool), u64, (f64, usize), (f64, usize));
        let totals = |v: &[u32]| {
            v.iter()
                .filter(|&&s| s != DOES_NOT_FIT)
                .fold((0.0, 0usize), |(t, n), &s| (t + s as f64 / 1e6, n + 1))
        };
        let mut rows: Vec<Row> = Vec::with_capacity(self.entries.len());
        for e in &self.entries {
            let measured = totals(&e.samples_ns);
            let simulated = totals(&mimic.probe_samples(e.prev_write, e.cur_write, e.distance));
            if measured.1 > 0 && simulated.1 > 0 {
                let pair = (e.prev_write, e.cur_write);
                rows.push((pair, e.distance.unsigned_abs(), measured, simulated));
            }
        }
        // A model on which no probed distance fits cannot be compared with the table.
        if rows.is_empty() {
            return None;
        }
        rows.sort_by_key(|r| (r.0, r.1));
        let mean = |bin: &[Row], side: fn(&Row) -> (f64, usize)| {
            let (t, n) = bin
                .iter()
                .map(side)
                .fold((0.0, 0usize), |(t, n), (u, m)| (t + u, n + m));
            t / n.max(1) as f64
        };
        let (mut sum_sq, mut weight) = (0.0, 0.0);
        for pair in rows.chunk_by(|a, b| a.0 == b.0) {
            let bins = (pair.len() * self.samples as usize / BIN_SAMPLES).clamp(1, BINS);
            for k in 0..bins {
                let bin = &pair[k * pair.len() / bins..(k + 1) * pair.len() / bins];
                if bin.is_empty() {
                    continue;
                }
                let d = mean(bin, |r| r.3) - mean(bin, |r| r.2);
                let n = bin.len() as f64;
                sum_sq += n * d * d;
                weight += n;
            }
        }
        Some((sum_sq / weight).sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::presets;
    use crate::validate::calibrate::{calibrate_to, Adjustments};

    /// A table probed on `params` (the `spindle mimic probe` way, fewer distances).
    fn table_of(params: &DiskParams, distances: usize, seed: u64) -> MimicTable {
        use rand::{Rng, SeedableRng};
        let hdd = Hdd::new(params.clone()).expect("drive");
        let cap = hdd.capacity() as i64;
        let mut m = DiskMimic::offline(Box::new(hdd), 5, Metric::Mean, seed);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..distances {
            m.predict(
                rng.gen_bool(0.5),
                rng.gen_bool(0.5),
                rng.gen_range(-(cap - 1)..cap),
            );
        }
        let json = serde_json::to_vec(&m.to_json()).expect("json");
        MimicTable::parse(&json, "probed").expect("a valid table")
    }

    #[test]
    fn a_drive_scores_zero_on_its_own_table_probed_alike() {
        let p = presets::disksim_preset("hp_c2247a").expect("preset");
        let t = table_of(&p, 2_000, 3);
        // Elsewhere on the same drive: only the platter's positions differ.
        let s = ProbeSet::from_table(&t, 4).score(&p).expect("scores");
        assert!(s < 0.15, "{s}");
        let (a, b) = ProbeSet::from_table(&t, 3).split_halves();
        assert_eq!(a.len() + b.len(), ProbeSet::from_table(&t, 3).len());
    }

    #[test]
    fn a_known_overhead_error_is_mostly_removed_from_a_probe_table() {
        // The table is probed on the drive with 0.4 ms more read-miss overhead; the fit
        // starts from the drive file and probes at other positions (another seed).
        let p = presets::disksim_preset("hp_c2247a").expect("preset");
        let truth = Adjustments {
            read_miss_ms: 0.4,
            ..Adjustments::default()
        };
        let t = table_of(&truth.apply(&p).expect("valid"), 2_000, 5);
        let set = ProbeSet::from_table(&t, 11);
        let c = calibrate_to(&p, &set).expect("calibrates");
        assert!(c.train_rms_after_ms < 0.5 * c.train_rms_before_ms, "{c:?}");
        assert!(c.adjustments.read_miss_ms > 0.1, "{c:?}");
    }
}
