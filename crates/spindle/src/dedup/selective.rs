//! Selective duplication (§3.4; `selective = {…}` of `[[layer]] kind = "drr"`): copies
//! of popular content written to scratch space spread over the disk, so that dynamic
//! replica retrieval has more copies to choose from.
//!
//! * **Scratch space** (Fig. 7): `volumes` scratch volumes of `scratch-pages` each sit
//!   between `volumes + 1` equal segments of the first `span-pages` exported pages; the
//!   layer above sees one contiguous volume (exported page → physical page skips the
//!   scratch volumes before it). Requests crossing a scratch volume go below in pieces.
//! * **Popularity**: the paper finds popular content "by extending the ARC replacement
//!   algorithm used for the content-addressed cache" across days (§3.4). Here an ARC
//!   directory (lists only, no pages) of as many contents as the scratch space holds
//!   sees every foreground read's content and is never reset between rounds: its T2
//!   holds the contents read at least twice within its history (about twice its size
//!   in distinct contents, however many days that spans), ARC's own notion of
//!   frequency.
//! * **Rounds**: at the end of each period with foreground activity (the paper runs
//!   daily, in low-activity periods), the directory's T2 is taken, most recent first
//!   (it never holds more than the scratch space does); the previous
//!   round's copies are dropped from the duplicate map; one copy of each is read (real
//!   read I/O), and once all reads completed, `copies` copies of each are written
//!   (copy j to volume j mod `volumes`), contiguous runs of at most 256 pages (real
//!   write I/O). A copy enters the duplicate map when its write completes, with the
//!   content its source held when the source read completed. These requests are the
//!   layer's own: they go up as background completions (logged apart, counted here).

use super::cache::ContentCache;
use super::replace::{Policy, Replacer};
use super::{Digest, PAGE_SECTORS};
use crate::disk::hdd::Request;
use crate::node::Done;
use crate::stack::layer::LayerIo;
use crate::time::SimTime;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// `selective = {…}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SelectiveSpec {
    /// Copies of each popular content (the paper: 10), 1..=64.
    #[serde(default = "default_copies")]
    pub copies: u32,
    /// Scratch volumes (the paper's Fig. 7: 5), 1..=64.
    #[serde(default = "default_volumes")]
    pub volumes: u32,
    /// Pages of each scratch volume, 1..=2^28.
    pub scratch_pages: u64,
    /// Exported pages over which the scratch volumes are spread (the file system's
    /// span; pages past it follow the last volume), volumes+1..=2^40.
    pub span_pages: u64,
    /// Time between rounds, s (the paper: daily), 1..=10^7.
    #[serde(default = "default_period")]
    pub period_s: f64,
}

fn default_copies() -> u32 {
    10
}
fn default_volumes() -> u32 {
    5
}
fn default_period() -> f64 {
    86_400.0
}

impl SelectiveSpec {
    pub fn new(scratch_pages: u64, span_pages: u64) -> SelectiveSpec {
        SelectiveSpec {
            copies: default_copies(),
            volumes: default_volumes(),
            scratch_pages,
            span_pages,
            period_s: default_period(),
        }
    }

    pub(crate) fn check(&self) -> Result<(), String> {
        let bad = |what: &str, v: String| Err(format!("drr selective {what}, got {v}"));
        if !(1..=64).contains(&self.copies) {
            return bad("copies must be within 1..=64", self.copies.to_string());
        }
        if !(1..=64).contains(&self.volumes) {
            return bad("volumes must be within 1..=64", self.volumes.to_string());
        }
        if !(1..=1 << 28).contains(&self.scratch_pages) {
            return bad(
                "scratch-pages must be within 1..=2^28",
                self.scratch_pages.to_string(),
            );
        }
        if !(u64::from(self.volumes) + 1..=1 << 40).contains(&self.span_pages) {
            return bad(
                "span-pages must be within volumes+1..=2^40",
                self.span_pages.to_string(),
            );
        }
        if !(self.period_s.is_finite() && (1.0..=1e7).contains(&self.period_s)) {
            return bad(
                "period-s must be within 1..=10^7",
                self.period_s.to_string(),
            );
        }
        Ok(())
    }
}

/// The replicator's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SelectiveStats {
    pub rounds: u64,
    pub contents: u64,
    pub read_pages: u64,
    pub write_pages: u64,
    pub requests: u64,
    /// Copies that entered the duplicate map, over all rounds.
    pub placed: u64,
    /// Drive time of the replicator's requests, ns.
    pub busy_ns: u64,
}

/// One of the replicator's requests below.
enum Job {
    Read {
        round: u64,
        index: usize,
        page: u64,
        /// What the page held when the read went below.
        issued: Option<Digest>,
    },
    Write {
        round: u64,
        first_page: u64,
        first: usize,
        pages: u64,
    },
}

/// Contents the scratch space holds (each volume holds `copies / volumes` of each,
/// rounded up).
fn room(spec: &SelectiveSpec) -> u64 {
    let per_volume = u64::from(spec.copies.div_ceil(spec.volumes));
    (spec.scratch_pages / per_volume).max(1)
}

/// Ids of the replicator's requests (apart from the layer's own).
const ID_BASE: u64 = 1 << 62;
/// Largest copy write, pages.
const MAX_RUN: u64 = 256;

pub struct Selective {
    spec: SelectiveSpec,
    segment: u64,
    /// The popularity directory over content numbers, the numbers of the contents it
    /// tracks, and each number's content and a physical page last read holding it.
    arc: Replacer,
    ids: FxHashMap<Digest, u32>,
    by_id: Vec<(Digest, u64)>,
    free_ids: Vec<u32>,
    dropped: Vec<u32>,
    armed: bool,
    round: u64,
    /// This round's contents: (source page, content when its read completed).
    chosen: Vec<(u64, Option<Digest>)>,
    reads_left: usize,
    /// Copies in the duplicate map (dropped at the next round).
    placed: Vec<u64>,
    jobs: FxHashMap<u64, Job>,
    next_id: u64,
    stats: SelectiveStats,
}

impl Selective {
    pub fn new(spec: &SelectiveSpec) -> Result<Selective, String> {
        spec.check()?;
        Ok(Selective {
            segment: spec.span_pages / (u64::from(spec.volumes) + 1),
            spec: spec.clone(),
            arc: Replacer::new(Policy::Arc, room(spec) as usize),
            ids: FxHashMap::default(),
            by_id: Vec::new(),
            free_ids: Vec::new(),
            dropped: Vec::new(),
            armed: false,
            round: 0,
            chosen: Vec::new(),
            reads_left: 0,
            placed: Vec::new(),
            jobs: FxHashMap::default(),
            next_id: ID_BASE,
            stats: SelectiveStats::default(),
        })
    }

    pub fn stats(&self) -> SelectiveStats {
        self.stats
    }

    fn scratch_total(&self) -> u64 {
        u64::from(self.spec.volumes) * self.spec.scratch_pages
    }

    /// Sectors the layer above sees.
    pub fn exported_sectors(&self, below: u64) -> u64 {
        below.saturating_sub(self.scratch_total() * PAGE_SECTORS)
    }

    /// Scratch volumes before exported page `page`.
    fn volumes_before(&self, page: u64) -> u64 {
        (page / self.segment).min(u64::from(self.spec.volumes))
    }

    pub fn phys_page(&self, page: u64) -> u64 {
        page + self.volumes_before(page) * self.spec.scratch_pages
    }

    fn scratch_start(&self, v: u64) -> u64 {
        (v + 1) * self.segment + v * self.spec.scratch_pages
    }

    /// `[lbn, lbn + blocks)` exported, as physical pieces.
    pub fn pieces(&self, lbn: u64, blocks: u32) -> Vec<(u64, u32)> {
        let seg = self.segment * PAGE_SECTORS;
        let mut out = Vec::with_capacity(1);
        let (mut at, end) = (lbn, lbn + u64::from(blocks.max(1)));
        while at < end {
            let before = (at / seg).min(u64::from(self.spec.volumes));
            let cut = if before < u64::from(self.spec.volumes) {
                end.min((before + 1) * seg)
            } else {
                end
            };
            out.push((
                at + before * self.spec.scratch_pages * PAGE_SECTORS,
                (cut - at) as u32,
            ));
            at = cut;
        }
        out
    }

    /// A foreground read of content `d` at physical `page`.
    pub fn note_read(&mut self, d: &Digest, page: u64) {
        let id = match self.ids.get(d) {
            Some(&id) => id,
            None => {
                let id = self.free_ids.pop().unwrap_or(self.by_id.len() as u32);
                if id as usize == self.by_id.len() {
                    self.by_id.push((*d, page));
                }
                self.ids.insert(*d, id);
                id
            }
        };
        self.by_id[id as usize] = (*d, page);
        if self.arc.cached(id) {
            self.arc.hit(id);
        } else {
            self.arc.insert(id, &mut self.dropped);
            // Contents the directory forgot free their numbers.
            for x in std::mem::take(&mut self.dropped) {
                if !self.arc.tracked(x) {
                    self.ids.remove(&self.by_id[x as usize].0);
                    self.free_ids.push(x);
                }
            }
        }
    }

    /// Foreground activity at `now`: the time of the next round if none is set.
    pub fn arm(&mut self, now: SimTime) -> Option<SimTime> {
        if self.armed {
            return None;
        }
        self.armed = true;
        let period = (self.spec.period_s * 1e9) as u64;
        Some(SimTime((now.0 / period + 1) * period))
    }

    fn id(&mut self, job: Job) -> u64 {
        self.next_id += 1;
        self.jobs.insert(self.next_id, job);
        self.next_id
    }

    /// A round: choose, drop the old copies, read the sources. `being_written`: a
    /// physical page with a write outstanding below; such a source is read but not
    /// copied (the drive may serve the write before or after the read).
    pub fn round(
        &mut self,
        _now: SimTime,
        map: &mut ContentCache<()>,
        being_written: &dyn Fn(u64) -> bool,
        io: &mut LayerIo,
    ) {
        self.armed = false;
        self.round += 1;
        self.stats.rounds += 1;
        for p in self.placed.drain(..) {
            map.invalidate(p);
        }
        let mut ids = Vec::new();
        self.arc.frequent(&mut ids);
        ids.truncate(room(&self.spec) as usize);
        let pages: Vec<u64> = ids.iter().map(|&x| self.by_id[x as usize].1).collect();
        self.chosen = pages.iter().map(|&p| (p, None)).collect();
        self.reads_left = self.chosen.len();
        for (index, &page) in pages.iter().enumerate() {
            let round = self.round;
            let issued = map.known(page).filter(|_| !being_written(page));
            let id = self.id(Job::Read {
                round,
                index,
                page,
                issued,
            });
            self.stats.read_pages += 1;
            self.stats.requests += 1;
            io.below.push(Request {
                id,
                lbn: page * PAGE_SECTORS,
                blocks: PAGE_SECTORS as u32,
                write: false,
            });
        }
    }

    /// The copies' writes, once every source was read.
    fn write_copies(&mut self, io: &mut LayerIo) {
        self.chosen.retain(|(_, d)| d.is_some());
        let n = self.chosen.len() as u64;
        self.stats.contents += n;
        let room = room(&self.spec);
        for j in 0..u64::from(self.spec.copies) {
            let v = j % u64::from(self.spec.volumes);
            let base = self.scratch_start(v) + (j / u64::from(self.spec.volumes)) * room;
            let mut first = 0;
            while first < n {
                let pages = (n - first).min(MAX_RUN);
                let round = self.round;
                let first_page = base + first;
                let id = self.id(Job::Write {
                    round,
                    first_page,
                    first: first as usize,
                    pages,
                });
                self.stats.write_pages += pages;
                self.stats.requests += 1;
                io.below.push(Request {
                    id,
                    lbn: first_page * PAGE_SECTORS,
                    blocks: (pages * PAGE_SECTORS) as u32,
                    write: true,
                });
                first += pages;
            }
        }
    }

    /// Takes `done` if it is the replicator's (true), updating the duplicate map.
    pub fn completed(
        &mut self,
        _now: SimTime,
        done: &Done,
        map: &mut ContentCache<()>,
        io: &mut LayerIo,
    ) -> bool {
        let Some(job) = self.jobs.remove(&done.req.id) else {
            return false;
        };
        self.stats.busy_ns += done.done.0.saturating_sub(done.start.0);
        match job {
            Job::Read {
                round,
                index,
                page,
                issued,
            } if round == self.round => {
                // A write to the page was below with the read (issued: None), or went
                // below while it was out: which content the read returned depends on
                // their order at the drive, so no copy.
                let now = map.known(page);
                self.chosen[index].1 = issued.filter(|_| now == issued);
                self.reads_left -= 1;
                if self.reads_left == 0 {
                    self.write_copies(io);
                }
            }
            Job::Write {
                round,
                first_page,
                first,
                pages,
            } if round == self.round => {
                for k in 0..pages {
                    if let Some(d) = self.chosen[first + k as usize].1 {
                        map.preload(first_page + k, &d);
                        self.placed.push(first_page + k);
                        self.stats.placed += 1;
                    }
                }
            }
            // A job of an earlier round: its copies are not used.
            _ => {}
        }
        true
    }
}

impl Selective {
    /// For tests that model the drive's bytes: the replicator's request `id` below as
    /// (its round, the source pages it reads or copies, whether it writes).
    #[cfg(test)]
    pub(crate) fn job_sources(&self, id: u64) -> Option<(u64, Vec<u64>, bool)> {
        match self.jobs.get(&id)? {
            Job::Read { round, page, .. } => Some((*round, vec![*page], false)),
            Job::Write {
                round,
                first,
                pages,
                ..
            } => {
                let chosen = (*round == self.round).then_some(&self.chosen)?;
                let sources = (0..*pages as usize).map(|k| chosen[first + k].0);
                Some((*round, sources.collect(), true))
            }
        }
    }

    /// Report rows.
    pub fn report(&self) -> Vec<(String, String)> {
        let s = &self.stats;
        vec![
            ("duplication rounds".into(), s.rounds.to_string()),
            ("contents duplicated".into(), s.contents.to_string()),
            ("duplication read pages".into(), s.read_pages.to_string()),
            ("duplication write pages".into(), s.write_pages.to_string()),
            ("duplication requests".into(), s.requests.to_string()),
            (
                "duplication drive time".into(),
                format!("{:.3} s", s.busy_ns as f64 / 1e9),
            ),
            ("copies mapped".into(), self.placed.len().to_string()),
            ("copies placed".into(), s.placed.to_string()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remapping_skips_scratch_and_splits_across_it() {
        let mut spec = SelectiveSpec::new(10, 600);
        spec.volumes = 5;
        let sd = Selective::new(&spec).unwrap();
        // Segments of 100 pages; volume v starts at (v+1)·100 + 10v.
        assert_eq!(sd.phys_page(0), 0);
        assert_eq!(sd.phys_page(99), 99);
        assert_eq!(sd.phys_page(100), 110);
        assert_eq!(sd.phys_page(599), 599 + 50);
        assert_eq!(sd.phys_page(10_000), 10_050);
        assert_eq!(sd.scratch_start(0), 100);
        assert_eq!(sd.scratch_start(4), 540);
        // Exported pages never land in scratch space.
        let scratch: Vec<std::ops::Range<u64>> = (0..5)
            .map(|v| sd.scratch_start(v)..sd.scratch_start(v) + 10)
            .collect();
        for e in 0..700 {
            let p = sd.phys_page(e);
            assert!(scratch.iter().all(|r| !r.contains(&p)), "{e} → {p}");
        }
        // A request from page 98 to 102 goes below in two pieces.
        let pieces = sd.pieces(98 * 8, 32);
        assert_eq!(pieces, vec![(98 * 8, 16), (110 * 8, 16)]);
        assert_eq!(sd.exported_sectors(1_000_000), 1_000_000 - 400);
        spec.copies = 0;
        assert!(Selective::new(&spec)
            .err()
            .unwrap()
            .contains("copies must be within 1..=64, got 0"));
    }
}

#[cfg(test)]
mod through_drr {
    use super::*;
    use crate::dedup::content::ContentSource;
    use crate::dedup::drr::DrrSpec;
    use crate::stack::layer::Layer;

    /// Writes carry the content the test says; reads carry nothing.
    struct Writes(FxHashMap<u64, Digest>);
    impl ContentSource for Writes {
        fn content(&mut self, id: u64, write: bool, _page: u64, _k: usize) -> Option<Digest> {
            if write {
                self.0.get(&id).copied()
            } else {
                None
            }
        }
    }

    fn req(id: u64, page: u64, write: bool) -> Request {
        Request {
            id,
            lbn: page * PAGE_SECTORS,
            blocks: PAGE_SECTORS as u32,
            write,
        }
    }

    /// Completes every request below, in order; returns them.
    fn drain(d: &mut crate::dedup::Drr, io: &mut LayerIo) -> Vec<Request> {
        let mut all = Vec::new();
        while !io.below.is_empty() {
            let below: Vec<Request> = std::mem::take(&mut io.below);
            for r in below {
                all.push(r);
                let done = Done::served(r, SimTime(0), SimTime(1));
                d.on_complete(SimTime(1), &done, io);
            }
        }
        all
    }

    /// DRR with selective duplication (4 copies, 600-page segments, a round every 10
    /// s) over a workload whose request 100 writes content B.
    fn drr_writing_b_at_100() -> crate::dedup::Drr {
        let mut spec = SelectiveSpec::new(4, 600);
        spec.period_s = 10.0;
        let drr = DrrSpec {
            elevator: false,
            selective: Some(spec),
            ..DrrSpec::default()
        };
        let mut src = Writes(FxHashMap::default());
        src.0.insert(100, [0xbb; 16]);
        drr.build_with(Box::new(src)).unwrap()
    }

    /// [`drr_writing_b_at_100`] with page 10 holding A, read twice (popular), and the
    /// time of the round that will copy it.
    fn page_10_popular() -> (crate::dedup::Drr, LayerIo, u64, SimTime) {
        let mut d = drr_writing_b_at_100();
        let mut io = LayerIo::default();
        let page = 10;
        d.preload(page, &[0xaa; 16]);
        for id in 1..=2 {
            d.on_request(SimTime(0), req(id, page, false), &mut io);
        }
        let t = io.timers.pop().unwrap().0;
        drain(&mut d, &mut io);
        io.up.clear();
        (d, io, page, t)
    }

    #[test]
    fn a_source_overwritten_while_read_is_not_copied() {
        let (mut d, mut io, page, t) = page_10_popular();
        // The round's source read goes below; a write of B to the page follows it
        // before it completes: the drive may serve them in either order.
        d.on_timer(t, 0, &mut io);
        assert_eq!(io.below.len(), 1, "the source read");
        d.on_request(SimTime(1), req(100, page, true), &mut io);
        let below = drain(&mut d, &mut io);
        let copies = below
            .iter()
            .filter(|r| r.write && r.lbn / PAGE_SECTORS != page);
        assert_eq!(copies.count(), 0, "a copy of unknown content was written");
    }

    #[test]
    fn a_source_with_a_write_below_is_not_copied() {
        let (mut d, mut io, page, t) = page_10_popular();
        // A write of B goes below first and is still out when the round reads the
        // page; the drive serves the read first, so it returns A, not B.
        d.on_request(SimTime(1), req(100, page, true), &mut io);
        let write = io.below.pop().unwrap();
        d.on_timer(t, 0, &mut io);
        let read = io.below.pop().unwrap();
        assert!(!read.write && io.below.is_empty());
        d.on_complete(
            SimTime(2),
            &Done::served(read, SimTime(1), SimTime(2)),
            &mut io,
        );
        d.on_complete(
            SimTime(3),
            &Done::served(write, SimTime(2), SimTime(3)),
            &mut io,
        );
        let below = drain(&mut d, &mut io);
        assert!(
            below.iter().all(|r| !r.write),
            "a copy labelled with the content of a write the read may not have seen"
        );
    }

    #[test]
    fn copies_serve_reads_until_the_source_is_overwritten() {
        for seed in 0..3u64 {
            let mut d = drr_writing_b_at_100();
            let mut io = LayerIo::default();
            let a = [0xaa; 16];
            let page = 10 + seed;
            d.preload(page, &a);
            // Two reads of A make it popular; the round's timer is set.
            for id in 1..=2 {
                d.on_request(SimTime(0), req(id, page, false), &mut io);
            }
            assert_eq!(io.timers.len(), 1, "one round armed");
            let t = io.timers.pop().unwrap().0;
            drain(&mut d, &mut io);
            io.up.clear();
            d.on_timer(t, 0, &mut io);
            let sd_reqs = drain(&mut d, &mut io);
            // One source read, ten one-page copy writes, all handed up as background.
            assert_eq!(sd_reqs.iter().filter(|r| !r.write).count(), 1);
            assert_eq!(sd_reqs.iter().filter(|r| r.write).count(), 10);
            assert!(io.up.iter().all(|u| u.background) && io.up.len() == 11);
            io.up.clear();
            // Segments of 100 pages, scratch volume v at (v+1)·100 + 4v: volume 4 is
            // physical 516..520. With the head past it (exported 590 = physical 610), a
            // read of A goes to a copy there.
            d.on_request(SimTime(2), req(3, 590, false), &mut io);
            drain(&mut d, &mut io);
            d.on_request(SimTime(2), req(4, page, false), &mut io);
            let went = io.below[0].lbn / PAGE_SECTORS;
            assert!(
                (516..520).contains(&went),
                "seed {seed}: read of A went to {went}"
            );
            drain(&mut d, &mut io);
            // Page is overwritten with B: its old copies no longer serve it.
            d.on_request(SimTime(3), req(100, page, true), &mut io);
            drain(&mut d, &mut io);
            d.on_request(SimTime(3), req(5, 590, false), &mut io);
            drain(&mut d, &mut io);
            d.on_request(SimTime(4), req(6, page, false), &mut io);
            assert_eq!(
                io.below[0].lbn / PAGE_SECTORS,
                page,
                "seed {seed}: stale copy served"
            );
        }
    }
}
