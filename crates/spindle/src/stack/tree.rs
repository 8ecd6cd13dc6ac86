//! A stack as data: the device tree of a run configuration (`[device]` in TOML), and
//! how it is built into devices.
//!
//! ```toml
//! [scheduler]                 # each drive's host queue, unless the drive names its own
//! kind = "sstf"
//!
//! [device]                    # a RAID-5 of four drives, 64 KiB stripe unit
//! kind = "raid5"
//! count = 4
//! stripe-kib = 64
//! [device.member]
//! kind = "disk"
//! disk = "wd-re3"
//! scheduler = { kind = "greedy", queue-depth = 2 }   # optional, per drive
//! ```
//!
//! Kinds: `disk`; `volumes` (independent units, a trace's device numbers pick the
//! unit); `raid0`, `raid1`, `raid4`, `raid5`; MimdRAID's `mirror` (reads by positioning
//! time, with seek and rotation statistics), `split` (`reliable = true`
//! for the D−1-way split with one copy), `replicated-split` (`copies`) and `intra`
//! (`split` × `rotational`, `form`, `rotation`, `reliable`; both take `split-unit` and
//! `band-angles`), each with
//! `cylinders`, `reorder-queue`
//! (and `spread`) and `prediction-error-deg`, see [`super::mimd`]. An array lists either `count` copies of
//! one `member`, or its `members` one by one; members may be arrays themselves.
//! A `raid5` may set `parity-layout = "left-asymmetric"` (default left-symmetric).
//! Layers (`[[layer]]`, top first): `cache`, `raid-mimic`, `split`.
//! Any entry may carry a `faults` table (see [`super::faults`]): the tree built here is
//! timing-only, so it refuses them; `spindle torture` runs them on byte-exact arrays.

use super::array::{Array, ParityLayout, RaidLevel, ReplicaChoice, Volumes};
use super::drive_node::{load_disk, DriveNode};
use super::faults::FaultSpec;
use super::mimd::{
    BandAngles, IntraForm, Layout, MirrorLayouts, Organization, RotPlacement, SplitUnit, Spread,
};
use super::propagation::{Propagation, DEFAULT_STALENESS_MS};
use super::queue::{QueueSpec, SchedulerConfig};
use crate::disk::drive::Drive;
use crate::disk::params::{DiskParams, FirmwarePolicy};
use crate::node::{Device, Units};
use serde::{Deserialize, Serialize};

/// Largest number of members an array may list (each member is a whole simulated
/// drive with its own state).
pub const MAX_MEMBERS: u32 = 1024;
/// Most drives a whole stack may hold (nested arrays multiply their counts).
pub const MAX_DRIVES: u64 = 4096;
/// Largest stripe unit, KiB.
pub const MAX_STRIPE_KIB: u64 = 1 << 20;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum DeviceSpec {
    Disk(DiskSpec),
    Volumes(ArraySpec),
    Raid0(ArraySpec),
    Raid1(ArraySpec),
    Raid4(ArraySpec),
    Raid5(ArraySpec),
    Mirror(ArraySpec),
    Split(ArraySpec),
    ReplicatedSplit(ArraySpec),
    Intra(ArraySpec),
}

/// One drive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DiskSpec {
    /// A preset name or a DiskSim `.parv` file.
    pub disk: String,
    /// This drive's host queue (default: the run's `[scheduler]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<SchedulerConfig>,
    /// Override the drive's own command scheduling: "fcfs", "sptf" or
    /// "sptf-ascending-run".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub firmware: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub firmware_queue_depth: Option<u32>,
    /// Override the drive's write cache, KiB (0: write-through).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_cache_kib: Option<u64>,
    /// Fault injection around this drive ([`super::faults`]; byte-exact stacks only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<FaultSpec>,
}

impl DiskSpec {
    pub fn new(disk: &str) -> DiskSpec {
        DiskSpec {
            disk: disk.to_string(),
            scheduler: None,
            firmware: None,
            firmware_queue_depth: None,
            write_cache_kib: None,
            faults: None,
        }
    }

    /// This drive's host queue: its own `scheduler`, else `default_queue`.
    pub fn queue(&self, default_queue: &QueueSpec, path: &str) -> Result<QueueSpec, String> {
        match &self.scheduler {
            Some(s) => s.queue_spec().map_err(|e| format!("{path}.scheduler: {e}")),
            None => Ok(default_queue.clone()),
        }
    }

    /// This drive with another model name, keeping its scheduler, firmware and faults.
    fn with_model(&self, disk: String) -> DiskSpec {
        DiskSpec {
            disk,
            ..self.clone()
        }
    }

    /// Loads the drive's parameters to check them, as the tree would build it: a drive
    /// of H arms (`…:heads-per-surface=H`) is checked as one arm's drive.
    pub fn check_drive(&self, path: &str) -> Result<(), String> {
        match crate::disk::altered::arms(&self.disk) {
            Some(arms) => {
                let (one, _) = arms.map_err(|e| format!("{path}: {e}"))?;
                self.with_model(one).params(path).map(drop)
            }
            None => self.params(path).map(drop),
        }
    }

    /// The drive's parameters with this entry's firmware overrides.
    pub fn params(&self, path: &str) -> Result<DiskParams, String> {
        let mut p = load_disk(&self.disk).map_err(|e| format!("{path}: {e}"))?;
        if let Some(f) = &self.firmware {
            p.firmware.policy = match f.as_str() {
                "fcfs" => FirmwarePolicy::Fcfs,
                "sptf" => FirmwarePolicy::Sptf,
                "sptf-ascending-run" => FirmwarePolicy::SptfAscendingRun,
                other => {
                    return Err(format!(
                        "{path}.firmware must be fcfs, sptf or sptf-ascending-run, got `{other}`"
                    ))
                }
            };
        }
        if let Some(q) = self.firmware_queue_depth {
            if !(1..=super::queue::MAX_QUEUE_DEPTH).contains(&q) {
                return Err(format!(
                    "{path}.firmware-queue-depth must be within 1..={}, got {q}",
                    super::queue::MAX_QUEUE_DEPTH
                ));
            }
            p.firmware.queue_depth = q;
        }
        if let Some(kib) = self.write_cache_kib {
            p.firmware.write_cache_sectors = kib.saturating_mul(2);
        }
        Ok(p)
    }
}

/// An array or a volume set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ArraySpec {
    /// How many copies of `member`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<Box<DeviceSpec>>,
    /// The members one by one (instead of `count` and `member`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<DeviceSpec>,
    /// Stripe unit, KiB (RAID-0/4/5; default 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stripe_kib: Option<u64>,
    /// RAID-1: how a read picks its replica (default least-busy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_choice: Option<ReplicaChoice>,
    /// The member drives' rotational phases (default aligned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spindles: Option<Spindles>,
    /// RAID-5: where data goes around the rotating parity (default left-symmetric).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parity_layout: Option<ParityLayout>,
    /// Random spindles: a seed mixed into each member's phase draw (default none: the
    /// phase follows the drive's place in the tree), so runs can sample many phase
    /// arrangements of unsynchronized drives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spindle_seed: Option<u64>,
    /// split: split D−1 ways and keep one full copy on the last member (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reliable: Option<bool>,
    /// replicated-split: copies of each member's share (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copies: Option<u32>,
    /// intra: the seek dimension x (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<u32>,
    /// intra: rotational replicas y per member (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotational: Option<u32>,
    /// intra: simulation (replicated splitting) or prototype (splitting) form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<IntraForm>,
    /// intra: rotational replicas even or random on other tracks, or even on one track.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<RotPlacement>,
    /// replicated-split, intra (simulation form): the angle of a slot's band copies,
    /// `skew` (the same sector numbers; the default), `even` or `random`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band_angles: Option<BandAngles>,
    /// replicated-split, intra: how addresses are dealt to the members, `cylinder`
    /// (striped one logical cylinder at a time; the default, but for intra's prototype
    /// form) or `share` (each member a contiguous 1/D).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split_unit: Option<SplitUnit>,
    /// mirror: identical or shuffled member layouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layouts: Option<MirrorLayouts>,
    /// mirror, split, replicated-split, intra: lay data out on each member's
    /// outermost N cylinders only (default all), as if the drives were that small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cylinders: Option<u32>,
    /// mirror, split, replicated-split, intra: throughput mode, each member's reads
    /// held in a reorder queue and sent one at a time when the member is idle, the
    /// elevator's next among the N oldest, at the replica reached first (MIMD-F9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reorder_queue: Option<usize>,
    /// mirror, split, replicated-split, intra: `foreground` (default: every replica
    /// written before a write is acknowledged) or `background` (one replica, the rest
    /// within `staleness-ms`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub propagation: Option<Propagation>,
    /// Background propagation: longest a replica's write waits for an idle member (ms,
    /// default 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staleness_ms: Option<f64>,
    /// Throughput mode: which member's queue a read with copies on several members
    /// joins, `least-busy` (default) or `even` (round robin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
    /// mirror, split, replicated-split, intra: replicas chosen as by a host head
    /// tracker off by this many degrees (default 0: the drive model's own state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction_error_deg: Option<f64>,
    /// Fault injection around this array, i.e. each member below it that has no table
    /// of its own ([`super::faults`]; byte-exact stacks only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<FaultSpec>,
}

/// Where the member drives' platters stand at time zero relative to each other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Spindles {
    /// All at the same angle (as DiskSim starts every drive).
    #[default]
    Aligned,
    /// Synchronized and evenly spaced: member i of n is i/n of a revolution ahead, so
    /// a mirror's replicas of a sector pass under their heads 1/n of a turn apart.
    Spaced,
    /// Unsynchronized: each member at its own random angle (seeded by its place in
    /// the tree, so runs repeat).
    Random,
}

impl Spindles {
    /// Member `i` of `n`'s phase, a fraction of a revolution.
    pub fn phase(self, i: usize, n: usize, seed: u64) -> f64 {
        match self {
            Spindles::Aligned => 0.0,
            Spindles::Spaced => i as f64 / n.max(1) as f64,
            Spindles::Random => {
                use rand::{Rng, SeedableRng};
                rand_chacha::ChaCha8Rng::seed_from_u64(0x5911_1d1e ^ seed).gen::<f64>()
            }
        }
    }
}

impl ArraySpec {
    /// `count` copies of `member`.
    pub fn of(count: u32, member: DeviceSpec) -> ArraySpec {
        ArraySpec {
            count: Some(count),
            member: Some(Box::new(member)),
            members: Vec::new(),
            stripe_kib: None,
            replica_choice: None,
            spindles: None,
            parity_layout: None,
            spindle_seed: None,
            reliable: None,
            copies: None,
            split: None,
            rotational: None,
            form: None,
            rotation: None,
            band_angles: None,
            split_unit: None,
            layouts: None,
            cylinders: None,
            reorder_queue: None,
            propagation: None,
            staleness_ms: None,
            spread: None,
            prediction_error_deg: None,
            faults: None,
        }
    }

    /// The first MimdRAID key set, if any (they belong to split, replicated-split
    /// and intra only).
    pub fn mimd_key(&self) -> Option<&'static str> {
        [
            ("reliable", self.reliable.is_some()),
            ("copies", self.copies.is_some()),
            ("split", self.split.is_some()),
            ("rotational", self.rotational.is_some()),
            ("form", self.form.is_some()),
            ("rotation", self.rotation.is_some()),
            ("split-unit", self.split_unit.is_some()),
            ("layouts", self.layouts.is_some()),
        ]
        .iter()
        .find(|(_, on)| *on)
        .map(|(k, _)| *k)
        .or_else(|| self.timing_key())
    }

    /// The first MimdRAID key set that only a timing run uses (where data is laid
    /// out within the drives aside): none applies to a byte-exact array.
    pub fn timing_key(&self) -> Option<&'static str> {
        [
            ("cylinders", self.cylinders.is_some()),
            ("band-angles", self.band_angles.is_some()),
            ("reorder-queue", self.reorder_queue.is_some()),
            ("propagation", self.propagation.is_some()),
            ("staleness-ms", self.staleness_ms.is_some()),
            ("spread", self.spread.is_some()),
            ("prediction-error-deg", self.prediction_error_deg.is_some()),
        ]
        .iter()
        .find(|(_, on)| *on)
        .map(|(k, _)| *k)
    }

    /// The members, expanded; errors say what is missing or too large.
    pub fn expand(&self, what: &str) -> Result<Vec<DeviceSpec>, String> {
        match (&self.member, self.count, self.members.is_empty()) {
            (Some(m), Some(n), true) => {
                if n == 0 || n > MAX_MEMBERS {
                    return Err(format!(
                        "{what}: count must be within 1..={MAX_MEMBERS}, got {n}"
                    ));
                }
                Ok(vec![(**m).clone(); n as usize])
            }
            (None, None, false) => {
                if self.members.len() > MAX_MEMBERS as usize {
                    return Err(format!(
                        "{what}: at most {MAX_MEMBERS} members, got {}",
                        self.members.len()
                    ));
                }
                Ok(self.members.clone())
            }
            (Some(_), None, _) => Err(format!("{what}: `member` needs a `count`")),
            (None, Some(_), _) => Err(format!("{what}: `count` needs a `member` table")),
            _ => Err(format!(
                "{what}: give either `count` and `member`, or a `members` list"
            )),
        }
    }
}

impl DeviceSpec {
    pub fn kind(&self) -> &'static str {
        match self {
            DeviceSpec::Disk(_) => "disk",
            DeviceSpec::Volumes(_) => "volumes",
            DeviceSpec::Raid0(_) => "raid0",
            DeviceSpec::Raid1(_) => "raid1",
            DeviceSpec::Raid4(_) => "raid4",
            DeviceSpec::Raid5(_) => "raid5",
            DeviceSpec::Mirror(_) => "mirror",
            DeviceSpec::Split(_) => "split",
            DeviceSpec::ReplicatedSplit(_) => "replicated-split",
            DeviceSpec::Intra(_) => "intra",
        }
    }

    /// How many drives the tree holds (saturating), without building or expanding it.
    pub fn drive_count(&self) -> u64 {
        let Some(a) = self.array() else {
            return 1;
        };
        match (&a.member, a.count) {
            (Some(m), Some(n)) => m.drive_count().saturating_mul(u64::from(n)),
            _ => a
                .members
                .iter()
                .fold(0u64, |t, m| t.saturating_add(m.drive_count())),
        }
    }

    /// The array's keys, for every kind but a single disk.
    pub fn array(&self) -> Option<&ArraySpec> {
        match self {
            DeviceSpec::Disk(_) => None,
            DeviceSpec::Volumes(a)
            | DeviceSpec::Raid0(a)
            | DeviceSpec::Raid1(a)
            | DeviceSpec::Raid4(a)
            | DeviceSpec::Raid5(a)
            | DeviceSpec::Mirror(a)
            | DeviceSpec::Split(a)
            | DeviceSpec::ReplicatedSplit(a)
            | DeviceSpec::Intra(a) => Some(a),
        }
    }

    /// The array's keys, to change, for every kind but a single disk.
    fn array_mut(&mut self) -> Option<&mut ArraySpec> {
        match self {
            DeviceSpec::Disk(_) => None,
            DeviceSpec::Volumes(a)
            | DeviceSpec::Raid0(a)
            | DeviceSpec::Raid1(a)
            | DeviceSpec::Raid4(a)
            | DeviceSpec::Raid5(a)
            | DeviceSpec::Mirror(a)
            | DeviceSpec::Split(a)
            | DeviceSpec::ReplicatedSplit(a)
            | DeviceSpec::Intra(a) => Some(a),
        }
    }

    /// The same tree with every `faults` table removed: the timing model of a stack
    /// whose bytes a byte-exact array keeps (faults act on bytes only).
    pub fn without_faults(&self) -> DeviceSpec {
        let mut s = self.clone();
        if let DeviceSpec::Disk(d) = &mut s {
            d.faults = None;
        }
        if let Some(a) = s.array_mut() {
            a.faults = None;
            if let Some(m) = &mut a.member {
                **m = m.without_faults();
            }
            for m in &mut a.members {
                *m = m.without_faults();
            }
        }
        s
    }

    /// Every drive of the tree becomes `disk` (a preset name or a `.parv` file), each
    /// keeping its own scheduler, firmware and faults: `spindle run --disk` over a
    /// configuration's `[device]`.
    pub fn set_drive_model(&mut self, disk: &str) {
        if let DeviceSpec::Disk(d) = self {
            d.disk = disk.to_string();
        }
        if let Some(a) = self.array_mut() {
            if let Some(m) = &mut a.member {
                m.set_drive_model(disk);
            }
            for m in &mut a.members {
                m.set_drive_model(disk);
            }
        }
    }

    /// This entry's `faults` table, if any.
    pub fn faults(&self) -> Option<&FaultSpec> {
        match self {
            DeviceSpec::Disk(d) => d.faults.as_ref(),
            _ => self.array().and_then(|a| a.faults.as_ref()),
        }
    }

    /// The first `faults` table in the tree (depth first, members in order), with the
    /// path of its entry (`device.member 2`).
    pub fn first_faults(&self, path: &str) -> Option<(String, &FaultSpec)> {
        if let Some(f) = self.faults() {
            return Some((path.to_string(), f));
        }
        let a = self.array()?;
        if let Some(m) = &a.member {
            return m.first_faults(&format!("{path}.member"));
        }
        a.members
            .iter()
            .enumerate()
            .find_map(|(i, m)| m.first_faults(&format!("{path}.member {i}")))
    }

    /// Refuses a tree of more than [`MAX_DRIVES`] drives, before anything expands it.
    pub fn check_drive_count(&self) -> Result<(), String> {
        let n = self.drive_count();
        if n > MAX_DRIVES {
            return Err(format!(
                "the device tree holds {n} drives; at most {MAX_DRIVES} (nested arrays multiply their counts)"
            ));
        }
        Ok(())
    }

    /// Refuses, without building anything, a MimdRAID array whose cylinder layout
    /// would find a member that is not a drive of one arm (as the build does; check
    /// [`DeviceSpec::check_drive_count`] first).
    pub fn check_cylinder_layouts(&self, path: &str) -> Result<(), String> {
        if let DeviceSpec::Mirror(a)
        | DeviceSpec::Split(a)
        | DeviceSpec::ReplicatedSplit(a)
        | DeviceSpec::Intra(a) = self
        {
            check_cylinder_members(self, a, path)?;
        }
        for (i, m) in spec_members(self)?.iter().enumerate() {
            m.check_cylinder_layouts(&format!("{path}.member {i}"))?;
        }
        Ok(())
    }

    /// Every drive in the tree, in order (check [`DeviceSpec::check_drive_count`]
    /// first: the list is as long as the tree holds drives).
    pub fn disks(&self) -> Vec<DiskSpec> {
        if let DeviceSpec::Disk(d) = self {
            return vec![d.clone()];
        }
        self.array()
            .and_then(|a| a.expand(self.kind()).ok())
            .unwrap_or_default()
            .iter()
            .flat_map(|m| m.disks())
            .collect()
    }
}

/// A built stack below its layers: the top device and how trace devices map onto it.
pub struct Built {
    pub root: Box<dyn Device>,
    pub units: Units,
    pub drives: usize,
}

/// Builds `spec` with `default_queue` in front of every drive that names no queue of
/// its own, and `top` (if any) in front of the whole tree.
pub fn build(
    spec: &DeviceSpec,
    default_queue: &QueueSpec,
    top: Option<&QueueSpec>,
) -> Result<Built, String> {
    spec.check_drive_count()?;
    let mut drives = 0usize;
    let (root, units) = match spec {
        DeviceSpec::Volumes(_) => {
            // A volume set routes trace devices to its units.
            let members = build_members(spec, default_queue, &mut drives, "device")?;
            let v = Volumes::new(members);
            let units = v.units();
            (Box::new(v) as Box<dyn Device>, units)
        }
        _ => {
            let root = build_node(spec, default_queue, &mut drives, "device")?;
            let units = Units::single(root.capacity());
            (root, units)
        }
    };
    let root = match top {
        Some(q) => Box::new(q.build(root, drives)?) as Box<dyn Device>,
        None => root,
    };
    Ok(Built {
        root,
        units,
        drives,
    })
}

/// A MimdRAID array that lays its copies out by cylinder (replicated-split and intra
/// always, any of them given `cylinders`) reads each member's geometry, so each member
/// must be a drive of one arm: refused here, before anything is built, with the member
/// named.
fn check_cylinder_members(spec: &DeviceSpec, a: &ArraySpec, path: &str) -> Result<(), String> {
    let by_cylinder = a.cylinders.is_some()
        || matches!(spec, DeviceSpec::ReplicatedSplit(_) | DeviceSpec::Intra(_));
    if !by_cylinder {
        return Ok(());
    }
    let why = |i: usize, what: String| {
        Err(format!(
            "{path}.member {i} is {what}: the {} array{} lays its copies out by cylinder on \
             one drive's geometry, so its members must be drives of one arm",
            spec.kind(),
            if a.cylinders.is_some() {
                " with `cylinders`"
            } else {
                ""
            }
        ))
    };
    for (i, m) in spec_members(spec)?.iter().enumerate() {
        match m {
            DeviceSpec::Disk(d) => {
                if let Some(Ok((_, h))) = crate::disk::altered::arms(&d.disk) {
                    let what = if h == 1 {
                        format!("`{}`, a drive built arm by arm", d.disk)
                    } else {
                        format!("`{}`, a drive of {h} arms", d.disk)
                    };
                    return why(i, what);
                }
            }
            other => return why(i, format!("a {}", other.kind())),
        }
    }
    Ok(())
}

fn spec_members(spec: &DeviceSpec) -> Result<Vec<DeviceSpec>, String> {
    match spec.array() {
        None => Ok(Vec::new()),
        Some(a) => a.expand(spec.kind()),
    }
}

fn build_node(
    spec: &DeviceSpec,
    default_queue: &QueueSpec,
    drives: &mut usize,
    path: &str,
) -> Result<Box<dyn Device>, String> {
    // Faults act on bytes: this tree carries none (refused before the run).
    if let Some(f) = spec.faults() {
        f.validate(path)?;
        return Err(f.refuse_timing_only(path));
    }
    match spec {
        DeviceSpec::Disk(d) => {
            let queue = d.queue(default_queue, path)?;
            if let Some(q) = d.firmware_queue_depth.filter(|&q| q < queue.depth) {
                return Err(format!(
                    "{path}.firmware-queue-depth {q} is below the host queue's depth {}: the \
                     host keeps up to {} requests at the drive, which its firmware must hold; \
                     give firmware-queue-depth of {} or more, or a smaller queue-depth",
                    queue.depth, queue.depth, queue.depth
                ));
            }
            // `<drive>:heads-per-surface=H`: a drive of H arms (stack/arms.rs).
            if let Some(arms) = crate::disk::altered::arms(&d.disk) {
                return arms_leaf(d, arms, &queue, drives, path);
            }
            let p = d.params(path)?;
            drive_leaf(p, &queue, drives, path)
        }
        DeviceSpec::Volumes(a) => {
            if a.replica_choice.is_some() {
                return Err(format!(
                    "{path}.replica-choice applies to raid1 (a mirror), not to volumes"
                ));
            }
            if a.parity_layout.is_some() {
                return Err(format!(
                    "{path}.parity-layout applies to raid5, not to volumes"
                ));
            }
            if let Some(key) = a.mimd_key() {
                return Err(format!(
                    "{path}.{key} applies to MimdRAID's mirror, split, replicated-split or intra, not to volumes"
                ));
            }
            if a.stripe_kib.is_some() {
                return Err(format!(
                    "{path}.stripe-kib applies to raid0, raid4 and raid5; volumes lie side by side, unstriped"
                ));
            }
            Ok(Box::new(Volumes::new(build_members(
                spec,
                default_queue,
                drives,
                path,
            )?)))
        }
        DeviceSpec::Mirror(a)
        | DeviceSpec::Split(a)
        | DeviceSpec::ReplicatedSplit(a)
        | DeviceSpec::Intra(a) => {
            if a.parity_layout.is_some() {
                return Err(format!(
                    "{path}.parity-layout applies to raid5, not to {}",
                    spec.kind()
                ));
            }
            let org = organization(spec, a).map_err(|e| format!("{path}.{e}"))?;
            check_cylinder_members(spec, a, path)?;
            let first = *drives as u64;
            let built = build_members(spec, default_queue, drives, path)?;
            let choice = a.replica_choice.unwrap_or(ReplicaChoice::Positioning);
            let mut layout = Layout::within(org, built, choice, first, a.cylinders)
                .map_err(|e| format!("{path}: {e}"))?;
            if let Some(deg) = a.prediction_error_deg {
                layout = layout
                    .with_prediction_error(deg)
                    .map_err(|e| format!("{path}.{e}"))?;
            }
            match (a.propagation.unwrap_or_default(), a.staleness_ms) {
                (Propagation::Background, ms) => {
                    if a.reorder_queue.is_some() {
                        return Err(format!(
                            "{path}.propagation = \"background\" does not combine with reorder-queue (throughput mode)"
                        ));
                    }
                    layout = layout
                        .with_background(ms.unwrap_or(DEFAULT_STALENESS_MS))
                        .map_err(|e| format!("{path}.{e}"))?;
                }
                (Propagation::Foreground, Some(_)) => {
                    return Err(format!(
                        "{path}.staleness-ms applies to propagation = \"background\" only"
                    ))
                }
                (Propagation::Foreground, None) => {}
            }
            match (a.reorder_queue, a.spread) {
                (Some(n), spread) => {
                    layout = layout
                        .with_reorder(n, spread.unwrap_or_default())
                        .map_err(|e| format!("{path}.{e}"))?;
                }
                (None, Some(_)) => {
                    return Err(format!(
                        "{path}.spread applies in throughput mode only: set reorder-queue too"
                    ))
                }
                (None, None) => {}
            }
            Ok(Box::new(layout))
        }
        DeviceSpec::Raid0(a)
        | DeviceSpec::Raid1(a)
        | DeviceSpec::Raid4(a)
        | DeviceSpec::Raid5(a) => {
            if let Some(key) = a.mimd_key() {
                return Err(format!(
                    "{path}.{key} applies to MimdRAID's mirror, split, replicated-split or intra, not to {}",
                    spec.kind()
                ));
            }
            if a.replica_choice.is_some() && !matches!(spec, DeviceSpec::Raid1(_)) {
                return Err(format!(
                    "{path}.replica-choice applies to raid1 (a mirror), not to {}",
                    spec.kind()
                ));
            }
            if a.parity_layout.is_some() && !matches!(spec, DeviceSpec::Raid5(_)) {
                return Err(format!(
                    "{path}.parity-layout applies to raid5, not to {}",
                    spec.kind()
                ));
            }
            if a.stripe_kib.is_some() && matches!(spec, DeviceSpec::Raid1(_)) {
                return Err(format!(
                    "{path}.stripe-kib applies to raid0, raid4 and raid5; raid1 keeps every \
                     request whole on each replica"
                ));
            }
            let built = build_members(spec, default_queue, drives, path)?;
            let stripe_kib = a.stripe_kib.unwrap_or(64);
            if stripe_kib == 0 || stripe_kib > MAX_STRIPE_KIB {
                return Err(format!(
                    "{path}.stripe-kib must be within 1..={MAX_STRIPE_KIB}, got {stripe_kib}"
                ));
            }
            let level = match spec {
                DeviceSpec::Raid1(_) => RaidLevel::Raid1,
                DeviceSpec::Raid4(_) => RaidLevel::Raid4,
                DeviceSpec::Raid5(_) => RaidLevel::Raid5,
                _ => RaidLevel::Raid0,
            };
            let array =
                Array::new(level, built, stripe_kib * 2).map_err(|e| format!("{path}: {e}"))?;
            Ok(Box::new(
                array
                    .with_replica_choice(a.replica_choice.unwrap_or_default())
                    .with_parity_layout(a.parity_layout.unwrap_or_default()),
            ))
        }
    }
}

/// The MimdRAID organization a `split`, `replicated-split` or `intra` entry asks for;
/// errors name the key that does not belong or is out of range.
pub(crate) fn organization(spec: &DeviceSpec, a: &ArraySpec) -> Result<Organization, String> {
    let only = |ok: &[&str]| -> Result<(), String> {
        let set = [
            ("reliable", a.reliable.is_some()),
            ("copies", a.copies.is_some()),
            ("split", a.split.is_some()),
            ("rotational", a.rotational.is_some()),
            ("form", a.form.is_some()),
            ("rotation", a.rotation.is_some()),
            ("band-angles", a.band_angles.is_some()),
            ("split-unit", a.split_unit.is_some()),
            ("layouts", a.layouts.is_some()),
            ("stripe-kib", a.stripe_kib.is_some()),
        ];
        match set.iter().find(|(k, on)| *on && !ok.contains(k)) {
            Some((k, _)) => Err(format!("{k} does not apply to {}", spec.kind())),
            None => Ok(()),
        }
    };
    let within = |key: &str, v: u32, max: u32| -> Result<u32, String> {
        if (1..=max).contains(&v) {
            Ok(v)
        } else {
            Err(format!("{key} must be within 1..={max}, got {v}"))
        }
    };
    Ok(match spec {
        DeviceSpec::Mirror(_) => {
            only(&["layouts"])?;
            Organization::Mirror {
                layouts: a.layouts.unwrap_or_default(),
            }
        }
        DeviceSpec::Split(_) => {
            only(&["reliable"])?;
            Organization::Split {
                reliable: a.reliable.unwrap_or(false),
            }
        }
        DeviceSpec::ReplicatedSplit(_) => {
            only(&["copies", "split-unit", "band-angles"])?;
            Organization::ReplicatedSplit {
                copies: within("copies", a.copies.unwrap_or(2), MAX_MEMBERS)?,
                unit: a.split_unit.unwrap_or_default(),
                bands: a.band_angles.unwrap_or_default(),
            }
        }
        _ => {
            only(&[
                "split",
                "rotational",
                "form",
                "rotation",
                "band-angles",
                "split-unit",
                "reliable",
            ])?;
            let form = a.form.unwrap_or_default();
            if form == IntraForm::Prototype && a.band_angles.is_some() {
                return Err(
                    "band-angles applies to intra's simulation form (the prototype's keeps one band)"
                        .into(),
                );
            }
            Organization::Intra {
                split: within("split", a.split.unwrap_or(1), MAX_MEMBERS)?,
                rotational: within("rotational", a.rotational.unwrap_or(1), 64)?,
                form,
                rotation: a.rotation.unwrap_or_default(),
                bands: a.band_angles.unwrap_or_default(),
                // The paper gives the simulation's split granularity (cylinders), not
                // the prototype's: it keeps contiguous shares unless asked.
                unit: a.split_unit.unwrap_or(match form {
                    IntraForm::Simulation => SplitUnit::Cylinder,
                    IntraForm::Prototype => SplitUnit::Share,
                }),
                reliable: a.reliable.unwrap_or(false),
            }
        }
    })
}

fn build_members(
    spec: &DeviceSpec,
    default_queue: &QueueSpec,
    drives: &mut usize,
    path: &str,
) -> Result<Vec<Box<dyn Device>>, String> {
    let members = spec_members(spec)?;
    let spindles = spec.array().and_then(|a| a.spindles);
    if spec.array().is_some_and(|a| a.spindle_seed.is_some()) && spindles != Some(Spindles::Random)
    {
        return Err(format!(
            "{path}.spindle-seed seeds random spindles: set spindles = \"random\" too"
        ));
    }
    // Random phases draw from the drive's place in the tree, mixed with the array's
    // `spindle-seed` when it names one.
    let spindle_seed = spec
        .array()
        .and_then(|a| a.spindle_seed)
        .map_or(0, |s| s.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut built = Vec::with_capacity(members.len());
    for (i, m) in members.iter().enumerate() {
        let first_drive = *drives;
        let mut node = build_node(m, default_queue, drives, &format!("{path}.member {i}"))?;
        if let Some(s) = spindles {
            let Some(d) = node.drive_mut() else {
                // A drive of several arms keeps its arms' own phases (as before).
                if matches!(m, DeviceSpec::Disk(_)) {
                    built.push(node);
                    continue;
                }
                let what = format!("a {} array", m.kind());
                return Err(format!(
                    "{path}.spindles sets the angles of member drives, but member {i} is \
                     {what}: give the spindles to the array whose members are one-arm drives"
                ));
            };
            let phase = s.phase(i, members.len(), first_drive as u64 ^ spindle_seed);
            d.hdd_mut().set_spindle_phase(phase);
        }
        built.push(node);
    }
    Ok(built)
}

/// The stack leaf for `d`, whose disk is `arms` (from
/// [`crate::disk::altered::arms`]: one arm's drive name and H): the drive of H arms
/// behind its host queue. The entry's firmware overrides apply to every arm.
fn arms_leaf(
    d: &DiskSpec,
    arms: Result<(String, u32), String>,
    queue: &QueueSpec,
    drives: &mut usize,
    path: &str,
) -> Result<Box<dyn Device>, String> {
    let (one, h) = arms.map_err(|e| format!("{path}: {e}"))?;
    let mut p = d.with_model(one).params(path)?;
    // Each arm's firmware queue holds at least what the host keeps outstanding.
    p.firmware.queue_depth = p.firmware.queue_depth.max(queue.depth);
    let arms = (0..h)
        .map(|_| Drive::new(p.clone()).map_err(|e| format!("{path}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let node = super::arms::Arms::new(d.disk.clone(), arms).map_err(|e| format!("{path}: {e}"))?;
    let index = *drives;
    *drives += 1;
    let q = queue
        .build(Box::new(node), index)
        .map_err(|e| format!("{path}: {e}"))?;
    Ok(Box::new(q))
}

/// A drive behind its host queue.
fn drive_leaf(
    mut p: DiskParams,
    queue: &QueueSpec,
    drives: &mut usize,
    path: &str,
) -> Result<Box<dyn Device>, String> {
    // The drive's firmware queue holds at least what the host keeps outstanding.
    p.firmware.queue_depth = p.firmware.queue_depth.max(queue.depth);
    let name = p.name.clone();
    let drive = Drive::new(p).map_err(|e| format!("{path}: {e}"))?;
    let index = *drives;
    *drives += 1;
    let node = queue
        .build(Box::new(DriveNode::new(drive, name)), index)
        .map_err(|e| format!("{path}: {e}"))?;
    Ok(Box::new(node))
}

/// Independent drives with these parameters, each behind a `queue`: a volume set.
pub fn build_from_params(disks: &[DiskParams], queue: &QueueSpec) -> Result<Built, String> {
    let mut drives = 0usize;
    let mut members = Vec::with_capacity(disks.len());
    for (i, p) in disks.iter().enumerate() {
        members.push(drive_leaf(
            p.clone(),
            queue,
            &mut drives,
            &format!("device.member {i}"),
        )?);
    }
    let v = Volumes::new(members);
    Ok(Built {
        units: v.units(),
        root: Box::new(v),
        drives,
    })
}
