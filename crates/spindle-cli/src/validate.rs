//! `spindle validate`: replay DiskSim validation traces and score the simulator.

use crate::disks::{build, is_parv_path};
use crate::table::{thousands, Align, Table};
use anyhow::{anyhow, bail, Result};
use serde::Serialize;
use spindle::disk::params::DiskParams;
use spindle::disk::presets::{self, DiskSimDrive, DISKSIM_DRIVES};
use spindle::disksim::import::import_first_disk;
use spindle::validate::replay::validate;
use spindle::validate::trace::{parse_validate_trace, read_validate_trace, ValidateRecord};
use std::path::{Path, PathBuf};

/// One drive to validate, ready to replay.
struct Job {
    name: String,
    /// Where the parameters and trace came from (a path, or "bundled").
    source: String,
    params: DiskParams,
    trace: Vec<ValidateRecord>,
    /// The trace's name in messages.
    trace_name: String,
}

#[derive(Serialize)]
struct Row {
    disk: String,
    source: String,
    requests: usize,
    rms_ms: f64,
    mean_measured_ms: f64,
    mean_simulated_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    disksim_rms_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    disksim_mean_ms: Option<f64>,
    /// rms_ms / disksim_rms_ms: below 1 means closer to the real drive than DiskSim.
    #[serde(skip_serializing_if = "Option::is_none")]
    rms_ratio_vs_disksim: Option<f64>,
}

/// The built-in DiskSim drive with this file stem or preset name (any case).
fn known_drive(name: &str) -> Option<&'static DiskSimDrive> {
    DISKSIM_DRIVES
        .iter()
        .find(|d| d.stem.eq_ignore_ascii_case(name) || d.preset.eq_ignore_ascii_case(name))
}

fn stems() -> String {
    DISKSIM_DRIVES
        .iter()
        .map(|d| d.stem)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A built-in drive from the files compiled into the binary.
fn bundled_job(d: &DiskSimDrive) -> Result<Job> {
    let params =
        presets::disksim_preset(d.stem).map_err(|e| anyhow!("built-in drive {}: {e}", d.stem))?;
    let trace_name = format!("{}.trace", d.stem);
    let text = presets::bundled_file(&trace_name).ok_or_else(|| {
        anyhow!(
            "built-in drive {}: its validation trace is not bundled",
            d.stem
        )
    })?;
    let shown = format!("<bundled>/{trace_name}");
    let trace =
        parse_validate_trace(text, &shown).map_err(|e| anyhow!("invalid validation trace {e}"))?;
    Ok(Job {
        name: d.stem.to_string(),
        source: "bundled".into(),
        params,
        trace,
        trace_name: shown,
    })
}

/// A `.parv` on disk and the `.trace` beside it.
fn file_job(parv: &Path) -> Result<Job> {
    let params = import_first_disk(parv)
        .map_err(|e| anyhow!("cannot import DiskSim parameter file: {e}"))?;
    spindle::disksim::system::refuse_around_a_validated_disk(parv)
        .map_err(|e| anyhow!("cannot validate with this DiskSim parameter file: {e}"))?;
    let trace_path: PathBuf = parv.with_extension("trace");
    if !trace_path.is_file() {
        bail!(
            "{}: no validation trace beside it: expected {} (same directory and name, extension .trace)",
            parv.display(),
            trace_path.display()
        );
    }
    let trace = read_validate_trace(&trace_path).map_err(|e| {
        if e.line == 0 {
            anyhow!("cannot read validation trace {}: {}", e.file, e.msg)
        } else {
            anyhow!("invalid validation trace {e}")
        }
    })?;
    let name = parv
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| params.name.clone());
    Ok(Job {
        name,
        source: parv.display().to_string(),
        params,
        trace,
        trace_name: trace_path.display().to_string(),
    })
}

fn job_for(arg: &str) -> Result<Job> {
    if is_parv_path(arg) {
        return file_job(Path::new(arg));
    }
    match known_drive(arg) {
        Some(d) => bundled_job(d),
        None => bail!(
            "`{arg}` is neither an existing .parv file nor a built-in DiskSim drive ({})",
            stems()
        ),
    }
}

fn run(job: Job) -> Result<Row> {
    if job.trace.is_empty() {
        bail!("{}: the validation trace has no requests", job.trace_name);
    }
    let mut hdd = build(job.params)?;
    let cap = hdd.capacity();
    for (i, r) in job.trace.iter().enumerate() {
        let fits = matches!(r.lbn.checked_add(r.blocks as u64), Some(end) if end <= cap);
        if !fits {
            bail!(
                "{}:{}: request of {} sectors at LBN {} lies beyond the disk's {} sectors (is this the trace of another drive?)",
                job.trace_name,
                i + 1,
                r.blocks,
                r.lbn,
                cap
            );
        }
    }
    let res = validate(&job.name, &mut hdd, &job.trace);
    let known = known_drive(&job.name);
    Ok(Row {
        disk: res.disk,
        source: job.source,
        requests: res.requests,
        rms_ms: res.rms_ms,
        mean_measured_ms: res.mean_measured_ms,
        mean_simulated_ms: res.mean_simulated_ms,
        disksim_rms_ms: known.map(|d| d.disksim_rms_ms),
        disksim_mean_ms: known.map(|d| d.disksim_mean_ms),
        rms_ratio_vs_disksim: known.map(|d| res.rms_ms / d.disksim_rms_ms),
    })
}

/// `spindle validate`.
pub fn validate_cmd(files: &[String], json: bool) -> Result<String> {
    let mut rows = Vec::new();
    if files.is_empty() {
        for d in DISKSIM_DRIVES {
            rows.push(run(bundled_job(d)?)?);
        }
    } else {
        for f in files {
            rows.push(run(job_for(f)?)?);
        }
    }
    if json {
        return Ok(serde_json::to_string_pretty(&rows)? + "\n");
    }
    let opt = |v: Option<f64>, digits: usize| {
        v.map_or_else(|| "-".to_string(), |x| format!("{x:.digits$}"))
    };
    let mut t = Table::new(&[
        ("disk", Align::Left),
        ("requests", Align::Right),
        ("rms (ms)", Align::Right),
        ("mean measured (ms)", Align::Right),
        ("mean simulated (ms)", Align::Right),
        ("DiskSim rms (ms)", Align::Right),
        ("DiskSim mean (ms)", Align::Right),
        ("rms ours/DiskSim", Align::Right),
    ]);
    for r in &rows {
        t.row(vec![
            r.disk.clone(),
            thousands(r.requests as u64),
            format!("{:.4}", r.rms_ms),
            format!("{:.4}", r.mean_measured_ms),
            format!("{:.4}", r.mean_simulated_ms),
            opt(r.disksim_rms_ms, 4),
            opt(r.disksim_mean_ms, 4),
            opt(r.rms_ratio_vs_disksim, 2),
        ]);
    }
    let mut out = t.render();
    out.push_str(
        "\nrms: the Ruemmler-Wilkes demerit, the root-mean-square horizontal distance between the\n\
         simulated and measured response-time distributions (ms; lower is better). DiskSim columns:\n\
         DiskSim 4.0's own result on the same trace; a ratio below 1 is closer to the real drive.\n",
    );
    if files.is_empty() {
        out.push_str("Drives and traces: DiskSim's validation set, built into this binary.\n");
    }
    Ok(out)
}
