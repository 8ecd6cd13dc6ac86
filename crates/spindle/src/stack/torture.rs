//! A seeded fault campaign over a byte-exact stack (`spindle torture`): random writes
//! and reads while each member's own fault stream (a `faults` table of the stack, see
//! [`crate::stack::faults`]) loses, misdirects and tears writes and flips stored bits,
//! whole drives fail and are rebuilt on replacements, and the power is cut in the
//! middle of writes and the stack recovers — all interleaved with the user I/O. Every
//! read is checked against a plain in-memory copy of the volume. It counts what was
//! injected, detected and repaired per kind, the reads refused as unrecoverable, and —
//! the number that must stay zero — the wrong bytes returned.
//!
//! Stacks: the byte-exact RAID-4 and RAID-5 (either parity layout; every fault), and
//! the byte-exact mirror (drive
//! failures only: it keeps no checksums or generations, so it cannot tell a lost or
//! flipped block from good data, and has no crash resync; those faults are refused
//! before the run rather than counted as its wrong bytes). Whatever else the stack
//! vocabulary names is timing-only and refused.
//!
//! Crash semantics: a write is acknowledged when its batch returns with the power on;
//! it must then read back exactly, across any later power cut. A block whose write was
//! cut off (the batch the power cut hit) may read back as its old or its new contents,
//! or be refused (recovery could not prove either); anything else is wrong. The first
//! read settles which, and the campaign reads the cut-off blocks right after recovery.
//! The RAID-4 runs with healing on (`Raid4::heal`): a row that takes two faults is
//! settled — its unprovable blocks refused until written again, its parity recomputed
//! — so refused blocks heal when the campaign rewrites them and the volume does not
//! saturate with refusals over a long run.
//!
//! A second member failure while one is out loses the rows that need both, which
//! RAID-4 cannot survive by design, so a failure (drawn or scheduled) waits until the
//! array is whole again.

use crate::array::error::ArrayError;
use crate::array::faults::{draw_bit_flip, FaultClass, MemberFaults};
use crate::array::layout::ParityLayout;
use crate::array::mirror::{Mirror, MirrorOp};
use crate::array::raid4::{MemberState, Raid4, Raid4Config};
use crate::array::FaultInjector;
use crate::disk::params::DiskParams;
use crate::expected::{random_block, Expected};
use crate::stack::faults::{device_seed, FaultSpec};
use crate::stack::mimd::Organization;
use crate::stack::mimd_bytes::byte_array;
use crate::stack::tree::{organization, DeviceSpec};
use crate::store::Block;
use crate::time::SimTime;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::BTreeMap;

/// Most operations of one campaign.
pub const MAX_TORTURE_OPS: usize = 100_000_000;
/// Most blocks the operations touch (the model keeps a copy of each).
pub const MAX_TORTURE_SPAN: u64 = 1 << 22;

/// The campaign's own knobs (the per-device faults are in the stack).
#[derive(Clone, Debug, Serialize)]
pub struct TortureConfig {
    pub seed: u64,
    /// Operations: a write batch or a read batch of 1–6 blocks each.
    pub ops: usize,
    /// Volume blocks the operations touch.
    pub span_blocks: u64,
    /// A scrub runs after every this many operations (0: only at the end).
    pub scrub_every: usize,
    /// Probability, per operation while every member is up, that one member fails.
    pub fail: f64,
    /// Probability, per write operation, that the power is cut during it.
    pub crash: f64,
    /// Operations a failed member stays out before its replacement is rebuilt.
    pub replace_after: usize,
}

impl Default for TortureConfig {
    fn default() -> Self {
        TortureConfig {
            seed: 1,
            ops: 3000,
            span_blocks: 2400,
            scrub_every: 100,
            fail: 0.0,
            crash: 0.0,
            replace_after: 20,
        }
    }
}

/// The array a campaign runs on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Shape {
    Raid4 {
        data_disks: usize,
        stripe_unit_blocks: u64,
        /// RAID-5: the parity rotates stripe by stripe, data placed around it in this
        /// layout (None: RAID-4).
        #[serde(skip_serializing_if = "Option::is_none")]
        rotation: Option<ParityLayout>,
    },
    /// A mirror, or with `organization` MimdRAID's intra-disk array
    /// (`reliable = true`), placed block by block ([`crate::stack::mimd_bytes`]).
    Mirror {
        replicas: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        organization: Option<Organization>,
    },
}

/// A byte-exact stack: its shape, member drive and each member's faults.
#[derive(Clone, Debug)]
pub struct TortureStack {
    pub shape: Shape,
    pub disk: DiskParams,
    /// Per member: its path in the tree and its faults.
    pub members: Vec<(String, FaultSpec)>,
}

impl TortureStack {
    /// The byte-exact RAID-4 a campaign runs on: rows with two faults are settled, so
    /// refused blocks heal when they are written again.
    pub fn healing_raid4(
        &self,
        data_disks: usize,
        stripe_unit_blocks: u64,
    ) -> Result<Raid4, ArrayError> {
        let cfg = Raid4Config {
            data_disks,
            stripe_unit_blocks,
            ..Raid4Config::default()
        };
        let mut a = Raid4::new(self.disk.clone(), cfg)?;
        if let Shape::Raid4 {
            rotation: Some(l), ..
        } = self.shape
        {
            a = a.rotating_parity(l)?;
        }
        a.heal = true;
        Ok(a)
    }

    /// A `data_disks`+1 RAID-4 of `disk` with a stripe unit of `stripe_unit_blocks`,
    /// every member with `faults`.
    pub fn raid4(
        disk: DiskParams,
        data_disks: usize,
        stripe_unit_blocks: u64,
        faults: &FaultSpec,
    ) -> TortureStack {
        TortureStack {
            shape: Shape::Raid4 {
                data_disks,
                stripe_unit_blocks,
                rotation: None,
            },
            disk,
            members: (0..=data_disks)
                .map(|i| (format!("device.member {i}"), faults.clone()))
                .collect(),
        }
    }

    /// The byte-exact mirror (or intra-disk array) of a mirror shape; `seed` draws an
    /// intra's random rotational angles.
    pub fn mirror(&self, seed: u64) -> Result<Mirror, ArrayError> {
        match &self.shape {
            Shape::Mirror {
                replicas,
                organization: None,
            } => Mirror::new(self.disk.clone(), *replicas, 8),
            Shape::Mirror {
                replicas,
                organization: Some(org),
            } => byte_array(*org, &self.disk, *replicas, seed, 8),
            Shape::Raid4 { .. } => Err(ArrayError::Internal(
                "a RAID-4 shape asked for as a mirror".into(),
            )),
        }
    }

    /// The byte-exact stack a `[device]` tree describes: `raid4`, or `raid1`/`mirror`,
    /// of identical drives. Each member takes its own `faults` table, else its
    /// array's, else `default`. Compositions that cannot carry bytes, or faults the
    /// array cannot detect, are refused with the entry's path and the reason.
    pub fn from_device(spec: &DeviceSpec, default: &FaultSpec) -> Result<TortureStack, String> {
        let Some(a) = spec.array() else {
            return Err(
                "device: a single drive has no redundancy, so any fault returns wrong data; torture a raid4 or a raid1/mirror"
                    .into(),
            );
        };
        let shape = match spec {
            DeviceSpec::Raid4(_) | DeviceSpec::Raid5(_) => {
                // RAID-5 in either parity layout (the stack's default: left-symmetric).
                let rotation = matches!(spec, DeviceSpec::Raid5(_))
                    .then(|| a.parity_layout.unwrap_or_default());
                let kib = a.stripe_kib.unwrap_or(64);
                if kib == 0 || !kib.is_multiple_of(4) {
                    return Err(format!(
                        "device.stripe-kib must be a positive multiple of 4 (4 KiB blocks), got {kib}"
                    ));
                }
                Shape::Raid4 {
                    data_disks: 0,
                    stripe_unit_blocks: kib / 4,
                    rotation,
                }
            }
            DeviceSpec::Raid1(_) | DeviceSpec::Mirror(_) => Shape::Mirror {
                replicas: 0,
                organization: None,
            },
            DeviceSpec::Intra(_) => {
                let org = organization(spec, a).map_err(|e| format!("device: {e}"))?;
                if !matches!(org, Organization::Intra { reliable: true, .. }) {
                    return Err("device: an intra keeps no copy of a drive's share on another drive, so a drive failure loses it by design; set reliable = true to torture it".into());
                }
                if let Some(key) = a.timing_key() {
                    return Err(format!(
                        "device.{key} does not apply to the byte-exact intra"
                    ));
                }
                Shape::Mirror {
                    replicas: 0,
                    organization: Some(org),
                }
            }
            other => {
                return Err(format!(
                    "device: kind = \"{}\" is timing-only (no bytes), so faults cannot be checked on it; byte-exact stacks are raid4, raid5 (either parity layout), raid1/mirror and intra with reliable = true",
                    other.kind()
                ))
            }
        };
        if let Some(key) = a
            .mimd_key()
            .filter(|_| !matches!(spec, DeviceSpec::Intra(_)))
        {
            return Err(format!(
                "device.{key} does not apply to the byte-exact {}",
                spec.kind()
            ));
        }
        let list = a.expand("device")?;
        let mut disk: Option<(crate::stack::tree::DiskSpec, DiskParams)> = None;
        let mut members = Vec::with_capacity(list.len());
        let inherited = a.faults.clone().unwrap_or_else(|| default.clone());
        if let Some(f) = &a.faults {
            f.validate("device")?;
            if f.fail_at_ms.is_some() {
                return Err("device.faults.fail-at-ms belongs on a member: failing the whole array loses it".into());
            }
        }
        for (i, m) in list.iter().enumerate() {
            let path = if a.member.is_some() {
                "device.member".to_string()
            } else {
                format!("device.members[{i}]")
            };
            let DeviceSpec::Disk(d) = m else {
                return Err(format!(
                    "{path}: the byte-exact {} takes drives as members, not a {}",
                    spec.kind(),
                    m.kind()
                ));
            };
            let mut plain = d.clone();
            plain.faults = None;
            match &disk {
                None => disk = Some((plain.clone(), plain.params(&path)?)),
                Some((first, _)) if *first != plain => {
                    return Err(format!(
                    "{path}: the byte-exact {}'s members must be identical drives (faults aside)",
                    spec.kind()
                ))
                }
                Some(_) => {}
            }
            let f = d.faults.clone().unwrap_or_else(|| inherited.clone());
            f.validate(&path)?;
            members.push((format!("device.member {i}"), f));
        }
        let Some((_, params)) = disk else {
            return Err("device: no members".into());
        };
        let shape = match shape {
            Shape::Raid4 {
                stripe_unit_blocks,
                rotation,
                ..
            } => {
                if members.len() < 2 {
                    return Err(format!(
                        "device: a {} needs at least 2 members, got {}",
                        spec.kind(),
                        members.len()
                    ));
                }
                Shape::Raid4 {
                    data_disks: members.len() - 1,
                    stripe_unit_blocks,
                    rotation,
                }
            }
            Shape::Mirror { organization, .. } => {
                for (i, (_, f)) in members.iter().enumerate() {
                    let path = format!("device.member {i}");
                    let kinds = f.byte_faults();
                    if !kinds.is_empty() {
                        return Err(format!(
                            "{path}.faults: {} cannot be checked on the byte-exact mirror: it keeps no checksums or generations, so it cannot tell them from good data (only fail-at-ms applies; use a raid4)",
                            kinds.join(", ")
                        ));
                    }
                    if f.crash_at_ms.is_some() {
                        return Err(format!(
                            "{path}.faults.crash-at-ms: the byte-exact mirror has no crash resync yet (use a raid4)"
                        ));
                    }
                }
                Shape::Mirror {
                    replicas: members.len(),
                    organization,
                }
            }
        };
        Ok(TortureStack {
            shape,
            disk: params,
            members,
        })
    }

    /// One line saying what runs.
    pub fn describe(&self) -> String {
        match &self.shape {
            Shape::Raid4 {
                data_disks,
                stripe_unit_blocks,
                rotation,
            } => format!(
                "{data_disks}+1 {} of {}, stripe unit {} KiB (byte-exact)",
                match rotation {
                    Some(l) => format!("RAID-5 ({})", l.name()),
                    None => "RAID-4".into(),
                },
                self.disk.name,
                stripe_unit_blocks * 4
            ),
            Shape::Mirror {
                replicas,
                organization: None,
            } => {
                format!("{replicas}-way mirror of {} (byte-exact)", self.disk.name)
            }
            Shape::Mirror {
                replicas,
                organization: Some(org),
            } => format!(
                "{} of {replicas} × {} (byte-exact)",
                org.name(),
                self.disk.name
            ),
        }
    }
}

/// One kind of fault: how many were injected and what became of them.
#[derive(Clone, Debug, Default, Serialize)]
pub struct KindRow {
    pub kind: String,
    pub injected: u64,
    /// Verification failures the array attributed to a location this kind damaged (a
    /// fault may be met more than once before it is repaired).
    pub detected: u64,
    /// Damaged locations rewritten by a repair (drive failures: rebuilds completed;
    /// crashes: recoveries completed).
    pub repaired: u64,
    /// Damaged locations overwritten by an ordinary write before any read met them.
    pub overwritten: u64,
}

/// What a campaign did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TortureReport {
    pub stack: String,
    pub seed: u64,
    pub ops: usize,
    pub kinds: Vec<KindRow>,
    /// Detections at locations no injected fault touched (collateral, e.g. parity).
    pub detections_unattributed: u64,
    pub detections_total: u64,
    pub reads_right: u64,
    /// Block reads refused as unrecoverable (never answered with guessed bytes).
    pub reads_refused: u64,
    pub writes_refused: u64,
    /// Blocks a power-cut recovery could not prove to hold their old or new contents
    /// (or, for a block with an earlier fault in a row the cut tore, its acknowledged
    /// ones): their reads are refused until they are written again.
    pub blocks_lost_in_power_cuts: u64,
    /// Stripe rows the array settled after they held more faults than parity repairs
    /// (their unprovable blocks pinned and refused, parity recomputed: see
    /// `Raid4::heal`), and the blocks so marked lost.
    pub rows_settled: u64,
    pub blocks_settled_lost: u64,
    /// Lost blocks (settled or lost in power cuts) the campaign wrote again, which
    /// read back from then on.
    pub lost_blocks_rewritten: u64,
    /// Periodic scrubs run (the final one aside) and the faults they repaired.
    pub scrubs: u64,
    pub scrub_repairs: u64,
    /// Block reads that returned wrong bytes: must be 0.
    pub wrong_reads: u64,
    /// Bytes that differed in those reads: must be 0.
    pub wrong_bytes: u64,
    pub unrecoverable_after_scrub: u64,
    pub damaged_left: u64,
    pub final_reads_right: u64,
    pub final_reads_refused: u64,
    pub final_reads_total: u64,
    pub simulated_s: f64,
}

/// The array under test.
enum Target {
    Raid4(Box<Raid4>),
    Mirror(Box<Mirror>),
}

fn member_faults(seed: u64, members: &[(String, FaultSpec)]) -> Vec<MemberFaults> {
    members
        .iter()
        .map(|(path, f)| MemberFaults {
            rng: ChaCha8Rng::seed_from_u64(device_seed(f.seed.unwrap_or(seed), path)),
            lost_write: f.lost,
            misdirected_write: f.misdirected,
            torn_write: f.torn,
        })
        .collect()
}

/// Runs the campaign; `progress` is called with the operations done so far.
pub fn run_torture(
    stack: &TortureStack,
    c: &TortureConfig,
    progress: &mut dyn FnMut(usize),
) -> Result<TortureReport, ArrayError> {
    if c.ops > MAX_TORTURE_OPS {
        return Err(ArrayError::Disk(format!(
            "ops {}: at most {MAX_TORTURE_OPS}",
            c.ops
        )));
    }
    crate::show::probabilities(&[("fail", c.fail), ("crash", c.crash)])
        .map_err(ArrayError::Disk)?;
    let mut target = match &stack.shape {
        Shape::Raid4 {
            data_disks,
            stripe_unit_blocks,
            ..
        } => {
            let mut a = stack.healing_raid4(*data_disks, *stripe_unit_blocks)?;
            a.faults =
                FaultInjector::new(c.seed).with_members(member_faults(c.seed, &stack.members));
            Target::Raid4(Box::new(a))
        }
        Shape::Mirror { .. } => {
            if c.crash > 0.0 {
                return Err(ArrayError::Disk(
                    "crash: the byte-exact mirror has no crash resync yet (use a raid4)".into(),
                ));
            }
            Target::Mirror(Box::new(stack.mirror(c.seed)?))
        }
    };
    let (members, volume) = match &target {
        Target::Raid4(a) => (a.layout().members(), a.layout().volume_blocks()),
        Target::Mirror(m) => (m.replicas(), m.blocks()),
    };
    if c.span_blocks == 0 || c.span_blocks > volume.min(MAX_TORTURE_SPAN) {
        return Err(ArrayError::OutOfRange {
            block: c.span_blocks,
            blocks: volume.min(MAX_TORTURE_SPAN),
        });
    }
    let span = c.span_blocks;
    let mut rng = ChaCha8Rng::seed_from_u64(device_seed(c.seed, "torture"));
    // Bit flips draw from each member's own stream, apart from its write fates.
    let mut flip_rngs: Vec<ChaCha8Rng> = stack
        .members
        .iter()
        .map(|(p, f)| {
            ChaCha8Rng::seed_from_u64(device_seed(f.seed.unwrap_or(c.seed), &format!("{p}.flips")))
        })
        .collect();
    let mut fail_at: Vec<Option<SimTime>> = stack
        .members
        .iter()
        .map(|(_, f)| f.fail_at_ms.map(SimTime::from_ms))
        .collect();
    let mut crash_at: Option<SimTime> = stack
        .members
        .iter()
        .filter_map(|(_, f)| f.crash_at_ms)
        .reduce(f64::min)
        .map(SimTime::from_ms);
    let mut model = Expected::default();
    let mut r = TortureReport {
        stack: stack.describe(),
        seed: c.seed,
        ops: c.ops,
        ..TortureReport::default()
    };
    let mut detected = [0u64; 4];
    let mut seen_detections = 0usize;
    let (mut failures, mut rebuilt, mut crashes, mut recovered) = (0u64, 0u64, 0u64, 0u64);
    // The failed member and the operation it failed at.
    let mut down: Option<(usize, usize)> = None;
    let rows_span = match &stack.shape {
        Shape::Raid4 {
            data_disks,
            stripe_unit_blocks,
            ..
        } => span / *data_disks as u64 + stripe_unit_blocks,
        Shape::Mirror { .. } => span,
    };
    let watch = crate::interrupt::Watch::start();
    for i in 0..c.ops {
        if i % 1024 == 0 {
            if watch.stopped() {
                return Err(ArrayError::Interrupted);
            }
            progress(i);
        }
        let now = match &target {
            Target::Raid4(a) => a.now(),
            Target::Mirror(m) => m.now(),
        };
        // Drive failures: scheduled ones first, then the campaign's own draw.
        let whole = down.is_none();
        let mut fail_now = None;
        if whole {
            if let Some(d) = (0..members).find(|&d| fail_at[d].is_some_and(|t| now >= t)) {
                fail_at[d] = None;
                fail_now = Some(d);
            } else if c.fail > 0.0 && rng.gen_bool(c.fail) {
                fail_now = Some(rng.gen_range(0..members));
            }
        }
        if let Some(d) = fail_now {
            match &mut target {
                Target::Raid4(a) => a.fail_disk(d)?,
                Target::Mirror(m) => m.fail_disk(d)?,
            }
            failures += 1;
            down = Some((d, i));
        }
        // A replacement is rebuilt a while later, interleaved with the user I/O.
        if let Some((d, at)) = down {
            if i >= at + c.replace_after {
                let done = match &mut target {
                    Target::Raid4(a) => {
                        if a.state(d) == Some(MemberState::Failed) {
                            a.replace_disk(d)?;
                        }
                        a.rebuild_step(4)?
                    }
                    Target::Mirror(m) => {
                        m.replace_and_rebuild(d)?;
                        true
                    }
                };
                if done {
                    rebuilt += 1;
                    down = None;
                }
            }
        }
        let k = rng.gen_range(1..=6);
        if rng.gen_bool(0.5) {
            let w: Vec<(u64, Block)> = (0..k)
                .map(|_| (rng.gen_range(0..span), random_block(&mut rng)))
                .collect();
            let cut =
                (c.crash > 0.0 && rng.gen_bool(c.crash)) || crash_at.is_some_and(|t| now >= t);
            let mut settle: Vec<u64> = Vec::new();
            match &mut target {
                Target::Raid4(a) => {
                    if cut {
                        crash_at = None;
                        // The power goes after a random number of member writes.
                        let budget = rng.gen_range(0..=8 * w.len() as u64);
                        a.faults.crash_after_writes(budget);
                    }
                    let res = a.write_batch(&w);
                    if cut {
                        crashes += 1;
                        a.faults.power_restored();
                        let dirty: Vec<u64> = w.iter().map(|(v, _)| *v).collect();
                        // A block written twice in one batch gets its last value only.
                        let latest: BTreeMap<u64, &Block> =
                            w.iter().map(|(v, b)| (*v, b)).collect();
                        for (v, b) in latest {
                            // Any value it could hold before, or the new one, until a
                            // read settles it (cut-off writes of one block accumulate).
                            let old = model.expected(v);
                            model.maybe.entry(v).or_default().push(old);
                            model.value.insert(v, b.clone());
                        }
                        a.recover_after_crash(&dirty)?;
                        recovered += 1;
                        if let Err(e) = res {
                            e.internal()?;
                        }
                        // Recovery settles each cut-off block for good, so they are read
                        // back at once: from here on each must read exactly as settled
                        // (unread, a second cut-off write of the same block would leave
                        // three acceptable values).
                        settle = dirty;
                    } else {
                        match res {
                            Ok(_) => {
                                for (v, b) in w {
                                    model.maybe.remove(&v);
                                    model.value.insert(v, b);
                                }
                            }
                            Err(ArrayError::Unrecoverable { .. }) => r.writes_refused += 1,
                            Err(e) => return Err(e),
                        }
                    }
                }
                Target::Mirror(m) => {
                    let mut latest: BTreeMap<u64, Block> = BTreeMap::new();
                    latest.extend(w);
                    let ops: Vec<MirrorOp> = latest
                        .iter()
                        .map(|(v, b)| MirrorOp::Write(*v, b.clone()))
                        .collect();
                    match m.batch(&ops, None) {
                        Ok(_) => model.value.extend(latest),
                        Err(ArrayError::Unrecoverable { .. }) => r.writes_refused += 1,
                        Err(e) => return Err(e),
                    }
                }
            }
            if !settle.is_empty() {
                settle.sort_unstable();
                settle.dedup();
                read_check(&mut target, &mut model, &settle, &mut r, false)?;
            }
        } else {
            let blocks: Vec<u64> = (0..k).map(|_| rng.gen_range(0..span)).collect();
            read_check(&mut target, &mut model, &blocks, &mut r, false)?;
        }
        if let Target::Raid4(a) = &mut target {
            for (d, frng) in flip_rngs.iter_mut().enumerate() {
                let p = stack.members[d].1.flips;
                if p > 0.0 && frng.gen_bool(p) {
                    let (block, bit) = draw_bit_flip(frng, rows_span);
                    a.inject_bit_flip(d, block, bit);
                }
            }
            if c.scrub_every > 0 && i % c.scrub_every == c.scrub_every - 1 {
                let (_, rep) = a.scrub()?;
                r.scrubs += 1;
                r.scrub_repairs += rep.repairs;
            }
            for det in &a.detections()[seen_detections..] {
                match a.faults.kind_at(det.disk, det.block) {
                    Some(k) => detected[k as usize] += 1,
                    None => r.detections_unattributed += 1,
                }
            }
            seen_detections = a.detections().len();
        }
    }
    progress(c.ops);
    // Stop injecting, finish any rebuild, then scrub: what is still damaged must be
    // found and fixed (or its rows reported unrecoverable).
    if let Some((d, _)) = down {
        match &mut target {
            Target::Raid4(a) => {
                if a.state(d) == Some(MemberState::Failed) {
                    a.replace_disk(d)?;
                }
                while !a.rebuild_step(64)? {}
            }
            Target::Mirror(m) => m.replace_and_rebuild(d)?,
        }
        rebuilt += 1;
    }
    if let Target::Raid4(a) = &mut target {
        a.faults.stop();
        let (errors, _) = a.scrub()?;
        r.unrecoverable_after_scrub = errors.len() as u64;
        r.damaged_left = a.damaged_in_use();
        for det in &a.detections()[seen_detections..] {
            match a.faults.kind_at(det.disk, det.block) {
                Some(k) => detected[k as usize] += 1,
                None => r.detections_unattributed += 1,
            }
        }
        r.detections_total = a.detections().len() as u64;
        r.blocks_lost_in_power_cuts = a.lost_by_recovery();
        let s = a.settlements();
        r.rows_settled = s.rows;
        r.blocks_settled_lost = s.blocks_lost;
        r.lost_blocks_rewritten = s.blocks_rewritten;
    }
    let all: Vec<u64> = model.value.keys().copied().collect();
    let before = (r.reads_right, r.reads_refused);
    read_check(&mut target, &mut model, &all, &mut r, true)?;
    r.final_reads_total = all.len() as u64;
    r.final_reads_right = r.reads_right - before.0;
    r.final_reads_refused = r.reads_refused - before.1;
    r.reads_right = before.0;
    r.reads_refused = before.1;
    let (injected, tally) = match &target {
        Target::Raid4(a) => (a.faults.injected, a.faults.by_kind),
        Target::Mirror(_) => Default::default(),
    };
    let row = |kind: &str, class: FaultClass, n: u64| KindRow {
        kind: kind.into(),
        injected: n,
        detected: detected[class as usize],
        repaired: tally[class as usize].repaired,
        overwritten: tally[class as usize].overwritten,
    };
    r.kinds = vec![
        row("lost writes", FaultClass::Lost, injected.lost_writes),
        row(
            "misdirected writes",
            FaultClass::Misdirected,
            injected.misdirected_writes,
        ),
        row("torn writes", FaultClass::Torn, injected.torn_writes),
        row("bit flips", FaultClass::Flip, injected.bit_flips),
        KindRow {
            kind: "drive failures".into(),
            injected: failures,
            detected: failures,
            repaired: rebuilt,
            overwritten: 0,
        },
        KindRow {
            kind: "power cuts".into(),
            injected: crashes,
            detected: crashes,
            repaired: recovered,
            overwritten: 0,
        },
    ];
    r.simulated_s = match &target {
        Target::Raid4(a) => a.now().as_ms() / 1e3,
        Target::Mirror(m) => m.now().as_ms() / 1e3,
    };
    Ok(r)
}

/// Reads `blocks` (the final read-back in chunks) and checks each against the model.
fn read_check(
    target: &mut Target,
    model: &mut Expected<u64>,
    blocks: &[u64],
    r: &mut TortureReport,
    final_pass: bool,
) -> Result<(), ArrayError> {
    let chunk = if final_pass { 4096 } else { usize::MAX };
    for part in blocks.chunks(chunk.min(blocks.len().max(1))) {
        let got: Vec<(u64, Option<Block>)> = match target {
            Target::Raid4(a) => {
                let (out, _) = a.read_batch(part)?;
                part.iter().zip(out).map(|(v, o)| (*v, o.ok())).collect()
            }
            Target::Mirror(m) => {
                let mut distinct = part.to_vec();
                distinct.sort_unstable();
                distinct.dedup();
                let ops: Vec<MirrorOp> = distinct.iter().map(|&v| MirrorOp::Read(v)).collect();
                match m.batch(&ops, None) {
                    Ok(b) => distinct.iter().copied().zip(b.reads).collect(),
                    Err(ArrayError::Unrecoverable { .. }) => {
                        distinct.iter().map(|&v| (v, None)).collect()
                    }
                    Err(e) => return Err(e),
                }
            }
        };
        for (v, b) in got {
            match b {
                Some(b) => {
                    let wrong = model.check(v, &b);
                    if wrong == 0 {
                        r.reads_right += 1;
                    } else {
                        r.wrong_reads += 1;
                        r.wrong_bytes += wrong;
                    }
                }
                None => r.reads_refused += 1,
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::presets;
    use crate::stack::tree::{ArraySpec, DiskSpec};

    fn wd() -> DiskParams {
        presets::preset("wd-re3").expect("preset")
    }

    fn campaign(seed: u64, ops: usize, fail: f64, crash: f64) -> TortureConfig {
        TortureConfig {
            seed,
            ops,
            fail,
            crash,
            ..TortureConfig::default()
        }
    }

    /// Every fault kind but the power cut at 1 % and 5 %, several seeds: reads come
    /// back right or refused, never wrong, and every kind was injected.
    #[test]
    fn raid4_returns_no_wrong_byte_under_every_fault() {
        for p in [0.01, 0.05] {
            for seed in 1..=3 {
                let stack = TortureStack::raid4(wd(), 4, 16, &FaultSpec::uniform(p));
                let r = run_torture(&stack, &campaign(seed, 1200, p, 0.0), &mut |_| {})
                    .expect("campaign");
                assert_eq!(r.wrong_bytes, 0, "p {p} seed {seed}: {r:?}");
                assert_eq!(r.wrong_reads, 0);
                for k in &r.kinds[..5] {
                    assert!(k.injected > 0, "p {p} seed {seed}: no {} injected", k.kind);
                }
                assert!(r.reads_right > 0);
            }
        }
    }

    /// Power cuts alone, mid-write: every block reads back as one of the values it may
    /// hold, never anything else.
    #[test]
    fn raid4_survives_power_cuts() {
        for (p, seed) in [(0.01, 1), (0.05, 2), (0.05, 3)] {
            let stack = TortureStack::raid4(wd(), 4, 16, &FaultSpec::default());
            let r =
                run_torture(&stack, &campaign(seed, 1200, 0.0, p), &mut |_| {}).expect("campaign");
            assert!(r.kinds[5].injected > 0);
            assert_eq!(r.wrong_bytes, 0, "p {p} seed {seed}: {r:?}");
            // Without other faults every block is provably old or new: none is refused.
            assert_eq!(
                r.reads_refused + r.final_reads_refused,
                0,
                "p {p} seed {seed}"
            );
            assert_eq!(r.blocks_lost_in_power_cuts, 0, "p {p} seed {seed}");
        }
    }

    /// Power cuts combined with each other kind of fault, several seeds (issue 16: a
    /// recovery that rebuilt the expected generations from the checksum blocks let a
    /// lost or damaged checksum block read as zeros, and a block whose data and
    /// checksum-block writes were both lost before the cut read back stale): every read
    /// is right or refused, never wrong.
    #[test]
    fn raid4_power_cuts_with_each_fault_kind_return_no_wrong_byte() {
        for kind in ["lost", "misdirected", "torn", "flips", "fail"] {
            for seed in 1..=4 {
                let mut f = FaultSpec::default();
                let mut fail = 0.0;
                match kind {
                    "lost" => f.lost = 0.02,
                    "misdirected" => f.misdirected = 0.02,
                    "torn" => f.torn = 0.02,
                    "flips" => f.flips = 0.02,
                    _ => fail = 0.02,
                }
                let stack = TortureStack::raid4(wd(), 4, 16, &f);
                let c = TortureConfig {
                    span_blocks: 600,
                    ..campaign(seed, 800, fail, 0.02)
                };
                let r = run_torture(&stack, &c, &mut |_| {}).expect("campaign");
                assert!(r.kinds[5].injected > 0, "{kind} seed {seed}: no power cut");
                eprintln!(
                    "{kind} seed {seed}: refused {} + {} at the end, {} blocks lost in power cuts",
                    r.reads_refused, r.final_reads_refused, r.blocks_lost_in_power_cuts
                );
                assert_eq!(r.wrong_reads, 0, "{kind} seed {seed}: {r:?}");
                assert_eq!(r.wrong_bytes, 0);
                assert!(r.reads_right > 0);
            }
        }
    }

    /// Rows that take two faults are settled, so the volume does not saturate with
    /// refused blocks: lost blocks are written again and read back, and most of the
    /// volume reads back at the end (before settling, long runs ended with most of it
    /// refused).
    #[test]
    fn raid4_heals_rows_with_two_faults() {
        for seed in [1, 2] {
            let stack = TortureStack::raid4(wd(), 4, 16, &FaultSpec::uniform(0.05));
            let c = TortureConfig {
                span_blocks: 600,
                ..campaign(seed, 1500, 0.0, 0.0)
            };
            let r = run_torture(&stack, &c, &mut |_| {}).expect("campaign");
            assert_eq!(r.wrong_bytes, 0, "seed {seed}: {r:?}");
            assert!(r.rows_settled > 0 && r.lost_blocks_rewritten > 0, "{r:?}");
            assert_eq!(r.unrecoverable_after_scrub, 0, "{r:?}");
            assert!(
                r.final_reads_refused * 4 < r.final_reads_total,
                "seed {seed}: {} of {} refused",
                r.final_reads_refused,
                r.final_reads_total
            );
        }
    }

    #[test]
    fn same_seed_same_report_and_members_draw_apart() {
        let stack = TortureStack::raid4(wd(), 4, 16, &FaultSpec::uniform(0.02));
        let c = campaign(9, 600, 0.01, 0.01);
        let a = serde_json::to_string(&run_torture(&stack, &c, &mut |_| {}).expect("a")).unwrap();
        let b = serde_json::to_string(&run_torture(&stack, &c, &mut |_| {}).expect("b")).unwrap();
        assert_eq!(a, b);
        let m = member_faults(9, &stack.members);
        let mut r0 = m[0].rng.clone();
        let mut r1 = m[1].rng.clone();
        assert_ne!(r0.gen::<u64>(), r1.gen::<u64>());
    }

    #[test]
    fn mirror_takes_drive_failures_and_refuses_what_it_cannot_detect() {
        let member = DeviceSpec::Disk(DiskSpec::new("wd-re3"));
        let spec = DeviceSpec::Mirror(ArraySpec::of(3, member.clone()));
        let stack = TortureStack::from_device(&spec, &FaultSpec::default()).expect("mirror");
        let r = run_torture(&stack, &campaign(4, 400, 0.02, 0.0), &mut |_| {}).expect("run");
        assert!(r.kinds[4].injected > 0);
        assert_eq!(r.wrong_bytes, 0);
        let e = TortureStack::from_device(&spec, &FaultSpec::uniform(0.01)).unwrap_err();
        assert!(
            e.contains("device.member 0.faults") && e.contains("checksums"),
            "{e}"
        );
        let raid0 = DeviceSpec::Raid0(ArraySpec::of(4, member));
        let e = TortureStack::from_device(&raid0, &FaultSpec::default()).unwrap_err();
        assert!(e.contains("timing-only"), "{e}");
    }

    /// MimdRAID's intra-disk 2 × 2 with `reliable = true`, byte-exact: drive failures
    /// with rebuilds and no wrong byte; without `reliable` (no copy on another drive)
    /// or with a timing-only key, refused before the run.
    #[test]
    fn reliable_intra_takes_drive_failures() {
        let mut a = ArraySpec::of(4, DeviceSpec::Disk(DiskSpec::new("st34502lw")));
        a.split = Some(2);
        a.rotational = Some(2);
        a.reliable = Some(true);
        let stack = TortureStack::from_device(&DeviceSpec::Intra(a.clone()), &FaultSpec::default())
            .expect("intra");
        assert!(
            stack.describe().starts_with("intra 2x2"),
            "{}",
            stack.describe()
        );
        for seed in [1, 2] {
            let mut c = campaign(seed, 400, 0.02, 0.0);
            c.span_blocks = 400;
            let r = run_torture(&stack, &c, &mut |_| {}).expect("run");
            assert!(r.kinds[4].injected > 0, "seed {seed}: no drive failed");
            assert_eq!(r.wrong_bytes, 0);
            assert_eq!(r.reads_refused, 0);
        }
        a.reliable = None;
        let e = TortureStack::from_device(&DeviceSpec::Intra(a.clone()), &FaultSpec::default())
            .unwrap_err();
        assert!(e.contains("reliable = true"), "{e}");
        a.reliable = Some(true);
        a.cylinders = Some(1000);
        let e =
            TortureStack::from_device(&DeviceSpec::Intra(a), &FaultSpec::default()).unwrap_err();
        assert!(e.contains("device.cylinders"), "{e}");
    }

    /// The byte-exact RAID-5 (rotating parity, both layouts; a stack's raid5 with no
    /// parity-layout is left-symmetric) under the campaign: every member write fault,
    /// bit flips, member failures with rebuilds and power cuts at 1 % and 5 %; no read
    /// is wrong, every kind was injected, and the parity really rotates.
    #[test]
    fn raid5_returns_no_wrong_byte_under_every_fault_and_power_cuts() {
        let mut spec = ArraySpec::of(5, DeviceSpec::Disk(DiskSpec::new("wd-re3")));
        spec.stripe_kib = Some(64);
        let cases = [
            (None, 0.01, 1),
            (None, 0.05, 3),
            (Some(ParityLayout::LeftSymmetric), 0.01, 2),
            (Some(ParityLayout::LeftSymmetric), 0.05, 4),
            (Some(ParityLayout::LeftAsymmetric), 0.01, 1),
            (Some(ParityLayout::LeftAsymmetric), 0.01, 2),
            (Some(ParityLayout::LeftAsymmetric), 0.05, 3),
            (Some(ParityLayout::LeftAsymmetric), 0.05, 4),
        ];
        for (layout, p, seed) in cases {
            spec.parity_layout = layout;
            let stack =
                TortureStack::from_device(&DeviceSpec::Raid5(spec.clone()), &FaultSpec::uniform(p))
                    .expect("raid5");
            let want = layout.unwrap_or(ParityLayout::LeftSymmetric);
            assert!(
                stack
                    .describe()
                    .contains(&format!("RAID-5 ({})", want.name())),
                "{}",
                stack.describe()
            );
            let a = stack.healing_raid4(4, 16).expect("array");
            assert_eq!(a.layout().rotation, Some(want));
            let r =
                run_torture(&stack, &campaign(seed, 1500, p, p), &mut |_| {}).expect("campaign");
            assert_eq!(r.wrong_bytes, 0, "{want:?} p {p} seed {seed}: {r:?}");
            assert_eq!(r.wrong_reads, 0);
            for k in &r.kinds {
                assert!(
                    k.injected > 0,
                    "{want:?} p {p} seed {seed}: no {} injected",
                    k.kind
                );
            }
            assert!(r.reads_right > 0);
        }
    }

    #[test]
    fn stack_faults_tables_inherit_and_validate() {
        let mut d = DiskSpec::new("wd-re3");
        d.faults = Some(FaultSpec {
            lost: 0.5,
            ..FaultSpec::default()
        });
        let mut a = ArraySpec::of(1, DeviceSpec::Disk(DiskSpec::new("wd-re3")));
        a.count = None;
        a.member = None;
        a.members = vec![
            DeviceSpec::Disk(d),
            DeviceSpec::Disk(DiskSpec::new("wd-re3")),
            DeviceSpec::Disk(DiskSpec::new("wd-re3")),
        ];
        a.faults = Some(FaultSpec::uniform(0.01));
        let s = TortureStack::from_device(&DeviceSpec::Raid4(a.clone()), &FaultSpec::default())
            .expect("raid4");
        assert_eq!(s.members[0].1.lost, 0.5);
        assert_eq!(s.members[1].1, FaultSpec::uniform(0.01));
        a.faults = Some(FaultSpec {
            flips: 2.0,
            ..FaultSpec::default()
        });
        let e =
            TortureStack::from_device(&DeviceSpec::Raid4(a), &FaultSpec::default()).unwrap_err();
        assert!(e.contains("device.faults.flips"), "{e}");
    }

    /// The timing-only tree refuses a faults table before anything runs.
    #[test]
    fn timing_only_tree_refuses_faults() {
        let mut d = DiskSpec::new("wd-re3");
        d.faults = Some(FaultSpec::uniform(0.01));
        let spec = DeviceSpec::Raid5(ArraySpec::of(4, DeviceSpec::Disk(d)));
        let q = crate::stack::queue::QueueSpec::new(crate::sched::SchedulerKind::Fcfs);
        let e = crate::stack::tree::build(&spec, &q, None)
            .err()
            .expect("refused");
        assert!(
            e.contains("device.member 0.faults") && e.contains("timing-only"),
            "{e}"
        );
    }
}
