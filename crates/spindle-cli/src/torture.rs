//! `spindle torture`: a seeded fault campaign over a byte-exact stack (see
//! [`spindle::array::torture`]), from the command line.

use crate::disks::load_disk;
use crate::limits;
use crate::progress::Progress;
use crate::raid::WrongData;
use crate::table::{Align, Table};
use anyhow::{anyhow, bail, Result};
use serde::Deserialize;
use spindle::array::torture::{
    run_torture, TortureConfig, TortureReport, TortureStack, MAX_TORTURE_OPS, MAX_TORTURE_SPAN,
};
use spindle::layout::torture::{run_dle_torture, DleTortureConfig};
use spindle::stack::faults::{faults_line, FaultSpec};
use spindle::stack::journal::MAX_LOG_MIB;
use spindle::stack::journal_torture::{run_journal_torture, JournalTortureConfig};
use spindle::stack::tree::DeviceSpec;
use std::path::Path;

/// Fault rates from the command line: each kind's own flag, else `--rate`, else 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rates {
    pub rate: Option<f64>,
    pub lost: Option<f64>,
    pub misdirected: Option<f64>,
    pub torn: Option<f64>,
    pub flips: Option<f64>,
    pub fail: Option<f64>,
    pub crash: Option<f64>,
}

impl Rates {
    fn get(&self, name: &str, own: Option<f64>) -> Result<f64> {
        let p = own.or(self.rate).unwrap_or(0.0);
        // Name the flag the value came from.
        let flag = if own.is_some() { name } else { "rate" };
        spindle::show::probabilities(&[(&format!("--{flag}"), p)]).map_err(|e| anyhow!(e))?;
        Ok(p)
    }

    /// The members' faults, and the campaign's failure and crash rates.
    fn resolve(&self) -> Result<(FaultSpec, f64, f64)> {
        let f = FaultSpec {
            lost: self.get("lost", self.lost)?,
            misdirected: self.get("misdirected", self.misdirected)?,
            torn: self.get("torn", self.torn)?,
            flips: self.get("flips", self.flips)?,
            ..FaultSpec::default()
        };
        f.validate("--rate").map_err(|e| anyhow!("{e}"))?;
        Ok((
            f,
            self.get("fail", self.fail)?,
            self.get("crash", self.crash)?,
        ))
    }
}

/// The journal's options (`--array journal`).
#[derive(Clone, Copy, Debug)]
pub struct JournalArgs {
    pub checksum: bool,
    pub skip: bool,
    pub log_mib: u64,
}

/// The command's options.
#[derive(Clone, Debug)]
pub struct TortureArgs {
    pub stack: Option<std::path::PathBuf>,
    pub array: String,
    pub members: usize,
    pub disk: Option<String>,
    pub stripe_unit_kib: u64,
    pub journal: JournalArgs,
    pub config: TortureConfig,
    pub json: bool,
}

/// The part of a stack file the campaign reads: its `[device]` tree (the keys of
/// `spindle run`'s TOML; a run file works as it is).
#[derive(Deserialize)]
struct StackFile {
    device: Option<DeviceSpec>,
    layout: Option<toml::Value>,
    layer: Option<toml::Value>,
}

fn stack_from_file(path: &Path, default: &FaultSpec) -> Result<TortureStack> {
    let file = path.display().to_string();
    let text = limits::read_text(path, limits::MAX_CONFIG_BYTES)?;
    let parsed: StackFile = toml::from_str(&text).map_err(|e| anyhow!("{file}: {e}"))?;
    if parsed.layout.is_some() || parsed.layer.is_some() {
        bail!(
            "{file}: torture runs the [device] tree only: the layout engine ([layout]) and [[layer]]s are not wired to the campaign yet"
        );
    }
    let Some(device) = parsed.device else {
        bail!("{file}: no [device]: torture needs a byte-exact array (kind = \"raid4\", \"raid1\" or \"mirror\")");
    };
    TortureStack::from_device(&device, default).map_err(|e| {
        // Name the line of the faults table when the error is about one.
        match faults_line(&text).filter(|_| e.contains(".faults")) {
            Some(line) => anyhow!("{file}:{line}: {e}"),
            None => anyhow!("{file}: {e}"),
        }
    })
}

/// Runs the campaign. Fails with `WrongData` (after the report) if any read returned
/// wrong bytes.
pub fn torture(a: &TortureArgs, rates: &Rates) -> Result<String> {
    if a.array == "journal" && a.stack.is_none() {
        return journal(a, rates);
    }
    if a.array == "dle" && a.stack.is_none() {
        return dle(a, rates);
    }
    let disk_name = a.disk.clone().unwrap_or_else(|| "wd-re3".into());
    let (faults, fail, crash) = rates.resolve()?;
    let mut c = a.config.clone();
    c.fail = fail;
    c.crash = crash;
    limits::count("--ops", c.ops as u64, MAX_TORTURE_OPS as u64)?;
    limits::count("--span", c.span_blocks, MAX_TORTURE_SPAN)?;
    let stack = match &a.stack {
        Some(path) => stack_from_file(path, &faults)?,
        None => {
            limits::count("--members", a.members as u64, 16)?;
            let disk = load_disk(&disk_name)?.params;
            match a.array.as_str() {
                "raid4" => {
                    if a.members < 2 {
                        bail!(
                            "--members must be at least 2 for a raid4, got {}",
                            a.members
                        );
                    }
                    if a.stripe_unit_kib == 0 || !a.stripe_unit_kib.is_multiple_of(4) {
                        bail!(
                            "--stripe-unit-kib must be a positive multiple of 4, got {}",
                            a.stripe_unit_kib
                        );
                    }
                    TortureStack::raid4(disk, a.members - 1, a.stripe_unit_kib / 4, &faults)
                }
                "mirror" => {
                    let spec = DeviceSpec::Mirror(spindle::stack::tree::ArraySpec::of(
                        a.members as u32,
                        DeviceSpec::Disk(spindle::stack::tree::DiskSpec::new(&disk_name)),
                    ));
                    TortureStack::from_device(&spec, &faults).map_err(|e| {
                        anyhow!("{e} (the command-line rates apply to every member)")
                    })?
                }
                other => bail!("--array must be raid4, mirror or journal, got `{other}`"),
            }
        }
    };
    if c.crash > 0.0 && matches!(stack.shape, spindle::array::torture::Shape::Mirror { .. }) {
        bail!("--crash: the byte-exact mirror has no crash resync yet (use a raid4)");
    }
    let mut bar = Progress::new(c.ops as u64, "torture");
    let r =
        run_torture(&stack, &c, &mut |done| bar.step(done as u64)).map_err(|e| anyhow!("{e}"))?;
    bar.finish();
    let report = render(&r, &c, a.json)?;
    fail_on_wrong_data(report, r.wrong_reads)
}

/// `--array dle`: the data layout engine over a faulty RAID-4 with flash staging.
fn dle(a: &TortureArgs, rates: &Rates) -> Result<String> {
    let (faults, fail, crash) = rates.resolve()?;
    limits::count("--ops", a.config.ops as u64, MAX_TORTURE_OPS as u64)?;
    limits::count("--span", a.config.span_blocks, 8 * 4096)?;
    if a.config.span_blocks < 8 {
        bail!(
            "--span must be at least 8 blocks (8 extents), got {}",
            a.config.span_blocks
        );
    }
    let disk = load_disk(a.disk.as_deref().unwrap_or("wd-re3"))?.params;
    let flash = spindle::flash::presets::preset("x25m-g2").map_err(|e| anyhow!("{e}"))?;
    let c = DleTortureConfig {
        seed: a.config.seed,
        ops: a.config.ops,
        extent_blocks: a.config.span_blocks / 8,
        faults,
        fail,
        crash,
        replace_after: a.config.replace_after,
        scrub_every: a.config.scrub_every,
    };
    let mut bar = Progress::new(c.ops as u64, "torture");
    let r = run_dle_torture(&disk, &flash, &c, &mut |done| bar.step(done as u64))
        .map_err(|e| anyhow!("{e}"))?;
    bar.finish();
    let report = if a.json {
        serde_json::to_string_pretty(&r)? + "\n"
    } else {
        let s = counts_table(&[
            ("lost writes injected", r.lost_writes),
            ("misdirected writes injected", r.misdirected_writes),
            ("torn writes injected", r.torn_writes),
            ("bit flips injected", r.bit_flips),
            ("drive failures", r.drive_failures),
            ("rebuilds completed", r.rebuilds),
            ("power cuts", r.power_cuts),
            ("recoveries", r.recoveries),
            ("destages", r.destages),
            ("destages refused (unrecoverable)", r.destages_refused),
            ("writes refused (unrecoverable)", r.writes_refused),
            ("detections by the array", r.detections),
            ("scrubs", r.scrubs),
            ("reads right", r.reads_right),
            ("reads refused (unrecoverable)", r.reads_refused),
            ("final read-back right", r.final_reads_right),
            ("final read-back refused", r.final_reads_refused),
            ("WRONG READS", r.wrong_reads),
            ("WRONG BYTES (must be 0)", r.wrong_bytes),
        ]);
        format!(
            "{} operations on a {} over 8 extents of {} blocks (seed {}), {:.1} s simulated:\n{}",
            r.ops,
            r.stack,
            c.extent_blocks,
            r.seed,
            r.simulated_s,
            s.render()
        )
    };
    fail_on_wrong_data(report, r.wrong_reads)
}

/// `--array journal`: power cuts and write faults over the data journal on one drive.
fn journal(a: &TortureArgs, rates: &Rates) -> Result<String> {
    // --rate sets every kind the journal takes; drive failure only by its own flag.
    if rates.fail.is_some_and(|p| p != 0.0) {
        bail!(
            "--fail: the journal on one drive cannot survive a drive failure: one drive holds one copy, with nothing to rebuild from (put the journal over a redundant array for that); --array journal takes --crash, --lost, --misdirected, --torn and --flips"
        );
    }
    let crash = rates.get("crash", rates.crash)?;
    limits::count("--ops", a.config.ops as u64, MAX_TORTURE_OPS as u64)?;
    limits::count("--span", a.config.span_blocks, MAX_TORTURE_SPAN)?;
    limits::count("--log-mib", a.journal.log_mib, MAX_LOG_MIB)?;
    let disk = load_disk(a.disk.as_deref().unwrap_or("mimic-9lzx"))?.params;
    let c = JournalTortureConfig {
        seed: a.config.seed,
        ops: a.config.ops,
        span_blocks: a.config.span_blocks,
        crash,
        checksum: a.journal.checksum,
        skip: a.journal.skip,
        log_mib: a.journal.log_mib,
        lost: rates.get("lost", rates.lost)?,
        misdirected: rates.get("misdirected", rates.misdirected)?,
        torn: rates.get("torn", rates.torn)?,
        flips: rates.get("flips", rates.flips)?,
    };
    let mut bar = Progress::new(c.ops as u64, "torture");
    let r = run_journal_torture(&disk, &c, &mut |done| bar.step(done as u64))
        .map_err(|e| anyhow!("{e}"))?;
    bar.finish();
    let report = if a.json {
        serde_json::to_string_pretty(&r)? + "\n"
    } else {
        let s = counts_table(&[
            (
                "rounds (the journal restarted on the recovered drive)",
                r.rounds,
            ),
            ("power cuts injected", r.power_cuts),
            (
                "recoveries after which the volume checked out",
                r.recoveries_consistent,
            ),
            ("cuts with writes in flight", r.cuts_with_writes_in_flight),
            ("writes lost (outside cuts)", r.writes_lost),
            ("writes misdirected", r.writes_misdirected),
            ("writes torn", r.writes_torn),
            ("bit flips", r.bit_flips),
            ("in-flight blocks torn (first sectors only)", r.blocks_torn),
            ("in-flight blocks landed whole", r.blocks_landed),
            ("in-flight blocks dropped", r.blocks_dropped),
            ("transactions", r.transactions),
            ("writes acknowledged", r.writes_acknowledged),
            (
                "log cleanings (checkpoint home, then superblock)",
                r.log_cleanings,
            ),
            (
                "transactions replayed by recoveries",
                r.transactions_replayed,
            ),
            (
                "unacknowledged transactions a cut took (allowed)",
                r.unacknowledged_lost,
            ),
            ("block reads after recoveries, right", r.reads_right),
            (
                "reads refused (bytes failed the block's checksum)",
                r.reads_refused,
            ),
            ("WRONG READS", r.wrong_reads),
            ("WRONG BYTES (must be 0)", r.wrong_bytes),
        ]);
        format!(
            "{} requests on a {} over {} blocks (seed {}), {:.1} s simulated:\n{}",
            r.ops,
            r.stack,
            c.span_blocks,
            r.seed,
            r.simulated_s,
            s.render()
        )
    };
    fail_on_wrong_data(report, r.wrong_reads)
}

fn render(r: &TortureReport, c: &TortureConfig, json: bool) -> Result<String> {
    if json {
        return Ok(serde_json::to_string_pretty(r)? + "\n");
    }
    let mut t = Table::new(&[
        ("fault", Align::Left),
        ("injected", Align::Right),
        ("detected", Align::Right),
        ("repaired", Align::Right),
        ("overwritten", Align::Right),
    ]);
    for k in &r.kinds {
        t.row(vec![
            k.kind.clone(),
            k.injected.to_string(),
            k.detected.to_string(),
            k.repaired.to_string(),
            k.overwritten.to_string(),
        ]);
    }
    let s = counts_table(&[
        ("detections in all", r.detections_total),
        (
            "detections where no fault was injected",
            r.detections_unattributed,
        ),
        ("reads right", r.reads_right),
        ("reads refused (unrecoverable)", r.reads_refused),
        ("writes refused (unrecoverable)", r.writes_refused),
        (
            "blocks a power-cut recovery could not prove (refused until rewritten)",
            r.blocks_lost_in_power_cuts,
        ),
        ("scrubs (the final one aside)", r.scrubs),
        ("faults those scrubs repaired", r.scrub_repairs),
        (
            "rows settled (two faults: unprovable blocks pinned and refused, parity recomputed)",
            r.rows_settled,
        ),
        (
            "blocks those settlements marked lost",
            r.blocks_settled_lost,
        ),
        (
            "lost blocks written again (read back from then on)",
            r.lost_blocks_rewritten,
        ),
        (
            "rows unrecoverable after the final scrub",
            r.unrecoverable_after_scrub,
        ),
        ("damage left after the final scrub", r.damaged_left),
        ("WRONG READS", r.wrong_reads),
        ("WRONG BYTES (must be 0)", r.wrong_bytes),
    ]);
    Ok(format!(
        "{} operations on a {} over {} blocks (seed {}), {:.1} s simulated:\n{}\n{}\
         final read-back: {} of {} blocks right, {} refused (unrecoverable rows)\n\
         detected: verification failures at locations of that kind (one fault can be met more than once);\n\
         repaired: rewritten by a repair (drive failures: rebuilds done; power cuts: recoveries done);\n\
         overwritten: rewritten by a later write before any read met it.\n",
        r.ops,
        r.stack,
        c.span_blocks,
        r.seed,
        r.simulated_s,
        t.render(),
        s.render(),
        r.final_reads_right,
        r.final_reads_total,
        r.final_reads_refused,
    ))
}

/// A two-column table of named counts.
fn counts_table(rows: &[(&str, u64)]) -> Table {
    let mut t = Table::new(&[("", Align::Left), ("count", Align::Right)]);
    for (k, v) in rows {
        t.row(vec![k.to_string(), v.to_string()]);
    }
    t
}

/// The report, or an error carrying it when the campaign read back wrong data (the
/// command then exits non-zero).
fn fail_on_wrong_data(report: String, wrong_reads: u64) -> Result<String> {
    if wrong_reads > 0 {
        return Err(WrongData {
            report,
            blocks: wrong_reads,
        }
        .into());
    }
    Ok(report)
}
