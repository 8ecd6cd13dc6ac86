//! The data layout engine's experiments: PROX-T2's staged rows (random updates
//! destaged through a 1–8 % flash staging area) and PROX-T3 (serial reads after the
//! updates), on a 4+1 RAID-4 of wd-re3 drives.
//!
//! Scale: the paper's group holds 4 TB, filled to 89 % with 16 MB extents, then 2000
//! random 4 KiB updates per extent. A scaled run keeps every ratio — 16 MB extents,
//! 89 % fill, 2000 updates per extent, staging as a share of the volume, 1 MB stripe
//! unit and allocation range — with fewer extents, on the first part of each drive.

use super::prox_raid::T2Row;
use crate::array::{BatchReport, Raid4, Raid4Config};
use crate::disk::presets::preset;
use crate::flash::presets::preset as flash_preset;
use crate::layout::{Dle, DleConfig, LayoutPolicy};
use crate::store::{block_from, Block};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// 16 MB extents in 4 KiB blocks.
pub const EXTENT_BLOCKS: u64 = 4096;
/// Serial reads go in requests of at most this many blocks (indirect-block fan-out).
pub const READ_REQUEST_BLOCKS: u64 = 974;

/// One aging setup.
#[derive(Clone, Debug, Serialize)]
pub struct AgingSpec {
    pub extents: u32,
    /// Fraction of the volume filled with extents.
    pub fill: f64,
    /// Random single-block updates per extent.
    pub updates_per_extent: u64,
    /// Staging area as a fraction of the volume (0 for the baselines).
    pub staging: f64,
    pub policy: LayoutPolicy,
    pub seed: u64,
}

impl AgingSpec {
    pub fn volume_blocks(&self, stripe_blocks: u64) -> u64 {
        let want = (self.extents as f64 * EXTENT_BLOCKS as f64 / self.fill).ceil() as u64;
        want.div_ceil(stripe_blocks) * stripe_blocks
    }

    pub fn scale_note(&self) -> String {
        let gb = self.extents as f64 * EXTENT_BLOCKS as f64 * 4096.0 / self.fill / 1e9;
        format!(
            "{} extents of 16 MB, {:.0} % full ({gb:.2} GB volume; the paper: ~212,000 extents in 4 TB), \
             {} random 4 KiB updates per extent",
            self.extents,
            100.0 * self.fill,
            self.updates_per_extent
        )
    }
}

fn content(e: u32, o: u64, v: u64) -> Block {
    block_from(format!("e{e} o{o} v{v}").as_bytes())
}

/// Builds the group and engine, writes every extent serially, then applies the random
/// updates (staged and destaged as the policy does). Returns the aged engine.
pub fn aged_engine(spec: &AgingSpec) -> Result<Dle, String> {
    let raid_cfg = Raid4Config::default();
    let raid = Raid4::new(preset("wd-re3")?, raid_cfg).map_err(|e| e.to_string())?;
    let stripe = raid_cfg.stripe_unit_blocks * raid_cfg.data_disks as u64;
    let volume = spec.volume_blocks(stripe);
    let cfg = DleConfig {
        policy: spec.policy,
        staging_blocks: (spec.staging * volume as f64).round() as u64,
        volume_blocks: volume,
        ..DleConfig::default()
    };
    let flash = flash_preset("x25m-g2").map_err(|e| e.to_string())?;
    let mut d = Dle::new(raid, flash, cfg).map_err(|e| e.to_string())?;
    for e in 0..spec.extents {
        d.create(e, EXTENT_BLOCKS).map_err(|e| e.to_string())?;
        let data: Vec<Block> = (0..EXTENT_BLOCKS).map(|o| content(e, o, 0)).collect();
        d.write(e, 0, &data).map_err(|e| e.to_string())?;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let updates = spec.updates_per_extent * u64::from(spec.extents);
    for i in 0..updates {
        let e = rng.gen_range(0..spec.extents);
        let o = rng.gen_range(0..EXTENT_BLOCKS);
        d.write(e, o, &[content(e, o, i + 1)]).map_err(|e| e.to_string())?;
    }
    Ok(d)
}

/// After aging: `destages` more full staging cycles of random updates, each RAID batch
/// preceded by random head moves; returns the batches' reports.
pub fn measure_destages(d: &mut Dle, spec: &AgingSpec, destages: u64) -> Result<Vec<BatchReport>, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed ^ 0xdead);
    d.scatter = Some(ChaCha8Rng::seed_from_u64(spec.seed ^ 0xbeef));
    let first = d.batches.len();
    let start = d.stats.destages;
    let mut i = 0u64;
    while d.stats.destages < start + destages {
        let e = rng.gen_range(0..spec.extents);
        let o = rng.gen_range(0..EXTENT_BLOCKS);
        i += 1;
        d.write(e, o, &[content(e, o, 1_000_000 + i)]).map_err(|e| e.to_string())?;
    }
    d.scatter = None;
    Ok(d.batches[first..].to_vec())
}

/// One staged row of PROX-T2.
pub fn t2_row(spec: &AgingSpec, destages: u64) -> Result<T2Row, String> {
    let mut d = aged_engine(spec)?;
    let reports = measure_destages(&mut d, spec, destages)?;
    let rev_ms = 60_000.0 / d.raid().disk_params().mech.rpm;
    Ok(T2Row::from_batches(&format!("{:.0}%", 100.0 * spec.staging), &reports, rev_ms))
}

/// PROX-T3's per-configuration numbers.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SerialReadRow {
    pub label: String,
    pub requests: usize,
    /// Bytes read / elapsed time / data disks.
    pub mb_s_per_disk: f64,
    pub mean_resp_ms: f64,
    /// Mean over requests of the mean I/Os per data disk that did I/O.
    pub ios_per_disk: f64,
    /// Mean over requests of the RAID-level I/Os (drive requests, all disks).
    pub ios_per_request: f64,
    pub util: f64,
    pub resp_ms: Vec<f64>,
}

/// Reads every extent in random order, in requests of up to 974 blocks.
pub fn serial_reads(d: &mut Dle, label: &str, extents: u32, seed: u64) -> Result<SerialReadRow, String> {
    let mut order: Vec<u32> = (0..extents).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let data_disks = d.raid().layout().data_disks;
    let start = d.raid().now();
    let mut row = SerialReadRow { label: label.into(), ..SerialReadRow::default() };
    let mut bytes = 0u64;
    let mut busy = 0.0;
    for e in order {
        let mut off = 0;
        while off < EXTENT_BLOCKS {
            let n = READ_REQUEST_BLOCKS.min(EXTENT_BLOCKS - off);
            let (_, r) = d.read(e, off, n).map_err(|e| e.to_string())?;
            let resp = r.response_ms();
            let active: Vec<_> = r.disks[..data_disks].iter().filter(|a| a.ios() > 0).collect();
            row.ios_per_disk += active.iter().map(|a| a.ios() as f64).sum::<f64>() / active.len().max(1) as f64;
            row.ios_per_request += r.disk_ios() as f64;
            busy += active.iter().map(|a| a.busy_ns as f64 / 1e6).sum::<f64>() / data_disks as f64;
            row.resp_ms.push(resp);
            bytes += n * 4096;
            off += n;
        }
    }
    let elapsed_ms = (d.raid().now().0 - start.0) as f64 / 1e6;
    let k = row.resp_ms.len().max(1) as f64;
    row.requests = row.resp_ms.len();
    row.mean_resp_ms = row.resp_ms.iter().sum::<f64>() / k;
    row.ios_per_disk /= k;
    row.ios_per_request /= k;
    row.mb_s_per_disk = bytes as f64 / 1e6 / (elapsed_ms / 1e3) / data_disks as f64;
    row.util = busy / elapsed_ms.max(1e-9);
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[ignore = "scratch: prints scaled PROX-T2/T3 numbers"]
    fn scratch_t2() {
        for staging in [0.01, 0.04] {
            let spec = AgingSpec { extents: 16, fill: 0.89, updates_per_extent: 2000, staging, policy: LayoutPolicy::Proximal, seed: 1 };
            let t = std::time::Instant::now();
            let mut d = aged_engine(&spec).expect("age");
            let aging_s = t.elapsed().as_secs_f64();
            let reports = measure_destages(&mut d, &spec, 2).expect("m");
            for e in 0..3u32 {
                let map = d.map(e).expect("map");
                let lo = e as u64 * 4096; // original region start (serial fill)
                let mut far = 0; let mut outside = 0; let mut maxd = 0u64;
                for &vb in map { let vb = vb as u64; if vb < lo || vb >= lo + 4096 { outside += 1; let dd = if vb < lo { lo - vb } else { vb - lo - 4096 }; maxd = maxd.max(dd); if dd > 8192 { far += 1; } } }
                eprintln!("extent {e}: outside {outside} far {far} maxdist {maxd} volume {}", d.free_space().blocks());
            }
            let row = T2Row::from_batches("x", &reports, 8.333);
            eprintln!("staging {staging}: aging {aging_s:.1}s {:?}", row);
            let r = serial_reads(&mut d, "aged", spec.extents, 3).expect("r");
            eprintln!("aged reads: {:.1} MB/s/disk resp {:.2} ios/disk {:.1} ios/req {:.1} util {:.2}", r.mb_s_per_disk, r.mean_resp_ms, r.ios_per_disk, r.ios_per_request, r.util);
        }
        let spec = AgingSpec { extents: 16, fill: 0.89, updates_per_extent: 0, staging: 0.01, policy: LayoutPolicy::Proximal, seed: 1 };
        let mut d = aged_engine(&spec).expect("age");
        let r = serial_reads(&mut d, "new", spec.extents, 3).expect("r");
        eprintln!("new reads: {:.1} MB/s/disk resp {:.2} ios/disk {:.1} ios/req {:.1} util {:.2}", r.mb_s_per_disk, r.mean_resp_ms, r.ios_per_disk, r.ios_per_request, r.util);
        let spec = AgingSpec { extents: 16, fill: 0.89, updates_per_extent: 2000, staging: 0.0, policy: LayoutPolicy::WriteAnywhere, seed: 1 };
        let t = std::time::Instant::now();
        let mut d = aged_engine(&spec).expect("age");
        let r = serial_reads(&mut d, "wa", spec.extents, 3).expect("r");
        eprintln!("write-anywhere ({:.1}s) reads: {:.1} MB/s/disk resp {:.2} ios/disk {:.1} ios/req {:.1} util {:.2}", t.elapsed().as_secs_f64(), r.mb_s_per_disk, r.mean_resp_ms, r.ios_per_disk, r.ios_per_request, r.util);
    }
}
