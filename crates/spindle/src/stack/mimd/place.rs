//! Where each copy of a MimdRAID share sits on its member: linear, shuffled in
//! chunks, or banded (bands of cylinders, each slot replicated on the tracks of its
//! cylinder), and how banded members' shares are cut into the array's pieces.

use super::{BandAngles, RotPlacement, SplitUnit};
use crate::disk::geometry::{Geometry, Pbn};
use std::sync::Arc;

/// A drive's share kept in bands of cylinders, each band's slots replicated `rot`
/// times within the cylinder. A slot is (logical cylinder j, head g of the first
/// replica group, sector i); band k's copy is on cylinder `starts[k] + j`, sector i
/// turned as `bands` says, rotational replica r on head `r·group + g` (on head g
/// itself when the replicas share the track) at that angle plus r/rot of a turn.
#[derive(Clone, Debug)]
pub(super) struct Banded {
    pub(super) starts: Vec<u32>,
    pub(super) rot: u32,
    /// Heads per rotational replica group.
    pub(super) group: u32,
    /// Slots before logical cylinder j (`width + 1` entries).
    pub(super) prefix: Vec<u64>,
    /// Random rotational placement: the seed of the angle draws.
    pub(super) random: Option<u64>,
    /// The replicas share their track (a track holds 1/rot of its sectors' data).
    pub(super) same_track: bool,
    /// How band copies after the first are turned, and the seed of random turns.
    bands: BandAngles,
    band_seed: u64,
}

/// A 64-bit mix (splitmix64's finalizer): the seeded per-cylinder angle draw of
/// random rotational replicas.
pub(super) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Banded {
    /// Bands of `width` cylinders at `starts`, `rot` rotational replicas placed as
    /// `placement.0` says, band copies turned as `placement.1` says. Cylinders whose
    /// tracks are not all mapped are left out; a slot holds the fewest sectors per
    /// track among its band copies.
    pub(super) fn new(
        geo: &Geometry,
        starts: Vec<u32>,
        width: u32,
        rot: u32,
        placement: (RotPlacement, BandAngles),
        seed: u64,
    ) -> Result<Banded, String> {
        let (placement, bands) = placement;
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
            bands,
            band_seed: mix(seed ^ 0xba4d),
        })
    }

    /// How many sectors band copy `k`'s track of logical cylinder `j`, head `g`, is
    /// turned (and its sectors per track), or `None` to keep the sector numbers: band
    /// 0, and every band under [`BandAngles::Skew`].
    fn band_turn(&self, geo: &Geometry, j: u32, g: u32, k: usize) -> Option<Option<(u64, u64)>> {
        if k == 0 || self.bands == BandAngles::Skew {
            return Some(None);
        }
        // A track's angle of sector 0, and its sectors per track.
        let angle_of_first = |cyl: u32| -> Option<(u64, u64)> {
            let l = geo.locate(geo.lbn_of(Pbn {
                cyl,
                head: g,
                sector: 0,
            })?)?;
            Some((u64::from(l.angle_sectors), u64::from(l.spt)))
        };
        let (a0, spt0) = angle_of_first(self.starts[0] + j)?;
        let (ak, spt) = angle_of_first(self.starts[k] + j)?;
        let want = match self.bands {
            BandAngles::Even => {
                let turns = self.starts.len() as u64 * u64::from(self.rot);
                a0 * spt / spt0 + k as u64 * spt / turns
            }
            _ => mix(self.band_seed ^ ((k as u64) << 40) ^ (u64::from(j) << 8) ^ u64::from(g)),
        };
        Some(Some(((want % spt + spt - ak) % spt, spt)))
    }

    pub(super) fn slots(&self) -> u64 {
        self.prefix.last().copied().unwrap_or(0)
    }

    /// Logical cylinders (each band copy's width).
    pub(super) fn width(&self) -> usize {
        self.prefix.len().saturating_sub(1)
    }

    /// The first slot of logical cylinder `j` and how many it holds.
    pub(super) fn cylinder(&self, j: usize) -> (u64, u64) {
        let first = self.prefix[j];
        (first, self.prefix[j + 1] - first)
    }

    /// How many replicas each slot has.
    pub(super) fn count(&self) -> usize {
        self.starts.len() * self.rot as usize
    }

    /// The LBN of replica `idx` (band `idx / rot`, rotational replica `idx % rot`) of
    /// slot `s`.
    pub(super) fn replica(&self, geo: &Geometry, s: u64, idx: usize) -> Option<u64> {
        let j = self.prefix.partition_point(|&p| p <= s).checked_sub(1)?;
        let m = (self.prefix.get(j + 1)? - self.prefix[j]) / u64::from(self.group);
        let off = s - self.prefix[j];
        let (g, i) = ((off / m) as u32, (off % m) as u32);
        let (k, r) = (idx / self.rot as usize, idx as u32 % self.rot);
        let cyl = self.starts.get(k)? + j as u32;
        let sector = match self.band_turn(geo, j as u32, g, k)? {
            None => i,
            // A constant turn of the track: a bijection of its sectors.
            Some((turn, spt)) => ((u64::from(i) + turn) % spt) as u32,
        };
        let base = geo.lbn_of(Pbn {
            cyl,
            head: g,
            sector,
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
pub(super) enum Place {
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
pub(super) fn push_bands(
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
pub(super) fn shuffle(n: u64, seed: u64) -> Vec<u32> {
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    let mut v: Vec<u32> = (0..n as u32).collect();
    v.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    v
}

#[derive(Clone, Debug)]
pub(super) struct Copy {
    pub(super) member: usize,
    pub(super) place: Place,
    /// Whether reads may use it (a reliability copy only takes writes).
    pub(super) reads: bool,
}

/// A contiguous range of the array's addresses and every copy of it.
#[derive(Clone, Debug)]
pub(super) struct Share {
    pub(super) start: u64,
    pub(super) len: u64,
    /// The copies' slot of the range's first sector (a share striped by cylinder is
    /// one logical cylinder of its copies' places).
    pub(super) offset: u64,
    pub(super) copies: Vec<Copy>,
}

impl Share {
    /// The copies' slot of array sector `lbn` (within the share).
    pub(super) fn slot(&self, lbn: u64) -> u64 {
        lbn - self.start + self.offset
    }
}
