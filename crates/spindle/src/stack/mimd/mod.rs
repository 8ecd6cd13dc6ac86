//! MimdRAID's organizations (ALG-MIMD): arrays that trade capacity for latency by
//! where they put data and how many copies they keep, as devices over member devices.
//!
//! - *Splitting* (D-way): 1/D of the data on the outermost LBNs of each drive, the
//!   rest discarded, so each head stays in a narrow band (Eq 3). The *reliability
//!   variant* splits D−1 ways and keeps one full copy on the last drive, which only
//!   takes writes.
//! - *Replicated splitting*: each drive's share kept in `copies` bands of cylinders
//!   spread over the drive (copies of the outer data in the discarded middle); a read
//!   goes to the nearest copy (Eq 4).
//! - *Intra-disk x × y*: each drive's share replicated `y` times on different tracks
//!   of the same cylinder, evenly (360/y° apart, Eq 7) or at random angles (Eq 6), so
//!   no track switch is needed to reach a replica; in the simulation's form the share
//!   is also replicated-split `x` ways at cylinder granularity (the bands fill the
//!   drive), in the prototype's form it is split `x` ways (one band, 1/x of the
//!   cylinders, the rest discarded). With `reliable`, each drive also keeps a copy of
//!   the previous drive's share after its own bands (which shrink to make room),
//!   written with it and read only once that drive has failed: the paper's intra-disk
//!   keeps no copy on another drive, so without it a drive failure loses its share.
//! - Replicated splitting and intra-disk deal the array's addresses to the drives one
//!   logical cylinder at a time ([`SplitUnit::Cylinder`]: "splitting is identical to
//!   striping", done "at cylinder granularity" in the paper's simulation), so a
//!   workload's busy region is spread over every drive; or in contiguous shares.
//!
//! Reads go to one replica, chosen like a mirror's ([`ReplicaChoice`]; by default the
//! delay until the media reaches it, predicted by the member drive's model for a read
//! sent now, command overhead included: [`crate::disk::hdd::Hdd::read_delay_if_sent`]);
//! writes go to every replica in the foreground. Timing only, like [`super::array::Array`];
//! [`super::mimd_bytes`] stores real bytes in the same layouts.

use super::array::ReplicaChoice;
use super::propagation::{Background, MemberWrite};
use crate::disk::geometry::{Geometry, Pbn};
use crate::disk::hdd::{Hdd, Request};
use crate::node::{tree_line, Device, Done, NodeReport, Parts};
use crate::time::SimTime;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

mod place;
pub use place::MAX_STRIPED_PIECES;
use place::{mix, push_bands, shuffle, Banded, Copy, Place, Share};

/// Where a drive's rotational replicas sit relative to the first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RotPlacement {
    /// On other tracks of the same cylinder, 360/y degrees apart (Eq 7; Figure 2(c)
    /// with Figure 2(b)'s spacing): y at most the drive's heads.
    #[default]
    Even,
    /// On other tracks of the same cylinder, at random angles, drawn per cylinder and
    /// replica from the run's seed (Eq 6).
    Random,
    /// On the same track, 360/y degrees apart (Figure 2(b)): each track holds 1/y of
    /// its sectors' worth of data, so y is not bounded by the heads.
    SameTrack,
}

/// At what angle a drive's band copies of a slot sit (replicated splitting's copies,
/// on cylinders far apart). The paper says only that they are "at different rotational
/// positions".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BandAngles {
    /// At the same sector numbers as band 0's: the angle is where the drive's track
    /// and cylinder skews put it, so it depends on the band's width (on st34502lw five
    /// bands of 171 cylinders fall within 80° of one another).
    #[default]
    Skew,
    /// Band k turned k/(K·y) of a turn from band 0 (K band copies: intra's x, or
    /// replicated-split's `copies`; y rotational replicas): a slot's K·y replicas evenly
    /// spaced in angle where the band copies' tracks hold as many sectors. Each track is
    /// turned as a whole (so no two slots share a sector), so where they hold different
    /// counts the spacing drifts along the track by their difference.
    Even,
    /// Each band copy of each track at a random angle, drawn from the array's layout
    /// seed (as `rotation = "random"`: fixed per array and drive, not by `--seed`).
    Random,
}

impl BandAngles {
    fn name(self) -> &'static str {
        match self {
            BandAngles::Skew => "band copies at the drive's skew",
            BandAngles::Even => "band copies evenly turned",
            BandAngles::Random => "band copies at random angles",
        }
    }
}

/// Where a mirror's members keep each block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MirrorLayouts {
    /// Every member at the same LBNs.
    #[default]
    Identical,
    /// "Non-identical layouts" (Eq 2): members after the first keep the address space
    /// in a seeded random order of 512 KiB chunks, so a block's cylinders on two
    /// members are independent.
    Shuffled,
}

/// Largest reorder window of a member's queue in throughput mode.
pub const MAX_REORDER: usize = 1 << 16;

/// In throughput mode, which member's queue a read with copies on several members
/// joins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Spread {
    /// The member with the fewest reads waiting or in service (ties: the lowest).
    #[default]
    LeastBusy,
    /// Round robin over the members holding a copy, whatever their load: the reads are
    /// dealt out evenly, as MimdRAID's mirroring distributes them (§4.3.1).
    Even,
}

/// Chunk of a shuffled mirror layout, sectors (512 KiB).
const SHUFFLE_CHUNK: u64 = 1024;

/// The intra-disk organization's two forms in the paper.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IntraForm {
    /// Replicated splitting × rotational replication, split at cylinder granularity
    /// (the simulation's, §3: F5–F7).
    #[default]
    Simulation,
    /// Splitting × even rotational replication (the prototype's, §4: F8–F9).
    Prototype,
}

/// How a splitting organization deals the array's addresses out to its members.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SplitUnit {
    /// Striped one logical cylinder at a time: member m holds logical cylinders m,
    /// m + D, m + 2D, … of the array ("splitting is identical to striping"; the
    /// simulation splits "at cylinder granularity", §2.1.1 and §3.2), so a region
    /// of the address space is spread over every member.
    #[default]
    Cylinder,
    /// Member m holds the m-th contiguous 1/D of the addresses (Figure 1(b)'s two
    /// disjoint sets).
    Share,
}

impl SplitUnit {
    fn name(self) -> &'static str {
        match self {
            SplitUnit::Cylinder => "striped by cylinder",
            SplitUnit::Share => "contiguous shares",
        }
    }
}

/// Which organization a [`Layout`] implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Organization {
    /// D-way mirroring: every member a full copy (the spindles' phases, from the
    /// array's `spindles`, make it synchronized or not).
    Mirror {
        layouts: MirrorLayouts,
    },
    Split {
        reliable: bool,
    },
    ReplicatedSplit {
        copies: u32,
        unit: SplitUnit,
        bands: BandAngles,
    },
    Intra {
        split: u32,
        rotational: u32,
        form: IntraForm,
        rotation: RotPlacement,
        unit: SplitUnit,
        bands: BandAngles,
        /// Each member also keeps a copy of the previous member's share (member 0's on
        /// member 1, …, the last's on member 0), written with it and read only when
        /// the member holding the share has failed, so any one drive may fail.
        reliable: bool,
    },
}

impl Organization {
    pub fn name(&self) -> String {
        match *self {
            Organization::Mirror {
                layouts: MirrorLayouts::Identical,
            } => "mirror".into(),
            Organization::Mirror {
                layouts: MirrorLayouts::Shuffled,
            } => "mirror (shuffled layouts)".into(),
            Organization::Split { reliable: false } => "split".into(),
            Organization::Split { reliable: true } => "split (reliable: D-1 ways + a copy)".into(),
            Organization::ReplicatedSplit {
                copies,
                unit,
                bands,
            } => {
                let bands = match bands {
                    BandAngles::Skew => String::new(),
                    b => format!(", {}", b.name()),
                };
                format!("replicated-split ({copies} copies, {}{bands})", unit.name())
            }
            Organization::Intra {
                split,
                rotational,
                form,
                rotation,
                unit,
                bands,
                reliable,
            } => format!(
                "intra {split}x{rotational} ({}, {} rotational replicas, {}{}{})",
                match form {
                    IntraForm::Simulation => "replicated splitting",
                    IntraForm::Prototype => "splitting",
                },
                match rotation {
                    RotPlacement::Even => "even",
                    RotPlacement::Random => "random",
                    RotPlacement::SameTrack => "same-track even",
                },
                unit.name(),
                if bands == BandAngles::Skew || form == IntraForm::Prototype {
                    String::new()
                } else {
                    format!(", {}", bands.name())
                },
                if reliable {
                    ", reliable: each share also on the next drive"
                } else {
                    ""
                }
            ),
        }
    }
}

struct Parent {
    req: Request,
    remaining: u32,
    parts: Parts,
}

impl Parent {
    /// A request waiting for `remaining` member requests, none started yet.
    fn waiting(req: Request, remaining: u32) -> Parent {
        Parent {
            req,
            remaining,
            parts: Parts::default(),
        }
    }
}

/// Adds member `m`'s sector `l` to `runs`, extending the last run when contiguous.
fn push_sector(runs: &mut Vec<Run>, m: usize, l: u64) {
    match runs.last_mut() {
        Some(r) if r.0 == m && r.1 + u64::from(r.2) == l => r.2 += 1,
        _ => runs.push((m, l, 1)),
    }
}

#[derive(Clone, Debug, Default)]
struct Stats {
    reads: u64,
    writes: u64,
    member_reads: u64,
    member_writes: u64,
    /// Reads served by each replica index (band × rotational replica).
    by_replica: Vec<u64>,
    /// Reads whose replica was on a drive: cylinders from that drive's head (at the
    /// choice) to the replica, summed; and their rotational delay (as served), ns.
    measured: u64,
    seek_cyl: u64,
    rotation_ns: u64,
}

/// A MimdRAID organization over member devices.
pub struct Layout {
    org: Organization,
    members: Vec<Box<dyn Device>>,
    shares: Vec<Share>,
    capacity: u64,
    choice: ReplicaChoice,
    children: FxHashMap<u64, u64>,
    parents: FxHashMap<u64, Parent>,
    next_child: u64,
    scratch: Vec<Done>,
    stats: Stats,
    /// Throughput mode ([`Layout::with_reorder`]): reads held per member, sent one at a
    /// time when the member is idle; `None` sends every read at once.
    reorder: Option<Reorder>,
    /// How far ahead (degrees of a turn) the host's head tracker believes the platters
    /// are: replicas are chosen by the delay predicted that much of a turn later.
    prediction_error_deg: f64,
    /// Background write propagation ([`Layout::with_background`]); `None`: every
    /// replica is written before a write is acknowledged.
    background: Option<Background>,
    /// Reads waiting for a replica with no write pending.
    stalled: Vec<Request>,
}

/// MIMD-F9's per-drive reorder queues: each member's reads wait here and the member
/// gets one when it is idle, the elevator's next (LOOK over the replicas' cylinders,
/// among the `window` oldest), at the replica the drive model predicts it reaches
/// first at that moment, so a rotational replica is chosen when the head is known.
struct Reorder {
    window: usize,
    held: Vec<Vec<Held>>,
    /// Each member's elevator direction (true: towards higher cylinders).
    up: Vec<bool>,
    spread: Spread,
    /// Reads dealt out so far (the round robin's position under [`Spread::Even`]).
    dealt: usize,
}

/// A read waiting in a member's reorder queue: its request and the copy it reads.
#[derive(Clone, Copy, Debug)]
struct Held {
    pid: u64,
    share: usize,
    copy: usize,
    /// Its first sector's cylinder on the member (replica 0), for the elevator.
    cyl: u32,
}

/// A member request: (member, LBN, sectors).
type Run = (usize, u64, u32);

/// A reliable intra's bands per member, and where each share's copy starts on the
/// next member.
type BandsAndCopies = (Vec<Banded>, Vec<u64>);

impl Layout {
    /// `org` over `members`; `seed` draws random rotational angles. Errors name what
    /// cannot work (too few members, a member without a drive where replicas are
    /// placed by geometry, more rotational replicas than heads).
    pub fn new(
        org: Organization,
        members: Vec<Box<dyn Device>>,
        choice: ReplicaChoice,
        seed: u64,
    ) -> Result<Layout, String> {
        Layout::within(org, members, choice, seed, None)
    }

    /// Like [`Layout::new`], laying data out only on each member's outermost
    /// `cylinders` (all of them if `None`), as if the drives were that small: the
    /// organization applies to the part of the drives a workload's data covers (MIMD-F6's
    /// trace fills about a sixth of a Cheetah's cylinders).
    pub fn within(
        org: Organization,
        members: Vec<Box<dyn Device>>,
        choice: ReplicaChoice,
        seed: u64,
        cylinders: Option<u32>,
    ) -> Result<Layout, String> {
        Layout::build(org, members, choice, seed, cylinders, 1)
    }

    /// [`Layout::within`] cut into whole 4 KiB blocks: every piece of a cylinder
    /// layout holds a whole number of blocks, so each block's sectors have their
    /// copies on the same members ([`super::mimd_bytes`] stores real bytes this way).
    pub fn in_blocks(
        org: Organization,
        members: Vec<Box<dyn Device>>,
        seed: u64,
        cylinders: Option<u32>,
    ) -> Result<Layout, String> {
        let granule = crate::store::SECTORS_PER_BLOCK;
        Layout::build(org, members, ReplicaChoice::Seek, seed, cylinders, granule)
    }

    /// [`Layout::within`], each piece of a cylinder layout holding a whole number of
    /// `granule` sectors.
    fn build(
        org: Organization,
        members: Vec<Box<dyn Device>>,
        choice: ReplicaChoice,
        seed: u64,
        cylinders: Option<u32>,
        granule: u64,
    ) -> Result<Layout, String> {
        let d = members.len();
        let geo = |m: usize| -> Result<&Geometry, String> {
            members[m]
                .drive()
                .map(|dr| dr.hdd().geometry())
                .ok_or_else(|| format!("member {m} is not a drive: cylinder layouts need one"))
        };
        // Each member's cylinders in use, and the sectors before the first unused one.
        let mut used = Vec::with_capacity(d);
        for (m, dev) in members.iter().enumerate() {
            let Some(n) = cylinders else {
                used.push((geo(m).map_or(0, |g| g.cylinders()), dev.capacity()));
                continue;
            };
            let g = geo(m)?;
            if n == 0 || n > g.cylinders() {
                return Err(format!(
                    "cylinders must be within 1..={} (member {m}'s), got {n}",
                    g.cylinders()
                ));
            }
            let end = if n == g.cylinders() {
                dev.capacity()
            } else {
                g.lbn_of(Pbn {
                    cyl: n,
                    head: 0,
                    sector: 0,
                })
                .ok_or_else(|| format!("member {m}: cylinder {n} starts with an unmapped sector"))?
            };
            used.push((n, end));
        }
        let smallest = used.iter().map(|u| u.1).min().unwrap_or(0);
        let mut shares = Vec::with_capacity(d);
        let mut at = 0u64;
        let mut push = |len: u64, offset: u64, copies: Vec<Copy>| {
            shares.push(Share {
                start: at,
                len,
                offset,
                copies,
            });
            at += len;
        };
        match org {
            Organization::Mirror { layouts } => {
                if d == 0 {
                    return Err("a mirror needs at least 1 member".into());
                }
                let shuffled = layouts == MirrorLayouts::Shuffled;
                let len = if shuffled {
                    smallest / SHUFFLE_CHUNK * SHUFFLE_CHUNK
                } else {
                    smallest / granule * granule
                };
                let copies = (0..d)
                    .map(|m| Copy {
                        member: m,
                        place: if shuffled && m > 0 {
                            Place::Shuffled(shuffle(len / SHUFFLE_CHUNK, mix(seed ^ m as u64)))
                        } else {
                            Place::Linear(0)
                        },
                        reads: true,
                    })
                    .collect();
                push(len, 0, copies);
            }
            Organization::Split { reliable } => {
                let data = if reliable { d.saturating_sub(1) } else { d };
                if d < if reliable { 3 } else { 1 } {
                    return Err(format!(
                        "a {}split needs at least {} members, got {d}",
                        if reliable { "reliable " } else { "" },
                        if reliable { 3 } else { 1 }
                    ));
                }
                let per = smallest / data as u64 / granule * granule;
                for m in 0..data {
                    let mut copies = vec![Copy {
                        member: m,
                        place: Place::Linear(0),
                        reads: true,
                    }];
                    if reliable {
                        copies.push(Copy {
                            member: d - 1,
                            place: Place::Linear(m as u64 * per),
                            reads: false,
                        });
                    }
                    push(per, 0, copies);
                }
            }
            Organization::ReplicatedSplit {
                copies,
                unit,
                bands: angles,
            } => {
                if d == 0 || copies == 0 || copies as usize > d.max(1) {
                    return Err(format!(
                        "replicated-split copies must be within 1..={d} (the members), got {copies}"
                    ));
                }
                let mut bands = Vec::with_capacity(d);
                for (m, &(c, _)) in used.iter().enumerate() {
                    let width = c / d as u32;
                    let starts = (0..copies).map(|k| k * (c / copies)).collect();
                    bands.push(Banded::new(
                        geo(m)?,
                        starts,
                        width,
                        1,
                        (RotPlacement::Even, angles),
                        mix(seed ^ m as u64),
                    )?);
                }
                push_bands(bands, unit, granule, None, &mut push)?;
            }
            Organization::Intra {
                split,
                rotational,
                form,
                rotation,
                unit,
                bands: angles,
                reliable,
            } => {
                if split == 0 {
                    return Err("intra split must be at least 1".into());
                }
                // Member m's bands laid out on its first `c` cylinders, and the
                // cylinder after its last band.
                let bands_on = |m: usize, c: u32| -> Result<(Banded, u32), String> {
                    let width = c / split;
                    let (starts, end) = match form {
                        IntraForm::Simulation => {
                            ((0..split).map(|k| k * width).collect(), split * width)
                        }
                        IntraForm::Prototype => (vec![0], width),
                    };
                    let draws = mix(seed ^ m as u64);
                    let b = Banded::new(
                        geo(m)?,
                        starts,
                        width,
                        rotational,
                        (rotation, angles),
                        draws,
                    )?;
                    Ok((b, end))
                };
                if !reliable {
                    let mut bands = Vec::with_capacity(d);
                    for (m, &(c, _)) in used.iter().enumerate() {
                        bands.push(bands_on(m, c)?.0);
                    }
                    push_bands(bands, unit, granule, None, &mut push)?;
                } else {
                    if d < 2 {
                        return Err(format!(
                            "a reliable intra needs at least 2 members (each keeps the previous \
                             one's share), got {d}"
                        ));
                    }
                    // What cannot work on whole drives is refused as it would be
                    // without the copies (the search below only shrinks the bands).
                    for (m, &(c, _)) in used.iter().enumerate() {
                        bands_on(m, c)?;
                    }
                    // Per member, the first LBN past every sector of cylinders 0..c, for
                    // each c: the copies start there. Track orders need not number
                    // cylinder by cylinder (a band of cylinders may be numbered surface
                    // by surface), so a cylinder's first sector can lie below tracks
                    // of the cylinders before it.
                    let mut past: Vec<Vec<u64>> = Vec::with_capacity(d);
                    for (m, &(cyls, _)) in used.iter().enumerate() {
                        let g = geo(m)?;
                        let mut v = Vec::with_capacity(cyls as usize + 1);
                        let mut hi = 0u64;
                        v.push(hi);
                        for cyl in 0..cyls {
                            let spt = g.spt_at_cyl(cyl).unwrap_or(0);
                            for head in 0..g.surfaces() {
                                let last = spt
                                    .checked_sub(1)
                                    .and_then(|sector| g.lbn_of(Pbn { cyl, head, sector }));
                                if let Some(l) = last {
                                    hi = hi.max(l + 1);
                                }
                            }
                            v.push(hi);
                        }
                        past.push(v);
                    }
                    // The bands on every member's first `c` cylinders, and where each
                    // share's copy starts on the next member (after that member's
                    // bands), if every copy fits there.
                    let fits = |c: u32| -> Result<Option<BandsAndCopies>, String> {
                        let mut bands = Vec::with_capacity(d);
                        let mut ends = Vec::with_capacity(d);
                        for m in 0..d {
                            match bands_on(m, c) {
                                Ok((b, end)) => {
                                    bands.push(b);
                                    ends.push(end);
                                }
                                Err(_) => return Ok(None),
                            }
                        }
                        let mut bases = Vec::with_capacity(d);
                        for (m, b) in bands.iter().enumerate() {
                            let next = (m + 1) % d;
                            let end_lbn = used[next].1;
                            let base = past[next]
                                .get(ends[next] as usize)
                                .copied()
                                .unwrap_or(end_lbn);
                            if base + b.slots() > end_lbn {
                                return Ok(None);
                            }
                            bases.push(base);
                        }
                        Ok(Some((bands, bases)))
                    };
                    // The most cylinders the bands can take with every copy fitting
                    // (fewer cylinders: smaller shares, more room after the bands).
                    let (mut lo, mut hi) = (0u32, used.iter().map(|u| u.0).min().unwrap_or(0));
                    let mut best = None;
                    while lo < hi {
                        let mid = lo + (hi - lo).div_ceil(2);
                        match fits(mid)? {
                            Some(found) => {
                                best = Some(found);
                                lo = mid;
                            }
                            None => hi = mid - 1,
                        }
                    }
                    let Some((bands, bases)) = best else {
                        return Err("a reliable intra leaves no room for its shares' copies".into());
                    };
                    push_bands(bands, unit, granule, Some(&bases), &mut push)?;
                }
            }
        }
        let capacity = at;
        if capacity == 0 {
            return Err("the organization leaves no addressable sector".into());
        }
        let replicas = shares
            .iter()
            .flat_map(|s| s.copies.iter())
            .map(|c| match &c.place {
                Place::Linear(_) | Place::Shuffled(_) => 1,
                Place::Banded(b) => b.count(),
            })
            .max()
            .unwrap_or(1);
        Ok(Layout {
            org,
            members,
            shares,
            capacity,
            choice,
            children: FxHashMap::default(),
            parents: FxHashMap::default(),
            next_child: 0,
            scratch: Vec::new(),
            stats: Stats {
                by_replica: vec![0; replicas],
                ..Stats::default()
            },
            reorder: None,
            prediction_error_deg: 0.0,
            background: None,
            stalled: Vec::new(),
        })
    }

    /// Replicas chosen as by a host head tracker off by `deg` degrees (0 ≤ deg < 360):
    /// the predicted delays are those of a read sent `deg`/360 of a turn after now.
    /// Writes acknowledged once one replica holds them, the other replicas written in
    /// the background, each within `staleness_ms` (see [`super::propagation`]); reads
    /// never go to a replica with a write pending.
    pub fn with_background(mut self, staleness_ms: f64) -> Result<Layout, String> {
        if self.reorder.is_some() {
            return Err("background propagation does not combine with a reorder queue".into());
        }
        self.background = Some(Background::new(self.members.len(), staleness_ms)?);
        Ok(self)
    }

    /// Sends the held writes that may go now (see [`Background::ready`]).
    fn dispatch_background(&mut self, now: SimTime) {
        let Some(bg) = &mut self.background else {
            return;
        };
        let members = &self.members;
        let ready = bg.ready(now, |m| members[m].outstanding() == 0);
        for w in ready {
            let id = self.next_child;
            self.next_child += 1;
            if let Some(pid) = w.parent {
                self.children.insert(id, pid);
            }
            if let Some(bg) = &mut self.background {
                bg.sent(id, w);
            }
            self.stats.member_writes += 1;
            self.members[w.member].submit(
                now,
                Request {
                    id,
                    lbn: w.lbn,
                    blocks: w.blocks,
                    write: true,
                },
            );
        }
    }

    /// A write under background propagation: its member runs per replica; the replica
    /// with no write pending that the drive model reaches first (the first replica if
    /// every one has one) takes it in the foreground, the others in the background.
    /// Returns how many member writes the host write waits for.
    fn plan_background_write(&mut self, req: &Request, now: SimTime) -> u32 {
        let end = req.lbn + u64::from(req.blocks.max(1));
        let mut waits = 0;
        let mut at = req.lbn;
        while at < end {
            let Some(si) = self.share_of(at) else { break };
            let sh = &self.shares[si];
            let piece_end = end.min(sh.start + sh.len);
            // Every replica's runs: ((copy, replica index), runs).
            let mut replicas: Vec<((usize, usize), Vec<Run>)> = Vec::new();
            for (ci, c) in sh.copies.iter().enumerate() {
                for idx in 0..Self::replicas_of(c) {
                    let mut runs = Vec::new();
                    for l in at..piece_end {
                        if let Some(p) = self.replica_lbn(c, sh.slot(l), idx) {
                            push_sector(&mut runs, c.member, p);
                        }
                    }
                    replicas.push(((ci, idx), runs));
                }
            }
            let fresh = |runs: &[Run]| {
                self.background
                    .as_ref()
                    .is_none_or(|bg| runs.iter().all(|r| !bg.is_pending(r.0, r.1, r.2)))
            };
            let fg = self
                .choose_among(si, at, piece_end, now, true)
                .and_then(|pick| replicas.iter().position(|(k, r)| *k == pick && fresh(r)))
                .unwrap_or(0);
            for (i, (_, runs)) in replicas.into_iter().enumerate() {
                for (member, lbn, blocks) in runs {
                    let parent = (i == fg).then_some(req.id);
                    waits += u32::from(parent.is_some());
                    if let Some(bg) = &mut self.background {
                        bg.hold(MemberWrite {
                            member,
                            lbn,
                            blocks,
                            parent,
                            since: now,
                        });
                    }
                }
            }
            at = piece_end;
        }
        waits
    }

    pub fn with_prediction_error(mut self, deg: f64) -> Result<Layout, String> {
        if !(0.0..360.0).contains(&deg) {
            return Err(format!(
                "prediction-error-deg must be within [0, 360), got {}",
                crate::show::value(deg)
            ));
        }
        self.prediction_error_deg = deg;
        Ok(self)
    }

    /// The drive's predicted delay for a read of `lbn`, as the host's tracker sees it.
    fn predicted_delay(&self, h: &crate::disk::hdd::Hdd, now: SimTime, lbn: u64) -> u64 {
        let off = (self.prediction_error_deg / 360.0 * h.period_ns()).round() as u64;
        h.read_delay_if_sent(now + off, lbn)
    }

    /// Throughput mode: every member keeps a reorder queue of reads and considers its
    /// `window` oldest (1..=[`MAX_REORDER`]); a read with copies on several members
    /// joins the queue `spread` picks.
    pub fn with_reorder(mut self, window: usize, spread: Spread) -> Result<Layout, String> {
        if !(1..=MAX_REORDER).contains(&window) {
            return Err(format!(
                "reorder-queue must be within 1..={MAX_REORDER}, got {window}"
            ));
        }
        if self.background.is_some() {
            return Err("a reorder queue does not combine with background propagation".into());
        }
        let n = self.members.len();
        self.reorder = Some(Reorder {
            window,
            held: vec![Vec::new(); n],
            up: vec![true; n],
            spread,
            dealt: 0,
        });
        Ok(self)
    }

    /// In throughput mode, holds a read that lies in one share: in the queue of the
    /// member among its copies' members that the spread picks. False (the read is
    /// planned at once) otherwise.
    fn hold(&mut self, req: &Request) -> bool {
        let Some(r) = &self.reorder else {
            return false;
        };
        let Some(si) = self.share_of(req.lbn) else {
            return false;
        };
        let sh = &self.shares[si];
        if req.write || req.lbn + u64::from(req.blocks.max(1)) > sh.start + sh.len {
            return false;
        }
        let busy = |m: usize| r.held[m].len() + self.members[m].outstanding();
        let readable = sh.copies.iter().filter(|c| c.reads).count();
        let turn = r.dealt % readable.max(1);
        let picked = match r.spread {
            Spread::LeastBusy => sh
                .copies
                .iter()
                .enumerate()
                .filter(|(_, c)| c.reads)
                .min_by_key(|(_, c)| (busy(c.member), c.member)),
            Spread::Even => sh
                .copies
                .iter()
                .enumerate()
                .filter(|(_, c)| c.reads)
                .nth(turn),
        };
        let Some((ci, c)) = picked else {
            return false;
        };
        let cyl = self
            .replica_lbn(c, sh.slot(req.lbn), 0)
            .and_then(|l| self.geometry(c.member)?.locate(l))
            .map_or(0, |l| l.pbn.cyl);
        let m = c.member;
        if let Some(r) = &mut self.reorder {
            if readable > 1 {
                r.dealt += 1;
            }
            r.held[m].push(Held {
                pid: req.id,
                share: si,
                copy: ci,
                cyl,
            });
        }
        true
    }

    /// Sends each idle member the elevator's next held read, at its best replica.
    fn dispatch_held(&mut self, now: SimTime) {
        let Some(mut r) = self.reorder.take() else {
            return;
        };
        for m in 0..self.members.len() {
            if r.held[m].is_empty() || self.members[m].outstanding() > 0 {
                continue;
            }
            let head = self.members[m].drive().map_or(0, |d| d.hdd().head().cyl);
            let window = &r.held[m][..r.window.min(r.held[m].len())];
            let pick = |up: bool| {
                window
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| if up { h.cyl >= head } else { h.cyl <= head })
                    .min_by_key(|(i, h)| (h.cyl.abs_diff(head), *i))
                    .map(|(i, _)| i)
            };
            let Some(i) = pick(r.up[m]).or_else(|| {
                r.up[m] = !r.up[m];
                pick(r.up[m])
            }) else {
                continue;
            };
            let h = r.held[m].remove(i);
            self.send_held(h, now);
        }
        self.reorder = Some(r);
    }

    /// Plans and sends a held read: the copy's replica the member's drive reaches
    /// first if sent now, then the member runs.
    fn send_held(&mut self, h: Held, now: SimTime) {
        let Some(req) = self.parents.get(&h.pid).map(|p| p.req) else {
            return;
        };
        let sh = &self.shares[h.share];
        let c = &sh.copies[h.copy];
        let s = sh.slot(req.lbn);
        let hdd = self.members[c.member].drive().map(|d| d.hdd());
        let idx = (0..Self::replicas_of(c))
            .filter_map(|idx| {
                let l = self.replica_lbn(c, s, idx)?;
                Some((hdd.map_or(0, |h| self.predicted_delay(h, now, l)), idx))
            })
            .min()
            .map_or(0, |(_, idx)| idx);
        let mut runs: Vec<Run> = Vec::new();
        for l in req.lbn..req.lbn + u64::from(req.blocks.max(1)) {
            if let Some(p) = self.replica_lbn(c, sh.slot(l), idx) {
                push_sector(&mut runs, c.member, p);
            }
        }
        if let Some(n) = self.stats.by_replica.get_mut(idx) {
            *n += 1;
        }
        // The seek it asks for now, as for a read sent straight away.
        if let Some(cyl) = seek_cylinders(hdd, self.replica_lbn(c, s, idx)) {
            self.stats.measured += 1;
            self.stats.seek_cyl += cyl;
        }
        if let Some(p) = self.parents.get_mut(&h.pid) {
            p.remaining = runs.len() as u32;
        }
        if runs.is_empty() {
            // Unreachable: the engine checks the range, and a share's every sector has
            // a first replica.
            if let Some(p) = self.parents.get_mut(&h.pid) {
                p.parts.start_at(now);
            }
            return;
        }
        self.send_runs(h.pid, false, runs, now);
    }

    /// Sends `runs` of parent `pid` to their members.
    fn send_runs(&mut self, pid: u64, write: bool, runs: Vec<Run>, now: SimTime) {
        for (m, lbn, blocks) in runs {
            let id = self.next_child;
            self.next_child += 1;
            self.children.insert(id, pid);
            if write {
                self.stats.member_writes += 1;
            } else {
                self.stats.member_reads += 1;
            }
            self.members[m].submit(
                now,
                Request {
                    id,
                    lbn,
                    blocks,
                    write,
                },
            );
        }
    }

    fn geometry(&self, m: usize) -> Option<&Geometry> {
        self.members[m].drive().map(|d| d.hdd().geometry())
    }

    /// The LBN of replica `idx` of copy `c` of the share's sector `s`.
    fn replica_lbn(&self, c: &Copy, s: u64, idx: usize) -> Option<u64> {
        match &c.place {
            Place::Linear(base) => (idx == 0).then_some(base + s),
            Place::Shuffled(perm) => (idx == 0).then(|| {
                u64::from(perm[(s / SHUFFLE_CHUNK) as usize]) * SHUFFLE_CHUNK + s % SHUFFLE_CHUNK
            }),
            Place::Banded(b) => b.replica(self.geometry(c.member)?, s, idx),
        }
    }

    fn replicas_of(c: &Copy) -> usize {
        match &c.place {
            Place::Linear(_) | Place::Shuffled(_) => 1,
            Place::Banded(b) => b.count(),
        }
    }

    /// Every replica of array sector `lbn`: (member, member LBN), copies in order.
    pub fn replicas(&self, lbn: u64) -> Vec<(usize, u64)> {
        self.copies_at(lbn)
            .into_iter()
            .map(|(m, l, _)| (m, l))
            .collect()
    }

    /// Every replica of array sector `lbn`: (member, member LBN, whether reads use
    /// it), copies in order.
    pub fn copies_at(&self, lbn: u64) -> Vec<(usize, u64, bool)> {
        let Some(si) = self.share_of(lbn) else {
            return Vec::new();
        };
        let sh = &self.shares[si];
        let s = sh.slot(lbn);
        sh.copies
            .iter()
            .flat_map(|c| {
                (0..Self::replicas_of(c))
                    .filter_map(move |i| self.replica_lbn(c, s, i).map(|l| (c.member, l, c.reads)))
            })
            .collect()
    }

    /// The organization.
    pub fn organization(&self) -> Organization {
        self.org
    }

    fn share_of(&self, lbn: u64) -> Option<usize> {
        if lbn >= self.capacity {
            return None;
        }
        self.shares
            .partition_point(|s| s.start <= lbn)
            .checked_sub(1)
    }

    /// The replica a read of `lbn` goes to at `now`: (copy, replica index), the least
    /// busy member first, then by the choice: seek, or the delay until the media
    /// reaches the replica as the member's drive model predicts it (command overhead,
    /// seek, rotation); ties to the shorter seek, then the first.
    pub fn choose(&self, lbn: u64, now: SimTime) -> Option<(usize, usize)> {
        self.choose_among(self.share_of(lbn)?, lbn, lbn + 1, now, false)
    }

    /// [`Layout::choose`] for sectors `at..end` of share `si`, among the replicas
    /// with no write pending on those sectors (background propagation); a write's
    /// foreground replica may be any copy, a read's only a readable one. `None` when
    /// no replica qualifies.
    fn choose_among(
        &self,
        si: usize,
        at: u64,
        end: u64,
        now: SimTime,
        write: bool,
    ) -> Option<(usize, usize)> {
        let sh = &self.shares[si];
        let s = sh.slot(at);
        let pending = |c: &Copy, idx: usize| {
            self.background.as_ref().is_some_and(|bg| {
                (at..end).any(|l| {
                    self.replica_lbn(c, sh.slot(l), idx)
                        .is_some_and(|p| bg.is_pending(c.member, p, 1))
                })
            })
        };
        // ((member outstanding, nearness, tie-break), (copy, replica index))
        type Pick = ((usize, u64, u64), (usize, usize));
        let mut best: Option<Pick> = None;
        for (ci, c) in sh
            .copies
            .iter()
            .enumerate()
            .filter(|(_, c)| write || c.reads)
        {
            let hdd = self.members[c.member].drive().map(|d| d.hdd());
            for idx in 0..Self::replicas_of(c) {
                let Some(l) = self.replica_lbn(c, s, idx) else {
                    continue;
                };
                if pending(c, idx) {
                    continue;
                }
                let near = match (hdd, self.choice) {
                    (None, _) | (_, ReplicaChoice::LeastBusy) => (0, 0),
                    (Some(h), choice) => {
                        let seek = h.locate(l).map_or(u64::MAX, |loc| {
                            h.seek_ns(h.head().cyl.abs_diff(loc.pbn.cyl))
                        });
                        if choice == ReplicaChoice::Seek {
                            (seek, 0)
                        } else {
                            (self.predicted_delay(h, now, l), seek)
                        }
                    }
                };
                let key = (self.members[c.member].outstanding(), near.0, near.1);
                if best.is_none_or(|(k, _)| key < k) {
                    best = Some((key, (ci, idx)));
                }
            }
        }
        best.map(|(_, c)| c)
    }

    /// Whether every share a read touches has a replica with no write pending (always,
    /// without background propagation).
    fn read_ready(&self, req: &Request, now: SimTime) -> bool {
        if self.background.is_none() {
            return true;
        }
        let end = req.lbn + u64::from(req.blocks.max(1));
        let mut at = req.lbn;
        while at < end {
            let Some(si) = self.share_of(at) else {
                return true;
            };
            let piece_end = end.min(self.shares[si].start + self.shares[si].len);
            if self.choose_among(si, at, piece_end, now, false).is_none() {
                return false;
            }
            at = piece_end;
        }
        true
    }

    /// Plans and sends a host request (a write under background propagation through
    /// the held writes); a read with no up-to-date replica yet waits.
    fn start(&mut self, req: Request, now: SimTime) {
        if req.write && self.background.is_some() {
            let waits = self.plan_background_write(&req, now);
            self.parents.insert(req.id, Parent::waiting(req, waits));
            self.dispatch_background(now);
            return;
        }
        if !req.write && !self.read_ready(&req, now) {
            if let Some(bg) = &mut self.background {
                bg.stats.stale_avoided += 1;
            }
            self.parents.insert(req.id, Parent::waiting(req, 0));
            self.stalled.push(req);
            return;
        }
        let runs = self.plan(&req, now);
        if runs.is_empty() {
            // Nothing addressable (the engine checks the range): done at once.
            let mut p = Parent::waiting(req, 0);
            p.parts.start_at(now);
            self.parents.insert(req.id, p);
            return;
        }
        match self.parents.get_mut(&req.id) {
            Some(p) => p.remaining = runs.len() as u32,
            None => {
                self.parents
                    .insert(req.id, Parent::waiting(req, runs.len() as u32));
            }
        }
        self.send_runs(req.id, req.write, runs, now);
    }

    /// The member runs of a request: a read from one replica per share it touches, a
    /// write to every replica.
    fn plan(&mut self, req: &Request, now: SimTime) -> Vec<Run> {
        let mut runs: Vec<Run> = Vec::new();
        let mut add = |m: usize, l: u64| push_sector(&mut runs, m, l);
        let end = req.lbn + u64::from(req.blocks.max(1));
        let mut at = req.lbn;
        while at < end {
            let Some(si) = self.share_of(at) else { break };
            let sh = &self.shares[si];
            let piece_end = end.min(sh.start + sh.len);
            if req.write {
                for c in &sh.copies {
                    for idx in 0..Self::replicas_of(c) {
                        for l in at..piece_end {
                            if let Some(p) = self.replica_lbn(c, sh.slot(l), idx) {
                                add(c.member, p);
                            }
                        }
                    }
                }
            } else if let Some((ci, idx)) = self.choose_among(si, at, piece_end, now, false) {
                let c = &sh.copies[ci];
                if let Some(n) = self.stats.by_replica.get_mut(idx) {
                    *n += 1;
                }
                // The seek distance this choice asks for (the first piece of a read).
                if at == req.lbn {
                    let hdd = self.members[c.member].drive().map(|d| d.hdd());
                    if let Some(cyl) = seek_cylinders(hdd, self.replica_lbn(c, sh.slot(at), idx)) {
                        self.stats.measured += 1;
                        self.stats.seek_cyl += cyl;
                    }
                }
                for l in at..piece_end {
                    if let Some(p) = self.replica_lbn(c, sh.slot(l), idx) {
                        add(c.member, p);
                    }
                }
            }
            at = piece_end;
        }
        runs
    }
}

/// Cylinders from the drive's head to `lbn` (`None` without a drive or a mapped
/// sector).
fn seek_cylinders(hdd: Option<&Hdd>, lbn: Option<u64>) -> Option<u64> {
    let (h, l) = hdd.zip(lbn)?;
    let loc = h.locate(l)?;
    Some(u64::from(h.head().cyl.abs_diff(loc.pbn.cyl)))
}

impl Device for Layout {
    fn capacity(&self) -> u64 {
        self.capacity
    }

    fn outstanding(&self) -> usize {
        self.parents.len()
    }

    fn can_accept(&self) -> bool {
        true
    }

    fn submit(&mut self, now: SimTime, req: Request) {
        if req.write {
            self.stats.writes += 1;
        } else {
            self.stats.reads += 1;
        }
        if self.hold(&req) {
            self.parents.insert(req.id, Parent::waiting(req, 0));
            self.dispatch_held(now);
            return;
        }
        self.start(req, now);
    }

    fn next_wake(&self) -> Option<SimTime> {
        let deadline = self.background.as_ref().and_then(|b| b.next_deadline());
        self.members
            .iter()
            .filter_map(|m| m.next_wake())
            .chain(deadline)
            .min()
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        let mut got = std::mem::take(&mut self.scratch);
        got.clear();
        let due = self
            .members
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.next_wake().map(|t| (t, i)))
            .min();
        if let Some((t, i)) = due {
            if t <= now {
                self.members[i].wake(now, &mut got);
            }
        }
        for d in got.drain(..) {
            if let Some(bg) = &mut self.background {
                bg.completed(d.req.id, now);
            }
            let Some(pid) = self.children.remove(&d.req.id) else {
                continue;
            };
            let Some(p) = self.parents.get_mut(&pid) else {
                continue;
            };
            p.parts.absorb(&d);
            p.remaining = p.remaining.saturating_sub(1);
            if p.remaining > 0 {
                continue;
            }
            if let Some(p) = self.parents.remove(&pid) {
                if !p.req.write {
                    self.stats.rotation_ns += p.parts.breakdown().rotation_ns;
                }
                out.push(p.parts.done(p.req, now));
            }
        }
        self.scratch = got;
        self.dispatch_held(now);
        if self.background.is_some() {
            self.dispatch_background(now);
            // Reads that found every replica with a write pending try again.
            for req in std::mem::take(&mut self.stalled) {
                if self.read_ready(&req, now) {
                    self.start(req, now);
                } else {
                    self.stalled.push(req);
                }
            }
        }
    }

    fn describe(&self, depth: usize, out: &mut String) {
        let gb = self.capacity as f64 * 512.0 / 1e9;
        tree_line(
            depth,
            out,
            &format!(
                "{} ({} members{}, {gb:.2} GB)",
                self.org.name(),
                self.members.len(),
                if self.stats.by_replica.len() > 1
                    || self
                        .shares
                        .iter()
                        .any(|s| s.copies.iter().filter(|c| c.reads).count() > 1)
                {
                    format!(", reads pick the replica by {}", self.choice.name())
                } else {
                    String::new()
                }
            ),
        );
        for m in &self.members {
            m.describe(depth + 1, out);
        }
    }

    fn report_until(&self, path: &str, end: SimTime, out: &mut Vec<NodeReport>) {
        let s = &self.stats;
        let by: Vec<String> = s.by_replica.iter().map(|n| n.to_string()).collect();
        let mut extra = Vec::new();
        if let Some(bg) = &self.background {
            let b = &bg.stats;
            extra.extend([
                ("background copies".to_string(), b.background.to_string()),
                (
                    "background copies sent at the staleness bound".into(),
                    b.forced.to_string(),
                ),
                (
                    "background copies hastened for a host write".into(),
                    b.hastened.to_string(),
                ),
                (
                    "longest background wait ms".into(),
                    format!("{:.3}", b.max_wait_ns as f64 / 1e6),
                ),
                (
                    "reads that waited for a replica".into(),
                    b.stale_avoided.to_string(),
                ),
            ]);
        }
        out.push(NodeReport {
            path: path.to_string(),
            kind: self.org.name(),
            reads: s.reads,
            writes: s.writes,
            busy_ns: 0,
            extra: vec![
                ("member reads".into(), s.member_reads.to_string()),
                ("member writes".into(), s.member_writes.to_string()),
                ("replica choice".into(), self.choice.name().into()),
                ("reads per replica".into(), by.join(" ")),
                (
                    "mean read seek cylinders".into(),
                    format!("{:.3}", s.seek_cyl as f64 / s.measured.max(1) as f64),
                ),
                (
                    "mean read rotation ms".into(),
                    format!("{:.6}", s.rotation_ns as f64 / s.reads.max(1) as f64 / 1e6),
                ),
            ]
            .into_iter()
            .chain(extra)
            .collect(),
            is_drive: false,
        });
        for (i, m) in self.members.iter().enumerate() {
            m.report_until(&format!("{path}/member {i}"), end, out);
        }
    }

    fn predictions(&self, out: &mut Vec<(u32, u64)>) {
        for m in &self.members {
            m.predictions(out);
        }
    }
}

#[cfg(test)]
mod tests;
