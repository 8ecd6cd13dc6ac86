//! The documented limits of the command-line counts and sizes. Each is checked before
//! anything is allocated or run from it; a value outside gets an error naming the
//! option, the value and the limit (exit status 2). The limits keep every run within
//! memory and within minutes, not hours.

use anyhow::{bail, Result};

/// `random-io --requests`, `seed-checks --requests`: random requests per measurement
/// (each kept until the end: about 100 bytes and 2 µs apiece, so 1 GB and 20 s).
pub const MAX_REQUESTS: u64 = 10_000_000;
/// `strands --trials`: strands per (placement, size) cell (32 cells; about a minute).
pub const MAX_TRIALS: u64 = 100_000;
/// `strands --blocks`: request size of a strand, sectors (1 MiB: strands are of small
/// requests; the placements span 1,024 and 100,000 LBNs).
pub const MAX_STRAND_BLOCKS: u64 = 2048;
/// `raid4 baseline --updates`: updates; each stores real blocks and a report (about
/// 8 KiB apiece: 1 GB and 10 s at the limit).
pub const MAX_UPDATES: u64 = 100_000;
/// `raid4 faults --ops`: operations of a fault campaign (about 0.3 ms apiece over the
/// default span).
pub const MAX_OPS: u64 = 1_000_000;
/// `raid4 faults --span`: volume blocks a fault campaign touches. Each one written is
/// kept, with its parity and checksum blocks, on the simulated members (about 12 KiB
/// of memory per touched block: 800 MB at this limit).
pub const MAX_FAULT_SPAN: u64 = 65_536;
/// `raid4 faults`: stripe rows its scrubs check in all, (--ops / --scrub-every + 2) × the
/// rows --span covers (about 15 µs a row: 5 minutes at the limit).
pub const MAX_SCRUB_ROW_CHECKS: u64 = 20_000_000;
/// `raid4 --data-disks`: data members (one more holds parity); the stack's member limit.
pub const MAX_DATA_DISKS: u64 = spindle::stack::tree::MAX_MEMBERS as u64 - 1;
/// `raid4 --outstanding`: requests outstanding at each drive (the host queue's limit).
pub const MAX_OUTSTANDING: u64 = spindle::config::MAX_QUEUE_DEPTH as u64;
/// `mimic probe --distances`: random distances asked for (the table is written as one
/// JSON document, about 0.5 KB a distance and 32 bytes a sample while it is built).
pub const MAX_DISTANCES: u64 = 1_000_000;
/// `mimic probe --samples`, `run --mimic-samples`: samples per probed distance.
pub const MAX_MIMIC_SAMPLES: u64 = spindle::stack::queue::MAX_MIMIC_SAMPLES as u64;
/// `mimic probe`: distances × samples, the probe pairs issued (and samples kept).
pub const MAX_PROBES: u64 = 10_000_000;
/// `background-outstanding` (freeblock, config file): background reads kept
/// outstanding at the host (the host queue's limit).
pub const MAX_BACKGROUND: u64 = spindle::config::MAX_QUEUE_DEPTH as u64;
/// `--max-wait-ms`, `max-wait-ms`: the aging bound, ms (one day).
pub const MAX_WAIT_MS: f64 = spindle::stack::queue::MAX_WAIT_MS;
/// `reproduce --jobs`: experiments run at once.
pub const MAX_JOBS: u64 = 1024;

/// `--config`: the TOML run configuration, bytes.
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;
/// `reproduce --readme`, `bench --readme`: the README whose block is rewritten, bytes.
pub const MAX_README_BYTES: u64 = 16 << 20;

/// Reads a text file of at most `max` bytes (a device such as /dev/zero, or a huge
/// file, is refused before it fills memory).
pub fn read_text(path: &std::path::Path, max: u64) -> Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(max + 1).read_to_string(&mut text))
        .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?;
    if text.len() as u64 > max {
        bail!(
            "{}: larger than {max} bytes, the limit for this file",
            path.display()
        );
    }
    Ok(text)
}

/// Checks `1 <= value <= max` for the option `name`.
pub fn count(name: &str, value: u64, max: u64) -> Result<()> {
    if value == 0 || value > max {
        bail!("{name} must be within 1..={max}, got {value}");
    }
    Ok(())
}
