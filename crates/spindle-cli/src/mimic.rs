//! `spindle mimic probe` and `spindle mimic show`: configure a Disk Mimic off-line
//! (of a simulated disk, or of a real file or block device) and look at its table;
//! `spindle probe rotation`: a device's rotation from timing.

use crate::disks::load_disk;
use crate::limits;
use anyhow::{anyhow, Context, Result};
use rand::{Rng, SeedableRng};
use spindle::disk::Hdd;
use spindle::mimic::real_device::RealDevice;
use spindle::mimic::rotation;
use spindle::mimic::table::MimicTable;
use spindle::mimic::{DiskMimic, Metric, ProbeDevice, TABLE_3_2};
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
    write_table(&json, out)?;
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
    check_counts(distances, samples)?;
    let loaded = load_disk(disk)?;
    let hdd = Hdd::new(loaded.params).map_err(|e| anyhow!("{e}"))?;
    let cap = hdd.capacity() as i64;
    let mut m = DiskMimic::offline(Box::new(hdd), samples, Metric::Mean, seed);
    if interpolate {
        m = m.with_interpolation(TABLE_3_2);
    }
    // The distances a random workload over the whole disk asks for, all four pairs.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let watch = spindle::interrupt::Watch::start();
    for _ in 0..distances {
        watch.check().map_err(anyhow::Error::msg)?;
        let d = rng.gen_range(-(cap - 1)..cap);
        m.predict(rng.gen_bool(0.5), rng.gen_bool(0.5), d);
    }
    probed(m.to_json(), distances)
}

/// `spindle mimic probe --device PATH`: the same probing as of a simulated disk (a
/// random access, then a pair the distance apart, `samples` times per distance), timed
/// on a real file or block device with O_DIRECT. Reads only, unless `allow_writes`
/// (then the four read/write pairs, as on a simulated disk; refused on a device holding
/// a file system). The table has the simulated probe's format.
pub fn probe_device(
    device: &Path,
    distances: usize,
    samples: u32,
    interpolate: bool,
    allow_writes: bool,
    seed: u64,
    out: &Path,
) -> Result<String> {
    check_counts(distances, samples)?;
    let mut dev = RealDevice::open(device, allow_writes).map_err(|e| anyhow!("{e}"))?;
    if allow_writes {
        if let Some(why) = dev.write_refusal().map_err(|e| anyhow!("{e}"))? {
            anyhow::bail!(
                "{}: --allow-writes refused: the device {why}",
                device.display()
            );
        }
    }
    let mut notes = format!(
        "  device                {} bytes, {}, O_DIRECT with {}-byte alignment\n",
        dev.bytes(),
        if dev.is_block_device() {
            "block device"
        } else {
            "regular file"
        },
        dev.alignment()
    );
    if dev.is_sparse() {
        notes += "  warning               the file has holes: reads of a hole touch no device and time nothing (write the file in full first)\n";
    }
    let errors = dev.error_slot();
    let cap = dev.capacity() as i64;
    let mut m = DiskMimic::offline(Box::new(dev), samples, Metric::Mean, seed);
    if !allow_writes {
        m = m.reads_only();
    }
    if interpolate {
        m = m.with_interpolation(TABLE_3_2);
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let watch = spindle::interrupt::Watch::start();
    for _ in 0..distances {
        watch.check().map_err(anyhow::Error::msg)?;
        let d = rng.gen_range(-(cap - 1)..cap);
        let (pw, cw) = if allow_writes {
            (rng.gen_bool(0.5), rng.gen_bool(0.5))
        } else {
            (false, false)
        };
        m.predict(pw, cw, d);
    }
    if let Some(e) = errors.lock().ok().and_then(|e| e.clone()) {
        anyhow::bail!("{e}");
    }
    let json = probed(m.to_json(), distances)?;
    write_table(&json, out)?;
    let stats = entry_stats(&json);
    Ok(summary(
        &json,
        &format!(
            "{}: {distances} random distances asked ({})",
            device.display(),
            if allow_writes {
                "reads and writes"
            } else {
                "reads only"
            }
        ),
    ) + &notes
        + &stats
        + &format!("table written to {}\n", out.display()))
}

/// The spread of a table's mean service times: min, median, max (ms).
fn entry_stats(j: &serde_json::Value) -> String {
    let mut means: Vec<u64> = j
        .get("entries")
        .and_then(|e| e.as_array())
        .map(|e| {
            e.iter()
                .filter_map(|x| x.get("mean_ns").and_then(|v| v.as_u64()))
                .collect()
        })
        .unwrap_or_default();
    // Written tables hold only distances whose probe pairs fit the device.
    if means.is_empty() {
        return String::new();
    }
    means.sort_unstable();
    let ms = |v: u64| v as f64 / 1e6;
    format!(
        "  mean service          min {:.3} ms, median {:.3} ms, max {:.3} ms over the distances\n",
        ms(means[0]),
        ms(means[means.len() / 2]),
        ms(means[means.len() - 1])
    )
}

/// `spindle probe rotation`: the rotation period and sectors per track estimated from
/// timing (see `spindle::mimic::rotation`), of a real device or of a simulated disk
/// (probed with its cache off, and shown beside the preset's true values).
pub fn rotation(
    device: Option<&Path>,
    disk: Option<&str>,
    at: u64,
    span: Option<u64>,
    samples: u32,
    seed: u64,
    json: bool,
) -> Result<String> {
    if !(8..=rotation::MAX_SAMPLES).contains(&samples) {
        anyhow::bail!(
            "--samples must be within 8..={}, got {samples}",
            rotation::MAX_SAMPLES
        );
    }
    let (what, r, truth) = match (device, disk) {
        (Some(p), None) => {
            let mut dev = RealDevice::open(p, false).map_err(|e| anyhow!("{e}"))?;
            let errors = dev.error_slot();
            let r = rotation::estimate(&mut dev, at, span, samples, seed)
                .map_err(|e| anyhow!("{}: {e}", p.display()))?;
            if let Some(e) = errors.lock().ok().and_then(|e| e.clone()) {
                anyhow::bail!("{e}");
            }
            (p.display().to_string(), r, None)
        }
        (None, Some(name)) => {
            let mut params = load_disk(name)?.params;
            params.cache.enabled = false;
            let mut hdd = Hdd::new(params).map_err(|e| anyhow!("{e}"))?;
            let r = rotation::estimate(&mut hdd, at, span, samples, seed)
                .map_err(|e| anyhow!("{name}: {e}"))?;
            let spt = hdd.locate(r.first_lbn).map(|l| l.spt);
            (
                format!("{name} (simulated, cache off)"),
                r,
                Some((60e9 / hdd.period_ns(), spt)),
            )
        }
        _ => anyhow::bail!("give exactly one of --device PATH or --disk NAME"),
    };
    if json {
        let mut v = serde_json::to_value(&r)?;
        v["target"] = serde_json::json!(what);
        if let Some((rpm, spt)) = truth {
            v["preset_rpm"] = serde_json::json!(rpm);
            v["preset_sectors_per_track"] = serde_json::json!(spt);
        }
        return Ok(serde_json::to_string_pretty(&v)? + "\n");
    }
    let mut s = format!(
        "{what}: {} back-to-back rereads of LBN {}, pairs within LBNs {}..={}\n  modal reread interval {:.3} ms ({:.0} % of the intervals within 0.5 %)\n",
        r.rereads,
        r.first_lbn + r.last_lbn.saturating_sub(r.first_lbn).saturating_add(1) / 2,
        r.first_lbn,
        r.last_lbn,
        r.modal_interval_ns / 1e6,
        r.modal_share * 100.0
    );
    if let (Some(p), Some(rpm)) = (r.period_ns, r.rpm) {
        s += &format!("  rotation period       {:.4} ms ({rpm:.1} rpm)\n", p / 1e6);
    }
    if let Some(spt) = r.sectors_per_track {
        s += &format!("  sectors per track     {spt}\n");
    }
    if let Some((rpm, spt)) = truth {
        s += &format!(
            "  preset                {rpm:.1} rpm, {} sectors per track at LBN {}\n",
            spt.map_or("-".into(), |v| v.to_string()),
            r.first_lbn
        );
    }
    if let Some(n) = &r.note {
        s += &format!("  {n}\n");
    }
    Ok(s)
}

/// The probed table, unless no distance drawn fitted a pair of probes on the device
/// (a table holds only distances that did): it is then too small to probe.
fn probed(json: serde_json::Value, distances: usize) -> Result<serde_json::Value> {
    if json["entries"].as_array().is_some_and(|e| e.is_empty()) {
        anyhow::bail!(
            "none of the {distances} distances drawn fits a pair of {}-sector probes on the device: it is too small to probe",
            json["probe_sectors"]
        );
    }
    Ok(json)
}

/// Writes a probed table to its file (pretty JSON, the format `mimic show` reads).
fn write_table(json: &serde_json::Value, out: &Path) -> Result<()> {
    std::fs::write(out, serde_json::to_string_pretty(json)? + "\n")
        .with_context(|| format!("cannot write {}", out.display()))
}

fn check_counts(distances: usize, samples: u32) -> Result<()> {
    limits::count("--distances", distances as u64, limits::MAX_DISTANCES)?;
    limits::count("--samples", samples as u64, limits::MAX_MIMIC_SAMPLES)?;
    let probes = distances as u64 * samples as u64;
    if probes > limits::MAX_PROBES {
        anyhow::bail!(
            "--distances × --samples must be at most {}, got {distances} × {samples} = {probes}",
            limits::MAX_PROBES
        );
    }
    Ok(())
}

pub fn show(path: &Path) -> Result<String> {
    // Checked in full (every field, type and range) before anything is summarised.
    let t = MimicTable::load(path).map_err(|e| anyhow!("{e}"))?;
    // The summary reads only the table's counts: those, not the file a second time.
    let json = serde_json::json!({
        "entries": vec![serde_json::Value::Null; t.entries.len()],
        "intervals": vec![serde_json::Value::Null; t.intervals.len()],
        "interpolated_distances": t.interpolated_distances,
        "samples_per_distance": t.samples_per_distance,
        "probe_sectors": t.probe_sectors,
        "probe_requests": t.probe_requests,
        "memory_bytes": t.memory_bytes,
    });
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
