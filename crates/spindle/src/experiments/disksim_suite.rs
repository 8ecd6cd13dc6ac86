//! DISKSIM-SUITE: DiskSim's eight synthetic `valid/` configurations run on spindle
//! and compared with DiskSim's own figures for them (measured with the built DiskSim;
//! kept with their source in `data/disksim/suite-figures.tsv`).

use super::Check;
use crate::disksim::suite_files::{load_suite_system, suite_file};
use crate::disksim::system::{run_system, unit_names, SystemResult};
use crate::report::{ExperimentOutput, Table};
use std::collections::BTreeMap;
use std::fmt::Write as _;

const ID: &str = "DISKSIM-SUITE";
/// The seeds whose spread the checks use; 42 is shown beside them.
const SEEDS: [u64; 5] = [11, 23, 37, 51, 77];
/// DiskSim's spread widened by this fraction on each side.
const WIDEN: f64 = 0.02;
/// synthmixed's mean varies a lot with the seed: within this fraction of DiskSim's
/// five-seed mean instead.
const MIXED_TOL: f64 = 0.15;

/// One row of a figures file: its key columns (the configuration, and in the units
/// file the unit's kind and name) and DiskSim's mean per seed.
#[derive(Debug)]
struct Figures {
    config: String,
    keys: Vec<String>,
    seed42: f64,
    others: Vec<f64>,
}

impl Figures {
    /// DiskSim's range over the five seeds and their mean.
    fn spread(&self) -> (f64, f64, f64) {
        let lo = self.others.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self
            .others
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let mean = self.others.iter().sum::<f64>() / self.others.len() as f64;
        (lo, hi, mean)
    }
}

fn read_figures(text: &str) -> Result<Vec<Figures>, String> {
    read_seed_table(text, "suite-figures.tsv", 1)
}

/// Reads a tab-separated table of `keys` key columns then one column per seed (a
/// header row names the seeds: 42, then [`SEEDS`]); `#` lines are comments.
fn read_seed_table(text: &str, file: &str, keys: usize) -> Result<Vec<Figures>, String> {
    let mut out = Vec::new();
    let mut header: Option<Vec<u64>> = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let Some(seeds) = &header else {
            let s = cols
                .get(keys..)
                .unwrap_or_default()
                .iter()
                .map(|c| c.parse::<u64>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("{file}:{}: seed header: {e}", n + 1))?;
            if s.first() != Some(&42) || s[1..] != SEEDS {
                return Err(format!("{file}:{}: seeds must be 42 then {SEEDS:?}", n + 1));
            }
            header = Some(s);
            continue;
        };
        if cols.len() != seeds.len() + keys {
            return Err(format!(
                "{file}:{}: expected {} columns, got {}",
                n + 1,
                seeds.len() + keys,
                cols.len()
            ));
        }
        let v = cols[keys..]
            .iter()
            .map(|c| c.parse::<f64>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{file}:{}: {e}", n + 1))?;
        out.push(Figures {
            config: cols[0].to_string(),
            keys: cols[..keys].iter().map(|c| c.to_string()).collect(),
            seed42: v[0],
            others: v[1..].to_vec(),
        });
    }
    Ok(out)
}

pub fn disksim_suite(o: &super::options::RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        ID,
        "DiskSim's synthetic test configurations",
        "DiskSim's eight synthetic configurations from its valid/ directory (synth*.parv), each \
         imported whole (topology, driver queue, logorgs, process-flow processors, synthetic \
         generator) and run on spindle with seeds 11, 23, 37, 51 and 77; the figure is DiskSim's \
         'Overall I/O System Response time average' over the requests completed when the generator \
         stops. DiskSim's figures were measured with DiskSim v2.01.016 (WD fork, -O2) on the same \
         files and seeds (data/disksim/suite-figures.tsv). The generators draw DiskSim's own \
         random numbers: its drand48 stream, seeded with the run's seed for each generator's first \
         request and then, as DiskSim reseeds when its run starts, with DiskSim's fixed seed \
         1000003, in DiskSim's order of draws; both tools thus issue the same requests, and the seed \
         changes only each generator's first one (hence DiskSim's narrow spread over seeds, except \
         where, as in synthmixed, closed-loop timing lets a small change grow). The bar: spindle's five-seed mean within \
         DiskSim's five-seed range widened by 2 % on each side (synthmixed: within 15 % of DiskSim's \
         five-seed mean, its spread being wide). Configurations spindle cannot represent yet are listed with \
         the importer's reason. Arrays: DiskSim's Array logorgs run on spindle's timing arrays \
         (Striped Noredun = RAID-0, Parity_disk = RAID-4, Parity_rotated type 1 = RAID-5 \
         left-symmetric, same stripe unit, each disk behind its driver queue), with DiskSim's \
         parity update: per row read-modify-write below `RMW vs. reconstruct` x devices units \
         touched, reconstruct-write from there, DiskSim's parity spans and joins of member requests \
         32 sectors apart; a write follows its own member's reads (a parity write its row's too), \
         and a write that follows its own read reaches that disk's driver queue before the queue \
         chooses again, its C-LOOK sweeping from the last request's start (DiskSim's CYCLE_LBN). \
         syntharrays' generator names member disks: as in DiskSim, device number d goes to the \
         Array logorg in slot d (org0..org3). Buses: an exclusive bus (type 1) several disks \
         hang on is shared as DiskSim's disks use it (syntharrays puts each array's four disks on \
         one): a command reaches its disk once the bus is free and the disk keeps the bus through \
         its command overhead (a write also through its data), then reconnects for read data and \
         completions, waiting again; when the bus frees, the highest slot among those waiting has \
         it (DiskSim's slot priority), and so among requests made at one instant on a free bus. \
         DiskSim grants a free bus to its first caller, but its disks keep their rotational angle in \
         fixed point and drift apart (in syntharrays the RAID-4's data disks lag by 55-66 us after \
         50 s, its parity disk by 28 us), so two disks ending the same sector seldom ask at one \
         instant; spindle's angles are exact, such requests meet, and the bus arbitrates them by \
         priority as SCSI does. An array's member requests issued at one instant reach their disks \
         in DiskSim's order: its driver queues them in the logorg's list order and starts those for \
         idle disks last-in first; writes released by one read's completion arrive disks \
         descending. Disk buffers: every segment serves reads and writes \
         (DiskSim ignores `Use separate write segment`), and a write never takes the segment being \
         read ahead into, which keeps its data (DiskSim's write-segment choice). Intelligent \
         controllers (type 3) and their caches: the driver keeps one request at the controller \
         (`Maximum queue length = 0`), the controller one at each disk through its own C-LOOK \
         queue. synthcachemem's disksim_cachemem is DiskSim's: 128 fully associative lines of 64 \
         sectors, a valid and a dirty bit per sector, least recently used replaced first, \
         write-back; a read fetches only the sectors it lacks, a write completes once its lines \
         are allocated, and a replaced dirty line is written back first (each stretch of valid \
         sectors one write, extended into adjacent lines' dirty data up to 8 lines) while the \
         request waits. synthcachedev's disksim_cachedev is DiskSim's too: the second disk caches \
         the first at the same addresses; writes go to it, a read is served there only when all \
         its sectors are valid, a read miss is copied there after it completes, and after 100 ms \
         with the cached disk's queue empty the lowest dirty run is copied back, run after run. \
         Not modelled: the controller queue's joining of sequential requests (DiskSim's \
         `Sequential stream scheme`), which needs adjacent requests waiting at once for a disk: \
         synthcachemem's controller queue holds a second request only while a replaced line is \
         written back in pieces, which are never adjacent; synthcachedev's cache disk can hold a \
         population write beside a host request. Per array and per disk, for the two \
         configurations with several: DiskSim's 'System logorg #n' and 'IOdriver #0 device #n' \
         response averages (data/disksim/suite-units.tsv, same runs and seeds) against the same five \
         spindle runs, each array a check and each configuration's disks one check (met when every \
         disk is in range); spindle's per-disk figure is a member request's time at its driver \
         queue and disk, counting every member request completed, including the few that finish \
         after the generator's stop, which DiskSim leaves out.",
        o.seed,
    );
    let text = suite_file("suite-figures.tsv").ok_or("suite-figures.tsv is not built in")?;
    let figures = read_figures(text)?;
    let mut table = Table::new(&[
        "configuration",
        "spindle, 5-seed mean ms",
        "spindle, seed 42 ms",
        "DiskSim, 5-seed mean ms",
        "DiskSim, 5-seed range ms",
        "DiskSim, seed 42 ms",
        "status",
    ]);
    out.csv = "config,spindle_mean_ms,spindle_seed42_ms,disksim_mean_ms,disksim_min_ms,disksim_max_ms,disksim_seed42_ms,status\n".into();
    // Each configuration's five runs, for the per-unit comparison below.
    let mut runs: BTreeMap<String, (Vec<String>, Vec<SystemResult>)> = BTreeMap::new();
    for f in &figures {
        let (lo, hi, ds_mean) = f.spread();
        let sys = match load_suite_system(&f.config) {
            Ok(s) => s,
            Err(e) => {
                // The importer's reason, naming the file.
                let why = e.to_string();
                let status = format!("not supported: {}", why.trim());
                table.rows.push(vec![
                    f.config.clone(),
                    "-".into(),
                    "-".into(),
                    format!("{ds_mean:.3}"),
                    format!("{lo:.3}–{hi:.3}"),
                    format!("{:.3}", f.seed42),
                    status.clone(),
                ]);
                let _ = writeln!(
                    out.csv,
                    "{},,,{ds_mean:.6},{lo:.6},{hi:.6},{:.6},\"{}\"",
                    f.config,
                    f.seed42,
                    status.replace('"', "'")
                );
                continue;
            }
        };
        let results = SEEDS
            .iter()
            .map(|&s| run_system(&sys, s))
            .collect::<Result<Vec<_>, _>>()?;
        let mean = results.iter().map(|r| r.mean_ms).sum::<f64>() / results.len() as f64;
        runs.insert(f.config.clone(), (unit_names(&sys), results));
        let at42 = run_system(&sys, 42)?.mean_ms;
        let relative = f.config == "synthmixed";
        let check = if relative {
            Check::relative(
                ID,
                &format!("{}: 5-seed mean response (ms) vs DiskSim's", f.config),
                ds_mean,
                mean,
                MIXED_TOL,
            )
        } else {
            Check::range(
                ID,
                &format!(
                    "{}: 5-seed mean response (ms) within DiskSim's range ±2 %",
                    f.config
                ),
                lo * (1.0 - WIDEN),
                hi * (1.0 + WIDEN),
                mean,
            )
        }
        .reference("DiskSim's own figure on the same file (measured with the built DiskSim)");
        let status = if check.pass { "met" } else { "MISS" };
        out.checks.push(check);
        table.rows.push(vec![
            f.config.clone(),
            format!("{mean:.3}"),
            format!("{at42:.3}"),
            format!("{ds_mean:.3}"),
            format!("{lo:.3}–{hi:.3}"),
            format!("{:.3}", f.seed42),
            status.into(),
        ]);
        let _ = writeln!(
            out.csv,
            "{},{mean:.6},{at42:.6},{ds_mean:.6},{lo:.6},{hi:.6},{:.6},{status}",
            f.config, f.seed42
        );
    }
    out.tables.push(table);
    per_unit(&mut out, &runs)?;
    Ok(out)
}

/// The per-array and per-disk figures DiskSim prints beside the overall one, for the
/// configurations with several (data/disksim/suite-units.tsv), against the same runs:
/// each array a check of its own; a configuration's disks one check, met when every
/// disk is within DiskSim's range widened by 2 %.
fn per_unit(
    out: &mut ExperimentOutput,
    runs: &BTreeMap<String, (Vec<String>, Vec<SystemResult>)>,
) -> Result<(), String> {
    let file = "suite-units.tsv";
    let text = suite_file(file).ok_or("suite-units.tsv is not built in")?;
    let rows = read_seed_table(text, file, 3)?;
    let mut table = Table::new(&[
        "configuration",
        "unit",
        "spindle, 5-seed mean ms",
        "DiskSim, 5-seed mean ms",
        "DiskSim, 5-seed range ms",
        "status",
    ]);
    // Per configuration: disks within range, disks compared, the worst miss.
    let mut disks: BTreeMap<&str, (usize, usize, Vec<String>)> = BTreeMap::new();
    for f in &rows {
        let Some((units, results)) = runs.get(&f.config) else {
            continue; // a configuration spindle refused: shown above
        };
        let (kind, unit) = (f.keys[1].as_str(), f.keys[2].as_str());
        let ours: Vec<f64> = match kind {
            "array" => {
                let i = units
                    .iter()
                    .position(|u| u == unit)
                    .ok_or_else(|| format!("{file}: {} has no array `{unit}`", f.config))?;
                results.iter().map(|r| r.per_device_ms[i]).collect()
            }
            "disk" => results
                .iter()
                .map(|r| {
                    r.per_disk
                        .iter()
                        .find(|(d, _, _)| d == unit)
                        .map(|&(_, _, ms)| ms)
                        .ok_or_else(|| format!("{file}: {} has no disk `{unit}`", f.config))
                })
                .collect::<Result<_, _>>()?,
            other => return Err(format!("{file}: unknown kind `{other}` (array or disk)")),
        };
        let mean = ours.iter().sum::<f64>() / ours.len() as f64;
        let (lo, hi, ds_mean) = f.spread();
        let (lo_w, hi_w) = (lo * (1.0 - WIDEN), hi * (1.0 + WIDEN));
        let within = (lo_w..=hi_w).contains(&mean);
        if kind == "array" {
            out.checks.push(
                Check::range(
                    ID,
                    &format!(
                        "{} array {unit}: 5-seed mean response (ms) within DiskSim's range ±2 %",
                        f.config
                    ),
                    lo_w,
                    hi_w,
                    mean,
                )
                .reference("DiskSim's per-logorg figure on the same file (measured with the built DiskSim)"),
            );
        } else {
            let e = disks.entry(f.config.as_str()).or_default();
            e.1 += 1;
            if within {
                e.0 += 1;
            } else {
                e.2.push(format!("{unit} {mean:.2} vs {lo:.2}–{hi:.2}"));
            }
        }
        let status = if within { "met" } else { "MISS" };
        table.rows.push(vec![
            f.config.clone(),
            format!("{kind} {unit}"),
            format!("{mean:.3}"),
            format!("{ds_mean:.3}"),
            format!("{lo:.3}–{hi:.3}"),
            status.into(),
        ]);
    }
    for (config, (ok, n, missed)) in disks {
        let mut what = "DiskSim's per-device (IOdriver) figures on the same file".to_string();
        if !missed.is_empty() {
            what += &format!("; outside: {}", missed.join("; "));
        }
        out.checks.push(
            Check::range(
                ID,
                &format!(
                    "{config}: disks whose 5-seed mean driver-queue response is within DiskSim's range ±2 % (of {n})"
                ),
                n as f64,
                n as f64,
                ok as f64,
            )
            .reference(&what),
        );
    }
    out.tables.push(table);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figures_file_reads_and_bad_rows_are_refused() {
        let text = suite_file("suite-figures.tsv").expect("bundled");
        let f = read_figures(text).expect("reads");
        assert_eq!(f.len(), 8);
        assert!(f.iter().all(|r| r.others.len() == 5 && r.seed42 > 0.0));
        let bad = "config\t42\t11\t23\t37\t51\t77\nsynthopen\t1\t2\n";
        assert!(read_figures(bad).unwrap_err().contains("columns"));
        let bad = "config\t1\t2\nx\t1\t2\n";
        assert!(read_figures(bad).unwrap_err().contains("seeds"));
    }
}
