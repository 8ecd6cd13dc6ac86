//! Disk geometry: zones, sparing, slips and remaps, the LBN ↔ physical mapping and the
//! angular position of every sector.
//!
//! Each zone owns a *physical index space*: track after track in LBN order (so index
//! `p` lies on the zone's logical track `p / spt`, sector `p % spt`). Which physical
//! indices hold no LBN — the empty space at the zone front, spare sectors, slipped
//! defects — is recorded as a sorted list of *holes*; an LBN is the rank of its physical
//! index among the non-holes. This one rule covers every DiskSim sparing scheme (the
//! scheme only decides where the holes are), keeps forward and reverse mapping exact
//! inverses, and makes both a short search of the holes (bucketed, see [`SearchIndex`]).
//!
//! How logical tracks map to (cylinder, surface) is the zone's [`TrackOrder`]: DiskSim's
//! three schemes, or a surface-serpentine layout in bands of C cylinders.

use serde::{Deserialize, Serialize};

/// Where LBN order goes after filling a track.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum TrackOrder {
    /// DiskSim scheme 0: every cylinder visits surfaces 0, 1, …, S−1.
    Conventional,
    /// DiskSim scheme 1: cylinders at an odd offset from the zone's first cylinder visit
    /// surfaces in reverse order.
    SerpentineZoneRelative,
    /// DiskSim scheme 2: odd (absolute) cylinders visit surfaces in reverse order.
    SerpentineAbsolute,
    /// Surface-serpentine bands (proximal I/O paper §2.1): LBNs fill `band` consecutive
    /// tracks of one surface, then continue on the next surface back at the band's
    /// first cylinder. A band holds `spt × band × surfaces` LBNs.
    SurfaceBands { band: u32 },
}

/// How spare sectors are laid out (DiskSim's `Sparing scheme used`, 0–10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Sparing {
    /// 0: no spares.
    None,
    /// 1: `spares` whole spare tracks at the end of the zone; slips and remaps are
    /// track numbers.
    TracksAtZoneEnd,
    /// 2, 5: `spares` sectors at the end of every cylinder; slips use them up.
    PerCylinder,
    /// 3: `spares` sectors at the end of every track; slips use them up.
    PerTrack,
    /// 4, 6: `spares` sectors per cylinder, and every slip costs one more LBN of
    /// capacity (slip-to-end).
    PerCylinderSlipToEnd,
    /// 7: slips only (the spare count must be 0).
    SlipsOnly,
    /// 8: `spares` sectors at the end of every range of `range` cylinders.
    PerRange { range: u32 },
    /// 9: `spares` sectors at the end of the zone; slips use them up.
    ZoneEnd,
    /// 10: `spares` sectors at the end of the zone, plus one LBN less per slip.
    ZoneEndSlipToEnd,
}

/// One zone as a user describes it (the DiskSim `dm_layout_g1_zone` fields).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZoneSpec {
    pub first_cyl: u32,
    pub last_cyl: u32,
    /// Physical sectors per track, spares included.
    pub spt: u32,
    /// Angle of the zone's first logical sector, in sectors from angle 0.
    pub offset_sectors: u32,
    /// Sectors reserved at the zone front before its first LBN.
    pub empty_front: u64,
    /// Sectors of skew added at every track switch (same cylinder).
    pub track_skew: u32,
    /// Sectors of skew added at every cylinder switch.
    pub cyl_skew: u32,
    pub spares: u64,
    /// Slipped defects: zone-relative physical indices (tracks for `TracksAtZoneEnd`).
    pub slips: Vec<u64>,
    /// Remapped defects: (bad, replacement) pairs in the same units as slips.
    pub remaps: Vec<(u64, u64)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometrySpec {
    pub surfaces: u32,
    pub order: TrackOrder,
    pub sparing: Sparing,
    /// In LBN order.
    pub zones: Vec<ZoneSpec>,
}

/// A run of consecutive LBNs on one track (see [`Geometry::track_run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrackRun {
    /// Where the first LBN is.
    pub loc: Location,
    /// LBNs in the run.
    pub run: u64,
    /// Physical sectors from the first to the last LBN of the run, inclusive.
    pub span: u64,
    /// The last LBN on the track.
    pub track_last: u64,
}

/// The tail of the track a caller last looked up: from `anchor` to the track's last
/// LBN the sectors hold consecutive LBNs (no hole, no remap), so any LBN there is
/// located by an offset from `anchor`. A read stream asks about the same track several
/// times per request (the media run, the read-ahead's target, its cursor); the memo
/// answers those without a search. It only records facts about the geometry, so any
/// memo gives the same answers as none; it belongs to one [`Geometry`].
#[derive(Clone, Copy, Debug, Default)]
pub struct TrackMemo {
    entry: Option<MemoEntry>,
}

#[derive(Clone, Copy, Debug)]
struct MemoEntry {
    anchor: u64,
    /// Where `anchor` is.
    loc: Location,
    /// The track's last LBN.
    last: u64,
    /// The track's first LBN, once a `track_bounds` needed it.
    first: Option<u64>,
}

impl MemoEntry {
    /// The location of `lbn`, if it lies in `anchor..=last`: same track, `d` sectors on.
    #[inline]
    fn locate(&self, lbn: u64) -> Option<Location> {
        if lbn < self.anchor || lbn > self.last {
            return None;
        }
        let d = (lbn - self.anchor) as u32;
        let mut loc = self.loc;
        loc.pbn.sector += d;
        // `angle + d` stays below 2·spt (both sectors are on this track).
        let a = loc.angle_sectors + d;
        loc.angle_sectors = if a >= loc.spt { a - loc.spt } else { a };
        Some(loc)
    }
}

/// A physical sector address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pbn {
    pub cyl: u32,
    pub head: u32,
    /// Index in logical order on the track (0 = the track's first sector).
    pub sector: u32,
}

/// Where an LBN sits, with everything the mechanics need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub pbn: Pbn,
    pub zone: usize,
    /// Zone-relative logical track index (in LBN order).
    pub track: u64,
    /// Angular position of the sector's leading edge, in sectors (0..spt).
    pub angle_sectors: u32,
    pub spt: u32,
}

#[derive(Clone, Debug, thiserror::Error, PartialEq)]
pub enum GeometryError {
    #[error("zone {zone}: {msg}")]
    Zone { zone: usize, msg: String },
    #[error("{0}")]
    Other(String),
}

/// A hole run in a zone's physical index space, with the number of hole sectors
/// strictly before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Hole {
    start: u64,
    end: u64,
    before: u64,
}

#[derive(Clone, Debug)]
struct Zone {
    spec: ZoneSpec,
    first_lbn: u64,
    capacity: u64,
    /// Sectors per cylinder in this zone.
    per_cyl: u64,
    tracks: u64,
    holes: Vec<Hole>,
    /// Start points for hole searches by rank (key `start − before`) and by physical
    /// index (key `start`).
    by_rank: RankIndex,
    by_physical: SearchIndex,
    /// Physical index → replacement physical index (sector units).
    remap_to: Vec<(u64, u64)>,
    /// Replacement physical index → bad physical index, sorted by replacement.
    remap_from: Vec<(u64, u64)>,
}

/// The full mapping, built once from a [`GeometrySpec`].
#[derive(Clone, Debug)]
pub struct Geometry {
    spec_surfaces: u32,
    order: TrackOrder,
    zones: Vec<Zone>,
    /// Start points for zone searches by LBN (key `first_lbn`).
    zone_index: SearchIndex,
    /// Each zone's first LBN, packed for that search (a zone is a large struct).
    zone_starts: Vec<u64>,
    capacity: u64,
    cylinders: u32,
}

impl Geometry {
    pub fn new(spec: &GeometrySpec) -> Result<Geometry, GeometryError> {
        if spec.surfaces == 0 {
            return Err(GeometryError::Other(
                "the disk needs at least one surface".into(),
            ));
        }
        if spec.zones.is_empty() {
            return Err(GeometryError::Other(
                "the disk needs at least one zone".into(),
            ));
        }
        let mut zones = Vec::with_capacity(spec.zones.len());
        let mut first_lbn = 0u64;
        let mut cylinders = 0u32;
        for (i, z) in spec.zones.iter().enumerate() {
            // Zones cut the cylinders into bands, in order: two that share a cylinder
            // would map its sectors twice.
            if let Some(prev) = i.checked_sub(1).and_then(|p| spec.zones.get(p)) {
                if z.first_cyl <= prev.last_cyl {
                    return Err(GeometryError::Zone {
                        zone: i,
                        msg: format!(
                            "starts at cylinder {}, within or before zone {} (cylinders {}..={}): zones must follow one another",
                            z.first_cyl,
                            i - 1,
                            prev.first_cyl,
                            prev.last_cyl
                        ),
                    });
                }
            }
            let zone = build_zone(i, z, spec, first_lbn)?;
            if zone.capacity == 0 {
                return Err(GeometryError::Zone {
                    zone: i,
                    msg: format!(
                        "holds no sectors: its spares ({}), slips and empty space at its front ({} sectors) take all of it",
                        z.spares, z.empty_front
                    ),
                });
            }
            first_lbn += zone.capacity;
            cylinders = cylinders.max(z.last_cyl + 1);
            zones.push(zone);
        }
        let first_lbns: Vec<u64> = zones.iter().map(|z| z.first_lbn).collect();
        Ok(Geometry {
            spec_surfaces: spec.surfaces,
            order: spec.order,
            zone_index: SearchIndex::new(&first_lbns, 4),
            zone_starts: first_lbns,
            zones,
            capacity: first_lbn,
            cylinders,
        })
    }

    /// Number of addressable 512-byte sectors.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    pub fn surfaces(&self) -> u32 {
        self.spec_surfaces
    }

    /// One past the highest cylinder any zone uses.
    pub fn cylinders(&self) -> u32 {
        self.cylinders
    }

    pub fn zone_count(&self) -> usize {
        self.zones.len()
    }

    pub fn zone_spec(&self, zone: usize) -> &ZoneSpec {
        &self.zones[zone].spec
    }

    /// (first LBN, capacity) of a zone.
    pub fn zone_lbns(&self, zone: usize) -> (u64, u64) {
        (self.zones[zone].first_lbn, self.zones[zone].capacity)
    }

    #[inline]
    fn zone_of_lbn(&self, lbn: u64) -> usize {
        // Zones are in LBN order; find the last zone whose first LBN is <= lbn.
        self.zone_index
            .partition_point(&self.zone_starts, lbn, |&f| f <= lbn)
            .saturating_sub(1)
    }

    /// Maps an LBN to its physical location. `None` past the end of the disk.
    pub fn locate(&self, lbn: u64) -> Option<Location> {
        if lbn >= self.capacity {
            return None;
        }
        let zi = self.zone_of_lbn(lbn);
        let z = &self.zones[zi];
        let p = z.physical_of_rank(lbn - z.first_lbn);
        let p = z.remapped(p);
        Some(self.location_of_physical(zi, p))
    }

    #[inline(always)]
    fn location_of_physical(&self, zi: usize, p: u64) -> Location {
        let z = &self.zones[zi];
        let spt = z.spec.spt as u64;
        let track = p / spt;
        let sector = (p % spt) as u32;
        let (cyl_off, head, head_switches, cyl_switches) = self.track_place(z, track);
        let cyl = z.spec.first_cyl + cyl_off;
        let skew = head_switches * z.spec.track_skew as u64 + cyl_switches * z.spec.cyl_skew as u64;
        let angle = (z.spec.offset_sectors as u64 + skew + sector as u64) % spt;
        Location {
            pbn: Pbn { cyl, head, sector },
            zone: zi,
            track,
            angle_sectors: angle as u32,
            spt: z.spec.spt,
        }
    }

    /// For a zone-relative logical track: (cylinder offset, head, track switches before
    /// it, cylinder switches before it).
    #[inline(always)]
    fn track_place(&self, z: &Zone, track: u64) -> (u32, u32, u64, u64) {
        let s = self.spec_surfaces as u64;
        match self.order {
            TrackOrder::Conventional
            | TrackOrder::SerpentineZoneRelative
            | TrackOrder::SerpentineAbsolute => {
                let c = track / s;
                let tk = (track % s) as u32;
                let cyl = z.spec.first_cyl as u64 + c;
                let reversed = match self.order {
                    TrackOrder::SerpentineZoneRelative => c % 2 == 1,
                    TrackOrder::SerpentineAbsolute => cyl % 2 == 1,
                    _ => false,
                };
                let head = if reversed {
                    self.spec_surfaces - 1 - tk
                } else {
                    tk
                };
                (c as u32, head, track - c, c)
            }
            TrackOrder::SurfaceBands { band } => {
                let band = band.max(1) as u64;
                let per_band = band * s;
                let b = track / per_band;
                let u = track % per_band;
                let surface = (u / band) as u32;
                let k = u % band;
                // Every pass change (and band change) is a switch to another surface with
                // a short seek back: the paper's near-constant, track-switch-like cost.
                let passes = track / band;
                let cyl_switches = track - passes;
                ((b * band + k) as u32, surface, passes, cyl_switches)
            }
        }
    }

    /// Inverse of `track_place`: zone-relative logical track for (cyl, head).
    fn track_of(&self, z: &Zone, cyl: u32, head: u32) -> Option<u64> {
        if cyl < z.spec.first_cyl || cyl > z.spec.last_cyl || head >= self.spec_surfaces {
            return None;
        }
        let s = self.spec_surfaces as u64;
        let c = (cyl - z.spec.first_cyl) as u64;
        match self.order {
            TrackOrder::Conventional
            | TrackOrder::SerpentineZoneRelative
            | TrackOrder::SerpentineAbsolute => {
                let reversed = match self.order {
                    TrackOrder::SerpentineZoneRelative => c % 2 == 1,
                    TrackOrder::SerpentineAbsolute => cyl % 2 == 1,
                    _ => false,
                };
                let tk = if reversed {
                    self.spec_surfaces - 1 - head
                } else {
                    head
                } as u64;
                Some(c * s + tk)
            }
            TrackOrder::SurfaceBands { band } => {
                let band = band.max(1) as u64;
                let b = c / band;
                let k = c % band;
                Some(b * band * s + head as u64 * band + k)
            }
        }
    }

    /// Maps a physical sector back to its LBN; `None` for spares, slips, empty space,
    /// remapped-away sectors and positions outside every zone.
    pub fn lbn_of(&self, pbn: Pbn) -> Option<u64> {
        let zi = self.zone_of_cyl(pbn.cyl)?;
        let z = &self.zones[zi];
        if pbn.sector >= z.spec.spt {
            return None;
        }
        let track = self.track_of(z, pbn.cyl, pbn.head)?;
        let p = track * z.spec.spt as u64 + pbn.sector as u64;
        let p = z.unremapped(p)?;
        let rank = z.rank_of_physical(p)?;
        Some(z.first_lbn + rank)
    }

    fn zone_of_cyl(&self, cyl: u32) -> Option<usize> {
        self.zones
            .iter()
            .position(|z| z.spec.first_cyl <= cyl && cyl <= z.spec.last_cyl)
    }

    /// [`Geometry::locate`], answered from `memo` when it covers `lbn`.
    #[inline]
    pub fn locate_memo(&self, memo: &TrackMemo, lbn: u64) -> Option<Location> {
        match memo.entry.as_ref().and_then(|e| e.locate(lbn)) {
            Some(loc) => Some(loc),
            None => self.locate(lbn),
        }
    }

    /// [`Geometry::track_bounds`], answered from `memo` when it covers `lbn` (the
    /// track's first LBN is found once, then remembered).
    #[inline]
    pub fn track_bounds_memo(&self, memo: &mut TrackMemo, lbn: u64) -> Option<(u64, u64)> {
        if let Some(e) = &mut memo.entry {
            if lbn >= e.anchor && lbn <= e.last {
                let first = match e.first {
                    Some(f) => f,
                    None => {
                        let z = &self.zones[e.loc.zone];
                        let t0 = e.loc.track * z.spec.spt as u64;
                        let f = z.first_lbn + z.rank_at_or_after(t0);
                        e.first = Some(f);
                        f
                    }
                };
                return Some((first, e.last.max(first)));
            }
        }
        self.track_bounds(lbn)
    }

    /// First and last LBN stored on the track holding `lbn` (the track's LBNs are
    /// consecutive). Remapped sectors elsewhere are ignored.
    pub fn track_bounds(&self, lbn: u64) -> Option<(u64, u64)> {
        if lbn >= self.capacity {
            return None;
        }
        let zi = self.zone_of_lbn(lbn);
        let z = &self.zones[zi];
        let p = z.physical_of_rank(lbn - z.first_lbn);
        let spt = z.spec.spt as u64;
        let t0 = (p / spt) * spt;
        let first = z.rank_at_or_after(t0);
        let last = z.rank_at_or_after(t0 + spt).saturating_sub(1);
        Some((z.first_lbn + first, z.first_lbn + last.max(first)))
    }

    /// The run of up to `max` LBNs from `lbn` that lie on `lbn`'s track: where it
    /// starts, how many LBNs it holds, the physical sectors it spans (slips inside make
    /// it longer than the LBN count) and the track's last LBN. One hole search instead
    /// of the three a `locate` + `track_bounds` + `locate` would take.
    pub fn track_run(&self, lbn: u64, max: u64) -> Option<TrackRun> {
        self.track_run_memo(&mut TrackMemo::default(), lbn, max)
    }

    /// [`Geometry::track_run`], answered from `memo` when it covers `lbn`, and
    /// remembering a hole-free track tail for the next call.
    #[inline]
    pub fn track_run_memo(&self, memo: &mut TrackMemo, lbn: u64, max: u64) -> Option<TrackRun> {
        if max == 0 {
            return None;
        }
        if let Some(e) = &memo.entry {
            if let Some(loc) = e.locate(lbn) {
                // No holes up to the track end: the run is as long as the LBNs left.
                let run = max.min(e.last - lbn + 1);
                return Some(TrackRun {
                    loc,
                    run,
                    span: run,
                    track_last: e.last,
                });
            }
        }
        self.track_run_slow(memo, lbn, max)
    }

    #[inline]
    fn track_run_slow(&self, memo: &mut TrackMemo, lbn: u64, max: u64) -> Option<TrackRun> {
        if lbn >= self.capacity || max == 0 {
            return None;
        }
        // The remembered track's zone, if it holds `lbn` (the only zone with LBNs there
        // is the one `zone_of_lbn` finds), else a search.
        let zi = match &memo.entry {
            Some(e) if self.zones[e.loc.zone].holds(lbn) => e.loc.zone,
            _ => self.zone_of_lbn(lbn),
        };
        let z = &self.zones[zi];
        if !z.remap_to.is_empty() {
            // Remaps break physical contiguity: take the general path.
            let loc = self.locate(lbn)?;
            let (_, last) = self.track_bounds(lbn)?;
            let run = max.min(last - lbn + 1);
            let last_loc = self.locate(lbn + run - 1)?;
            let span =
                ((last_loc.pbn.sector as u64).saturating_sub(loc.pbn.sector as u64) + 1).max(run);
            return Some(TrackRun {
                loc,
                run,
                span,
                track_last: last,
            });
        }
        let rank = lbn - z.first_lbn;
        let (j, before, next_start) = z.by_rank.find(&z.holes, rank);
        let p = rank + before;
        let spt = z.spec.spt as u64;
        let track_end = (p / spt + 1) * spt;
        if next_start >= track_end {
            // No hole on the rest of the track (the common case), so the general walk
            // below would find: every sector to the track end holds the next LBN.
            let lbns_to_end = track_end - p;
            let run = max.min(lbns_to_end);
            let loc = self.location_of_physical(zi, p);
            let track_last = lbn + lbns_to_end - 1;
            memo.entry = Some(MemoEntry {
                anchor: lbn,
                loc,
                last: track_last,
                first: None,
            });
            return Some(TrackRun {
                loc,
                run,
                span: run,
                track_last,
            });
        }
        // The holes after `p` on this track.
        let holes = || z.holes[j..].iter().take_while(|h| h.start < track_end);
        let mut lbns_to_end = 0;
        let mut cursor = p;
        for h in holes() {
            lbns_to_end += h.start.saturating_sub(cursor);
            cursor = h.end.min(track_end).max(cursor);
        }
        lbns_to_end += track_end.saturating_sub(cursor);
        let run = max.min(lbns_to_end).max(1);
        // Physical end of the run: skip the holes met before `run` LBNs are counted.
        let mut left = run;
        let mut cursor = p;
        for h in holes() {
            let good = h.start.saturating_sub(cursor);
            if good >= left {
                break;
            }
            left -= good;
            cursor = h.end.min(track_end).max(cursor);
        }
        let span = (cursor + left - p).max(run);
        let loc = self.location_of_physical(zi, p);
        if holes().next().is_none() {
            memo.entry = Some(MemoEntry {
                anchor: lbn,
                loc,
                last: lbn + lbns_to_end.max(1) - 1,
                first: None,
            });
        }
        Some(TrackRun {
            loc,
            run,
            span,
            track_last: lbn + lbns_to_end.max(1) - 1,
        })
    }

    /// Physical sector index on its track of `lbn`'s neighbour positions are needed by
    /// the mechanics; this returns the physical index of `lbn` within its zone.
    pub fn zone_physical(&self, lbn: u64) -> Option<(usize, u64)> {
        if lbn >= self.capacity {
            return None;
        }
        let zi = self.zone_of_lbn(lbn);
        let z = &self.zones[zi];
        Some((zi, z.remapped(z.physical_of_rank(lbn - z.first_lbn))))
    }

    /// Sectors per track at a cylinder (the zone's), or `None` outside every zone.
    pub fn spt_at_cyl(&self, cyl: u32) -> Option<u32> {
        self.zone_of_cyl(cyl).map(|z| self.zones[z].spec.spt)
    }

    /// All LBNs of the disk's zones, summarised: (first cyl, last cyl, spt, first LBN,
    /// capacity) per zone.
    pub fn zone_summary(&self) -> Vec<(u32, u32, u32, u64, u64)> {
        self.zones
            .iter()
            .map(|z| {
                (
                    z.spec.first_cyl,
                    z.spec.last_cyl,
                    z.spec.spt,
                    z.first_lbn,
                    z.capacity,
                )
            })
            .collect()
    }

    /// Tracks in zone (including ones holding no LBN).
    pub fn zone_tracks(&self, zone: usize) -> u64 {
        self.zones[zone].tracks
    }

    pub fn zone_sectors_per_cyl(&self, zone: usize) -> u64 {
        self.zones[zone].per_cyl
    }
}

impl Zone {
    #[inline]
    fn holds(&self, lbn: u64) -> bool {
        self.first_lbn <= lbn && lbn - self.first_lbn < self.capacity
    }

    /// Zone-relative physical index of the `rank`-th LBN of the zone.
    #[inline]
    fn physical_of_rank(&self, rank: u64) -> u64 {
        rank + self.by_rank.find(&self.holes, rank).1
    }

    /// Rank of a physical index, or `None` if it is a hole.
    fn rank_of_physical(&self, p: u64) -> Option<u64> {
        let i = self
            .by_physical
            .partition_point(&self.holes, p, |h| h.start <= p);
        match i.checked_sub(1) {
            None => Some(p),
            Some(j) => {
                let h = self.holes[j];
                if p < h.end {
                    None
                } else {
                    Some(p - h.before - (h.end - h.start))
                }
            }
        }
    }

    /// Number of LBNs at physical indices below `p`.
    #[inline]
    fn rank_at_or_after(&self, p: u64) -> u64 {
        let i = self
            .by_physical
            .partition_point(&self.holes, p, |h| h.start < p);
        let mut holes_below = 0;
        if let Some(j) = i.checked_sub(1) {
            let h = self.holes[j];
            holes_below = h.before + (h.end.min(p) - h.start);
        }
        (p - holes_below).min(self.capacity)
    }

    fn remapped(&self, p: u64) -> u64 {
        if self.remap_to.is_empty() {
            return p;
        }
        match self.remap_to.binary_search_by_key(&p, |&(b, _)| b) {
            Ok(i) => self.remap_to[i].1,
            Err(_) => p,
        }
    }

    /// The physical index whose LBN lives at `p`: undoes a remap; `None` for a bad
    /// sector that was remapped away.
    fn unremapped(&self, p: u64) -> Option<u64> {
        if self.remap_to.is_empty() {
            return Some(p);
        }
        if let Ok(i) = self.remap_from.binary_search_by_key(&p, |&(r, _)| r) {
            return Some(self.remap_from[i].1);
        }
        if self.remap_to.binary_search_by_key(&p, |&(b, _)| b).is_ok() {
            return None;
        }
        Some(p)
    }
}

fn build_zone(
    i: usize,
    z: &ZoneSpec,
    spec: &GeometrySpec,
    first_lbn: u64,
) -> Result<Zone, GeometryError> {
    let err = |msg: String| GeometryError::Zone { zone: i, msg };
    if z.last_cyl < z.first_cyl {
        return Err(err(format!(
            "last cylinder {} is before first cylinder {}",
            z.last_cyl, z.first_cyl
        )));
    }
    if z.spt == 0 {
        return Err(err("blocks per track must be at least 1".into()));
    }
    let s = spec.surfaces as u64;
    let spt = z.spt as u64;
    let n = (z.last_cyl - z.first_cyl + 1) as u64;
    let per_cyl = spt * s;
    let total = n * per_cyl;
    if let TrackOrder::SurfaceBands { band } = spec.order {
        if band == 0 || !n.is_multiple_of(band as u64) {
            return Err(err(format!(
                "a surface-serpentine zone must span a whole number of {band}-cylinder bands, it spans {n} cylinders"
            )));
        }
    }

    // Sector-unit slips and remaps (scheme 1 counts in tracks).
    let track_units = spec.sparing == Sparing::TracksAtZoneEnd;
    let mut slip_runs: Vec<(u64, u64)> = z
        .slips
        .iter()
        .map(|&s| {
            if track_units {
                (s * spt, (s + 1) * spt)
            } else {
                (s, s + 1)
            }
        })
        .collect();
    slip_runs.sort_unstable();
    slip_runs.dedup();
    for &(a, _) in &slip_runs {
        if a >= total {
            return Err(err(format!(
                "slip at physical index {a} lies outside the zone ({total} sectors)"
            )));
        }
    }

    let mut runs: Vec<(u64, u64)> = Vec::new();
    runs.extend(slip_runs.iter().copied());

    // Spare areas. A sparing unit [a, b) holds `(b − a) − spares` LBN-able positions
    // (one fewer per slip in the slip-to-end schemes): DiskSim's capacity formula never
    // lets a slip change that count. The LBN-able positions are the first that many
    // non-slipped ones from the unit start; everything after them is spare. So a slip
    // uses up a spare only when it lies before the unit's last LBN; a slip that falls
    // in the spare area itself costs nothing (hp_c2247a: zone 0's slipped track 7095
    // sits among the spare tracks, and counting it against the spares gave the zone one
    // track too many, shifting every later LBN by 96 sectors).
    let slips_from = |a: u64| slip_runs.partition_point(|&(s, _)| s < a);
    let slips_in = |a: u64, b: u64| -> u64 {
        slip_runs[slips_from(a)..]
            .iter()
            .take_while(|&&(s, _)| s < b)
            .map(|&(s, e)| e - s)
            .sum()
    };
    // The physical index of the `k`-th (0-based) non-slipped position of [a, b), or `b`
    // if there are not that many.
    let nth_free = |a: u64, b: u64, k: u64| -> u64 {
        let mut pos = a.saturating_add(k);
        for &(s, e) in slip_runs[slips_from(a)..]
            .iter()
            .take_while(|&&(s, _)| s < b)
        {
            if s > pos {
                break;
            }
            pos += e - s;
        }
        pos.min(b)
    };
    let push_unit_spares =
        |runs: &mut Vec<(u64, u64)>, a: u64, b: u64, spares: u64, absorb: bool| {
            let slipped = if absorb { 0 } else { slips_in(a, b) };
            let lbns = (b - a).saturating_sub(spares).saturating_sub(slipped);
            let spare_from = nth_free(a, b, lbns);
            if spare_from < b {
                runs.push((spare_from, b));
            }
        };
    match spec.sparing {
        Sparing::None => {}
        Sparing::SlipsOnly => {
            if z.spares != 0 {
                return Err(err(
                    "sparing scheme 7 with a non-zero spare count is not modelled (DiskSim's own mapping is inconsistent there)".into(),
                ));
            }
        }
        Sparing::TracksAtZoneEnd => {
            push_unit_spares(&mut runs, 0, total, z.spares * spt, true);
        }
        Sparing::PerCylinder | Sparing::PerCylinderSlipToEnd => {
            let absorb = spec.sparing == Sparing::PerCylinder;
            for c in 0..n {
                push_unit_spares(&mut runs, c * per_cyl, (c + 1) * per_cyl, z.spares, absorb);
            }
        }
        Sparing::PerTrack => {
            for t in 0..n * s {
                push_unit_spares(&mut runs, t * spt, (t + 1) * spt, z.spares, true);
            }
        }
        Sparing::PerRange { range } => {
            let r = range.max(1) as u64;
            for g in 0..n / r {
                push_unit_spares(
                    &mut runs,
                    g * r * per_cyl,
                    (g + 1) * r * per_cyl,
                    z.spares,
                    true,
                );
            }
        }
        Sparing::ZoneEnd => push_unit_spares(&mut runs, 0, total, z.spares, true),
        Sparing::ZoneEndSlipToEnd => push_unit_spares(&mut runs, 0, total, z.spares, false),
    }

    // The empty space at the zone front is counted in LBN-able sectors (DiskSim adds it
    // to the zone-relative index before spares are skipped): the first `empty_front`
    // sectors that would hold LBNs hold none.
    if z.empty_front > 0 {
        let without = merge_runs(runs.clone());
        let front = physical_of_rank_in(&without, z.empty_front).min(total);
        runs.push((0, front));
    }
    let holes = merge_runs(runs);
    let hole_total: u64 = holes
        .last()
        .map(|h| h.before + (h.end - h.start))
        .unwrap_or(0);
    let capacity = total.saturating_sub(hole_total);

    let mut remap_to = Vec::new();
    for &(bad, repl) in &z.remaps {
        if bad == repl {
            continue; // DiskSim ignores self-remaps
        }
        let pairs: Vec<(u64, u64)> = if track_units {
            (0..spt).map(|k| (bad * spt + k, repl * spt + k)).collect()
        } else {
            vec![(bad, repl)]
        };
        for (b, r) in pairs {
            if b >= total || r >= total {
                return Err(err(format!("remap {b} → {r} lies outside the zone")));
            }
            remap_to.push((b, r));
        }
    }
    remap_to.sort_unstable();
    remap_to.dedup_by_key(|&mut (b, _)| b);
    let mut remap_from: Vec<(u64, u64)> = remap_to.iter().map(|&(b, r)| (r, b)).collect();
    remap_from.sort_unstable();

    let rank_keys: Vec<u64> = holes.iter().map(|h| h.start - h.before).collect();
    let physical_keys: Vec<u64> = holes.iter().map(|h| h.start).collect();
    Ok(Zone {
        spec: z.clone(),
        first_lbn,
        capacity,
        per_cyl,
        tracks: n * s,
        by_rank: RankIndex::new(&holes, &rank_keys),
        by_physical: SearchIndex::new(&physical_keys, 8),
        holes,
        remap_to,
        remap_from,
    })
}

/// Bucketed start points for searches in a sorted list: `first[b]` counts the keys
/// below `b << shift`. A search for `q` starts there and steps over the few keys of
/// `q`'s bucket, in place of a binary search's chain of dependent loads; the answer is
/// exactly `partition_point`'s.
#[derive(Clone, Debug)]
struct SearchIndex {
    shift: u32,
    first: Vec<u32>,
}

impl SearchIndex {
    /// For ascending `keys`, with about `per_key` buckets per key (at most 2^16).
    fn new(keys: &[u64], per_key: usize) -> SearchIndex {
        let top = keys.last().copied().unwrap_or(0);
        let want = (per_key * keys.len()).clamp(1, 1 << 16) as u64;
        let mut shift = 0;
        while shift < 63 && (top >> shift) >= want {
            shift += 1;
        }
        let mut first = Vec::with_capacity((top >> shift) as usize + 1);
        let mut i = 0;
        for b in 0..=(top >> shift) {
            while i < keys.len() && keys[i] < b << shift {
                i += 1;
            }
            first.push(i as u32);
        }
        SearchIndex { shift, first }
    }

    /// `items.partition_point(pred)` where `pred(x)` is `key(x) < q` or `key(x) <= q`
    /// (the keys the index was built from): every item before the bucket's start has a
    /// key below the bucket's lowest query, so it satisfies `pred` too.
    #[inline]
    fn partition_point<T>(&self, items: &[T], q: u64, pred: impl Fn(&T) -> bool) -> usize {
        let b = ((q >> self.shift) as usize).min(self.first.len() - 1);
        let mut i = self.first[b] as usize;
        while i < items.len() && pred(&items[i]) {
            i += 1;
        }
        i
    }
}

/// The hole search by rank, with the answer's neighbourhood kept in the buckets: for the
/// holes before bucket `b`'s lowest rank, their count `first`, their total size
/// `before` (the physical offset of LBNs after them) and where the next hole starts. A
/// lookup whose rank lies before that next hole (most of them) is answered from the
/// bucket alone; the others step over the holes as [`SearchIndex`] does.
#[derive(Clone, Debug)]
struct RankIndex {
    shift: u32,
    buckets: Vec<RankBucket>,
}

#[derive(Clone, Copy, Debug)]
struct RankBucket {
    first: u32,
    before: u64,
    next_start: u64,
}

impl RankIndex {
    fn new(holes: &[Hole], rank_keys: &[u64]) -> RankIndex {
        let idx = SearchIndex::new(rank_keys, 2);
        let buckets = idx
            .first
            .iter()
            .map(|&first| RankBucket {
                first,
                before: before_hole(holes, first as usize),
                next_start: holes.get(first as usize).map_or(u64::MAX, |h| h.start),
            })
            .collect();
        RankIndex {
            shift: idx.shift,
            buckets,
        }
    }

    /// For the `rank`-th LBN: the number of holes before it (`partition_point` of
    /// [`physical_of_rank_in`]), their total size, and where the next hole starts
    /// (`u64::MAX` if none).
    #[inline]
    fn find(&self, holes: &[Hole], rank: u64) -> (usize, u64, u64) {
        let b = ((rank >> self.shift) as usize).min(self.buckets.len() - 1);
        let e = self.buckets[b];
        // Hole `first` lies after the LBN iff its rank key `start − before` exceeds it.
        if e.next_start - e.before > rank {
            return (e.first as usize, e.before, e.next_start);
        }
        let mut j = e.first as usize + 1;
        while j < holes.len() && holes[j].start - holes[j].before <= rank {
            j += 1;
        }
        let next = holes.get(j).map_or(u64::MAX, |h| h.start);
        (j, before_hole(holes, j), next)
    }
}

/// Total size of the holes before hole `j` (all of them if `j` is past the end).
fn before_hole(holes: &[Hole], j: usize) -> u64 {
    match holes.get(j) {
        Some(h) => h.before,
        None => holes.last().map_or(0, |h| h.before + (h.end - h.start)),
    }
}

/// Physical index of the `rank`-th non-hole position.
fn physical_of_rank_in(holes: &[Hole], rank: u64) -> u64 {
    let i = holes.partition_point(|h| h.start - h.before <= rank);
    match i.checked_sub(1) {
        None => rank,
        Some(j) => rank + holes[j].before + (holes[j].end - holes[j].start),
    }
}

/// Sorts and merges overlapping or touching runs, and records the hole count before each.
fn merge_runs(mut runs: Vec<(u64, u64)>) -> Vec<Hole> {
    runs.retain(|&(a, b)| b > a);
    runs.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(runs.len());
    for (a, b) in runs {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    let mut before = 0;
    merged
        .into_iter()
        .map(|(start, end)| {
            let h = Hole { start, end, before };
            before += end - start;
            h
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn zone(first: u32, last: u32, spt: u32) -> ZoneSpec {
        ZoneSpec {
            first_cyl: first,
            last_cyl: last,
            spt,
            offset_sectors: 0,
            empty_front: 0,
            track_skew: 0,
            cyl_skew: 0,
            spares: 0,
            slips: vec![],
            remaps: vec![],
        }
    }

    #[test]
    fn overlapping_or_empty_zones_are_refused() {
        let geometry = |zones: Vec<ZoneSpec>| {
            Geometry::new(&GeometrySpec {
                surfaces: 2,
                order: TrackOrder::Conventional,
                sparing: Sparing::None,
                zones,
            })
            .map(|g| g.capacity())
            .map_err(|e| e.to_string())
        };
        assert_eq!(geometry(vec![zone(0, 9, 10), zone(10, 19, 8)]), Ok(360));
        for zones in [
            vec![zone(0, 9, 10), zone(0, 9, 10)],
            vec![zone(0, 9, 10), zone(5, 19, 8)],
            vec![zone(10, 19, 10), zone(0, 9, 8)],
        ] {
            let e = geometry(zones).unwrap_err();
            assert!(
                e.contains("zone 1") && e.contains("follow one another"),
                "{e}"
            );
        }
        let mut all_spares = zone(0, 9, 10);
        all_spares.empty_front = 1_000;
        let e = geometry(vec![all_spares]).unwrap_err();
        assert!(
            e.contains("zone 0") && e.contains("holds no sectors"),
            "{e}"
        );
    }

    #[test]
    fn conventional_layout_fills_tracks_then_surfaces() {
        let g = Geometry::new(&GeometrySpec {
            surfaces: 2,
            order: TrackOrder::Conventional,
            sparing: Sparing::None,
            zones: vec![zone(0, 9, 10)],
        })
        .unwrap();
        assert_eq!(g.capacity(), 200);
        assert_eq!(
            g.locate(15).unwrap().pbn,
            Pbn {
                cyl: 0,
                head: 1,
                sector: 5
            }
        );
        assert_eq!(
            g.locate(25).unwrap().pbn,
            Pbn {
                cyl: 1,
                head: 0,
                sector: 5
            }
        );
        assert_eq!(g.track_bounds(25), Some((20, 29)));
    }

    #[test]
    fn serpentine_scheme1_reverses_odd_zone_cylinders() {
        let g = Geometry::new(&GeometrySpec {
            surfaces: 3,
            order: TrackOrder::SerpentineZoneRelative,
            sparing: Sparing::None,
            zones: vec![zone(0, 3, 10)],
        })
        .unwrap();
        // Cylinder 1 holds LBNs 30..60 starting on the last surface.
        assert_eq!(
            g.locate(30).unwrap().pbn,
            Pbn {
                cyl: 1,
                head: 2,
                sector: 0
            }
        );
        assert_eq!(
            g.locate(40).unwrap().pbn,
            Pbn {
                cyl: 1,
                head: 1,
                sector: 0
            }
        );
    }

    #[test]
    fn surface_bands_cover_band_cylinders_per_surface() {
        let g = Geometry::new(&GeometrySpec {
            surfaces: 2,
            order: TrackOrder::SurfaceBands { band: 4 },
            sparing: Sparing::None,
            zones: vec![zone(0, 7, 10)],
        })
        .unwrap();
        assert_eq!(
            g.locate(35).unwrap().pbn,
            Pbn {
                cyl: 3,
                head: 0,
                sector: 5
            }
        );
        assert_eq!(
            g.locate(40).unwrap().pbn,
            Pbn {
                cyl: 0,
                head: 1,
                sector: 0
            }
        );
        assert_eq!(
            g.locate(80).unwrap().pbn,
            Pbn {
                cyl: 4,
                head: 0,
                sector: 0
            }
        );
    }

    #[test]
    fn zone_end_slips_shift_following_lbns() {
        // The atlas10k case from the DiskSim reference: a slip at index k makes LBN k
        // map one sector later.
        let mut z = zone(0, 9, 10);
        z.spares = 5;
        z.slips = vec![17];
        let g = Geometry::new(&GeometrySpec {
            surfaces: 1,
            order: TrackOrder::Conventional,
            sparing: Sparing::ZoneEnd,
            zones: vec![z],
        })
        .unwrap();
        assert_eq!(g.capacity(), 95);
        assert_eq!(g.locate(16).unwrap().pbn.sector, 6);
        assert_eq!(g.locate(17).unwrap().pbn.sector, 8);
        assert_eq!(
            g.lbn_of(Pbn {
                cyl: 1,
                head: 0,
                sector: 7
            }),
            None
        );
        assert_eq!(g.track_bounds(17), Some((10, 18)));
    }

    #[test]
    fn a_slip_among_the_spares_costs_no_capacity() {
        // DiskSim: capacity = n·B − D − spares (scheme 9) or − spares·spt (scheme 1),
        // whatever the slips; a slip uses up a spare only if it lies before the zone's
        // last LBN. 100 sectors, 5 spares: LBNs fill the first 95 non-slipped sectors.
        let mut z = zone(0, 9, 10);
        z.spares = 5;
        z.slips = vec![17, 97];
        let g = Geometry::new(&GeometrySpec {
            surfaces: 1,
            order: TrackOrder::Conventional,
            sparing: Sparing::ZoneEnd,
            zones: vec![z.clone(), zone(10, 10, 10)],
        })
        .unwrap();
        assert_eq!(g.capacity(), 95 + 10);
        assert_eq!(
            g.locate(94).unwrap().pbn,
            Pbn {
                cyl: 9,
                head: 0,
                sector: 5
            }
        );
        assert_eq!(g.locate(95).unwrap().pbn.cyl, 10);
        // Scheme 1 counts slips and spares in whole tracks (hp_c2247a zone 0 has slipped
        // track 7095 among its spare tracks).
        z.spares = 3;
        z.slips = vec![1, 9];
        z.empty_front = 10;
        let g = Geometry::new(&GeometrySpec {
            surfaces: 1,
            order: TrackOrder::Conventional,
            sparing: Sparing::TracksAtZoneEnd,
            zones: vec![z],
        })
        .unwrap();
        assert_eq!(g.capacity(), 100 - 10 - 3 * 10);
        assert_eq!(
            g.locate(0).unwrap().pbn,
            Pbn {
                cyl: 2,
                head: 0,
                sector: 0
            }
        );
        assert_eq!(
            g.locate(59).unwrap().pbn,
            Pbn {
                cyl: 7,
                head: 0,
                sector: 9
            }
        );
    }

    #[test]
    fn skews_accumulate_per_switch() {
        let mut z = zone(0, 9, 100);
        z.track_skew = 10;
        z.cyl_skew = 25;
        let g = Geometry::new(&GeometrySpec {
            surfaces: 2,
            order: TrackOrder::Conventional,
            sparing: Sparing::None,
            zones: vec![z],
        })
        .unwrap();
        assert_eq!(g.locate(100).unwrap().angle_sectors, 10); // one track switch
        assert_eq!(g.locate(200).unwrap().angle_sectors, 35); // + one cylinder switch
        assert_eq!(g.locate(300).unwrap().angle_sectors, 45);
    }

    fn sparing_strategy() -> impl Strategy<Value = Sparing> {
        prop_oneof![
            Just(Sparing::None),
            Just(Sparing::TracksAtZoneEnd),
            Just(Sparing::PerCylinder),
            Just(Sparing::PerTrack),
            Just(Sparing::PerCylinderSlipToEnd),
            Just(Sparing::SlipsOnly),
            (1u32..4).prop_map(|range| Sparing::PerRange { range }),
            Just(Sparing::ZoneEnd),
            Just(Sparing::ZoneEndSlipToEnd),
        ]
    }

    fn order_strategy() -> impl Strategy<Value = TrackOrder> {
        prop_oneof![
            Just(TrackOrder::Conventional),
            Just(TrackOrder::SerpentineZoneRelative),
            Just(TrackOrder::SerpentineAbsolute),
            Just(TrackOrder::SurfaceBands { band: 2 }),
        ]
    }

    #[test]
    fn search_index_matches_partition_point() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for n in [0usize, 1, 2, 5, 40, 300] {
            for spread in [1u64, 10, 1_000, 3_000_000] {
                let mut keys: Vec<u64> = (0..n).map(|_| rng.gen_range(0..spread * 4)).collect();
                keys.sort_unstable();
                let idx = SearchIndex::new(&keys, 2);
                for _ in 0..500 {
                    let q = rng.gen_range(0..spread * 5 + 2);
                    let lt = idx.partition_point(&keys, q, |&k| k < q);
                    let le = idx.partition_point(&keys, q, |&k| k <= q);
                    assert_eq!(lt, keys.partition_point(|&k| k < q));
                    assert_eq!(le, keys.partition_point(|&k| k <= q));
                }
            }
        }
    }

    #[test]
    fn rank_index_matches_a_hole_walk() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for n in [0usize, 1, 3, 50, 400] {
            let mut runs: Vec<(u64, u64)> = (0..n)
                .map(|_| {
                    let a = rng.gen_range(0..1_000_000u64);
                    (a, a + rng.gen_range(1..300))
                })
                .collect();
            // A cluster, as slipped defects come.
            runs.extend((0..n as u64).map(|k| (500_000 + 3 * k, 500_001 + 3 * k)));
            let holes = merge_runs(runs);
            let keys: Vec<u64> = holes.iter().map(|h| h.start - h.before).collect();
            let idx = RankIndex::new(&holes, &keys);
            for _ in 0..3_000 {
                let rank = rng.gen_range(0..1_100_000u64);
                let j = holes.partition_point(|h| h.start - h.before <= rank);
                let (fj, before, next) = idx.find(&holes, rank);
                assert_eq!(fj, j);
                assert_eq!(rank + before, physical_of_rank_in(&holes, rank));
                assert_eq!(next, holes.get(j).map_or(u64::MAX, |h| h.start));
            }
        }
    }

    /// The geometry, or `None` where a zone was refused for holding no sectors.
    fn with_sectors(g: Result<Geometry, GeometryError>) -> Option<Geometry> {
        match g {
            Err(GeometryError::Zone { msg, .. }) if msg.contains("holds no sectors") => None,
            g => Some(g.unwrap()),
        }
    }

    proptest! {
        /// LBN → physical → LBN is the identity for every mapping scheme, sparing scheme,
        /// slip set and remap set, and distinct LBNs get distinct sectors.
        #[test]
        fn round_trip(order in order_strategy(), sparing in sparing_strategy(),
                      surfaces in 1u32..4, spt in 4u32..20, zones in 1usize..3,
                      slips in proptest::collection::vec(0u64..60, 0..6),
                      remap in proptest::option::of((0u64..60, 0u64..60)),
                      front in 0u64..10, spares in 0u64..4) {
            let mut specs = Vec::new();
            let mut cyl = 0;
            for _ in 0..zones {
                let mut z = zone(cyl, cyl + 3, spt);
                let slip_units = if sparing == Sparing::TracksAtZoneEnd { 4 * surfaces as u64 } else { 4 * surfaces as u64 * spt as u64 };
                z.slips = slips.iter().map(|s| s % slip_units).collect();
                z.slips.sort_unstable();
                z.spares = if sparing == Sparing::SlipsOnly { 0 } else { spares };
                z.empty_front = front;
                specs.push(z);
                cyl += 4;
            }
            // A remap sends a good LBN's bad sector to a spare: only targets that hold
            // no LBN (holes) are valid replacements.
            if let Some((b, r)) = remap {
                let Some(plain) = with_sectors(Geometry::new(&GeometrySpec { surfaces, order, sparing, zones: specs.clone() })) else {
                    return Ok(());
                };
                let units = if sparing == Sparing::TracksAtZoneEnd { spt as u64 } else { 1 };
                let z0 = &plain.zones[0];
                let total = z0.tracks * spt as u64 / units;
                let (b, r) = (b % total, r % total);
                let bad_holds_lbn = z0.rank_of_physical(b * units).is_some();
                let target_free = (0..units).all(|k| z0.rank_of_physical(r * units + k).is_none());
                if bad_holds_lbn && target_free && b != r {
                    specs[0].remaps = vec![(b, r)];
                }
            }
            // A zone its spares and empty front leave without sectors is refused.
            let Some(g) = with_sectors(Geometry::new(&GeometrySpec { surfaces, order, sparing, zones: specs })) else {
                return Ok(());
            };
            let mut seen = std::collections::HashSet::new();
            for lbn in 0..g.capacity() {
                let loc = g.locate(lbn).unwrap();
                prop_assert!(seen.insert(loc.pbn), "two LBNs share {:?}", loc.pbn);
                prop_assert_eq!(g.lbn_of(loc.pbn), Some(lbn));
                let (a, b) = g.track_bounds(lbn).unwrap();
                prop_assert!(a <= lbn && lbn <= b);
                for max in [1u64, 3, 1000] {
                    let tr = g.track_run(lbn, max).unwrap();
                    let run = max.min(b - lbn + 1);
                    let last = g.locate(lbn + run - 1).unwrap();
                    let span = ((last.pbn.sector as u64).saturating_sub(loc.pbn.sector as u64) + 1).max(run);
                    prop_assert_eq!((tr.loc, tr.run, tr.span, tr.track_last), (loc, run, span, b));
                }
            }
            prop_assert!(g.locate(g.capacity()).is_none());
        }
    }
}
