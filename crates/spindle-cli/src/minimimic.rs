//! `spindle mimic skips`: sample miniMimic's table off-line (skip distance × request
//! size × think time) on a simulated drive's log region, for the journal layer's log
//! skipping (`--layer journal:skip=TABLE`).

use crate::disks::load_disk;
use anyhow::{anyhow, bail, Context, Result};
use spindle::disk::drive::Drive;
use spindle::mimic::minimimic::{sample, Grid, MiniMimic, Region};
use spindle::stack::drive_node::DriveNode;
use std::fmt::Write as _;
use std::path::Path;

/// Largest log region sampled, MiB (the journal's own limit).
const MAX_LOG_MIB: u64 = spindle::stack::journal::MAX_LOG_MIB;

/// Samples the thesis's grid (or the quick one) with `samples` writes a cell on a log
/// of `log_mib` at the drive's start and writes the table to `out`.
pub fn skips(
    disk: &str,
    quick: bool,
    samples: Option<u32>,
    log_mib: u64,
    seed: u64,
    out: &Path,
) -> Result<String> {
    if log_mib == 0 || log_mib > MAX_LOG_MIB {
        bail!("--log-mib must be within 1..={MAX_LOG_MIB}, got {log_mib}");
    }
    let mut grid = if quick { Grid::quick() } else { Grid::thesis() };
    if let Some(n) = samples {
        grid.samples = n;
    }
    grid.validate().map_err(|e| anyhow!("--samples: {e}"))?;
    let loaded = load_disk(disk)?;
    let drive = Drive::new(loaded.params).map_err(|e| anyhow!("{disk}: {e}"))?;
    let mut dev = DriveNode::new(drive, "disk");
    let timed = grid.cells() as u64 * u64::from(grid.samples);
    let region = Region {
        // The log starts past the first 4 KiB block (the journal's superblock).
        start: 8,
        sectors: log_mib * 2048,
    };
    let t0 = std::time::Instant::now();
    let m = sample(&mut dev, region, grid, seed).map_err(|e| anyhow!("{e}"))?;
    let secs = t0.elapsed().as_secs_f64();
    std::fs::write(out, m.save()).with_context(|| format!("cannot write {}", out.display()))?;
    Ok(summary(&m, &format!("{disk}, a {log_mib} MiB log"))
        + &format!(
            "{timed} timed writes in {secs:.1} s; table written to {}\n",
            out.display()
        ))
}

/// The recommendations of a table: for each sampled size at the shortest and longest
/// think times, the skip with the least mean and that mean.
fn summary(m: &MiniMimic, what: &str) -> String {
    let g = &m.grid;
    let mut s = format!(
        "miniMimic table of {what}: {} skips ({}..{} KiB) × {} sizes × {} think times, {} samples a cell\n",
        g.skips_kib.len(),
        g.skips_kib.first().copied().unwrap_or(0),
        g.skips_kib.last().copied().unwrap_or(0),
        g.sizes_kib.len(),
        g.thinks_us.len(),
        g.samples
    );
    let thinks = [g.thinks_us.first(), g.thinks_us.last()];
    for &size in g.sizes_kib.iter().take(8) {
        for t in thinks.iter().flatten() {
            if let Some(a) = m.recommend(size, u64::from(**t) * 1000) {
                let _ = writeln!(
                    s,
                    "  {size:>4} KiB, think {:>5} µs: skip {:>4} KiB, mean {:.3} ms",
                    t,
                    a.skip_kib,
                    a.cell.mean_ns().unwrap_or(0.0) / 1e6
                );
            }
        }
    }
    s
}
