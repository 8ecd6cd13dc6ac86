//! `spindle mimic probe` and `spindle mimic show`: configure a Disk Mimic off-line
//! and look at its table.

use crate::disks::load_disk;
use crate::limits;
use anyhow::{anyhow, Context, Result};
use rand::{Rng, SeedableRng};
use spindle::disk::Hdd;
use spindle::mimic::table::MimicTable;
use spindle::mimic::{DiskMimic, Metric, TABLE_3_2};
use std::path::Path;

pub fn probe(
    disk: &str,
    distances: usize,
    samples: u32,
    interpolate: bool,
    seed: u64,
    out: &Path,
) -> Result<String> {
    let json = probe_table(disk, distances, samples, interpolate, seed)?;
    std::fs::write(out, serde_json::to_string_pretty(&json)? + "\n")
        .with_context(|| format!("cannot write {}", out.display()))?;
    Ok(summary(
        &json,
        &format!("{disk}: {distances} random distances asked"),
    ) + &format!("table written to {}\n", out.display()))
}

/// Probes `disk` off-line at `distances` random distances, `samples` each, and returns
/// the Disk Mimic table as its file holds it (JSON).
pub fn probe_table(
    disk: &str,
    distances: usize,
    samples: u32,
    interpolate: bool,
    seed: u64,
) -> Result<serde_json::Value> {
    limits::count("--distances", distances as u64, limits::MAX_DISTANCES)?;
    limits::count("--samples", samples as u64, limits::MAX_MIMIC_SAMPLES)?;
    let probes = distances as u64 * samples as u64;
    if probes > limits::MAX_PROBES {
        anyhow::bail!(
            "--distances × --samples must be at most {}, got {distances} × {samples} = {probes}",
            limits::MAX_PROBES
        );
    }
    let loaded = load_disk(disk)?;
    let hdd = Hdd::new(loaded.params).map_err(|e| anyhow!("{e}"))?;
    let cap = hdd.capacity() as i64;
    let mut m = DiskMimic::offline(Box::new(hdd), samples, Metric::Mean, seed);
    if interpolate {
        m = m.with_interpolation(TABLE_3_2);
    }
    // The distances a random workload over the whole disk asks for, all four pairs.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..distances {
        let d = rng.gen_range(-(cap - 1)..cap);
        m.predict(rng.gen_bool(0.5), rng.gen_bool(0.5), d);
    }
    Ok(m.to_json())
}

pub fn show(path: &Path) -> Result<String> {
    // Checked in full (every field, type and range) before anything is summarised.
    MimicTable::load(path).map_err(|e| anyhow!("{e}"))?;
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a Disk Mimic table (JSON expected)", path.display()))?;
    Ok(summary(&json, &path.display().to_string()))
}

fn summary(j: &serde_json::Value, what: &str) -> String {
    let n = |k: &str| j.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
    let entries = j
        .get("entries")
        .and_then(|e| e.as_array())
        .map(|e| e.len())
        .unwrap_or(0);
    let intervals = j
        .get("intervals")
        .and_then(|e| e.as_array())
        .map(|e| e.len())
        .unwrap_or(0);
    let interp = n("interpolated_distances");
    let total = interp + entries as u64;
    let mut s = format!(
        "{what}\n  probed distances      {entries} ({} samples each, {}-sector probes, {} probe requests)\n",
        n("samples_per_distance"),
        n("probe_sectors"),
        n("probe_requests")
    );
    if intervals > 0 {
        s += &format!(
            "  interpolated          {interp} distances in {intervals} intervals ({:.1} % of the distances covered)\n",
            100.0 * interp as f64 / total.max(1) as f64
        );
    }
    s += &format!("  table memory          {} bytes\n", n("memory_bytes"));
    s
}
