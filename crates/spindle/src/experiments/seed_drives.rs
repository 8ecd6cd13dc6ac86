//! The seed papers' drive numbers checked on the presets (catalog DISK-C15K5,
//! DISK-RE3, DISK-9LP, DISK-T3.1 / THESIS-EQ-SEEK): random-access service times at
//! queue depth 1 and the Table 3.1 seek and rotation values.

use super::random_io::random_io;
use super::Check;
use crate::disk::hdd::{DiskError, Hdd};
use crate::disk::presets::preset;

/// Runs every seed-drive check with `requests` random requests per measurement.
pub fn seed_drive_checks(requests: usize, seed: u64) -> Result<Vec<Check>, DiskError> {
    let get = |name: &str| preset(name).map_err(DiskError::Param);
    let mut checks = Vec::new();

    let c15 = get("cheetah15k5")?;
    let r = random_io(&c15, requests, 8, false, seed)?;
    checks.push(Check::relative(
        "DISK-C15K5",
        "cheetah15k5 random 4 KiB read, QD 1, ms",
        5.6,
        r.mean_ms,
        0.10,
    ));
    let w = random_io(&c15, requests, 8, true, seed)?;
    checks.push(Check::relative(
        "DISK-C15K5",
        "cheetah15k5 random 4 KiB write, QD 1, ms",
        5.8,
        w.mean_ms,
        0.10,
    ));
    checks.push(Check::absolute(
        "PROX-EQ1",
        "cheetah15k5 random reads per revolution",
        0.71,
        r.requests_per_revolution,
        0.04,
    ));

    let re3 = get("wd-re3")?;
    let r = random_io(&re3, requests, 8, false, seed)?;
    checks.push(Check::range(
        "DISK-RE3",
        "wd-re3 random 4 KiB read, QD 1, ms",
        11.1 * 0.9,
        11.7 * 1.1,
        r.mean_ms,
    ));
    checks.push(Check::range(
        "PROX-EQ1",
        "wd-re3 random reads per revolution",
        0.71,
        0.75,
        r.requests_per_revolution,
    ));

    let st = get("st34502lw")?;
    let r = random_io(&st, requests, 1, false, seed)?;
    checks.push(Check::relative(
        "DISK-9LP",
        "st34502lw random single-sector read, QD 1, ms",
        8.8,
        r.mean_ms,
        0.10,
    ));

    let base = Hdd::new(get("mimic-base")?)?;
    for (d, ms) in [(1u32, 0.8), (400, 6.0), (3000, 8.0)] {
        let ours = base.seek_ns(d) as f64 / 1e6;
        checks.push(Check::absolute(
            "THESIS-EQ-SEEK",
            &format!("mimic-base seek at {d} cylinders, ms"),
            ms,
            ours,
            0.001,
        ).consistency("Reads back the seek curve the preset was built from (the thesis's stated points); it checks the preset, not a simulated result."));
    }
    checks.push(
        Check::absolute(
            "DISK-T3.1",
            "mimic-base revolution, ms",
            6.0,
            base.period_ns() / 1e6,
            0.001,
        )
        .consistency("Reads back the preset's rotation speed, an input."),
    );
    Ok(checks)
}
