//! `spindle raid4 baseline` and `spindle raid4 faults`: the RAID-4 back end of the
//! proximal-I/O data layout engine, from the command line.

use crate::disks::load_disk;
use crate::limits;
use crate::table::{Align, Table};
use anyhow::{anyhow, bail, Result};
use spindle::array::Layout;
use spindle::array::Raid4;
use spindle::array::{run_fault_campaign, FaultCampaign, FaultReport, Raid4Config};
use spindle::experiments::prox_common::T2Row;
use spindle::experiments::prox_raid::baseline_updates_on;
use spindle::store::SECTORS_PER_BLOCK;

/// Checks the array shape options.
pub fn config(data_disks: usize, stripe_unit_kib: u64, outstanding: usize) -> Result<Raid4Config> {
    limits::count("--data-disks", data_disks as u64, limits::MAX_DATA_DISKS)?;
    if stripe_unit_kib == 0 || !stripe_unit_kib.is_multiple_of(4) {
        bail!("--stripe-unit-kib must be a positive multiple of 4 (4 KiB blocks), got {stripe_unit_kib}");
    }
    limits::count("--outstanding", outstanding as u64, limits::MAX_OUTSTANDING)?;
    Ok(Raid4Config {
        data_disks,
        stripe_unit_blocks: stripe_unit_kib / 4,
        max_outstanding: outstanding,
        ..Raid4Config::default()
    })
}

/// Random single-block updates, one at a time: PROX-T2's baseline row.
pub fn baseline(
    disk: &str,
    cfg: Raid4Config,
    write_through: bool,
    updates: usize,
    seed: u64,
    json: bool,
) -> Result<String> {
    limits::count("--updates", updates as u64, limits::MAX_UPDATES)?;
    let mut params = load_disk(disk)?.params;
    if write_through {
        params.firmware.write_cache_sectors = 0;
    }
    let cached = params.firmware.write_cache_sectors > 0;
    let array = Raid4::new(params.clone(), cfg).map_err(|e| anyhow!("{e}"))?;
    let (row, _) = baseline_updates_on(array, updates, seed).map_err(|e| anyhow!("{e}"))?;
    if json {
        return Ok(serde_json::to_string_pretty(&row)? + "\n");
    }
    let mut t = Table::new(&[("", Align::Left), ("value", Align::Right)]);
    for (name, cell) in T2Row::columns().into_iter().zip(row.cells()).skip(1) {
        t.row(vec![name, cell]);
    }
    let writes = match (cached, cfg.sync_writes) {
        (false, _) => "Drives without a write cache: a drive needs about a revolution to rewrite\n\
                       sectors it has just read, so the writes add most of a revolution to the reads.",
        (true, false) => "The drives acknowledge writes from their caches and write them to the media\n\
                          while the next head-moving read waits (not counted, as in the paper).",
        (true, true) => "Each update ends with a cache flush, so it includes the writes' media time.",
    };
    Ok(format!(
        "{}+1 RAID-4 of {}, stripe unit {} KiB, {} random 4 KiB updates (seed {seed}):\n{}\n\
         Paper (PROX-T2 baseline, WD RE3): 16.8 ms, 8 disk I/Os, 2.0 I/Os per revolution.\n\
         {writes}\n",
        cfg.data_disks,
        params.name,
        cfg.stripe_unit_blocks * 4,
        updates,
        t.render()
    ))
}

/// The campaign returned wrong bytes at least once: `report` is its full output, still
/// printed; the command then exits with status 1.
#[derive(Debug)]
pub struct WrongData {
    pub report: String,
    pub blocks: u64,
}

impl std::fmt::Display for WrongData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the array returned wrong data for {} block read(s)",
            self.blocks
        )
    }
}

impl std::error::Error for WrongData {}

/// A fault-injection campaign. Fails with `WrongData` (after the report) if any read
/// returned wrong bytes.
pub fn faults(disk: &str, c: &FaultCampaign, json: bool) -> Result<String> {
    let d = load_disk_checked(disk, c)?;
    let r = run_fault_campaign(&d.params, c).map_err(|e| anyhow!("{e}"))?;
    let report = faults_report(&d.params.name, c, &r, json)?;
    if r.returned_wrong > 0 {
        return Err(WrongData {
            report,
            blocks: r.returned_wrong,
        }
        .into());
    }
    Ok(report)
}

/// Checks the campaign options, then loads the member drive.
fn load_disk_checked(disk: &str, c: &FaultCampaign) -> Result<crate::disks::Loaded> {
    for (name, p) in [
        ("--lost", c.lost_write),
        ("--misdirected", c.misdirected_write),
        ("--flips", c.bit_flip),
    ] {
        if !(0.0..=1.0).contains(&p) {
            bail!("{name} must be a probability between 0 and 1, got {p}");
        }
    }
    // One draw decides a write's fate: lost, misdirected or stored.
    let writes = c.lost_write + c.misdirected_write;
    if writes > 1.0 {
        bail!(
            "--lost + --misdirected is the chance that one write goes wrong and must be at most 1, got {}",
            spindle::show::value(writes)
        );
    }
    limits::count("--ops", c.ops as u64, limits::MAX_OPS)?;
    limits::count("--span", c.span_blocks, limits::MAX_FAULT_SPAN)?;
    // Every scrub checks each stripe row the span covers that holds data.
    // The periodic ones (none with --scrub-every 0), then the final two.
    let periodic = c.ops.checked_div(c.scrub_every).unwrap_or(0) as u64;
    let scrubs = periodic + 2;
    let rows = c.span_blocks.div_ceil(4);
    if scrubs.saturating_mul(rows) > limits::MAX_SCRUB_ROW_CHECKS {
        bail!(
            "--ops {} with --scrub-every {} over --span {} scrubs {scrubs} times, up to {rows} \
             stripe rows each: {} row checks, where at most {} are allowed (minutes, not hours); \
             lower --ops or --span, or raise --scrub-every",
            c.ops,
            c.scrub_every,
            c.span_blocks,
            scrubs.saturating_mul(rows),
            limits::MAX_SCRUB_ROW_CHECKS
        );
    }
    let d = load_disk(disk)?;
    // The campaign runs on a 4+1 group: the span must fit its volume (never clamped).
    let member_blocks = crate::disks::build_loaded(&d)?.capacity() / SECTORS_PER_BLOCK;
    let volume = Layout::new(4, c.stripe_unit_blocks, member_blocks).volume_blocks();
    if c.span_blocks == 0 || c.span_blocks > volume {
        bail!(
            "--span must be within 1..={volume} (the 4 KiB blocks of a 4+1 RAID-4 of {}), got {}",
            d.params.name,
            c.span_blocks
        );
    }
    Ok(d)
}

fn faults_report(name: &str, c: &FaultCampaign, r: &FaultReport, json: bool) -> Result<String> {
    if json {
        return Ok(serde_json::to_string_pretty(&r)? + "\n");
    }
    let i = r.injected;
    let mut t = Table::new(&[("", Align::Left), ("count", Align::Right)]);
    for (k, v) in [
        ("injected: lost writes", i.lost_writes),
        ("injected: misdirected writes", i.misdirected_writes),
        ("injected: bit flips", i.bit_flips),
        (
            "detections (a fault can be met more than once)",
            r.detections,
        ),
        ("detections repaired", r.detections_repaired),
        ("damaged locations repaired", r.locations_repaired),
        (
            "damaged locations overwritten before any read",
            r.locations_overwritten,
        ),
        ("reads right", r.reads_right),
        ("reads refused (two faults in a row)", r.reads_refused),
        ("writes refused (two faults in a row)", r.writes_refused),
        ("returned wrong", r.returned_wrong),
        (
            "rows unrecoverable after the final scrub",
            r.unrecoverable_after_scrub,
        ),
        ("damage left after the final scrub", r.damaged_left),
        ("detections in a second scrub", r.second_scrub_detections),
    ] {
        t.row(vec![k.to_string(), v.to_string()]);
    }
    Ok(format!(
        "{} operations on a 4+1 RAID-4 of {} over {} blocks (seed {}), {:.1} s simulated:\n{}\
         final read-back: {} of {} blocks right, {} refused (unrecoverable rows), {} wrong\n",
        c.ops,
        name,
        c.span_blocks,
        c.seed,
        r.simulated_s,
        t.render(),
        r.final_reads_right,
        r.final_reads_total,
        r.final_reads_refused,
        r.final_reads_total - r.final_reads_right - r.final_reads_refused
    ))
}
