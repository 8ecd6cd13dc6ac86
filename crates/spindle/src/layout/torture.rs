//! A seeded fault campaign over the data layout engine (`spindle torture --array
//! dle`): random writes (small ones staged on flash, large ones straight to the
//! array), destages and reads through the DLE, while the RAID-4 below it takes each
//! member's own fault stream (lost, misdirected and torn writes, bit flips), whole
//! members fail and are rebuilt, and the power is cut in the middle of writes (flash
//! and disk writes alike) and the engine recovers. Every read is checked, block by
//! block, against a plain copy of the volume; a read the array cannot prove is
//! refused, and counted as such. The flash takes the power cuts, and with
//! `torn_metadata` a cut that lands on one of the engine's metadata writes tears that
//! record (part of it written, the rest garbage): recovery must find it by its
//! checksum and cut it off. The flash takes no other faults: the engine keeps one
//! copy of its metadata log, so damage to an acknowledged record could be detected
//! but not repaired.

use super::dle::{Dle, DleConfig, DleError, LayoutPolicy, Tear};
use crate::array::faults::{draw_bit_flip, MemberFaults};
use crate::array::layout::ParityLayout;
use crate::array::{ArrayError, FaultInjector, MemberState, Raid4, Raid4Config};
use crate::disk::params::DiskParams;
use crate::expected::{random_block, Expected};
use crate::flash::FlashParams;
use crate::stack::faults::{device_seed, FaultSpec};
use crate::store::Block;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Extents the campaign writes, and blocks in each.
const EXTENTS: u32 = 8;

/// The campaign's knobs.
#[derive(Clone, Debug, Serialize)]
pub struct DleTortureConfig {
    pub seed: u64,
    pub ops: usize,
    /// Blocks per extent (8 extents).
    pub extent_blocks: u64,
    /// Every member's faults (lost, misdirected, torn, flips).
    pub faults: FaultSpec,
    /// Probability per operation, while every member is up, that one member fails.
    pub fail: f64,
    /// Probability per write that the power is cut during it.
    pub crash: f64,
    pub replace_after: usize,
    pub scrub_every: usize,
    /// Data members of the array (one more holds parity).
    pub data_disks: usize,
    /// A RAID-5 (rotating parity in this layout) instead of the RAID-4.
    pub rotation: Option<ParityLayout>,
    /// The layout engine or a baseline.
    pub policy: LayoutPolicy,
    /// Each member's own faults (a stack file's tables); empty: `faults` for all.
    pub members: Vec<FaultSpec>,
    /// A power cut that lands on a flash metadata write tears that record.
    pub torn_metadata: bool,
}

/// What a campaign did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DleTortureReport {
    pub stack: String,
    pub seed: u64,
    pub ops: usize,
    pub lost_writes: u64,
    pub misdirected_writes: u64,
    pub torn_writes: u64,
    pub bit_flips: u64,
    pub drive_failures: u64,
    pub rebuilds: u64,
    pub power_cuts: u64,
    pub recoveries: u64,
    /// With torn metadata: flash metadata records a power cut tore, and the torn
    /// tails recovery found by their checksums and cut off (each torn record's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_records_torn: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_tails_discarded: Option<u64>,
    pub destages: u64,
    pub destages_refused: u64,
    pub writes_refused: u64,
    pub detections: u64,
    pub scrubs: u64,
    pub reads_right: u64,
    /// Block reads refused as unrecoverable (never answered with guessed bytes).
    pub reads_refused: u64,
    pub wrong_reads: u64,
    /// Bytes that differed in those reads: must be 0.
    pub wrong_bytes: u64,
    pub final_reads_right: u64,
    pub final_reads_refused: u64,
    pub simulated_s: f64,
}

/// Whether an engine error is a refusal the campaign counts (the array could not
/// prove a block), rather than a failure of the run.
fn refused(e: &DleError) -> bool {
    matches!(e, DleError::Array(ArrayError::Unrecoverable { .. }))
}

/// Reads `n` blocks one by one, checking each.
fn read_check(
    d: &mut Dle,
    m: &mut Expected<(u32, u64)>,
    e: u32,
    o: u64,
    n: u64,
    r: &mut DleTortureReport,
    last: bool,
) -> Result<(), DleError> {
    for k in o..o + n {
        match d.read(e, k, 1) {
            Ok((b, _)) => {
                let wrong = m.check((e, k), &b[0]);
                if wrong == 0 {
                    if last {
                        r.final_reads_right += 1;
                    } else {
                        r.reads_right += 1;
                    }
                } else {
                    r.wrong_reads += 1;
                    r.wrong_bytes += wrong;
                }
            }
            Err(err) if refused(&err) => {
                if last {
                    r.final_reads_refused += 1;
                } else {
                    r.reads_refused += 1;
                }
            }
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

/// Runs the campaign over a 4+1 RAID-4 of `disk` with `flash` staging.
pub fn run_dle_torture(
    disk: &DiskParams,
    flash: &FlashParams,
    c: &DleTortureConfig,
    progress: &mut dyn FnMut(usize),
) -> Result<DleTortureReport, DleError> {
    let bad = |s: String| DleError::Array(ArrayError::Disk(s));
    c.faults.validate("--rate").map_err(bad)?;
    crate::show::probabilities(&[("fail", c.fail), ("crash", c.crash)]).map_err(bad)?;
    if c.extent_blocks == 0 || c.extent_blocks > 4096 {
        return Err(bad(format!(
            "extent blocks {}: expected 1 to 4096",
            c.extent_blocks
        )));
    }
    let stripe_unit_blocks = 16;
    let data_disks = c.data_disks;
    if data_disks == 0 || data_disks > 15 {
        return Err(bad(format!("data disks {data_disks}: expected 1 to 15")));
    }
    if !c.members.is_empty() && c.members.len() != data_disks + 1 {
        return Err(bad(format!(
            "{} members' faults for a {data_disks}+1 RAID-4",
            c.members.len()
        )));
    }
    let fault_of = |i: usize| c.members.get(i).unwrap_or(&c.faults).clone();
    for i in 0..=data_disks {
        fault_of(i)
            .validate(&format!("device.member {i}"))
            .map_err(bad)?;
    }
    let mut raid = Raid4::new(
        disk.clone(),
        Raid4Config {
            data_disks,
            stripe_unit_blocks,
            ..Raid4Config::default()
        },
    )?;
    if let Some(l) = c.rotation {
        raid = raid.rotating_parity(l)?;
    }
    raid.heal = true;
    let members: Vec<MemberFaults> = (0..=data_disks)
        .map(|i| MemberFaults {
            rng: ChaCha8Rng::seed_from_u64(device_seed(c.seed, &format!("dle.member {i}"))),
            lost_write: fault_of(i).lost,
            misdirected_write: fault_of(i).misdirected,
            torn_write: fault_of(i).torn,
        })
        .collect();
    raid.faults = FaultInjector::new(c.seed).with_members(members);
    // Twice the extents' blocks, so new versions find free space.
    let volume_blocks = 2 * u64::from(EXTENTS) * c.extent_blocks + 256;
    let cfg = DleConfig {
        policy: c.policy,
        staging_blocks: 64,
        small_write_blocks: 8,
        range_blocks: 16,
        proximal_ranges: 8,
        volume_blocks,
    };
    let mut d = Dle::new(raid, flash.clone(), cfg)?;
    // Its own streams, so that the campaign's other draws stay as they are.
    let mut meta_rng = c
        .torn_metadata
        .then(|| ChaCha8Rng::seed_from_u64(device_seed(c.seed, "dle.flash metadata cuts")));
    if c.torn_metadata {
        d.tear_metadata(Some(Tear::seeded(device_seed(
            c.seed,
            "dle.flash metadata",
        ))));
    }
    for e in 0..EXTENTS {
        d.create(e, c.extent_blocks)?;
    }
    let mut r = DleTortureReport {
        stack: format!(
            "{} over a {data_disks}+1 {} of {} with {} staging (byte-exact)",
            match c.policy {
                LayoutPolicy::Proximal => "data layout engine",
                LayoutPolicy::UpdateInPlace => "update-in-place layout",
                LayoutPolicy::WriteAnywhere => "write-anywhere layout",
            },
            match c.rotation {
                Some(l) => format!("RAID-5 ({})", l.name()),
                None => "RAID-4".into(),
            },
            disk.name,
            flash.name
        ),
        seed: c.seed,
        ops: c.ops,
        ..DleTortureReport::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(device_seed(c.seed, "dle torture"));
    let mut flip_rngs: Vec<ChaCha8Rng> = (0..=data_disks)
        .map(|i| ChaCha8Rng::seed_from_u64(device_seed(c.seed, &format!("dle.member {i}.flips"))))
        .collect();
    let rows_span = volume_blocks / data_disks as u64 + stripe_unit_blocks;
    let mut model = Expected::default();
    let mut down: Option<(usize, usize)> = None;
    let mut seen = 0usize;
    let watch = crate::interrupt::Watch::start();
    for i in 0..c.ops {
        if i % 1024 == 0 {
            if watch.stopped() {
                return Err(DleError::Array(ArrayError::Interrupted));
            }
            progress(i);
        }
        if down.is_none() && c.fail > 0.0 && rng.gen_bool(c.fail) {
            let m = rng.gen_range(0..=data_disks);
            d.raid_mut().fail_disk(m)?;
            r.drive_failures += 1;
            down = Some((m, i));
        }
        if let Some((m, at)) = down {
            if i >= at + c.replace_after {
                let a = d.raid_mut();
                if a.state(m) == Some(MemberState::Failed) {
                    a.replace_disk(m)?;
                }
                if a.rebuild_step(4)? {
                    r.rebuilds += 1;
                    down = None;
                }
            }
        }
        let e = rng.gen_range(0..EXTENTS);
        let pick = rng.gen_range(0..20);
        if pick < 10 {
            let n = if rng.gen_bool(0.2) {
                rng.gen_range(8..=16u64)
            } else {
                rng.gen_range(1..=6u64)
            }
            .min(c.extent_blocks);
            let o = rng.gen_range(0..=c.extent_blocks - n);
            let data: Vec<Block> = (0..n).map(|_| random_block(&mut rng)).collect();
            let cut = c.crash > 0.0 && rng.gen_bool(c.crash);
            if cut {
                let budget = rng.gen_range(0..=8 * n);
                // With torn metadata, half the cuts land on one of the first three
                // metadata writes (a uniform draw over all writes rarely does).
                let at_meta = meta_rng
                    .as_mut()
                    .and_then(|m| m.gen_bool(0.5).then(|| m.gen_range(0..3)));
                match at_meta {
                    Some(k) => d.crash_at_meta_write(Some(k)),
                    None => d.crash_after_writes(budget),
                }
            }
            let res = d.write(e, o, &data);
            let interrupted = cut && d.raid().faults.crashed();
            match res {
                Ok(()) if !interrupted => {
                    for (k, b) in data.iter().enumerate() {
                        model.value.insert((e, o + k as u64), b.clone());
                        model.maybe.remove(&(e, o + k as u64));
                    }
                }
                Ok(()) | Err(DleError::Crashed) => {
                    for (k, b) in data.iter().enumerate() {
                        model.interrupted((e, o + k as u64), b);
                    }
                }
                Err(err) if refused(&err) => {
                    r.writes_refused += 1;
                    for (k, b) in data.iter().enumerate() {
                        model.interrupted((e, o + k as u64), b);
                    }
                }
                Err(err) => return Err(err),
            }
            if cut {
                d.crash_at_meta_write(None);
                d.raid_mut().faults.power_restored();
                if interrupted {
                    r.power_cuts += 1;
                    let mut inj =
                        std::mem::replace(&mut d.raid_mut().faults, FaultInjector::none());
                    inj.power_restored();
                    d = d.recover()?;
                    d.raid_mut().faults = inj;
                    r.recoveries += 1;
                    read_check(&mut d, &mut model, e, o, n, &mut r, false)?;
                }
            }
        } else if pick < 11 {
            match d.destage() {
                Ok(()) => r.destages += 1,
                Err(err) if refused(&err) => r.destages_refused += 1,
                Err(err) => return Err(err),
            }
        } else {
            let n = rng.gen_range(1..=6u64).min(c.extent_blocks);
            let o = rng.gen_range(0..=c.extent_blocks - n);
            read_check(&mut d, &mut model, e, o, n, &mut r, false)?;
        }
        for (m, frng) in flip_rngs.iter_mut().enumerate() {
            let p = fault_of(m).flips;
            if p > 0.0 && frng.gen_bool(p) {
                let (block, bit) = draw_bit_flip(frng, rows_span);
                d.raid_mut().inject_bit_flip(m, block, bit);
            }
        }
        if c.scrub_every > 0 && i % c.scrub_every == c.scrub_every - 1 {
            d.raid_mut().scrub()?;
            r.scrubs += 1;
        }
        seen = seen.max(d.raid().detections().len());
    }
    progress(c.ops);
    if let Some((m, _)) = down {
        let a = d.raid_mut();
        if a.state(m) == Some(MemberState::Failed) {
            a.replace_disk(m)?;
        }
        while !a.rebuild_step(64)? {}
        r.rebuilds += 1;
    }
    d.raid_mut().faults.stop();
    d.raid_mut().scrub()?;
    for e in 0..EXTENTS {
        read_check(&mut d, &mut model, e, 0, c.extent_blocks, &mut r, true)?;
    }
    let inj = d.raid().faults.injected;
    r.lost_writes = inj.lost_writes;
    r.misdirected_writes = inj.misdirected_writes;
    r.torn_writes = inj.torn_writes;
    r.bit_flips = inj.bit_flips;
    r.detections = seen.max(d.raid().detections().len()) as u64;
    r.simulated_s = d.raid().now().as_ms() / 1e3;
    if c.torn_metadata {
        let m = d.meta_log_stats();
        r.metadata_records_torn = Some(m.torn);
        r.metadata_tails_discarded = Some(m.tails_discarded);
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::presets::preset;
    use crate::flash::presets::preset as flash_preset;

    fn config(seed: u64, p: f64) -> DleTortureConfig {
        DleTortureConfig {
            seed,
            ops: 800,
            extent_blocks: 64,
            faults: FaultSpec::uniform(p),
            fail: p,
            crash: p,
            replace_after: 20,
            scrub_every: 100,
            data_disks: 4,
            rotation: None,
            policy: LayoutPolicy::Proximal,
            members: Vec::new(),
            torn_metadata: false,
        }
    }

    /// The layout engine over a RAID-5 in either parity layout: every fault kind,
    /// member failures and power cuts; no read is wrong and every kind landed.
    #[test]
    fn dle_over_raid5_returns_no_wrong_byte_under_every_fault() {
        let disk = preset("wd-re3").expect("preset");
        let flash = flash_preset("x25m-g2").expect("flash");
        for (seed, p, l) in [
            (1, 0.02, ParityLayout::LeftSymmetric),
            (2, 0.05, ParityLayout::LeftAsymmetric),
        ] {
            let mut c = config(seed, p);
            c.rotation = Some(l);
            let r = run_dle_torture(&disk, &flash, &c, &mut |_| {}).expect("run");
            assert!(
                r.stack.contains(&format!("RAID-5 ({})", l.name())),
                "{}",
                r.stack
            );
            assert_eq!(r.wrong_bytes, 0, "{l:?} seed {seed}: {r:?}");
            assert_eq!(r.wrong_reads, 0);
            assert!(
                r.lost_writes > 0 && r.misdirected_writes > 0 && r.torn_writes > 0,
                "{r:?}"
            );
            assert!(
                r.power_cuts > 0 && r.bit_flips > 0 && r.drive_failures > 0,
                "{r:?}"
            );
            assert!(r.reads_right > 0 && r.final_reads_right > 0, "{r:?}");
        }
    }

    /// A short campaign with every fault kind: reads come back right or refused,
    /// never wrong, and the faults were injected.
    #[test]
    fn dle_returns_no_wrong_byte_under_every_fault() {
        let disk = preset("wd-re3").expect("preset");
        let flash = flash_preset("x25m-g2").expect("flash");
        for (seed, p) in [(1, 0.02), (2, 0.05)] {
            let r = run_dle_torture(&disk, &flash, &config(seed, p), &mut |_| {}).expect("run");
            assert_eq!(r.wrong_bytes, 0, "seed {seed}: {r:?}");
            assert_eq!(r.wrong_reads, 0);
            assert!(
                r.lost_writes + r.misdirected_writes + r.torn_writes > 0,
                "{r:?}"
            );
            assert!(r.power_cuts > 0 && r.bit_flips > 0, "{r:?}");
            assert!(r.reads_right > 0 && r.final_reads_right > 0, "{r:?}");
        }
    }

    /// Power cuts that tear the flash metadata record they land on: every torn
    /// record is found by its checksum and cut off, and no read is wrong.
    #[test]
    fn torn_metadata_records_are_discarded_and_no_read_is_wrong() {
        let disk = preset("wd-re3").expect("preset");
        let flash = flash_preset("x25m-g2").expect("flash");
        for seed in [3, 4] {
            let mut c = config(seed, 0.0);
            c.crash = 0.05;
            c.ops = 1500;
            c.torn_metadata = true;
            let r = run_dle_torture(&disk, &flash, &c, &mut |_| {}).expect("run");
            assert_eq!(r.wrong_bytes, 0, "seed {seed}: {r:?}");
            let torn = r.metadata_records_torn.expect("torn count");
            assert!(
                torn >= 5,
                "seed {seed}: {torn} torn of {} cuts",
                r.power_cuts
            );
            assert_eq!(r.metadata_tails_discarded, Some(torn), "{r:?}");
            // Power cuts alone leave nothing unprovable.
            assert_eq!(r.reads_refused + r.final_reads_refused, 0, "{r:?}");
            c.torn_metadata = false;
            let plain = run_dle_torture(&disk, &flash, &c, &mut |_| {}).expect("run");
            assert_eq!(plain.metadata_records_torn, None);
        }
    }
}
