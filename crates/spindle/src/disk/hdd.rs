//! The drive mechanism with its controller and segmented cache.
//!
//! [`Hdd::service`] takes one request at the moment the drive starts working on it and
//! returns when it completes, with a breakdown of where the time went. Background work
//! — read-ahead after a read, write-back of buffered writes — is kept as lazy state: a
//! prefetch is a cursor that is advanced only as far as a later request needs to know
//! (which blocks are cached by then, where the head is, when the actuator is free), so a
//! request costs O(tracks touched), not O(sectors passed while idle).
//!
//! The controller follows DiskSim 4.0's disk module as described in
//! `reference/disksim-format.md` §7: command overheads chosen by the previous request's
//! type, a disconnect/reconnect bus protocol with watermarks, positioning that starts
//! after the command overhead (plus the end of a pre-empted prefetch), zero-latency
//! access, segment selection by score and LRU. Where we simplify, the code says so.
//!
//! Rotation is a pure function of absolute simulated time: angle(t) = t mod period
//! (period kept in picoseconds so long runs do not drift).

use super::buffer_residual::BufferClass;
use super::bus::{BusUse, Reconnect};
use super::geometry::{Geometry, GeometryError, Location, TrackMemo};
use super::params::{DiskParams, ReadAhead};
use super::residual::PositioningClass;
use super::rotation::SpeedDrift;
use crate::time::{ms_to_ns, ms_to_ns_signed, SimTime};
use rand::{Rng, SeedableRng};
use serde::Serialize;
use std::sync::Arc;

/// Largest request a workload may give, sectors (2 GiB). The drive model keeps a time
/// per sector of the request in flight (when the media delivers it to the bus); this
/// bounds that memory (32 MiB), far above any real block request (Linux: a few MiB).
pub const MAX_REQUEST_SECTORS: u32 = 1 << 22;

/// A request as the drive sees it: LBNs are 512-byte sectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Request {
    pub id: u64,
    pub lbn: u64,
    pub blocks: u32,
    pub write: bool,
}

/// Where a request's time went (ns). `overhead` is everything that is not seek,
/// rotation or media transfer: command processing, bus transfer not overlapped with the
/// media, waiting for background work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Breakdown {
    pub overhead_ns: u64,
    pub seek_ns: u64,
    pub rotation_ns: u64,
    pub transfer_ns: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Completion {
    pub id: u64,
    /// When the drive started on the request.
    pub start: SimTime,
    /// When the drive signalled completion.
    pub done: SimTime,
    pub breakdown: Breakdown,
    /// True when no media access was needed (read hit or buffered write).
    pub cache_hit: bool,
}

impl Completion {
    pub fn service_ns(&self) -> u64 {
        self.done.0 - self.start.0
    }
}

/// A drive as a host sees it when sending one request now ([`Hdd::host_view`]): what a
/// host-level scheduler or replica choice predicts from, command overhead included.
/// What does not depend on the request is worked out once, when the view is made.
pub struct HostView<'a> {
    /// The drive with its background work stopped (itself when there is none).
    drive: std::borrow::Cow<'a, Hdd>,
    now: SimTime,
    /// What a read would find in the buffer whole: the readable segments' LBN ranges
    /// (none while a read-ahead runs, whose stopping decides what it holds).
    buffered: Vec<(u64, u64)>,
    /// When a read's, a write's positioning may start (after its command overhead and
    /// the background it stops).
    read_start: SimTime,
    write_start: SimTime,
    /// A write's start when it takes the extra disconnect (HP), the one LBN that would
    /// append to the most recently written segment and so not take it, and when such a
    /// write's data starts crossing the bus.
    extra: Option<(SimTime, u64, SimTime)>,
    /// When a write's data starts crossing the bus (without the extra disconnect), and
    /// how long a block takes.
    write_bus: SimTime,
    bus_ns: u64,
    /// HP's rule: the media write waits for the first min(n, 10) blocks (15 from 45) of
    /// its data, not only the first: always after the extra disconnect, and on a
    /// write-through drive that has one for every write.
    gated: bool,
    /// Short write seeks are padded to this (HP's minimum seek delay), ns.
    min_seek: u64,
}

impl HostView<'_> {
    /// The time (ns after the view's `now`) until the media reaches the first sector
    /// of `lbn` for a request sent then: the command's overhead (a read miss's, a
    /// write's), the background stopped as the request's path stops it, the seek (a
    /// write's with its settle) and the rotation. A read the buffer holds whole takes 0.
    /// For a write this is the media work it causes, whether the drive reports it done
    /// at once (write-back) or after (write-through). While a read-ahead runs, a read is
    /// predicted as if the read-ahead stopped first, even one the buffer already holds
    /// (which the drive serves from there): too long for those.
    pub fn delay(&self, lbn: u64, blocks: u32, write: bool) -> u64 {
        if !write && self.buffered.iter().any(|&(a, b)| a <= lbn && lbn < b) {
            return 0;
        }
        let me = &*self.drive;
        let Some(loc) = me.geo.locate(lbn) else {
            return u64::MAX;
        };
        let to = HeadPos {
            cyl: loc.pbn.cyl,
            head: loc.pbn.head,
        };
        let read_seek = me.positioning_ns(me.idle.pos, to, false);
        let seek = if write {
            me.positioning_ns(me.idle.pos, to, true)
        } else {
            read_seek
        };
        // A short seek of a write is padded to the minimum seek delay, as the write path
        // pads it: by starting that much later.
        let mut pad = 0;
        let (start, data) = if !write {
            (self.read_start, SimTime::ZERO)
        } else {
            // A write's media work starts once the blocks it waits for are in the
            // buffer: the first, or HP's first min(n, 10) (15 from 45 blocks).
            let n = u64::from(blocks.max(1));
            let gate = if n < 45 { n.min(10) } else { 15 };
            pad = self.min_seek.saturating_sub(seek);
            match self.extra {
                Some((at, appends, bus)) if appends != lbn => (at, bus + gate * self.bus_ns),
                _ => {
                    let wait = if self.gated { gate } else { 1 };
                    (self.write_start, self.write_bus + wait * self.bus_ns)
                }
            }
        };
        let ready = Hdd::after_turnaround(start + pad, read_seek, seek, me.next_media_at).max(data);
        let rot = me.wait_ns(ready, me.sector_angle_ps(loc.angle_sectors as u64, loc.spt));
        ready.0 - self.now.0 + rot
    }
}

/// Where the actuator is: cylinder and head.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeadPos {
    pub cyl: u32,
    pub head: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct Segment {
    start: u64,
    end: u64,
    /// Holds data not yet on the media.
    dirty: bool,
    /// The last access that filled it was a write.
    written: bool,
    /// LRU stamp: larger = more recently used.
    used: u64,
    /// Reserved for writes (`Use separate write segment`).
    write_only: bool,
}

impl Segment {
    fn contains(&self, lbn: u64) -> bool {
        self.start <= lbn && lbn < self.end
    }
    fn overlaps(&self, a: u64, b: u64) -> bool {
        (self.start < b) & (a < self.end)
    }
    fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// The first segment with the smallest LRU stamp among those offered (ties go to the
/// first, as with `min_by_key`). Offers are selects, not branches: which segment wins
/// is data-dependent.
#[derive(Clone, Copy)]
struct LruPick {
    found: bool,
    used: u64,
    i: usize,
}

impl LruPick {
    const NONE: LruPick = LruPick {
        found: false,
        used: 0,
        i: 0,
    };

    /// Offers segment `i` if `ok`.
    #[inline]
    fn offer(&mut self, ok: bool, i: usize, used: u64) {
        let take = ok & (!self.found | (used < self.used));
        self.used = if take { used } else { self.used };
        self.i = if take { i } else { self.i };
        self.found |= take;
    }

    fn or(self, other: LruPick) -> LruPick {
        if self.found {
            self
        } else {
            other
        }
    }

    fn index(self) -> Option<usize> {
        self.found.then_some(self.i)
    }
}

/// The media position after a run: the head is at `pos`, done at `t`, and the next
/// sequential LBN is `lbn`.
#[derive(Clone, Copy, Debug)]
struct Cursor {
    lbn: u64,
    t: SimTime,
    pos: HeadPos,
}

#[derive(Clone, Copy, Debug)]
enum Background {
    Idle,
    /// Reading ahead into segment `seg` up to (not including) `target`.
    Prefetch {
        seg: usize,
        cursor: Cursor,
        target: u64,
        stop_at_track_end: bool,
        stop_at_cyl_end: bool,
    },
    /// Buffered writes of segment `seg` reach the media until `cursor.t`.
    Flush {
        seg: usize,
        cursor: Cursor,
    },
}

/// How a media run goes about it.
#[derive(Clone, Copy, Debug)]
struct RunOpts {
    write: bool,
    /// Start mid-run at the next sector boundary instead of waiting for the first.
    zero_latency: bool,
    /// Count the sectors passing before the first one ("read any free blocks").
    capture_before: bool,
    /// The first sector may not start before this (command turnaround).
    not_before: SimTime,
}

/// What a media run did.
#[derive(Clone, Copy, Debug, Default)]
struct RunStats {
    seek_ns: u64,
    rotation_ns: u64,
    /// The part of `rotation_ns` spent on the run's first track: the wait the platter's
    /// phase decides (later tracks' waits follow from the skews).
    first_track_rotation_ns: u64,
    transfer_ns: u64,
    /// LBNs before the request captured by "read any free blocks" on the first track.
    captured_before: u64,
}

/// Precomputed timing constants in ns (ps for the rotation period).
#[derive(Clone, Debug)]
struct Timing {
    period_ps: u64,
    /// Angle of the spindle at time zero (ps of rotation); members of an array spin
    /// unsynchronized.
    phase_ps: u64,
    head_switch_ns: u64,
    settle_ns: i64,
    /// Seek time by cylinder distance.
    /// Shared by clones of the drive (it never changes), so a set of clones keeps one
    /// copy in cache.
    seek_ns: Arc<[u32]>,
    bus_read_ns: u64,
    bus_write_ns: u64,
    turnaround_ns: u64,
    /// Spindle-speed drift; `None` = constant speed (exact integer arithmetic).
    drift: Option<SpeedDrift>,
    /// `period_ps` as a divisor with a precomputed reciprocal.
    period: FastMod,
    /// Controller overheads, converted once.
    ovh: Overheads,
}

/// Controller overheads in ns, converted from the parameters once instead of on every
/// request (the same `ms_to_ns` of the same values). Pairs are indexed by whether the
/// previous request was a write, as [`AfterPrev::get`] picks.
///
/// [`AfterPrev::get`]: super::params::AfterPrev::get
#[derive(Clone, Debug)]
struct Overheads {
    read_hit: [u64; 2],
    read_miss: [u64; 2],
    /// `read_miss + read_disconnect`, summed in ms before rounding as before.
    read_miss_disconnect: [u64; 2],
    /// `Read disconnect afterread/afterwrite` alone: a disconnect in mid-transfer.
    read_disconnect: [u64; 2],
    write_hit: [u64; 2],
    write_miss: [u64; 2],
    data_prep: u64,
    first_reselect: u64,
    other_reselect: u64,
    read_complete: u64,
    write_complete: u64,
    write_disconnect: u64,
    min_seek: u64,
}

impl Overheads {
    fn new(c: &super::params::Controller) -> Overheads {
        let pair = |f: &dyn Fn(bool) -> f64| [ms_to_ns(f(false)), ms_to_ns(f(true))];
        Overheads {
            read_hit: pair(&|w| c.read_hit.get(w)),
            read_miss: pair(&|w| c.read_miss.get(w)),
            read_miss_disconnect: pair(&|w| c.read_miss.get(w) + c.read_disconnect.get(w)),
            read_disconnect: pair(&|w| c.read_disconnect.get(w)),
            write_hit: pair(&|w| c.write_hit.get(w)),
            write_miss: pair(&|w| c.write_miss.get(w)),
            data_prep: ms_to_ns(c.data_prep_ms),
            first_reselect: ms_to_ns(c.first_reselect_ms),
            other_reselect: ms_to_ns(c.other_reselect_ms),
            read_complete: ms_to_ns(c.read_complete_ms),
            write_complete: ms_to_ns(c.write_complete_ms),
            write_disconnect: ms_to_ns(c.write_disconnect_ms),
            min_seek: ms_to_ns(c.min_seek_ms),
        }
    }
}

/// A divisor with a precomputed reciprocal: `n % d` by one widening multiply and one
/// correction instead of a 64-bit division. Exact for every `n`: with
/// `m = ⌊(2^64 − 1)/d⌋` we have `2^64 − m·d ≤ d`, so `n/d − n·m/2^64 ≤ n/2^64 < 1`
/// and the estimate `⌊n·m / 2^64⌋` is `⌊n/d⌋` or one less.
#[derive(Clone, Copy, Debug)]
struct FastMod {
    d: u64,
    m: u64,
}

/// `v mod p` for a `v` that is almost always below `2p` (an angle plus less than a
/// turn): a subtraction instead of a division.
#[inline]
fn mod_period(v: u64, p: u64) -> u64 {
    // A select, not a branch: which side wins is as random as the angle.
    let w = if v >= p { v - p } else { v };
    if w < p {
        w
    } else {
        w % p
    }
}

/// Leading edges of consecutive sectors of a track, from sector `s` on: sector `s`
/// starts ⌊s·period/spt⌋ ps into the turn (`Hdd::sector_angle_ps`), stepped by the
/// quotient and remainder of period/spt, wrapping to 0 after sector spt − 1.
struct SectorEdges {
    spt: u64,
    s: u64,
    q: u64,
    r: u64,
    qd: u64,
    rd: u64,
}

impl SectorEdges {
    fn new(period_ps: u64, spt: u32, first: u64) -> SectorEdges {
        let spt = spt as u64;
        let s = first % spt;
        let n = s * period_ps;
        SectorEdges {
            spt,
            s,
            q: n / spt,
            r: n % spt,
            qd: period_ps / spt,
            rd: period_ps % spt,
        }
    }

    #[inline]
    fn angle_ps(&self) -> u64 {
        self.q
    }

    #[inline]
    fn advance(&mut self) {
        self.s += 1;
        if self.s == self.spt {
            (self.s, self.q, self.r) = (0, 0, 0);
        } else {
            self.q += self.qd;
            self.r += self.rd;
            if self.r >= self.spt {
                self.q += 1;
                self.r -= self.spt;
            }
        }
    }
}

impl FastMod {
    fn new(d: u64) -> FastMod {
        let d = d.max(1);
        FastMod { d, m: u64::MAX / d }
    }

    /// `n / d`.
    #[inline]
    fn div(self, n: u64) -> u64 {
        let q = ((n as u128 * self.m as u128) >> 64) as u64;
        let r = n - q * self.d;
        let q = if r >= self.d { q + 1 } else { q };
        debug_assert_eq!(q, n / self.d);
        q
    }

    #[inline]
    fn rem(self, n: u64) -> u64 {
        let q = ((n as u128 * self.m as u128) >> 64) as u64;
        let r = n - q * self.d;
        let r = if r >= self.d { r - self.d } else { r };
        debug_assert!(r < self.d);
        r
    }
}

/// The simulated drive mechanism, controller and cache.
#[derive(Clone, Debug)]
pub struct Hdd {
    params: DiskParams,
    /// Where the last request's media read moved from (cylinder, head) and to (LBN);
    /// `None`: it had none. Its class is worked out only when asked.
    read_move: Option<((u32, u32), u64)>,
    /// The last media read's rotational wait on its first track, ns.
    read_first_wait_ns: u64,
    /// Immutable once built; shared by clones like the seek table.
    geo: Arc<Geometry>,
    tm: Timing,
    segs: Vec<Segment>,
    bg: Background,
    /// Where the head is when the mechanism is idle, and since when.
    idle: Cursor,
    last_was_write: bool,
    /// The next command's media access cannot begin before this (firmware command
    /// turnaround after the previous command's media work).
    next_media_at: SimTime,
    lru_clock: u64,
    avail: Vec<SimTime>,
    ready: Vec<SimTime>,
    /// The track last looked up by the media and read-ahead paths (a pure cache).
    memo: TrackMemo,
    /// On a bus shared with other drives: report how each request used it.
    on_bus: bool,
    /// How the last request used the bus (with `on_bus`).
    bus_use: Option<BusUse>,
    /// Where reads found their data, DiskSim's way (when someone asked to know).
    tally: Option<BufferTally>,
    /// Where the last request ended (LBN), for the buffer residual's classes.
    prev_end: Option<u64>,
    /// Draws of the buffer residual ([`super::buffer_residual`]), seeded from it.
    buffer_rng: rand_chacha::ChaCha8Rng,
    /// The last request's buffer-residual class, if served from the buffer, and the
    /// correction drawn (ms).
    buffered: Option<(BufferClass, f64)>,
}

/// Reads by how the buffer served them, in DiskSim's categories
/// (`disk_buffer_stats`): whole hits, partial hits on a segment still being read
/// ahead into (DiskSim's "ongoing read-ahead hits"), partial hits on a segment at
/// rest (its "partial read hits"), and misses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferStats {
    pub reads: u64,
    pub full_read_hits: u64,
    pub read_ahead_hits: u64,
    pub partial_read_hits: u64,
}

impl BufferStats {
    /// DiskSim's "Buffer hit ratio" count for reads: whole, ongoing and partial hits.
    pub fn hits(&self) -> u64 {
        self.full_read_hits + self.read_ahead_hits + self.partial_read_hits
    }
}

/// A count of [`BufferStats`] several drives add to (a DiskSim run's totals).
pub type BufferTally = Arc<std::sync::Mutex<BufferStats>>;

#[derive(Debug, thiserror::Error)]
pub enum DiskError {
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    #[error("{0}")]
    Param(String),
}

/// Seek tables in use, by curve and cylinder count: identical drives share one (a
/// 1 TB drive's table is 1.4 MB, and an array may hold a thousand such drives).
static SEEK_TABLES: std::sync::OnceLock<std::sync::Mutex<SeekTables>> = std::sync::OnceLock::new();

type SeekTables = rustc_hash::FxHashMap<(String, usize), std::sync::Weak<[u32]>>;

/// The seek time of every distance from 0 to `cyls` cylinders, ns: shared with any
/// drive alive with the same curve and cylinder count.
fn seek_table(seek: &super::seek::SeekCurve, cyls: usize) -> Result<Arc<[u32]>, DiskError> {
    // Debug prints each f64 so that it reads back exactly: equal keys, equal curves.
    let key = (format!("{seek:?}"), cyls);
    let tables = SEEK_TABLES.get_or_init(Default::default);
    if let Some(t) = tables
        .lock()
        .ok()
        .and_then(|m| m.get(&key).and_then(std::sync::Weak::upgrade))
    {
        return Ok(t);
    }
    let mut seek_ns = Vec::with_capacity(cyls + 1);
    for d in 0..=cyls {
        let ms = seek.seek_ms(d as u32);
        // The table holds u32 ns: a time beyond it, negative or not a number is a
        // bad curve, not something to clamp.
        if !(ms.is_finite() && (0.0..=super::params::MAX_TIME_MS).contains(&ms)) {
            return Err(DiskError::Param(format!(
                "the seek curve gives {ms} ms for a {d}-cylinder seek; seek times must be within 0..={} ms",
                super::params::MAX_TIME_MS
            )));
        }
        seek_ns.push(ms_to_ns(ms) as u32);
    }
    let table: Arc<[u32]> = seek_ns.into();
    if let Ok(mut m) = tables.lock() {
        // Tables no drive uses any more go first.
        m.retain(|_, t| t.strong_count() > 0);
        m.insert(key, Arc::downgrade(&table));
    }
    Ok(table)
}

impl Hdd {
    pub fn new(params: DiskParams) -> Result<Hdd, DiskError> {
        // Every size is checked against its documented limit before anything is
        // allocated from it (`disk::params::MAX_*`).
        params.validate().map_err(DiskError::Param)?;
        let geo = Arc::new(Geometry::new(&params.geometry)?);
        let m = &params.mech;
        if !(m.rpm > 0.0 && m.rpm.is_finite()) {
            return Err(DiskError::Param(format!(
                "rotation speed must be positive, got {} rpm",
                m.rpm
            )));
        }
        if !(0.0..=10.0).contains(&m.rpm_variation_pct)
            || !m.rpm_variation_period_s.is_finite()
            || m.rpm_variation_period_s <= 0.0
        {
            return Err(DiskError::Param(format!(
                "spindle-speed variation must be 0–10 % with a positive, finite period, got {} % over {} s",
                m.rpm_variation_pct, m.rpm_variation_period_s
            )));
        }
        let c = &params.cache;
        if c.segments == 0 || c.segment_blocks == 0 {
            return Err(DiskError::Param(
                "the cache needs at least one segment of at least one block".into(),
            ));
        }
        let period_ps = (60e12 / m.rpm) as u64;
        let cyls = geo.cylinders() as usize;
        let seek_ns = seek_table(&m.seek, cyls)?;
        let tm = Timing {
            period_ps,
            phase_ps: 0,
            head_switch_ns: ms_to_ns(m.head_switch_ms),
            settle_ns: ms_to_ns_signed(m.write_settle_ms),
            seek_ns,
            bus_read_ns: ms_to_ns(params.ctrl.bus_read_block_ms),
            bus_write_ns: ms_to_ns(params.ctrl.bus_write_block_ms),
            turnaround_ns: ms_to_ns(params.firmware.turnaround_ms),
            drift: SpeedDrift::new(
                m.rpm_variation_pct,
                m.rpm_variation_period_s,
                m.rpm_variation_seed,
                period_ps,
            ),
            period: FastMod::new(period_ps),
            ovh: Overheads::new(&params.ctrl),
        };
        let mut segs = vec![Segment::default(); c.segments as usize];
        if c.separate_write_segment && segs.len() > 1 {
            segs[0].write_only = true;
        }
        let start = geo
            .locate(0)
            .map(|l| HeadPos {
                cyl: l.pbn.cyl,
                head: l.pbn.head,
            })
            .unwrap_or_default();
        let buffer_seed = params.cache.buffer_residual.seed;
        Ok(Hdd {
            read_move: None,
            read_first_wait_ns: 0,
            params,
            geo,
            tm,
            segs,
            bg: Background::Idle,
            idle: Cursor {
                lbn: 0,
                t: SimTime::ZERO,
                pos: start,
            },
            last_was_write: false,
            next_media_at: SimTime::ZERO,
            lru_clock: 0,
            avail: Vec::new(),
            ready: Vec::new(),
            memo: TrackMemo::default(),
            on_bus: false,
            bus_use: None,
            tally: None,
            prev_end: None,
            buffer_rng: rand_chacha::ChaCha8Rng::seed_from_u64(buffer_seed),
            buffered: None,
        })
    }

    /// Counts where this drive's reads found their data into `tally`.
    pub fn set_tally(&mut self, tally: BufferTally) {
        self.tally = Some(tally);
    }

    fn count_read(&self, f: impl FnOnce(&mut BufferStats)) {
        if let Some(t) = &self.tally {
            let mut s = t.lock().unwrap_or_else(|e| e.into_inner());
            s.reads += 1;
            f(&mut s);
        }
    }

    /// Puts the drive on a bus shared with other drives: from now on each request
    /// reports how it used the bus ([`Hdd::take_bus_use`]).
    pub fn set_on_bus(&mut self, on: bool) {
        self.on_bus = on;
    }

    /// How the last request serviced used the bus: when the drive let it go after
    /// the command, and the reconnection that follows (None off a shared bus).
    pub fn take_bus_use(&mut self) -> Option<BusUse> {
        self.bus_use.take()
    }

    pub fn params(&self) -> &DiskParams {
        &self.params
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    pub fn capacity(&self) -> u64 {
        self.geo.capacity()
    }

    /// Sets the spindle's angle at time zero as a fraction of a revolution (drives
    /// in an array do not spin in lockstep).
    pub fn set_spindle_phase(&mut self, fraction: f64) {
        let f = fraction.rem_euclid(1.0);
        self.tm.phase_ps = ((self.tm.period_ps as f64 * f) as u64).min(self.tm.period_ps - 1);
    }

    pub fn period_ns(&self) -> f64 {
        self.tm.period_ps as f64 / 1000.0
    }

    /// Seek time for a move of `d` cylinders, ns.
    #[inline]
    pub fn seek_ns(&self, d: u32) -> u64 {
        self.tm
            .seek_ns
            .get(d as usize)
            .copied()
            .unwrap_or_else(|| *self.tm.seek_ns.last().unwrap_or(&0)) as u64
    }

    /// Mean seek time (ms) between two uniformly random sectors: the "average seek"
    /// of a spec sheet, weighted by where the data is.
    pub fn average_seek_ms(&self) -> f64 {
        let cap = self.geo.capacity().max(1);
        let cyl_at = |f: f64| -> u32 {
            let lbn = ((f * cap as f64) as u64).min(cap - 1);
            self.geo.locate(lbn).map(|l| l.pbn.cyl).unwrap_or(0)
        };
        super::presets::mean_random_seek_ms(&self.params.mech.seek, &cyl_at)
    }

    /// Seek time (ms) across the full stroke: first to last data cylinder.
    pub fn full_stroke_ms(&self) -> f64 {
        let first = self.geo.locate(0).map(|l| l.pbn.cyl).unwrap_or(0);
        let last = self
            .geo
            .locate(self.geo.capacity().saturating_sub(1))
            .map(|l| l.pbn.cyl)
            .unwrap_or(0);
        self.params.mech.seek.seek_ms(
            first
                .abs_diff(last)
                .max(self.geo.cylinders().saturating_sub(1)),
        )
    }

    /// The firmware's command turnaround (ns): minimum time from one command's media
    /// access to the next one's.
    pub fn turnaround_ns(&self) -> u64 {
        self.tm.turnaround_ns
    }

    /// Where the head will be once current background work stops (pure query).
    pub fn head(&self) -> HeadPos {
        match self.bg {
            Background::Idle => self.idle.pos,
            Background::Prefetch { cursor, .. } | Background::Flush { cursor, .. } => cursor.pos,
        }
    }

    /// Physical location of an LBN.
    pub fn locate(&self, lbn: u64) -> Option<Location> {
        self.geo.locate(lbn)
    }

    /// Resets the drive to its power-on state.
    pub fn reset(&mut self) {
        for s in &mut self.segs {
            let w = s.write_only;
            *s = Segment {
                write_only: w,
                ..Segment::default()
            };
        }
        self.bg = Background::Idle;
        let start = self
            .geo
            .locate(0)
            .map(|l| HeadPos {
                cyl: l.pbn.cyl,
                head: l.pbn.head,
            })
            .unwrap_or_default();
        self.idle = Cursor {
            lbn: 0,
            t: SimTime::ZERO,
            pos: start,
        };
        self.last_was_write = false;
        self.next_media_at = SimTime::ZERO;
        self.prev_end = None;
        self.buffer_rng =
            rand_chacha::ChaCha8Rng::seed_from_u64(self.params.cache.buffer_residual.seed);
        self.buffered = None;
    }

    // ----- rotation -------------------------------------------------------------------

    #[inline]
    fn angle_ps(&self, t: SimTime) -> u64 {
        let p = self.tm.period_ps;
        let nominal = match t
            .0
            .checked_mul(1000)
            .and_then(|ps| ps.checked_add(self.tm.phase_ps))
        {
            Some(ps) => self.tm.period.rem(ps),
            None => ((t.0 as u128 * 1000 + self.tm.phase_ps as u128) % p as u128) as u64,
        };
        match &self.tm.drift {
            None => nominal,
            Some(d) => (nominal as f64 + d.extra_angle_ps(t)).rem_euclid(p as f64) as u64 % p,
        }
    }

    #[inline]
    fn sector_angle_ps(&self, sector: u64, spt: u32) -> u64 {
        let spt = spt as u64;
        // Locations give sectors below `spt`: skip that division when it is a no-op.
        let s = if sector < spt { sector } else { sector % spt };
        s * self.tm.period_ps / spt
    }

    /// Time (ns) for `angle_ps` of rotation starting at `t`, rounded down.
    #[inline]
    fn angle_to_ns(&self, angle_ps: u64, t: SimTime) -> u64 {
        match &self.tm.drift {
            None => angle_ps / 1000,
            Some(d) => (angle_ps as f64 * d.time_per_angle(t) / 1000.0) as u64,
        }
    }

    /// Time for `k` sectors to pass from `t`, ns, rounded down so that a run never ends
    /// past the true leading edge of the next sector.
    #[inline]
    fn sectors_ns(&self, k: u64, spt: u32, t: SimTime) -> u64 {
        self.angle_to_ns(k * self.tm.period_ps / spt as u64, t)
    }

    /// Time to wait at `t` until angle `target_ps` passes under the head. Within 10 ns
    /// of a full turn counts as "already there": that is rounding, not a missed sector.
    #[inline]
    fn wait_ns(&self, t: SimTime, target_ps: u64) -> u64 {
        self.wait_at_angle(t, self.angle_ps(t), target_ps)
    }

    /// [`Hdd::wait_ns`] with the angle at `t` already known (`angle_ps(t)`).
    #[inline]
    fn wait_at_angle(&self, t: SimTime, angle_ps: u64, target_ps: u64) -> u64 {
        let p = self.tm.period_ps;
        let w = mod_period(target_ps + p - angle_ps, p);
        if w + 10_000 >= p {
            0
        } else {
            match &self.tm.drift {
                None => w.div_ceil(1000),
                Some(d) => (w as f64 * d.time_per_angle(t) / 1000.0).ceil() as u64,
            }
        }
    }

    // ----- mechanics ------------------------------------------------------------------

    /// Seek (with head switch overlapped) and write settle from `from` to `to`.
    #[inline]
    fn positioning_ns(&self, from: HeadPos, to: HeadPos, write: bool) -> u64 {
        let d = from.cyl.abs_diff(to.cyl);
        let seek = self.seek_ns(d);
        let hs = if from.head != to.head {
            self.tm.head_switch_ns
        } else {
            0
        };
        let t = seek.max(hs);
        if t == 0 || !write {
            t
        } else {
            (t as i64 + self.tm.settle_ns).max(0) as u64
        }
    }

    /// When a command's media access can begin: positioning that takes `read_ns` for a
    /// read (`write_ns` for this command, a write's settle included) started at
    /// `start`, and no earlier than `not_before`, the firmware's command turnaround.
    /// The turnaround is the drive's floor on repositioning between commands, and it is
    /// set from reads (PROX-T1's read rows, the proximal I/O paper's "six in a single
    /// revolution"); a write's tighter settle comes after it rather than hiding under
    /// it, as the paper puts the slower write strands down to "additional write-settle
    /// time for track-to-track seeks" (§2.3). Without a turnaround this is
    /// `start + write_ns`, as in DiskSim.
    fn after_turnaround(
        start: SimTime,
        read_ns: u64,
        write_ns: u64,
        not_before: SimTime,
    ) -> SimTime {
        let reached = (start + read_ns).max(not_before);
        if write_ns == read_ns {
            return reached;
        }
        let settled = (reached.0 as i64 + (write_ns as i64 - read_ns as i64)).max(0) as u64;
        SimTime(settled.max(start.0 + write_ns).max(not_before.0))
    }

    /// Pure query: positioning time (seek + rotational latency) from `from` at time
    /// `now` to the first sector of `lbn`, in ns, as (seek, rotation).
    pub fn positioning_time(
        &self,
        from: HeadPos,
        now: SimTime,
        lbn: u64,
        write: bool,
    ) -> Option<(u64, u64)> {
        let loc = self.geo.locate(lbn)?;
        let to = HeadPos {
            cyl: loc.pbn.cyl,
            head: loc.pbn.head,
        };
        let seek = self.positioning_ns(from, to, write);
        let rot = self.wait_ns(
            now + seek,
            self.sector_angle_ps(loc.angle_sectors as u64, loc.spt),
        );
        Some((seek, rot))
    }

    /// Positioning time from the drive's current state at `now` to `lbn` (seek +
    /// rotation, ns): what an SPTF scheduler compares.
    pub fn positioning_from_state(&self, now: SimTime, lbn: u64, write: bool) -> u64 {
        match self.geo.locate(lbn) {
            Some(loc) => self.positioning_to(now, &loc, write),
            None => u64::MAX,
        }
    }

    /// `positioning_from_state` for a location already looked up (a caller comparing
    /// the same targets again and again keeps their locations).
    pub fn positioning_to(&self, now: SimTime, loc: &Location, write: bool) -> u64 {
        let from = self.head();
        let free = self.free_at().max(now);
        let to = HeadPos {
            cyl: loc.pbn.cyl,
            head: loc.pbn.head,
        };
        // The media access cannot start before the firmware's command turnaround.
        let read = self.positioning_ns(from, to, false);
        let p = if write {
            self.positioning_ns(from, to, true)
        } else {
            read
        };
        let ready = Self::after_turnaround(free, read, p, self.next_media_at);
        let rot = self.wait_ns(
            ready,
            self.sector_angle_ps(loc.angle_sectors as u64, loc.spt),
        );
        ready.0 - free.0 + rot
    }

    /// The time (ns after `now`) until the media reaches the first sector of `lbn` for
    /// a read a host sends this drive at `now`, as the read path will serve it: 0 for
    /// a whole buffer hit; otherwise the read's command overhead first, any read-ahead
    /// or write-back in progress stopped as the read path stops it, then seek and
    /// rotation. Exact for a drive with nothing queued (what a host choosing among
    /// replicas of a read compares; [`Hdd::positioning_from_state`] answers the
    /// firmware's question, where command overhead overlaps earlier work). With
    /// background work in progress it answers from a copy of the drive. A calibrated
    /// drive's read residual ([`crate::disk::residual`]) is not in the prediction.
    pub fn read_delay_if_sent(&self, now: SimTime, lbn: u64) -> u64 {
        if self.buffered_read(lbn) {
            return 0;
        }
        self.host_view(now).delay(lbn, 1, false)
    }

    /// A read of `lbn` the buffer would serve whole, with no read-ahead running.
    fn buffered_read(&self, lbn: u64) -> bool {
        self.read_hit_seg(lbn, lbn + 1)
            .is_some_and(|s| self.segs[s].end > lbn)
            && !matches!(self.bg, Background::Prefetch { .. })
    }

    /// The LBN ranges [`Hdd::buffered_read`] finds a read's first block in (without a
    /// read-ahead running, a read hits exactly when a readable segment holds it).
    fn buffered_ranges(&self) -> Vec<(u64, u64)> {
        if !self.params.cache.enabled || matches!(self.bg, Background::Prefetch { .. }) {
            return Vec::new();
        }
        self.segs
            .iter()
            .filter(|s| self.serves_reads(s) && !s.is_empty())
            .map(|s| (s.start, s.end))
            .collect()
    }

    /// The drive as a host sees it when it sends one request at `now`: its background
    /// work stopped as a new command stops it (on a copy when any runs). A host
    /// scheduler comparing many waiting requests builds it once per decision.
    pub fn host_view(&self, now: SimTime) -> HostView<'_> {
        let (drive, stop, was_flush) = if matches!(self.bg, Background::Idle) {
            (std::borrow::Cow::Borrowed(self), self.idle.t, false)
        } else {
            let mut c = self.clone();
            let (stop, flush) = c.stop_background(now);
            (std::borrow::Cow::Owned(c), stop, flush)
        };
        let me = &*drive;
        let prev = me.last_was_write as usize;
        // Positioning starts after the command's overhead and the background it stops.
        let start = |ovh_done: SimTime| {
            if was_flush {
                ovh_done.max(stop)
            } else {
                ovh_done.max(now) + stop.saturating_sub(now)
            }
        };
        let read_start = start(now + me.tm.ovh.read_miss[prev]);
        let write_ovh = if me.params.cache.fast_write_level > 0 {
            me.tm.ovh.write_hit[prev]
        } else {
            me.tm.ovh.write_miss[prev]
        };
        let prep = me.tm.ovh.data_prep;
        // Every write takes the extra disconnect but one appending to the most recently
        // written segment, decided once a running read-ahead has moved on (the stopped
        // copy) and before a write-back ends (the drive as sent).
        let decides = if matches!(self.bg, Background::Prefetch { .. }) {
            me
        } else {
            self
        };
        let extra = decides.extra_disconnect_unless().map(|(x, appends)| {
            let x_done = now + ms_to_ns(x.command_ms + x.seek_delta_ms);
            let x_bus = now
                + ms_to_ns(x.command_ms + x.disconnect_ms + x.inter_disconnect_ms)
                + me.tm.ovh.first_reselect
                + prep;
            (start(x_done), appends, x_bus)
        });
        let write_back = me.params.cache.fast_write_level > 0;
        let hp = me.params.ctrl.extra_write_disconnect.is_some();
        HostView {
            now,
            buffered: self.buffered_ranges(),
            read_start,
            write_start: start(now + write_ovh),
            extra,
            write_bus: now + write_ovh + prep,
            bus_ns: me.tm.bus_write_ns,
            gated: hp && !write_back,
            min_seek: if me.params.ctrl.min_seek_ms > 0.0 {
                me.tm.ovh.min_seek
            } else {
                0
            },
            drive,
        }
    }

    /// When the mechanism finishes its current background work (if it must).
    #[inline]
    fn free_at(&self) -> SimTime {
        match self.bg {
            Background::Idle => self.idle.t,
            Background::Prefetch { cursor, .. } => cursor.t,
            Background::Flush { cursor, .. } => cursor.t,
        }
    }

    /// Runs the media over `n` sequential LBNs from `lbn`, starting at `cur` (head
    /// position and time). Fills `self.avail[i]` with the time block `i` is done on the
    /// media. For writes, block `i` cannot be written before `self.ready[i]`.
    /// `zero_latency` lets a read (or write) start mid-run at the next sector boundary.
    fn media_run(&mut self, cur: Cursor, lbn: u64, n: u64, opts: RunOpts) -> (Cursor, RunStats) {
        let RunOpts {
            write,
            zero_latency,
            capture_before,
            not_before,
        } = opts;
        let mut st = RunStats::default();
        self.avail.clear();
        let mut t = cur.t;
        let mut pos = cur.pos;
        let mut i = 0u64;
        let mut first_track = true;
        while i < n {
            let b = lbn + i;
            let Some(tr) = self.geo.track_run_memo(&mut self.memo, b, n - i) else {
                break;
            };
            let (loc, run, span) = (tr.loc, tr.run, tr.span);
            let to = HeadPos {
                cyl: loc.pbn.cyl,
                head: loc.pbn.head,
            };
            let p = self.positioning_ns(pos, to, write);
            st.seek_ns += p;
            if first_track {
                // Positioning overlaps the firmware's command turnaround; a write's
                // settle follows it.
                let read = if write {
                    self.positioning_ns(pos, to, false)
                } else {
                    p
                };
                t = Self::after_turnaround(t, read, p, not_before);
            } else {
                t += p;
            }
            pos = to;
            let spt = loc.spt;
            let lead_first = self.sector_angle_ps(loc.angle_sectors as u64, spt);
            if write && run == span && self.tm.drift.is_none() {
                // As below, at constant speed and without slips in the run: the sector
                // edges and the platter's angle are stepped exactly (quotient and
                // remainder; sums modulo the period) instead of divided per sector.
                let p = self.tm.period_ps;
                let sw = self.sectors_ns(1, spt, t);
                let mut edge = SectorEdges::new(p, spt, loc.angle_sectors as u64);
                let mut tt = t;
                let mut angle = self.angle_ps(tt);
                for j in 0..run {
                    let ready = self
                        .ready
                        .get((i + j) as usize)
                        .copied()
                        .unwrap_or(SimTime::ZERO);
                    let from = tt.max(ready);
                    if from > tt {
                        angle = self.angle_ps(from);
                    }
                    let w = self.wait_at_angle(from, angle, edge.angle_ps());
                    st.rotation_ns += w + (from.0 - tt.0);
                    tt = from + w + sw;
                    angle = mod_period(angle + (w + sw) * 1000, p);
                    st.transfer_ns += sw;
                    self.avail.push(tt);
                    edge.advance();
                }
                t = tt;
            } else if write {
                // Sector by sector: a sector whose data has not arrived waits a turn.
                let mut tt = t;
                // At constant speed one sector's time does not depend on when.
                let sw_const = self.sectors_ns(1, spt, tt);
                for j in 0..run {
                    // Without slips in the run, sector j is j sectors on.
                    let step = if run == span {
                        j
                    } else {
                        (j * span) / run.max(1)
                    };
                    let sec = loc.angle_sectors as u64 + step;
                    let lead = self.sector_angle_ps(sec, spt);
                    let ready = self
                        .ready
                        .get((i + j) as usize)
                        .copied()
                        .unwrap_or(SimTime::ZERO);
                    let from = tt.max(ready);
                    let w = self.wait_ns(from, lead);
                    st.rotation_ns += w + (from.0 - tt.0);
                    let sw = if self.tm.drift.is_none() {
                        sw_const
                    } else {
                        self.sectors_ns(1, spt, from)
                    };
                    tt = from + w + sw;
                    st.transfer_ns += sw;
                    self.avail.push(tt);
                }
                t = tt;
            } else {
                let angle_now = self.angle_ps(t);
                let p_ps = self.tm.period_ps;
                let offset_ps = mod_period(angle_now + p_ps - lead_first, p_ps);
                let sw_ps = p_ps / spt as u64;
                let inside = zero_latency && offset_ps > 0 && {
                    let span_ps = span * p_ps / spt as u64;
                    offset_ps < span_ps.saturating_sub(sw_ps) + 1
                };
                if inside && run > 1 {
                    // Zero-latency: start at the next sector boundary, read to the end of
                    // the run, then wrap around for the sectors we arrived too late for.
                    let k = offset_ps.div_ceil(sw_ps).min(span - 1); // first sector read
                    let wait = (k * sw_ps - offset_ps).div_ceil(1000);
                    st.rotation_ns += wait;
                    let t0 = t + wait;
                    let start_idx = self.avail.len();
                    for j in 0..run {
                        let sec = (j * span) / run;
                        let done = if sec >= k {
                            t0 + self.sectors_ns(sec - k + 1, spt, t0)
                        } else {
                            t0 + self.sectors_ns(spt as u64 - k + sec + 1, spt, t0)
                        };
                        self.avail.push(done);
                    }
                    let end = self.avail[start_idx..].iter().copied().max().unwrap_or(t0);
                    let xfer = self.sectors_ns(span, spt, t0);
                    st.transfer_ns += xfer;
                    st.rotation_ns += (end.0 - t0.0).saturating_sub(xfer);
                    t = end;
                } else {
                    let w = self.wait_at_angle(t, angle_now, lead_first);
                    if first_track && capture_before && w > 0 {
                        // Sectors passing before ours are captured too ("read any free
                        // blocks"): count the LBNs physically between landing and start.
                        let passed = (w * 1000) / sw_ps.max(1);
                        let before_on_track = b - self
                            .geo
                            .track_bounds_memo(&mut self.memo, b)
                            .map(|x| x.0)
                            .unwrap_or(b);
                        st.captured_before = passed.min(before_on_track);
                    }
                    st.rotation_ns += w;
                    let t0 = t + w;
                    let xfer_ps = if run == span && self.tm.drift.is_none() {
                        // Constant speed, no slips: sector j ends ⌊(j+1)·period/spt⌋ ps
                        // (then whole ns) after t0; step quotient and remainder instead
                        // of dividing per sector. The last one is the whole run's time.
                        let spt64 = spt as u64;
                        let (qd, rd) = (sw_ps, p_ps - sw_ps * spt64);
                        let (mut q, mut r) = (qd, rd);
                        let mut last = q;
                        for _ in 0..run {
                            self.avail.push(t0 + q / 1000);
                            last = q;
                            q += qd;
                            r += rd;
                            if r >= spt64 {
                                q += 1;
                                r -= spt64;
                            }
                        }
                        Some(last)
                    } else {
                        for j in 0..run {
                            let sec = (j * span) / run;
                            self.avail.push(t0 + self.sectors_ns(sec + 1, spt, t0));
                        }
                        None
                    };
                    let xfer = match xfer_ps {
                        Some(ps) => ps / 1000, // `sectors_ns(span, ..)` at constant speed
                        None => self.sectors_ns(span, spt, t0),
                    };
                    st.transfer_ns += xfer;
                    t = t0 + xfer;
                }
            }
            if first_track {
                st.first_track_rotation_ns = st.rotation_ns;
            }
            first_track = false;
            i += run;
        }
        (
            Cursor {
                lbn: lbn + i,
                t,
                pos,
            },
            st,
        )
    }

    // ----- background work ------------------------------------------------------------

    /// A read stream's next step from `cursor` to the sector at `loc`: the track it
    /// goes to, when positioning ends, and when the sector's leading edge arrives.
    #[inline(always)]
    fn reach(&self, cursor: Cursor, loc: &Location) -> (HeadPos, SimTime, SimTime) {
        let to = HeadPos {
            cyl: loc.pbn.cyl,
            head: loc.pbn.head,
        };
        let seek_end = cursor.t + self.positioning_ns(cursor.pos, to, false);
        let lead = seek_end
            + self.wait_ns(
                seek_end,
                self.sector_angle_ps(loc.angle_sectors as u64, loc.spt),
            );
        (to, seek_end, lead)
    }

    /// Advances a running prefetch to `until`: blocks whose sector has fully passed by
    /// then join the segment. Finished prefetches leave the mechanism idle.
    fn advance_prefetch(&mut self, until: SimTime) {
        loop {
            let Background::Prefetch {
                seg,
                cursor,
                target,
                stop_at_track_end,
                stop_at_cyl_end,
            } = self.bg
            else {
                return;
            };
            if cursor.lbn >= target || cursor.t >= until {
                if cursor.lbn >= target {
                    self.idle = cursor;
                    self.bg = Background::Idle;
                }
                return;
            }
            // One track at a time.
            let Some(tr) = self
                .geo
                .track_run_memo(&mut self.memo, cursor.lbn, target - cursor.lbn)
            else {
                self.idle = cursor;
                self.bg = Background::Idle;
                return;
            };
            let (loc, n, span) = (tr.loc, tr.run, tr.span);
            let changes_track = loc.pbn.cyl != cursor.pos.cyl || loc.pbn.head != cursor.pos.head;
            let changes_cyl = loc.pbn.cyl != cursor.pos.cyl;
            if (stop_at_track_end && changes_track) || (stop_at_cyl_end && changes_cyl) {
                self.idle = cursor;
                self.bg = Background::Idle;
                return;
            }
            // The run's timing in closed form: positioning, rotational wait to the first
            // sector, then one sector time per physical sector (slips included).
            let (to, _, t_lead) = self.reach(cursor, &loc);
            let spt = loc.spt;
            let period_ps = self.tm.period_ps;
            let done_at = |j: u64| t_lead + self.sectors_ns(j * span / n + 1, spt, t_lead);
            let done = if until < t_lead {
                0
            } else {
                // Sectors fully passed by `until`, then the blocks they hold.
                let d = until.0 - t_lead.0;
                let k = match &self.tm.drift {
                    None => self.tm.period.div((d * 1000 + 999) * spt as u64),
                    Some(dr) => {
                        ((d as f64 * 1000.0 / dr.time_per_angle(t_lead)) * spt as f64
                            / period_ps as f64) as u64
                    }
                }
                .min(span);
                if n == span {
                    k // (k·n).div_ceil(n)
                } else {
                    (k * n).div_ceil(span).min(n)
                }
            };
            let end_t = t_lead + self.sectors_ns(span, spt, t_lead);
            // Only a partly read track stops at its last block read.
            let last_done = if done > 0 && done < n {
                done_at(done - 1)
            } else {
                t_lead
            };
            let seg_size = self.params.cache.segment_blocks as u64;
            let s = &mut self.segs[seg];
            if done > 0 {
                s.end = cursor.lbn + done;
                s.start = s.start.max(s.end.saturating_sub(seg_size));
            }
            // Move the stream's cursor past what was read; a partly read track ends the
            // advance (the rest of it lies after `until`).
            if done > 0 {
                let t = if done == n { end_t } else { last_done };
                if let Background::Prefetch { cursor: c, .. } = &mut self.bg {
                    *c = Cursor {
                        lbn: cursor.lbn + done,
                        t,
                        pos: to,
                    };
                }
            }
            if done < n {
                return;
            }
        }
    }

    /// Stops background work for a new media access arriving at `t0`. Returns the time
    /// the mechanism is free (DiskSim's `seek_stop`) and whether it was a flush (which a
    /// new request must wait out rather than pre-empt), leaving the head where it is.
    fn stop_background(&mut self, t0: SimTime) -> (SimTime, bool) {
        self.advance_prefetch(t0);
        match self.bg {
            Background::Idle => (self.idle.t, false),
            Background::Flush { seg, cursor } => {
                self.finish_flush(seg, cursor);
                (cursor.t, true)
            }
            Background::Prefetch { seg, cursor, .. } => {
                // The prefetch's next step: positioning, rotational wait, then sectors.
                let Some(loc) = self.geo.locate_memo(&self.memo, cursor.lbn) else {
                    self.idle = cursor;
                    self.bg = Background::Idle;
                    return (cursor.t.max(t0), false);
                };
                let (to, seek_end, lead) = self.reach(cursor, &loc);
                let in_sector = self.params.cache.stop_prefetch_in_sector;
                let (stop, pos, lbn) = if t0 < seek_end {
                    (seek_end, to, cursor.lbn)
                } else if t0 < lead {
                    (if in_sector { t0 } else { lead }, to, cursor.lbn)
                } else {
                    // Mid-sector: with "stop in sector" off the current sector completes.
                    let sw = self.sectors_ns(1, loc.spt, lead).max(1);
                    let done = lead + sw * ((t0.0 - lead.0) / sw + 1);
                    if in_sector {
                        (t0, to, cursor.lbn)
                    } else {
                        let seg_size = self.params.cache.segment_blocks as u64;
                        let s = &mut self.segs[seg];
                        s.end = s.end.max(cursor.lbn + 1);
                        s.start = s.start.max(s.end.saturating_sub(seg_size));
                        (done, to, cursor.lbn + 1)
                    }
                };
                self.idle = Cursor { lbn, t: stop, pos };
                self.bg = Background::Idle;
                (stop, false)
            }
        }
    }

    fn finish_flush(&mut self, seg: usize, cursor: Cursor) {
        self.segs[seg].dirty = false;
        self.idle = cursor;
        self.bg = Background::Idle;
    }

    /// Retires a write-back whose media work ended by `t`.
    fn settle_flush(&mut self, t: SimTime) {
        if let Background::Flush { seg, cursor } = self.bg {
            if cursor.t <= t {
                self.finish_flush(seg, cursor);
            }
        }
    }

    #[inline]
    fn touch(&mut self, seg: usize) {
        self.lru_clock += 1;
        self.segs[seg].used = self.lru_clock;
    }

    /// With almost read hits: the prefetching segment, if its read-ahead fetches
    /// `lbn` next.
    fn almost_hit(&self, lbn: u64) -> Option<usize> {
        let seg = self.prefetching_seg()?;
        let s = &self.segs[seg];
        (self.params.cache.almost_read_hits && !s.write_only && s.end == lbn).then_some(seg)
    }

    /// Whether a read of `lbn` started now would be served from the buffer without a
    /// new media access: its first block is buffered, or (with almost read hits) the
    /// running read-ahead fetches it next. Firmware SPTF counts such a read as free
    /// of positioning. A pure query on the state as last advanced.
    pub fn read_joins_buffer(&self, lbn: u64) -> bool {
        self.read_hit_seg(lbn, lbn + 1).is_some()
    }

    /// The segment a read of `lbn..end` is served from: among those holding its first
    /// block, the one holding the most of it (then the prefetching one, then the most
    /// recently used); else, with almost read hits, the segment whose read-ahead
    /// fetches `lbn` next. `None` without caching.
    fn read_hit_seg(&self, lbn: u64, end: u64) -> Option<usize> {
        if !self.params.cache.enabled {
            return None;
        }
        let prefetching = self.prefetching_seg();
        // A plain loop (this runs on every read): the last of the largest keys wins, as
        // with `max_by_key`.
        let mut best: Option<((bool, bool, u64), usize)> = None;
        for (i, s) in self.segs.iter().enumerate() {
            if self.serves_reads(s) && s.contains(lbn) {
                let key = (s.end >= end, Some(i) == prefetching, s.used);
                if best.is_none_or(|(k, _)| key >= k) {
                    best = Some((key, i));
                }
            }
        }
        best.map(|(_, i)| i).or_else(|| self.almost_hit(lbn))
    }

    /// Whether a read may be served from `s` (not the write-only segment, and not
    /// written data unless the drive allows read hits on it).
    #[inline]
    fn serves_reads(&self, s: &Segment) -> bool {
        !s.write_only && (self.params.cache.read_hits_on_write_data || !s.written)
    }

    #[inline]
    fn prefetching_seg(&self) -> Option<usize> {
        match self.bg {
            Background::Prefetch { seg, .. } => Some(seg),
            _ => None,
        }
    }

    #[inline]
    fn flushing_seg(&self) -> Option<usize> {
        match self.bg {
            Background::Flush { seg, .. } => Some(seg),
            _ => None,
        }
    }

    /// Picks a segment for a read miss: empty first, then the least recently used idle
    /// clean one, then the one being prefetched into.
    fn victim_for_read(&self) -> usize {
        let busy = [self.prefetching_seg(), self.flushing_seg()];
        // One pass for the three choices, each the first least recently used (as
        // `min_by_key`): empty candidates, idle candidates, any candidate.
        let (mut empty, mut idle, mut any) = (LruPick::NONE, LruPick::NONE, LruPick::NONE);
        for (i, s) in self.segs.iter().enumerate() {
            let candidate = !s.write_only & !s.dirty;
            empty.offer(candidate & s.is_empty(), i, s.used);
            idle.offer(candidate & !busy.contains(&Some(i)), i, s.used);
            any.offer(candidate, i, s.used);
        }
        empty.or(idle).or(any).index().unwrap_or(0)
    }

    fn victim_for_write(&self, lbn: u64, n: u64) -> usize {
        let c = &self.params.cache;
        if c.separate_write_segment && self.segs.len() > 1 {
            return 0;
        }
        let busy = [self.prefetching_seg(), self.flushing_seg()];
        // One pass: the first clean (not dirty, not busy) segment overlapping the write,
        // else the first least recently used clean empty one, clean one, not dirty one.
        let mut overlapping = None;
        let (mut empty, mut clean, mut not_dirty) = (LruPick::NONE, LruPick::NONE, LruPick::NONE);
        for (i, s) in self.segs.iter().enumerate() {
            not_dirty.offer(!s.dirty, i, s.used);
            let is_clean = !s.dirty & !busy.contains(&Some(i));
            if is_clean & s.overlaps(lbn, lbn + n) && overlapping.is_none() {
                overlapping = Some(i);
            }
            empty.offer(is_clean & s.is_empty(), i, s.used);
            clean.offer(is_clean, i, s.used);
        }
        overlapping
            .or(empty.or(clean).or(not_dirty).index())
            .unwrap_or(0)
    }

    /// Blocks of data waiting before a disconnected transfer reconnects.
    fn watermark(&self, frac: f64, n: u64) -> u64 {
        let c = &self.params.cache;
        let seg = c.segment_blocks as u64;
        if c.watermark_by_reqsize {
            // `as u64` truncates toward zero and saturates, which for every f64 (negative,
            // NaN and infinite included) equals `.floor() as u64`, without a libm call.
            ((seg.min(n) as f64 * frac) as u64).max(1)
        } else {
            ((seg as f64 * frac).ceil() as u64).max(1)
        }
    }

    /// Read-ahead target (exclusive end LBN) after a read of [lbn, end) into `seg`.
    #[inline]
    fn prefetch_target(&mut self, seg: usize, lbn: u64, end: u64) -> u64 {
        let c = &self.params.cache;
        let cap = self.geo.capacity();
        let target = match c.read_ahead {
            ReadAhead::None => end,
            ReadAhead::OneTrackAhead => {
                let Some((first, last)) = self
                    .geo
                    .track_bounds_memo(&mut self.memo, end.min(cap.saturating_sub(1)))
                else {
                    return end;
                };
                if self.segs[seg].start < first {
                    // Already streaming: stay a track further ahead.
                    self.geo
                        .track_bounds((last + 1).min(cap.saturating_sub(1)))
                        .map(|x| x.1 + 1)
                        .unwrap_or(last + 1)
                } else {
                    last + 1
                }
            }
            ReadAhead::ToTrackEnd | ReadAhead::ToCylinderEnd | ReadAhead::Max => {
                if c.max_read_ahead == 0 {
                    let base = if c.read_ahead_over_requested == 0 {
                        lbn
                    } else {
                        end
                    };
                    base + c.segment_blocks as u64
                } else {
                    end + c.max_read_ahead as u64
                }
            }
        };
        target.min(cap)
    }

    fn start_prefetch(&mut self, seg: usize, cursor: Cursor, lbn: u64, end: u64) {
        let c = &self.params.cache;
        if !c.enabled || c.read_ahead == ReadAhead::None {
            self.idle = cursor;
            self.bg = Background::Idle;
            return;
        }
        let target = self.prefetch_target(seg, lbn, end);
        if target <= cursor.lbn {
            self.idle = cursor;
            self.bg = Background::Idle;
            return;
        }
        let read_ahead = self.params.cache.read_ahead;
        self.bg = Background::Prefetch {
            seg,
            cursor,
            target,
            stop_at_track_end: read_ahead == ReadAhead::ToTrackEnd,
            stop_at_cyl_end: read_ahead == ReadAhead::ToCylinderEnd,
        };
    }

    // ----- requests -------------------------------------------------------------------

    /// Services `req`, which arrives and is started at `t0`. The caller must not start a
    /// request before the previous one completed (the firmware queue ensures this).
    pub fn service(&mut self, t0: SimTime, req: Request) -> Completion {
        self.service_queued(t0, t0, req)
    }

    /// Services `req`, which reached the drive at `arrival` and waited in its queue
    /// until `start`. Command processing began on arrival, so a queued request's
    /// command overhead overlaps the work before it (as in DiskSim).
    pub fn service_queued(&mut self, arrival: SimTime, start: SimTime, req: Request) -> Completion {
        let n = req.blocks.max(1) as u64;
        let req = Request {
            blocks: n as u32,
            ..req
        };
        let arrival = arrival.min(start);
        self.bus_use = None;
        self.read_move = None;
        let c = if req.write {
            self.write(arrival, start, req)
        } else {
            self.read(arrival, start, req)
        };
        self.last_was_write = req.write;
        let sequential = self.prev_end == Some(req.lbn);
        self.prev_end = Some(req.lbn + n);
        self.with_buffer_residual(c, req.write, sequential)
    }

    /// `c` moved by a correction drawn from the drive's buffer residual, where the
    /// request was served from the buffer (a read with no media access, a buffered
    /// write) and its class has a distribution; never done before it started.
    fn with_buffer_residual(
        &mut self,
        mut c: Completion,
        write: bool,
        sequential: bool,
    ) -> Completion {
        let buffered = if write {
            c.cache_hit
        } else {
            self.read_move.is_none()
        };
        self.buffered = buffered.then_some((BufferClass::of(write, sequential), 0.0));
        let values = match self.buffered {
            Some((class, _)) => self.params.cache.buffer_residual.values(class),
            None => &[],
        };
        if values.is_empty() {
            return c;
        }
        let ms = values[self.buffer_rng.gen_range(0..values.len())];
        let ns = (ms * 1e6).round() as i64;
        let done = SimTime(((c.done.0 as i64).saturating_add(ns).max(0) as u64).max(c.start.0));
        c.breakdown.overhead_ns = (c.breakdown.overhead_ns as i64)
            .saturating_add(done.0 as i64 - c.done.0 as i64)
            .max(0) as u64;
        if let Some(b) = &mut self.bus_use {
            if b.release == c.done {
                b.release = done;
            }
        }
        c.done = done;
        if let Some(b) = &mut self.buffered {
            b.1 = ms;
        }
        c
    }

    /// The last request's buffer-residual class, if it was served from the buffer,
    /// and the correction it drew (ms; 0 where its class has no distribution).
    pub fn last_buffered(&self) -> Option<(BufferClass, f64)> {
        self.buffered
    }

    fn read(&mut self, arrival: SimTime, t0: SimTime, req: Request) -> Completion {
        let (lbn, n) = (req.lbn, req.blocks as u64);
        let end = lbn + n;
        let prev_w = self.last_was_write;
        let o = &self.tm.ovh;
        let ovh_done = arrival + o.read_miss[prev_w as usize];
        let bus = self.tm.bus_read_ns;
        let prep = o.data_prep;
        let reselect = o.first_reselect;
        let complete = o.read_complete;
        let hit_ovh = o.read_hit[prev_w as usize];
        let caching = self.params.cache.enabled;

        self.advance_prefetch(t0);
        self.settle_flush(t0);
        let prefetching = self.prefetching_seg();

        let hit = self.read_hit_seg(lbn, end);

        let flush_until = match self.bg {
            Background::Flush { cursor, .. } if cursor.t > t0 => Some(cursor.t),
            _ => None,
        };

        if self.tally.is_some() {
            // Only DiskSim runs ask where reads found their data.
            let kind = hit.map(|seg| (self.segs[seg].end >= end, Some(seg) == prefetching));
            self.count_read(|s| match kind {
                Some((true, _)) => s.full_read_hits += 1,
                Some((false, true)) => s.read_ahead_hits += 1,
                Some((false, false)) => s.partial_read_hits += 1,
                None => {}
            });
        }
        if let Some(seg) = hit {
            let whole = self.segs[seg].end >= end;
            let joins_prefetch = Some(seg) == prefetching;
            if whole || joins_prefetch {
                // Served from the buffer (a partial hit on the segment being prefetched
                // rides the ongoing read-ahead).
                self.touch(seg);
                let mut start_xfer = (arrival + hit_ovh + prep).max(t0);
                if let Some(f) = flush_until.filter(|_| !self.params.ctrl.never_disconnect) {
                    // The mechanism is busy writing back: wait on the disconnect path (a
                    // drive that never disconnects sends the buffered data at once).
                    start_xfer = start_xfer.max(f + reselect + prep);
                }
                let mut done = start_xfer;
                let mut wait_media = 0;
                if whole {
                    done += n * bus;
                } else {
                    // Blocks still to come from the read-ahead stream.
                    let cached = self.segs[seg].end - lbn;
                    done += cached * bus;
                    let need_end = end;
                    if let Background::Prefetch { target, .. } = &mut self.bg {
                        *target = (*target).max(need_end);
                    }
                    let mut t = done;
                    let mut next = self.segs[seg].end;
                    let ctrl = &self.params.ctrl;
                    let hold = ctrl.hold_bus_read || ctrl.never_disconnect;
                    // Without holding the bus: each stretch of blocks the stream
                    // delivers (when, first block, count), timed below.
                    let mut stretches: Vec<(SimTime, u64, u64)> = Vec::new();
                    while next < end {
                        // Advance the stream block by block until it has our data.
                        let before = next;
                        let at = self.time_block_ready(next);
                        match at {
                            Some(a) => {
                                self.advance_prefetch(a);
                                let after = self.segs[seg].end.max(before + 1);
                                let k = after.min(end) - before;
                                if hold {
                                    t = t.max(a) + k * bus;
                                } else {
                                    stretches.push((a, before, k));
                                }
                                next = after;
                            }
                            None => break,
                        }
                    }
                    if !hold {
                        // The buffer ran dry: disconnect (with its overhead), reconnect
                        // once `w` more blocks wait (as a read miss does).
                        let w = self.watermark(self.params.cache.high_water, n);
                        let disconnect = self.tm.ovh.read_disconnect[prev_w as usize];
                        let ready = |b: u64, or: SimTime| {
                            stretches.iter().find(|s| b < s.1 + s.2).map_or(or, |s| s.0)
                        };
                        for &(a, before, k) in &stretches {
                            if a > t {
                                let last = (before + w - 1).min(end - 1);
                                t = ready(last, a).max(t + disconnect) + reselect + prep;
                            }
                            t = t.max(a) + k * bus;
                        }
                    }
                    wait_media =
                        t.0.saturating_sub(done.0 + (end - self.segs[seg].end.min(end)) * bus);
                    done = t;
                }
                let done = done + complete;
                if self.on_bus {
                    // Connected from the command to the completion.
                    self.bus_use = Some(BusUse {
                        release: done,
                        reconnect: None,
                    });
                }
                // A whole hit on an idle mechanism may restart read-ahead.
                if whole
                    && self.params.cache.read_ahead_on_idle_hit
                    && matches!(self.bg, Background::Idle)
                {
                    let cursor = Cursor {
                        lbn: self.segs[seg].end,
                        t: self.idle.t.max(t0),
                        pos: self.idle.pos,
                    };
                    self.start_prefetch(seg, cursor, lbn, end);
                } else if let Background::Prefetch {
                    seg: ps, target, ..
                } = self.bg
                {
                    if ps == seg {
                        let t2 = self.prefetch_target(seg, lbn, end).max(target);
                        if let Background::Prefetch { target, .. } = &mut self.bg {
                            *target = t2;
                        }
                    }
                }
                self.finish_read_segment(seg, end);
                let total = done.0 - t0.0;
                return Completion {
                    id: req.id,
                    start: t0,
                    done,
                    breakdown: Breakdown {
                        overhead_ns: total.saturating_sub(wait_media),
                        transfer_ns: wait_media,
                        ..Breakdown::default()
                    },
                    cache_hit: whole,
                };
            }
        }

        // Media access, starting at the first block not already buffered.
        let (seg, media_from) = match hit {
            Some(seg) => (seg, self.segs[seg].end),
            None => {
                let seg = self.victim_for_read();
                (seg, lbn)
            }
        };
        let (stop, was_flush) = self.stop_background(t0);
        let pos_start = if was_flush {
            ovh_done.max(stop)
        } else {
            ovh_done.max(t0) + stop.saturating_sub(t0)
        };
        self.read_move = Some(((self.idle.pos.cyl, self.idle.pos.head), media_from));
        let pos_start = if self.params.mech.read_residual.is_none() {
            pos_start
        } else {
            self.with_read_residual(pos_start, t0.max(stop), self.last_read_class())
        };
        if hit.is_none() {
            self.segs[seg] = Segment {
                start: lbn,
                end: lbn,
                write_only: false,
                ..self.segs[seg]
            };
        }
        self.touch(seg);
        let cached = media_from - lbn;
        let zero_lat = self.params.cache.immediate_read || self.params.cache.read_any_free_blocks;
        let capture = caching && self.params.cache.read_any_free_blocks && hit.is_none();
        let cur = Cursor {
            lbn: media_from,
            t: pos_start,
            pos: self.idle.pos,
        };
        let not_before = self.next_media_at;
        let (after, st) = self.media_run(
            cur,
            media_from,
            end - media_from,
            RunOpts {
                write: false,
                zero_latency: zero_lat,
                capture_before: capture,
                not_before,
            },
        );
        self.next_media_at = after.t + self.tm.turnaround_ns;
        self.read_first_wait_ns = st.first_track_rotation_ns;

        // Bus: cached blocks are available at once; the rest as the media delivers them.
        let ctrl = &self.params.ctrl;
        let hold = ctrl.hold_bus_read || ctrl.never_disconnect;
        let w = self.watermark(self.params.cache.high_water, n);
        let avail_at = |i: u64, avail: &[SimTime]| -> SimTime {
            if i < cached {
                t0
            } else {
                avail.get((i - cached) as usize).copied().unwrap_or(after.t)
            }
        };
        let disconnect_at = arrival + self.tm.ovh.read_miss_disconnect[prev_w as usize];
        let read_disconnect = self.tm.ovh.read_disconnect[prev_w as usize];
        let mut reconnect_at = None;
        let mut f = if ctrl.never_disconnect {
            (arrival + self.tm.ovh.read_miss[prev_w as usize] + prep).max(t0)
        } else {
            // Reconnect once `w` blocks wait (or all of them).
            let k = w.min(n) - 1;
            let at = avail_at(k, &self.avail).max(disconnect_at);
            reconnect_at = Some(at);
            at + reselect + prep
        };
        let mut i = 0;
        while i < n {
            let a = avail_at(i, &self.avail);
            if a > f && !hold {
                // Buffer ran dry: disconnect (which takes its overhead), reconnect after
                // the next `w` blocks.
                let k = (i + w - 1).min(n - 1);
                f = avail_at(k, &self.avail).max(f + read_disconnect) + reselect + prep;
            }
            f = f.max(a) + bus;
            i += 1;
        }
        let done = f + complete;
        if self.on_bus {
            self.bus_use = Some(match reconnect_at {
                None => BusUse {
                    release: done,
                    reconnect: None,
                },
                Some(at) => BusUse {
                    release: disconnect_at,
                    reconnect: Some(Reconnect {
                        at,
                        done,
                        // Holding the bus through the read, the blocks pace the
                        // transfer; a drive that disconnects when the buffer runs dry
                        // is moved as a whole by a late grant.
                        avail: if hold {
                            (0..n).map(|i| avail_at(i, &self.avail)).collect()
                        } else {
                            Vec::new()
                        },
                        pre_ns: reselect + prep,
                        block_ns: bus,
                        complete_ns: complete,
                    }),
                },
            });
        }

        // The segment now holds what was read; read-ahead continues from the end.
        let seg_size = self.params.cache.segment_blocks as u64;
        let s = &mut self.segs[seg];
        s.end = end.max(s.end);
        if st.captured_before > 0 {
            s.start = s.start.min(lbn - st.captured_before);
        }
        s.start = s.start.max(s.end.saturating_sub(seg_size));
        s.written = false;
        s.dirty = false;
        if !caching {
            *s = Segment {
                write_only: s.write_only,
                ..Segment::default()
            };
        }
        self.idle = after;
        self.start_prefetch(seg, after, lbn, end);
        self.finish_read_segment(seg, end);
        let total = done.0 - t0.0;
        let bd = Breakdown {
            seek_ns: st.seek_ns,
            rotation_ns: st.rotation_ns,
            transfer_ns: st.transfer_ns,
            overhead_ns: total.saturating_sub(st.seek_ns + st.rotation_ns + st.transfer_ns),
        };
        Completion {
            id: req.id,
            start: t0,
            done,
            breakdown: bd,
            cache_hit: false,
        }
    }

    /// `pos_start` moved by the drive's measured correction for a read of `class`
    /// ([`crate::disk::residual::PositioningResidual`]), never before `earliest`.
    fn with_read_residual(
        &self,
        pos_start: SimTime,
        earliest: SimTime,
        class: Option<PositioningClass>,
    ) -> SimTime {
        let r = &self.params.mech.read_residual;
        let Some(class) = class.filter(|_| !r.is_none()) else {
            return pos_start;
        };
        let ns = (r.ms(class) * 1e6).round() as i64;
        let moved = (pos_start.0 as i64).saturating_add(ns).max(0) as u64;
        SimTime(moved).max(earliest)
    }

    /// The positioning class of the last request's media read, as the drive saw it
    /// (from where its head was once background work stopped); `None` when the request
    /// needed no media read (a hit, a read riding the read-ahead, a write).
    pub fn last_read_class(&self) -> Option<PositioningClass> {
        let (from, lbn) = self.read_move?;
        let to = self.geo.locate(lbn)?.pbn;
        Some(PositioningClass::of(from, (to.cyl, to.head)))
    }

    /// The last request's media read's rotational wait on its first track, ns: the
    /// part of its time the platter's phase decides. `None` when it had no media read.
    pub fn last_read_first_wait_ns(&self) -> Option<u64> {
        self.read_move.map(|_| self.read_first_wait_ns)
    }

    /// With `Read-ahead over requested` = −1 the delivered blocks leave the segment,
    /// so only read-ahead data stays cached.
    fn finish_read_segment(&mut self, seg: usize, end: u64) {
        if self.params.cache.read_ahead_over_requested < 0 {
            let s = &mut self.segs[seg];
            s.start = s.start.max(end.min(s.end));
        }
    }

    /// When the running prefetch will have block `b` (None if it never will).
    fn time_block_ready(&mut self, b: u64) -> Option<SimTime> {
        let Background::Prefetch { cursor, target, .. } = self.bg else {
            return None;
        };
        if b < cursor.lbn || b >= target {
            return None;
        }
        let n = b - cursor.lbn + 1;
        let (_, _) = self.media_run(
            cursor,
            cursor.lbn,
            n,
            RunOpts {
                write: false,
                zero_latency: false,
                capture_before: false,
                not_before: SimTime::ZERO,
            },
        );
        self.avail.last().copied()
    }

    /// Empties the clean segments other than those in `keep` that hold any of
    /// `lbn..end`: they hold data a write has just replaced.
    fn drop_stale_segments(&mut self, lbn: u64, end: u64, keep: [Option<usize>; 2]) {
        for (i, s) in self.segs.iter_mut().enumerate() {
            // `&`, not `&&`: one well-predicted branch instead of three.
            if !keep.contains(&Some(i)) & !s.dirty & s.overlaps(lbn, end) {
                *s = Segment {
                    write_only: s.write_only,
                    used: s.used,
                    ..Segment::default()
                };
            }
        }
    }

    /// Accepts a write into the firmware's write cache (`Drive` with a write cache):
    /// the command overhead, the bus transfer and the completion message, with no
    /// media access, so the mechanism state is untouched. The drive writes the data to
    /// the media later with `service_queued` (its destage). Read-cache segments holding
    /// older copies of the range are dropped, except the one a read-ahead is filling
    /// (the background work owns its cursor): a later hit there is timed as a hit on
    /// stale data, while the bytes a read returns come from the array's store.
    pub fn buffer_write(&mut self, arrival: SimTime, t0: SimTime, req: Request) -> Completion {
        let n = u64::from(req.blocks.max(1));
        let (lbn, end) = (req.lbn, req.lbn + n);
        let o = &self.tm.ovh;
        let ovh = o.write_hit[self.last_was_write as usize];
        let bus_start = (arrival.min(t0) + ovh + o.data_prep).max(t0);
        let done = bus_start + n * self.tm.bus_write_ns + o.write_complete;
        self.drop_stale_segments(lbn, end, [self.prefetching_seg(), None]);
        self.last_was_write = true;
        Completion {
            id: req.id,
            start: t0,
            done,
            breakdown: Breakdown {
                overhead_ns: done.0 - t0.0,
                ..Breakdown::default()
            },
            cache_hit: true,
        }
    }

    /// Extra write disconnect (HP C2247A): a write to `lbn` that does not append to
    /// the most recently written segment disconnects before moving any data.
    fn extra_write_disconnect(&self, lbn: u64) -> Option<crate::disk::params::ExtraDisconnect> {
        self.extra_disconnect_unless()
            .filter(|&(_, appends)| appends != lbn)
            .map(|(x, _)| x)
    }

    /// The extra write disconnect every write takes now, and the one LBN that escapes it
    /// (appending to the most recently written segment); `None` if no write takes it.
    fn extra_disconnect_unless(&self) -> Option<(crate::disk::params::ExtraDisconnect, u64)> {
        let c = &self.params.ctrl;
        let x = c.extra_write_disconnect.filter(|_| !c.never_disconnect)?;
        let m = self
            .segs
            .iter()
            .enumerate()
            .max_by_key(|(_, s)| s.used)
            .map(|(i, _)| &self.segs[i])?;
        (m.written && !m.is_empty()).then_some((x, m.end))
    }

    fn write(&mut self, arrival: SimTime, t0: SimTime, req: Request) -> Completion {
        let (lbn, n) = (req.lbn, req.blocks as u64);
        let end = lbn + n;
        let prev_w = self.last_was_write;
        // The few parameters used below, copied out (not the whole structs) so the media
        // run may borrow the drive mutably.
        let c = &self.params.ctrl;
        let (extra_disconnect, never_disconnect, min_seek_ms) =
            (c.extra_write_disconnect, c.never_disconnect, c.min_seek_ms);
        let c = &self.params.cache;
        let (fast_write_level, segment_blocks, combine_seq_writes, immediate_write, enabled) = (
            c.fast_write_level,
            c.segment_blocks,
            c.combine_seq_writes,
            c.immediate_write,
            c.enabled,
        );
        let bus = self.tm.bus_write_ns;
        let o = &self.tm.ovh;
        let prep = o.data_prep;
        let reselect = o.first_reselect;
        let complete = o.write_complete;
        let write_back = fast_write_level > 0;

        self.advance_prefetch(t0);
        self.settle_flush(t0);

        // Appending to the segment being written back continues the same media write.
        let append_to = match self.bg {
            Background::Flush { seg, cursor } if cursor.t > t0 => {
                let s = &self.segs[seg];
                let fits = s.end + n - s.start <= segment_blocks as u64;
                (write_back && combine_seq_writes && s.end == lbn && fits).then_some((seg, cursor))
            }
            _ => None,
        };

        let extra = self.extra_write_disconnect(lbn);

        let ovh = if write_back {
            self.tm.ovh.write_hit[prev_w as usize]
        } else {
            self.tm.ovh.write_miss[prev_w as usize]
        };
        let mut ovh_done = arrival + ovh;
        // DiskSim's choice: the segment is picked while the read-ahead still runs, so
        // never the one it fills, and that one keeps its data.
        let mut spared = None;
        let (seg, stop, was_flush, cursor) = match append_to {
            Some((seg, cursor)) => (seg, cursor.t, false, cursor),
            None => {
                let early = self.params.cache.disksim_write_segment.then(|| {
                    spared = self.prefetching_seg();
                    self.victim_for_write(lbn, n)
                });
                let (stop, was_flush) = self.stop_background(t0);
                let seg = early.unwrap_or_else(|| self.victim_for_write(lbn, n));
                if spared == Some(seg) {
                    spared = None;
                }
                (seg, stop, was_flush, self.idle)
            }
        };

        // When data crosses the bus into the buffer.
        let mut bus_start = (arrival + ovh + prep).max(t0);
        if let Some(x) = extra {
            ovh_done = arrival + ms_to_ns(x.command_ms + x.seek_delta_ms);
            bus_start = arrival
                + ms_to_ns(x.command_ms + x.disconnect_ms + x.inter_disconnect_ms)
                + reselect
                + prep;
        }
        if was_flush && stop > t0 && !never_disconnect {
            // Waited on the disconnect path for the write-back to finish (a drive that
            // never disconnects takes the data into its buffer at once). A write-back
            // drive's disconnect takes `Write disconnect overhead` after the command.
            let disconnected = arrival
                + ovh
                + if write_back {
                    self.tm.ovh.write_disconnect
                } else {
                    0
                };
            bus_start = bus_start.max(stop.max(disconnected) + reselect + prep);
        }
        self.ready.clear();
        self.ready.extend((1..=n).map(|i| bus_start + i * bus));
        let data_in = bus_start + n * bus;

        // Positioning: continues an append, otherwise starts after the command overhead
        // (and after a pre-empted prefetch stops; after a write-back ends).
        let mut cur = cursor;
        let st;
        let media_end;
        if append_to.is_some() {
            let (after, s) = self.media_run(
                cur,
                lbn,
                n,
                RunOpts {
                    write: true,
                    zero_latency: false,
                    capture_before: false,
                    not_before: SimTime::ZERO,
                },
            );
            st = s;
            media_end = after;
        } else {
            let start = if was_flush {
                ovh_done.max(stop)
            } else {
                ovh_done.max(t0) + stop.saturating_sub(t0)
            };
            cur.t = start;
            // Minimum seek delay: pad short seeks of non-sequential writes.
            if min_seek_ms > 0.0 {
                if let Some(loc) = self.geo.locate(lbn) {
                    let to = HeadPos {
                        cyl: loc.pbn.cyl,
                        head: loc.pbn.head,
                    };
                    let seek = self.positioning_ns(cur.pos, to, true);
                    let min = self.tm.ovh.min_seek;
                    if seek < min {
                        cur.t += min - seek;
                    }
                }
            }
            if extra.is_some() || (!write_back && extra_disconnect.is_some()) {
                // HP rule: media writing waits for min(n, 10) blocks (15 for ≥ 45).
                let thr = if n < 45 { n.min(10) } else { 15 };
                let gate = self.ready[(thr.max(1) - 1) as usize];
                for r in self.ready.iter_mut().take(thr as usize) {
                    *r = (*r).max(gate);
                }
            }
            let not_before = self.next_media_at;
            let (after, s) = self.media_run(
                cur,
                lbn,
                n,
                RunOpts {
                    write: true,
                    zero_latency: immediate_write,
                    capture_before: false,
                    not_before,
                },
            );
            st = s;
            media_end = after;
        }

        self.next_media_at = media_end.t + self.tm.turnaround_ns;
        // Written-through data: the drive reconnects at `reconnect_at` to complete.
        let (reconnect_at, done) = if write_back {
            (None, data_in + complete)
        } else if let Some(x) = extra {
            let at = media_end.t.max(data_in + ms_to_ns(x.second_disconnect_ms));
            (Some(at), at + self.tm.ovh.other_reselect + complete)
        } else {
            let at = media_end.t.max(data_in + self.tm.ovh.write_disconnect);
            (Some(at), at + reselect + complete)
        };
        if self.on_bus {
            // Connected through the command and the data (all of it when the drive
            // never disconnects).
            self.bus_use = Some(match reconnect_at {
                Some(at) if !never_disconnect => BusUse {
                    release: data_in,
                    reconnect: Some(Reconnect {
                        at,
                        done,
                        avail: Vec::new(),
                        pre_ns: 0,
                        block_ns: bus,
                        complete_ns: complete,
                    }),
                },
                _ => BusUse {
                    release: done,
                    reconnect: None,
                },
            });
        }

        // The segment holds the written data; with write-back it stays dirty until the
        // media write ends.
        let seg_size = segment_blocks as u64;
        self.drop_stale_segments(lbn, end, [Some(seg), spared]);
        let s = &mut self.segs[seg];
        if append_to.is_some() {
            s.end = end;
        } else {
            s.start = lbn;
            s.end = end;
        }
        s.start = s.start.max(s.end.saturating_sub(seg_size));
        s.written = true;
        s.dirty = write_back && media_end.t > done;
        if !enabled {
            s.start = s.end;
        }
        self.touch(seg);
        if write_back && media_end.t > done {
            self.bg = Background::Flush {
                seg,
                cursor: media_end,
            };
        } else {
            self.segs[seg].dirty = false;
            self.idle = media_end;
            self.bg = Background::Idle;
        }
        let total = done.0 - t0.0;
        let media = st.seek_ns + st.rotation_ns + st.transfer_ns;
        let bd = if write_back {
            // The host saw only command and bus time (plus any wait for the previous flush).
            Breakdown {
                overhead_ns: total,
                ..Breakdown::default()
            }
        } else {
            Breakdown {
                seek_ns: st.seek_ns,
                rotation_ns: st.rotation_ns,
                transfer_ns: st.transfer_ns,
                overhead_ns: total.saturating_sub(media),
            }
        };
        Completion {
            id: req.id,
            start: t0,
            done,
            breakdown: bd,
            cache_hit: write_back,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn identical_drives_share_one_seek_table() {
        let p = crate::disk::presets::preset("wd-re3").unwrap();
        let a = Hdd::new(p.clone()).unwrap();
        let b = Hdd::new(p.clone()).unwrap();
        assert!(Arc::ptr_eq(&a.tm.seek_ns, &b.tm.seek_ns));
        let mut q = p;
        q.mech.seek = crate::disk::seek::SeekCurve::Table {
            points: vec![(0, 0.0), (1, 1.0), (350_000, 9.0)],
        };
        let c = Hdd::new(q).unwrap();
        assert!(!Arc::ptr_eq(&a.tm.seek_ns, &c.tm.seek_ns));
        assert_eq!(a.seek_ns(1000), b.seek_ns(1000));
    }

    #[test]
    fn fast_mod_is_exact() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let divisors = [
            1u64,
            2,
            3,
            999,
            5_973_000_000,
            5_973_180_546,
            4_000_000_001,
            u64::MAX,
        ];
        let random: Vec<u64> = (0..200).map(|_| rng.gen_range(1..u64::MAX)).collect();
        for d in divisors.into_iter().chain(random) {
            let f = FastMod::new(d);
            let check = |n: u64| {
                assert_eq!(f.rem(n), n % d, "{n} mod {d}");
                assert_eq!(f.div(n), n / d, "{n} / {d}");
            };
            for n in [0, 1, d - 1, d, d.wrapping_add(1), u64::MAX, u64::MAX - 1] {
                check(n);
            }
            for k in [1u64, 2, 3, 1_000, 1 << 20] {
                check(d.wrapping_mul(k));
                check(d.wrapping_mul(k).wrapping_sub(1));
            }
            for _ in 0..2_000 {
                check(rng.gen());
            }
        }
    }

    #[test]
    fn sector_edges_match_division() {
        for (period, spt) in [
            (5_973_180_546u64, 254u32),
            (6_000_000_000, 167),
            (7, 3),
            (10, 1),
        ] {
            for first in [0u64, 1, spt as u64 - 1, spt as u64 + 5] {
                let mut e = SectorEdges::new(period, spt, first);
                for j in 0..(3 * spt as u64) {
                    let s = (first + j) % spt as u64;
                    assert_eq!(e.angle_ps(), s * period / spt as u64);
                    e.advance();
                }
            }
        }
    }

    #[test]
    fn mod_period_is_mod() {
        for p in [1u64, 7, 5_973_180_546] {
            for v in [0, 1, p - 1, p, p + 1, 2 * p - 1, 2 * p, 5 * p + 3] {
                assert_eq!(mod_period(v, p), v % p);
            }
        }
    }
}

#[cfg(test)]
mod turnaround_tests {
    use super::*;

    /// A write's settle follows the command turnaround where the turnaround binds, and
    /// changes nothing where it does not (DiskSim's drives, which have none).
    #[test]
    fn a_writes_settle_comes_after_the_turnaround() {
        let (start, read, settle) = (SimTime(1_000_000), 475_000u64, 200_000u64);
        let write = read + settle;
        // Turnaround already over: the write's own positioning, as without one.
        assert_eq!(
            Hdd::after_turnaround(start, read, write, SimTime(900_000)),
            start + write
        );
        // Turnaround binding: a read starts when it ends, a write a settle later.
        let floor = start + 600_000;
        assert_eq!(Hdd::after_turnaround(start, read, read, floor), floor);
        assert_eq!(
            Hdd::after_turnaround(start, read, write, floor),
            floor + settle
        );
        // A negative settle (a calibrated drive's) never starts before the floor.
        assert_eq!(
            Hdd::after_turnaround(start, read, read - 100_000, floor),
            floor
        );
        assert_eq!(
            Hdd::after_turnaround(start, read, read - 100_000, SimTime(0)),
            start + (read - 100_000)
        );
    }
}

#[cfg(test)]
mod read_delay_tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The delay a host predicts for a read sent now, plus one sector's transfer and
    /// the completion, is the read's response, whatever the drive was doing (idle, or
    /// still reading ahead after the last read); a buffer hit is predicted as 0.
    #[test]
    fn read_delay_if_sent_matches_the_read_as_served() {
        for seed in [1u64, 2, 3] {
            let p = crate::disk::presets::preset("st34502lw").unwrap();
            let mut h = Hdd::new(p).unwrap();
            let cap = h.capacity();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut t = SimTime(0);
            let mut diffs = Vec::new();
            for i in 0..300u64 {
                // Some reads follow closely (read-ahead still running), some later.
                t += rng.gen_range(if i % 3 == 0 {
                    1..3_000_000
                } else {
                    20_000_000..40_000_000
                });
                let lbn = rng.gen_range(0..cap - 1);
                let pred = h.read_delay_if_sent(t, lbn);
                let req = Request {
                    id: i,
                    lbn,
                    blocks: 1,
                    write: false,
                };
                let c = h.service(t, req);
                if c.cache_hit {
                    assert_eq!(pred, 0);
                } else {
                    // What is left of the response: one sector's media and bus
                    // transfer and the completion (a little longer on inner zones).
                    diffs.push((c.done.0 - t.0) as i64 - pred as i64);
                }
                t = c.done;
            }
            let lo = *diffs.iter().min().unwrap();
            assert!(lo > 0, "{seed}: {lo}");
            assert!(diffs.iter().all(|&d| d - lo <= 50_000), "{seed}: {diffs:?}");
        }
    }
}

#[cfg(test)]
mod host_view_tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// On write-through drives with a command overhead the host cannot overlap (HP's,
    /// with their extra write disconnect, minimum write seek and a media write that
    /// waits for up to ten blocks of data; the thesis's 9LZX), the delay a host predicts
    /// for a request sent now, a read, a write of one block or ten, near the head or far,
    /// is its response less its media transfer and a constant for its kind and size
    /// (the bus transfer that does not overlap the media, the completion): what a
    /// host-level greedy scheduler ranks its waiting requests by.
    #[test]
    fn a_host_view_predicts_reads_and_writes_as_served() {
        for (disk, seed) in [("hp-c2249a", 1u64), ("hp-c2247a", 2), ("mimic-9lzx", 3)] {
            let p = crate::disk::presets::preset(disk).unwrap();
            let mut h = Hdd::new(p).unwrap();
            let cap = h.capacity();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut t = SimTime(0);
            let mut last = 0u64;
            // (write, ten blocks): response less media transfer less prediction.
            let mut diffs: [Vec<i64>; 4] = Default::default();
            for i in 0..800u64 {
                t += rng.gen_range(if i % 3 == 0 {
                    1..3_000_000
                } else {
                    20_000_000..40_000_000
                });
                // Reads of one block (a longer read's bus transfer overlaps its media
                // transfer by a zone-dependent amount); writes of one block or ten.
                let write = rng.gen_bool(0.6);
                let ten = write && rng.gen_bool(0.5);
                let blocks = if ten { 10 } else { 1 };
                // Half the requests at or just after the last one (appending to it, on
                // its track or the next few),
                // each within one track.
                let lbn = loop {
                    let l = if rng.gen_bool(0.5) {
                        (last + rng.gen_range(0..400)).min(cap - 100)
                    } else {
                        rng.gen_range(0..cap - 100)
                    };
                    let loc = h.geo.locate(l).unwrap();
                    if u64::from(loc.pbn.sector) + 10 < u64::from(loc.spt) {
                        break l;
                    }
                };
                let pred = h.host_view(t).delay(lbn, blocks, write);
                let c = h.service(
                    t,
                    Request {
                        id: i,
                        lbn,
                        blocks,
                        write,
                    },
                );
                if !c.cache_hit {
                    // The media transfer of ten blocks depends on the zone.
                    let media = c.breakdown.transfer_ns as i64;
                    let d = (c.done.0 - t.0) as i64 - media - pred as i64;
                    diffs[2 * write as usize + ten as usize].push(d);
                }
                last = lbn + u64::from(blocks);
                t = c.done;
            }
            for (kind, d) in ["read 1", "write 1", "write 10"]
                .iter()
                .zip([&diffs[0], &diffs[2], &diffs[3]])
            {
                let lo = *d.iter().min().unwrap();
                let hi = *d.iter().max().unwrap();
                assert!(lo >= 0, "{disk} {seed} {kind}: {lo}");
                assert!(hi - lo <= 200_000, "{disk} {seed} {kind}: {lo}..{hi}");
            }
        }
    }
}
