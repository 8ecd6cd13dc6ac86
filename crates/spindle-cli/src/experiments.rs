//! `spindle strands`, `spindle random-io` and `spindle seed-checks`: the disk-model
//! experiments of the seed papers, run from the command line.

use crate::disks::load_disk;
use crate::limits;
use crate::table::{Align, Table};
use anyhow::{anyhow, Result};
use spindle::experiments::random_io::random_io;
use spindle::experiments::seed_drives::seed_drive_checks;
use spindle::experiments::strands::{strand_table, StrandConfig};
use spindle::experiments::Check;

/// A number with at most four decimals, trailing zeros dropped.
fn short(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Renders checks as a table with a pass/miss column.
pub fn checks_table(checks: &[Check]) -> String {
    let mut t = Table::new(&[
        ("id", Align::Left),
        ("metric", Align::Left),
        ("paper", Align::Right),
        ("ours", Align::Right),
        ("tolerance", Align::Right),
        ("result", Align::Left),
        ("kind", Align::Left),
    ]);
    for c in checks {
        t.row(vec![
            c.id.clone(),
            c.metric.clone(),
            short(c.paper),
            // No value (e.g. a ratio over no events): the experiment's text says why.
            if c.ours.is_nan() {
                "undefined".into()
            } else {
                format!("{:.3}", c.ours)
            },
            c.tolerance.clone(),
            if c.pass { "pass".into() } else { "MISS".into() },
            if c.is_reproduction() {
                "reproduction".into()
            } else {
                "consistency".into()
            },
        ]);
    }
    let count = |repro: bool| {
        let of: Vec<&Check> = checks
            .iter()
            .filter(|c| c.is_reproduction() == repro)
            .collect();
        (of.iter().filter(|c| c.pass).count(), of.len())
    };
    let (rp, rn) = count(true);
    let (cp, cn) = count(false);
    format!(
        "{}\n{rp} of {rn} reproduction checks pass; {cp} of {cn} consistency checks pass\n",
        t.render()
    )
}

pub fn strands(disk: &str, trials: usize, seed: u64, blocks: u32, json: bool) -> Result<String> {
    limits::count("--trials", trials as u64, limits::MAX_TRIALS)?;
    limits::count("--blocks", blocks as u64, limits::MAX_STRAND_BLOCKS)?;
    let loaded = load_disk(disk)?;
    // The placements draw strands within 100,000 LBNs of a random start.
    let cap = crate::disks::build_loaded(&loaded)?.capacity();
    let need = 100_000u64.max(32 * blocks as u64) + blocks as u64;
    if cap <= need {
        return Err(anyhow!(
            "--disk {disk}: strands need a disk of more than {need} sectors, `{}` has {cap}",
            loaded.params.name
        ));
    }
    let cfg = StrandConfig {
        trials,
        seed,
        blocks,
        ..StrandConfig::default()
    };
    let rep = strand_table(&loaded.params, &cfg).map_err(|e| anyhow!("{e}"))?;
    if json {
        return Ok(serde_json::to_string_pretty(&rep)? + "\n");
    }
    let mut out = format!(
        "Strands of {blocks}-sector requests queued together in ascending LBN order to the SPTF queue of {}\n\
         ({trials} strands per cell, seed {seed}). 1 OP = one random request at queue depth 1:\n\
         read {:.3} ms, write {:.3} ms.\n\n",
        rep.disk, rep.op_read_ms, rep.op_write_ms
    );
    let mut t = Table::new(&[
        ("placement", Align::Left),
        ("requests", Align::Right),
        ("strand ms", Align::Right),
        ("paper ms", Align::Right),
        ("per request ms", Align::Right),
        ("per request OP", Align::Right),
    ]);
    for r in &rep.rows {
        let paper = match r.requests {
            2 | 4 | 6 | 8 => format!("{}", r.placement.paper_table1()[r.requests / 2 - 1]),
            _ => String::new(),
        };
        t.row(vec![
            r.placement.label().into(),
            r.requests.to_string(),
            format!("{:.2}", r.mean_strand_ms),
            paper,
            format!("{:.3}", r.per_request_ms),
            format!("{:.3}", r.per_request_op),
        ]);
    }
    out.push_str(&t.render());
    out.push('\n');
    out.push_str(&checks_table(&rep.checks));
    Ok(out)
}

pub fn random(
    disk: &str,
    requests: usize,
    blocks: u32,
    write: bool,
    seed: u64,
    json: bool,
) -> Result<String> {
    limits::count("--requests", requests as u64, limits::MAX_REQUESTS)?;
    let loaded = load_disk(disk)?;
    let cap = crate::disks::build_loaded(&loaded)?.capacity();
    let most = cap.min(u64::from(spindle::disk::hdd::MAX_REQUEST_SECTORS));
    if blocks == 0 || u64::from(blocks) > most {
        return Err(anyhow!(
            "--blocks must be within 1..={most} (the capacity of `{}` in sectors, and at most \
             {} sectors a request), got {blocks}",
            loaded.params.name,
            spindle::disk::hdd::MAX_REQUEST_SECTORS
        ));
    }
    spindle::workload::check_sectors_moved(requests as u64, u64::from(blocks))
        .map_err(|e| anyhow!("--requests {requests} --blocks {blocks}: {e}"))?;
    let r = random_io(&loaded.params, requests, blocks, write, seed).map_err(|e| anyhow!("{e}"))?;
    if json {
        return Ok(serde_json::to_string_pretty(&r)? + "\n");
    }
    Ok(format!(
        "{} random {}-sector {}s, queue depth 1, {} requests (seed {seed}):\n\
         mean service {:.3} ms = overhead {:.3} + seek {:.3} + rotation {:.3} + transfer {:.3}\n\
         {:.2} requests per revolution\n",
        r.disk,
        blocks,
        if write { "write" } else { "read" },
        requests,
        r.mean_ms,
        r.mean_overhead_ms,
        r.mean_seek_ms,
        r.mean_rotation_ms,
        r.mean_transfer_ms,
        r.requests_per_revolution
    ))
}

pub fn seed_checks(requests: usize, seed: u64, json: bool) -> Result<String> {
    limits::count("--requests", requests as u64, limits::MAX_REQUESTS)?;
    let checks = seed_drive_checks(requests, seed).map_err(|e| anyhow!("{e}"))?;
    if json {
        return Ok(serde_json::to_string_pretty(&checks)? + "\n");
    }
    Ok(checks_table(&checks))
}
