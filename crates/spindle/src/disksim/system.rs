//! A whole DiskSim configuration as spindle runs it today: the disks of the topology
//! as a volume set, each behind the host queue of the `disksim_iodriver`, driven by
//! the file's synthetic generator ([`super::synthio`]).
//!
//! Only what maps onto spindle exactly is accepted: every `disksim_logorg` must be
//! `Parts` / `Asis` / `Noredun` over one disk (so a generator's device is one disk);
//! one I/O driver of type 1 with `Use queueing in subsystem = 1` (it keeps requests
//! in its queue and passes each disk as many as the disk's `Max queue length`), whose
//! scheduling policy is FCFS (1), elevator (2), C-LOOK (3) or SSTF (4) on LBNs;
//! pass-through controllers (type 1) only. Striping, redundancy, controller caches,
//! intelligent controllers and other policies are refused with the file, line and
//! block name.

use super::import::{import_parv, ImportError, ImportedDisk};
use super::param::{parse_file, Block, Loc, ParamFile, Topology, Value};
use super::synthio::read_synthio;
use crate::engine::{self, RunOptions, Source};
use crate::sched::SchedulerKind;
use crate::stack::queue::QueueSpec;
use crate::stack::tree::build_from_params;
use crate::time::SimTime;
use crate::workload::synth::{SynthLoop, SynthSpec};
use std::path::Path;

fn at<T>(loc: &Loc, msg: impl Into<String>) -> Result<T, ImportError> {
    Err(ImportError::At {
        loc: loc.to_string(),
        msg: msg.into(),
    })
}

/// A DiskSim configuration spindle can run.
#[derive(Clone, Debug)]
pub struct System {
    pub disks: Vec<ImportedDisk>,
    /// The I/O driver's queue, in front of every disk.
    pub queue: QueueSpec,
    pub synth: SynthSpec,
}

/// What a run measured, DiskSim's way and spindle's.
#[derive(Clone, Debug, PartialEq)]
pub struct SystemResult {
    /// Requests completed by the time the generator stopped (what DiskSim reports).
    pub completed: u64,
    /// Their mean response time, ms (DiskSim's "Overall I/O System Response time
    /// average").
    pub mean_ms: f64,
    /// Completed requests per disk, in topology order.
    pub per_device: Vec<u64>,
    /// Every request issued, including those still in flight at the stop that spindle
    /// runs to completion.
    pub issued: u64,
    /// When the generator stopped, ms.
    pub stop_ms: f64,
}

/// Loads `path` as a runnable system, refusing what spindle cannot represent.
pub fn load_system(path: &Path) -> Result<System, ImportError> {
    let file = parse_file(path)?;
    let disks = import_parv(path)?;
    refuse_unrepresentable(&file)?;
    let queue = driver_queue(&file, &disks)?;
    let names: Vec<&str> = disks.iter().map(|d| d.instance.as_str()).collect();
    let orgs = logorg_disks(&file, &names)?;
    let synth = read_synthio(&file, &mut |name, loc| {
        if let Some(i) = names.iter().position(|n| *n == name) {
            return Ok(i as u32);
        }
        if let Some((_, i)) = orgs.iter().find(|(o, _)| o == name) {
            return Ok(*i);
        }
        at(
            loc,
            format!("`{name}` is neither a disk of the topology nor a logorg"),
        )
    })?;
    let Some(synth) = synth else {
        return Err(ImportError::File {
            file: path.display().to_string(),
            msg: "no disksim_synthio block: only synthetic DiskSim configurations run yet".into(),
        });
    };
    synth.runnable().map_err(|e| ImportError::File {
        file: path.display().to_string(),
        msg: format!("disksim_synthio: {e}"),
    })?;
    Ok(System {
        disks,
        queue,
        synth,
    })
}

/// Blocks whose behaviour spindle does not model yet.
fn refuse_unrepresentable(file: &ParamFile) -> Result<(), ImportError> {
    let used: Vec<String> = file.instantiations.iter().map(|i| i.spec.clone()).collect();
    for b in &file.blocks {
        let r = b.resolved(file);
        let name = b.name.as_deref().unwrap_or("?");
        match r.type_name.as_str() {
            "disksim_cachemem" | "disksim_cachedev" => {
                return at(
                    &b.loc,
                    format!(
                        "{} `{name}`: controller and device caches are not modelled yet",
                        r.type_name
                    ),
                )
            }
            "disksim_ctlr" if used.iter().any(|u| u == name) => {
                let ty = r.get("type").and_then(|p| match p.value {
                    Value::Int(i) => Some(i),
                    _ => None,
                });
                if ty != Some(1) {
                    return at(
                        r.get("type").map_or(&b.loc, |p| &p.loc),
                        format!("disksim_ctlr `{name}`: only pass-through controllers (type 1) are modelled"),
                    );
                }
                if let Some(p) = r.get("Maximum queue length") {
                    if p.value != Value::Int(0) {
                        return at(
                            &p.loc,
                            format!("disksim_ctlr `{name}`: a controller queue is not modelled (only 0)"),
                        );
                    }
                }
                for key in ["Scale for delays", "Bulk sector transfer time"] {
                    if let Some(p) = r.get(key) {
                        if !matches!(p.value, Value::Float(0.0) | Value::Int(0)) {
                            return at(
                                &p.loc,
                                format!(
                                    "disksim_ctlr `{name}`: `{key}` other than 0 is not modelled"
                                ),
                            );
                        }
                    }
                }
                if let Some(p) = r.get("Cache") {
                    return at(
                        &p.loc,
                        format!("disksim_ctlr `{name}`: controller caches are not modelled yet"),
                    );
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Each logorg's name and its one disk's number; anything but one whole disk refused.
fn logorg_disks(file: &ParamFile, disks: &[&str]) -> Result<Vec<(String, u32)>, ImportError> {
    let mut out = Vec::new();
    for b in file.blocks.iter().map(|b| b.resolved(file)) {
        if b.type_name != "disksim_logorg" {
            continue;
        }
        let name = b.name.clone().unwrap_or_default();
        for (key, want) in [
            ("Addressing mode", "Parts"),
            ("Distribution scheme", "Asis"),
            ("Redundancy scheme", "Noredun"),
        ] {
            let p = b.get(key).ok_or_else(|| ImportError::At {
                loc: b.loc.to_string(),
                msg: format!("disksim_logorg `{name}` lacks `{key}`"),
            })?;
            if !matches!(&p.value, Value::Str(s) if s.eq_ignore_ascii_case(want)) {
                return at(
                    &p.loc,
                    format!("disksim_logorg `{name}`: `{key}` other than {want} (striping, arrays, redundancy) is not modelled yet"),
                );
            }
        }
        let one = logorg_devices(&b)?;
        let [(dev, loc)] = one.as_slice() else {
            return at(
                &b.loc,
                format!("disksim_logorg `{name}`: a Parts/Asis logorg of {} devices is not modelled yet (only one disk)", one.len()),
            );
        };
        let Some(i) = disks.iter().position(|d| d == dev) else {
            return at(
                loc,
                format!("disksim_logorg `{name}`: `{dev}` is not a disk of the topology"),
            );
        };
        out.push((name, i as u32));
    }
    Ok(out)
}

fn logorg_devices(b: &Block) -> Result<Vec<(String, Loc)>, ImportError> {
    let Some(p) = b.get("devices") else {
        return at(&b.loc, "disksim_logorg lacks `devices`");
    };
    let Value::List(items) = &p.value else {
        return at(&p.loc, "`devices` must be a list of device names");
    };
    items
        .iter()
        .map(|i| match &i.value {
            Value::Str(s) => Ok((s.clone(), i.loc.clone())),
            _ => at(&i.loc, "`devices` must list device names"),
        })
        .collect()
}

/// The one I/O driver's queue.
fn driver_queue(file: &ParamFile, disks: &[ImportedDisk]) -> Result<QueueSpec, ImportError> {
    let drivers: Vec<&Topology> = file
        .topologies
        .iter()
        .filter(|t| t.type_name == "disksim_iodriver")
        .collect();
    let [top] = drivers.as_slice() else {
        let loc = file.topologies.first().map(|t| t.loc.clone());
        let msg = format!(
            "{} I/O drivers in the topology: exactly one is modelled",
            drivers.len()
        );
        return match loc {
            Some(l) => at(&l, msg),
            None => Err(ImportError::At {
                loc: "?".into(),
                msg,
            }),
        };
    };
    let inst = file
        .instantiations
        .iter()
        .find(|i| i.names.contains(&top.name))
        .ok_or_else(|| ImportError::At {
            loc: top.loc.to_string(),
            msg: format!("driver `{}` is never instantiated", top.name),
        })?;
    let block = file
        .block(&inst.spec)
        .ok_or_else(|| ImportError::At {
            loc: inst.loc.to_string(),
            msg: format!("no block `{}`", inst.spec),
        })?
        .resolved(file);
    let name = block.name.clone().unwrap_or_default();
    if let Some(p) = block.get("type") {
        if p.value != Value::Int(1) {
            return at(
                &p.loc,
                format!("disksim_iodriver `{name}`: only type 1 is modelled"),
            );
        }
    }
    if let Some(p) = block.get("Constant access time") {
        if !matches!(p.value, Value::Float(0.0) | Value::Int(0)) {
            return at(
                &p.loc,
                format!(
                    "disksim_iodriver `{name}`: a constant access time is not modelled (only 0.0)"
                ),
            );
        }
    }
    match block.get("Use queueing in subsystem") {
        Some(p) if p.value == Value::Int(1) => {}
        Some(p) => {
            return at(
                &p.loc,
                format!("disksim_iodriver `{name}`: `Use queueing in subsystem` other than 1 is not modelled"),
            )
        }
        None => {
            return at(
                &block.loc,
                format!("disksim_iodriver `{name}` lacks `Use queueing in subsystem`"),
            )
        }
    }
    let Some(Value::Block(q)) = block.get("Scheduler").map(|p| &p.value) else {
        return at(
            &block.loc,
            format!("disksim_iodriver `{name}` lacks its Scheduler (disksim_ioqueue)"),
        );
    };
    let policy = q.get("Scheduling policy").ok_or_else(|| ImportError::At {
        loc: q.loc.to_string(),
        msg: "the driver's ioqueue lacks `Scheduling policy`".into(),
    })?;
    let kind = match policy.value {
        Value::Int(1) => SchedulerKind::Fcfs,
        Value::Int(2) => SchedulerKind::Look,
        Value::Int(3) => SchedulerKind::CLook,
        Value::Int(4) => SchedulerKind::Sstf,
        ref v => {
            return at(
                &policy.loc,
                format!("disksim_iodriver `{name}`: scheduling policy {v:?} has no spindle scheduler (1 FCFS, 2 elevator, 3 C-LOOK and 4 SSTF on LBNs do)"),
            )
        }
    };
    for (key, zero_ok) in [
        ("Sequential stream scheme", true),
        ("Overlapping request scheme", true),
        ("Scheduling timeout scheme", true),
        ("Scheduling priority scheme", true),
    ] {
        if let Some(p) = q.get(key) {
            if zero_ok && p.value != Value::Int(0) {
                return at(
                    &p.loc,
                    format!("disksim_iodriver `{name}`: `{key}` other than 0 is not modelled"),
                );
            }
        }
    }
    for key in ["Write initiation delay", "Read initiation delay"] {
        if let Some(p) = q.get(key) {
            if !matches!(p.value, Value::Float(0.0) | Value::Int(0)) {
                return at(
                    &p.loc,
                    format!("disksim_iodriver `{name}`: `{key}` other than 0 is not modelled"),
                );
            }
        }
    }
    // The driver hands each disk as many requests as the disk queues.
    let depth = disks
        .iter()
        .map(|d| d.params.firmware.queue_depth)
        .min()
        .unwrap_or(1)
        .max(1);
    Ok(QueueSpec {
        depth,
        ..QueueSpec::new(kind)
    })
}

/// Runs `sys` with the generator seeded by `seed`.
pub fn run_system(sys: &System, seed: u64) -> Result<SystemResult, String> {
    let params: Vec<_> = sys.disks.iter().map(|d| d.params.clone()).collect();
    let mut built = build_from_params(&params, &sys.queue)?;
    let spec = SynthSpec {
        seed,
        ..sys.synth.clone()
    };
    let mut src = SynthLoop::new(&spec).map_err(|e| e.to_string())?;
    let mut logs = Vec::new();
    let totals = engine::run(
        built.root.as_mut(),
        &built.units,
        Source::Closed(&mut src),
        RunOptions::default(),
        &mut |l| logs.push((l.device, l.arrival, l.done)),
    )
    .map_err(|e| e.to_string())?;
    if let Some(e) = src.error() {
        return Err(e.to_string());
    }
    let stop = src.stopped_at().unwrap_or(SimTime(u64::MAX));
    let mut per_device = vec![0u64; sys.disks.len()];
    let mut sum = 0u128;
    let mut n = 0u64;
    for &(dev, arrival, done) in &logs {
        if done <= stop {
            n += 1;
            sum += u128::from(done.0 - arrival.0);
            if let Some(c) = per_device.get_mut(dev as usize) {
                *c += 1;
            }
        }
    }
    Ok(SystemResult {
        completed: n,
        mean_ms: if n == 0 {
            0.0
        } else {
            sum as f64 / n as f64 / 1e6
        },
        per_device,
        issued: totals.requests,
        stop_ms: stop.0 as f64 / 1e6,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disksim::import::bundled_disksim_dir;

    #[test]
    fn synthopen_runs_on_the_last_disk_only() {
        let sys = load_system(&bundled_disksim_dir().join("synthopen.parv")).expect("loads");
        assert_eq!(sys.disks.len(), 3);
        assert_eq!(sys.queue.kind, SchedulerKind::CLook);
        let r = run_system(&sys, 42).expect("runs");
        assert_eq!(r.per_device[0] + r.per_device[1], 0);
        assert!(r.completed >= 9_990 && r.completed <= 9_998, "{r:?}");
        assert!(r.mean_ms > 1.0 && r.mean_ms < 100.0, "{r:?}");
    }

    #[test]
    fn what_spindle_cannot_represent_is_refused_with_file_line_and_block() {
        let dir = bundled_disksim_dir();
        let e = load_system(&dir.join("synthraid5.parv"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("synthraid5.parv:") && e.contains("modelled"),
            "{e}"
        );
        let e = load_system(&dir.join("synthcachemem.parv"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("synthcachemem.parv:") && e.contains("modelled"),
            "{e}"
        );
        let e = load_system(&dir.join("synthcachedev.parv"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("synthcachedev.parv:") && e.contains("modelled"),
            "{e}"
        );
        // A striped logorg names its block.
        let text = std::fs::read_to_string(dir.join("synthopen.parv"))
            .unwrap()
            .replacen(
                "Distribution scheme = Asis",
                "Distribution scheme = Striped",
                1,
            );
        let tmp = std::env::temp_dir().join(format!("spindle-striped-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        for f in ["atlas10k", "ibm18es", "cheetah9LP"] {
            for ext in ["diskspecs", "model", "seek"] {
                let from = dir.join(format!("{f}.{ext}"));
                if from.exists() {
                    std::fs::copy(&from, tmp.join(format!("{f}.{ext}"))).unwrap();
                }
            }
        }
        std::fs::write(tmp.join("striped.parv"), text).unwrap();
        let e = load_system(&tmp.join("striped.parv"))
            .unwrap_err()
            .to_string();
        std::fs::remove_dir_all(&tmp).ok();
        assert!(
            e.contains("striped.parv:149:")
                && e.contains("disksim_logorg `org0`")
                && e.contains("Distribution scheme"),
            "{e}"
        );
    }
}
