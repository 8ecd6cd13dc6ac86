//! Dynamic replica retrieval (§3.3; `[[layer]] kind = "drr"`): a read of a page whose
//! content also sits elsewhere on the disk goes to the copy that minimises head
//! movement, judged from an estimate of where the head is.
//!
//! * The head estimate is where the last completed **read** ended; write completions
//!   are ignored (a drive may report a write done from its cache). The direction of
//!   travel is the sign of the last move. With `elevator` set, the head movement a copy
//!   costs is counted as an elevator below would move: a copy ahead in the direction of
//!   travel is reached directly; one behind only after the sweep has reached the
//!   farthest request outstanding ahead (from the digest) and turned. With nothing
//!   outstanding ahead, the sweep turns at once and the cost is the plain distance (a
//!   far copy ahead never beats a near one behind on an idle disk).
//! * A read stays where it is when a request adjacent to it (ending where it starts, or
//!   starting where it ends) is in the digest of requests dispatched below and not yet
//!   complete: merging with it beats any redirection.
//! * Only reads of exactly one whole page are redirected (a longer read's pages may
//!   have copies in different places). Writes go through unchanged and move their page
//!   to its new content in the duplicate map; head movement is measured in sectors.
//! * Ordering. The host never asked for the copy a read is redirected to, so it cannot
//!   keep that read in order with its writes there; this layer does, as a scheduler
//!   below may serve its queue in any order. A read is never redirected to a copy with
//!   a write outstanding below (or waiting here), whose content depends on which the
//!   drive serves first; and a write to a page a redirected read is still reading
//!   waits here until that read completes. A write to a page another write below is
//!   still writing waits too: the duplicate map takes a page's content from the last
//!   write sent, so the drive must not serve them the other way round (a write
//!   never passes a waiting one on a page they share). The
//!   replicator's copy writes into scratch space wait the same way, behind reads
//!   redirected to the old copies there and behind an earlier round's copy writes.
//!
//! The duplicate map is the content cache's data structure (sector lists by content),
//! kept by this layer from the writes it sees and what is preloaded (as the paper
//! preloads it for its F10 runs).

use super::cache::{Addressing, CacheConfig, ContentCache};
use super::content::{ContentSource, UniqueContent};
use super::replace::Policy;
use super::{Digest, PAGE_SECTORS};
use crate::disk::hdd::Request;
use crate::node::{Done, NodeReport, Parts};
use crate::stack::layer::{Layer, LayerIo};
use crate::time::SimTime;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `[[layer]] kind = "drr"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DrrSpec {
    /// Prefer copies ahead of the head in its direction of travel (default true).
    #[serde(default = "default_elevator")]
    pub elevator: bool,
    /// Hash-table buckets of the duplicate map, as a power of two, 5..=25 (default 20).
    #[serde(default = "default_buckets_log2")]
    pub buckets_log2: u32,
    /// Pre-load the duplicate map with a generated disk image (the content-trace
    /// generator's layout, a synthetic stand-in for the FIU disks), as the paper
    /// pre-loads it for its F10 and F11 runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preload: Option<super::gen::ContentTraceSpec>,
    /// Selective duplication (§3.4): copies of popular content in scratch space.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selective: Option<super::selective::SelectiveSpec>,
}

fn default_elevator() -> bool {
    true
}
fn default_buckets_log2() -> u32 {
    20
}

impl Default for DrrSpec {
    fn default() -> Self {
        DrrSpec {
            elevator: true,
            buckets_log2: default_buckets_log2(),
            preload: None,
            selective: None,
        }
    }
}

impl DrrSpec {
    /// The layer, for a workload without content hashes (no copies are known unless
    /// preloaded).
    pub fn build(&self) -> Result<Drr, String> {
        self.build_with(Box::new(UniqueContent::default()))
    }

    /// Checks the settings without allocating the map.
    pub fn check(&self) -> Result<(), String> {
        use super::table::{MAX_BUCKETS_LOG2, MIN_BUCKETS_LOG2};
        if !(MIN_BUCKETS_LOG2..=MAX_BUCKETS_LOG2).contains(&self.buckets_log2) {
            return Err(format!(
                "drr buckets-log2 must be within {MIN_BUCKETS_LOG2}..={MAX_BUCKETS_LOG2}, got {}",
                self.buckets_log2
            ));
        }
        match &self.selective {
            Some(s) => s.check(),
            None => Ok(()),
        }
    }

    pub fn build_with(&self, source: Box<dyn ContentSource>) -> Result<Drr, String> {
        self.check()?;
        let map = ContentCache::new(CacheConfig {
            // The map caches nothing: it is only preloaded and relinked.
            pages: 1,
            policy: Policy::Lru,
            addressing: Addressing::Content,
            buckets_log2: self.buckets_log2,
        })
        .map_err(|e| format!("drr: {e}"))?;
        let sd = match &self.selective {
            Some(s) => Some(super::selective::Selective::new(s)?),
            None => None,
        };
        let mut d = Drr {
            spec: self.clone(),
            map,
            sd,
            parts: FxHashMap::default(),
            source,
            head: Head::default(),
            starts: FxHashMap::default(),
            ends: FxHashMap::default(),
            below: FxHashMap::default(),
            writing: FxHashMap::default(),
            redirected_out: FxHashMap::default(),
            held: VecDeque::new(),
            next_id: 0,
            replicas: Vec::new(),
            stats: DrrStats::default(),
        };
        if let Some(p) = &self.preload {
            let layout = p.layout().map_err(|e| format!("drr preload: {e}"))?;
            for (page, digest) in layout.pages() {
                let phys = d.phys_page(page);
                d.map.preload(phys, &digest);
            }
        }
        Ok(d)
    }
}

/// Where the head is thought to be.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Head {
    /// The sector after the last completed read, once one completed.
    pub at: Option<u64>,
    /// Moving toward higher sectors.
    pub up: bool,
}

impl Head {
    /// A read of `[lbn, end)` completed.
    pub fn read_done(&mut self, lbn: u64, end: u64) {
        if let Some(at) = self.at {
            if lbn != at {
                self.up = lbn > at;
            }
        } else {
            self.up = true;
        }
        self.at = Some(end);
    }

    /// Of the candidate start sectors, the one needing the least head movement. With
    /// `turn` (an elevator below whose sweep goes on to `turn`, the farthest outstanding
    /// request ahead), a candidate behind the head costs the way to `turn` and back; a
    /// `turn` not ahead of the head means the sweep turns here. Without it, the plain
    /// distance. Ties go to the earlier candidate, so the original (listed first) wins.
    pub fn choose(&self, candidates: &[u64], turn: Option<u64>) -> Option<u64> {
        let at = self.at?;
        let ahead = |x: u64| if self.up { x >= at } else { x <= at };
        let turn = turn.filter(|&t| ahead(t)).unwrap_or(at);
        let cost = |x: u64| {
            if ahead(x) {
                x.abs_diff(at)
            } else {
                turn.abs_diff(at) + turn.abs_diff(x)
            }
        };
        candidates.iter().copied().min_by_key(|&x| cost(x))
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrrStats {
    pub reads: u64,
    pub writes: u64,
    /// Reads sent to another copy.
    pub redirected: u64,
    /// Reads with copies kept in place because an adjacent request was outstanding.
    pub kept_for_merge: u64,
    /// Reads of one page with at least one other copy known.
    pub with_copies: u64,
    /// Sectors of head movement saved by redirection, by the estimate.
    pub sectors_saved: u64,
    /// Writes that waited for a redirected read of their page, or an earlier write to
    /// it, to complete.
    pub writes_held: u64,
    /// Copies passed over because a write to them was outstanding.
    pub copies_being_written: u64,
}

pub struct Drr {
    spec: DrrSpec,
    map: ContentCache<()>,
    /// Selective duplication: scratch volumes and the replicator.
    sd: Option<super::selective::Selective>,
    /// Requests from above sent below in pieces (across a scratch volume): pieces left
    /// and what the done ones reported.
    parts: FxHashMap<u64, (u32, Parts)>,
    source: Box<dyn ContentSource>,
    head: Head,
    /// The digest of requests dispatched below and not complete: how many start and
    /// end at each sector.
    starts: FxHashMap<u64, u32>,
    ends: FxHashMap<u64, u32>,
    /// The layer's requests below → (the request from above, where it was sent,
    /// whether that is a copy it was redirected to).
    below: FxHashMap<u64, (Request, u64, bool)>,
    /// Physical pages a write below is writing: how many.
    writing: FxHashMap<u64, u32>,
    /// Physical pages a redirected read below is reading: how many.
    redirected_out: FxHashMap<u64, u32>,
    /// Writes waiting for redirected reads of their pages or earlier writes to them,
    /// in arrival order.
    held: VecDeque<Request>,
    next_id: u64,
    replicas: Vec<u64>,
    stats: DrrStats,
}

/// Whether `page` is being written: by a write below (`writing`) or one waiting to go
/// (`held`).
fn being_written(writing: &FxHashMap<u64, u32>, held: &VecDeque<Request>, page: u64) -> bool {
    writing.contains_key(&page) || held.iter().any(|w| pages_of(w).any(|p| p == page))
}

/// Whether `a` and `b` share a page.
fn overlap(a: &Request, b: &Request) -> bool {
    let (ea, eb) = (
        (a.lbn + u64::from(a.blocks.max(1))).div_ceil(PAGE_SECTORS),
        (b.lbn + u64::from(b.blocks.max(1))).div_ceil(PAGE_SECTORS),
    );
    a.lbn / PAGE_SECTORS < eb && b.lbn / PAGE_SECTORS < ea
}

/// The pages `r` touches, whole or in part.
fn pages_of(r: &Request) -> impl Iterator<Item = u64> {
    let end = r.lbn + u64::from(r.blocks.max(1));
    r.lbn / PAGE_SECTORS..end.div_ceil(PAGE_SECTORS)
}

fn bump(m: &mut FxHashMap<u64, u32>, k: u64, up: bool) {
    if up {
        *m.entry(k).or_insert(0) += 1;
    } else if let Some(n) = m.get_mut(&k) {
        *n -= 1;
        if *n == 0 {
            m.remove(&k);
        }
    }
}

impl Drr {
    /// Records that `page` holds `digest` (the duplicate map learnt over the disk's
    /// lifetime).
    pub fn preload(&mut self, page: u64, digest: &Digest) {
        let phys = self.phys_page(page);
        self.map.preload(phys, digest);
    }

    /// The physical page of an exported one (scratch volumes skipped).
    fn phys_page(&self, page: u64) -> u64 {
        match &self.sd {
            Some(sd) => sd.phys_page(page),
            None => page,
        }
    }

    /// Sends `[lbn, lbn + blocks)` (physical) below for `req`; `redirected`: a read
    /// sent to a copy.
    fn send(&mut self, req: Request, lbn: u64, blocks: u32, redirected: bool, io: &mut LayerIo) {
        self.next_id += 1;
        let id = self.next_id;
        self.below.insert(id, (req, lbn, redirected));
        let out = Request {
            id,
            lbn,
            blocks,
            ..req
        };
        if req.write {
            self.write_below(out, io);
        } else {
            if redirected {
                bump(&mut self.redirected_out, lbn / PAGE_SECTORS, true);
            }
            self.dispatch(out, io);
        }
    }

    /// Puts `r` in the queue below and in the digest of requests outstanding there.
    fn dispatch(&mut self, r: Request, io: &mut LayerIo) {
        bump(&mut self.starts, r.lbn, true);
        bump(&mut self.ends, r.lbn + u64::from(r.blocks.max(1)), true);
        if r.write {
            for page in pages_of(&r) {
                bump(&mut self.writing, page, true);
            }
        }
        io.below.push(r);
    }

    /// A write below (this layer's or the replicator's): sent now, or held while a
    /// write or a redirected read below, or a write held here, is on one of its pages.
    fn write_below(&mut self, w: Request, io: &mut LayerIo) {
        if self.must_wait(&w) || self.held.iter().any(|h| overlap(h, &w)) {
            self.stats.writes_held += 1;
            self.held.push_back(w);
        } else {
            self.dispatch(w, io);
        }
    }

    /// Whether a write or a redirected read below is on a page `w` covers.
    fn must_wait(&self, w: &Request) -> bool {
        pages_of(w).any(|p| self.redirected_out.contains_key(&p) || self.writing.contains_key(&p))
    }

    fn being_written(&self, page: u64) -> bool {
        being_written(&self.writing, &self.held, page)
    }

    /// Sends the held writes that need not wait any longer, in order: one waits while
    /// an earlier held write shares a page with it.
    fn release(&mut self, io: &mut LayerIo) {
        let mut k = 0;
        while k < self.held.len() {
            let w = self.held[k];
            let behind = self.held.iter().take(k).any(|h| overlap(h, &w));
            if behind || self.must_wait(&w) {
                k += 1;
            } else {
                self.held.remove(k);
                self.dispatch(w, io);
            }
        }
    }

    /// The replicator's requests it put below from `mark` on: reads go below, writes
    /// as [`Self::write_below`] says.
    fn replicator_below(&mut self, mark: usize, io: &mut LayerIo) {
        for r in io.below.split_off(mark) {
            if r.write {
                self.write_below(r, io);
            } else {
                self.dispatch(r, io);
            }
        }
    }

    /// `r`, put below by [`Self::dispatch`], completed; if a write, the writes held
    /// behind it may go.
    fn completed_below(&mut self, r: &Request, io: &mut LayerIo) {
        bump(&mut self.starts, r.lbn, false);
        bump(&mut self.ends, r.lbn + u64::from(r.blocks.max(1)), false);
        if r.write {
            for page in pages_of(r) {
                bump(&mut self.writing, page, false);
            }
            self.release(io);
        }
    }

    pub fn stats(&self) -> DrrStats {
        self.stats
    }

    pub fn head(&self) -> Head {
        self.head
    }

    /// Where the elevator's sweep turns: the farthest outstanding request ahead of the
    /// head estimate in its direction of travel (`None`: none, it turns at once).
    fn turn(&self) -> Option<u64> {
        let at = self.head.at?;
        let keys = self.starts.keys().copied();
        if self.head.up {
            keys.filter(|&x| x >= at).max()
        } else {
            keys.filter(|&x| x <= at).min()
        }
    }

    /// Where a read of `req` goes.
    fn target(&mut self, req: &Request) -> u64 {
        let one_page = req.blocks as u64 == PAGE_SECTORS && req.lbn.is_multiple_of(PAGE_SECTORS);
        if !one_page {
            return req.lbn;
        }
        let page = req.lbn / PAGE_SECTORS;
        if let Some(sd) = &mut self.sd {
            if let Some(d) = self.map.known(page) {
                sd.note_read(&d, page);
            }
        }
        self.map.replicas(page, &mut self.replicas);
        if self.replicas.len() < 2 {
            return req.lbn;
        }
        self.stats.with_copies += 1;
        let end = req.lbn + PAGE_SECTORS;
        if self.ends.contains_key(&req.lbn) || self.starts.contains_key(&end) {
            self.stats.kept_for_merge += 1;
            return req.lbn;
        }
        // The original first, so it wins ties.
        let mut cands: Vec<u64> = Vec::with_capacity(self.replicas.len());
        cands.push(req.lbn);
        for &p in &self.replicas {
            if p * PAGE_SECTORS == req.lbn {
                continue;
            }
            // Its content depends on whether the drive serves the write first.
            if self.being_written(p) {
                self.stats.copies_being_written += 1;
                continue;
            }
            cands.push(p * PAGE_SECTORS);
        }
        let turn = if self.spec.elevator {
            self.turn()
        } else {
            None
        };
        let to = self.head.choose(&cands, turn).unwrap_or(req.lbn);
        if to != req.lbn {
            self.stats.redirected += 1;
            if let Some(at) = self.head.at {
                self.stats.sectors_saved += req.lbn.abs_diff(at).saturating_sub(to.abs_diff(at));
            }
        }
        to
    }
}

impl Layer for Drr {
    fn on_request(&mut self, now: SimTime, req: Request, io: &mut LayerIo) {
        if let Some(sd) = &mut self.sd {
            if let Some(t) = sd.arm(now) {
                io.timers.push((t, 0));
            }
        }
        // Exported to physical, in pieces where a scratch volume cuts the request.
        let pieces = match &self.sd {
            Some(sd) => sd.pieces(req.lbn, req.blocks),
            None => vec![(req.lbn, req.blocks)],
        };
        if req.write {
            self.stats.writes += 1;
            let start = req.lbn;
            let end = req.lbn + u64::from(req.blocks.max(1));
            for (k, page) in (start / PAGE_SECTORS..end.div_ceil(PAGE_SECTORS)).enumerate() {
                let whole = page * PAGE_SECTORS >= start && (page + 1) * PAGE_SECTORS <= end;
                let phys = self.phys_page(page);
                match self.source.content(req.id, true, page, k) {
                    Some(d) if whole => self.map.preload(phys, &d),
                    _ => self.map.invalidate(phys),
                }
            }
            self.source.finished(req.id);
        } else {
            self.stats.reads += 1;
            self.source.finished(req.id);
        }
        if pieces.len() == 1 {
            let (lbn, blocks) = pieces[0];
            let to = if req.write {
                lbn
            } else {
                self.target(&Request { lbn, ..req })
            };
            self.send(req, to, blocks, to != lbn, io);
        } else {
            self.parts
                .insert(req.id, (pieces.len() as u32, Parts::default()));
            for (lbn, blocks) in pieces {
                self.send(req, lbn, blocks, false, io);
            }
        }
    }

    fn on_complete(&mut self, now: SimTime, done: &Done, io: &mut LayerIo) {
        let mark = io.below.len();
        if let Some(sd) = &mut self.sd {
            if sd.completed(now, done, &mut self.map, io) {
                // Its next requests first: releasing held writes adds to `io.below`.
                self.replicator_below(mark, io);
                self.completed_below(&done.req, io);
                io.up.push(Done {
                    background: true,
                    ..*done
                });
                return;
            }
        }
        let Some((req, lbn, redirected)) = self.below.remove(&done.req.id) else {
            return;
        };
        self.completed_below(&done.req, io);
        if !req.write {
            self.head
                .read_done(lbn, lbn + u64::from(done.req.blocks.max(1)));
            if redirected {
                bump(&mut self.redirected_out, lbn / PAGE_SECTORS, false);
                self.release(io);
            }
        }
        if let Some((left, parts)) = self.parts.get_mut(&req.id) {
            *left -= 1;
            parts.absorb(done);
            if *left > 0 {
                return;
            }
            let done = Done {
                released: done.released,
                unit: done.unit,
                ..parts.done(req, now)
            };
            self.parts.remove(&req.id);
            io.up.push(done);
            return;
        }
        io.up.push(Done { req, ..*done });
    }

    fn on_timer(&mut self, now: SimTime, _token: u64, io: &mut LayerIo) {
        let mark = io.below.len();
        if let Some(sd) = &mut self.sd {
            let (writing, held) = (&self.writing, &self.held);
            sd.round(now, &mut self.map, &|p| being_written(writing, held, p), io);
        }
        self.replicator_below(mark, io);
    }

    fn outstanding(&self) -> usize {
        self.below.len()
    }

    fn capacity(&self, below: u64) -> u64 {
        match &self.sd {
            Some(sd) => sd.exported_sectors(below),
            None => below,
        }
    }

    fn describe(&self) -> String {
        format!(
            "drr (dynamic replica retrieval{}, duplicate map of 2^{} buckets)",
            if self.spec.elevator {
                ", elevator-aware"
            } else {
                ""
            },
            self.spec.buckets_log2
        )
    }

    fn report(&self, path: &str) -> NodeReport {
        let s = &self.stats;
        NodeReport {
            path: path.to_string(),
            kind: "drr".into(),
            reads: s.reads,
            writes: s.writes,
            busy_ns: 0,
            extra: vec![
                ("redirected".into(), s.redirected.to_string()),
                ("reads with copies".into(), s.with_copies.to_string()),
                ("kept for merging".into(), s.kept_for_merge.to_string()),
                ("writes held for ordering".into(), s.writes_held.to_string()),
                (
                    "copies passed over while written".into(),
                    s.copies_being_written.to_string(),
                ),
                ("sectors saved".into(), s.sectors_saved.to_string()),
                (
                    "sectors saved per redirect".into(),
                    (s.sectors_saved / s.redirected.max(1)).to_string(),
                ),
                ("pages mapped".into(), self.map.entries().to_string()),
            ]
            .into_iter()
            .chain(self.sd.iter().flat_map(|sd| sd.report()))
            .collect(),
            is_drive: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    fn read(id: u64, page: u64) -> Request {
        Request {
            id,
            lbn: page * PAGE_SECTORS,
            blocks: PAGE_SECTORS as u32,
            write: false,
        }
    }

    /// Completes the layer's request below that carries `id` from above.
    fn complete(d: &mut Drr, io: &mut LayerIo, id: u64) {
        let (&below, &(req, lbn, _)) = d.below.iter().find(|(_, (r, _, _))| r.id == id).unwrap();
        let done = Done::served(
            Request {
                id: below,
                lbn,
                ..req
            },
            SimTime(0),
            SimTime(1),
        );
        d.on_complete(SimTime(1), &done, io);
    }

    #[test]
    fn head_estimate_tracks_reads_and_direction() {
        let mut h = Head::default();
        assert_eq!(h.choose(&[100, 5], None), None);
        h.read_done(1000, 1008);
        assert!(h.up);
        h.read_done(500, 508);
        assert!(!h.up);
        assert_eq!(h.at, Some(508));
        // Moving down with nothing outstanding: the sweep turns at once, so 600 (92
        // behind) beats 400 (108 ahead).
        assert_eq!(h.choose(&[600, 400], None), Some(600));
        assert_eq!(h.choose(&[600, 400], Some(508)), Some(600));
        // A request outstanding at 300: 600 is reached only after the sweep to 300 and
        // back (208 + 300), 400 on the way (108).
        assert_eq!(h.choose(&[600, 400], Some(300)), Some(400));
        assert_eq!(h.choose(&[520, 400], Some(300)), Some(400));
        // A turn behind the head is no turn: the nearest.
        assert_eq!(h.choose(&[520, 400], Some(900)), Some(520));
        // Ties go to the first listed (the original).
        assert_eq!(h.choose(&[518, 498], None), Some(518));
    }

    #[test]
    fn reads_go_to_the_nearest_copy_unless_a_neighbour_is_outstanding() {
        let mut d = DrrSpec::default().build().unwrap();
        let mut io = LayerIo::default();
        let a = [7u8; 16];
        d.preload(10_000, &a);
        d.preload(20, &a);
        d.preload(500_000, &a);
        // Before any read completes there is no head estimate: no redirection.
        d.on_request(SimTime(0), read(1, 10_000), &mut io);
        assert_eq!(io.below.pop().unwrap().lbn, 10_000 * PAGE_SECTORS);
        complete(&mut d, &mut io, 1);
        // A read near the start of the disk moves the head there.
        d.on_request(SimTime(0), read(2, 30), &mut io);
        io.below.clear();
        complete(&mut d, &mut io, 2);
        assert_eq!(d.head().at, Some(31 * PAGE_SECTORS));
        d.on_request(SimTime(0), read(3, 10_000), &mut io);
        assert_eq!(io.below.pop().unwrap().lbn, 20 * PAGE_SECTORS);
        assert_eq!(d.stats().redirected, 1);
        // An outstanding read of page 9,999 is adjacent: page 10,000 stays put.
        d.on_request(SimTime(0), read(4, 9_999), &mut io);
        io.below.clear();
        d.on_request(SimTime(0), read(5, 10_000), &mut io);
        assert_eq!(io.below.pop().unwrap().lbn, 10_000 * PAGE_SECTORS);
        assert_eq!(d.stats().kept_for_merge, 1);
        // Completions go up as the requests from above.
        complete(&mut d, &mut io, 3);
        let up = io.up.pop().unwrap();
        assert_eq!((up.req.id, up.req.lbn), (3, 10_000 * PAGE_SECTORS));
        // The head is where the redirected read really went.
        assert_eq!(d.head().at, Some(21 * PAGE_SECTORS));
    }

    #[test]
    fn a_written_page_is_no_longer_a_copy() {
        // Without the elevator, page 20 (behind the head) would be the nearest copy.
        let spec = DrrSpec {
            elevator: false,
            ..DrrSpec::default()
        };
        let mut d = spec.build().unwrap();
        let mut io = LayerIo::default();
        let a = [7u8; 16];
        d.preload(10_000, &a);
        d.preload(20, &a);
        d.on_request(SimTime(0), read(1, 30), &mut io);
        complete(&mut d, &mut io, 1);
        // Page 20 is overwritten (new content, unknown to the map's other pages).
        d.on_request(
            SimTime(0),
            Request {
                id: 2,
                lbn: 20 * PAGE_SECTORS,
                blocks: 8,
                write: true,
            },
            &mut io,
        );
        complete(&mut d, &mut io, 2);
        io.below.clear();
        d.on_request(SimTime(0), read(3, 10_000), &mut io);
        assert_eq!(io.below.pop().unwrap().lbn, 10_000 * PAGE_SECTORS);
        assert_eq!(d.stats().redirected, 0);
    }

    #[test]
    fn redirects_through_the_engine_and_every_request_completes_once() {
        use crate::disk::presets::preset;
        use crate::engine::{self, RunOptions, Source};
        use crate::node::Device;
        use crate::sched::SchedulerKind;
        use crate::stack::queue::QueueSpec;
        use crate::stack::tree::build_from_params;
        use crate::trace::IoRecord;
        use rand::{Rng, SeedableRng};
        for seed in 0..3 {
            let disk = preset("mimic-base").unwrap();
            let b = build_from_params(&[disk], &QueueSpec::new(SchedulerKind::Sstf)).unwrap();
            let pages = b.units.units[0].1 / PAGE_SECTORS;
            let mut drr = DrrSpec::default().build().unwrap();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            // 200 contents, each at 4 pages spread over the disk.
            let hot: Vec<u64> = (0..200).map(|_| rng.gen_range(0..pages)).collect();
            for (c, &p) in hot.iter().enumerate() {
                let d = [
                    c as u8,
                    (c >> 8) as u8,
                    1,
                    2,
                    3,
                    4,
                    5,
                    6,
                    7,
                    8,
                    9,
                    10,
                    11,
                    12,
                    13,
                    14,
                ];
                drr.preload(p, &d);
                for _ in 0..3 {
                    drr.preload(rng.gen_range(0..pages), &d);
                }
            }
            let recs: Vec<IoRecord> = (0..2_000u64)
                .map(|i| IoRecord {
                    arrival: SimTime(i * 2_000_000),
                    device: 0,
                    lbn: hot[rng.gen_range(0..hot.len())] * PAGE_SECTORS,
                    blocks: 8,
                    write: rng.gen_bool(0.1),
                    content: Vec::new(),
                })
                .collect();
            let mut root = crate::stack::layer::LayerNode::new(Box::new(drr), b.root);
            let mut n = 0;
            let totals = engine::run(
                &mut root,
                &b.units,
                Source::records(&recs),
                RunOptions::default(),
                &mut |l| {
                    assert_eq!(l.lbn, recs[l.id as usize].lbn, "completes as issued");
                    n += 1;
                },
            )
            .unwrap();
            assert_eq!((totals.requests, n), (2_000, 2_000));
            let mut nodes = Vec::new();
            root.report("stack", &mut nodes);
            let redirected: u64 = nodes[0]
                .extra
                .iter()
                .find(|(k, _)| k == "redirected")
                .and_then(|(_, v)| v.parse().ok())
                .unwrap();
            assert!(redirected > 0, "seed {seed}: {:?}", nodes[0]);
        }
    }

    /// What no request ever wrote: the content of scratch space, and of a copy whose
    /// source read returned content the test could not know.
    const UNKNOWN: Digest = [0xff; 16];

    /// The drive's bytes under a queue that serves its requests in any order: a host
    /// that never reads a page it has a request out on must read what it last wrote
    /// there, wherever a read is redirected, with and without selective duplication.
    #[test]
    fn reads_return_the_last_write_whatever_order_the_drive_serves() {
        use rand::{Rng, SeedableRng};
        for (seed, selective) in (0..6u64).map(|s| (s, s % 2 == 1)) {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let contents: Vec<Digest> = (0..3u8).map(|c| [c; 16]).collect();
            let host_pages: Vec<u64> = (0..40).map(|k| k * 15).collect();
            let spec = DrrSpec {
                selective: selective.then(|| super::super::selective::SelectiveSpec {
                    period_s: 2.0,
                    ..super::super::selective::SelectiveSpec::new(4, 600)
                }),
                ..DrrSpec::default()
            };
            let given = Rc::new(RefCell::new(FxHashMap::default()));
            let mut d = spec.build_with(Box::new(Shared(given.clone()))).unwrap();
            // The host's view of each page, and the drive's bytes of each physical page.
            let mut view: FxHashMap<u64, Digest> = FxHashMap::default();
            let mut disk: FxHashMap<u64, Digest> = FxHashMap::default();
            for &p in &host_pages {
                let c = contents[rng.gen_range(0..3)];
                d.preload(p, &c);
                view.insert(p, c);
                disk.insert(d.phys_page(p), c);
            }
            let mut io = LayerIo::default();
            let mut queue: Vec<Request> = Vec::new();
            // Host requests out: id → (page, write).
            let mut out: FxHashMap<u64, (u64, bool)> = FxHashMap::default();
            // What the replicator's source reads returned: (round, source page).
            let mut read_back: FxHashMap<(u64, u64), Digest> = FxHashMap::default();
            let (mut timer, mut now, mut next_id) = (None, 0u64, 1u64);
            let (mut reads_checked, mut redirected_checked) = (0, 0);
            for _step in 0..10_000 {
                now += 200_000_000;
                if timer.is_some_and(|t: SimTime| t.0 <= now) {
                    timer = None;
                    d.on_timer(SimTime(now), 0, &mut io);
                } else if rng.gen_bool(0.5) || queue.is_empty() {
                    let page = host_pages[rng.gen_range(0..host_pages.len())];
                    let write = rng.gen_bool(0.4);
                    // The host never reads a page while it has a request out on it,
                    // and never writes one it is reading; its writes may overlap (the
                    // last one sent is what the page then holds).
                    if out.values().any(|&(p, w)| p == page && !(w && write)) {
                        continue;
                    }
                    let id = next_id;
                    next_id += 1;
                    if write {
                        let c = contents[rng.gen_range(0..3)];
                        given.borrow_mut().insert(id, c);
                        view.insert(page, c);
                    }
                    out.insert(id, (page, write));
                    let req = Request {
                        id,
                        lbn: page * PAGE_SECTORS,
                        blocks: PAGE_SECTORS as u32,
                        write,
                    };
                    d.on_request(SimTime(now), req, &mut io);
                } else {
                    // The drive serves any request of its queue next.
                    let r = queue.swap_remove(rng.gen_range(0..queue.len()));
                    let page = r.lbn / PAGE_SECTORS;
                    let job = d.sd.as_ref().and_then(|sd| sd.job_sources(r.id));
                    let served = disk.get(&page).copied().unwrap_or(UNKNOWN);
                    let host = d.below.get(&r.id).map(|b| b.0.id);
                    match (&job, r.write) {
                        (Some((round, sources, false)), _) => {
                            read_back.insert((*round, sources[0]), served);
                        }
                        (Some((round, sources, true)), _) => {
                            for (k, src) in sources.iter().enumerate() {
                                let c = read_back.get(&(*round, *src)).copied();
                                disk.insert(page + k as u64, c.unwrap_or(UNKNOWN));
                            }
                        }
                        (None, true) if d.sd.is_some() && host.is_none() => {
                            // An earlier round's copy write: its bytes are not known.
                            for k in 0..u64::from(r.blocks) / PAGE_SECTORS {
                                disk.insert(page + k, UNKNOWN);
                            }
                        }
                        (None, true) => {
                            let c = given.borrow().get(&host.unwrap()).copied().unwrap();
                            disk.insert(page, c);
                        }
                        (None, false) => {}
                    }
                    d.on_complete(
                        SimTime(now),
                        &Done::served(r, SimTime(now), SimTime(now)),
                        &mut io,
                    );
                    for up in io.up.drain(..).filter(|u| !u.background) {
                        let (page, write) = out.remove(&up.req.id).unwrap();
                        if !write {
                            assert_eq!(
                                served,
                                view[&page],
                                "seed {seed}: read {} of page {page} served from physical \
                                 page {} returned other bytes than last written",
                                up.req.id,
                                r.lbn / PAGE_SECTORS
                            );
                            reads_checked += 1;
                            redirected_checked +=
                                u32::from(r.lbn / PAGE_SECTORS != d.phys_page(page));
                        }
                    }
                }
                queue.append(&mut io.below);
                if let Some(t) = io.timers.pop() {
                    timer = Some(t.0);
                }
                io.up.retain(|u| !u.background);
                assert!(io.up.is_empty(), "completions only as the drive serves");
            }
            // Everything completes once the drive serves what it holds.
            while let Some(r) = queue.pop() {
                let host = d.below.get(&r.id).map(|b| b.0.id);
                d.on_complete(
                    SimTime(now),
                    &Done::served(r, SimTime(now), SimTime(now)),
                    &mut io,
                );
                queue.append(&mut io.below);
                if let Some(id) = host.filter(|_| io.up.iter().any(|u| !u.background)) {
                    out.remove(&id);
                }
                io.up.clear();
            }
            assert!(
                out.is_empty() && d.held.is_empty(),
                "seed {seed}: requests left"
            );
            assert!(reads_checked > 400, "seed {seed}: {reads_checked} reads");
            assert!(
                redirected_checked > 50,
                "seed {seed}: {redirected_checked} redirected"
            );
            if selective {
                let placed = d.sd.as_ref().unwrap().stats().placed;
                assert!(placed > 0, "seed {seed}: no copies placed");
            }
        }
    }

    /// Writes carry the content the test gives them, as it goes.
    struct Shared(Rc<RefCell<FxHashMap<u64, Digest>>>);
    impl ContentSource for Shared {
        fn content(&mut self, id: u64, write: bool, _page: u64, _k: usize) -> Option<Digest> {
            write.then(|| self.0.borrow().get(&id).copied()).flatten()
        }
    }
}
