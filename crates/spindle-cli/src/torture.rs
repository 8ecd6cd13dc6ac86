//! `spindle torture`: a seeded fault campaign over a byte-exact stack (see
//! [`spindle::stack::torture`]), from the command line.

use crate::disks::load_disk;
use crate::limits;
use crate::progress::Progress;
use crate::raid::WrongData;
use crate::table::{Align, Table};
use anyhow::{anyhow, bail, Result};
use serde::Deserialize;
use spindle::layout::torture::{run_dle_torture, DleTortureConfig};
use spindle::stack::array::ParityLayout;
use spindle::stack::faults::{faults_line, FaultSpec};
use spindle::stack::journal::{JournalSpec, MAX_LOG_MIB};
use spindle::stack::journal_torture::{
    run_journal_torture, JournalBelow, JournalTortureConfig, JournalTortureReport,
};
use spindle::stack::torture::{
    run_torture, TortureConfig, TortureReport, TortureStack, MAX_TORTURE_OPS, MAX_TORTURE_SPAN,
};
use spindle::stack::tree::{ArraySpec, DeviceSpec, DiskSpec};
use std::path::PathBuf;

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
    pub clean_below_pct: u32,
    /// Whether any of the journal's flags was given (they apply to --array journal).
    pub given: bool,
}

// `spindle torture`'s flags, as the command line and Python's keywords give them. (A
// plain comment: a doc comment would replace the subcommand's help text.)
#[derive(clap::Args, Clone, Debug)]
pub struct TortureOptions {
    /// A TOML file whose [device] tree is the stack (raid4, raid5, or raid1/mirror, of
    /// drives)
    #[arg(long)]
    pub stack: Option<std::path::PathBuf>,
    /// Without --stack: raid4, raid5 (rotating parity, see --parity-layout), mirror,
    /// journal (the data journal on one drive: power cuts only) or dle (the data
    /// layout engine over a RAID-4 with flash), see below [default: raid4]
    #[arg(long)]
    pub array: Option<String>,
    /// With --array journal: the byte-exact array under the journal, raid4, raid5 or
    /// mirror (of --members drives; default: the journal on one drive); with --array
    /// dle: raid4 (default) or raid5
    #[arg(long)]
    pub below: Option<String>,
    /// A RAID-5's parity layout (--array raid5, --below raid5): left-symmetric (data
    /// starts after the parity and wraps, Linux md's) or left-asymmetric (data in
    /// member order around it, the thesis's Figure 6.1) [default: left-symmetric]
    #[arg(long)]
    pub parity_layout: Option<String>,
    /// Without --stack: members (a raid4's include its parity drive) [default: 5]
    #[arg(long)]
    pub members: Option<usize>,
    /// Without --stack: member drive, a preset name or a DiskSim .parv file (default
    /// wd-re3; the journal's: mimic-9lzx, which writes through)
    #[arg(long)]
    pub disk: Option<String>,
    /// Without --stack: the raid4/raid5 stripe unit, KiB [default: 64]
    #[arg(long)]
    pub stripe_unit_kib: Option<u64>,
    /// Operations (write or read batches of 1-6 blocks)
    #[arg(long, default_value_t = 3000)]
    pub ops: usize,
    /// Volume blocks the operations touch
    #[arg(long, default_value_t = 2400)]
    pub span: u64,
    /// Every fault kind's probability unless its own flag is given (default 0)
    #[arg(long)]
    pub rate: Option<f64>,
    /// Probability that a member write is lost
    #[arg(long)]
    pub lost: Option<f64>,
    /// Probability that a member write lands on a wrong block
    #[arg(long)]
    pub misdirected: Option<f64>,
    /// Probability that a member write is torn (only its first sectors stored)
    #[arg(long)]
    pub torn: Option<f64>,
    /// Probability, per operation and member, of one bit flip in a stored block
    #[arg(long)]
    pub flips: Option<f64>,
    /// Probability, per operation while every member is up, that one member fails
    #[arg(long)]
    pub fail: Option<f64>,
    /// Probability, per write operation, that the power is cut during it
    #[arg(long)]
    pub crash: Option<f64>,
    /// With --array journal: transactional checksums (else commit blocks)
    #[arg(long)]
    pub log_checksum: bool,
    /// With --array journal: log skipping (a miniMimic table is sampled on the drive)
    #[arg(long)]
    pub log_skip: bool,
    /// With --array journal: log size, MiB [default: 3]
    #[arg(long)]
    pub log_mib: Option<u64>,
    /// With --array journal: clean the log when less than this percentage is free
    /// [default: 25]
    #[arg(long)]
    pub log_clean_below_pct: Option<u32>,
    /// With --array dle or a [layout]: a power cut that lands on a flash metadata
    /// write tears that record (part written, the rest garbage); needs --crash
    #[arg(long)]
    pub torn_metadata: bool,
    /// Scrub after every N operations (0: only at the end)
    #[arg(long, default_value_t = 100)]
    pub scrub_every: usize,
    /// Operations a failed member stays out before its replacement is rebuilt
    #[arg(long, default_value_t = 20)]
    pub replace_after: usize,
    /// Seed of every draw: the same seed gives the same campaign
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

impl TortureOptions {
    /// The campaign's arguments and fault rates.
    pub fn resolve(self) -> (TortureArgs, Rates) {
        // Flags that describe the stack themselves: a stack file replaces them.
        let own_stack = [
            ("--array", self.array.is_some()),
            ("--members", self.members.is_some()),
            ("--disk", self.disk.is_some()),
            ("--stripe-unit-kib", self.stripe_unit_kib.is_some()),
        ]
        .iter()
        .filter(|(_, given)| *given)
        .map(|(flag, _)| flag.to_string())
        .collect();
        let args = TortureArgs {
            stack: self.stack.map(StackSource::File),
            array: self.array.unwrap_or_else(|| "raid4".into()),
            below: self.below,
            parity_layout: self.parity_layout,
            members: self.members.unwrap_or(5),
            disk: self.disk,
            stripe_unit_kib: self.stripe_unit_kib.unwrap_or(64),
            stack_flags: own_stack,
            journal: JournalArgs {
                checksum: self.log_checksum,
                skip: self.log_skip,
                log_mib: self.log_mib.unwrap_or(3),
                clean_below_pct: self.log_clean_below_pct.unwrap_or(25),
                given: self.log_checksum
                    || self.log_skip
                    || self.log_mib.is_some()
                    || self.log_clean_below_pct.is_some(),
            },
            config: TortureConfig {
                seed: self.seed,
                ops: self.ops,
                span_blocks: self.span,
                scrub_every: self.scrub_every,
                replace_after: self.replace_after,
                ..Default::default()
            },
            torn_metadata: self.torn_metadata,
            json: self.json,
        };
        let rates = Rates {
            rate: self.rate,
            lost: self.lost,
            misdirected: self.misdirected,
            torn: self.torn,
            flips: self.flips,
            fail: self.fail,
            crash: self.crash,
        };
        (args, rates)
    }
}

#[derive(clap::Parser)]
#[command(name = "spindle torture", no_binary_name = true)]
struct Parsed {
    #[command(flatten)]
    options: TortureOptions,
}

/// Parses pairs (name, value) as `spindle torture` flags (a pair without a value is a
/// switch), with the CLI's own errors.
pub fn from_pairs<I>(pairs: I) -> Result<TortureOptions>
where
    I: IntoIterator<Item = (String, Option<String>)>,
{
    crate::options::parse_pairs::<Parsed, _>(pairs, "campaign").map(|p| p.options)
}

/// The campaign's JSON report (`--json`), wrong reads or not: the caller reads
/// `wrong_reads` from it (the command line exits 1 on them instead).
pub fn torture_json(mut a: TortureArgs, rates: &Rates) -> Result<String> {
    a.json = true;
    match torture(&a, rates) {
        Ok(report) => Ok(report),
        Err(e) => match e.downcast::<WrongData>() {
            Ok(w) => Ok(w.report),
            Err(e) => Err(e),
        },
    }
}

/// Where a campaign's stack comes from: a TOML file, or its text (Python's
/// `stack=`; errors then name `<stack>`).
#[derive(Clone, Debug)]
pub enum StackSource {
    File(PathBuf),
    Text(String),
}

impl StackSource {
    /// What errors call it: the file's path, or `<stack>`.
    fn name(&self) -> String {
        match self {
            StackSource::File(p) => p.display().to_string(),
            StackSource::Text(_) => "<stack>".to_string(),
        }
    }
}

/// The command's options.
#[derive(Clone, Debug)]
pub struct TortureArgs {
    pub stack: Option<StackSource>,
    pub array: String,
    /// With `--array journal`: the redundant array under it (`raid4`, `raid5` or
    /// `mirror`).
    pub below: Option<String>,
    /// A RAID-5's parity layout (`--parity-layout`; default left-symmetric, as the
    /// stack's).
    pub parity_layout: Option<String>,
    pub members: usize,
    pub disk: Option<String>,
    pub stripe_unit_kib: u64,
    /// The stack-describing flags given (--array, --members, --disk,
    /// --stripe-unit-kib): refused beside a stack file, which replaces them.
    pub stack_flags: Vec<String>,
    pub journal: JournalArgs,
    pub config: TortureConfig,
    /// With the layout engine: power cuts tear the flash metadata record they land on.
    pub torn_metadata: bool,
    pub json: bool,
}

/// The part of a stack file the campaign reads: its `[device]` tree (the keys of
/// `spindle run`'s TOML; a run file works as it is), and a journal `[[layer]]` or a
/// `[layout]` above it.
#[derive(Deserialize)]
struct StackFile {
    device: Option<DeviceSpec>,
    layout: Option<toml::Value>,
    layer: Option<Vec<toml::Value>>,
    /// The rest of a run file ([workload], [scheduler], ...): not used, and said so.
    #[serde(flatten)]
    unused: std::collections::BTreeMap<String, toml::Value>,
}

/// The 1-based line of the `n`-th (0-based) line that starts with `header`.
fn header_line(text: &str, header: &str, n: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(header))
        .nth(n)
        .map(|(i, _)| i + 1)
}

/// What a stack file asks the campaign to run.
enum FileStack {
    Array(Box<TortureStack>),
    Journal {
        spec: JournalSpec,
        device: DeviceSpec,
    },
    Layout {
        layout: spindle::layout::LayoutConfig,
        device: DeviceSpec,
    },
}

fn stack_from(source: &StackSource, default: &FaultSpec) -> Result<(FileStack, String)> {
    let file = source.name();
    let text = match source {
        StackSource::File(path) => limits::read_text(path, limits::MAX_CONFIG_BYTES)?,
        StackSource::Text(text) => {
            if text.len() as u64 > limits::MAX_CONFIG_BYTES {
                bail!(
                    "the stack text is {} bytes, more than the {} a stack file may hold",
                    text.len(),
                    limits::MAX_CONFIG_BYTES
                );
            }
            text.clone()
        }
    };
    let parsed: StackFile =
        spindle::toml_error::parse(&text).map_err(|e| anyhow!("{file}: {e}"))?;
    let Some(device) = parsed.device else {
        bail!("{file}: no [device]: torture needs a byte-exact array (kind = \"raid4\", \"raid5\", \"raid1\" or \"mirror\"), or a drive under a journal [[layer]]");
    };
    // A run file's other keys are not used, and said so; any other key is a mistake
    // (a misspelt `[[layers]]` would run the stack without its journal).
    const RUN_KEYS: [&str; 5] = ["seed", "workload", "scheduler", "array-scheduler", "disks"];
    if let Some(k) = parsed
        .unused
        .keys()
        .find(|k| !RUN_KEYS.contains(&k.as_str()))
    {
        bail!(
            "{file}: unknown key `{k}` (a stack file holds a run file's [device], [[layer]] or [layout], and may keep its {})",
            RUN_KEYS.join(", ")
        );
    }
    if !parsed.unused.is_empty() {
        let names: Vec<String> = parsed
            .unused
            .iter()
            .map(|(k, v)| match v {
                toml::Value::Table(_) => format!("[{k}]"),
                toml::Value::Array(a) if a.iter().all(toml::Value::is_table) => format!("[[{k}]]"),
                _ => k.clone(),
            })
            .collect();
        eprintln!(
            "spindle: note: {file}: torture drives the stack with its own random batches; {} not used",
            names.join(", ")
        );
    }
    let layers = parsed.layer.unwrap_or_default();
    let at = |line: Option<usize>| match line {
        Some(l) => format!("{file}:{l}"),
        None => file.clone(),
    };
    if let (Some(_), false) = (&parsed.layout, layers.is_empty()) {
        bail!(
            "{}: a [layout] with [[layer]]s above it: torture runs one of them at a time (the layout engine over its RAID-4, or a journal over an array)",
            at(header_line(&text, "[[layer]]", 0))
        );
    }
    if let Some(v) = parsed.layout {
        let where_ = at(header_line(&text, "[layout]", 0));
        let layout: spindle::layout::LayoutConfig = v
            .try_into()
            .map_err(|e| anyhow!("{where_}: [layout]: {e}"))?;
        layout
            .validate()
            .map_err(|e| anyhow!("{where_}: [layout]: {e}"))?;
        return Ok((FileStack::Layout { layout, device }, where_));
    }
    if layers.len() > 1 {
        bail!(
            "{}: {} [[layer]]s: torture runs one journal layer over the [device] (the other layers carry no bytes)",
            at(header_line(&text, "[[layer]]", 1)),
            layers.len()
        );
    }
    if let Some(v) = layers.into_iter().next() {
        let where_ = at(header_line(&text, "[[layer]]", 0));
        let kind = v
            .get("kind")
            .and_then(|k| k.as_str())
            .unwrap_or("")
            .to_string();
        if kind != "journal" {
            bail!(
                "{where_}: [[layer]] kind = \"{kind}\" is timing-only (it carries no bytes), so faults under it cannot be checked; torture runs a journal layer (kind = \"journal\") or none"
            );
        }
        let mut t = v;
        if let Some(tab) = t.as_table_mut() {
            tab.remove("kind");
        }
        let spec: JournalSpec = t
            .try_into()
            .map_err(|e| anyhow!("{where_}: [[layer]] journal: {e}"))?;
        return Ok((FileStack::Journal { spec, device }, where_));
    }
    let stack = TortureStack::from_device(&device, default).map_err(|e| {
        // Name the line of the faults table when the error is about one.
        // (else the [device] table's).
        let line = faults_line(&text)
            .filter(|_| e.contains(".faults"))
            .or_else(|| header_line(&text, "[device]", 0));
        anyhow!("{}: {e}", at(line))
    })?;
    Ok((FileStack::Array(Box::new(stack)), file))
}

/// `--parity-layout`, checked (None: not given).
fn parity_layout(a: &TortureArgs) -> Result<Option<ParityLayout>> {
    match a.parity_layout.as_deref() {
        None => Ok(None),
        Some("left-symmetric") => Ok(Some(ParityLayout::LeftSymmetric)),
        Some("left-asymmetric") => Ok(Some(ParityLayout::LeftAsymmetric)),
        Some(other) => {
            bail!("--parity-layout must be left-symmetric or left-asymmetric, got `{other}`")
        }
    }
}

/// Runs the campaign. Fails with `WrongData` (after the report) if any read returned
/// wrong bytes.
pub fn torture(a: &TortureArgs, rates: &Rates) -> Result<String> {
    parity_layout(a)?;
    if a.parity_layout.is_some() {
        let raid5 =
            a.stack.is_none() && (a.array == "raid5" || a.below.as_deref() == Some("raid5"));
        if !raid5 {
            bail!("--parity-layout places a RAID-5's data around its parity: it goes with --array raid5, or --below raid5 under --array journal or dle (a stack file sets parity-layout in its [device])");
        }
    }
    if a.below.is_some() && a.array != "journal" && a.array != "dle" {
        bail!("--below puts an array under the journal or the layout engine: it goes with --array journal or --array dle");
    }
    if a.below.is_some() && a.stack.is_some() {
        bail!("--below and --stack: the stack file's [device] is what lies under its journal [[layer]]");
    }
    if let (Some(source), [first, ..]) = (&a.stack, a.stack_flags.as_slice()) {
        bail!(
            "{first} and --stack: the stack {} describes the array, its members and their \
             drive itself (drop {})",
            source.name(),
            a.stack_flags.join(", ")
        );
    }
    if a.torn_metadata && a.stack.is_none() && a.array != "dle" {
        bail!("--torn-metadata tears the layout engine's flash metadata records: it goes with --array dle or a --stack file with a [layout]");
    }
    if a.array == "journal" && a.stack.is_none() {
        return journal(a, rates, None);
    }
    if a.journal.given {
        bail!(
            "--log-checksum, --log-skip, --log-mib and --log-clean-below-pct set up the journal \
             of --array journal (a --stack file's journal takes them from its [[layer]])"
        );
    }
    let from_file = match &a.stack {
        Some(source) => Some(stack_from(source, &rates.resolve()?.0)?),
        None => None,
    };
    let layout = matches!(&from_file, Some((FileStack::Layout { .. }, _)))
        || (a.array == "dle" && a.stack.is_none());
    if a.torn_metadata && !layout {
        bail!("--torn-metadata tears the layout engine's flash metadata records: it goes with --array dle or a --stack file with a [layout]");
    }
    let from_file = match from_file {
        Some((FileStack::Journal { spec, device }, at)) => {
            return journal(a, rates, Some((spec, device, at)))
        }
        Some((FileStack::Layout { layout, device }, at)) => {
            return dle(a, rates, Some((layout, device, at)))
        }
        Some((FileStack::Array(s), _)) => Some(*s),
        None => None,
    };
    if a.array == "dle" && a.stack.is_none() {
        return dle(a, rates, None);
    }
    let disk_name = a.disk.clone().unwrap_or_else(|| "wd-re3".into());
    let (faults, fail, crash) = rates.resolve()?;
    let mut c = a.config.clone();
    c.fail = fail;
    c.crash = crash;
    limits::count("--ops", c.ops as u64, MAX_TORTURE_OPS as u64)?;
    limits::count("--span", c.span_blocks, MAX_TORTURE_SPAN)?;
    let stack = match from_file {
        Some(s) => s,
        None => {
            limits::count("--members", a.members as u64, 16)?;
            let disk = load_disk(&disk_name)?.params;
            match a.array.as_str() {
                "raid4" | "raid5" => {
                    // As `spindle run` takes them: rotating parity needs three drives.
                    let least = if a.array == "raid5" { 3 } else { 2 };
                    if a.members < least {
                        bail!(
                            "--members must be at least {least} for a {}, got {}",
                            a.array,
                            a.members
                        );
                    }
                    if a.stripe_unit_kib == 0 || !a.stripe_unit_kib.is_multiple_of(4) {
                        bail!(
                            "--stripe-unit-kib must be a positive multiple of 4, got {}",
                            a.stripe_unit_kib
                        );
                    }
                    let mut s =
                        TortureStack::raid4(disk, a.members - 1, a.stripe_unit_kib / 4, &faults);
                    if let spindle::stack::torture::Shape::Raid4 { rotation, .. } = &mut s.shape {
                        // RAID-5: the same group with rotating parity.
                        *rotation = if a.array == "raid5" {
                            Some(parity_layout(a)?.unwrap_or_default())
                        } else {
                            None
                        };
                    }
                    s
                }
                "mirror" => {
                    if a.members < 2 {
                        bail!(
                            "--members must be at least 2 for a mirror, got {}",
                            a.members
                        );
                    }
                    let spec = DeviceSpec::Mirror(spindle::stack::tree::ArraySpec::of(
                        a.members as u32,
                        DeviceSpec::Disk(spindle::stack::tree::DiskSpec::new(&disk_name)),
                    ));
                    TortureStack::from_device(&spec, &faults).map_err(|e| {
                        anyhow!("{e} (the command-line rates apply to every member)")
                    })?
                }
                other => {
                    bail!("--array must be raid4, raid5, mirror, journal or dle, got `{other}`")
                }
            }
        }
    };
    if c.crash > 0.0 && matches!(stack.shape, spindle::stack::torture::Shape::Mirror { .. }) {
        bail!("--crash: the byte-exact mirror has no crash resync yet (use a raid4)");
    }
    let mut bar = Progress::new(c.ops as u64, "torture");
    let r =
        run_torture(&stack, &c, &mut |done| bar.step(done as u64)).map_err(|e| anyhow!("{e}"))?;
    bar.finish();
    let report = render(&r, &c, a.json)?;
    fail_on_wrong_data(report, r.wrong_reads)
}

/// A `[layout]` from a stack file, the `[device]` under it, and where the table is.
type LayoutFile = (spindle::layout::LayoutConfig, DeviceSpec, String);

/// `--array dle`: the data layout engine over a faulty RAID-4 with flash staging (or
/// a stack file's `[layout]` over its `[device]` RAID-4).
fn dle(a: &TortureArgs, rates: &Rates, file: Option<LayoutFile>) -> Result<String> {
    let (faults, fail, crash) = rates.resolve()?;
    limits::count("--ops", a.config.ops as u64, MAX_TORTURE_OPS as u64)?;
    limits::count("--span", a.config.span_blocks, 8 * 4096)?;
    if a.config.span_blocks < 8 {
        bail!(
            "--span must be at least 8 blocks (8 extents), got {}",
            a.config.span_blocks
        );
    }
    let mut c = DleTortureConfig {
        seed: a.config.seed,
        ops: a.config.ops,
        extent_blocks: a.config.span_blocks / 8,
        faults: faults.clone(),
        fail,
        crash,
        replace_after: a.config.replace_after,
        scrub_every: a.config.scrub_every,
        data_disks: 4,
        rotation: match a.below.as_deref() {
            None | Some("raid4") => None,
            Some("raid5") => Some(parity_layout(a)?.unwrap_or_default()),
            Some(other) => bail!("--below with --array dle must be raid4 or raid5, got `{other}`"),
        },
        policy: spindle::layout::LayoutPolicy::Proximal,
        members: Vec::new(),
        torn_metadata: a.torn_metadata,
    };
    if a.torn_metadata && crash == 0.0 {
        bail!("--torn-metadata tears the record a power cut lands on: give --crash (or --rate) a probability above 0");
    }
    let scaled = file.is_some();
    let (disk, flash) = match file {
        None => (
            load_disk(a.disk.as_deref().unwrap_or("wd-re3"))?.params,
            spindle::flash::presets::preset("x25m-g2").map_err(|e| anyhow!("{e}"))?,
        ),
        Some((layout, device, at)) => {
            let file_name = a.stack.as_ref().map(StackSource::name).unwrap_or_default();
            if layout.data != spindle::store::DataMode::RealBytes {
                bail!("{at}: [layout] data = timing-only keeps no bytes, so faults under it cannot be checked (drop the key: real bytes are the default)");
            }
            if !layout.sync_writes {
                bail!("{at}: [layout] sync-writes = false acknowledges destages the drives have only buffered, which a power cut loses; the campaign runs with sync-writes (drop the key)");
            }
            if !matches!(device, DeviceSpec::Raid4(_) | DeviceSpec::Raid5(_)) {
                bail!(
                    "{file_name}: [layout] runs over a RAID-4 or RAID-5 ([device] kind = \"raid4\" or \"raid5\"), not over a {}",
                    device.kind()
                );
            }
            let stack = TortureStack::from_device(&device, &faults)
                .map_err(|e| anyhow!("{file_name}: {e}"))?;
            let spindle::stack::torture::Shape::Raid4 {
                data_disks,
                rotation,
                ..
            } = stack.shape
            else {
                bail!("{file_name}: [layout] runs over a RAID-4 or RAID-5");
            };
            c.rotation = rotation;
            if data_disks != layout.data_disks {
                bail!(
                    "{at}: [layout] data-disks = {} needs an array of {} members, the [device] has {}",
                    layout.data_disks,
                    layout.data_disks + 1,
                    data_disks + 1
                );
            }
            for (path, f) in &stack.members {
                if f.fail_at_ms.is_some() || f.crash_at_ms.is_some() {
                    bail!("{file_name}: {path}.faults: fail-at-ms and crash-at-ms are not read under a [layout]: its campaign draws failures and power cuts with --fail and --crash");
                }
            }
            c.data_disks = data_disks;
            c.policy = layout.kind;
            c.members = stack.members.iter().map(|(_, f)| f.clone()).collect();
            let flash =
                spindle::flash::presets::preset(&layout.flash).map_err(|e| anyhow!("{at}: {e}"))?;
            (stack.disk, flash)
        }
    };
    let mut bar = Progress::new(c.ops as u64, "torture");
    let mut r = run_dle_torture(&disk, &flash, &c, &mut |done| bar.step(done as u64))
        .map_err(|e| anyhow!("{e}"))?;
    if scaled {
        // Said, not silently dropped: the campaign's engine is small so that it
        // destages and recovers often.
        r.stack += ", scaled down: 64-block staging log, 64 KiB ranges (the file's staging-pct, threshold-kib, allocation-range-kib and volume-mib are not used)";
    }
    bar.finish();
    let report = if a.json {
        serde_json::to_string_pretty(&r)? + "\n"
    } else {
        let mut rows = vec![
            ("lost writes injected", r.lost_writes),
            ("misdirected writes injected", r.misdirected_writes),
            ("torn writes injected", r.torn_writes),
            ("bit flips injected", r.bit_flips),
            ("drive failures", r.drive_failures),
            ("rebuilds completed", r.rebuilds),
            ("power cuts", r.power_cuts),
            ("recoveries", r.recoveries),
        ];
        if let (Some(t), Some(d)) = (r.metadata_records_torn, r.metadata_tails_discarded) {
            rows.push(("flash metadata records torn", t));
            rows.push(("torn tails found by checksum and cut off", d));
        }
        rows.extend_from_slice(&[
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
        let s = counts_table(&rows);
        format!(
            "{} operations on {} {} over 8 extents of {} blocks (seed {}), {:.1} s simulated:\n{}",
            r.ops,
            article(&r.stack),
            r.stack,
            c.extent_blocks,
            r.seed,
            r.simulated_s,
            s.render()
        )
    };
    fail_on_wrong_data(report, r.wrong_reads)
}

/// A journal `[[layer]]` from a stack file, the `[device]` under it, and where the
/// layer is (file:line).
type JournalFile = (JournalSpec, DeviceSpec, String);

/// `--array journal`: power cuts and write faults over the data journal on one drive,
/// or over a redundant array (`--below`, or a stack file's `[device]`) whose members
/// take the faults and may fail.
fn journal(a: &TortureArgs, rates: &Rates, file: Option<JournalFile>) -> Result<String> {
    let crash = rates.get("crash", rates.crash)?;
    limits::count("--ops", a.config.ops as u64, MAX_TORTURE_OPS as u64)?;
    limits::count("--span", a.config.span_blocks, MAX_TORTURE_SPAN)?;
    limits::count("--log-mib", a.journal.log_mib, MAX_LOG_MIB)?;
    let mut c = JournalTortureConfig {
        seed: a.config.seed,
        ops: a.config.ops,
        span_blocks: a.config.span_blocks,
        crash,
        checksum: a.journal.checksum,
        skip: a.journal.skip,
        log_mib: a.journal.log_mib,
        clean_below_pct: a.journal.clean_below_pct,
        lost: 0.0,
        misdirected: 0.0,
        torn: 0.0,
        flips: 0.0,
        below: None,
    };
    let file_name = a.stack.as_ref().map(StackSource::name).unwrap_or_default();
    // What lies under the journal: a drive, an array, or (None) --disk alone.
    let under: Option<DeviceSpec> = match (&file, &a.below) {
        (Some((spec, device, at)), _) => {
            if spec.minimimic.is_some() {
                bail!("{at}: [[layer]] journal: minimimic: torture samples its own miniMimic table on the drive (drop the key)");
            }
            if !spec.refine {
                bail!("{at}: [[layer]] journal: refine = false: torture's journal always refines its table (drop the key)");
            }
            limits::count("log-mib", spec.log_mib, MAX_LOG_MIB)
                .map_err(|e| anyhow!("{at}: {e}"))?;
            c.checksum = spec.checksum;
            c.skip = spec.skip;
            c.log_mib = spec.log_mib;
            c.clean_below_pct = spec.clean_below_pct;
            Some(device.clone())
        }
        (None, Some(kind)) => {
            limits::count("--members", a.members as u64, 16)?;
            let mut disk = DiskSpec::new(a.disk.as_deref().unwrap_or("mimic-9lzx"));
            disk.faults = None;
            let mut arr = ArraySpec::of(a.members as u32, DeviceSpec::Disk(disk));
            Some(match kind.as_str() {
                "raid4" | "raid5" => {
                    if a.members < 2
                        || a.stripe_unit_kib == 0
                        || !a.stripe_unit_kib.is_multiple_of(4)
                    {
                        bail!(
                            "--below {kind} needs --members of at least 2 (got {}) and a --stripe-unit-kib that is a positive multiple of 4 (got {})",
                            a.members,
                            a.stripe_unit_kib
                        );
                    }
                    arr.stripe_kib = Some(a.stripe_unit_kib);
                    if kind == "raid5" {
                        arr.parity_layout = Some(parity_layout(a)?.unwrap_or_default());
                        DeviceSpec::Raid5(arr)
                    } else {
                        DeviceSpec::Raid4(arr)
                    }
                }
                "mirror" => {
                    if a.members < 2 {
                        bail!(
                            "--below mirror needs at least 2 --members, got {}",
                            a.members
                        );
                    }
                    DeviceSpec::Mirror(arr)
                }
                other => bail!("--below must be raid4, raid5 or mirror, got `{other}`"),
            })
        }
        (None, None) => None,
    };
    let (faults, fail, _) = rates.resolve()?;
    let one_drive_fail = |p: f64| -> Result<()> {
        if p != 0.0 {
            bail!(
                "--fail: the journal on one drive cannot survive a drive failure: one drive holds one copy, with nothing to rebuild from (put it over a redundant array: --below raid4, raid5 or mirror); on one drive --array journal takes --crash, --lost, --misdirected, --torn and --flips"
            );
        }
        Ok(())
    };
    let disk = match under {
        None => {
            // --rate sets every kind the journal takes; drive failure only by its own flag.
            one_drive_fail(rates.fail.unwrap_or(0.0))?;
            (c.lost, c.misdirected, c.torn, c.flips) =
                (faults.lost, faults.misdirected, faults.torn, faults.flips);
            load_disk(a.disk.as_deref().unwrap_or("mimic-9lzx"))?.params
        }
        Some(DeviceSpec::Disk(d)) => {
            one_drive_fail(rates.fail.unwrap_or(0.0))?;
            let f = d.faults.clone().unwrap_or(faults);
            f.validate("device")
                .map_err(|e| anyhow!("{file_name}: {e}"))?;
            if f.fail_at_ms.is_some() {
                bail!("{file_name}: device.faults.fail-at-ms: the journal on one drive cannot survive a drive failure (put a raid4, raid5 or mirror under it)");
            }
            if f.crash_at_ms.is_some() {
                bail!("{file_name}: device.faults.crash-at-ms: on one drive the journal's power cuts are drawn with --crash (crash-at-ms is read on array members)");
            }
            (c.lost, c.misdirected, c.torn, c.flips) = (f.lost, f.misdirected, f.torn, f.flips);
            d.params("device")
                .map_err(|e| anyhow!("{file_name}: {e}"))?
        }
        Some(spec) => {
            let stack = TortureStack::from_device(&spec, &faults).map_err(|e| {
                let hint = if file.is_some() {
                    ""
                } else {
                    " (the command-line rates apply to every member)"
                };
                if file_name.is_empty() {
                    anyhow!("{e}{hint}")
                } else {
                    anyhow!("{file_name}: {e}")
                }
            })?;
            let disk = stack.disk.clone();
            c.below = Some(JournalBelow {
                stack,
                timing: spec.without_faults(),
                fail,
                replace_after: a.config.replace_after,
            });
            disk
        }
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
            "{} requests on a {} over {} blocks (seed {}), {:.1} s simulated:\n{}{}",
            r.ops,
            r.stack,
            c.span_blocks,
            r.seed,
            r.simulated_s,
            s.render(),
            array_rows(&r)
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
        "{} operations on {} {} over {} blocks (seed {}), {:.1} s simulated:\n{}\n{}\
         final read-back: {} of {} blocks right, {} refused (unrecoverable rows)\n\
         detected: verification failures at locations of that kind (one fault can be met more than once);\n\
         repaired: rewritten by a repair (drive failures: rebuilds done; power cuts: recoveries done);\n\
         overwritten: rewritten by a later write before any read met it.\n",
        r.ops,
        article(&r.stack),
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

/// The array under a journal: what it took and did (empty on one drive).
fn array_rows(r: &JournalTortureReport) -> String {
    let Some(a) = &r.array else {
        return String::new();
    };
    let t = counts_table(&[
        ("member drive failures", a.drive_failures),
        ("rebuilds onto a replacement", a.rebuilds),
        ("power cuts while a member was down", a.cuts_degraded),
        ("recoveries while a member was down", a.recoveries_degraded),
        ("member writes lost", a.lost_writes),
        ("member writes misdirected", a.misdirected_writes),
        ("member writes torn", a.torn_writes),
        ("member bit flips", a.bit_flips),
        ("verification failures the array met", a.detections),
        ("journal writes the array refused", a.writes_refused),
        ("block reads the array refused", a.reads_refused),
        (
            "blocks the array's crash recovery could not prove",
            a.blocks_lost_in_power_cuts,
        ),
    ]);
    format!("the array under the journal:\n{}", t.render())
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

/// "a" or "an" before a stack's description.
fn article(what: &str) -> &'static str {
    if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(k: &str, v: &str) -> (String, Option<String>) {
        (k.into(), Some(v.into()))
    }

    #[test]
    fn keywords_become_the_commands_flags() {
        let o = from_pairs([
            pair("array", "journal"),
            pair("below", "mirror"),
            pair("scrub_every", "7"),
            pair("crash", "0.5"),
            ("log_checksum".into(), None),
        ])
        .unwrap();
        let (a, r) = o.resolve();
        assert_eq!(a.array, "journal");
        assert_eq!(a.below.as_deref(), Some("mirror"));
        assert_eq!(a.config.scrub_every, 7);
        assert!(a.journal.checksum && !a.journal.skip);
        assert_eq!((r.crash, r.rate), (Some(0.5), None));
        // The defaults are the command line's.
        let (d, _) = from_pairs(Vec::new()).unwrap().resolve();
        assert_eq!(
            (d.array.as_str(), d.members, d.config.ops, d.config.seed),
            ("raid4", 5, 3000, 1)
        );
    }

    #[test]
    fn flags_a_stack_file_replaces_are_refused_beside_it() {
        let o = from_pairs(vec![
            ("array".to_string(), Some("raid5".to_string())),
            ("members".to_string(), Some("3".to_string())),
        ])
        .unwrap();
        let (mut a, r) = o.resolve();
        a.stack = Some(StackSource::Text(
            "[device]\nkind = \"raid4\"\ncount = 5\n".into(),
        ));
        let e = torture_json(a, &r).unwrap_err().to_string();
        assert!(
            e.contains("--array and --stack") && e.contains("--array, --members"),
            "{e}"
        );
    }

    #[test]
    fn a_stack_given_as_text_is_named_in_its_errors() {
        let a = TortureArgs {
            stack: Some(StackSource::Text("[device]\nkind = \"disk\"\n".into())),
            ..from_pairs(Vec::new()).unwrap().resolve().0
        };
        let e = torture_json(a, &Rates::default()).unwrap_err().to_string();
        assert!(e.starts_with("<stack>"), "{e}");
        let (mut a, _) = from_pairs(Vec::new()).unwrap().resolve();
        a.stack = Some(StackSource::Text(
            "x".repeat(limits::MAX_CONFIG_BYTES as usize + 1),
        ));
        let e = torture_json(a, &Rates::default()).unwrap_err().to_string();
        assert!(e.contains("more than the"), "{e}");
    }
}
