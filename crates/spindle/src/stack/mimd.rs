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
use crate::disk::hdd::{Breakdown, Request};
use crate::node::{tree_line, Device, Done, NodeReport};
use crate::time::SimTime;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

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
    },
    Intra {
        split: u32,
        rotational: u32,
        form: IntraForm,
        rotation: RotPlacement,
        unit: SplitUnit,
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
            Organization::ReplicatedSplit { copies, unit } => {
                format!("replicated-split ({copies} copies, {})", unit.name())
            }
            Organization::Intra {
                split,
                rotational,
                form,
                rotation,
                unit,
                reliable,
            } => format!(
                "intra {split}x{rotational} ({}, {} rotational replicas, {}{})",
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
                if reliable {
                    ", reliable: each share also on the next drive"
                } else {
                    ""
                }
            ),
        }
    }
}

/// A drive's share kept in bands of cylinders, each band's slots replicated `rot`
/// times within the cylinder. A slot is (logical cylinder j, head g of the first
/// replica group, sector i); band k's copy is on cylinder `starts[k] + j`, rotational
/// replica r on head `r·group + g` (on head g itself when the replicas share the
/// track) at the angle of sector i plus r/rot of a turn.
#[derive(Clone, Debug)]
struct Banded {
    starts: Vec<u32>,
    rot: u32,
    /// Heads per rotational replica group.
    group: u32,
    /// Slots before logical cylinder j (`width + 1` entries).
    prefix: Vec<u64>,
    /// Random rotational placement: the seed of the angle draws.
    random: Option<u64>,
    /// The replicas share their track (a track holds 1/rot of its sectors' data).
    same_track: bool,
}

/// A 64-bit mix (splitmix64's finalizer): the seeded per-cylinder angle draw of
/// random rotational replicas.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Banded {
    /// Bands of `width` cylinders at `starts`, `rot` rotational replicas. Cylinders
    /// whose tracks are not all mapped are left out; a slot holds the fewest sectors
    /// per track among its band copies.
    fn new(
        geo: &Geometry,
        starts: Vec<u32>,
        width: u32,
        rot: u32,
        placement: RotPlacement,
        seed: u64,
    ) -> Result<Banded, String> {
        let same_track = placement == RotPlacement::SameTrack;
        let random = (placement == RotPlacement::Random).then_some(seed);
        for z in 0..geo.zone_count() {
            let s = geo.zone_spec(z);
            if !s.slips.is_empty() || !s.remaps.is_empty() || s.spares != 0 || s.empty_front != 0 {
                return Err(format!(
                    "replica placement within a drive needs a drive without spares, slipped \
                     or remapped sectors (zone {z} has some): use one such as st34502lw, \
                     MimdRAID's Cheetah 9LP"
                ));
            }
        }
        let heads = geo.surfaces();
        if rot == 0 || (!same_track && rot > heads) {
            return Err(format!(
                "rotational replicas must be within 1..={heads} (one track each, same cylinder; \
                 rotation = \"same-track\" puts them on one track), got {rot}"
            ));
        }
        let group = if same_track { heads } else { heads / rot };
        let mut prefix = Vec::with_capacity(width as usize + 1);
        prefix.push(0u64);
        for j in 0..width {
            let mut m = u32::MAX;
            for &s in &starts {
                let cyl = s + j;
                let spt = geo.spt_at_cyl(cyl).unwrap_or(0);
                let mapped = spt > 0
                    && (0..heads).all(|head| {
                        geo.lbn_of(Pbn {
                            cyl,
                            head,
                            sector: 0,
                        })
                        .is_some()
                            && geo
                                .lbn_of(Pbn {
                                    cyl,
                                    head,
                                    sector: spt - 1,
                                })
                                .is_some()
                    });
                m = m.min(if mapped { spt } else { 0 });
            }
            if same_track {
                m /= rot;
            }
            let last = *prefix.last().unwrap_or(&0);
            prefix.push(last + u64::from(group) * u64::from(m));
        }
        if prefix.last() == Some(&0) {
            return Err(format!(
                "{rot} rotational replicas on one track leave no sector of data on it"
            ));
        }
        Ok(Banded {
            starts,
            rot,
            group,
            prefix,
            random,
            same_track,
        })
    }

    fn slots(&self) -> u64 {
        self.prefix.last().copied().unwrap_or(0)
    }

    /// Logical cylinders (each band copy's width).
    fn width(&self) -> usize {
        self.prefix.len().saturating_sub(1)
    }

    /// The first slot of logical cylinder `j` and how many it holds.
    fn cylinder(&self, j: usize) -> (u64, u64) {
        let first = self.prefix[j];
        (first, self.prefix[j + 1] - first)
    }

    /// How many replicas each slot has.
    fn count(&self) -> usize {
        self.starts.len() * self.rot as usize
    }

    /// The LBN of replica `idx` (band `idx / rot`, rotational replica `idx % rot`) of
    /// slot `s`.
    fn replica(&self, geo: &Geometry, s: u64, idx: usize) -> Option<u64> {
        let j = self.prefix.partition_point(|&p| p <= s).checked_sub(1)?;
        let m = (self.prefix.get(j + 1)? - self.prefix[j]) / u64::from(self.group);
        let off = s - self.prefix[j];
        let (g, i) = ((off / m) as u32, (off % m) as u32);
        let (k, r) = (idx / self.rot as usize, idx as u32 % self.rot);
        let cyl = self.starts.get(k)? + j as u32;
        let base = geo.lbn_of(Pbn {
            cyl,
            head: g,
            sector: i,
        })?;
        if r == 0 {
            return Some(base);
        }
        let loc = geo.locate(base)?;
        let spt = u64::from(loc.spt);
        let shift = match self.random {
            None => u64::from(r) * spt / u64::from(self.rot),
            Some(seed) => mix(seed ^ (u64::from(cyl) << 8) ^ u64::from(r)) % spt,
        };
        let target = (u64::from(loc.angle_sectors) + shift) % spt;
        let head = if self.same_track {
            g
        } else {
            r * self.group + g
        };
        let first = geo.lbn_of(Pbn {
            cyl,
            head,
            sector: 0,
        })?;
        let a0 = u64::from(geo.locate(first)?.angle_sectors);
        let sector = ((target + spt - a0) % spt) as u32;
        geo.lbn_of(Pbn { cyl, head, sector })
    }
}

/// How one copy of a share sits on its member.
#[derive(Clone, Debug)]
enum Place {
    /// At LBNs from this base, one replica.
    Linear(u64),
    /// Chunk k of the share at chunk `perm[k]` of the member.
    Shuffled(Vec<u32>),
    Banded(Arc<Banded>),
}

/// Most pieces an array striped by cylinder is cut into (a logical cylinder of one
/// member each, about 100 bytes apiece): 2,000,000, e.g. 12 drives of 166,000
/// cylinders. Larger arrays take `split-unit = "share"` or `cylinders = N`.
pub const MAX_STRIPED_PIECES: u64 = 2_000_000;

/// The shares of banded members (one [`Banded`] place per member, in member order),
/// handed to `push(len, offset, copies)` in array order: contiguous, or striped one
/// logical cylinder at a time over the members. Each piece holds a whole number of
/// `granule` sectors (the rest of it unused). With `backup`, member m's share also
/// has a write-only copy on the next member, from that member's LBN `backup[m]`.
fn push_bands(
    bands: Vec<Banded>,
    unit: SplitUnit,
    granule: u64,
    backup: Option<&[u64]>,
    push: &mut impl FnMut(u64, u64, Vec<Copy>),
) -> Result<(), String> {
    if unit == SplitUnit::Cylinder {
        let pieces: u64 = bands.iter().map(|b| b.width() as u64).sum();
        if pieces > MAX_STRIPED_PIECES {
            return Err(format!(
                "striping by cylinder cuts this array into {pieces} pieces, more than \
                 {MAX_STRIPED_PIECES}: set split-unit = \"share\", or cylinders = N to use \
                 fewer cylinders"
            ));
        }
    }
    let bands: Vec<Arc<Banded>> = bands.into_iter().map(Arc::new).collect();
    let d = bands.len();
    let copies = |m: usize, b: &Arc<Banded>| {
        let mut v = vec![Copy {
            member: m,
            place: Place::Banded(Arc::clone(b)),
            reads: true,
        }];
        if let Some(base) = backup.and_then(|bk| bk.get(m)) {
            v.push(Copy {
                member: (m + 1) % d,
                place: Place::Linear(*base),
                reads: false,
            });
        }
        v
    };
    let whole = |n: u64| n / granule.max(1) * granule.max(1);
    match unit {
        SplitUnit::Share => {
            for (m, b) in bands
                .iter()
                .enumerate()
                .filter(|(_, b)| whole(b.slots()) > 0)
            {
                push(whole(b.slots()), 0, copies(m, b));
            }
        }
        SplitUnit::Cylinder => {
            let width = bands.iter().map(|b| b.width()).max().unwrap_or(0);
            for j in 0..width {
                for (m, b) in bands.iter().enumerate().filter(|(_, b)| j < b.width()) {
                    let (first, n) = b.cylinder(j);
                    if whole(n) > 0 {
                        push(whole(n), first, copies(m, b));
                    }
                }
            }
        }
    }
    Ok(())
}

/// A seeded random permutation of `n` chunks (Fisher–Yates).
fn shuffle(n: u64, seed: u64) -> Vec<u32> {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    let mut v: Vec<u32> = (0..n as u32).collect();
    v.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    v
}

#[derive(Clone, Debug)]
struct Copy {
    member: usize,
    place: Place,
    /// Whether reads may use it (a reliability copy only takes writes).
    reads: bool,
}

/// A contiguous range of the array's addresses and every copy of it.
#[derive(Clone, Debug)]
struct Share {
    start: u64,
    len: u64,
    /// The copies' slot of the range's first sector (a share striped by cylinder is
    /// one logical cylinder of its copies' places).
    offset: u64,
    copies: Vec<Copy>,
}

impl Share {
    /// The copies' slot of array sector `lbn` (within the share).
    fn slot(&self, lbn: u64) -> u64 {
        lbn - self.start + self.offset
    }
}

struct Parent {
    req: Request,
    remaining: u32,
    start: Option<SimTime>,
    dispatch: Option<SimTime>,
    breakdown: Breakdown,
    cache_hit: bool,
}

impl Parent {
    /// A request waiting for `remaining` member requests, none started yet.
    fn waiting(req: Request, remaining: u32) -> Parent {
        Parent {
            req,
            remaining,
            start: None,
            dispatch: None,
            breakdown: Breakdown::default(),
            cache_hit: true,
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
            Organization::ReplicatedSplit { copies, unit } => {
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
                        RotPlacement::Even,
                        0,
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
                    let b = Banded::new(geo(m)?, starts, width, rotational, rotation, draws)?;
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
        if let Some(p) = self.parents.get_mut(&h.pid) {
            p.remaining = runs.len() as u32;
        }
        if runs.is_empty() {
            // Unreachable: the engine checks the range, and a share's every sector has
            // a first replica.
            if let Some(p) = self.parents.get_mut(&h.pid) {
                p.start = Some(now);
                p.dispatch = Some(now);
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
            self.parents.insert(
                req.id,
                Parent {
                    start: Some(now),
                    dispatch: Some(now),
                    ..Parent::waiting(req, 0)
                },
            );
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
                    let lbn = self.replica_lbn(c, sh.slot(at), idx);
                    if let Some((h, loc)) = hdd.zip(lbn).and_then(|(h, l)| Some((h, h.locate(l)?)))
                    {
                        self.stats.measured += 1;
                        self.stats.seek_cyl += u64::from(h.head().cyl.abs_diff(loc.pbn.cyl));
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
            p.start = Some(p.start.map_or(d.start, |s| s.min(d.start)));
            p.dispatch = match (p.dispatch, d.dispatch) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            p.breakdown.overhead_ns += d.breakdown.overhead_ns;
            p.breakdown.seek_ns += d.breakdown.seek_ns;
            p.breakdown.rotation_ns += d.breakdown.rotation_ns;
            p.breakdown.transfer_ns += d.breakdown.transfer_ns;
            p.cache_hit &= d.cache_hit;
            p.remaining = p.remaining.saturating_sub(1);
            if p.remaining > 0 {
                continue;
            }
            if let Some(p) = self.parents.remove(&pid) {
                if !p.req.write {
                    self.stats.rotation_ns += p.breakdown.rotation_ns;
                }
                out.push(Done {
                    breakdown: p.breakdown,
                    cache_hit: p.cache_hit,
                    dispatch: p.dispatch,
                    ..Done::served(p.req, p.start.unwrap_or(now), now)
                });
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

    fn report(&self, path: &str, out: &mut Vec<NodeReport>) {
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
            m.report(&format!("{path}/member {i}"), out);
        }
    }

    fn predictions(&self, out: &mut Vec<(u32, u64)>) {
        for m in &self.members {
            m.predictions(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::engine::{self, RunOptions, Source};
    use crate::trace::IoRecord;
    use rand::{Rng, SeedableRng};

    fn toml(kind: &str, count: u32, keys: &str) -> String {
        format!(
            "[workload.synthetic]\nkind = \"synthetic\"\npattern = {{ kind = \"uniform\" }}\n\
             sizes = {{ kind = \"fixed\", sectors = 8 }}\nread-fraction = 1.0\n\
             arrivals = {{ kind = \"poisson\", rate-per-s = 20 }}\ncount = 1\n\
             [device]\nkind = \"{kind}\"\ncount = {count}\n{keys}\n\
             [device.member]\nkind = \"disk\"\ndisk = \"st34502lw\"\n"
        )
    }

    fn built(kind: &str, count: u32, keys: &str) -> crate::stack::tree::Built {
        RunConfig::from_toml(&toml(kind, count, keys), "test.toml")
            .unwrap()
            .build()
            .unwrap()
    }

    fn disk_capacity() -> u64 {
        crate::disk::presets::preset("st34502lw")
            .map(|p| crate::disk::hdd::Hdd::new(p).unwrap().capacity())
            .unwrap()
    }

    /// A layout built directly over drives (for its mapping queries).
    fn layout(org: Organization, n: usize) -> Layout {
        layout_within(org, n, None)
    }

    /// [`layout`] on each drive's outermost `cylinders`.
    fn layout_within(org: Organization, n: usize, cylinders: Option<u32>) -> Layout {
        try_layout(org, n, cylinders).unwrap()
    }

    fn try_layout(org: Organization, n: usize, cylinders: Option<u32>) -> Result<Layout, String> {
        try_layout_on("st34502lw", org, n, cylinders)
    }

    /// [`try_layout`] over `n` drives of preset `disk`.
    fn try_layout_on(
        disk: &str,
        org: Organization,
        n: usize,
        cylinders: Option<u32>,
    ) -> Result<Layout, String> {
        let members: Vec<Box<dyn Device>> = (0..n)
            .map(|_| {
                let p = crate::disk::presets::preset(disk).unwrap();
                let d = crate::disk::drive::Drive::new(p).unwrap();
                Box::new(crate::stack::drive_node::DriveNode::new(d, disk)) as Box<dyn Device>
            })
            .collect();
        Layout::within(org, members, ReplicaChoice::Positioning, 7, cylinders)
    }

    /// An intra-disk organization with the TOML's default split unit for its form.
    fn intra(split: u32, rotational: u32, form: IntraForm, rotation: RotPlacement) -> Organization {
        Organization::Intra {
            split,
            rotational,
            form,
            rotation,
            unit: match form {
                IntraForm::Simulation => SplitUnit::Cylinder,
                IntraForm::Prototype => SplitUnit::Share,
            },
            reliable: false,
        }
    }

    fn with_unit(org: Organization, unit: SplitUnit) -> Organization {
        match org {
            Organization::Intra {
                split,
                rotational,
                form,
                rotation,
                reliable,
                ..
            } => Organization::Intra {
                split,
                rotational,
                form,
                rotation,
                unit,
                reliable,
            },
            Organization::ReplicatedSplit { copies, .. } => {
                Organization::ReplicatedSplit { copies, unit }
            }
            other => other,
        }
    }

    #[test]
    fn capacities_follow_the_organization() {
        let cap = disk_capacity();
        let split = layout(Organization::Split { reliable: false }, 4);
        assert_eq!(split.capacity(), cap / 4 * 4);
        let rel = layout(Organization::Split { reliable: true }, 4);
        assert_eq!(rel.capacity(), cap / 3 * 3);
        // Cylinder-granular layouts: each member keeps about 1/(x·y) of a drive (less
        // where band copies fall in zones with fewer sectors per track, more where one
        // band holds the outer, denser cylinders).
        for (org, n, frac) in [
            (
                Organization::ReplicatedSplit {
                    copies: 2,
                    unit: SplitUnit::Cylinder,
                },
                4,
                0.25,
            ),
            (
                intra(2, 2, IntraForm::Simulation, RotPlacement::Even),
                4,
                0.25,
            ),
            (
                intra(2, 2, IntraForm::Prototype, RotPlacement::Even),
                4,
                0.25,
            ),
            (
                intra(4, 3, IntraForm::Simulation, RotPlacement::Even),
                12,
                1.0 / 12.0,
            ),
            (
                intra(1, 3, IntraForm::Simulation, RotPlacement::Random),
                1,
                1.0 / 3.0,
            ),
        ] {
            let l = layout(org, n);
            let per = l.capacity() as f64 / n as f64 / cap as f64;
            assert!(per <= frac * 1.15 && per >= frac * 0.8, "{org:?}: {per}");
        }
    }

    /// Every replica of every organization laid out within N cylinders sits on a
    /// cylinder below N, and the organization still covers what fits there; the TOML
    /// key builds the same capacity.
    #[test]
    fn cylinders_confine_every_replica_to_the_outer_band() {
        let n = 1000u32;
        let band = {
            let p = crate::disk::presets::preset("st34502lw").unwrap();
            let h = crate::disk::hdd::Hdd::new(p).unwrap();
            h.geometry()
                .lbn_of(Pbn {
                    cyl: n,
                    head: 0,
                    sector: 0,
                })
                .unwrap()
        };
        let shuffled = Organization::Mirror {
            layouts: MirrorLayouts::Shuffled,
        };
        for (org, count, kind, keys) in [
            (
                Organization::Mirror {
                    layouts: MirrorLayouts::Identical,
                },
                3,
                "mirror",
                "",
            ),
            (shuffled, 2, "mirror", "layouts = \"shuffled\""),
            (Organization::Split { reliable: false }, 4, "split", ""),
            (
                Organization::Split { reliable: true },
                4,
                "split",
                "reliable = true",
            ),
            (
                Organization::ReplicatedSplit {
                    copies: 3,
                    unit: SplitUnit::Cylinder,
                },
                3,
                "replicated-split",
                "copies = 3",
            ),
            (
                intra(2, 2, IntraForm::Simulation, RotPlacement::Even),
                4,
                "intra",
                "split = 2\nrotational = 2",
            ),
            (
                intra(3, 2, IntraForm::Prototype, RotPlacement::Random),
                6,
                "intra",
                "split = 3\nrotational = 2\nform = \"prototype\"\nrotation = \"random\"",
            ),
        ] {
            let l = layout_within(org, count, Some(n));
            let full = layout_within(org, count, None).capacity();
            let cap = l.capacity();
            assert!(cap < full / 4 && cap > 0, "{org:?}: {cap} of {full}");
            let b = built(kind, count as u32, &format!("{keys}\ncylinders = {n}"));
            assert_eq!(b.root.capacity(), cap, "{kind} {keys}");
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
            for _ in 0..2_000 {
                let lbn = rng.gen_range(0..cap);
                let reps = l.replicas(lbn);
                assert!(!reps.is_empty(), "{org:?}: {lbn}");
                for (_, p) in reps {
                    assert!(p < band, "{org:?}: lbn {lbn} on member lbn {p}");
                }
            }
        }
    }

    #[test]
    fn a_split_maps_each_part_to_the_outer_lbns_of_one_member() {
        let l = layout(Organization::Split { reliable: false }, 3);
        let per = l.capacity() / 3;
        for lbn in [0, 1, per - 1, per, 2 * per + 5, l.capacity() - 1] {
            assert_eq!(l.replicas(lbn), vec![((lbn / per) as usize, lbn % per)]);
        }
        let r = layout(Organization::Split { reliable: true }, 4);
        let per = r.capacity() / 3;
        let lbn = per + 9;
        assert_eq!(r.replicas(lbn), vec![(1, 9), (3, lbn)]);
        assert!(r.replicas(r.capacity()).is_empty());
    }

    /// Every replica of an intra-disk sector is on its member, the rotational ones on
    /// other tracks of the same cylinder at the wanted angle, the band copies a band
    /// apart; no two sectors share a physical sector.
    #[test]
    fn intra_replicas_sit_where_the_layout_says() {
        for rotation in [
            RotPlacement::Even,
            RotPlacement::Random,
            RotPlacement::SameTrack,
        ] {
            let org = with_unit(
                intra(2, 3, IntraForm::Simulation, rotation),
                SplitUnit::Share,
            );
            let l = layout(org, 2);
            let geo = l.geometry(0).unwrap().clone();
            let width = geo.cylinders() / 2;
            let per = l.shares[0].len;
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
            let mut seen = std::collections::HashSet::new();
            let mut lbns: Vec<u64> = (0..2000).map(|_| rng.gen_range(0..per)).collect();
            lbns.extend(0..3000);
            lbns.sort_unstable();
            lbns.dedup();
            for &lbn in &lbns {
                let reps = l.replicas(lbn);
                assert_eq!(reps.len(), 6, "{lbn}");
                let locs: Vec<_> = reps
                    .iter()
                    .map(|&(m, p)| {
                        assert_eq!(m, 0);
                        assert!(seen.insert(p), "{p} twice");
                        geo.locate(p).unwrap()
                    })
                    .collect();
                for k in 0..2 {
                    let base = &locs[k * 3];
                    assert_eq!(base.pbn.cyl, locs[0].pbn.cyl + k as u32 * width);
                    for r in 1..3 {
                        let loc = &locs[k * 3 + r];
                        assert_eq!(loc.pbn.cyl, base.pbn.cyl);
                        if rotation == RotPlacement::SameTrack {
                            assert_eq!(loc.pbn.head, base.pbn.head);
                        } else {
                            assert_ne!(loc.pbn.head, base.pbn.head);
                        }
                        if rotation != RotPlacement::Random {
                            let want = (base.angle_sectors + r as u32 * base.spt / 3) % base.spt;
                            assert_eq!(loc.angle_sectors, want, "{lbn} r {r}");
                        }
                    }
                }
            }
            // The second member's share starts after the first's.
            assert_eq!(l.replicas(per)[0].0, 1);
        }
    }

    /// Replicas that share a track are not bounded by the heads: seven on a 6-head
    /// drive each hold a seventh of every track, evenly spaced, none overlapping;
    /// on other tracks seven are refused.
    #[test]
    fn same_track_replicas_go_beyond_the_heads() {
        let l = layout(
            intra(1, 7, IntraForm::Simulation, RotPlacement::SameTrack),
            1,
        );
        let cap = disk_capacity() as f64;
        let per = l.capacity() as f64 / cap;
        assert!(per > 0.9 / 7.0 && per <= 1.0 / 7.0, "{per}");
        let geo = l.geometry(0).unwrap().clone();
        let mut seen = std::collections::HashSet::new();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let mut lbns: Vec<u64> = (0..2000).map(|_| rng.gen_range(0..l.capacity())).collect();
        lbns.extend(0..2000);
        lbns.sort_unstable();
        lbns.dedup();
        for lbn in lbns {
            let reps = l.replicas(lbn);
            assert_eq!(reps.len(), 7);
            let base = geo.locate(reps[0].1).unwrap();
            for (r, &(_, p)) in reps.iter().enumerate() {
                assert!(seen.insert(p), "{p} twice");
                let loc = geo.locate(p).unwrap();
                assert_eq!((loc.pbn.cyl, loc.pbn.head), (base.pbn.cyl, base.pbn.head));
                let want = (base.angle_sectors + r as u32 * base.spt / 7) % base.spt;
                assert_eq!(loc.angle_sectors, want, "{lbn} r {r}");
            }
        }
        let err = try_layout(
            intra(1, 7, IntraForm::Simulation, RotPlacement::Even),
            1,
            None,
        );
        assert!(err.is_err_and(|e| e.contains("same-track")));
    }

    /// A reliable intra's copies lie past every sector of the bands on their member,
    /// also on a drive that numbers its tracks in bands of cylinders surface by
    /// surface (wd-re3), where a cylinder's first sector lies below tracks of the
    /// cylinders before it; and they end within the member.
    #[test]
    fn reliable_copies_lie_past_every_band_sector() {
        for (disk, form) in [
            ("st34502lw", IntraForm::Simulation),
            ("wd-re3", IntraForm::Simulation),
            ("wd-re3", IntraForm::Prototype),
        ] {
            let mut org = intra(2, 2, form, RotPlacement::Even);
            if let Organization::Intra { reliable, .. } = &mut org {
                *reliable = true;
            }
            let l = try_layout_on(disk, org, 4, None).unwrap();
            let geo = l.geometry(0).unwrap().clone();
            let cap = l.members[0].capacity();
            // Each member's last band cylinder, and its copies' LBN range.
            let mut band_end = [0u32; 4];
            let mut copies = [(u64::MAX, 0u64); 4];
            for sh in &l.shares {
                for c in &sh.copies {
                    match &c.place {
                        Place::Banded(b) => {
                            let last = b.starts.last().unwrap() + b.width() as u32;
                            band_end[c.member] = band_end[c.member].max(last);
                        }
                        Place::Linear(base) => {
                            let r = &mut copies[c.member];
                            r.0 = r.0.min(base + sh.offset);
                            r.1 = r.1.max(base + sh.offset + sh.len);
                        }
                        Place::Shuffled(_) => unreachable!(),
                    }
                }
            }
            for m in 0..4 {
                let (lo, hi) = copies[m];
                assert!(
                    lo < hi && hi <= cap,
                    "{disk} {form:?} member {m}: {lo}..{hi} of {cap}"
                );
                // Track by track through the copies' region.
                let mut at = lo;
                while at < hi {
                    let loc = geo.locate(at).unwrap();
                    assert!(
                        loc.pbn.cyl >= band_end[m],
                        "{disk} {form:?} member {m}: copy sector {at} on cylinder {}, bands end at {}",
                        loc.pbn.cyl,
                        band_end[m]
                    );
                    at += u64::from(loc.spt - loc.pbn.sector);
                }
            }
        }
    }

    /// An array too large to stripe by cylinder is refused before the pieces are
    /// made, and contiguous shares of the same drives are not.
    #[test]
    fn striping_by_cylinder_has_a_limit() {
        let org = intra(1, 1, IntraForm::Simulation, RotPlacement::Even);
        let err = try_layout(org, 300, None).err().unwrap_or_default();
        assert!(err.contains("split-unit = \"share\""), "{err}");
        assert!(try_layout(with_unit(org, SplitUnit::Share), 300, None).is_ok());
    }

    /// Striping by cylinder deals the array's logical cylinders to the members in
    /// turn and keeps each member's slots in order: a sector has the replicas of the
    /// same member slot as under contiguous shares, and the capacity is the same.
    #[test]
    fn striping_by_cylinder_deals_cylinders_in_turn() {
        for base in [
            intra(2, 3, IntraForm::Simulation, RotPlacement::Even),
            Organization::ReplicatedSplit {
                copies: 2,
                unit: SplitUnit::Share,
            },
        ] {
            let shares = layout(with_unit(base, SplitUnit::Share), 3);
            let striped = layout(with_unit(base, SplitUnit::Cylinder), 3);
            assert_eq!(shares.capacity(), striped.capacity(), "{base:?}");
            let per = shares.shares[0].len;
            let mut next = [0u64; 3];
            for (k, sh) in striped.shares.iter().enumerate() {
                let m = sh.copies[0].member;
                // Members in turn while every member has cylinders left.
                if k < 30 {
                    assert_eq!(m, k % 3, "{base:?}: share {k}");
                }
                assert_eq!(sh.offset, next[m], "{base:?}: member {m}'s slots in order");
                next[m] += sh.len;
                for lbn in [sh.start, sh.start + sh.len / 2, sh.start + sh.len - 1] {
                    let slot = sh.slot(lbn);
                    assert_eq!(
                        striped.replicas(lbn),
                        shares.replicas(m as u64 * per + slot),
                        "{base:?}: lbn {lbn}"
                    );
                }
            }
            assert_eq!(next, [per; 3], "{base:?}: every slot of every member");
        }
    }

    /// Runs `n` single-sector requests (reads or writes) one at a time.
    fn run(b: &mut crate::stack::tree::Built, write: bool, n: u64, seed: u64) -> f64 {
        let cap = b.root.capacity();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let recs: Vec<IoRecord> = (0..n)
            .map(|i| IoRecord {
                arrival: SimTime(i * 100_000_000),
                device: 0,
                lbn: rng.gen_range(0..cap),
                blocks: 1,
                write,
                content: Vec::new(),
            })
            .collect();
        let mut total = 0u64;
        engine::run(
            b.root.as_mut(),
            &b.units,
            Source::records(&recs),
            RunOptions { remove_idle: false },
            &mut |l| total += l.response_ns(),
        )
        .unwrap();
        total as f64 / n as f64 / 1e6
    }

    fn extra(b: &crate::stack::tree::Built, key: &str) -> String {
        let mut out = Vec::new();
        b.root.report("top", &mut out);
        out[0]
            .extra
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .unwrap()
    }

    /// A read goes to one replica, a write to every replica, on every organization.
    #[test]
    fn reads_go_to_one_replica_and_writes_to_all() {
        for (kind, count, keys, replicas) in [
            ("split", 3, "", 1),
            ("split", 4, "reliable = true", 2),
            ("replicated-split", 4, "copies = 3", 3),
            ("intra", 4, "split = 2\nrotational = 2", 4),
            ("intra", 4, "split = 2\nrotational = 2\nreliable = true", 5),
            (
                "intra",
                6,
                "split = 3\nrotational = 2\nform = \"prototype\"",
                2,
            ),
            (
                "intra",
                2,
                "split = 1\nrotational = 3\nrotation = \"random\"",
                3,
            ),
        ] {
            for seed in [1, 2] {
                let mut b = built(kind, count, keys);
                run(&mut b, false, 50, seed);
                assert_eq!(extra(&b, "member reads"), "50", "{kind} {keys}");
                let by: u64 = extra(&b, "reads per replica")
                    .split(' ')
                    .map(|n| n.parse::<u64>().unwrap())
                    .sum();
                assert_eq!(by, 50);
                let mut b = built(kind, count, keys);
                run(&mut b, true, 50, seed);
                assert_eq!(
                    extra(&b, "member writes"),
                    (50 * replicas).to_string(),
                    "{kind} {keys}"
                );
            }
        }
    }

    /// The premise: intra-disk replicas read faster than one drive, and choosing by
    /// positioning time beats taking the first replica.
    #[test]
    fn replicas_cut_random_read_latency() {
        for seed in [1, 2, 3] {
            let one = run(&mut built("split", 1, ""), false, 300, seed);
            let first = run(
                &mut built(
                    "intra",
                    4,
                    "split = 2\nrotational = 2\nreplica-choice = \"least-busy\"",
                ),
                false,
                300,
                seed,
            );
            let best = run(
                &mut built("intra", 4, "split = 2\nrotational = 2"),
                false,
                300,
                seed,
            );
            assert!(
                best < 0.9 * first && best < 0.8 * one,
                "{seed}: {best} {first} {one}"
            );
        }
    }

    /// Rotational replicas pay off only if the choice knows when each comes round:
    /// with 6 even replicas on one drive, reads wait about R/12 (Eq 7), with random
    /// ones about R/7 (Eq 6).
    #[test]
    fn rotational_replicas_cut_the_wait_as_the_formulas_say() {
        let period_ms = 60_000.0 / 10_025.0;
        for seed in [1, 2] {
            for (rotation, want) in [("even", 1.0 / 12.0), ("random", 1.0 / 7.0)] {
                let keys = format!("split = 1\nrotational = 6\nrotation = \"{rotation}\"");
                let mut b = built("intra", 1, &keys);
                run(&mut b, false, 1500, seed);
                let rot: f64 = extra(&b, "mean read rotation ms").parse().unwrap();
                let got = rot / period_ms;
                assert!(
                    (got / want - 1.0).abs() < 0.1,
                    "{rotation} {seed}: {got} vs {want}"
                );
            }
        }
    }

    /// Shuffled mirror layouts put a block at independent places on the members.
    #[test]
    fn shuffled_mirrors_place_blocks_apart() {
        let l = layout(
            Organization::Mirror {
                layouts: MirrorLayouts::Shuffled,
            },
            3,
        );
        let mut moved = 0;
        for lbn in (0..l.capacity()).step_by(1_000_003) {
            let r = l.replicas(lbn);
            assert_eq!(r.len(), 3);
            assert_eq!(r[0], (0, lbn));
            assert_eq!(r[1].1 % SHUFFLE_CHUNK, lbn % SHUFFLE_CHUNK);
            moved += usize::from(r[1].1 != lbn) + usize::from(r[2].1 != r[1].1);
        }
        assert!(moved >= 14, "{moved}");
    }

    /// Throughput mode: an even spread deals a mirror's reads out in turn whatever the
    /// members hold; least-busy fills the emptiest queues first.
    #[test]
    fn an_even_spread_deals_reads_in_turn() {
        for (spread, want) in [(Spread::Even, [7, 2, 2]), (Spread::LeastBusy, [5, 3, 3])] {
            let mirror = Organization::Mirror {
                layouts: MirrorLayouts::Identical,
            };
            let mut l = layout(mirror, 3).with_reorder(4, spread).unwrap();
            if let Some(r) = &mut l.reorder {
                let h = Held {
                    pid: u64::MAX,
                    share: 0,
                    copy: 0,
                    cyl: 0,
                };
                r.held[0] = vec![h; 5];
            }
            for id in 0..6 {
                let req = Request {
                    id,
                    lbn: id * 1000,
                    blocks: 1,
                    write: false,
                };
                assert!(l.hold(&req));
            }
            let held: Vec<usize> = l
                .reorder
                .as_ref()
                .map(|r| r.held.iter().map(Vec::len).collect())
                .unwrap();
            assert_eq!(held, want, "{spread:?}");
        }
    }

    #[test]
    fn keys_belong_to_their_kind() {
        for (kind, keys, want) in [
            ("raid0", "copies = 2", "copies applies to MimdRAID's mirror"),
            (
                "split",
                "rotational = 2",
                "rotational does not apply to split",
            ),
            (
                "intra",
                "rotational = 7",
                "rotational replicas must be within 1..=6",
            ),
            ("intra", "split = 0", "split must be within"),
            (
                "split",
                "split-unit = \"cylinder\"",
                "split-unit does not apply to split",
            ),
            (
                "mirror",
                "staleness-ms = 5",
                "staleness-ms applies to propagation = \"background\" only",
            ),
            (
                "mirror",
                "propagation = \"background\"\nstaleness-ms = 0",
                "staleness-ms must be within",
            ),
            (
                "intra",
                "propagation = \"background\"\nreorder-queue = 4",
                "does not combine with reorder-queue",
            ),
            (
                "raid5",
                "propagation = \"background\"",
                "propagation applies to MimdRAID's",
            ),
            (
                "replicated-split",
                "copies = 5",
                "copies must be within 1..=4",
            ),
            ("split", "reliable = true", "at least 3 members"),
            ("mirror", "cylinders = 0", "cylinders must be within 1..="),
            (
                "intra",
                "cylinders = 100000",
                "cylinders must be within 1..=",
            ),
            ("raid5", "cylinders = 10", "cylinders applies to MimdRAID's"),
            (
                "mirror",
                "spread = \"even\"",
                "spread applies in throughput mode only",
            ),
        ] {
            let count = if kind == "split" { 2 } else { 4 };
            let e = RunConfig::from_toml(&toml(kind, count, keys), "t.toml")
                .unwrap()
                .build()
                .err()
                .unwrap()
                .to_string();
            assert!(e.contains(want), "{kind} {keys}: {e}");
        }
    }
}
