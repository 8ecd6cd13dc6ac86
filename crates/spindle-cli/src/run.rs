//! `spindle run` and `spindle compare`: a workload through a stack of host scheduler
//! and drives, summarised.

use crate::progress::Progress;
use crate::table::{Align, Table};
use anyhow::{anyhow, bail, Context, Result};
use spindle::config::{DiskConfig, LoadedWorkload, RunConfig, WorkloadConfig};
use spindle::dedup::{ContentTraceSpec, FiuWorkload};
use spindle::engine::{self, RunOptions, Source};
use spindle::layers::LayerSpec;
use spindle::layout::{LayoutConfig, LayoutPolicy};
use spindle::node::NodeReport;
use spindle::runner::{drive_utilization, run_reports};
use spindle::sched::SchedulerKind;
use spindle::stack::array::{ParityLayout, ReplicaChoice};
use spindle::stack::cache::CacheSpec;
use spindle::stack::fio::FioSummary;
use spindle::stack::metrics::{Metrics, MetricsSink, RequestLog};
use spindle::stack::raid_mimic::RaidMimicSpec;
use spindle::stack::tree::{ArraySpec, DeviceSpec, DiskSpec, Spindles, MAX_MEMBERS};
use spindle::trace::compress_out::{CompressedWriter, OutputCompression};
use spindle::trace::TraceFiles;
use spindle::workload::{
    Arrivals, ClosedSpec, GenSpec, OpenSpec, Pattern, Sizes, Think, WorkloadSpec,
};
use std::path::{Path, PathBuf};

/// Requests of a synthetic open or closed workload without --count.
const DEFAULT_COUNT: u64 = 10_000;

// Command-line settings shared by `run` and `compare`; each overrides the config file.
// (A plain comment: a doc comment would become the help text of the subcommand that
// flattens it, the subcommands being built deferred.)
#[derive(clap::Args, Clone, Debug, Default)]
pub struct StackArgs {
    /// A TOML run configuration, the stack included (see `spindle run --help`); flags
    /// override it. `--stack FILE` is the same
    #[arg(long, visible_alias = "stack", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Disk preset, DiskSim .parv file or spindle drive file (.toml, e.g. from `spindle calibrate`) [default: hp-c2249a; MimdRAID's arrays (--array mirror:D, split:D, rsplit:D, intra:XxY, ...): st34502lw, the paper's Cheetah 9LP]
    #[arg(long, value_name = "DISK")]
    pub disk: Option<String>,
    /// Number of such disks [default: 2 for the default disk, else 1; over a --config's
    /// [[disks]], its count (--disk keeps the file's drives and changes their model);
    /// refused over a --config [device], which sets its own, or several [[disks]]]
    #[arg(long, value_name = "N")]
    pub disks: Option<u32>,
    /// Trace: `sample:hplajw` or a file (any format, gzip or zstd too). Give --trace again
    /// to merge several files of one format into one trace by arrival (MSR volumes, FIU
    /// days; an absolute clock is timed from the earliest record of any file; see
    /// --trace-devices) [default: sample:hplajw]
    #[arg(long, value_name = "SPEC")]
    pub trace: Vec<String>,
    /// How merged trace files' devices are numbered: per-file (file k is device k, in
    /// the order given) or as-recorded (each record's own device number); needed when two
    /// files hold the same device number
    #[arg(long, value_name = "NUMBERING")]
    pub trace_devices: Option<spindle::trace::DeviceNumbering>,
    /// Trace format when detection should not guess: disksim-ascii, disksim-validate,
    /// hp-srt, msr, fiu, spc, blkparse, blktrace (binary), alibaba, tencent, spindle-csv
    /// (`spindle run` also takes text, json or fio-json here: the output format, as
    /// --output-format)
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// Keep only this trace device's requests (e.g. the busiest disk of a trace)
    #[arg(long, value_name = "N")]
    pub device: Option<u32>,
    /// Divide trace arrival times by this factor (time compression; 0.001 to 1e9)
    #[arg(long, value_name = "FACTOR")]
    pub compress: Option<f64>,
    /// Hold a request that touches blocks of unfinished earlier requests until they
    /// complete (on by default with --compress)
    #[arg(long)]
    pub hold_overlapping: bool,
    /// Replay only the first N requests in arrival order (a trace out of order is
    /// sorted first)
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Synthetic workload instead of a trace: `open` (arrivals at --rate), `closed`
    /// (--processes each issuing, waiting, thinking --think-ms), or I/O
    /// Deduplication's generated stand-in for an FIU trace, `web-vm`, `mail` or `homes`
    /// (4 KiB requests with content digests, from the paper's published workload
    /// characteristics only; --scale, --days; on one wd5000aakb unless --disk or
    /// --config says otherwise)
    #[arg(long, value_name = "KIND")]
    pub synthetic: Option<String>,
    /// With --synthetic web-vm, mail or homes: multiply the published page counts by
    /// this, within (0, 1] (1 = the published week: 3.6 M requests for web-vm)
    /// [default: 1]
    #[arg(long, value_name = "F")]
    pub scale: Option<f64>,
    /// With --synthetic web-vm, mail or homes: days of trace, 1 to 366
    /// [default: 7]
    #[arg(long, value_name = "N")]
    pub days: Option<u32>,
    /// Synthetic open or closed: addresses uniform, sequential or zipf [default: uniform]
    #[arg(long, value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// Zipf skew for --pattern zipf [default: 0.9]
    #[arg(long, value_name = "THETA")]
    pub zipf_theta: Option<f64>,
    /// Sequential run length (requests) for --pattern sequential [default: 16]
    #[arg(long, value_name = "N")]
    pub run_len: Option<u64>,
    /// Synthetic open or closed: request size in 512-byte sectors [default: 8]
    #[arg(long, value_name = "SECTORS")]
    pub size: Option<u32>,
    /// Synthetic open or closed: fraction of requests that are reads [default: 0.66]
    #[arg(long, value_name = "F")]
    pub read_fraction: Option<f64>,
    /// Synthetic open: Poisson arrivals per second [default: 100]
    #[arg(long, value_name = "PER_S")]
    pub rate: Option<f64>,
    /// Synthetic closed: number of processes [default: 4]
    #[arg(long, value_name = "N")]
    pub processes: Option<u32>,
    /// Synthetic closed: mean think time (exponential), ms; 0 = none [default: 0]
    #[arg(long, value_name = "MS")]
    pub think_ms: Option<f64>,
    /// Synthetic open or closed: number of requests [default: 10000] (a generated
    /// web-vm, mail or homes trace is as long as --scale and --days make it)
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// Seed of the synthetic workload
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Requests outstanding at each drive [default: 1]
    #[arg(long, value_name = "N")]
    pub queue_depth: Option<u64>,
    /// SMTF: samples per inter-request distance the Disk Mimic probes [default: 10]
    #[arg(long, value_name = "N")]
    pub mimic_samples: Option<u64>,
    /// SMTF: interpolate distances with the thesis's Table 3.2 ladder (as it probes; not
    /// with --mimic-table)
    #[arg(long)]
    pub mimic_interpolate: bool,
    /// SMTF: load the Disk Mimic's table from FILE (written by `spindle mimic probe
    /// --out`, of a simulated disk or a real device with --device) instead of probing
    /// the simulated drive; distances it lacks are interpolated between the nearest
    /// probed ones
    #[arg(long, value_name = "FILE")]
    pub mimic_table: Option<PathBuf>,
    /// Aging: serve requests that waited longer than this first (ms)
    #[arg(long, value_name = "MS")]
    pub max_wait_ms: Option<f64>,
    /// Serve the workload through a layout engine over a RAID-4 of the disk (4+1, or
    /// (N-1)+1 with --disks N): dle (flash staging, proximal destage), update-in-place
    /// or write-anywhere
    #[arg(long, value_name = "KIND")]
    pub layout: Option<String>,
    /// With --layout: staging area as a percentage of the volume [default: 1]
    #[arg(long, value_name = "PCT")]
    pub staging_pct: Option<f64>,
    /// Put the --disks drives in an array: raid0, raid1, raid4, raid5, or MimdRAID's
    /// mirror:D (a D-way mirror of unsynchronized drives), split:D, split-reliable:D
    /// (D−1 ways and one copy), rsplit:D (replicated splitting), intra:XxY (X·Y
    /// drives) or intra-reliable:XxY (each drive's share also on the next drive) (each
    /// member keeps its own host queue, the --scheduler)
    #[arg(long, value_name = "LEVEL")]
    pub array: Option<String>,
    /// With --array: stripe unit in KiB [default: 64]
    #[arg(long, value_name = "KIB")]
    pub stripe_kib: Option<u64>,
    /// With --array raid1 (or mirror:D, a D-way mirror), rsplit, split-reliable or
    /// intra: how a read picks its replica: least-busy, seek (shortest seek) or
    /// positioning (shortest seek + rotation the drive model predicts) [default:
    /// least-busy for mirrors, positioning for the others]
    #[arg(long, value_name = "CHOICE")]
    pub replica_choice: Option<String>,
    /// With --array: where the member drives' platters stand relative to each other:
    /// aligned, spaced (synchronized, member i at i/n of a turn) or random
    /// (unsynchronized, seeded) [default: aligned; random for mirror:D]
    #[arg(long, value_name = "HOW")]
    pub spindles: Option<String>,
    /// With --array raid5: where data goes around the rotating parity:
    /// left-symmetric or left-asymmetric (the thesis's Figure 6.1) [default:
    /// left-symmetric]
    #[arg(long, value_name = "LAYOUT")]
    pub parity_layout: Option<String>,
    /// Open synthetic workloads: spread requests over all --disks (each request's
    /// drive drawn uniformly, seeded) instead of addressing only the first
    #[arg(long)]
    pub spread: bool,
    /// Put a block cache of this many KiB (LRU, write-through) on top of the stack
    #[arg(long, value_name = "KIB")]
    pub cache_kib: Option<u64>,
    /// Put a RAID-Mimic layer just above the device: it finds a RAID-5's stripe from
    /// timed writes and then sends writes below as whole aligned stripes
    #[arg(long)]
    pub raid_mimic: bool,
    /// Put a layer on top of the stack (repeatable, top first), e.g.
    /// content-cache:arc:50000 (I/O Deduplication's content-addressed cache of 50,000
    /// 4 KiB pages; add :sector for the sector-addressed baseline) or drr (dynamic
    /// replica retrieval; over --synthetic web-vm, mail or homes it starts knowing the
    /// generated disk image's duplicates, as the paper preloads them) or journal[:checksum][:skip=TABLE][:log-mib=N] (a data journal
    /// with real bytes: ext3's log, transactional checksums, log skipping by a miniMimic
    /// table)
    #[arg(long = "layer", value_name = "SPEC")]
    pub layers: Vec<String>,
    /// A TOML run configuration given as text (the Python package's `config=`); it
    /// takes the place of `--config FILE`.
    #[arg(skip)]
    pub config_text: Option<String>,
    /// Greedy, SMTF and on-line SMTF look at only the N oldest waiting requests
    /// (an overloaded queue stays cheap; without a window each decision compares every
    /// waiting request, and a run that compared 25 M, 1,000 or more at once, is noted
    /// after it) [default: all]
    #[arg(long, value_name = "N")]
    pub window: Option<usize>,
}

impl StackArgs {
    /// The configuration: the file's, or the built-in default (DiskSim's hplajw setup:
    /// the HP trace on two HP C2249A disks, SSTF at the host), with flags applied.
    pub fn config(&self) -> Result<RunConfig> {
        let mut c = match (&self.config_text, &self.config) {
            (Some(_), Some(p)) => bail!(
                "the configuration is given twice: as text (config=) and as the file {} \
                 (--config or stack=); give one",
                p.display()
            ),
            (Some(text), _) => RunConfig::from_toml(text, "config").map_err(|e| anyhow!("{e}"))?,
            (None, Some(p)) => {
                let text = crate::limits::read_text(p, crate::limits::MAX_CONFIG_BYTES)?;
                RunConfig::from_toml(&text, &p.display().to_string()).map_err(|e| anyhow!("{e}"))?
            }
            (None, None) => RunConfig {
                seed: 1,
                workload: WorkloadConfig {
                    trace: Some(TraceFiles::one("sample:hplajw")),
                    ..WorkloadConfig::default()
                },
                scheduler: spindle::config::SchedulerConfig {
                    kind: SchedulerKind::Sstf,
                    ..Default::default()
                },
                disks: vec![DiskConfig {
                    disk: "hp-c2249a".into(),
                    count: 2,
                    firmware: None,
                    firmware_queue_depth: None,
                    write_cache_kib: None,
                }],
                device: None,
                layer: Vec::new(),
                array_scheduler: None,
                layout: None,
                source: None,
            },
        };
        if let Some(kind) = &self.layout {
            let kind = match kind.as_str() {
                "dle" | "proximal" => LayoutPolicy::Proximal,
                "update-in-place" => LayoutPolicy::UpdateInPlace,
                "write-anywhere" => LayoutPolicy::WriteAnywhere,
                other => bail!(
                    "--layout: unknown layout `{other}`; expected dle, update-in-place or write-anywhere"
                ),
            };
            let mut l = c.layout.clone().unwrap_or_else(|| LayoutConfig::new(kind));
            // --layout over a file's DLE: a baseline stages nothing, so the file's
            // staging-pct goes with the DLE it was written for (a baseline file that
            // gives one is still refused).
            if l.kind == LayoutPolicy::Proximal && kind != LayoutPolicy::Proximal {
                l.staging_pct = None;
            }
            l.kind = kind;
            if let Some(p) = self.staging_pct {
                l.staging_pct = Some(p);
            }
            c.layout = Some(l);
        } else if let Some(p) = self.staging_pct {
            let Some(l) = c.layout.as_mut() else {
                bail!("--staging-pct applies to a layout engine: give --layout too");
            };
            l.staging_pct = Some(p);
        }
        if let (Some(_), Some(l)) = (self.staging_pct, &c.layout) {
            if l.kind != LayoutPolicy::Proximal {
                bail!(
                    "--staging-pct applies to --layout dle; {} stages nothing in flash",
                    l.kind.name()
                );
            }
        }
        // A configuration's [device] tree names its drives itself: --disk swaps the
        // model of every drive in it; --disks has no one count to set there.
        if let Some(tree) = c.device.as_mut() {
            if let (Some(n), None) = (self.disks, &self.array) {
                bail!(
                    "--disks {n}: the configuration's [device] sets its own member counts; \
                     change them in the file, or give --array to build another array"
                );
            }
            if let Some(d) = &self.disk {
                tree.set_drive_model(d);
            }
        }
        // A layout engine over [[disks]] runs on a RAID-4 of --disks drives.
        if let (Some(l), Some(n), None) = (c.layout.as_mut(), self.disks, &c.device) {
            if n < 2 {
                bail!("--disks {n}: the layout engine's RAID-4 needs at least 2 drives (data and parity)");
            }
            l.data_disks = n as usize - 1;
        }
        let from_file = self.config_text.is_some() || self.config.is_some();
        if let Some(d) = &self.disk {
            // Over a configuration's [[disks]] the model changes and the drives stay:
            // as many as the file has, with its one entry's settings.
            let kept = match c.disks.as_slice() {
                [one] if from_file => one.clone(),
                _ => DiskConfig {
                    disk: String::new(),
                    count: 1,
                    firmware: None,
                    firmware_queue_depth: None,
                    write_cache_kib: None,
                },
            };
            let in_file: u32 = c.disks.iter().map(|d| d.count).fold(0, u32::saturating_add);
            c.disks = vec![DiskConfig {
                disk: d.clone(),
                count: self
                    .disks
                    .unwrap_or(if from_file { in_file.max(1) } else { 1 }),
                ..kept
            }];
        } else if let Some(n) = self.disks {
            if c.disks.len() > 1 {
                bail!(
                    "--disks {n}: the configuration has {} [[disks]] entries, each with its \
                     own count; set them in the file",
                    c.disks.len()
                );
            }
            for d in &mut c.disks {
                d.count = n;
            }
        }
        if !self.trace.is_empty() && self.synthetic.is_some() {
            bail!("give --trace or --synthetic, not both");
        }
        if !self.trace.is_empty() {
            let files = TraceFiles::new(self.trace.clone()).map_err(|e| anyhow!("--trace: {e}"))?;
            c.workload.trace = Some(files);
            c.workload.trace_devices = None;
            c.workload.synthetic = None;
            c.workload.content_trace = None;
            // The file's format named the file's trace, not this one (a --format given
            // here is applied below).
            c.workload.format = None;
        }
        let fiu = self
            .synthetic
            .as_deref()
            .is_some_and(|k| FiuWorkload::parse(k).is_ok());
        if !fiu && (self.scale.is_some() || self.days.is_some()) {
            bail!("--scale and --days apply to --synthetic web-vm, mail or homes");
        }
        if fiu && self.count.is_some() {
            bail!(
                "--count applies to --synthetic open or closed; a web-vm, mail or homes \
                 trace is as long as --scale and --days make it"
            );
        }
        // A trace's length is --limit; a configured synthetic workload its own count.
        if self.synthetic.is_none() && self.count.is_some() {
            bail!(
                "--count applies to --synthetic open or closed (a trace replays its first N \
                 requests with --limit N; a configured [workload.synthetic] sets its own count)"
            );
        }
        self.refuse_unused_generator_flags(fiu)?;
        if let Some(kind) = &self.synthetic {
            c.workload.trace = None;
            c.workload.trace_devices = None;
            c.workload.synthetic = None;
            c.workload.content_trace = None;
            // The file's settings of the trace it replaces go with it (flags given
            // here are applied, and checked, below).
            c.workload.limit = None;
            c.workload.device = None;
            c.workload.format = None;
            c.workload.compress = None;
            match FiuWorkload::parse(kind) {
                Ok(w) => {
                    let spec = ContentTraceSpec::new(
                        w,
                        self.scale.unwrap_or(1.0),
                        self.days.unwrap_or(7),
                        self.seed,
                    );
                    spec.check()
                        .map_err(|e| anyhow!("--synthetic {kind}: {e}"))?;
                    c.workload.content_trace = Some(spec);
                    // The stand-in lays out the paper's file systems (70-500 GB): the
                    // paper's drive holds them; the built-in default disk does not.
                    if self.disk.is_none() && self.config.is_none() && self.config_text.is_none() {
                        c.disks = vec![DiskConfig {
                            disk: "wd5000aakb".into(),
                            count: 1,
                            firmware: None,
                            firmware_queue_depth: None,
                            write_cache_kib: None,
                        }];
                    }
                }
                Err(_) => c.workload.synthetic = Some(self.synthetic_spec(kind)?),
            }
        }
        if let Some(d) = self.device {
            c.workload.device = Some(d);
        }
        if let Some(f) = &self.format {
            c.workload.format = Some(f.clone());
        }
        if let Some(n) = self.trace_devices {
            c.workload.trace_devices = Some(n);
        }
        if let Some(x) = self.compress {
            spindle::workload::check_compress(x).map_err(|e| anyhow!("--{e}"))?;
            c.workload.compress = Some(x);
            c.scheduler.hold_overlapping = true;
        }
        if self.hold_overlapping {
            refuse_where_drives_schedule_themselves(&c, "--hold-overlapping")?;
            c.scheduler.hold_overlapping = true;
        }
        if let Some(n) = self.limit {
            c.workload.limit = Some(n);
        }
        if let Some(q) = self.queue_depth {
            refuse_where_drives_schedule_themselves(&c, "--queue-depth")?;
            // Parsed as u64 so that values past u32 get this limit's message too.
            crate::limits::count("--queue-depth", q, crate::limits::MAX_OUTSTANDING)?;
            c.scheduler.queue_depth = u32::try_from(q)?;
        }
        if let Some(w) = self.max_wait_ms {
            refuse_where_drives_schedule_themselves(&c, "--max-wait-ms")?;
            if !(0.0..=crate::limits::MAX_WAIT_MS).contains(&w) {
                bail!(
                    "--max-wait-ms must be within 0..={} ms, got {w}",
                    crate::limits::MAX_WAIT_MS
                );
            }
            c.scheduler.max_wait_ms = Some(w);
        }
        if let Some(n) = self.mimic_samples {
            refuse_where_drives_schedule_themselves(&c, "--mimic-samples")?;
            crate::limits::count("--mimic-samples", n, crate::limits::MAX_MIMIC_SAMPLES)?;
            c.scheduler.mimic_samples = u32::try_from(n)?;
        }
        if self.mimic_interpolate {
            refuse_where_drives_schedule_themselves(&c, "--mimic-interpolate")?;
            c.scheduler.mimic_interpolate = true;
        }
        if let Some(p) = &self.mimic_table {
            refuse_where_drives_schedule_themselves(&c, "--mimic-table")?;
            c.scheduler.mimic_table = Some(p.clone());
        }
        if let Some(w) = self.window {
            refuse_where_drives_schedule_themselves(&c, "--window")?;
            if w == 0 {
                bail!("--window must be at least 1, got 0");
            }
            c.scheduler.window = Some(w);
        }
        if self.spread {
            c.workload.spread = true;
        }
        if let Some(kib) = self.cache_kib {
            c.layer.insert(
                0,
                LayerSpec::Cache(CacheSpec {
                    size_kib: kib,
                    hit_us: 20.0,
                }),
            );
        }
        if self.raid_mimic {
            c.layer.push(LayerSpec::RaidMimic(RaidMimicSpec::default()));
        }
        for (i, l) in self.layers.iter().enumerate() {
            let spec = match l.split(':').next() {
                Some("content-cache") => LayerSpec::ContentCache(
                    spindle::dedup::ContentCacheSpec::parse_cli(l).map_err(|e| anyhow!("{e}"))?,
                ),
                Some("drr") if l == "drr" => LayerSpec::Drr(spindle::dedup::DrrSpec::default()),
                Some("journal") => LayerSpec::Journal(
                    spindle::stack::journal::JournalSpec::parse_cli(l).map_err(|e| anyhow!("{e}"))?,
                ),
                _ => {
                    return Err(anyhow!(
                    "--layer `{l}`: expected content-cache:arc|lru:PAGES[:content|sector], drr (over --synthetic web-vm, mail or homes its duplicate map is preloaded from the generated disk image) or journal[:checksum][:skip=TABLE]"
                ))
                }
            };
            c.layer.insert(i, spec);
        }
        // Over the generated stand-in, DRR knows the disk image's duplicates from the
        // start, as the paper preloads them (DEDUP-F10, F11).
        if let Some(w) = &c.workload.content_trace {
            for l in &mut c.layer {
                if let LayerSpec::Drr(d) = l {
                    if d.preload.is_none() && self.layers.iter().any(|l| l == "drr") {
                        d.preload = Some(w.clone());
                    }
                }
            }
        }
        if let Some(level) = &self.array {
            let tree = c.device_tree().map_err(|e| anyhow!("{e}"))?;
            tree.check_drive_count().map_err(|e| anyhow!("{e}"))?;
            let mut disks = tree.disks();
            if disks.is_empty() {
                disks.push(DiskSpec::new("hp-c2249a"));
            }
            // MimdRAID's organizations (every `KIND:N` form) run on the paper's drive,
            // Table 1's Cheetah 9LP, unless a drive is named: replicas placed within a
            // drive need every track mapped, and the built-in default disk has spares.
            // (A generated I/O Deduplication workload has already put its file systems
            // on the paper's drive.)
            let named = self.disk.is_some()
                || self.config.is_some()
                || self.config_text.is_some()
                || c.workload.content_trace.is_some();
            if level.contains(':') && !named {
                disks = vec![DiskSpec::new("st34502lw")];
            }
            let mut n = self
                .disks
                .unwrap_or(if self.disk.is_some() { 4 } else { 2 });
            let mut spindles = None;
            let mut intra = None;
            let level = match level.split_once(':') {
                Some(("mirror", d)) => {
                    n = d
                        .parse()
                        .ok()
                        .filter(|&d| (2..=MAX_MEMBERS).contains(&d))
                        .ok_or_else(|| {
                            anyhow!("--array mirror:D needs D within 2..={MAX_MEMBERS}, got `{d}`")
                        })?;
                    // MimdRAID's mirrors are unsynchronized unless said otherwise.
                    spindles = Some(Spindles::Random);
                    "raid1"
                }
                Some(("split" | "split-reliable" | "rsplit", d)) => {
                    n = d
                        .parse()
                        .ok()
                        .filter(|&d| (1..=MAX_MEMBERS).contains(&d))
                        .ok_or_else(|| {
                            anyhow!("--array {level} needs D within 1..={MAX_MEMBERS}, got `{d}`")
                        })?;
                    level.split_once(':').map_or("split", |(k, _)| k)
                }
                Some((kind @ ("intra" | "intra-reliable"), xy)) => {
                    let parsed = xy.split_once('x').and_then(|(x, y)| {
                        let (x, y) = (x.parse::<u32>().ok()?, y.parse::<u32>().ok()?);
                        (x >= 1 && y >= 1 && x.checked_mul(y)? <= MAX_MEMBERS).then_some((x, y))
                    });
                    let (x, y) = parsed.ok_or_else(|| {
                        anyhow!(
                            "--array {kind}:XxY needs X, Y >= 1 with X*Y <= {MAX_MEMBERS} (e.g. {kind}:2x2), got `{xy}`"
                        )
                    })?;
                    n = x * y;
                    intra = Some((x, y));
                    kind
                }
                _ => level.as_str(),
            };
            // MimdRAID's KIND:D forms give the member count themselves.
            let counted = self.array.as_deref().filter(|a| a.contains(':'));
            if let (Some(form), Some(given)) = (counted, self.disks.filter(|&g| g != n)) {
                bail!("--disks {given} and --array {form} disagree: the array has {n} drives; drop --disks");
            }
            if let Some(h) = &self.spindles {
                spindles = Some(match h.as_str() {
                    "aligned" => Spindles::Aligned,
                    "spaced" => Spindles::Spaced,
                    "random" => Spindles::Random,
                    other => bail!("--spindles must be aligned, spaced or random, got `{other}`"),
                });
            }
            let replica_choice = match self.replica_choice.as_deref() {
                None => None,
                Some("least-busy") => Some(ReplicaChoice::LeastBusy),
                Some("seek") => Some(ReplicaChoice::Seek),
                Some("positioning") => Some(ReplicaChoice::Positioning),
                Some(other) => {
                    bail!("--replica-choice must be least-busy, seek or positioning, got `{other}`")
                }
            };
            let replicated = [
                "raid1",
                "mirror",
                "rsplit",
                "split-reliable",
                "intra",
                "intra-reliable",
            ];
            if replica_choice.is_some() && !replicated.contains(&level) {
                bail!("--replica-choice needs a mirror or another array with replicas: --array raid1, mirror:D, rsplit:D, split-reliable:D or intra:XxY");
            }
            let parity_layout = match self.parity_layout.as_deref() {
                None => None,
                Some(_) if level != "raid5" => bail!("--parity-layout needs --array raid5"),
                Some("left-symmetric") => Some(ParityLayout::LeftSymmetric),
                Some("left-asymmetric") => Some(ParityLayout::LeftAsymmetric),
                Some(other) => bail!(
                    "--parity-layout must be left-symmetric or left-asymmetric, got `{other}`"
                ),
            };
            let mut arr = ArraySpec {
                stripe_kib: self.stripe_kib,
                replica_choice,
                spindles,
                parity_layout,
                ..ArraySpec::of(n, DeviceSpec::Disk(disks[0].clone()))
            };
            if let Some((x, y)) = intra {
                arr.split = Some(x);
                arr.rotational = Some(y);
            }
            if level == "split-reliable" || level == "intra-reliable" {
                arr.reliable = Some(true);
            }
            c.device = Some(match level {
                "raid0" => DeviceSpec::Raid0(arr),
                "raid1" | "mirror" => DeviceSpec::Raid1(arr),
                "raid4" => DeviceSpec::Raid4(arr),
                "raid5" => DeviceSpec::Raid5(arr),
                "split" | "split-reliable" => DeviceSpec::Split(arr),
                "rsplit" => DeviceSpec::ReplicatedSplit(arr),
                "intra" | "intra-reliable" => DeviceSpec::Intra(arr),
                other => {
                    bail!("--array must be raid0, raid1, raid4, raid5, mirror:D, split:D, split-reliable:D, rsplit:D, intra:XxY or intra-reliable:XxY, got `{other}`")
                }
            });
        } else if self.stripe_kib.is_some() {
            bail!("--stripe-kib needs --array");
        } else if self.replica_choice.is_some() || self.spindles.is_some() {
            bail!("--replica-choice and --spindles need --array");
        } else if self.parity_layout.is_some() {
            bail!("--parity-layout needs --array raid5");
        }
        // A synthetic workload the flags did not build is the file's.
        check_config(&c, self.synthetic.is_none())?;
        Ok(c)
    }
}

/// Checks a run's configuration (file and flags merged; a file's `[workload.synthetic]`
/// counts as the file's), before anything is built: that synthetic workload, the
/// scheduler tables' ranges, compress and the drives' firmware queue depths.
fn check_config(c: &RunConfig, synthetic_from_file: bool) -> Result<()> {
    let file = c
        .source
        .as_deref()
        .map(|f| format!("{f}: "))
        .unwrap_or_default();
    if let Some(w) = c
        .workload
        .synthetic
        .as_ref()
        .filter(|_| synthetic_from_file)
    {
        // What does not depend on the drive, which is not built yet: the addresses are
        // checked against its capacity when the workload is loaded.
        w.clone()
            .with_capacity(u64::MAX)
            .validate()
            .map_err(|e| anyhow!("{file}workload.synthetic.{e}"))?;
        // An empty workload is the library's to build, not a run's: it would print a
        // summary of nothing.
        let (key, n) = match w {
            WorkloadSpec::Synthetic(o) => ("count", o.count),
            WorkloadSpec::Closed(c) => ("requests", c.requests),
        };
        if n == 0 {
            bail!("{file}workload.synthetic.{key} must be at least 1, got 0");
        }
    }
    let queues = std::iter::once(("scheduler", &c.scheduler))
        .chain(c.array_scheduler.as_ref().map(|s| ("array-scheduler", s)));
    for (table, s) in queues {
        // The table's ranges (the rules that depend on the scheduler's kind wait for
        // --scheduler, applied later). The flags that set these are checked as flags,
        // so a bad value here is the file's.
        s.check_ranges().map_err(|e| anyhow!("{file}{table}.{e}"))?;
    }
    if let Some(f) = c.workload.compress {
        spindle::workload::check_compress(f).map_err(|e| anyhow!("{file}workload.{e}"))?;
    }
    let most = spindle::disk::params::MAX_FIRMWARE_QUEUE_DEPTH;
    for d in &c.disks {
        if let Some(q) = d.firmware_queue_depth {
            if q == 0 || q > most {
                bail!(
                    "{file}disks.firmware-queue-depth for `{}` must be within 1..={most}, got {q}",
                    d.disk
                );
            }
            let host = c.scheduler.queue_depth;
            if q < host {
                bail!(
                    "{file}disks.firmware-queue-depth {q} for `{}` is below scheduler.queue-depth \
                     {host}: the host keeps up to {host} requests at the drive, which its \
                     firmware must hold; give firmware-queue-depth of {host} or more, or a \
                     smaller queue-depth",
                    d.disk
                );
            }
        }
    }
    Ok(())
}

impl StackArgs {
    /// Refuses a generator flag the run would not use: every one of them without
    /// --synthetic open or closed, --rate in a closed loop, --processes and --think-ms in
    /// an open one, --zipf-theta and --run-len with another --pattern.
    fn refuse_unused_generator_flags(&self, fiu: bool) -> Result<()> {
        // An unknown kind is refused where the workload is built, naming the kinds.
        if let Some(k) = self.synthetic.as_deref() {
            if !fiu && k != "open" && k != "closed" {
                return Ok(());
            }
        }
        const BOTH: &str = "open or closed";
        let given = [
            ("--pattern", self.pattern.is_some(), BOTH),
            ("--zipf-theta", self.zipf_theta.is_some(), BOTH),
            ("--run-len", self.run_len.is_some(), BOTH),
            ("--size", self.size.is_some(), BOTH),
            ("--read-fraction", self.read_fraction.is_some(), BOTH),
            ("--rate", self.rate.is_some(), "open"),
            ("--processes", self.processes.is_some(), "closed"),
            ("--think-ms", self.think_ms.is_some(), "closed"),
        ];
        let kind = self.synthetic.as_deref().filter(|_| !fiu);
        for (flag, given, kinds) in given {
            if given && !kind.is_some_and(|k| kinds.split(" or ").any(|x| x == k)) {
                bail!(
                    "{flag} applies to --synthetic {kinds}{}",
                    match (self.synthetic.as_deref(), fiu) {
                        (None, _) => " (a trace, or a configured workload, sets its own)",
                        (Some(_), true) =>
                            "; a web-vm, mail or homes trace is generated from its published \
                             characteristics alone (--scale, --days)",
                        (Some(_), false) => "",
                    }
                );
            }
        }
        let pattern = self.pattern.as_deref().unwrap_or("uniform");
        if !["uniform", "sequential", "zipf"].contains(&pattern) {
            return Ok(()); // refused where the workload is built, naming the patterns
        }
        if pattern != "zipf" && self.zipf_theta.is_some() {
            bail!("--zipf-theta applies to --pattern zipf");
        }
        if pattern != "sequential" && self.run_len.is_some() {
            bail!("--run-len applies to --pattern sequential");
        }
        Ok(())
    }

    fn synthetic_spec(&self, kind: &str) -> Result<WorkloadSpec> {
        // A think time is a gap between arrivals: no longer than a run may last.
        let most_ms = spindle::engine::MAX_ARRIVAL_NS as f64 / 1e6;
        let think_ms = self.think_ms.unwrap_or(0.0);
        if !(think_ms.is_finite() && (0.0..=most_ms).contains(&think_ms)) {
            bail!(
                "--think-ms must be within 0..={} ms (the longest a run may last), got {}",
                spindle::show::value(most_ms),
                spindle::show::value(think_ms)
            );
        }
        let count = self.count.unwrap_or(DEFAULT_COUNT);
        if count == 0 {
            bail!("--count must be at least 1");
        }
        let pattern = match self.pattern.as_deref().unwrap_or("uniform") {
            "uniform" => Pattern::Uniform,
            "sequential" => Pattern::Sequential {
                run_len: self.run_len.unwrap_or(16),
            },
            "zipf" => Pattern::Zipf {
                theta: self.zipf_theta.unwrap_or(0.9),
                buckets: 1000,
            },
            other => {
                return Err(anyhow!(
                    "--pattern must be uniform, sequential or zipf, got `{other}`"
                ))
            }
        };
        let gen = GenSpec {
            pattern,
            sizes: Sizes::Fixed {
                sectors: self.size.unwrap_or(8),
            },
            read_fraction: self.read_fraction.unwrap_or(0.66),
            align: None,
            start: 0,
            span: None,
            capacity: None,
        };
        Ok(match kind {
            "open" => WorkloadSpec::Synthetic(OpenSpec {
                gen,
                arrivals: Arrivals::Poisson {
                    rate_per_s: self.rate.unwrap_or(100.0),
                },
                count,
                seed: self.seed,
                device: 0,
            }),
            "closed" => WorkloadSpec::Closed(ClosedSpec {
                processes: self.processes.unwrap_or(4),
                think: if think_ms > 0.0 {
                    Think::Exponential {
                        mean_ns: think_ms * 1e6,
                    }
                } else {
                    Think::None
                },
                requests: count,
                gen,
                seed: self.seed,
                device: 0,
            }),
            other => {
                return Err(anyhow!(
                    "--synthetic must be open, closed, web-vm, mail or homes, got `{other}`"
                ))
            }
        })
    }
}

/// Loads (or builds) the workload a configuration names; synthetic addresses span the
/// first unit of the stack (the array, or the first drive).
pub fn load_workload(c: &RunConfig) -> Result<LoadedWorkload> {
    let built = c.build().map_err(|e| anyhow!("{e}"))?;
    let units = &built.units.units;
    // Spread over every unit, addresses must fit the smallest.
    let capacity = if c.workload.spread {
        units.iter().map(|u| u.1).min().unwrap_or(0)
    } else {
        units.first().map_or(0, |u| u.1)
    };
    c.workload.load(capacity).map_err(|e| anyhow!("{e}"))
}

/// Where in the trace request `index` (the engine's count) with these fields is: the
/// `index`-th record kept if it has them (a trace in arrival order), else the first
/// record that has them (a trace the run sorted).
fn locate_in_trace(
    c: &RunConfig,
    files: &TraceFiles,
    index: u64,
    device: u32,
    lbn: u64,
    blocks: u32,
) -> Option<String> {
    let format = c.workload.format.as_deref().and_then(|f| f.parse().ok());
    let mut stream = spindle::trace::merge::open(files, format, c.workload.trace_devices).ok()?;
    let mut first = None;
    let mut kept = 0u64;
    while let Some(Ok(r)) = stream.next() {
        if c.workload.device.is_some_and(|d| r.device != d) {
            continue;
        }
        let same_device = c.workload.device.is_some() || r.device == device;
        let same = same_device && r.lbn == lbn && r.blocks == blocks;
        if same && (kept == index || first.is_none()) {
            let at = format!("{}{}", stream.file(), stream.position()?);
            if kept == index {
                return Some(at);
            }
            first = Some(at);
        }
        if kept >= index && first.is_some() {
            break;
        }
        kept += 1;
    }
    first
}

/// What a run measured.
pub struct Outcome {
    pub metrics: Metrics,
    /// Per-node statistics, top of the stack first.
    pub nodes: Vec<NodeReport>,
}

/// Runs one configuration with a progress bar labelled `label` (none when it is
/// empty); `on_done` sees each request as it completes.
pub fn run_config(
    c: &RunConfig,
    w: &mut LoadedWorkload,
    label: &str,
    on_done: &mut dyn FnMut(&RequestLog) -> Result<()>,
) -> Result<Outcome> {
    // A content cache or DRR at the top takes the workload's content hashes (FIU traces).
    let feed = matches!(
        c.layer.first(),
        Some(LayerSpec::ContentCache(_) | LayerSpec::Drr(_))
    )
    .then(spindle::dedup::ContentFeed::new);
    let mut built = c.build_fed(feed.as_ref()).map_err(|e| anyhow!("{e}"))?;
    let total = match w {
        LoadedWorkload::Open(r) => r.len() as u64,
        LoadedWorkload::Stream(s) => s.remaining(),
        LoadedWorkload::Trace(t) => t.count,
        LoadedWorkload::Closed(c) => c.spec().requests,
    };
    let mut bar = if label.is_empty() {
        Progress::hidden()
    } else {
        Progress::new(total, label)
    };
    let mut trace_err = None;
    let source = match w {
        LoadedWorkload::Open(r) => Source::records(r),
        // Generated on a second core while the run consumes it (same records, same
        // order): the stream's own state stays where it was.
        LoadedWorkload::Stream(s) if c.workload.spread => Source::Open {
            requests: Box::new(spindle::offload::ahead(spindle::workload::spread_devices(
                (**s).clone(),
                built.units.units.len() as u32,
                match &c.workload.synthetic {
                    Some(WorkloadSpec::Synthetic(o)) => o.seed,
                    _ => c.seed,
                },
            ))),
            // One device per unit: nothing shares a unit.
            stride: 0,
        },
        LoadedWorkload::Stream(s) => Source::Open {
            requests: Box::new(spindle::offload::ahead((**s).clone())),
            // One device: nothing shares a unit.
            stride: 0,
        },
        // Read, decompressed and parsed on a second core while the run consumes it
        // (same records, same order); a run consumes its workload.
        LoadedWorkload::Trace(t) => Source::Open {
            requests: Box::new(spindle::trace::records_until_error(
                spindle::offload::ahead(std::mem::replace(
                    &mut t.records,
                    Box::new(std::iter::empty()),
                )),
                &mut trace_err,
            )),
            stride: t.stride,
        },
        LoadedWorkload::Closed(c) => Source::Closed(c),
    };
    let source = match (feed.as_ref(), source) {
        // The content unit is the 4 KiB page: runs of eight 512-byte records with
        // sector digests (FIU homes) become one page record; others pass unchanged.
        (Some(feed), Source::Open { requests, stride }) => Source::Open {
            requests: Box::new(feed.tap(spindle::dedup::combine_sectors(requests))),
            stride,
        },
        (_, source) => source,
    };
    // The metrics are summed on a second core, in completion order, as the run goes.
    let mut sink = spindle::offload::behind(MetricsSink::new(built.drives), |s, l| s.record(&l));
    let mut failed: Option<anyhow::Error> = None;
    // Set when `on_done` fails (an output that cannot be written): the run ends then.
    let stop = std::cell::Cell::new(false);
    let mut done = 0u64;
    let ran = engine::run(
        built.root.as_mut(),
        &built.units,
        source,
        RunOptions {
            stop: Some(&stop),
            ..RunOptions::default()
        },
        &mut |l| {
            // A freeblock queue's own background reads are no workload request: the
            // metrics leave them out (its node counts them, as under an array, where
            // they never come up); `on_done` sees them marked.
            if !l.background {
                sink.push(*l);
                done += 1;
            }
            if done.is_multiple_of(4096) {
                bar.set(done);
            }
            if failed.is_none() {
                if let Err(e) = on_done(l) {
                    failed = Some(e);
                    stop.set(true);
                }
            }
        },
    );
    if let Some(e) = failed {
        // A trace error came first: it ended the input before any later write failed.
        if let Some(t) = trace_err {
            bail!("{t}");
        }
        return Err(e);
    }
    ran.map_err(|e| match (&e, c.workload.trace.as_ref()) {
        (
            engine::EngineError::BeyondCapacity {
                index,
                device,
                lbn,
                blocks,
                capacity,
                offset,
                ..
            },
            Some(spec),
        ) => {
            let end = offset
                .saturating_add(*lbn)
                .saturating_add(u64::from(*blocks));
            // The journal is to blame only when the request would fit without its log.
            let journal = c.layer.iter().find_map(|l| match l {
                LayerSpec::Journal(j) if end <= capacity.saturating_add(j.reserved_sectors()) => {
                    Some(j.log_mib)
                }
                _ => None,
            });
            // A device that starts at sector 0 is simply larger than the disk, unless a
            // journal's log took the sectors past it.
            let hint = if let Some(log_mib) = journal {
                format!(
                    "; the journal layer keeps its {log_mib} MiB log out of the address space, \
                     so the stack offers fewer sectors than the disk holds (a smaller log, \
                     journal:log-mib=N, or a larger disk)"
                )
            } else if *offset == 0 {
                let mut flags = c
                    .workload
                    .format
                    .as_deref()
                    .map_or(String::new(), |f| format!(" --format {f}"));
                if let Some(n) = c.workload.trace_devices {
                    flags += &format!(" --trace-devices {n}");
                }
                format!(
                    "; it needs a disk of at least {} sectors (`spindle disks` lists their \
                     capacities) or an array over several (--array raid0 --disks N); `spindle \
                     trace {}{flags}` shows each trace device's extent",
                    lbn.saturating_add(u64::from(*blocks)),
                    spec.specs().join(" ")
                )
            } else {
                String::new()
            };
            match locate_in_trace(c, spec, *index, *device, *lbn, *blocks) {
                Some(at) => anyhow!("{at}: {e}{hint}"),
                None => anyhow!("{e}{hint}"),
            }
        }
        (
            engine::EngineError::TooLarge {
                index,
                device,
                lbn,
                blocks,
            }
            | engine::EngineError::TooLate {
                index,
                device,
                lbn,
                blocks,
                ..
            },
            Some(spec),
        ) => match locate_in_trace(c, spec, *index, *device, *lbn, *blocks) {
            Some(at) => anyhow!("{at}: {e}"),
            None => anyhow!("{e}"),
        },
        _ => anyhow!("{e}"),
    })
    .map_err(|e| match c.workload.device {
        // The engine sees the kept device renumbered 0.
        Some(d) => e.context(format!(
            "device 0 here is the trace's device {d} (--device {d})"
        )),
        None => e,
    })?;
    bar.set(done);
    bar.finish();
    if let Some(e) = trace_err {
        bail!("{e}");
    }
    let sink = sink.finish();
    let nodes = run_reports(built.root.as_ref(), sink.span());
    let mut metrics = sink.finish();
    metrics.utilization = drive_utilization(&nodes, metrics.makespan_ms);
    Ok(Outcome { metrics, nodes })
}

/// Candidates a scanning scheduler compared in a run, beyond which its time is worth
/// explaining: each decision is linear in the queue, so a run's time grows with the
/// queue's length times its requests (at tens of ns a candidate, this many take about
/// a second; a queue of 100,000, minutes).
const SCAN_NOTE_COMPARED: u64 = 25_000_000;

/// ... when some decision compared at least this many: a long queue, not merely a long
/// run of short ones (40 processes of a closed loop scan 40 at most).
const SCAN_NOTE_QUEUE: u64 = 1_000;

/// What to tell the user after a run whose scanning scheduler (greedy, SMTF, the
/// on-line Mimics) compared long queues in its decisions, if any (the queue that
/// compared the most).
pub fn scan_note(nodes: &[NodeReport]) -> Option<String> {
    let get = |n: &NodeReport, key: &str| {
        let (_, v) = n.extra.iter().find(|(k, _)| k == key)?;
        v.parse::<u64>().ok()
    };
    let (all, node) = nodes
        .iter()
        .filter_map(|n| Some((get(n, "compared")?, n)))
        .max_by_key(|(all, _)| *all)?;
    let most = get(node, "most compared").unwrap_or(0);
    let kind = node.kind.strip_prefix("queue ").unwrap_or(&node.kind);
    (all >= SCAN_NOTE_COMPARED && most >= SCAN_NOTE_QUEUE).then(|| {
        format!(
            "{kind} at {} compared {all} waiting requests in its decisions, up to {most} in \
             one: each decision compares all it may (every waiting request, or a window's \
             N oldest), so a long queue makes a run's time grow with the queue's length \
             times its requests. A window of N bounds it: --window N, `window = N` in the \
             scheduler's table, window=N in Python",
            node.path
        )
    })
}

/// Per-node statistics as a table.
fn nodes_text(nodes: &[NodeReport], makespan_ms: f64) -> String {
    let mut t = Table::new(&[
        ("node", Align::Left),
        ("kind", Align::Left),
        ("reads", Align::Right),
        ("writes", Align::Right),
        ("busy", Align::Right),
        ("", Align::Left),
    ]);
    for n in nodes {
        let busy = if n.is_drive && makespan_ms > 0.0 {
            format!("{:.1} %", n.busy_ns as f64 / 1e6 / makespan_ms * 100.0)
        } else {
            String::new()
        };
        let extra: Vec<String> = n.extra.iter().map(|(k, v)| format!("{k} {v}")).collect();
        t.row(vec![
            n.path.clone(),
            n.kind.clone(),
            n.reads.to_string(),
            n.writes.to_string(),
            busy,
            extra.join(", "),
        ]);
    }
    t.render()
}

fn summary_text(c: &RunConfig, m: &Metrics) -> String {
    let stack = match &c.layout {
        Some(l) => format!(
            "layout {} over a {}+1 RAID-4 ({}), one request at a time",
            l.kind.name(),
            l.data_disks,
            match &c.device {
                Some(_) => stack_text(c),
                None => format!(
                    "disks: {}, each queued fcfs in issue order",
                    c.disks.first().map_or("-", |d| d.disk.as_str())
                ),
            }
        ),
        None => match own_schedulers(c) {
            // Drives with queues of their own: the [scheduler] reaches only the others.
            Some((own, shared)) if !own.is_empty() => format!(
                "drives queued by their own schedulers ({}){}, {}",
                own.join("; "),
                if shared > 0 {
                    format!(
                        ", {shared} by the {} scheduler, {} outstanding",
                        c.scheduler.kind.name(),
                        c.scheduler.queue_depth
                    )
                } else {
                    String::new()
                },
                stack_text(c)
            ),
            _ => format!(
                "{} scheduler, {} outstanding per drive, {}",
                c.scheduler.kind.name(),
                c.scheduler.queue_depth,
                stack_text(c)
            ),
        },
    };
    // The host queue above an array, when the file gives one.
    let stack = match &c.array_scheduler {
        Some(a) => format!(
            "{} array scheduler, {} outstanding at the array; {stack}",
            a.kind.name(),
            a.queue_depth
        ),
        None => stack,
    };
    let mut s = format!(
        "workload   {}\nstack      {stack}\n\n",
        c.workload.describe(),
    );
    let counted = |n: u64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    s += &format!(
        "requests   {} ({}, {}) over {:.1} s simulated, {:.1} requests/s\n",
        m.requests,
        counted(m.reads as u64, "read"),
        counted(m.writes as u64, "write"),
        m.makespan_ms / 1000.0,
        m.throughput_per_s
    );
    s += &format!(
        "response   mean {:.3} ms   p50 {:.3}   p90 {:.3}   p99 {:.3}   max {:.3}\n",
        m.mean_response_ms,
        m.p50_response_ms,
        m.p90_response_ms,
        m.p99_response_ms,
        m.max_response_ms
    );
    if c.layout.is_some() {
        // A layout request's service is its whole flash and RAID-4 work (many drive
        // I/Os): there is no one drive's breakdown to show; the node table has them.
        s += &format!(
            "service    mean {:.3} ms in the layout engine and its array; queueing mean {:.3} ms before it started\n",
            m.mean_service_ms, m.mean_queue_ms
        );
    } else if !c.layer.is_empty() {
        // A layer may serve a request with several I/Os below (a journal's log write
        // and commit, a split's pieces) or none (a cache hit): no one drive's
        // breakdown adds up to its time; the node table has the drives'.
        s += &format!(
            "service    mean {:.3} ms from its start in the top layer to its completion; cache hits {:.1} %\n\
             queueing   mean {:.3} ms before the top layer started it\n",
            m.mean_service_ms,
            m.cache_hit_fraction * 100.0,
            m.mean_queue_ms
        );
    } else {
        let b = &m.mean_breakdown;
        let parts = format!(
            "overhead {:.3} + seek {:.3} + rotation {:.3} + transfer {:.3}",
            b.overhead_ms, b.seek_ms, b.rotation_ms, b.transfer_ms
        );
        if c.device_tree().is_ok_and(|d| one_drive_per_request(&d)) {
            s += &format!(
                "at disk    mean {:.3} ms = {parts}; cache hits {:.1} %\n",
                m.mean_service_ms,
                m.cache_hit_fraction * 100.0
            );
        } else {
            // An array's request is served by several drives at once: its time at the
            // disks is first start to last end, and their work adds up to more or less.
            let work = b.overhead_ms + b.seek_ms + b.rotation_ms + b.transfer_ms;
            s += &format!(
                "at disk    mean {:.3} ms from the first drive's start to the last one's end; cache hits {:.1} %\n\
                 drive work mean {work:.3} ms a request, summed over the drives that served it = {parts}\n",
                m.mean_service_ms,
                m.cache_hit_fraction * 100.0
            );
        }
        s += &format!(
            "queueing   mean {:.3} ms before the drive started\n",
            m.mean_queue_ms
        );
    }
    let util: Vec<String> = m
        .utilization
        .iter()
        .map(|u| format!("{:.1} %", u * 100.0))
        .collect();
    s += &format!("busy       {}\n", util.join(", "));
    s
}

/// Whether every request reaches exactly one drive (a drive, or volumes of them), so
/// its time at the disk is that drive's overhead, seek, rotation and transfer.
fn one_drive_per_request(d: &DeviceSpec) -> bool {
    match d {
        DeviceSpec::Disk(_) => true,
        DeviceSpec::Volumes(a) => a
            .members
            .iter()
            .chain(a.member.as_deref())
            .all(one_drive_per_request),
        _ => false,
    }
}

/// The drives of a configuration in a few words.
fn stack_text(c: &RunConfig) -> String {
    let below = stack_below_layers(c);
    if c.layer.is_empty() {
        return below;
    }
    let layers: Vec<&str> = c.layer.iter().map(|l| l.kind()).collect();
    format!("{} over {below}", layers.join(" over "))
}

/// The device tree's (or the `[[disks]]`') description.
fn stack_below_layers(c: &RunConfig) -> String {
    // The [[disks]] stand as volumes side by side; a [device] describes itself.
    match c.device_tree() {
        Ok(DeviceSpec::Volumes(_)) | Err(_) if c.device.is_none() => {
            let disks: Vec<String> = c
                .disks
                .iter()
                .map(|d| format!("{} × {}", d.count, d.disk))
                .collect();
            format!("disks: {}", disks.join(", "))
        }
        Ok(t) => {
            let disks = t.disks();
            let mut models: Vec<&str> = disks.iter().map(|d| d.disk.as_str()).collect();
            models.dedup();
            let name = if models.len() == 1 {
                models[0].to_string()
            } else {
                "drives".into()
            };
            format!("{} of {} × {}", t.kind(), disks.len(), name)
        }
        Err(e) => format!("(the device cannot be described: {e})"),
    }
}

/// How `spindle run` prints its result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// The summary as text (and the node table).
    #[default]
    Text,
    /// The configuration, metrics and nodes as JSON (`--json`).
    Json,
    /// fio's JSON output (`fio --output-format=json`): see `spindle::stack::fio`.
    FioJson,
}

impl OutputFormat {
    /// The output format a `--format` value names, if it names one (`text`, `json`,
    /// `fio-json`) rather than a trace format.
    pub fn from_name(name: &str) -> Option<OutputFormat> {
        match name {
            "text" => Some(OutputFormat::Text),
            "json" => Some(OutputFormat::Json),
            "fio-json" => Some(OutputFormat::FioJson),
            _ => None,
        }
    }
}

/// The fio-JSON summary of a finished run whose job options (see [`fio_job_options`])
/// are `options` and whose completed requests are `logs` (the rows a front end kept).
pub fn fio_json_of_logs(
    options: &[(String, String)],
    logs: impl IntoIterator<Item = impl std::borrow::Borrow<RequestLog>>,
) -> serde_json::Value {
    let mut fio = FioSummary::new();
    // The workload's requests only (a freeblock queue's background reads are its own).
    for l in logs {
        if !l.borrow().background {
            fio.record(l.borrow());
        }
    }
    fio.to_json("spindle", options)
}

/// A run's settings as fio's `job options`: workload, scheduler, queue depth, stack
/// and seed.
pub fn fio_job_options(c: &RunConfig) -> Vec<(String, String)> {
    [
        ("workload", c.workload.describe()),
        ("scheduler", c.scheduler.kind.name()),
        ("queue_depth", c.scheduler.queue_depth.to_string()),
        ("stack", stack_text(c)),
        ("seed", c.seed.to_string()),
    ]
    .map(|(k, v)| (k.to_string(), v))
    .to_vec()
}

/// The fio document of a finished run of `c`: `{"fio version", "jobs": [job]}`.
pub fn fio_value(c: &RunConfig, fio: &FioSummary) -> serde_json::Value {
    fio.to_json("spindle", &fio_job_options(c))
}

/// `spindle run`: one run of these options, printed in `format`; with `csv` each
/// request is written there as it completes (`-`: standard output, and the summary is
/// then written to standard error here, the caller printing nothing); `print_stack`
/// draws the stack and stops.
pub fn run_with_format(
    args: &StackArgs,
    scheduler: Option<SchedulerKind>,
    format: OutputFormat,
    csv: Option<&Path>,
    print_stack: bool,
) -> Result<String> {
    let mut c = args.config()?;
    if let Some(s) = scheduler {
        check_scheduled(&c, "--scheduler")?;
        c.scheduler.kind = s;
    }
    check_mimic_flags(args, &c, &[c.scheduler.kind])?;
    if print_stack {
        return c.describe_stack().map_err(|e| anyhow!("{e}"));
    }
    let to_stdout = csv.is_some_and(crate::outputs::is_stdout);
    if let Some(out) = csv.filter(|_| !to_stdout) {
        let inputs = files_read(&c);
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        crate::outputs::check_output("--requests-csv", out, &inputs)?;
    }
    // A long trace's first pass (its extent, its order) says it is under way.
    let mut reading = match c.workload.trace.as_ref().map(TraceFiles::specs) {
        Some([one]) => match crate::outputs::trace_file(one) {
            Some(file) => Progress::waiting(&format!("reading {}", file.display())),
            None => Progress::hidden(),
        },
        Some(many) => Progress::waiting(&format!("reading {} trace files", many.len())),
        None => Progress::hidden(),
    };
    let loaded = load_workload(&c);
    reading.finish();
    let mut w = loaded?;
    let mut out = match csv {
        Some(path) => {
            let (sink, name): (Box<dyn std::io::Write + Send>, String) = if to_stdout {
                (Box::new(std::io::stdout()), "standard output".into())
            } else {
                let f = std::fs::File::create(path)
                    .with_context(|| format!("cannot create {}", path.display()))?;
                (Box::new(f), path.display().to_string())
            };
            // A file named .gz or .zst is written compressed.
            let how = OutputCompression::of(path);
            let compressed = CompressedWriter::new(sink, how)
                .with_context(|| format!("cannot start compressing {name}"))?;
            let mut f = std::io::BufWriter::new(compressed);
            spindle::stack::metrics::write_requests_csv_header(&mut f)
                .with_context(|| format!("cannot write {name}"))?;
            Some((f, name))
        }
        None => None,
    };
    let mut fio = FioSummary::new();
    // No progress bar between rows that go to the same terminal.
    let label = if to_stdout && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        ""
    } else {
        "replaying"
    };
    let r = run_config(&c, &mut w, label, &mut |l| {
        // The workload's requests only (a freeblock queue's background reads are its own).
        if l.background {
            return Ok(());
        }
        if format == OutputFormat::FioJson {
            fio.record(l);
        }
        if let Some((f, name)) = out.as_mut() {
            write_request_line(l, f).with_context(|| format!("cannot write {name}"))?;
        }
        Ok(())
    });
    let flushed = r.and_then(|r| {
        if let Some((f, name)) = out.take() {
            f.into_inner()
                .map_err(std::io::IntoInnerError::into_error)
                .and_then(CompressedWriter::finish)
                .with_context(|| format!("cannot write {name}"))?;
        }
        Ok(r)
    });
    let r = match flushed {
        // The rows' reader went away (`| head`): the run stopped there, not an error.
        Err(e) if to_stdout && crate::outputs::reader_went_away(&e) => return Ok(String::new()),
        r => r?,
    };
    if let Some(note) = scan_note(&r.nodes) {
        crate::outputs::summary_to_stderr(&format!("spindle: note: {note}\n"));
    }
    let summary = match format {
        OutputFormat::FioJson => serde_json::to_string_pretty(&fio_value(&c, &fio))? + "\n",
        OutputFormat::Json => serde_json::to_string_pretty(&outcome_json(&c, &r))? + "\n",
        OutputFormat::Text => {
            let mut s = summary_text(&c, &r.metrics);
            if r.nodes.len() > 1 {
                s += "\n";
                s += &nodes_text(&r.nodes, r.metrics.makespan_ms);
            }
            s
        }
    };
    if to_stdout {
        // The rows went to standard output: the summary goes to standard error.
        crate::outputs::summary_to_stderr(&summary);
        return Ok(String::new());
    }
    Ok(summary)
}

/// The files a run of `c` reads, which its outputs must not be
/// ([`crate::outputs::run_inputs`]: the configuration file, which `--config` names as
/// the configuration's source, the trace, Disk Mimic and miniMimic tables, the drives'
/// files).
fn files_read(c: &RunConfig) -> Vec<PathBuf> {
    let disks = c
        .device_tree()
        .ok()
        .filter(|t| t.check_drive_count().is_ok())
        .map(|t| t.disks())
        .unwrap_or_default();
    crate::outputs::run_inputs(c, &disks)
}

/// A run as `spindle run --json` reports it: the configuration, the metrics and the
/// per-node statistics.
pub fn outcome_json(c: &RunConfig, r: &Outcome) -> serde_json::Value {
    let nodes: Vec<serde_json::Value> = r
        .nodes
        .iter()
        .map(|n| {
            serde_json::json!({
                "path": n.path, "kind": n.kind, "reads": n.reads, "writes": n.writes,
                "busy_ms": n.busy_ns as f64 / 1e6,
                "extra": n.extra.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
            })
        })
        .collect();
    // A DLE on the default staging states the percentage it ran with.
    let mut c = c.clone();
    if let Some(l) = c
        .layout
        .as_mut()
        .filter(|l| l.kind == LayoutPolicy::Proximal)
    {
        l.staging_pct = Some(l.staging_fraction() * 100.0);
    }
    serde_json::json!({ "config": c, "metrics": r.metrics, "nodes": nodes })
}

/// Refuses a host scheduler for a stack that has no host queue to give it: a layout
/// engine over `[[disks]]` queues its RAID-4's members in issue order, as the paper's
/// RAID layer does.
pub(crate) fn check_scheduled(c: &RunConfig, flag: &str) -> Result<()> {
    if c.layout.is_some() && c.device.is_none() {
        bail!(
            "{flag}: the layout engine queues its RAID-4's members in issue order \
             (FCFS, as the paper's RAID layer); to schedule them, describe the RAID-4 in a \
             --config file as a [device] with kind = \"raid4\", whose drives take the [scheduler]"
        );
    }
    refuse_where_drives_schedule_themselves(c, flag)
}

/// The schedulers the drives of the `[device]` name for themselves, as "kind, N
/// outstanding", with how many drives use the run's `[scheduler]` (`None` without a
/// `[device]`).
fn own_schedulers(c: &RunConfig) -> Option<(Vec<String>, usize)> {
    let tree = c.device.as_ref()?;
    tree.check_drive_count().ok()?;
    let mut own: Vec<String> = Vec::new();
    let mut shared = 0;
    for d in tree.disks() {
        match &d.scheduler {
            Some(s) => {
                let text = format!("{}, {} outstanding", s.kind.name(), s.queue_depth);
                if !own.contains(&text) {
                    own.push(text);
                }
            }
            None => shared += 1,
        }
    }
    Some((own, shared))
}

/// The run's `[scheduler]` (and the flags that set it) reaches only the drives of a
/// `[device]` that name no scheduler of their own: a flag that no drive would see is
/// refused rather than dropped.
fn refuse_where_drives_schedule_themselves(c: &RunConfig, flag: &str) -> Result<()> {
    if let Some((own, 0)) = own_schedulers(c) {
        if !own.is_empty() {
            bail!(
                "{flag}: every drive of the [device] names its own scheduler ({}), which \
                 the [scheduler] and its flags do not override; set it in the file, or drop \
                 the drives' scheduler to run the [scheduler]",
                own.join("; ")
            );
        }
    }
    Ok(())
}

/// The Disk Mimic flags act only where a scheduler of `kinds` (the run's, or those a
/// comparison runs) probes a Mimic off-line: samples for smtf and freeblock (without a
/// probed table), interpolation for smtf.
pub(crate) fn check_mimic_flags(
    args: &StackArgs,
    c: &RunConfig,
    kinds: &[SchedulerKind],
) -> Result<()> {
    let smtf = kinds.iter().any(|k| matches!(k, SchedulerKind::Smtf(_)));
    let probes = smtf || kinds.contains(&SchedulerKind::Freeblock);
    let names: Vec<String> = kinds.iter().map(|k| k.name()).collect();
    let table = c.scheduler.mimic_table.is_some();
    if args.mimic_samples.is_some() && (!probes || table) {
        bail!(
            "--mimic-samples applies to smtf and freeblock, whose Disk Mimic probes the drive{}; not {}",
            if table { " (a --mimic-table is read, not probed)" } else { "" },
            names.join(", ")
        );
    }
    if table && !smtf {
        bail!(
            "{} applies to the smtf schedulers, whose Disk Mimic it replaces; not {}",
            if args.mimic_table.is_some() {
                "--mimic-table"
            } else {
                "scheduler.mimic-table"
            },
            names.join(", ")
        );
    }
    if args.mimic_interpolate && table {
        bail!(
            "--mimic-interpolate {}",
            spindle::parts::queue::INTERPOLATE_WITH_TABLE
        );
    }
    if args.mimic_interpolate && !smtf {
        bail!(
            "--mimic-interpolate applies to smtf, whose off-line Disk Mimic interpolates; not {}",
            names.join(", ")
        );
    }
    Ok(())
}

/// One request as a CSV line (the `--requests-csv` format).
fn write_request_line(l: &RequestLog, f: &mut dyn std::io::Write) -> std::io::Result<()> {
    spindle::stack::metrics::write_request_csv_line(l, f)
}

pub fn compare(
    args: &StackArgs,
    schedulers: &[SchedulerKind],
    json: bool,
    plot: Option<&Path>,
) -> Result<String> {
    let base = args.config()?;
    check_scheduled(&base, "--schedulers")?;
    check_mimic_flags(args, &base, schedulers)?;
    if args.window.is_some() && !schedulers.iter().any(|s| s.scans()) {
        bail!("--window applies to greedy, smtf and the on-line SMTF schedulers, which scan the queue; none of those compared does");
    }
    if let Some(out) = plot {
        let inputs = files_read(&base);
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        crate::outputs::check_output("--plot", out, &inputs)?;
    }
    let mut results = Vec::new();
    for &s in schedulers {
        let mut c = base.clone();
        c.scheduler.kind = s;
        // A window caps the scanning schedulers' cost; the indexed ones have none to cap.
        if !s.scans() {
            c.scheduler.window = None;
        }
        // A Disk Mimic table (and interpolation) serves the smtf schedulers compared,
        // of which check_mimic_flags made sure there is one; the others never read it.
        if !matches!(s, SchedulerKind::Smtf(_)) {
            c.scheduler.mimic_table = None;
            c.scheduler.mimic_interpolate = false;
        }
        // A fresh workload per scheduler: a closed loop's state is consumed by a run.
        let mut w = load_workload(&c)?;
        let r = run_config(&c, &mut w, &s.name(), &mut |_| Ok(()))?;
        if let Some(note) = scan_note(&r.nodes) {
            crate::outputs::summary_to_stderr(&format!("spindle: note: {note}\n"));
        }
        results.push((s, r.metrics));
    }
    if let Some(path) = plot {
        let svg = spindle::report::svg_plot(&cdf_plot(&results));
        std::fs::write(path, svg).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if json {
        let v: Vec<serde_json::Value> = results
            .iter()
            .map(|(s, m)| serde_json::json!({ "scheduler": s.name(), "metrics": m }))
            .collect();
        return Ok(serde_json::to_string_pretty(&v)? + "\n");
    }
    let mut t = Table::new(&[
        ("scheduler", Align::Left),
        ("mean resp ms", Align::Right),
        ("p90", Align::Right),
        ("p99", Align::Right),
        ("at disk ms", Align::Right),
        ("total disk s", Align::Right),
        ("queue ms", Align::Right),
    ]);
    for (s, m) in &results {
        t.row(vec![
            s.name(),
            format!("{:.3}", m.mean_response_ms),
            format!("{:.3}", m.p90_response_ms),
            format!("{:.3}", m.p99_response_ms),
            format!("{:.3}", m.mean_service_ms),
            format!("{:.1}", m.total_disk_time_ms / 1000.0),
            format!("{:.3}", m.mean_queue_ms),
        ]);
    }
    Ok(format!(
        "{} on {}, {} outstanding per drive\n\n{}",
        base.workload.describe(),
        stack_text(&base),
        base.scheduler.queue_depth,
        t.render()
    ))
}

fn cdf_plot(results: &[(SchedulerKind, Metrics)]) -> spindle::report::Plot {
    spindle::report::Plot {
        title: "Response-time distribution".into(),
        x_label: "response time (ms)".into(),
        y_label: "fraction of requests".into(),
        kind: spindle::report::PlotKind::Step,
        series: results
            .iter()
            .map(|(s, m)| spindle::report::Series {
                label: s.name(),
                points: m.cdf.clone(),
            })
            .collect(),
        log_x: true,
        paper: Vec::new(),
        x_categories: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(kind: &str, extra: &[(&str, &str)]) -> NodeReport {
        NodeReport {
            path: "stack/unit 0".into(),
            kind: kind.into(),
            reads: 0,
            writes: 0,
            busy_ns: 0,
            extra: extra
                .iter()
                .map(|&(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            is_drive: false,
        }
    }

    /// Only a scanning queue that compared many candidates earns the note, and it names
    /// the queue that compared the most.
    #[test]
    fn a_long_scan_is_noted() {
        let long = queue(
            "queue greedy",
            &[("compared", "30000000"), ("most compared", "9000")],
        );
        let note = scan_note(std::slice::from_ref(&long)).unwrap();
        assert!(
            note.starts_with("greedy at stack/unit 0 compared 30000000 waiting requests in its decisions, up to 9000 in one"),
            "{note}"
        );
        let short = queue(
            "queue smtf",
            &[("compared", "24999999"), ("most compared", "20000")],
        );
        assert_eq!(scan_note(std::slice::from_ref(&short)), None);
        // Many decisions over a short queue (a closed loop of 40 processes).
        let many = queue(
            "queue greedy",
            &[("compared", "40000000"), ("most compared", "40")],
        );
        assert_eq!(scan_note(&[many]), None);
        let indexed = queue("queue sstf", &[("max waiting", "100000")]);
        assert_eq!(scan_note(&[indexed, short]), None);
        let longer = NodeReport {
            path: "stack/unit 1".into(),
            ..queue(
                "queue smtf",
                &[("compared", "40000000"), ("most compared", "5000")],
            )
        };
        let note = scan_note(&[long, longer]).unwrap();
        assert!(
            note.starts_with("smtf at stack/unit 1 compared 40000000"),
            "{note}"
        );
    }
}
