//! The experiment registry: every reproduction `spindle reproduce` can run, by catalog
//! id. Each entry computes its numbers by simulation and returns them with the paper's
//! values as checks, plots, tables and CSV.

use super::mimd_eq::mimd_equations;
use super::seed_drives::seed_drive_checks;
use super::strands::{queue_depth_sweep, strand_table, Placement, StrandConfig};
use super::Check;
use crate::disk::hdd::Hdd;
use crate::disk::presets::{bundled_file, disksim_preset, preset, DISKSIM_DRIVES};
use crate::engine::Source;
use crate::mimic::Metric;
use crate::report::{ExperimentOutput, Plot, PlotKind, Series, Table};
use crate::runner::{simulate, StackSpec};
use crate::sched::SchedulerKind;
use crate::trace::IoRecord;
use crate::validate::demerit::cdf_rows;
use crate::validate::replay::replay;
use crate::validate::trace::parse_validate_trace;
use std::fmt::Write as _;

pub use super::options::{Durability, RunOpts};

pub struct Experiment {
    pub id: &'static str,
    pub title: &'static str,
    pub run: fn(&RunOpts) -> Result<ExperimentOutput, String>,
}

/// Every registered experiment, in report order.
pub fn registry() -> Vec<Experiment> {
    vec![
        Experiment {
            id: "DISKSIM-VALID",
            title: "DiskSim real-drive validation traces",
            run: disksim_validation,
        },
        Experiment {
            id: "DISKSIM-SUITE",
            title: "DiskSim's synthetic test configurations",
            run: super::disksim_suite::disksim_suite,
        },
        Experiment {
            id: "DISK-SEEDS",
            title: "The seed papers' drives",
            run: seed_drives,
        },
        Experiment {
            id: "PROX-T1",
            title: "Strand response times on the Cheetah 15K.5 (Table 1)",
            run: prox_t1,
        },
        Experiment {
            id: "PROX-F1",
            title: "Per-request cost of small requests in a strand (Figure 1)",
            run: prox_f1,
        },
        Experiment {
            id: "PROX-F2",
            title: "Strand of 8 with varying queue depth (Figure 2)",
            run: prox_f2,
        },
        Experiment {
            id: "PROX-APPA-model",
            title: "Birthday-paradox model of proximal strands (Appendix A)",
            run: super::strand_exps::prox_appa_model,
        },
        Experiment {
            id: "PROX-F3",
            title: "Model-predicted vs simulated distribution of strand response time (Figure 3)",
            run: super::strand_exps::prox_f3,
        },
        Experiment {
            id: "PROX-F4",
            title: "Effect of issuing strands in ascending LBN order (Figure 4)",
            run: super::strand_exps::prox_f4,
        },
        Experiment {
            id: "PROX-EQ2",
            title: "Serpentine band size of the Cheetah 15K.5 (§2.1), read back from the layout",
            run: super::prox_eq::prox_eq2,
        },
        Experiment {
            id: "PROX-T2",
            title: "Random updates on a 4+1 RAID-4 with checksums (Table 2)",
            run: super::prox_raid::prox_t2,
        },
        Experiment {
            id: "PROX-T3",
            title: "Serial reads after random updates (Table 3)",
            run: super::prox_dle::prox_t3,
        },
        Experiment {
            id: "PROX-COST",
            title: "Cost per IOPS with a 1 % flash staging area (§5.4)",
            run: super::prox_dle::prox_cost,
        },
        Experiment {
            id: "MIMD-EQ",
            title: "MimdRAID seek-distance and rotational-delay formulas (EQ1–EQ7)",
            run: mimd_eq,
        },
        Experiment {
            id: "MIMD-EQ-DISK",
            title: "MimdRAID's seek and rotation formulas measured on stacks of the disk model",
            run: |o| super::mimd_stack::mimd_eq_disk(o.quick, o.seed),
        },
        Experiment {
            id: "MIMD-F5",
            title: "Random-read latency against D and the Square Root Rule (Figure 5)",
            run: |o| super::mimd_stack::mimd_f5(o.quick, o.seed),
        },
        Experiment {
            id: "MIMD-F6",
            title: "The hplajw trace's read latency against D (Figure 6)",
            run: |o| super::mimd_trace::mimd_f6(o.quick, o.seed),
        },
        Experiment {
            id: "MIMD-F7",
            title: "A TPC-C stand-in's read latency against D (Figure 7; stand-in workload)",
            run: |o| super::mimd_trace::mimd_f7(o.quick, o.seed),
        },
        Experiment {
            id: "MIMD-F8",
            title: "Random-read latency of the prototype's techniques (Figure 8), simulated",
            run: |o| super::mimd_prototype::mimd_f8(o.quick, o.seed),
        },
        Experiment {
            id: "MIMD-F9",
            title: "Random-read throughput against D, reorder queues 4, 16 and 64 (Figure 9)",
            run: |o| super::mimd_throughput::mimd_f9(o.quick, o.seed),
        },
        Experiment {
            id: "MIMD-HEADTRACK",
            title: "Software head-position tracking and what its error costs (§4.1)",
            run: |o| super::mimd_headtrack::mimd_headtrack(o.quick, o.seed),
        },
        Experiment {
            id: "MIMD-T1",
            title: "Table 1's Cheetah 9LP against the simulated st34502lw",
            run: |o| super::mimd_prototype::mimd_t1(o.quick, o.seed),
        },
        Experiment {
            id: "MIMD-RULE2",
            title: "Smaller platters and the Square Root Rule 2 (§2.2.1), on the disk model",
            run: |o| super::mimd_geometry::mimd_rule2(o.quick, o.seed),
        },
        Experiment {
            id: "MIMD-RULE3",
            title: "More heads per surface and the Square Root Rule 3, on the disk model",
            run: |o| super::mimd_geometry::mimd_rule3(o.quick, o.seed),
        },
        Experiment {
            id: "MIMD-DUAL",
            title: "A dual-actuator nearline drive against one arm (random reads, queue 1 and 32)",
            run: |o| super::mimd_stack::dual_actuator(o.quick, o.seed),
        },
        Experiment {
            id: "HPLAJW-DISKSIM",
            title: "The HP hplajw trace under DiskSim's configuration",
            run: hplajw_disksim,
        },
        Experiment {
            id: "MIMIC-F3.1",
            title: "Distribution of off-line probe times at three distances (Figure 3.1)",
            run: super::mimic_exps::mimic_f3_1,
        },
        Experiment {
            id: "MIMIC-F3.2",
            title: "Schedulers and SMTF summary metrics against trace compression (Figure 3.2)",
            run: mimic_f3_2,
        },
        Experiment {
            id: "MIMIC-F3.3",
            title: "Demerit figures of the summary metrics (Figure 3.3)",
            run: super::mimic_exps::mimic_f3_3,
        },
        Experiment {
            id: "MIMIC-F3.4",
            title: "Sensitivity to the number of samples (Figure 3.4)",
            run: super::mimic_exps::mimic_f3_4,
        },
        Experiment {
            id: "MIMIC-F3.5",
            title: "Mean service time against inter-request distance (Figure 3.5)",
            run: super::mimic_exps::mimic_f3_5,
        },
        Experiment {
            id: "MIMIC-F3.8",
            title: "Performance against workload locality (Figure 3.8)",
            run: super::mimic_exps::mimic_f3_8,
        },
        Experiment {
            id: "MIMIC-F3.9",
            title: "On-line SMTF (Figure 3.9)",
            run: super::mimic_exps::mimic_f3_9,
        },
        Experiment {
            id: "MIMIC-F3.6",
            title: "Sensitivity to interpolation (Figure 3.6, Table 3.2)",
            run: super::mimic_exps::mimic_f3_6,
        },
        Experiment {
            id: "MIMIC-F3.7",
            title: "Sensitivity to disk characteristics (Figure 3.7)",
            run: super::mimic_exps::mimic_f3_7,
        },
        Experiment {
            id: "MIMIC-REAL",
            title:
                "SMTF vs C-LOOK on the HP trace at the thesis's request rate, with and without idle \
                 time (§3.6.4)",
            run: super::mimic_real::mimic_real,
        },
        Experiment {
            id: "MIMIC-MEM",
            title: "Disk Mimic table size, full and interpolated (§2.3, §3.6.3)",
            run: super::mimic_exps::mimic_mem,
        },
        Experiment {
            id: "FREEBLK-F4.1",
            title: "Workload benefits with freeblock scheduling (Figure 4.1)",
            run: super::freeblk_exps::freeblk_f4_1,
        },
        Experiment {
            id: "FREEBLK-EQ",
            title: "The \"free\" admission rule measured per admitted background read (§4.3)",
            run: super::freeblk_eq::freeblk_eq,
        },
        Experiment {
            id: "LOGSKIP-F5.1",
            title: "Individual service times, 4 KB writes, skip 0 (Figure 5.1)",
            run: super::logskip_exps::logskip_f5_1,
        },
        Experiment {
            id: "LOGSKIP-F5.2",
            title: "Mean service time vs skip distance (Figure 5.2)",
            run: super::logskip_exps::logskip_f5_2,
        },
        Experiment {
            id: "LOGSKIP-F5.3",
            title: "Mean service time vs request size at skip 0 and 28 KB (Figure 5.3)",
            run: super::logskip_exps::logskip_f5_3,
        },
        Experiment {
            id: "LOGSKIP-F5.4",
            title: "Mean service time vs request size × skip distance (Figure 5.4)",
            run: super::logskip_exps::logskip_f5_4,
        },
        Experiment {
            id: "LOGSKIP-F5.5",
            title: "Recommended skip distance vs request size (Figure 5.5)",
            run: super::logskip_exps::logskip_f5_5,
        },
        Experiment {
            id: "LOGSKIP-F5.6",
            title: "Mean service time vs think time (Figure 5.6)",
            run: super::logskip_exps::logskip_f5_6,
        },
        Experiment {
            id: "LOGSKIP-F5.7",
            title: "Mean service time vs think time × skip distance (Figure 5.7)",
            run: super::logskip_exps::logskip_f5_7,
        },
        Experiment {
            id: "LOGSKIP-F5.8",
            title: "miniMimic recommendation surface, SCSI Disk 1 (Figure 5.8)",
            run: super::logskip_exps::logskip_f5_8,
        },
        Experiment {
            id: "LOGSKIP-F5.10",
            title: "miniMimic recommendation surface, IDE disk (Figure 5.10)",
            run: super::logskip_exps::logskip_f5_10,
        },
        Experiment {
            id: "LOGSKIP-F5.11",
            title: "miniMimic predicted vs actual service times (Figure 5.11)",
            run: super::logskip_exps::logskip_f5_11,
        },
        Experiment {
            id: "LOGSKIP-F5.12",
            title: "Log bandwidth vs transaction size, SCSI Disk 1 (Figure 5.12)",
            run: super::logskip_exps::logskip_f5_12,
        },
        Experiment {
            id: "LOGSKIP-F5.14",
            title: "Log bandwidth vs transaction size, IDE disk (Figure 5.14)",
            run: super::logskip_exps::logskip_f5_14,
        },
        Experiment {
            id: "LOGSKIP-F5.15",
            title: "Log bandwidth vs think time, SCSI Disk 1 (Figure 5.15)",
            run: super::logskip_exps::logskip_f5_15,
        },
        Experiment {
            id: "LOGSKIP-F5.17",
            title: "Log bandwidth vs think time, IDE disk (Figure 5.17)",
            run: super::logskip_exps::logskip_f5_17,
        },
        Experiment {
            id: "RAID5-F6.1",
            title: "RAID-5 left-asymmetric layout and I/O counts per write pattern (Figure 6.1)",
            run: super::raid5_exps::raid5_f6_1,
        },
        Experiment {
            id: "RAID5-F6.3",
            title: "Determining the stripe size on-line (RAID-Mimic, Figure 6.3)",
            run: super::raid5_exps::raid5_f6_3,
        },
        Experiment {
            id: "RAID5-F6.4",
            title: "Specialization for RAID-5: OS vs VMM stripe alignment (Figure 6.4)",
            run: super::raid5_exps::raid5_f6_4,
        },
        Experiment {
            id: "DEDUP-T1",
            title: "Table 1: one-week workload summary (stand-in traces)",
            run: |o| super::dedup_exps::dedup_t1(false, o.seed), // full size in quick mode too
        },
        Experiment {
            id: "DEDUP-T2",
            title: "Table 2: disk static similarity (stand-in disk images)",
            run: |o| super::dedup_exps::dedup_t2(false, o.seed), // full size in quick mode too
        },
        Experiment {
            id: "DEDUP-F1",
            title: "Page-cache hits, content vs sector, infinite cache (stand-in traces)",
            run: |o| super::dedup_exps::dedup_f1(false, o.seed), // full size in quick mode too
        },
        Experiment {
            id: "DEDUP-F2",
            title: "Average reuse distance, content vs sector (stand-in traces)",
            run: |o| super::dedup_exps::dedup_f2(false, o.seed), // full size in quick mode too
        },
        Experiment {
            id: "DEDUP-F3",
            title: "Workload static similarity vs copy cap (stand-in traces)",
            run: |o| super::dedup_exps::dedup_f3(false, o.seed), // full size in quick mode too
        },
        Experiment {
            id: "DEDUP-F4",
            title: "Content working-set overlap over 3 weeks (stand-in traces)",
            run: |o| super::dedup_exps::dedup_f4(false, o.seed), // full size in quick mode too
        },
        Experiment {
            id: "DEDUP-F8",
            title: "Per-day read cache hits, content vs sector, ARC (stand-in traces)",
            run: |o| super::dedup_exps::dedup_f8(o.quick, o.seed),
        },
        Experiment {
            id: "DEDUP-F9",
            title: "ARC vs LRU content-based cache, web-vm (stand-in trace)",
            run: |o| super::dedup_exps::dedup_f9(false, o.seed), // full size in quick mode too
        },
        Experiment {
            id: "DEDUP-F10",
            title: "Dynamic replica retrieval (stand-in traces)",
            run: |o| super::dedup_exps::dedup_f10(false, o.seed), // full size in quick mode too
        },
        Experiment {
            id: "DEDUP-F11",
            title: "Selective duplication + DRR (stand-in traces)",
            run: |o| super::dedup_exps::dedup_f11(false, o.seed), // full size in quick mode too
        },
        Experiment {
            id: "DEDUP-T3",
            title: "Table 3: total disk read time, all three mechanisms (stand-in traces)",
            run: |o| super::dedup_exps::dedup_t3(false, o.seed), // full size in quick mode too
        },
        Experiment {
            id: "DEDUP-MEM",
            title: "Memory overhead of the content cache (Eq. 1)",
            run: |o| super::dedup_exps::dedup_mem(false, o.seed), // full size in quick mode too
        },
        Experiment {
            id: "DEDUP-F12",
            title: "Lookup cost vs content-cache size (probe counts, stand-in trace)",
            run: |o| super::dedup_exps::dedup_f12(false, o.seed), // full size in quick mode too
        },
        Experiment {
            id: "DEDUP-F13",
            title: "Lookup cost vs hash buckets, and Eq. CPU's O(N)/O(1) (probe counts, stand-in trace)",
            run: |o| super::dedup_exps::dedup_f13(false, o.seed), // full size in quick mode too
        },
    ]
}

/// The experiments `--full-scale` changes (`prox_raid`, through `prox_full`).
pub const FULL_SCALE_IDS: &[&str] = &["PROX-T2"];
/// The experiments whose arrays run under `--durability` (`prox_raid`, `prox_dle`): a
/// new experiment that reads `RunOpts::durability` or `full_scale` joins these lists.
pub const DURABILITY_IDS: &[&str] = &["PROX-T2", "PROX-T3", "PROX-COST"];

/// Refuses a full-scale or non-default durability run none of `exps` would use: the
/// report's header would name a setting that changed nothing.
pub fn check_options(exps: &[Experiment], opts: &RunOpts) -> Result<(), String> {
    let uses = |ids: &[&str]| exps.iter().any(|e| ids.contains(&e.id));
    let named: Vec<&str> = exps.iter().map(|e| e.id).collect();
    if opts.full_scale && !uses(FULL_SCALE_IDS) {
        return Err(format!(
            "--full-scale applies to {} only, and none is selected ({})",
            FULL_SCALE_IDS.join(", "),
            named.join(", ")
        ));
    }
    if opts.durability != Durability::default() && !uses(DURABILITY_IDS) {
        return Err(format!(
            "--durability {} applies to {} only, and none is selected ({})",
            opts.durability.name(),
            DURABILITY_IDS.join(", "),
            named.join(", ")
        ));
    }
    Ok(())
}

/// The experiments matching `ids` (catalog ids, case-insensitive; a prefix such as
/// `PROX` selects all of its family; `all` selects everything).
pub fn select(ids: &[String]) -> Result<Vec<Experiment>, String> {
    let all = registry();
    // An empty id would match every experiment as a prefix of each.
    if ids.iter().any(|i| i.trim().is_empty()) {
        return Err("an experiment id is empty: give an id or prefix (e.g. PROX), or all".into());
    }
    if ids.is_empty() || ids.iter().any(|i| i.eq_ignore_ascii_case("all")) {
        return Ok(all);
    }
    let mut out = Vec::new();
    for e in all {
        if ids.iter().any(|i| {
            e.id.eq_ignore_ascii_case(i)
                || e.id
                    .to_ascii_lowercase()
                    .starts_with(&i.to_ascii_lowercase())
        }) {
            out.push(e);
        }
    }
    for i in ids {
        if !registry().iter().any(|e| {
            e.id.to_ascii_lowercase()
                .starts_with(&i.to_ascii_lowercase())
        }) {
            let known: Vec<&str> = registry().iter().map(|e| e.id).collect();
            return Err(format!("no experiment `{i}`; known: {}", known.join(", ")));
        }
    }
    Ok(out)
}

fn f3(x: f64) -> String {
    format!("{x:.3}")
}

fn disksim_validation(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "DISKSIM-VALID",
        "DiskSim real-drive validation traces",
        "DiskSim 4.0's validation traces: about 10,000 requests measured on each real drive, replayed \
         closed-loop with one request outstanding (each issued its measured think time after the \
         previous completion). The demerit (rms) is the root-mean-square horizontal distance between \
         the simulated and measured response-time distributions, computed exactly as DiskSim's rms \
         tool does. The bar: rms at most 1.3 × DiskSim's own on the same trace, mean within 3 % of \
         the measured mean.",
        o.seed,
    );
    let mut table = Table::new(&[
        "drive",
        "requests",
        "rms ms",
        "DiskSim rms ms",
        "mean measured ms",
        "mean simulated ms",
    ]);
    out.csv = "drive,requests,rms_ms,disksim_rms_ms,mean_measured_ms,mean_simulated_ms\n".into();
    for d in DISKSIM_DRIVES {
        let params = disksim_preset(d.stem)?;
        let text = bundled_file(&format!("{}.trace", d.stem)).ok_or("bundled trace missing")?;
        let trace = parse_validate_trace(text, d.stem).map_err(|e| e.to_string())?;
        let mut hdd = Hdd::new(params).map_err(|e| e.to_string())?;
        let sim = replay(&mut hdd, &trace);
        let meas: Vec<f64> = trace.iter().map(|r| r.measured_us / 1000.0).collect();
        let rms = crate::validate::demerit::rms_demerit(&sim, &meas);
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let (mm, ms) = (mean(&meas), mean(&sim));
        out.checks.push(Check::below(
            "DISKSIM-VALID",
            &format!(
                "{} rms (ms), at most 1.3 × DiskSim's {:.3}",
                d.stem, d.disksim_rms_ms
            ),
            1.3 * d.disksim_rms_ms + 1e-12,
            rms,
        ));
        out.checks.push(Check::relative(
            "DISKSIM-VALID",
            &format!("{} mean response (ms) vs measured", d.stem),
            mm,
            ms,
            0.03,
        ));
        table.rows.push(vec![
            d.stem.into(),
            trace.len().to_string(),
            format!("{rms:.4}"),
            format!("{:.4}", d.disksim_rms_ms),
            f3(mm),
            f3(ms),
        ]);
        let _ = writeln!(
            out.csv,
            "{},{},{rms:.6},{},{mm:.6},{ms:.6}",
            d.stem,
            trace.len(),
            d.disksim_rms_ms
        );
        out.plots.push(Plot {
            title: format!("{}: response-time distribution", d.stem),
            x_label: "response time (ms)".into(),
            y_label: "fraction of requests".into(),
            kind: PlotKind::Step,
            series: vec![
                Series {
                    label: "measured (real drive)".into(),
                    points: cdf_rows(&meas),
                },
                Series {
                    label: "spindle".into(),
                    points: cdf_rows(&sim),
                },
            ],
            log_x: true,
            paper: Vec::new(),
            x_categories: Vec::new(),
        });
    }
    out.tables.push(table);
    Ok(out)
}

fn seed_drives(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "DISK-SEEDS",
        "The seed papers' drives",
        "Queue-depth-1 random requests over the whole disk on the presets built from the papers' \
         drive sheets (DISK-C15K5, DISK-RE3, DISK-9LP), and the thesis's base disk's seek curve and \
         revolution (DISK-T3.1, THESIS-EQ-SEEK). What the papers leave unstated is decided in the \
         presets and documented there.",
        o.seed,
    );
    // Full size in quick mode too (0.2 s; see `RunOpts`).
    out.checks = seed_drive_checks(20_000, o.seed).map_err(|e| e.to_string())?;
    out.csv = checks_csv(&out.checks);
    Ok(out)
}

fn checks_csv(checks: &[Check]) -> String {
    let mut s = String::from("id,metric,paper,ours,tolerance,pass\n");
    for c in checks {
        let _ = writeln!(
            s,
            "{},\"{}\",{},{:.6},\"{}\",{}",
            c.id,
            c.metric.replace('"', "'"),
            c.paper,
            c.ours,
            c.tolerance,
            c.pass
        );
    }
    s
}

fn strands(o: &RunOpts, sizes: Vec<usize>) -> Result<super::strands::StrandReport, String> {
    strands_issued(o, sizes, false)
}

/// [`strands`] with the strand issued to a non-empty queue (`empty_queue` false, the
/// paper's setup) or to an idle drive one request at a time.
fn strands_issued(
    o: &RunOpts,
    sizes: Vec<usize>,
    empty_queue: bool,
) -> Result<super::strands::StrandReport, String> {
    let cfg = StrandConfig {
        // Full size in quick mode too (0.4 s; see `RunOpts`).
        trials: 3000,
        sizes,
        seed: o.seed,
        empty_queue,
        ..StrandConfig::default()
    };
    strand_table(&preset("cheetah15k5")?, &cfg).map_err(|e| e.to_string())
}

const STRAND_SETUP: &str = "Cheetah 15K.5 preset. A strand is n 4 KiB requests near a random spot, \
    queued together in ascending LBN order to the drive's SPTF queue; its response time runs from \
    queueing to the last completion. Semi-sequential: each request on the next track, rotated by the \
    drive's minimal repositioning time plus one transfer (the paper does not give the rotation). Track-approximate: random \
    within 1,024 LBNs; proximal: random within 100,000 LBNs (the span of the paper's Figure 1; its text also speaks of \
    100,000 4 KB blocks and of half a million LBNs). Before each strand one untimed \
    random read moves the head away and the host idles a random phase. The paper does not give the \
    drive's command turnaround; the preset uses 0.6 ms, chosen so that the repositioning time \
    between proximal requests gives Appendix A's 'at best six in a single revolution'. It is \
    not a datasheet value, so the check that the simulated drive has six bins is listed as a \
    consistency check.";

fn prox_t1(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let rep = strands(o, vec![2, 4, 6, 8])?;
    let mut out = ExperimentOutput::new(
        "PROX-T1",
        "Strand response times on the Cheetah 15K.5 (Table 1)",
        STRAND_SETUP,
        o.seed,
    );
    out.checks = rep
        .checks
        .iter()
        .filter(|c| c.id != "PROX-F1")
        .cloned()
        .collect();
    // Context (not checked): the same strands reaching an idle drive one by one.
    let idle = strands_issued(o, vec![2, 4, 6, 8], true)?;
    out.csv = "queue,placement,requests,mean_strand_ms,paper_ms,var_ms2\n".into();
    for (queue, r, head) in [
        (
            "non-empty",
            &rep,
            "placement (strand queued whole: checked)",
        ),
        (
            "empty",
            &idle,
            "placement (idle drive, one by one: context)",
        ),
    ] {
        out.tables.push(t1_table(r, head));
        for row in &r.rows {
            let i = [2usize, 4, 6, 8].iter().position(|&n| n == row.requests);
            if let Some(i) = i {
                let _ = writeln!(
                    out.csv,
                    "{queue},{},{},{:.6},{},{:.6}",
                    row.placement.label(),
                    row.requests,
                    row.mean_strand_ms,
                    row.placement.paper_table1()[i],
                    row.var_strand_ms2
                );
            }
        }
    }
    out.description.push_str(&t1_note(&rep, &idle));
    // Per-request cost must fall as strands grow.
    for p in [
        Placement::TrackApproximate,
        Placement::Proximal,
        Placement::ProximalWrite,
        Placement::SemiSequential,
    ] {
        let per: Vec<f64> = rep
            .rows
            .iter()
            .filter(|r| r.placement == p)
            .map(|r| r.per_request_ms)
            .collect();
        let ok = per.windows(2).all(|w| w[1] < w[0]);
        out.checks.push(Check::holds(
            "PROX-T1",
            &format!("{} per-request time strictly decreasing in n", p.label()),
            ok,
        ));
    }
    Ok(out)
}

/// PROX-T1's table: mean strand time per placement and size, with the paper's.
fn t1_table(rep: &super::strands::StrandReport, first: &str) -> Table {
    let mut table = Table::new(&[first, "n = 2", "n = 4", "n = 6", "n = 8"]);
    for p in Placement::ALL {
        let mut row = vec![p.label().to_string()];
        for (i, n) in [2usize, 4, 6, 8].into_iter().enumerate() {
            if let Some(r) = rep
                .rows
                .iter()
                .find(|r| r.placement == p && r.requests == n)
            {
                row.push(format!(
                    "{:.2} (paper {})",
                    r.mean_strand_ms,
                    p.paper_table1()[i]
                ));
            }
        }
        table.rows.push(row);
    }
    table
}

/// Cells of `p`'s row within 10 % of the paper's, as "k of m".
fn t1_within(rep: &super::strands::StrandReport, p: Placement) -> String {
    let cells: Vec<bool> = [2usize, 4, 6, 8]
        .iter()
        .enumerate()
        .filter_map(|(i, &n)| {
            rep.rows
                .iter()
                .find(|r| r.placement == p && r.requests == n)
                .map(|r| {
                    let paper = p.paper_table1()[i];
                    (r.mean_strand_ms - paper).abs() <= 0.10 * paper
                })
        })
        .collect();
    format!(
        "{} of {}",
        cells.iter().filter(|&&ok| ok).count(),
        cells.len()
    )
}

/// Mean strand time of `p` at `n` requests, ms (NaN when not run).
fn t1_cell(rep: &super::strands::StrandReport, p: Placement, n: usize) -> f64 {
    rep.rows
        .iter()
        .find(|r| r.placement == p && r.requests == n)
        .map_or(f64::NAN, |r| r.mean_strand_ms)
}

/// PROX-T1's explanation of its misses, from the checked run (`rep`, strands issued
/// to a non-empty queue) and the context run (`idle`, to an idle drive).
fn t1_note(rep: &super::strands::StrandReport, idle: &super::strands::StrandReport) -> String {
    let within: Vec<String> = Placement::ALL
        .iter()
        .map(|&p| {
            format!(
                "{} {} against {}",
                p.label(),
                t1_within(rep, p),
                t1_within(idle, p)
            )
        })
        .collect();
    let semi = |r| {
        [2, 4, 6, 8]
            .iter()
            .map(|&n| format!("{:.2}", t1_cell(r, Placement::SemiSequential, n)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let ratio = |r| t1_cell(r, Placement::ProximalWrite, 8) / t1_cell(r, Placement::Proximal, 8);
    let write_low = |r| {
        let pct: Vec<f64> = [2, 4, 6, 8]
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                (t1_cell(r, Placement::ProximalWrite, n)
                    / Placement::ProximalWrite.paper_table1()[i]
                    - 1.0)
                    * 100.0
            })
            .collect();
        let lo = pct.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = pct.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{lo:+.0} % to {hi:+.0} %")
    };
    let all_within = |r| {
        Placement::ALL
            .iter()
            .all(|&p| t1_within(r, p).starts_with("4 of"))
    };
    let neither = if all_within(rep) || all_within(idle) {
        ""
    } else {
        " Neither condition gives every row of the paper's table."
    };
    format!(
        "\n\nEvery cell is checked at ±10 %. The first table is the checked run: each strand is \
         queued at the drive as a whole, so its SPTF also chooses which request to serve \
         first, as on the paper's drive once a strand is \"issued to a non-empty disk queue\" \
         (section 2.5). The second table (context, not checked) runs the same strands \
         reaching an idle drive one request at a time: the drive starts the first to arrive, \
         the lowest LBN, before it sees the rest, and reorders only those, which is why the \
         paper's drives needed a non-empty queue to \"engage the request scheduler properly\". \
         Cells within 10 % of the paper's, non-empty queue against idle drive: {}.{}\n\n\
         Semi-sequential ({} ms at n = 2, 4, 6, 8 in the checked run; {} ms on an idle \
         drive). One semi-sequential step is the drive's 0.6 ms command turnaround plus one \
         transfer, about 0.63 ms, so six requests fit in the 4 ms revolution and close a ring \
         that SPTF may enter at any request; a seventh wraps past the first, the ring no \
         longer closes, and when the greedy SPTF enters the chain anywhere but at its first \
         request it waits most of a revolution to come back for those it skipped. The \
         paper's row adds 0.65-0.7 ms per request at every n, the same step without that \
         loss: a chain started at its head, as the idle drive starts it. The turnaround is \
         set by Appendix A's six requests per revolution, so we do not shorten it to close \
         the gap; the idle-drive run shows the row is reached when the chain starts at its \
         head, but the random placements then lose SPTF's choice of their first request and \
         their short strands come out long (proximal read of 2: {:.2} ms, track-approximate \
         of 2: {:.2} ms, paper 7.4).\n\n\
         Proximal writes: {} from the paper's row in the checked run ({} on an idle drive), \
         and the write/read ratio at 8 is {:.3} (paper 1.19; {:.3} on an idle drive). The \
         paper puts the difference down to \"additional write-settle time for track-to-track \
         seeks\": 20.4 - 17.1 ms over 8 requests is about 0.4 ms per request. The drive's \
         command turnaround is its floor on repositioning between commands, set from reads \
         (Appendix A's six per revolution); a write's 0.2 ms settle (the paper's single \
         requests: 5.8 ms a write, 5.6 ms a read) comes after that floor rather than under \
         it, so a write's step between tracks is about 0.83 ms, five per revolution where \
         reads fit six, and a write strand pays the settle and, past five requests, more \
         revolutions. (With the settle counted inside a seek that overlaps the turnaround, \
         the step grew only to about 0.68 ms and the write row came out 11-13 % low.) The \
         ratio at 8 lies near the lower edge of the paper's ±0.06, and other seeds put it \
         on either side.",
        within.join("; "),
        neither,
        semi(rep),
        semi(idle),
        t1_cell(idle, Placement::Proximal, 2),
        t1_cell(idle, Placement::TrackApproximate, 2),
        write_low(rep),
        write_low(idle),
        ratio(rep),
        ratio(idle),
    )
}

fn prox_f1(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let rep = strands(o, (1..=8).collect())?;
    let mut out = ExperimentOutput::new(
        "PROX-F1",
        "Per-request cost of small requests in a strand (Figure 1)",
        "Setup as PROX-T1 (above); each point is the strand time divided by the number of \
         requests, in OP (one random 4 KiB read at queue depth 1 on the same drive). The \
         proximal / semi-sequential ratio at 8 misses the paper's 1.7 mostly through the \
         semi-sequential strand, which loses a revolution from 7 requests on (PROX-T1 says \
         why: at our 0.63 ms step only six requests close a ring in one revolution).",
        o.seed,
    );
    let series = |p: Placement| Series {
        label: p.label().into(),
        points: rep
            .rows
            .iter()
            .filter(|r| r.placement == p)
            .map(|r| (r.requests as f64, r.per_request_op))
            .collect(),
    };
    out.plots.push(Plot {
        title: "Per-request service time in a strand (1 OP = one random request)".into(),
        x_label: "requests per strand".into(),
        y_label: "per-request time (OP)".into(),
        kind: PlotKind::Line,
        series: vec![
            series(Placement::SemiSequential),
            series(Placement::TrackApproximate),
            series(Placement::Proximal),
        ],
        log_x: false,
        // The paper's Table 1 strand times divided by n and by its 1 OP (5.6 ms).
        paper: [
            Placement::SemiSequential,
            Placement::TrackApproximate,
            Placement::Proximal,
        ]
        .into_iter()
        .map(|p| Series {
            label: format!("{}, paper (Table 1)", p.label()),
            points: [2usize, 4, 6, 8]
                .into_iter()
                .zip(p.paper_table1())
                .map(|(n, ms)| (n as f64, ms / n as f64 / 5.6))
                .collect(),
        })
        .collect(),
        x_categories: Vec::new(),
    });
    out.csv = "placement,requests,per_request_ms,per_request_op\n".into();
    for r in &rep.rows {
        let _ = writeln!(
            out.csv,
            "{},{},{:.6},{:.6}",
            r.placement.label(),
            r.requests,
            r.per_request_ms,
            r.per_request_op
        );
    }
    out.checks = rep
        .checks
        .iter()
        .filter(|c| c.id == "PROX-F1")
        .cloned()
        .collect();
    let get = |p: Placement, n: usize| {
        rep.rows
            .iter()
            .find(|r| r.placement == p && r.requests == n)
            .map(|r| r.per_request_op)
    };
    if let (Some(pr), Some(ss)) = (
        get(Placement::Proximal, 8),
        get(Placement::SemiSequential, 8),
    ) {
        out.checks.push(Check::absolute(
            "PROX-F1",
            "proximal / semi-sequential per-request cost at 8",
            1.7,
            pr / ss,
            0.25,
        ));
    }
    if let Some(one) = get(Placement::Proximal, 1) {
        out.checks.push(Check::absolute(
            "PROX-F1",
            "per-request cost at n = 1, OP",
            1.0,
            one,
            0.05,
        ).consistency("A strand of one request is one random request, and 1 OP is the time of one random request: equal by definition."));
    }
    for n in 1..=8 {
        if let (Some(t), Some(p)) = (
            get(Placement::TrackApproximate, n),
            get(Placement::Proximal, n),
        ) {
            out.checks.push(
                Check::relative(
                    "PROX-F1",
                    &format!("track-approximate vs proximal at n = {n}"),
                    p,
                    t,
                    0.05,
                )
                .reference("our proximal value (the paper: the two are similar)")
                .consistency_if(
                    n == 1,
                    "With one request the two placements are the same random request.",
                ),
            );
        }
    }
    Ok(out)
}

fn prox_f2(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "PROX-F2",
        "Strand of 8 with varying queue depth (Figure 2)",
        "A proximal strand of 8 reads on the Cheetah 15K.5 with only q requests outstanding at the \
         drive; the others wait at the host in ascending LBN order and enter as slots free \
         (the paper does not say where the others wait; we hold them at the host). Queue depth 1 is FIFO. Setup otherwise as PROX-T1.",
        o.seed,
    );
    let depths: Vec<u32> = (1..=8).collect();
    let trials = if o.quick { 300 } else { 3000 };
    let sweep = queue_depth_sweep(&preset("cheetah15k5")?, 8, &depths, trials, o.seed)
        .map_err(|e| e.to_string())?;
    let fifo = sweep.first().map(|s| s.1).unwrap_or(1.0);
    out.plots.push(Plot {
        title: "Per-request time, strand of 8".into(),
        x_label: "requests outstanding at the drive".into(),
        y_label: "per-request time (ms)".into(),
        kind: PlotKind::Line,
        series: vec![Series {
            label: "proximal".into(),
            points: sweep.iter().map(|(q, m, _)| (*q as f64, *m)).collect(),
        }],
        log_x: false,
        // The paper: 3.1 ms per request in FIFO order, 32 % less at queue depth 8.
        paper: vec![Series {
            label: "paper".into(),
            points: vec![(1.0, 3.1), (8.0, 3.1 * (1.0 - 0.32))],
        }],
        x_categories: Vec::new(),
    });
    out.csv = "queue_depth,per_request_ms,improvement_vs_fifo_pct\n".into();
    for (q, m, _) in &sweep {
        let _ = writeln!(out.csv, "{q},{m:.6},{:.3}", (1.0 - m / fifo) * 100.0);
    }
    let last = sweep.last().map(|s| s.1).unwrap_or(fifo);
    out.checks.push(Check::absolute(
        "PROX-F2",
        "reduction at queue depth 8 vs FIFO, %",
        32.0,
        (1.0 - last / fifo) * 100.0,
        6.0,
    ));
    out.checks.push(Check::relative(
        "PROX-F2",
        "FIFO per-request time, ms",
        3.1,
        fifo,
        0.10,
    ));
    // Non-increasing within sampling noise (1 %).
    let ok = sweep.windows(2).all(|w| w[1].1 <= w[0].1 * 1.01);
    out.checks.push(Check::holds(
        "PROX-F2",
        "per-request time non-increasing in queue depth (±1 %)",
        ok,
    ));
    Ok(out)
}

fn mimd_eq(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "MIMD-EQ",
        "MimdRAID seek-distance and rotational-delay formulas (EQ1–EQ7)",
        "Monte Carlo on the ST34502LW preset's geometry (MimdRAID's drive): mean seek distance for \
         one disk, D-way mirrors with independent layouts, D-way splits of the zoned disk and \
         replicated splits; mean rotational delay for one copy, D random and D evenly spaced \
         replicas. Heads and targets independent and uniform, as the formulas assume.",
        o.seed,
    );
    let samples = if o.quick { 100_000 } else { 1_000_000 };
    let rep = mimd_equations(&preset("st34502lw")?, &[1, 2, 4, 8, 12], samples, o.seed)
        .map_err(|e| e.to_string())?;
    out.checks = rep.checks.clone();
    out.csv = "d,mirror,split,replicated_split,random_replicas,even_replicas\n".into();
    for r in &rep.rows {
        let _ = writeln!(
            out.csv,
            "{},{:.6},{:.6},{:.6},{:.6},{:.6}",
            r.d, r.mirror, r.split, r.replicated_split, r.random_replicas, r.even_replicas
        );
    }
    let pts = |f: &dyn Fn(&super::mimd_eq::EqRow) -> f64| {
        rep.rows.iter().map(|r| (r.d as f64, f(r))).collect()
    };
    out.plots.push(Plot {
        title: "Seek distance (fraction of S)".into(),
        x_label: "D".into(),
        y_label: "mean seek distance / S".into(),
        kind: PlotKind::Line,
        series: vec![
            Series {
                label: "mirror (uniform Monte Carlo)".into(),
                points: pts(&|r| r.mirror),
            },
            Series {
                label: "split (disk model's zones)".into(),
                points: pts(&|r| r.split),
            },
        ],
        log_x: false,
        paper: vec![
            Series {
                label: "paper: mirror S/(2D+1)".into(),
                points: pts(&|r| 1.0 / (2.0 * r.d as f64 + 1.0)),
            },
            Series {
                label: "paper: split S/(3D)".into(),
                points: pts(&|r| 1.0 / (3.0 * r.d as f64)),
            },
        ],
        x_categories: Vec::new(),
    });
    out.plots.push(Plot {
        title: "Rotational delay (fraction of R)".into(),
        x_label: "D".into(),
        y_label: "mean rotational delay / R".into(),
        kind: PlotKind::Line,
        series: vec![
            Series {
                label: "random replicas (uniform Monte Carlo)".into(),
                points: pts(&|r| r.random_replicas),
            },
            Series {
                label: "even replicas (uniform Monte Carlo)".into(),
                points: pts(&|r| r.even_replicas),
            },
        ],
        log_x: false,
        paper: vec![
            Series {
                label: "paper: random R/(D+1)".into(),
                points: pts(&|r| 1.0 / (r.d as f64 + 1.0)),
            },
            Series {
                label: "paper: even R/(2D)".into(),
                points: pts(&|r| 1.0 / (2.0 * r.d as f64)),
            },
        ],
        x_categories: Vec::new(),
    });
    Ok(out)
}

/// The built-in HP trace.
fn hplajw() -> Result<Vec<IoRecord>, String> {
    crate::trace::resolve("sample:hplajw").map_err(|e| e.to_string())
}

fn hplajw_disksim(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "HPLAJW-DISKSIM",
        "The HP hplajw trace under DiskSim's configuration",
        "The week-long HP trace (44,519 requests) replayed open-loop on DiskSim's own configuration \
         for it (data/traces/hplajw.parv): two HP C2249A disks, SSTF on LBN distance at the host, one \
         request outstanding per disk. The trace's 256-byte-sector block numbers go unchanged to \
         512-byte LBNs, as in DiskSim. Two sources disagree on DiskSim's result: runs of stock DiskSim 4.0 give 48.785633 ms; \
         the README of the bundled data gives 45.578 ms without saying how it was obtained. We \
         compare with the value from DiskSim runs, within 2 %, and show the README's value \
         beside it as context (a consistency check, not counted).",
        o.seed,
    );
    let recs = hplajw()?;
    let disk = preset("hp-c2249a")?;
    let spec = StackSpec {
        disks: vec![disk.clone(), disk.clone()],
        ..StackSpec::one_disk(disk, SchedulerKind::Sstf)
    };
    let r = simulate(&spec, Source::records(&recs), &mut |_| {}).map_err(|e| e.to_string())?;
    let m = &r.metrics;
    out.checks.push(
        Check::relative(
            "HPLAJW-DISKSIM",
            "requests replayed",
            44_519.0,
            m.requests as f64,
            0.0,
        )
        .consistency("Structural: counts the requests read from the bundled trace."),
    );
    out.checks.push(Check::relative(
        "HPLAJW-DISKSIM",
        "mean response time, ms (DiskSim 4.0: 48.785633)",
        48.785633,
        m.mean_response_ms,
        0.02,
    ));
    out.checks.push(Check::relative(
        "HPLAJW-DISKSIM",
        "mean response time, ms, against the data README's 45.578 (context)",
        45.578,
        m.mean_response_ms,
        0.10,
    ).consistency("Context only: the data README's value has no stated provenance, so it is shown beside the reference value, not counted."));
    out.csv = format!(
        "requests,mean_response_ms,p50_ms,p90_ms,p99_ms,mean_service_ms,makespan_s\n{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.3}\n",
        m.requests, m.mean_response_ms, m.p50_response_ms, m.p90_response_ms, m.p99_response_ms, m.mean_service_ms, m.makespan_ms / 1000.0
    );
    out.plots.push(Plot {
        title: "hplajw response-time distribution (2 × HP C2249A, SSTF)".into(),
        x_label: "response time (ms)".into(),
        y_label: "fraction of requests".into(),
        kind: PlotKind::Step,
        series: vec![Series {
            label: "spindle".into(),
            points: m.cdf.clone(),
        }],
        log_x: true,
        paper: Vec::new(),
        x_categories: Vec::new(),
    });
    Ok(out)
}

fn mimic_f3_2(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let samples = if o.quick { 10 } else { 100 };
    let mut out = ExperimentOutput::new(
        "MIMIC-F3.2",
        "Schedulers and SMTF summary metrics against trace compression (Figure 3.2)",
        format!(
            "The thesis's base disk (Table 3.1 #1) serving the busiest disk of the week-long HP \
             trace (device 0, 42,252 requests), compressed in time by a factor, with a request to \
             blocks that earlier unfinished requests touch held until they complete. One request \
             outstanding at the drive; the host picks with FCFS, SSTF, C-LOOK, greedy-optimal (the simulator's exact positioning time) or SMTF under each \
             summary metric. SMTF's Disk Mimic is configured off-line by probing an identical drive \
             of its own ({samples} samples per distance, no interpolation, 2-sector probes after a \
             random access); it sees only request and completion times. Metric: total time the \
             disk spent serving."
        ),
        o.seed,
    );
    let all = hplajw()?;
    let recs: Vec<IoRecord> = all.into_iter().filter(|r| r.device == 0).collect();
    let factors: Vec<f64> = if o.quick {
        vec![20.0]
    } else {
        vec![5.0, 10.0, 20.0, 30.0]
    };
    let mut scheds = vec![
        SchedulerKind::Fcfs,
        SchedulerKind::Sstf,
        SchedulerKind::CLook,
        SchedulerKind::Greedy,
    ];
    scheds.extend(Metric::ALL.iter().map(|&m| SchedulerKind::Smtf(m)));
    let disk = preset("mimic-base")?;
    let mut results: Vec<(f64, SchedulerKind, f64)> = Vec::new();
    for &f in &factors {
        let compressed = crate::workload::compress(&recs, f);
        for &s in &scheds {
            // The summary-metric comparison is made at compression 20, as in the thesis.
            if matches!(s, SchedulerKind::Smtf(m) if m != Metric::Mean) && f != 20.0 {
                continue;
            }
            let spec = StackSpec {
                hold_overlapping: true,
                mimic_samples: samples,
                ..StackSpec::one_disk(disk.clone(), s)
            };
            let r = simulate(&spec, Source::records(&compressed), &mut |_| {})
                .map_err(|e| e.to_string())?;
            results.push((f, s, r.metrics.total_disk_time_ms / 1000.0));
        }
    }
    out.csv = "compression,scheduler,time_at_disk_s\n".into();
    for (f, s, t) in &results {
        let _ = writeln!(out.csv, "{f},{},{t:.6}", s.name());
    }
    out.plots.push(Plot {
        title: "Time at the disk vs compression (mimic-base, hplajw device 0)".into(),
        x_label: "compression factor".into(),
        y_label: "time at the disk (s)".into(),
        kind: if factors.len() > 1 {
            PlotKind::Line
        } else {
            PlotKind::Points
        },
        series: scheds
            .iter()
            .filter(|s| !matches!(s, SchedulerKind::Smtf(m) if *m != Metric::Mean))
            .map(|s| Series {
                label: s.name(),
                points: results
                    .iter()
                    .filter(|r| r.1 == *s)
                    .map(|r| (r.0, r.2))
                    .collect(),
            })
            .collect(),
        log_x: false,
        paper: Vec::new(),
        x_categories: Vec::new(),
    });
    let t = |f: f64, s: SchedulerKind| {
        results
            .iter()
            .find(|r| r.0 == f && r.1 == s)
            .map(|r| r.2)
            .unwrap_or(f64::NAN)
    };
    let holds = |ok: bool, metric: String| Check::holds("MIMIC-F3.2", &metric, ok);
    for &f in &factors {
        let (fcfs, sstf, clook, greedy) = (
            t(f, SchedulerKind::Fcfs),
            t(f, SchedulerKind::Sstf),
            t(f, SchedulerKind::CLook),
            t(f, SchedulerKind::Greedy),
        );
        let smtf = t(f, SchedulerKind::Smtf(Metric::Mean));
        out.checks.push(holds(
            greedy < sstf.min(clook),
            format!("compression {f}: greedy ({greedy:.1} s) below SSTF ({sstf:.1}) and C-LOOK ({clook:.1})"),
        ));
        out.checks.push(holds(
            sstf.max(clook) < fcfs,
            format!("compression {f}: SSTF and C-LOOK below FCFS ({fcfs:.1} s)"),
        ));
        out.checks.push(holds(
            smtf < fcfs.min(sstf).min(clook),
            format!("compression {f}: SMTF-mean ({smtf:.1} s) below FCFS, SSTF and C-LOOK"),
        ));
        out.checks.push(Check::below(
            "MIMIC-F3.2",
            &format!("compression {f}: SMTF-mean / greedy-optimal (≤ 1.07 + 2 pp)"),
            1.09 + 1e-12,
            smtf / greedy,
        ));
    }
    // Summary metrics at compression 20: mean, median, max, probabilistic, min.
    let order = [
        Metric::Mean,
        Metric::Median,
        Metric::Max,
        Metric::Probabilistic,
        Metric::Min,
    ];
    let base = t(20.0, SchedulerKind::Fcfs)
        .min(t(20.0, SchedulerKind::Sstf))
        .min(t(20.0, SchedulerKind::CLook));
    for m in order.into_iter().skip(1) {
        let v = t(20.0, SchedulerKind::Smtf(m));
        out.checks.push(holds(
            v < base,
            format!(
                "compression 20: SMTF-{} ({v:.1} s) below FCFS, SSTF and C-LOOK",
                m.name()
            ),
        ));
    }
    for w in order.windows(2) {
        let (a, b) = (
            t(20.0, SchedulerKind::Smtf(w[0])),
            t(20.0, SchedulerKind::Smtf(w[1])),
        );
        out.checks.push(holds(
            a <= b * 1.01,
            format!(
                "compression 20: SMTF-{} ({a:.1} s) no slower than SMTF-{} ({b:.1} s), ±1 %",
                w[0].name(),
                w[1].name()
            ),
        ));
    }
    Ok(out)
}
