//! `spindle validate`: replay DiskSim validation traces and score the simulator.

use crate::disks::{build, is_drive_file, is_parv_path, load_disk};
use crate::table::{thousands, Align, Table};
use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;
use spindle::disk::hdd::Hdd;
use spindle::disk::params::DiskParams;
use spindle::disk::presets::{self, DiskSimDrive, DISKSIM_DRIVES};
use spindle::disksim::import::import_first_disk;
use spindle::mimic::table::MimicTable;
use spindle::validate::calibrate::{
    calibrate, calibrate_to, demerit, halves, Calibration, Measurements, Prediction, MAX_ADJUSTMENT,
};
use spindle::validate::phase::{replay_noise, PHASES, PINNED_SHARE};
use spindle::validate::probes::ProbeSet;
use spindle::validate::replay::validate;
use spindle::validate::trace::{parse_validate_trace, read_validate_trace, ValidateRecord};
use std::path::{Path, PathBuf};

/// What `spindle calibrate` writes into a calibrated drive file's provenance.
const CALIBRATED_MARK: &str = "calibrated by `spindle calibrate`";

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
    /// The drive file was calibrated by `spindle calibrate`, possibly on this trace.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    calibrated: bool,
}

/// The built-in DiskSim drive with this file stem or preset name (any case).
fn known_drive(name: &str) -> Option<&'static DiskSimDrive> {
    DISKSIM_DRIVES
        .iter()
        .find(|d| d.stem.eq_ignore_ascii_case(name) || d.preset.eq_ignore_ascii_case(name))
}

/// The built-in drive whose DiskSim figures apply to `job`: one of that name whose
/// validation trace the job replays (DiskSim's demerit is for its own trace; a file
/// that only shares the name is compared with nothing).
fn reference_for(job: &Job) -> Option<&'static DiskSimDrive> {
    let d = known_drive(&job.name)?;
    if job.source == "bundled" {
        return Some(d);
    }
    let bundled = bundled_job(d).ok()?;
    (bundled.trace == job.trace).then_some(d)
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

/// A spindle drive file (`.toml`) and its trace: FILE.trace beside it, else the
/// built-in trace of the drive it names.
fn drive_file_job(path: &Path) -> Result<Job> {
    let params = DiskParams::read_drive_file(path).map_err(|e| anyhow!(e))?;
    let beside = path.with_extension("trace");
    let mut job = if beside.is_file() {
        let trace =
            read_validate_trace(&beside).map_err(|e| anyhow!("invalid validation trace {e}"))?;
        Job {
            name: params.name.clone(),
            source: String::new(),
            params: params.clone(),
            trace,
            trace_name: beside.display().to_string(),
        }
    } else {
        // The built-in drive whose model it was calibrated from (same model name).
        let same_model = DISKSIM_DRIVES
            .iter()
            .find(|d| presets::disksim_preset(d.stem).is_ok_and(|p| p.name == params.name));
        let d = same_model.ok_or_else(|| {
            anyhow!(
                "{}: no validation trace beside it ({}), and its drive `{}` is not a built-in one ({})",
                path.display(),
                beside.display(),
                params.name,
                stems()
            )
        })?;
        bundled_job(d)?
    };
    job.params = params;
    job.source = path.display().to_string();
    Ok(job)
}

fn job_for(arg: &str) -> Result<Job> {
    if is_drive_file(arg) {
        return drive_file_job(Path::new(arg));
    }
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
    check_fits(&job)?;
    let calibrated = job.params.provenance.contains(CALIBRATED_MARK);
    let known = reference_for(&job);
    let mut hdd = build(job.params)?;
    let res = validate(&job.name, &mut hdd, &job.trace);
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
        calibrated,
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
    for r in rows.iter().filter(|r| r.calibrated) {
        out.push_str(&format!(
            "{} ({}): a calibrated drive file; its figure includes the requests the calibration was fitted on. `spindle validate --calibrated` gives the figure on requests it never saw.\n",
            r.disk, r.source
        ));
    }
    Ok(out)
}

/// Checks that every request of `job`'s trace lies on its drive.
fn check_fits(job: &Job) -> Result<()> {
    if job.trace.is_empty() {
        bail!("{}: the validation trace has no requests", job.trace_name);
    }
    let hdd = build(job.params.clone())?;
    let cap = hdd.capacity();
    for (i, r) in job.trace.iter().enumerate() {
        if !matches!(r.lbn.checked_add(r.blocks as u64), Some(end) if end <= cap) {
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
    Ok(())
}

/// One drive calibrated on the first half of its trace, judged on the second.
#[derive(Serialize)]
struct CalibratedRow {
    disk: String,
    train_requests: usize,
    test_requests: usize,
    /// The drive file as it is, one replay: what `validate` reports, and what DiskSim's
    /// figure is.
    test_rms_replay_ms: f64,
    /// The drive file as it is, under the calibration's prediction.
    test_rms_uncalibrated_ms: f64,
    /// The calibrated drive, under the calibration's prediction.
    test_rms_calibrated_ms: f64,
    /// The calibrated drive, one replay.
    test_rms_calibrated_replay_ms: f64,
    /// One replay of the drive file against its own phase-averaged prediction: the
    /// sampling noise of one replay, and of one set of measurements (where the trace
    /// does not pin the platter's phase).
    #[serde(skip_serializing_if = "Option::is_none")]
    test_replay_noise_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    disksim_test_rms_ms: Option<f64>,
    /// test_rms_calibrated_ms / disksim_test_rms_ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    calibrated_vs_disksim: Option<f64>,
    calibration: Calibration,
    /// Why calibration did not help, when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

fn calibrated_row(job: Job) -> Result<(CalibratedRow, DiskParams)> {
    check_fits(&job)?;
    let (train, test) = halves(&job.trace);
    if train.is_empty() || test.is_empty() {
        bail!("{}: too few requests to split into halves", job.trace_name);
    }
    let cal = calibrate(&job.params, train).map_err(|e| anyhow!("{}: {e}", job.name))?;
    let tuned = cal
        .apply(&job.params)
        .ok_or_else(|| anyhow!("{}: the calibrated drive is invalid", job.name))?;
    let cannot = || anyhow!("{}: the drive cannot replay its trace", job.name);
    let replayed = demerit(&job.params, test).ok_or_else(cannot)?;
    let before = cal.demerit(&job.params, test).ok_or_else(cannot)?;
    let after = cal.demerit(&tuned, test).ok_or_else(cannot)?;
    let after_replayed = demerit(&tuned, test).ok_or_else(cannot)?;
    let noise = match cal.prediction {
        Prediction::Replay => None,
        Prediction::PhaseAveraged => Some(
            Hdd::new(job.params.clone())
                .map(|mut h| replay_noise(&mut h, test))
                .map_err(|e| anyhow!("{}: {e}", job.name))?,
        ),
    };
    let known = reference_for(&job);
    let disksim = known.map(|d| d.disksim_test_half_rms_ms);
    let note = if after >= before {
        Some(format!(
            "calibration does not help on the test half: the fit lowered the training half's rms from {:.4} to {:.4} ms, but what it learned there does not carry over (the remaining error is not in the overheads, seek curve or switch times{})",
            cal.train_rms_before_ms,
            cal.train_rms_after_ms,
            if cal.prediction == Prediction::PhaseAveraged {
                ", nor in a buffer residual or a read residual per positioning class"
            } else {
                ", nor in a buffer residual"
            }
        ))
    } else {
        None
    };
    let row = CalibratedRow {
        disk: job.name.clone(),
        train_requests: train.len(),
        test_requests: test.len(),
        test_rms_replay_ms: replayed,
        test_rms_uncalibrated_ms: before,
        test_rms_calibrated_ms: after,
        test_rms_calibrated_replay_ms: after_replayed,
        test_replay_noise_ms: noise,
        disksim_test_rms_ms: disksim,
        calibrated_vs_disksim: disksim.map(|d| after / d),
        calibration: cal,
        note,
    };
    Ok((row, tuned))
}

/// `spindle validate --calibrated`.
pub fn validate_calibrated_cmd(files: &[String], json: bool) -> Result<String> {
    let jobs: Vec<Job> = if files.is_empty() {
        DISKSIM_DRIVES
            .iter()
            .map(bundled_job)
            .collect::<Result<_>>()?
    } else {
        files.iter().map(|f| job_for(f)).collect::<Result<_>>()?
    };
    // Each drive's calibration is independent: one thread each.
    let rows: Vec<CalibratedRow> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .into_iter()
            .map(|job| s.spawn(move || calibrated_row(job).map(|r| r.0)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow!("a calibration thread failed")))
            })
            .collect::<Result<_>>()
    })?;
    if json {
        return Ok(serde_json::to_string_pretty(&rows)? + "\n");
    }
    let opt = |v: Option<f64>, digits: usize| {
        v.map_or_else(|| "-".to_string(), |x| format!("{x:.digits$}"))
    };
    let mut t = Table::new(&[
        ("disk", Align::Left),
        ("phase aligned", Align::Right),
        ("replay noise", Align::Right),
        ("prediction", Align::Left),
        ("rms replay", Align::Right),
        ("rms uncalibrated", Align::Right),
        ("rms calibrated", Align::Right),
        ("one replay", Align::Right),
        ("DiskSim rms", Align::Right),
        ("calibrated/DiskSim", Align::Right),
        ("one replay/DiskSim", Align::Right),
    ]);
    for r in &rows {
        t.row(vec![
            r.disk.clone(),
            r.calibration
                .phase_alignment
                .map_or_else(|| "-".to_string(), |a| format!("{:.0} %", a * 100.0)),
            opt(r.test_replay_noise_ms, 4),
            r.calibration.prediction.describe().to_string(),
            format!("{:.4}", r.test_rms_replay_ms),
            format!("{:.4}", r.test_rms_uncalibrated_ms),
            format!("{:.4}", r.test_rms_calibrated_ms),
            format!("{:.4}", r.test_rms_calibrated_replay_ms),
            opt(r.disksim_test_rms_ms, 4),
            opt(r.calibrated_vs_disksim, 2),
            opt(
                r.disksim_test_rms_ms
                    .map(|d| r.test_rms_calibrated_replay_ms / d),
                2,
            ),
        ]);
    }
    let mut out = t.render();
    out.push_str(&format!(
        "\nEach drive is calibrated on the first half of its trace (5,000 requests) and judged on the\n\
         second half only (rms demerit in ms on that half; lower is better). `one replay`: the\n\
         calibrated drive replayed once, as DiskSim is; `calibrated/DiskSim` compares the prediction\n\
         with DiskSim's one replay, `one replay/DiskSim` one replay with one replay.\n\
         DiskSim rms: DiskSim 4.0 replaying the same second half from a fresh drive, one replay, as\n\
         `rms replay` is for spindle's drive file.\n\
         Phase aligned: the share of the training half's media reads whose measured time matches one\n\
         replay's within ±0.2 ms modulo a revolution (chance is about 0.4 ms over the revolution).\n\
         Where it is below {:.0} %, the trace does not pin down where the platter was, and the drive's\n\
         times are predicted phase-averaged: each media access's rotational wait spread evenly over a\n\
         revolution ({} waits), with a read residual per positioning class where the held-out choice\n\
         keeps one. `rms uncalibrated` is the drive file under that same prediction.\n\
         Either way, requests served from the drive's buffer may get a buffer residual where the\n\
         held-out choice keeps one: per class, a distribution of measured minus simulated time,\n\
         one value drawn per request (seeded), its quantiles in the phase-averaged prediction.\n\
         Replay noise: one replay of the drive file against its own phase-averaged prediction on the\n\
         test half, the sampling noise one replay carries. If one set of measurements carries as\n\
         much (an assumption), a model judged by one replay cannot expect much below √2 × it, nor\n\
         a phase-averaged one much below it.\n",
        PINNED_SHARE * 100.0,
        PHASES
    ));
    for r in &rows {
        if let Some(n) = &r.note {
            out.push_str(&format!("{}: {n}.\n", r.disk));
        }
    }
    Ok(out)
}

/// `spindle calibrate`.
pub fn calibrate_cmd(disk: &str, out: Option<&Path>, all: bool, json: bool) -> Result<String> {
    let job = job_for(disk)?;
    let name = job.name.clone();
    let source = job.source.clone();
    let (text, tuned, cal) = if all {
        check_fits(&job)?;
        let cal = calibrate(&job.params, &job.trace).map_err(|e| anyhow!("{name}: {e}"))?;
        let tuned = cal
            .apply(&job.params)
            .ok_or_else(|| anyhow!("{name}: the calibrated drive is invalid"))?;
        let text = if json {
            serde_json::to_string_pretty(&cal)? + "\n"
        } else {
            format!(
                "{name}: fit on all {} requests: rms {:.4} -> {:.4} ms ({} replays); no held-out figure\n",
                thousands(job.trace.len() as u64),
                cal.train_rms_before_ms,
                cal.train_rms_after_ms,
                cal.evaluations
            )
        };
        (text, tuned, cal)
    } else {
        let (row, tuned) = calibrated_row(job)?;
        let text = if json {
            serde_json::to_string_pretty(&row)? + "\n"
        } else {
            let mut s = format!(
                "{name}: fit on the first {} requests (rms {:.4} -> {:.4} ms, {} replays);\n\
                 judged on the other {} ({} prediction): rms {:.4} ms uncalibrated, {:.4} ms calibrated ({:.4} ms by one replay)",
                thousands(row.train_requests as u64),
                row.calibration.train_rms_before_ms,
                row.calibration.train_rms_after_ms,
                row.calibration.evaluations,
                thousands(row.test_requests as u64),
                row.calibration.prediction.describe(),
                row.test_rms_uncalibrated_ms,
                row.test_rms_calibrated_ms,
                row.test_rms_calibrated_replay_ms,
            );
            if let Some(d) = row.disksim_test_rms_ms {
                s.push_str(&format!(
                    " (DiskSim on the same half, one replay: {d:.4} ms)"
                ));
            }
            s.push('\n');
            if let Some(n) = &row.note {
                s.push_str(&format!("{n}.\n"));
            }
            s
        };
        (text, tuned, row.calibration)
    };
    let mut text = text;
    if !json {
        text.push_str(&adjustments_text(&cal));
    }
    if let Some(path) = out {
        let from = format!(
            "{} ({})",
            if source == "bundled" {
                "the built-in trace"
            } else {
                source.as_str()
            },
            if all {
                "all requests"
            } else {
                "the first half of the trace"
            }
        );
        write_calibrated(tuned, &from, path)?;
        if !json {
            text.push_str(&format!("wrote {}\n", path.display()));
        }
    }
    Ok(text)
}

/// What a calibration changed, for people: the knobs, then the residuals if any.
fn adjustments_text(cal: &Calibration) -> String {
    let a = &cal.adjustments;
    let mut text = format!(
        "adjustments: read-hit overhead {:+.3} ms, read-miss {:+.3} ms, write {:+.3} ms; seek ×{:.3} {:+.3} ms; head switch {:+.3} ms; write settle {:+.3} ms\n",
        a.read_hit_ms, a.read_miss_ms, a.write_ms, 1.0 + a.seek_scale, a.seek_offset_ms, a.head_switch_ms, a.write_settle_ms
    );
    if let Some(r) = &cal.residual {
        let bins: Vec<String> = r
            .seek_bins_ms
            .iter()
            .enumerate()
            .map(|(b, v)| format!("{}: {v:+.3}", seek_bin_label(b)))
            .collect();
        text.push_str(&format!(
            "read residual (ms): same track {:+.3}, head switch {:+.3}; seeks by cylinders {}\n",
            r.same_track_ms,
            r.head_switch_ms,
            bins.join(", ")
        ));
    }
    if let Some(r) = &cal.buffer_residual {
        for (name, v) in r.named() {
            text.push_str(&format!("buffer residual, {name}: {v}\n"));
        }
    }
    text
}

/// The cylinder distances of seek bin `b` (⌊log₂ d⌋ = b).
fn seek_bin_label(b: usize) -> String {
    let lo = 1u64 << b;
    if b == 0 {
        "1".to_string()
    } else {
        format!("{lo}–{}", 2 * lo - 1)
    }
}

/// Writes a calibrated drive file, its provenance saying what it was calibrated from.
fn write_calibrated(mut p: DiskParams, from: &str, path: &Path) -> Result<()> {
    p.provenance = format!("{} — {CALIBRATED_MARK} from {from}", p.provenance);
    let file = p.to_drive_file().map_err(|e| anyhow!(e))?;
    std::fs::write(path, file).with_context(|| format!("cannot write {}", path.display()))
}

/// What `spindle calibrate --probe-table` found, as JSON.
#[derive(Serialize)]
struct ProbeCalibration {
    disk: String,
    table: String,
    /// Probed distances fitted on, and judged on (none with `--all-requests`).
    fit_distances: usize,
    judged_distances: usize,
    calibration: Calibration,
    #[serde(skip_serializing_if = "Option::is_none")]
    judged_rms_uncalibrated_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    judged_rms_calibrated_ms: Option<f64>,
    /// Why the fit leaves much error, when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// Above this fitted error (ms) the drive file is not the device's kind of drive.
const PROBE_MISFIT_MS: f64 = 1.0;

/// `spindle calibrate DISK --probe-table TABLE`: fits DISK's drive file to a Disk Mimic
/// table probed on a real device (or a model), on every other probed distance, and
/// judges it on the rest (or fits on all with `all`).
pub fn calibrate_probe_cmd(
    disk: &str,
    table_path: &Path,
    seed: u64,
    out: Option<&Path>,
    all: bool,
    json: bool,
) -> Result<String> {
    let loaded = load_disk(disk)?;
    let base = loaded.params;
    let cap = build(base.clone())?.capacity();
    let table = MimicTable::load(table_path).map_err(|e| anyhow!("{e}"))?;
    let set = ProbeSet::from_table(&table, seed);
    let name = base.name.clone();
    let table_name = table_path.display().to_string();
    // A pair of probes `distance` apart must fit on the drive to be timed on it.
    let p = u64::from(table.probe_sectors);
    let fits = |d: i64| spindle::mimic::pair_fits(cap, p, d);
    if !table.entries.is_empty() && !table.entries.iter().any(|e| fits(e.distance)) {
        bail!(
            "{table_name}: none of its {} distances fits a pair of {p}-sector probes on {name} ({cap} sectors): the table is of a larger device, or its probe_sectors is wrong",
            table.entries.len()
        );
    }
    let (fit_on, judge_on) = if all {
        (set.clone(), None)
    } else {
        let (a, b) = set.split_halves();
        (a, Some(b))
    };
    if fit_on.len() < 4 {
        bail!(
            "{table_name}: {} probed distances with samples; calibration needs at least {}",
            set.len(),
            if all { 4 } else { 8 }
        );
    }
    let cal = calibrate_to(&base, &fit_on).map_err(|e| anyhow!("{name} on {table_name}: {e}"))?;
    let tuned = cal
        .adjustments
        .apply(&base)
        .ok_or_else(|| anyhow!("{name}: the calibrated drive is invalid"))?;
    let judged = judge_on.as_ref().map(|j| (j.score(&base), j.score(&tuned)));
    let row = ProbeCalibration {
        disk: name.clone(),
        table: table_name.clone(),
        fit_distances: fit_on.len(),
        judged_distances: judge_on.as_ref().map_or(0, |j| j.len()),
        calibration: cal.clone(),
        judged_rms_uncalibrated_ms: judged.and_then(|j| j.0),
        judged_rms_calibrated_ms: judged.and_then(|j| j.1),
        note: (cal.train_rms_after_ms > PROBE_MISFIT_MS).then(|| {
            format!(
                "the fit leaves {:.2} ms: the knobs (overheads, seek curve, switch times, each \
                 within ±{MAX_ADJUSTMENT} ms) cannot turn this drive into the probed device; \
                 start from a drive file of its kind (rpm, zones, cache)",
                cal.train_rms_after_ms
            )
        }),
    };
    let mut text = if json {
        serde_json::to_string_pretty(&row)? + "\n"
    } else {
        let mut s = format!(
            "{name} on {table_name}: fit on {} probed distances (rms of binned mean service times {:.4} -> {:.4} ms, {} probe runs)",
            thousands(row.fit_distances as u64),
            cal.train_rms_before_ms,
            cal.train_rms_after_ms,
            cal.evaluations
        );
        match (row.judged_rms_uncalibrated_ms, row.judged_rms_calibrated_ms) {
            (Some(u), Some(c)) => s.push_str(&format!(
                ";\njudged on the other {}: rms {u:.4} ms uncalibrated, {c:.4} ms calibrated\n",
                thousands(row.judged_distances as u64)
            )),
            _ if all => s.push_str("; no held-out figure\n"),
            _ => s.push_str(";\nthe held-out distances could not be scored on this drive\n"),
        }
        s.push_str(&adjustments_text(&cal));
        if let Some(n) = &row.note {
            s.push_str(&format!("note: {n}\n"));
        }
        s
    };
    if let Some(path) = out {
        let from = format!(
            "the probe table {table_name} ({})",
            if all {
                "all probed distances"
            } else {
                "every other probed distance"
            }
        );
        write_calibrated(tuned, &from, path)?;
        if !json {
            text.push_str(&format!("wrote {}\n", path.display()));
        }
    }
    Ok(text)
}
