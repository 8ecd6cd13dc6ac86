//! `spindle run --disksim FILE.parv`: a DiskSim configuration with its synthetic
//! generator, reported DiskSim's way (requests completed by the generator's stop, their
//! mean response time, and both per unit: each Array logorg, else each disk the I/O
//! driver queues for) for one or more seeds.

use crate::table::{Align, Table};
use anyhow::{anyhow, bail, Result};
use spindle::disksim::system::{describe_system, load_system, run_system, unit_names};
use std::path::Path;

/// Most seeds one invocation runs.
const MAX_SEEDS: usize = 1000;

pub fn run(path: &Path, seeds: Option<&str>, json: bool, print_stack: bool) -> Result<String> {
    let sys = load_system(path).map_err(|e| anyhow!("{e}"))?;
    if print_stack {
        return describe_system(&sys).map_err(|e| anyhow!("{}: {e}", path.display()));
    }
    let seeds: Vec<u64> = match seeds {
        None => vec![sys.synth.seed],
        Some(list) => list
            .split(',')
            .map(|s| {
                // DiskSim's seeds are C ints, as the file's `Init Seed` (0..=2^31-1).
                s.trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|&v| v <= i32::MAX as u64)
                    .ok_or_else(|| {
                        anyhow!(
                            "--disksim-seeds: `{s}` is not a seed (a whole number 0..={}, as DiskSim's `Init Seed`)",
                            i32::MAX
                        )
                    })
            })
            .collect::<Result<_>>()?,
    };
    if seeds.is_empty() || seeds.len() > MAX_SEEDS {
        bail!(
            "--disksim-seeds: give 1..={MAX_SEEDS} seeds, got {}",
            seeds.len()
        );
    }
    let mut rows = Vec::new();
    for &seed in &seeds {
        let r = run_system(&sys, seed).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        rows.push((seed, r));
    }
    let mean = rows.iter().map(|(_, r)| r.mean_ms).sum::<f64>() / rows.len() as f64;
    // The disks, then any DiskSim simple disks.
    let names: Vec<String> = sys
        .disks
        .iter()
        .map(|d| d.instance.clone())
        .chain(sys.simple.iter().map(|s| s.instance.clone()))
        .collect();
    let units = unit_names(&sys);
    if json {
        let v = serde_json::json!({
            "file": path.display().to_string(),
            "disks": names,
            "units": units,
            "scheduler": sys.queue.kind.name(),
            "runs": rows.iter().map(|(seed, r)| serde_json::json!({
                "seed": seed,
                "completed": r.completed,
                "issued": r.issued,
                "mean_response_ms": r.mean_ms,
                "per_device": r.per_device,
                "per_device_ms": r.per_device_ms,
                "per_disk": r.per_disk.iter().map(|(d, n, ms)| serde_json::json!({
                    "disk": d, "completed": n, "mean_response_ms": ms,
                })).collect::<Vec<_>>(),
                "stop_ms": r.stop_ms,
            })).collect::<Vec<_>>(),
            "mean_response_ms": mean,
        });
        return Ok(serde_json::to_string_pretty(&v)? + "\n");
    }
    let mut t = Table::new(&[
        ("seed", Align::Right),
        ("completed", Align::Right),
        ("mean response ms", Align::Right),
        ("per unit: completed, mean ms", Align::Left),
    ]);
    for (seed, r) in &rows {
        t.row(vec![
            seed.to_string(),
            r.completed.to_string(),
            format!("{:.3}", r.mean_ms),
            units
                .iter()
                .zip(r.per_device.iter().zip(&r.per_device_ms))
                .map(|(u, (n, ms))| format!("{u} {n} {ms:.3}"))
                .collect::<Vec<_>>()
                .join(" / "),
        ]);
    }
    Ok(format!(
        "{}: {} disks ({}), driver queue {}, {} generators on {} processors\n{}mean over {} seeds: {:.3} ms (Overall I/O System Response time average, requests completed by the generator's stop)\n",
        path.display(),
        names.len(),
        names.join(", "),
        sys.queue.kind.name(),
        sys.synth.generators.len(),
        sys.synth.cpus,
        t.render(),
        rows.len(),
        mean
    ))
}
