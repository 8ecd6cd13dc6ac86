//! The Disk Mimic's table file: the JSON that [`super::DiskMimic::to_json`] writes and
//! `spindle mimic probe` saves, read back and checked.
//!
//! Every field must be present with the type and range it has when written: `metric`
//! one of the metric names, `samples_per_distance` within `1..=MAX_SAMPLES`,
//! `probe_sectors` within `1..=2^22`, each entry's `prev`/`cur` `"R"` or `"W"`,
//! `distance` a signed integer, each operation pair and distance once, `mean_ns` and
//! every sample within `0..u32::MAX` ns (`u32::MAX`, [`super::DOES_NOT_FIT`], marks a
//! probe that did not fit, which a table never holds), at most `samples_per_distance`
//! samples, sorted; each interval `from <= to` with the same operations; no unknown
//! keys. Errors name the file, the line and column for syntax
//! and type errors, and the entry (`entries[3].prev`) with the value for range errors.

use super::Metric;
use serde::Deserialize;
use std::path::Path;

/// Largest table file read, bytes (checked before reading it).
pub const MAX_TABLE_BYTES: u64 = 256 << 20;
/// Most samples per distance a table may claim.
pub const MAX_SAMPLES: u32 = 10_000;

/// A table file that cannot be used: the file and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {msg}")]
pub struct TableError {
    pub file: String,
    pub msg: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    prev: String,
    cur: String,
    distance: i64,
    mean_ns: u32,
    samples_ns: Vec<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInterval {
    prev: String,
    cur: String,
    from: i64,
    to: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLimit {
    prev: String,
    cur: String,
    sectors: i64,
    /// Checked for its type only.
    #[allow(dead_code)]
    period_found: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    metric: String,
    samples_per_distance: u32,
    probe_sectors: u32,
    entries: Vec<RawEntry>,
    intervals: Vec<RawInterval>,
    interval_limits: Vec<RawLimit>,
    interpolated_distances: u64,
    memory_bytes: u64,
    probe_requests: u64,
}

/// One probed distance of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct TableEntry {
    pub prev_write: bool,
    pub cur_write: bool,
    pub distance: i64,
    pub mean_ns: u32,
    pub samples_ns: Vec<u32>,
}

/// A checked table file.
#[derive(Clone, Debug, PartialEq)]
pub struct MimicTable {
    pub metric: Metric,
    pub samples_per_distance: u32,
    pub probe_sectors: u32,
    pub entries: Vec<TableEntry>,
    /// Accepted interpolation intervals: (prev write, cur write, from, to).
    pub intervals: Vec<(bool, bool, i64, i64)>,
    pub interpolated_distances: u64,
    pub memory_bytes: u64,
    pub probe_requests: u64,
}

fn op(file: &str, what: String, v: &str) -> Result<bool, TableError> {
    match v {
        "R" => Ok(false),
        "W" => Ok(true),
        other => Err(TableError {
            file: file.to_string(),
            msg: format!("{what}: expected \"R\" or \"W\", found {other:?}"),
        }),
    }
}

impl MimicTable {
    /// Reads and checks a table file (at most [`MAX_TABLE_BYTES`]).
    pub fn load(path: &Path) -> Result<MimicTable, TableError> {
        let file = path.display().to_string();
        let err = |msg: String| TableError {
            file: file.clone(),
            msg,
        };
        use std::io::Read;
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_TABLE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| err(format!("cannot read: {e}")))?;
        // parse refuses more than MAX_TABLE_BYTES (a device like /dev/zero included).
        MimicTable::parse(&bytes, &file)
    }

    /// Parses and checks a table held in memory; `file` names it in errors.
    pub fn parse(bytes: &[u8], file: &str) -> Result<MimicTable, TableError> {
        let err = |msg: String| TableError {
            file: file.to_string(),
            msg,
        };
        if bytes.len() as u64 > MAX_TABLE_BYTES {
            return Err(err(format!(
                "more than {MAX_TABLE_BYTES} bytes, the limit for a table file"
            )));
        }
        // serde_json's message ends with the line and column.
        let raw: RawTable = serde_json::from_slice(bytes)
            .map_err(|e| err(format!("not a Disk Mimic table: {e}")))?;
        let metric: Metric = raw.metric.parse().map_err(|_| {
            err(format!(
                "metric: expected one of mean, median, max, min or prob, found {:?}",
                raw.metric
            ))
        })?;
        let spd = raw.samples_per_distance;
        if spd == 0 || spd > MAX_SAMPLES {
            return Err(err(format!(
                "samples_per_distance: must be within 1..={MAX_SAMPLES}, found {spd}"
            )));
        }
        let most_sectors = crate::disk::hdd::MAX_REQUEST_SECTORS;
        if raw.probe_sectors == 0 || raw.probe_sectors > most_sectors {
            return Err(err(format!(
                "probe_sectors: must be within 1..={most_sectors} (a request's sectors), found {}",
                raw.probe_sectors
            )));
        }
        let mut entries = Vec::with_capacity(raw.entries.len());
        // A distance probed twice would leave which entry counts to the loader's order.
        let mut seen = std::collections::HashMap::with_capacity(raw.entries.len());
        for (i, e) in raw.entries.into_iter().enumerate() {
            let prev_write = op(file, format!("entries[{i}].prev"), &e.prev)?;
            let cur_write = op(file, format!("entries[{i}].cur"), &e.cur)?;
            if let Some(first) = seen.insert((prev_write, cur_write, e.distance), i) {
                return Err(err(format!(
                    "entries[{i}]: {} after {} at distance {} is already entries[{first}]",
                    e.cur, e.prev, e.distance
                )));
            }
            let n = e.samples_ns.len();
            // On-line tables keep up to ONLINE_SAMPLES; off-line ones samples_per_distance.
            let most = spd.max(super::ONLINE_SAMPLES) as usize;
            if n > most {
                return Err(err(format!(
                    "entries[{i}].samples_ns: must hold at most {most} samples, found {n}"
                )));
            }
            if e.samples_ns.contains(&super::DOES_NOT_FIT) || e.mean_ns == super::DOES_NOT_FIT {
                return Err(err(format!(
                    "entries[{i}]: {} ns marks a probe whose pair did not fit on the device, not a time; drop the entry",
                    super::DOES_NOT_FIT
                )));
            }
            if e.samples_ns.windows(2).any(|w| w[0] > w[1]) {
                return Err(err(format!(
                    "entries[{i}].samples_ns: samples must be sorted in ascending order"
                )));
            }
            entries.push(TableEntry {
                prev_write,
                cur_write,
                distance: e.distance,
                mean_ns: e.mean_ns,
                samples_ns: e.samples_ns,
            });
        }
        let mut intervals = Vec::with_capacity(raw.intervals.len());
        for (i, v) in raw.intervals.into_iter().enumerate() {
            let pw = op(file, format!("intervals[{i}].prev"), &v.prev)?;
            let cw = op(file, format!("intervals[{i}].cur"), &v.cur)?;
            if v.from > v.to {
                return Err(err(format!(
                    "intervals[{i}]: from {} must not exceed to {}",
                    v.from, v.to
                )));
            }
            intervals.push((pw, cw, v.from, v.to));
        }
        for (i, l) in raw.interval_limits.iter().enumerate() {
            op(file, format!("interval_limits[{i}].prev"), &l.prev)?;
            op(file, format!("interval_limits[{i}].cur"), &l.cur)?;
            if l.sectors < 0 {
                return Err(err(format!(
                    "interval_limits[{i}].sectors: must not be negative, found {}",
                    l.sectors
                )));
            }
        }
        Ok(MimicTable {
            metric,
            samples_per_distance: spd,
            probe_sectors: raw.probe_sectors,
            entries,
            intervals,
            interpolated_distances: raw.interpolated_distances,
            memory_bytes: raw.memory_bytes,
            probe_requests: raw.probe_requests,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"entries":[{"cur":"R","distance":-5,"mean_ns":10,"prev":"W","samples_ns":[9,11]}],
        "intervals":[{"cur":"W","from":1,"prev":"R","to":4}],
        "interval_limits":[{"cur":"R","prev":"R","sectors":64,"period_found":true}],
        "interpolated_distances":2,"memory_bytes":100,"metric":"mean","probe_requests":8,
        "probe_sectors":2,"samples_per_distance":2}"#;

    #[test]
    fn a_written_table_reads_back() {
        let t = MimicTable::parse(GOOD.as_bytes(), "t.json").unwrap();
        assert_eq!(t.entries.len(), 1);
        assert!(t.entries[0].prev_write && !t.entries[0].cur_write);
        assert_eq!(t.intervals, vec![(false, true, 1, 4)]);
    }

    #[test]
    fn junk_is_refused_naming_what_is_wrong() {
        for (text, want) in [
            (
                "{}",
                "not a Disk Mimic table: missing field `metric` at line 1 column 2",
            ),
            ("[1,2]", "not a Disk Mimic table"),
            ("", "line 1 column 0"),
            (
                &GOOD.replace("\"W\",\"samples", "\"X\",\"samples"),
                "entries[0].prev: expected \"R\" or \"W\", found \"X\"",
            ),
            (
                &GOOD.replace("\"mean\"", "\"bogus\""),
                "metric: expected one of",
            ),
            (&GOOD.replace("[9,11]", "[11,9]"), "sorted"),
            (
                &GOOD.replace("[9,11]", "[9,4294967295]"),
                "entries[0]: 4294967295 ns marks a probe whose pair did not fit",
            ),
            (
                &GOOD.replace(
                    "\"entries\":[{\"cur\":\"R\",\"distance\":-5,\"mean_ns\":10,\"prev\":\"W\",\"samples_ns\":[9,11]}",
                    "\"entries\":[{\"cur\":\"R\",\"distance\":-5,\"mean_ns\":10,\"prev\":\"W\",\"samples_ns\":[9,11]},{\"cur\":\"R\",\"distance\":-5,\"mean_ns\":12,\"prev\":\"W\",\"samples_ns\":[12]}",
                ),
                "entries[1]: R after W at distance -5 is already entries[0]",
            ),
            (
                &GOOD.replace("[9,11]", &format!("{:?}", vec![1; 33])),
                "entries[0].samples_ns: must hold at most 32 samples, found 33",
            ),
            (
                &GOOD.replace("\"from\":1", "\"from\":9"),
                "intervals[0]: from 9 must not exceed to 4",
            ),
            (&GOOD.replace("\"mean_ns\":10", "\"mean_ns\":-10"), "line 1"),
            (
                &GOOD.replace("\"samples_per_distance\":2", "\"samples_per_distance\":0"),
                "samples_per_distance: must be within 1..=10000, found 0",
            ),
            (
                &GOOD.replace("\"probe_requests\":8", "\"probe_requests\":8,\"extra\":1"),
                "unknown field `extra`",
            ),
        ] {
            let e = MimicTable::parse(text.as_bytes(), "t.json")
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("t.json: "), "{e}");
            assert!(e.contains(want), "{text}: {e} lacks {want}");
        }
    }
}

#[cfg(test)]
mod loaded_tests {
    use super::*;
    use crate::disk::hdd::Hdd;
    use crate::disk::presets::preset;
    use crate::mimic::DiskMimic;
    use rand::{Rng, SeedableRng};

    /// A table probed of a simulated disk, written, read back and loaded answers the
    /// probed distances from their samples and the others between neighbours.
    #[test]
    fn a_loaded_table_answers_as_probed_and_interpolates_the_rest() {
        for seed in [1u64, 2, 3] {
            let hdd = Hdd::new(preset("mimic-base").unwrap()).unwrap();
            let cap = hdd.capacity() as i64;
            let mut m = DiskMimic::offline(Box::new(hdd), 3, Metric::Mean, seed);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut asked = Vec::new();
            for _ in 0..200 {
                let (pw, d) = (rng.gen_bool(0.5), rng.gen_range(-(cap - 1)..cap));
                asked.push((pw, d, m.predict(pw, false, d)));
            }
            let text = serde_json::to_vec(&m.to_json()).unwrap();
            let t = MimicTable::parse(&text, "t.json").unwrap();
            let mut l = DiskMimic::from_table(&t, Metric::Mean, seed);
            for &(pw, d, v) in &asked {
                assert_eq!(l.predict(pw, false, d), v);
            }
            // Between two probed R→R distances: on the chord.
            let mut rr: Vec<(i64, u32)> = t
                .entries
                .iter()
                .filter(|e| !e.prev_write && !e.cur_write)
                .map(|e| (e.distance, e.mean_ns))
                .collect();
            rr.sort_unstable();
            let w = rr.windows(2).find(|w| w[1].0 - w[0].0 >= 2).unwrap();
            let mid = w[0].0 + (w[1].0 - w[0].0) / 2;
            let want = w[0].1 as f64
                + (mid - w[0].0) as f64 / (w[1].0 - w[0].0) as f64
                    * (w[1].1 as f64 - w[0].1 as f64);
            assert_eq!(l.predict(false, false, mid), want.round() as u32);
            // Beyond the last: the nearest. A pair never probed (W→W): the pair with the
            // same current operation (R→W), else any.
            let last = rr.last().unwrap();
            assert_eq!(l.predict(false, false, cap + 5), last.1);
            assert!(l.predict(true, true, 0) < u32::MAX);
            assert_eq!(l.probes_issued(), 0);
        }
    }
}
