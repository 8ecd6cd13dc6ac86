//! `spindle disks` and `spindle disk-info`.

use crate::table::{thousands, Align, Table};
use anyhow::{anyhow, Context, Result};
use serde::Serialize;
use spindle::disk::params::{AfterPrev, DiskParams, FirmwarePolicy, ReadAhead};
use spindle::disk::presets;
use spindle::disk::{Hdd, TrackOrder};
use spindle::disksim::import::import_first_disk;
use spindle::flash::presets::{self as flash_presets, Datasheet};
use spindle::flash::FlashParams;
use std::path::Path;

/// Bytes per sector (LBN).
const SECTOR_BYTES: f64 = 512.0;

fn gb(sectors: u64) -> f64 {
    sectors as f64 * SECTOR_BYTES / 1e9
}

fn policy_name(p: FirmwarePolicy) -> &'static str {
    match p {
        FirmwarePolicy::Fcfs => "FCFS",
        FirmwarePolicy::Sptf => "SPTF",
        FirmwarePolicy::SptfAscendingRun => "SPTF (ascending-run limited)",
    }
}

/// A disk as named on the command line.
pub struct Loaded {
    pub params: DiskParams,
    /// "preset" or the path of the imported file.
    pub source: String,
}

/// Whether a command-line argument names a DiskSim parameter file rather than a preset.
pub fn is_parv_path(arg: &str) -> bool {
    !is_drive_file(arg) && (arg.ends_with(".parv") || Path::new(arg).exists())
}

/// Whether a command-line argument names a spindle drive file (TOML).
pub fn is_drive_file(arg: &str) -> bool {
    arg.ends_with(".toml")
}

/// Loads a preset by name, a spindle drive file, or the first disk of a DiskSim `.parv`.
pub fn load_disk(arg: &str) -> Result<Loaded> {
    if is_drive_file(arg) {
        let params = DiskParams::read_drive_file(Path::new(arg)).map_err(|e| anyhow!(e))?;
        Ok(Loaded {
            params,
            source: arg.to_string(),
        })
    } else if is_parv_path(arg) {
        let path = Path::new(arg);
        let params = import_first_disk(path)
            .map_err(|e| anyhow!("cannot import DiskSim parameter file: {e}"))?;
        Ok(Loaded {
            params,
            source: path.display().to_string(),
        })
    } else {
        let params = presets::preset(arg).map_err(|e| anyhow!(e))?;
        Ok(Loaded {
            params,
            source: "preset".into(),
        })
    }
}

/// Builds the drive model, naming the disk if its parameters are inconsistent.
pub fn build(params: DiskParams) -> Result<Hdd> {
    let name = params.name.clone();
    Hdd::new(params).with_context(|| format!("disk `{name}` has inconsistent parameters"))
}

/// [`build`] for a loaded drive, naming the file it came from too.
pub fn build_loaded(loaded: &Loaded) -> Result<Hdd> {
    let hdd = build(loaded.params.clone());
    if loaded.source == "preset" {
        hdd
    } else {
        hdd.with_context(|| loaded.source.clone())
    }
}

/// A short form of a provenance sentence for a table column.
fn short_provenance(p: &str) -> String {
    let cut = p.find([',', '(', ';']).unwrap_or(p.len());
    let s = p[..cut].trim();
    if s.chars().count() > 48 {
        let t: String = s.chars().take(47).collect();
        format!("{t}…")
    } else {
        s.to_string()
    }
}

#[derive(Serialize)]
struct DiskRow {
    name: String,
    capacity_gb: f64,
    capacity_sectors: u64,
    surfaces: u32,
    cylinders: u32,
    zones: usize,
    rpm: f64,
    revolution_ms: f64,
    queue_depth: u32,
    policy: &'static str,
    provenance: String,
}

/// `spindle disks`: the disk presets, then the flash presets; `--flash` only the flash
/// presets. `--json` keeps its disks-only array so existing scripts keep working.
pub fn disks(json: bool, flash: bool) -> Result<String> {
    if flash {
        return flash_table(json);
    }
    let mut out = disk_table(json)?;
    if !json {
        out.push_str("\nflash devices\n");
        out.push_str(&flash_table(false)?);
    }
    Ok(out)
}

fn disk_table(json: bool) -> Result<String> {
    let mut rows = Vec::new();
    for &name in presets::PRESETS {
        let params = presets::preset(name).map_err(|e| anyhow!("preset `{name}`: {e}"))?;
        let hdd = build(params)?;
        let p = hdd.params();
        let g = hdd.geometry();
        rows.push(DiskRow {
            name: name.to_string(),
            capacity_gb: gb(hdd.capacity()),
            capacity_sectors: hdd.capacity(),
            surfaces: g.surfaces(),
            cylinders: g.cylinders(),
            zones: g.zone_count(),
            rpm: p.mech.rpm,
            revolution_ms: hdd.period_ns() / 1e6,
            queue_depth: p.firmware.queue_depth,
            policy: policy_name(p.firmware.policy),
            provenance: p.provenance.clone(),
        });
    }
    if json {
        return Ok(serde_json::to_string_pretty(&rows)? + "\n");
    }
    let mut t = Table::new(&[
        ("name", Align::Left),
        ("capacity", Align::Right),
        ("sectors", Align::Right),
        ("surf", Align::Right),
        ("cylinders", Align::Right),
        ("zones", Align::Right),
        ("rpm", Align::Right),
        ("queue", Align::Left),
        ("source", Align::Left),
    ]);
    for r in &rows {
        t.row(vec![
            r.name.clone(),
            format!("{:.2} GB", r.capacity_gb),
            thousands(r.capacity_sectors),
            r.surfaces.to_string(),
            thousands(r.cylinders as u64),
            r.zones.to_string(),
            format!("{:.0}", r.rpm),
            format!("{} {}", r.queue_depth, r.policy),
            short_provenance(&r.provenance),
        ]);
    }
    let mut out = t.render();
    out.push_str(
        "\nGB = sectors × 512 bytes / 10^9. Queue: the drive's command queue depth and scheduling policy.\n\
         `spindle disk-info NAME` shows a disk in full; `spindle disks --json` includes each provenance.\n",
    );
    Ok(out)
}

#[derive(Serialize)]
struct FlashRow {
    name: String,
    capacity_gb: f64,
    capacity_bytes: u64,
    block_bytes: u32,
    /// Effective channels serving operations concurrently.
    channels: u32,
    /// Device command queue limit; null = none.
    queue_depth: Option<u32>,
    read_latency_us: f64,
    write_latency_us: f64,
    channel_read_mb_s: f64,
    channel_write_mb_s: f64,
    /// With every usable channel streaming.
    read_mb_s: f64,
    write_mb_s: f64,
    /// 4 KiB operations per second with every usable channel busy.
    read_iops_4k: f64,
    write_iops_4k: f64,
    /// 4 KiB operation time on an idle device.
    read_4k_us: f64,
    write_4k_us: f64,
    /// The published figures the parameters were fitted to.
    datasheet: Option<Datasheet>,
    provenance: String,
}

fn flash_row(p: &FlashParams) -> FlashRow {
    const OP: u64 = 4096;
    FlashRow {
        name: p.name.clone(),
        capacity_gb: p.capacity_bytes as f64 / 1e9,
        capacity_bytes: p.capacity_bytes,
        block_bytes: p.block_bytes,
        channels: p.channels,
        queue_depth: p.queue_depth,
        read_latency_us: p.read_latency_us,
        write_latency_us: p.write_latency_us,
        channel_read_mb_s: p.channel_read_mb_s,
        channel_write_mb_s: p.channel_write_mb_s,
        read_mb_s: p.device_read_mb_s(),
        write_mb_s: p.device_write_mb_s(),
        read_iops_4k: p.saturated_iops(OP, false),
        write_iops_4k: p.saturated_iops(OP, true),
        read_4k_us: p.op_ns(OP, false) as f64 / 1e3,
        write_4k_us: p.op_ns(OP, true) as f64 / 1e3,
        datasheet: flash_presets::datasheet(&p.name),
        provenance: p.provenance.clone(),
    }
}

/// The flash presets as a table or a JSON array.
fn flash_table(json: bool) -> Result<String> {
    let rows: Vec<FlashRow> = flash_presets::presets().iter().map(flash_row).collect();
    if json {
        return Ok(serde_json::to_string_pretty(&rows)? + "\n");
    }
    let mut t = Table::new(&[
        ("name", Align::Left),
        ("capacity", Align::Right),
        ("channels", Align::Right),
        ("queue", Align::Right),
        ("4 KiB op r/w", Align::Right),
        ("MB/s r/w", Align::Right),
        ("4 KiB IOPS r/w", Align::Right),
        ("source", Align::Left),
    ]);
    for r in &rows {
        t.row(vec![
            r.name.clone(),
            format!("{:.2} GB", r.capacity_gb),
            r.channels.to_string(),
            r.queue_depth.map_or("-".to_string(), |d| d.to_string()),
            format!("{:.1} / {:.1} µs", r.read_4k_us, r.write_4k_us),
            format!("{:.0} / {:.0}", r.read_mb_s, r.write_mb_s),
            format!(
                "{} / {}",
                thousands(r.read_iops_4k.round() as u64),
                thousands(r.write_iops_4k.round() as u64)
            ),
            short_provenance(&r.provenance),
        ]);
    }
    let mut out = t.render();
    out.push_str(
        "\nGB = 10^9 bytes, MB = 10^6 bytes. One operation holds one channel for latency + bytes / channel\n\
         bandwidth. 4 KiB op: its time on an idle device; MB/s and IOPS: with every channel busy.\n\
         Parameters are fitted to the datasheets; `spindle disks --flash --json` shows every parameter,\n\
         the datasheet figures and the sources.\n",
    );
    Ok(out)
}

#[derive(Serialize)]
struct ZoneRow {
    zone: usize,
    first_cylinder: u32,
    last_cylinder: u32,
    sectors_per_track: u32,
    first_lbn: u64,
    lbn_count: u64,
}

#[derive(Serialize)]
struct Overheads {
    read_hit_ms: f64,
    read_miss_ms: f64,
    write_hit_ms: f64,
    write_miss_ms: f64,
    read_complete_ms: f64,
    write_complete_ms: f64,
    bus_read_per_sector_ms: f64,
    bus_write_per_sector_ms: f64,
}

#[derive(Serialize)]
struct CacheInfo {
    enabled: bool,
    segments: u32,
    segment_sectors: u32,
    read_ahead: String,
    /// DiskSim's fast write: one buffered write at a time, written back at once.
    write_back: bool,
    /// The firmware write cache (sectors; 0: none).
    write_cache_sectors: u64,
}

#[derive(Serialize)]
struct DiskInfo {
    disk: String,
    source: String,
    capacity_sectors: u64,
    capacity_gb: f64,
    surfaces: u32,
    cylinders: u32,
    track_order: String,
    rpm: f64,
    revolution_ms: f64,
    single_cylinder_seek_ms: f64,
    average_seek_ms: f64,
    full_stroke_seek_ms: f64,
    head_switch_ms: f64,
    write_settle_ms: f64,
    cache: CacheInfo,
    overheads: Overheads,
    queue_depth: u32,
    policy: &'static str,
    zones: Vec<ZoneRow>,
    /// A calibrated drive's measured corrections to read positioning, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    read_residual: Option<spindle::disk::residual::PositioningResidual>,
    /// A calibrated drive's measured corrections to buffered requests' times, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    buffer_residual: Option<spindle::disk::buffer_residual::BufferResidual>,
    provenance: String,
}

fn read_ahead_name(r: ReadAhead) -> &'static str {
    match r {
        ReadAhead::None => "none",
        ReadAhead::ToTrackEnd => "to the end of the track",
        ReadAhead::ToCylinderEnd => "to the end of the cylinder",
        ReadAhead::Max => "up to the maximum read-ahead",
        ReadAhead::OneTrackAhead => "one track ahead of the stream",
    }
}

fn track_order_name(o: TrackOrder) -> String {
    match o {
        TrackOrder::Conventional => "conventional (cylinder by cylinder)".into(),
        TrackOrder::SerpentineZoneRelative => "serpentine (zone-relative)".into(),
        TrackOrder::SerpentineAbsolute => "serpentine (absolute cylinder)".into(),
        TrackOrder::SurfaceBands { band } => {
            format!("surface-serpentine bands of {band} cylinders")
        }
    }
}

fn ms(v: f64) -> String {
    format!("{v:.3} ms")
}

fn after_prev(a: AfterPrev) -> String {
    if a.after_read == a.after_write {
        ms(a.after_read)
    } else {
        format!("{:.3} / {:.3} ms", a.after_read, a.after_write)
    }
}

/// `spindle disk-info`.
pub fn disk_info(arg: &str, json: bool) -> Result<String> {
    let loaded = load_disk(arg)?;
    let hdd = build_loaded(&loaded)?;
    let p = hdd.params();
    let g = hdd.geometry();
    let zones: Vec<ZoneRow> = g
        .zone_summary()
        .into_iter()
        .enumerate()
        .map(|(i, (first, last, spt, lbn, count))| ZoneRow {
            zone: i,
            first_cylinder: first,
            last_cylinder: last,
            sectors_per_track: spt,
            first_lbn: lbn,
            lbn_count: count,
        })
        .collect();
    let c = &p.cache;
    let ctrl = &p.ctrl;
    let info = DiskInfo {
        disk: p.name.clone(),
        source: loaded.source,
        capacity_sectors: hdd.capacity(),
        capacity_gb: gb(hdd.capacity()),
        surfaces: g.surfaces(),
        cylinders: g.cylinders(),
        track_order: track_order_name(p.geometry.order),
        rpm: p.mech.rpm,
        revolution_ms: hdd.period_ns() / 1e6,
        single_cylinder_seek_ms: hdd.seek_ns(1) as f64 / 1e6,
        average_seek_ms: hdd.average_seek_ms(),
        full_stroke_seek_ms: hdd.full_stroke_ms(),
        head_switch_ms: p.mech.head_switch_ms,
        write_settle_ms: p.mech.write_settle_ms,
        cache: CacheInfo {
            enabled: c.enabled,
            segments: c.segments,
            segment_sectors: c.segment_blocks,
            read_ahead: read_ahead_name(c.read_ahead).into(),
            write_back: c.fast_write_level > 0,
            write_cache_sectors: p.firmware.write_cache_sectors,
        },
        overheads: Overheads {
            read_hit_ms: ctrl.read_hit.after_read,
            read_miss_ms: ctrl.read_miss.after_read,
            write_hit_ms: ctrl.write_hit.after_read,
            write_miss_ms: ctrl.write_miss.after_read,
            read_complete_ms: ctrl.read_complete_ms,
            write_complete_ms: ctrl.write_complete_ms,
            bus_read_per_sector_ms: ctrl.bus_read_block_ms,
            bus_write_per_sector_ms: ctrl.bus_write_block_ms,
        },
        queue_depth: p.firmware.queue_depth,
        policy: policy_name(p.firmware.policy),
        zones,
        read_residual: (!p.mech.read_residual.is_none()).then(|| p.mech.read_residual.clone()),
        buffer_residual: (!p.cache.buffer_residual.is_none())
            .then(|| p.cache.buffer_residual.clone()),
        provenance: p.provenance.clone(),
    };
    if json {
        return Ok(serde_json::to_string_pretty(&info)? + "\n");
    }

    let mut kv = Table::new(&[("", Align::Left), ("", Align::Left)]);
    let mut add = |k: &str, v: String| kv.row(vec![k.to_string(), v]);
    add("disk", info.disk.clone());
    add("source", info.source.clone());
    add(
        "capacity",
        format!(
            "{:.2} GB ({} sectors of 512 bytes)",
            info.capacity_gb,
            thousands(info.capacity_sectors)
        ),
    );
    add(
        "geometry",
        format!(
            "{} surfaces, {} cylinders, {} zone{}; {}",
            info.surfaces,
            thousands(info.cylinders as u64),
            info.zones.len(),
            if info.zones.len() == 1 { "" } else { "s" },
            info.track_order
        ),
    );
    add(
        "rotation",
        format!(
            "{:.0} rpm, one revolution {:.3} ms",
            info.rpm, info.revolution_ms
        ),
    );
    add(
        "seek",
        format!(
            "single-cylinder {:.3} ms, average {:.3} ms, full stroke {:.3} ms",
            info.single_cylinder_seek_ms, info.average_seek_ms, info.full_stroke_seek_ms
        ),
    );
    add("head switch", ms(info.head_switch_ms));
    add("write settle", ms(info.write_settle_ms));
    if let Some(r) = &info.read_residual {
        let parts: Vec<String> = r
            .named()
            .into_iter()
            .map(|(name, v)| format!("{name} {v:+.3} ms"))
            .collect();
        add("read residual", format!("calibrated: {}", parts.join(", ")));
    }
    if let Some(r) = &info.buffer_residual {
        let parts: Vec<String> = r
            .named()
            .into_iter()
            .map(|(name, v)| format!("{name} {v}"))
            .collect();
        add(
            "buffer residual",
            format!("calibrated: {}", parts.join("; ")),
        );
    }
    let cache = if c.enabled {
        format!(
            "{} segment{} × {} sectors ({} KiB each); read-ahead {}; {}",
            c.segments,
            if c.segments == 1 { "" } else { "s" },
            thousands(c.segment_blocks as u64),
            c.segment_blocks as u64 * 512 / 1024,
            info.cache.read_ahead,
            if info.cache.write_cache_sectors > 0 {
                format!(
                    "write cache of {} sectors ({} KiB, destaged when idle or flushed)",
                    thousands(info.cache.write_cache_sectors),
                    info.cache.write_cache_sectors / 2
                )
            } else if info.cache.write_back {
                "write-back".to_string()
            } else {
                "write-through".to_string()
            }
        )
    } else {
        "none (every request goes to the media)".to_string()
    };
    add("cache", cache);
    add(
        "overheads",
        format!(
            "read hit {}, read miss {}, write hit {}, write miss {}",
            after_prev(ctrl.read_hit),
            after_prev(ctrl.read_miss),
            after_prev(ctrl.write_hit),
            after_prev(ctrl.write_miss)
        ),
    );
    add(
        "",
        format!(
            "completion read {} / write {}; bus {:.4} ms per sector read, {:.4} ms written",
            ms(ctrl.read_complete_ms),
            ms(ctrl.write_complete_ms),
            ctrl.bus_read_block_ms,
            ctrl.bus_write_block_ms
        ),
    );
    add(
        "command queue",
        format!("{} deep, {}", info.queue_depth, info.policy),
    );
    add("provenance", info.provenance.clone());
    // The key/value table has empty headers: drop its header line.
    let rendered = kv.render();
    let mut out: String = rendered.lines().skip(1).map(|l| format!("{l}\n")).collect();

    if ctrl.read_hit.after_read != ctrl.read_hit.after_write
        || ctrl.read_miss.after_read != ctrl.read_miss.after_write
        || ctrl.write_hit.after_read != ctrl.write_hit.after_write
        || ctrl.write_miss.after_read != ctrl.write_miss.after_write
    {
        out.push_str("(overheads shown as x / y ms depend on the previous request: after a read / after a write)\n");
    }

    out.push_str("\nzones\n");
    let mut t = Table::new(&[
        ("zone", Align::Right),
        ("first cyl", Align::Right),
        ("last cyl", Align::Right),
        ("sectors/track", Align::Right),
        ("first LBN", Align::Right),
        ("LBNs", Align::Right),
    ]);
    for z in &info.zones {
        t.row(vec![
            z.zone.to_string(),
            thousands(z.first_cylinder as u64),
            thousands(z.last_cylinder as u64),
            z.sectors_per_track.to_string(),
            thousands(z.first_lbn),
            thousands(z.lbn_count),
        ]);
    }
    out.push_str(&t.render());
    Ok(out)
}
