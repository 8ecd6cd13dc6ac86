//! A run as data, in TOML: the workload and the stack it runs on (layers, host queues,
//! the device tree, a layout engine over a RAID-4). It sits above every part it can
//! name; the command-line flags of `spindle run` map onto the same structure.
//!
//! ```toml
//! seed = 1
//!
//! [workload]
//! trace = "sample:hplajw"   # or a path; `format` names the format if detection fails
//! compress = 20.0           # time compression factor (optional)
//!
//! [scheduler]
//! kind = "sstf"             # fcfs | sstf | look | clook | greedy
//! queue-depth = 1           # requests outstanding at each drive
//! max-wait-ms = 500.0       # optional aging bound
//! hold-overlapping = true   # hold requests behind overlapping unfinished ones
//!
//! [[disks]]
//! disk = "hp-c2249a"        # a preset or a DiskSim .parv file
//! count = 2
//! ```
//!
//! `[scheduler]` is the host queue in front of each drive (each drive has its own, as
//! Linux gives each block device its own elevator). Instead of `[[disks]]` (a set of
//! independent drives, the trace's device numbers picking the drive), a `[device]`
//! tree describes arrays of drives, each member with its own queue (see
//! [`crate::stack::tree`]); `[array-scheduler]` then puts one more host queue above the whole
//! tree (LBN-ordered policies only: fcfs, sstf, look, clook).

use crate::layers::{with_layers_fed, LayerSpec};
use crate::node::{Device, Units};
pub use crate::stack::drive_node::load_disk;
pub use crate::stack::queue::{SchedulerConfig, MAX_QUEUE_DEPTH};
use crate::stack::tree::{build, ArraySpec, Built, DeviceSpec, DiskSpec, MAX_MEMBERS};
use crate::trace::{
    records_until_error, DeviceNumbering, Format, IoRecord, TraceError, TraceExtent, TraceFiles,
    TraceStream,
};
use crate::workload::{
    compress, compress_stream, earliest, limit, only_device, ClosedLoop, OpenStream, WorkloadSpec,
};
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RunConfig {
    #[serde(default = "default_seed")]
    pub seed: u64,
    pub workload: WorkloadConfig,
    #[serde(default)]
    pub scheduler: SchedulerConfig,
    /// Independent drives (the classic form); refused beside a `device`.
    #[serde(default = "default_disks")]
    pub disks: Vec<DiskConfig>,
    /// The device tree: a drive, a volume set or an array of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceSpec>,
    /// Layers above the device tree and its host queue, top of the stack first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layer: Vec<LayerSpec>,
    /// A host queue above the whole device tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array_scheduler: Option<SchedulerConfig>,
    /// A layout engine over a RAID-4 (`[layout] kind = "dle"`): the RAID-4 is the
    /// `[device]` (kind "raid4") or else made of the first `[[disks]]` model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<crate::layout::LayoutConfig>,
    /// The file it was read from, named in errors about the stack it describes.
    #[serde(skip)]
    pub source: Option<String>,
}

fn default_seed() -> u64 {
    1
}

fn default_disks() -> Vec<DiskConfig> {
    vec![DiskConfig {
        disk: "hp-c2249a".into(),
        count: 2,
        firmware: None,
        firmware_queue_depth: None,
        write_cache_kib: None,
    }]
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct WorkloadConfig {
    /// A trace: `sample:hplajw` or a path; a list of paths is merged into one trace
    /// (see [`crate::trace::merge`]).
    pub trace: Option<TraceFiles>,
    /// How the devices of merged trace files are numbered: `per-file` or
    /// `as-recorded` (needed when two files hold the same device number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_devices: Option<DeviceNumbering>,
    /// The trace format, when auto-detection is not wanted.
    pub format: Option<String>,
    /// Keep only this trace device's requests.
    pub device: Option<u32>,
    /// Divide arrival times by this factor.
    pub compress: Option<f64>,
    /// Keep only the first N requests in arrival order (a trace out of order is
    /// sorted first).
    pub limit: Option<usize>,
    /// An open synthetic workload's requests go to every unit of a volume set (each
    /// request's device drawn uniformly, seeded), not only the first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spread: bool,
    /// A synthetic workload instead of a trace (`[workload.synthetic]`, with
    /// `kind = "synthetic"` for open loop or `kind = "closed"`).
    pub synthetic: Option<WorkloadSpec>,
    /// I/O Deduplication's stand-in for an FIU trace (`[workload.content-trace]`):
    /// 4 KiB requests with content digests, generated from the published workload
    /// characteristics only (see `dedup::gen`).
    pub content_trace: Option<crate::dedup::ContentTraceSpec>,
}

/// A trace's records as they are read; an error ends the stream.
/// Most records of a trace out of arrival order that are read whole and sorted (an
/// `IoRecord` is about 64 bytes: 1 GiB); a longer one is sorted as it streams, through
/// a window of [`REORDER_WINDOW`] records.
pub const MAX_SORTED_RECORDS: u64 = 1 << 24;

/// The reorder window of a trace too long to sort whole: no record may come more than
/// this many records after its place in arrival order.
pub const REORDER_WINDOW: usize = 1 << 20;

pub type TraceRecords = Box<dyn Iterator<Item = Result<IoRecord, TraceError>> + Send>;

/// A trace read as the run goes.
pub struct TraceWorkload {
    pub records: TraceRecords,
    /// How many records the run will see (an upper bound when a content layer merges
    /// FIU sector records into pages, `dedup::combine_sectors`).
    pub count: u64,
    /// The end of the highest address the kept records touch (the engine's stride).
    pub stride: u64,
}

/// A workload ready to run.
pub enum LoadedWorkload {
    /// A trace, in arrival order.
    Open(Vec<IoRecord>),
    /// An open synthetic workload, generated as the run consumes it.
    Stream(Box<OpenStream>),
    /// A trace file, read as the run consumes it.
    Trace(Box<TraceWorkload>),
    Closed(ClosedLoop),
}

impl WorkloadConfig {
    /// A short description for summaries.
    pub fn describe(&self) -> String {
        if let Some(c) = &self.content_trace {
            return format!(
                "{} stand-in content trace (generated), scale {}, {} days",
                c.workload.name(),
                c.scale,
                c.days
            );
        }
        match (&self.synthetic, &self.trace) {
            (Some(WorkloadSpec::Synthetic(o)), _) => {
                format!("synthetic open loop, {} requests", o.count)
            }
            (Some(WorkloadSpec::Closed(c)), _) => {
                format!(
                    "synthetic closed loop, {} processes, {} requests",
                    c.processes, c.requests
                )
            }
            (None, Some(t)) => {
                let mut d = t.to_string();
                let renumbered = self.trace_devices == Some(DeviceNumbering::PerFile);
                if let Some(n) = self
                    .trace_devices
                    .filter(|_| t.single().is_none() || renumbered)
                {
                    d += &format!(" (devices {n})");
                }
                if let Some(dev) = self.device {
                    d += &format!(" device {dev}");
                }
                if let Some(f) = self.compress {
                    d += &format!(" compressed ×{f}");
                }
                d
            }
            (None, None) => "-".into(),
        }
    }

    /// The generated stand-in of an FIU trace, checked against the first unit's
    /// `capacity` (sectors) before a request is drawn.
    fn load_content_trace(
        &self,
        spec: &crate::dedup::ContentTraceSpec,
        capacity: u64,
    ) -> Result<LoadedWorkload, ConfigError> {
        let invalid = |e: String| ConfigError::Invalid(format!("workload.content-trace: {e}"));
        let trace = spec.trace().map_err(invalid)?;
        let needed = trace.layout().fs_pages * crate::dedup::PAGE_SECTORS;
        if needed > capacity {
            return Err(invalid(format!(
                "the {} stand-in lays out a {:.0} GB file system ({needed} sectors), but the \
                 stack's first unit holds {capacity} sectors: use a larger disk (e.g. \
                 wd5000aakb, the paper's drive)",
                spec.workload.name(),
                needed as f64 * 512.0 / 1e9,
            )));
        }
        if self.device.is_some_and(|d| d != 0) {
            return Err(invalid(
                "the stand-in addresses device 0 only; drop workload.device".into(),
            ));
        }
        let (reads, writes) = trace.per_day();
        let mut count = (reads + writes) * u64::from(spec.days);
        let mut records: TraceRecords = Box::new(trace.map(Ok));
        if let Some(n) = self.limit {
            count = count.min(n as u64);
            records = Box::new(limit(records, n));
        }
        if let Some(f) = self.compress {
            records = Box::new(compress_stream(records, f));
        }
        Ok(LoadedWorkload::Trace(Box::new(TraceWorkload {
            records,
            count,
            // One device: nothing shares a unit.
            stride: 0,
        })))
    }

    /// What can be checked without the stack or the trace's contents: one workload is
    /// named, its settings apply to it, a named format exists. [`WorkloadConfig::load`]
    /// starts with it; a sweep checks every point with it before any runs.
    pub fn check(&self) -> Result<(), ConfigError> {
        let named = [
            self.trace.is_some(),
            self.synthetic.is_some(),
            self.content_trace.is_some(),
        ];
        match named.iter().filter(|&&n| n).count() {
            0 => {
                return Err(ConfigError::Invalid(
                    "no workload: give a trace or a synthetic workload".into(),
                ))
            }
            1 => {}
            _ if self.content_trace.is_some() => {
                return Err(ConfigError::Invalid(
                    "give one of workload.trace, [workload.synthetic] or [workload.content-trace]"
                        .into(),
                ))
            }
            _ => {
                return Err(ConfigError::Invalid(
                    "give either workload.trace or [workload.synthetic], not both".into(),
                ))
            }
        }
        if self.synthetic.is_some() {
            // Trace settings would be silently ignored by a generated workload.
            let trace_only = [
                ("limit (--limit)", self.limit.is_some()),
                ("compress (--compress)", self.compress.is_some()),
                ("device (--device)", self.device.is_some()),
                ("format (--format)", self.format.is_some()),
                (
                    "trace-devices (--trace-devices)",
                    self.trace_devices.is_some(),
                ),
            ];
            if let Some((name, _)) = trace_only.iter().find(|t| t.1) {
                return Err(ConfigError::Invalid(format!(
                    "workload.{name} applies to a trace, not to [workload.synthetic] \
                     (its length is [workload.synthetic] count, or --count with --synthetic)"
                )));
            }
        }
        if self.content_trace.is_some() {
            // The generated stand-in is no trace file: these would be silently ignored.
            let file_only = [
                ("format (--format)", self.format.is_some()),
                (
                    "trace-devices (--trace-devices)",
                    self.trace_devices.is_some(),
                ),
            ];
            if let Some((name, _)) = file_only.iter().find(|t| t.1) {
                return Err(ConfigError::Invalid(format!(
                    "workload.{name} applies to a trace file, not to [workload.content-trace] \
                     (a generated stand-in)"
                )));
            }
        }
        if self.limit == Some(0) {
            return Err(ConfigError::Invalid(
                "workload.limit (--limit) = 0 keeps no requests; give at least 1".into(),
            ));
        }
        if self.spread && !matches!(self.synthetic, Some(WorkloadSpec::Synthetic(_))) {
            return Err(ConfigError::Invalid(
                "workload.spread (--spread) applies to open synthetic workloads (--synthetic open)"
                    .into(),
            ));
        }
        if let Some(f) = &self.format {
            let f = f.parse::<Format>().map_err(ConfigError::Invalid)?;
            for spec in self.trace.iter().flat_map(TraceFiles::specs) {
                crate::trace::stream::check_spec_format(spec, Some(f)).map_err(|e| {
                    ConfigError::Invalid(format!("workload.format (--format) = {} {e}", f.name()))
                })?;
            }
        }
        if let Some(f) = self.compress {
            crate::workload::check_compress(f)
                .map_err(|e| ConfigError::Invalid(format!("workload.{e}")))?;
        }
        Ok(())
    }

    /// Loads the trace or builds the synthetic workload; `capacity` (sectors) bounds
    /// synthetic addresses.
    pub fn load(&self, capacity: u64) -> Result<LoadedWorkload, ConfigError> {
        self.load_sorting(capacity, MAX_SORTED_RECORDS)
    }

    /// [`WorkloadConfig::load`], reading a trace out of arrival order whole only if it
    /// has, or its limit keeps, at most `max_sorted` records.
    fn load_sorting(&self, capacity: u64, max_sorted: u64) -> Result<LoadedWorkload, ConfigError> {
        self.check()?;
        if let Some(spec) = &self.content_trace {
            return self.load_content_trace(spec, capacity);
        }
        if let Some(spec) = &self.synthetic {
            let spec = spec.clone().with_capacity(capacity);
            spec.validate()
                .map_err(|e| ConfigError::Invalid(format!("workload.synthetic.{e}")))?;
            return match spec {
                WorkloadSpec::Synthetic(o) => Ok(LoadedWorkload::Stream(Box::new(
                    OpenStream::new(&o)
                        .map_err(|e| ConfigError::Invalid(format!("workload.synthetic.{e}")))?,
                ))),
                WorkloadSpec::Closed(c) => Ok(LoadedWorkload::Closed(
                    ClosedLoop::new(&c)
                        .map_err(|e| ConfigError::Invalid(format!("workload.synthetic.{e}")))?,
                )),
            };
        }
        let files = self.trace.as_ref().ok_or_else(|| {
            ConfigError::Invalid("no workload: give a trace or a synthetic workload".into())
        })?;
        let spec = files.to_string();
        let numbering = self.trace_devices;
        let format = match &self.format {
            Some(f) => Some(f.parse::<Format>().map_err(ConfigError::Invalid)?),
            None => None,
        };
        let invalid = |e: TraceError| ConfigError::Invalid(e.to_string());
        let filtered = |mut s: TraceRecords| -> TraceRecords {
            if let Some(d) = self.device {
                s = Box::new(only_device(s, d));
            }
            if let Some(n) = self.limit {
                s = Box::new(limit(s, n));
            }
            s
        };
        // One pass in constant memory for the count, the extent and the order.
        // Read again below: a pipe is refused before its first pass, not after.
        crate::trace::merge::check_rereadable(files).map_err(invalid)?;
        let extent = crate::trace::merge::extent(files, format, numbering).map_err(invalid)?;
        // Streams of it start from the earliest stamp that pass found (no pass of their
        // own for it).
        let open = || -> Result<TraceStream<'static>, ConfigError> {
            crate::trace::merge::open_from(files, format, numbering, &extent).map_err(invalid)
        };
        // Say why nothing is left: the device filter, or the trace itself (a limit of 0
        // was refused by `check`).
        let no_requests = || {
            let why = match self.device {
                Some(d) if !extent.devices.contains_key(&d) => {
                    let seen: Vec<String> =
                        extent.devices.keys().take(16).map(u32::to_string).collect();
                    let more = if extent.devices.len() > 16 {
                        ", ..."
                    } else {
                        ""
                    };
                    format!(
                        "device {d} is not in it (devices: {}{more})",
                        if seen.is_empty() {
                            "none".to_string()
                        } else {
                            seen.join(", ")
                        }
                    )
                }
                _ => "it holds none".to_string(),
            };
            ConfigError::Invalid(format!("the workload `{spec}` has no requests: {why}"))
        };
        // How many records a whole read holds: all of the device's.
        let to_read = self.device.map_or(extent.records, |d| {
            extent.devices.get(&d).map_or(0, |e| e.records)
        });
        // How many of them a run keeps.
        let to_keep = self.limit.map_or(to_read, |n| to_read.min(n as u64));
        if !extent.in_order && to_keep <= max_sorted {
            // Out of arrival order: read it whole and sort it, as the readers do. The
            // limit keeps the first requests in arrival order, as the streamed sort
            // does, holding no more than those.
            let mut all = Box::new(open()?) as TraceRecords;
            if let Some(d) = self.device {
                all = Box::new(only_device(all, d));
            }
            let mut recs: Vec<IoRecord> = match self.limit {
                Some(n) => earliest(all, n).map_err(invalid)?,
                None => {
                    let mut recs = all.collect::<Result<Vec<_>, _>>().map_err(invalid)?;
                    recs.sort_by_key(|r| r.arrival);
                    recs
                }
            };
            if let Some(f) = self.compress {
                recs = compress(&recs, f);
            }
            if recs.is_empty() {
                return Err(no_requests());
            }
            return Ok(LoadedWorkload::Open(recs));
        }
        // In order, or out of order and too long to hold: sorted as it streams, within a
        // window (a record further out of place ends the run, naming it).
        let in_order = extent.in_order;
        let source = || -> Result<TraceRecords, ConfigError> {
            let s = open()?;
            Ok(match in_order {
                true => Box::new(s),
                false => Box::new(s.sorted_within(REORDER_WINDOW)),
            })
        };
        let (count, stride) = match (self.device, self.limit) {
            (_, Some(_)) => {
                // The extent of the records kept: a pass over the first `limit` only.
                let mut error = None;
                let e = TraceExtent::of(records_until_error(filtered(source()?), &mut error));
                if let Some(e) = error {
                    return Err(invalid(e));
                }
                (e.records, e.max_end_lbn)
            }
            (Some(d), None) => extent
                .devices
                .get(&d)
                .map_or((0, 0), |e| (e.records, e.max_end_lbn)),
            (None, None) => (extent.records, extent.max_end_lbn),
        };
        if count == 0 {
            return Err(no_requests());
        }
        let mut records = filtered(source()?);
        if let Some(f) = self.compress {
            records = Box::new(compress_stream(records, f));
        }
        Ok(LoadedWorkload::Trace(Box::new(TraceWorkload {
            records,
            count,
            stride,
        })))
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DiskConfig {
    /// A preset name or a DiskSim `.parv` file.
    pub disk: String,
    #[serde(default = "default_count")]
    pub count: u32,
    /// Override the drive's own command scheduling: "fcfs", "sptf" or
    /// "sptf-ascending-run" (SPTF limited to the leading ascending-LBN run of the queue).
    pub firmware: Option<String>,
    pub firmware_queue_depth: Option<u32>,
    /// Override the drive's write cache, in KiB (0: writes go to the media before
    /// they complete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_cache_kib: Option<u64>,
}

fn default_count() -> u32 {
    1
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{file}: {msg}")]
    Toml { file: String, msg: String },
    #[error("{0}")]
    Invalid(String),
}

impl RunConfig {
    pub fn from_toml(text: &str, file: &str) -> Result<RunConfig, ConfigError> {
        let mut c: RunConfig = crate::toml_error::parse(text).map_err(|msg| ConfigError::Toml {
            file: file.to_string(),
            msg,
        })?;
        c.source = Some(file.to_string());
        // A layout over [[disks]] fixes its members' queues (the paper's RAID layer):
        // a [scheduler] table there would be ignored, so it is refused.
        let raw = toml::from_str::<toml::Table>(text).ok();
        let has = |key: &str| raw.as_ref().is_some_and(|t| t.contains_key(key));
        // A [device] describes its own drives: [[disks]] beside it would be ignored.
        if c.device.is_some() && has("disks") {
            return Err(ConfigError::Invalid(format!(
                "{file}: give the drives either as [[disks]] or inside the [device] tree, not \
                 both ([device] sets its own members, so the [[disks]] would be ignored)"
            )));
        }
        if c.layout.is_some() && c.device.is_none() && has("scheduler") {
            return Err(ConfigError::Invalid(format!(
                "{file}: [layout] over [[disks]] queues each member in issue order with 8 \
                 outstanding (the paper's RAID layer), so a [scheduler] table does not apply; \
                 to choose the members' scheduler give the RAID-4 as a [device] (kind = \
                 \"raid4\") with [device.member.scheduler]"
            )));
        }
        Ok(c)
    }

    pub fn load(path: &Path) -> Result<RunConfig, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError::Invalid(format!("{}: cannot read: {e}", path.display())))?;
        Self::from_toml(&text, &path.display().to_string())
    }

    /// The device tree: `[device]`, or the `[[disks]]` as a volume set.
    pub fn device_tree(&self) -> Result<DeviceSpec, ConfigError> {
        if let Some(d) = &self.device {
            return Ok(d.clone());
        }
        if self.disks.is_empty() {
            let at = self
                .source
                .as_ref()
                .map_or(String::new(), |f| format!("{f}: "));
            return Err(ConfigError::Invalid(format!(
                "{at}at least one [[disks]] entry (or a [device]) is needed"
            )));
        }
        let mut members = Vec::new();
        for d in &self.disks {
            if d.count == 0 || d.count > MAX_MEMBERS {
                return Err(ConfigError::Invalid(format!(
                    "disks.count for `{}` must be within 1..={}, got {}",
                    d.disk, MAX_MEMBERS, d.count
                )));
            }
            let disk = DiskSpec {
                disk: d.disk.clone(),
                scheduler: None,
                firmware: d.firmware.clone(),
                firmware_queue_depth: d.firmware_queue_depth,
                write_cache_kib: d.write_cache_kib,
                faults: None,
            };
            for _ in 0..d.count {
                members.push(DeviceSpec::Disk(disk.clone()));
            }
        }
        Ok(DeviceSpec::Volumes(ArraySpec {
            count: None,
            member: None,
            members,
            ..ArraySpec::of(0, DeviceSpec::Disk(DiskSpec::new("")))
        }))
    }

    /// Builds the stack this configuration describes.
    pub fn build(&self) -> Result<Built, ConfigError> {
        self.build_fed(None)
    }

    /// [`RunConfig::build`], with a content cache at the top taking the workload's
    /// content hashes from `feed` (the records given to the engine must be tapped by it).
    pub fn build_fed(
        &self,
        feed: Option<&crate::dedup::ContentFeed>,
    ) -> Result<Built, ConfigError> {
        let queue = self
            .scheduler
            .queue_spec()
            .map_err(|e| ConfigError::Invalid(format!("scheduler.{e}")))?;
        let top = match &self.array_scheduler {
            Some(s) => Some(
                s.queue_spec()
                    .map_err(|e| ConfigError::Invalid(format!("array-scheduler.{e}")))?,
            ),
            None => None,
        };
        let fail = |e: String| {
            ConfigError::Invalid(match &self.source {
                Some(f) => format!("{f}: the stack cannot work: {e}"),
                None => e,
            })
        };
        // Faults act on bytes, which this stack does not carry: refused before the run,
        // naming the file and line of the table.
        if let Some((path, f)) = self.device.as_ref().and_then(|d| d.first_faults("device")) {
            let msg = f
                .validate(&path)
                .err()
                .unwrap_or_else(|| f.refuse_timing_only(&path));
            let at = self.source.as_ref().map_or(String::new(), |file| {
                match std::fs::read_to_string(file)
                    .ok()
                    .and_then(|t| crate::stack::faults::faults_line(&t))
                {
                    Some(line) => format!("{file}:{line}: "),
                    None => format!("{file}: "),
                }
            });
            return Err(ConfigError::Invalid(format!("{at}{msg}")));
        }
        let mut b = match &self.layout {
            Some(layout) => {
                let node = self.layout_node(layout, &queue).map_err(fail)?;
                let root: Box<dyn Device> = Box::new(node);
                let drives = layout.data_disks + 1;
                let root = match &top {
                    Some(q) => Box::new(q.build(root, drives).map_err(fail)?) as Box<dyn Device>,
                    None => root,
                };
                Built {
                    units: Units::single(root.capacity()),
                    root,
                    drives,
                }
            }
            None => build(&self.device_tree()?, &queue, top.as_ref()).map_err(fail)?,
        };
        let below = b.root.capacity();
        b.root = with_layers_fed(b.root, &self.layer, feed).map_err(fail)?;
        // A layer may offer less than the device below (a journal keeps its log out of
        // the address space): no unit reaches past what the top offers.
        let offered = b.root.capacity();
        if offered == 0 {
            return Err(fail(format!(
                "its layers leave no sectors to address: the devices offer {below} sectors, \
                 all of them taken (a journal's log as large as its device?)"
            )));
        }
        for (offset, capacity) in &mut b.units.units {
            *capacity = (*capacity).min(offered.saturating_sub(*offset));
        }
        Ok(b)
    }

    /// `[layout]`: the layout engine over a RAID-4 of identical drives — the
    /// `[device]` (`kind = "raid4"`, `data-disks + 1` members, each with its
    /// scheduler), or else the first `[[disks]]` model with each member queued in
    /// issue order (FCFS, 8 outstanding at the drive, as the paper's RAID layer).
    fn layout_node(
        &self,
        layout: &crate::layout::LayoutConfig,
        queue: &crate::stack::queue::QueueSpec,
    ) -> Result<crate::layout::LayoutNode, String> {
        let members = layout.data_disks + 1;
        let (disk, member_queue) = match &self.device {
            Some(DeviceSpec::Raid4(a)) => {
                let all = a.expand("device")?;
                if all.len() != members {
                    return Err(format!(
                        "[layout] data-disks = {} needs a RAID-4 of {members} members, the [device] has {}",
                        layout.data_disks,
                        all.len()
                    ));
                }
                let Some(DeviceSpec::Disk(d)) = all.first() else {
                    return Err("[layout]: the RAID-4's members must be drives".into());
                };
                if all.iter().any(|m| m != &all[0]) {
                    return Err(
                        "[layout]: the RAID-4's members must be identical drives with one scheduler"
                            .into(),
                    );
                }
                if let Some(k) = a.stripe_kib.filter(|&k| k != layout.allocation_range_kib) {
                    return Err(format!(
                        "[layout]: the RAID-4's stripe unit is the allocation range ({} KiB); drop device.stripe-kib = {k} or set layout.allocation-range-kib",
                        layout.allocation_range_kib
                    ));
                }
                (d.params("device.member")?, d.queue(queue, "device.member")?)
            }
            Some(other) => {
                return Err(format!(
                    "[layout] runs over a RAID-4 of identical drives ([device] kind = \"raid4\"), not over a {}",
                    other.kind()
                ))
            }
            None => {
                let d = self
                    .disks
                    .first()
                    .ok_or("[layout] needs a disk: a [[disks]] entry or a [device]")?;
                let spec = DiskSpec {
                    disk: d.disk.clone(),
                    scheduler: None,
                    firmware: d.firmware.clone(),
                    firmware_queue_depth: d.firmware_queue_depth,
                    write_cache_kib: d.write_cache_kib,
                    faults: None,
                };
                (
                    spec.params("disks")?,
                    crate::array::members::default_member_queue(8),
                )
            }
        };
        layout.build(disk, member_queue)
    }

    /// The `[layout]` stack alone, as its own type (the layout engine and its RAID-4
    /// to drive and inspect directly: the layout-engine experiments build theirs so).
    pub fn layout_stack(&self) -> Result<crate::layout::LayoutNode, ConfigError> {
        let layout = self.layout.as_ref().ok_or_else(|| {
            ConfigError::Invalid("no [layout]: the stack is not a layout engine".into())
        })?;
        let queue = self
            .scheduler
            .queue_spec()
            .map_err(|e| ConfigError::Invalid(format!("scheduler.{e}")))?;
        self.layout_node(layout, &queue).map_err(|e| {
            ConfigError::Invalid(match &self.source {
                Some(f) => format!("{f}: the stack cannot work: {e}"),
                None => e,
            })
        })
    }

    /// `--print-stack`: the tree this configuration runs.
    pub fn describe_stack(&self) -> Result<String, ConfigError> {
        let b = self.build()?;
        let mut s = format!("workload {}\n", self.workload.describe());
        b.root.describe(1, &mut s);
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::SchedulerKind;

    /// Values the stack cannot honour are refused naming the key, never clamped.
    #[test]
    fn out_of_range_stack_values_are_refused_by_name() {
        for (table, key) in [
            ("[scheduler]\nmimic-samples = 0\n", "mimic-samples"),
            ("[scheduler]\nmimic-samples = 4294967295\n", "mimic-samples"),
            (
                "[scheduler]\nbackground-outstanding = 4294967295\n",
                "background-outstanding",
            ),
            ("[scheduler]\nmax-wait-ms = 1e300\n", "max-wait-ms"),
            (
                "[device]\nkind = \"disk\"\ndisk = \"hp-c2249a\"\nfirmware-queue-depth = 0\n",
                "firmware-queue-depth",
            ),
        ] {
            let text = format!("[workload]\ntrace = \"sample:hplajw\"\n{table}");
            let c = RunConfig::from_toml(&text, "t.toml").unwrap();
            let e = c.build().err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains(key), "{table}: {e}");
        }
        let c = RunConfig::from_toml(
            "[workload]\ntrace = \"sample:hplajw\"\ncompress = 1e-300\n",
            "t.toml",
        )
        .unwrap();
        let e = c
            .workload
            .load(1)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("compress"), "{e}");
    }

    /// A trace out of arrival order too long to read whole streams through the reorder
    /// window and gives the records the whole-file sort gives.
    #[test]
    fn a_long_trace_out_of_order_is_sorted_as_it_streams() {
        let path =
            std::env::temp_dir().join(format!("spindle-unsorted-{}.csv", std::process::id()));
        let mut text = String::from("arrival_ms,device,lbn,blocks,op\n");
        for i in 0..40u64 {
            // Pairs swapped: every record at most one place from its place in time.
            let t = if i % 2 == 0 { i + 1 } else { i - 1 };
            text += &format!("{t},0,{},8,R\n", i * 8);
        }
        std::fs::write(&path, text).unwrap();
        let w = WorkloadConfig {
            trace: Some(TraceFiles::one(path.display().to_string())),
            ..WorkloadConfig::default()
        };
        // Both paths: read whole and sorted (no cap), and streamed (a cap of 0).
        let both = |w: &WorkloadConfig| -> (Vec<IoRecord>, Vec<IoRecord>) {
            let whole = match w.load_sorting(1 << 20, u64::MAX).unwrap() {
                LoadedWorkload::Open(r) => r,
                _ => panic!("read whole"),
            };
            let streamed = match w.load_sorting(1 << 20, 0).unwrap() {
                LoadedWorkload::Trace(t) => t.records.collect::<Result<_, _>>().unwrap(),
                _ => panic!("streamed"),
            };
            (whole, streamed)
        };
        let (whole, streamed) = both(&w);
        // A limit keeps the first requests in arrival order on both paths.
        let (whole_3, streamed_3) = both(&WorkloadConfig {
            limit: Some(3),
            ..w
        });
        std::fs::remove_file(&path).ok();
        assert_eq!(whole.len(), 40);
        assert_eq!(whole, streamed);
        assert!(whole.windows(2).all(|p| p[0].arrival <= p[1].arrival));
        assert_eq!(whole_3, whole[..3]);
        assert_eq!(streamed_3, whole[..3]);
    }

    #[test]
    fn parses_the_documented_example() {
        let text = r#"
            seed = 3
            [workload]
            trace = "sample:hplajw"
            compress = 20.0
            [scheduler]
            kind = "clook"
            queue-depth = 2
            hold-overlapping = true
            [[disks]]
            disk = "mimic-base"
        "#;
        let c = RunConfig::from_toml(text, "x.toml").unwrap();
        assert_eq!(c.scheduler.kind, SchedulerKind::CLook);
        assert_eq!(c.workload.compress, Some(20.0));
        let b = c.build().unwrap();
        assert_eq!(b.drives, 1);
        assert_eq!(c.scheduler.queue_spec().unwrap().depth, 2);
    }

    /// A layout over [[disks]] fixes its members' queues; a [scheduler] table there
    /// would be ignored, so it is an error naming the way to set it.
    #[test]
    fn a_scheduler_table_under_a_layout_over_disks_is_refused() {
        let base = "[workload]\n[layout]\nkind = \"update-in-place\"\nvolume-mib = 64\n\
                    [[disks]]\ndisk = \"wd-re3\"\n";
        let plain = RunConfig::from_toml(base, "l.toml").unwrap();
        assert!(plain.layout_stack().is_ok());
        let e = RunConfig::from_toml(
            &format!("{base}[scheduler]\nkind = \"sstf\"\nqueue-depth = 32\n"),
            "l.toml",
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            e.contains("l.toml")
                && e.contains("[scheduler]")
                && e.contains("[device.member.scheduler]"),
            "{e}"
        );
        // Without a layout the [scheduler] queues each drive, as always.
        let no_layout = "[workload]\n[[disks]]\ndisk = \"wd-re3\"\n[scheduler]\nkind = \"sstf\"\n";
        assert!(RunConfig::from_toml(no_layout, "d.toml").is_ok());
    }

    #[test]
    fn disks_beside_a_device_are_refused() {
        let device = "[workload]\n[device]\nkind = \"disk\"\ndisk = \"hp-c2249a\"\n";
        assert!(RunConfig::from_toml(device, "d.toml").is_ok());
        let e = RunConfig::from_toml(
            &format!("{device}[[disks]]\ndisk = \"wd-re3\"\ncount = 3\n"),
            "d.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("d.toml") && e.contains("[[disks]]"), "{e}");
    }

    #[test]
    fn unknown_keys_are_errors_naming_the_key() {
        let e = RunConfig::from_toml("[workload]\ntrace = \"x\"\nspeed = 3\n", "bad.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.toml") && e.contains("speed"), "{e}");
    }

    #[test]
    fn unknown_disk_is_an_error() {
        let c = RunConfig::from_toml(
            "[workload]\ntrace = \"x\"\n[[disks]]\ndisk = \"floppy\"\n",
            "c.toml",
        )
        .unwrap();
        assert!(c.build().err().unwrap().to_string().contains("floppy"));
    }

    #[test]
    fn write_cache_override() {
        let spec = |extra: &str| {
            RunConfig::from_toml(
                &format!("[workload]\ntrace = \"x\"\n[[disks]]\ndisk = \"wd-re3\"\n{extra}"),
                "c.toml",
            )
            .unwrap()
            .build()
            .unwrap()
        };
        let cache = |b: Built| {
            let mut s = String::new();
            b.root.describe(0, &mut s);
            s.contains("write cache")
        };
        assert!(cache(spec("")));
        assert!(!cache(spec("write-cache-kib = 0\n")));
        assert!(cache(spec("write-cache-kib = 16384\n")));
    }
}
