//! DiskSim's controller memory cache (`disksim_cachemem` in an intelligent controller,
//! `disksim_ctlrsmart.c` and `disksim_cachemem.c`) as a device over the controller's
//! queue to its disk.
//!
//! The cache is fully associative: `lines` lines of `line_sectors` sectors each, a valid
//! and a dirty bit per sector, replaced least recently used first (DiskSim's segmented
//! LRU with one segment: a line moves to the recent end when a request that used it
//! completes). Writes are write-back: a write allocates its lines and completes at once;
//! dirty data goes to the disk only when its line is chosen for replacement (flush
//! policy 0, no idle flushes). A read allocates its lines and fetches only the sectors it
//! lacks (no prefetch), one disk read per run of missing sectors (several lines joined
//! while the run spans at most `Max gather` lines).
//!
//! Replacement follows `cache_replace`: from the least recently used line, skip lines the
//! request in progress holds; the first other line is taken if clean, otherwise its dirty
//! sectors are written back first (one write per stretch of valid sectors, the first
//! stretch extended backwards, and the last forwards, into adjacent lines' dirty data up
//! to `Flush max line cluster` lines — `cache_initiate_dirty_block_flush` and
//! `cache_flush_cluster`), the request waits for those writes, and replacement starts
//! again. Each step of the request (`cache_read_continue`, `cache_write_continue`)
//! restarts where DiskSim's does after it waits.
//!
//! One request is served at a time, the next waiting for it: the importer only builds
//! this cache behind a driver that keeps one request at the controller (`Maximum queue
//! length = 0`), where DiskSim's locks never make two requests wait for each other. A
//! request longer than `Max request size` is served as consecutive pieces, each after the
//! last, as DiskSim's driver splits it.

use crate::disk::hdd::Request;
use crate::node::{tree_line, Device, Done, NodeReport};
use crate::time::SimTime;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, VecDeque};

/// Most lines a cache may have (its per-line state is allocated up front).
pub const MAX_LINES: u64 = 1 << 22;
/// Longest line: a line's valid and dirty bits are one 64-bit word each.
pub const MAX_LINE_SECTORS: u32 = 64;

/// The parameters of a `disksim_cachemem` spindle models.
#[derive(Clone, Debug, PartialEq)]
pub struct CacheMemSpec {
    /// `Cache size` / `Line size`.
    pub lines: u64,
    /// `Line size`, sectors (1..=64).
    pub line_sectors: u32,
    /// `Max request size`, sectors (0: no limit).
    pub max_request: u32,
    /// `Flush max line cluster`.
    pub flush_cluster: u32,
    /// `Max gather` (0: no limit).
    pub max_gather: u32,
}

impl CacheMemSpec {
    /// Checks the sizes against the limits above.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=MAX_LINE_SECTORS).contains(&self.line_sectors) {
            return Err(format!(
                "line size must be 1..={MAX_LINE_SECTORS} sectors, got {}",
                self.line_sectors
            ));
        }
        if !(1..=MAX_LINES).contains(&self.lines) {
            return Err(format!(
                "the cache must hold 1..={MAX_LINES} lines, got {}",
                self.lines
            ));
        }
        // A request of `max_request` sectors holds at most this many lines at once;
        // the rest must leave a line to replace, or the request would wait forever.
        if self.max_request == 0 {
            return Err("a `Max request size` of 0 (no limit) is not modelled: a request could hold every line".into());
        }
        let held = u64::from(self.max_request).div_ceil(u64::from(self.line_sectors)) + 1;
        if held >= self.lines {
            return Err(format!(
                "a request of `Max request size` {} sectors holds up to {held} lines of the {} the cache has: none would be left to replace",
                self.max_request, self.lines
            ));
        }
        Ok(())
    }
}

/// What the cache counted (DiskSim's "cache ..." controller statistics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheMemStats {
    pub reads: u64,
    pub read_hits: u64,
    pub read_misses: u64,
    pub fills: u64,
    pub fill_sectors: u64,
    pub writes: u64,
    pub write_misses: u64,
    pub write_hits_clean: u64,
    pub write_hits_dirty: u64,
    pub destages: u64,
    pub destage_sectors: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lock {
    None,
    Read,
    Write,
}

#[derive(Clone, Debug)]
struct Line {
    /// The line number (first sector / line size) while mapped.
    tag: u64,
    valid: u64,
    dirty: u64,
    /// Position in the LRU order (larger: more recent); `None`: not in it (free, or
    /// allocated and not yet used by a completed request).
    lru: Option<u64>,
    /// The lock the request in progress holds on it.
    lock: Lock,
}

/// The request in progress (one piece of a host request).
struct Active {
    host: Request,
    start: SimTime,
    /// The piece being served.
    piece: Request,
    /// Where the next pass resumes, sectors into the piece (DiskSim's `lockstop`).
    lockstop: u64,
    /// First sector marked valid and not yet fetched (`validpoint`).
    validpoint: Option<u64>,
    /// DiskSim's `allocstop` bits: 1/2 a fill happened (read miss), 2 an allocation
    /// (write miss), 4 a dirty sector written over.
    allocstop: u8,
    /// Lines it holds locks on.
    held: Vec<usize>,
}

/// A `disksim_cachemem` controller cache over one disk (behind the controller's queue).
pub struct CacheMem {
    spec: CacheMemSpec,
    child: Box<dyn Device>,
    lines: Vec<Line>,
    map: FxHashMap<u64, usize>,
    free: VecDeque<usize>,
    /// The lines in LRU order: position → line.
    order: BTreeMap<u64, usize>,
    clock: u64,
    waiting: VecDeque<(SimTime, Request)>,
    active: Option<Active>,
    /// Disk requests of the active request not yet back.
    out: usize,
    next_id: u64,
    ready: Vec<Done>,
    scratch: Vec<Done>,
    stats: CacheMemStats,
    failure: Option<String>,
}

impl CacheMem {
    pub fn new(spec: CacheMemSpec, child: Box<dyn Device>) -> Result<CacheMem, String> {
        spec.validate()?;
        let n = spec.lines as usize;
        Ok(CacheMem {
            lines: vec![
                Line {
                    tag: 0,
                    valid: 0,
                    dirty: 0,
                    lru: None,
                    lock: Lock::None,
                };
                n
            ],
            map: FxHashMap::default(),
            free: (0..n).collect(),
            order: BTreeMap::new(),
            clock: 0,
            waiting: VecDeque::new(),
            active: None,
            out: 0,
            next_id: 0,
            ready: Vec::new(),
            scratch: Vec::new(),
            stats: CacheMemStats::default(),
            failure: None,
            spec,
            child,
        })
    }

    pub fn stats(&self) -> CacheMemStats {
        self.stats
    }

    fn ls(&self) -> u64 {
        u64::from(self.spec.line_sectors)
    }

    fn issue(&mut self, now: SimTime, lbn: u64, blocks: u64, write: bool) {
        self.next_id += 1;
        self.out += 1;
        self.child.submit(
            now,
            Request {
                id: self.next_id,
                lbn,
                blocks: blocks as u32,
                write,
            },
        );
    }

    /// The mapped line holding sector `s`, if any.
    fn find(&self, s: u64) -> Option<usize> {
        self.map.get(&(s / self.ls())).copied()
    }

    /// Maps line `ln` into a free or replaced line; `None`: dirty data is being
    /// written back first (`cache_allocate_space` / `cache_replace`).
    fn allocate(&mut self, now: SimTime, ln: u64) -> Option<usize> {
        if let Some(s) = self.free.pop_front() {
            self.map_line(s, ln);
            return Some(s);
        }
        let victim = self
            .order
            .values()
            .copied()
            .find(|&s| self.lines[s].lock == Lock::None);
        if let Some(s) = victim {
            if self.lines[s].dirty != 0 {
                self.flush_line(now, s);
                return None;
            }
            let old = self.lines[s].tag;
            self.map.remove(&old);
            if let Some(t) = self.lines[s].lru {
                self.order.remove(&t);
            }
            self.map_line(s, ln);
            return Some(s);
        }
        // Every line is held: cannot happen within the validated sizes.
        self.failure =
            Some("controller cache: every line is held by the request in progress".into());
        None
    }

    fn map_line(&mut self, s: usize, ln: u64) {
        self.lines[s] = Line {
            tag: ln,
            valid: 0,
            dirty: 0,
            lru: None,
            lock: Lock::None,
        };
        self.map.insert(ln, s);
    }

    fn hold(&mut self, s: usize, lock: Lock) {
        if self.lines[s].lock == Lock::None {
            if let Some(a) = self.active.as_mut() {
                a.held.push(s);
            }
        }
        self.lines[s].lock = lock;
    }

    /// Writes back line `s`'s dirty sectors (`cache_initiate_dirty_block_flush`).
    fn flush_line(&mut self, now: SimTime, s: usize) {
        let ls = self.ls();
        let base = self.lines[s].tag * ls;
        let first = u64::from(self.lines[s].dirty.trailing_zeros());
        let d = base + first;
        let cluster = self.spec.flush_cluster;
        let mut runs = Vec::new();
        let mut start: Option<u64> = None;
        let mut end = 0;
        for off in first..ls {
            let bit = 1u64 << off;
            let l = &mut self.lines[s];
            let writelocked = l.lock == Lock::Write;
            if l.dirty & bit != 0 && !writelocked {
                l.dirty &= !bit;
                start.get_or_insert(base + off);
                end = base + off;
            } else if let Some(st) = start {
                if l.valid & bit == 0 || writelocked {
                    let st = if cluster > 1 && st == d {
                        self.cluster(st, 1, false)
                    } else {
                        st
                    };
                    runs.push((st, end));
                    start = None;
                }
            }
        }
        if let Some(mut st) = start {
            if cluster > 1 && st == d {
                st = self.cluster(st, 1, false);
            }
            let linecnt = 1 + (d - st) / ls;
            if linecnt < u64::from(cluster) && end == d + ls - 1 {
                end = self.cluster(end, linecnt, true);
            }
            runs.push((st, end));
        }
        for (st, en) in runs {
            self.stats.destages += 1;
            self.stats.destage_sectors += en - st + 1;
            self.issue(now, st, en - st + 1, true);
        }
    }

    /// Extends a write-back from sector `blkno` over adjacent dirty sectors, backwards
    /// or `forward`, through at most the cluster's lines (`cache_flush_cluster`).
    fn cluster(&mut self, mut blkno: u64, mut linecnt: u64, forward: bool) -> u64 {
        let ls = self.ls();
        let mut cur: Option<u64> = None;
        let mut lastclean = false;
        while linecnt <= u64::from(self.spec.flush_cluster) {
            let Some(a) = cur else {
                let next = if forward {
                    blkno.checked_add(1)
                } else {
                    blkno.checked_sub(1)
                };
                match next {
                    Some(t) if self.find(t).is_some() && !lastclean => {
                        linecnt += 1;
                        cur = Some(t);
                        continue;
                    }
                    _ => break,
                }
            };
            let Some(s) = self.find(a) else { break };
            let bit = 1u64 << (a % ls);
            let l = &mut self.lines[s];
            let writelocked = l.lock == Lock::Write;
            if l.dirty & bit != 0 && !writelocked {
                l.dirty &= !bit;
                lastclean = false;
                blkno = a;
            } else if writelocked || l.valid & bit == 0 {
                break;
            } else {
                lastclean = true;
            }
            cur = if forward {
                ((a + 1) % ls != 0).then_some(a + 1)
            } else {
                (a % ls != 0).then(|| a - 1)
            };
        }
        blkno
    }

    /// Whether a fill from `vp` to just before `end` stays within `Max gather` lines.
    fn concat_ok(&self, vp: u64, end: u64) -> bool {
        self.spec.max_gather == 0
            || end / self.ls() - vp / self.ls() <= u64::from(self.spec.max_gather)
    }

    /// One pass of `cache_read_continue`; `true` when the piece is in the cache.
    fn read_continue(&mut self, now: SimTime) -> bool {
        let ls = self.ls();
        let Some(a) = self.active.as_ref() else {
            return true;
        };
        let (lbn, size) = (a.piece.lbn, u64::from(a.piece.blocks));
        let mut i = a.lockstop;
        let mut validpoint = a.validpoint;
        while i < size {
            let atom = lbn + i;
            let s = match self.find(atom) {
                Some(s) => s,
                None => match self.allocate(now, atom / ls) {
                    Some(s) => s,
                    None => {
                        let a = self.active.as_mut().expect("active");
                        a.lockstop = i;
                        a.validpoint = validpoint;
                        return false;
                    }
                },
            };
            let off = atom % ls;
            let stop = (size - i).min(ls - off);
            let mut lock = Lock::Read;
            for j in 0..stop {
                let bit = 1u64 << (off + j);
                if self.lines[s].valid & bit == 0 {
                    lock = Lock::Write;
                    self.hold(s, lock);
                    self.lines[s].valid |= bit;
                    validpoint.get_or_insert(atom + j);
                } else {
                    self.hold(s, lock);
                    if let Some(vp) = validpoint {
                        // A valid sector after missing ones: fetch those first.
                        let a = self.active.as_mut().expect("active");
                        a.allocstop |= 2;
                        a.lockstop = 0;
                        a.validpoint = None;
                        self.fill(now, vp, atom + j - 1);
                        return false;
                    }
                }
            }
            if let Some(vp) = validpoint {
                if !self.concat_ok(vp, atom + stop) {
                    let a = self.active.as_mut().expect("active");
                    a.allocstop |= 1;
                    a.validpoint = None;
                    self.fill(now, vp, atom + stop - 1);
                    return false;
                }
            }
            i += ls - off;
        }
        let a = self.active.as_mut().expect("active");
        if let Some(vp) = validpoint {
            a.allocstop |= 1;
            a.lockstop = 0;
            a.validpoint = None;
            self.fill(now, vp, lbn + size - 1);
            return false;
        }
        self.stats.reads += 1;
        if a.allocstop != 0 {
            self.stats.read_misses += 1;
        } else {
            self.stats.read_hits += 1;
        }
        true
    }

    fn fill(&mut self, now: SimTime, from: u64, to: u64) {
        self.stats.fills += 1;
        self.stats.fill_sectors += to - from + 1;
        self.issue(now, from, to - from + 1, false);
    }

    /// One pass of `cache_write_continue`; `true` when the piece's lines are held.
    fn write_continue(&mut self, now: SimTime) -> bool {
        let ls = self.ls();
        let Some(a) = self.active.as_ref() else {
            return true;
        };
        let (lbn, size) = (a.piece.lbn, u64::from(a.piece.blocks));
        let mut i = a.lockstop;
        let mut bits = 0u8;
        while i < size {
            let atom = lbn + i;
            let s = match self.find(atom) {
                Some(s) => s,
                None => match self.allocate(now, atom / ls) {
                    Some(s) => s,
                    None => {
                        let a = self.active.as_mut().expect("active");
                        a.lockstop = i;
                        a.allocstop |= bits;
                        return false;
                    }
                },
            };
            self.hold(s, Lock::Write);
            let off = atom % ls;
            let stop = (size - i).min(ls - off);
            for j in 0..stop {
                let bit = 1u64 << (off + j);
                let l = &self.lines[s];
                if l.valid & bit == 0 {
                    bits |= 2;
                } else if l.dirty & bit != 0 {
                    bits |= 4;
                }
            }
            i += ls - off;
        }
        let a = self.active.as_mut().expect("active");
        a.allocstop |= bits;
        self.stats.writes += 1;
        if a.allocstop & 4 != 0 {
            self.stats.write_hits_dirty += 1;
        } else if a.allocstop != 0 {
            self.stats.write_misses += 1;
        } else {
            self.stats.write_hits_clean += 1;
        }
        true
    }

    /// The piece is served: mark written data dirty, move its lines to the recent end
    /// in address order and drop its locks (`cache_free_block_clean` / `_dirty`).
    fn release(&mut self, a: &Active) {
        let ls = self.ls();
        let (lbn, size) = (a.piece.lbn, u64::from(a.piece.blocks));
        let mut i = 0;
        while i < size {
            let atom = lbn + i;
            let off = atom % ls;
            let stop = (size - i).min(ls - off);
            if let Some(s) = self.find(atom) {
                self.clock += 1;
                if let Some(t) = self.lines[s].lru {
                    self.order.remove(&t);
                }
                self.order.insert(self.clock, s);
                let l = &mut self.lines[s];
                l.lru = Some(self.clock);
                if a.piece.write {
                    let mask = if stop == 64 {
                        u64::MAX
                    } else {
                        ((1u64 << stop) - 1) << off
                    };
                    l.valid |= mask;
                    l.dirty |= mask;
                }
            }
            i += ls - off;
        }
        for &s in &a.held {
            self.lines[s].lock = Lock::None;
        }
    }

    /// Runs the request in progress as far as it goes without the disk, starting the
    /// next waiting one when it completes.
    fn advance(&mut self, now: SimTime, out: &mut Vec<Done>) {
        loop {
            if self.out > 0 || self.failure.is_some() {
                return;
            }
            if self.active.is_none() {
                let Some((at, req)) = self.waiting.pop_front() else {
                    return;
                };
                self.active = Some(Active {
                    host: req,
                    start: at.max(now),
                    piece: self.piece_of(req, 0),
                    lockstop: 0,
                    validpoint: None,
                    allocstop: 0,
                    held: Vec::new(),
                });
            }
            let write = self.active.as_ref().is_some_and(|a| a.piece.write);
            let served = if write {
                self.write_continue(now)
            } else {
                self.read_continue(now)
            };
            if !served {
                continue;
            }
            let a = self.active.take().expect("active");
            self.release(&a);
            let next = a.piece.lbn + u64::from(a.piece.blocks);
            let end = a.host.lbn + u64::from(a.host.blocks);
            if next < end {
                self.active = Some(Active {
                    piece: self.piece_of(a.host, next - a.host.lbn),
                    lockstop: 0,
                    validpoint: None,
                    allocstop: 0,
                    held: Vec::new(),
                    ..a
                });
            } else {
                out.push(Done::served(a.host, a.start, now));
            }
        }
    }

    fn piece_of(&self, host: Request, from: u64) -> Request {
        let left = u64::from(host.blocks) - from;
        let max = u64::from(self.spec.max_request);
        Request {
            lbn: host.lbn + from,
            blocks: left.min(max) as u32,
            ..host
        }
    }
}

impl Device for CacheMem {
    fn capacity(&self) -> u64 {
        self.child.capacity()
    }

    fn outstanding(&self) -> usize {
        self.waiting.len() + usize::from(self.active.is_some()) + self.ready.len()
    }

    fn can_accept(&self) -> bool {
        true
    }

    fn submit(&mut self, now: SimTime, req: Request) {
        self.waiting.push_back((now, req));
        let mut done = std::mem::take(&mut self.ready);
        self.advance(now, &mut done);
        self.ready = done;
    }

    fn next_wake(&self) -> Option<SimTime> {
        if self.failure.is_some() {
            return None;
        }
        match (self.ready.first().map(|d| d.done), self.child.next_wake()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        if !self.ready.is_empty() {
            out.append(&mut self.ready);
            return;
        }
        let mut got = std::mem::take(&mut self.scratch);
        got.clear();
        self.child.wake(now, &mut got);
        self.out -= got.len().min(self.out);
        self.scratch = got;
        self.advance(now, out);
    }

    fn describe(&self, depth: usize, out: &mut String) {
        tree_line(
            depth,
            out,
            &format!(
                "disksim controller cache (cachemem): {} lines of {} sectors, LRU, write-back, flush cluster {} lines",
                self.spec.lines, self.spec.line_sectors, self.spec.flush_cluster
            ),
        );
        self.child.describe(depth + 1, out);
    }

    fn report_until(&self, path: &str, end: SimTime, out: &mut Vec<NodeReport>) {
        let s = self.stats;
        out.push(NodeReport {
            path: path.to_string(),
            kind: "disksim controller cache".into(),
            reads: s.reads,
            writes: s.writes,
            extra: vec![
                ("read misses".into(), s.read_misses.to_string()),
                ("read hits".into(), s.read_hits.to_string()),
                ("fills".into(), s.fills.to_string()),
                ("write misses".into(), s.write_misses.to_string()),
                ("destages".into(), s.destages.to_string()),
                ("destaged sectors".into(), s.destage_sectors.to_string()),
            ],
            ..Default::default()
        });
        self.child.report_until(path, end, out);
    }

    fn failure(&self) -> Option<String> {
        self.failure.clone().or_else(|| self.child.failure())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::cell::RefCell;
    use std::rc::Rc;

    #[derive(Clone, Copy, Debug)]
    enum Ev {
        /// A host write's data is in the cache.
        HostWrite(u64, u64),
        /// The cache sent these sectors to the disk.
        Destage(u64, u64),
    }

    /// A disk that serves what it is given in order, 1 ms each, logging writes.
    struct Disk {
        busy: VecDeque<(SimTime, Request)>,
        log: Rc<RefCell<Vec<Ev>>>,
    }

    impl Device for Disk {
        fn capacity(&self) -> u64 {
            4096
        }
        fn outstanding(&self) -> usize {
            self.busy.len()
        }
        fn can_accept(&self) -> bool {
            true
        }
        fn submit(&mut self, now: SimTime, req: Request) {
            if req.write {
                self.log
                    .borrow_mut()
                    .push(Ev::Destage(req.lbn, u64::from(req.blocks)));
            }
            let start = self.busy.back().map_or(now, |b| b.0.max(now));
            self.busy.push_back((SimTime(start.0 + 1_000_000), req));
        }
        fn next_wake(&self) -> Option<SimTime> {
            self.busy.front().map(|b| b.0)
        }
        fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
            if let Some((t, req)) = self.busy.front().copied().filter(|b| b.0 <= now) {
                self.busy.pop_front();
                out.push(Done::served(req, SimTime(t.0 - 1_000_000), t));
            }
        }
        fn describe(&self, _: usize, _: &mut String) {}
        fn report_until(&self, _: &str, _: SimTime, _: &mut Vec<NodeReport>) {}
    }

    /// No lost write: after random reads and writes through a small cache, every
    /// sector's last write is either still dirty in the cache or was sent to the disk
    /// after it was written.
    #[test]
    fn every_write_is_dirty_in_the_cache_or_on_the_disk() {
        for seed in [1u64, 7, 42, 99] {
            let log = Rc::new(RefCell::new(Vec::new()));
            let spec = CacheMemSpec {
                lines: 6,
                line_sectors: 8,
                max_request: 16,
                flush_cluster: 3,
                max_gather: 2,
            };
            let disk = Disk {
                busy: VecDeque::new(),
                log: log.clone(),
            };
            let mut c = CacheMem::new(spec, Box::new(disk)).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut now = SimTime::ZERO;
            for id in 0..3_000u64 {
                let req = Request {
                    id,
                    lbn: rng.gen_range(0..120),
                    blocks: rng.gen_range(1..=20),
                    write: rng.gen_bool(0.5),
                };
                c.submit(now, req);
                let mut done = Vec::new();
                while done.is_empty() {
                    let t = c.next_wake().expect("the request completes");
                    now = now.max(t);
                    c.wake(now, &mut done);
                }
                assert_eq!(done[0].req.id, id);
                if req.write {
                    log.borrow_mut()
                        .push(Ev::HostWrite(req.lbn, u64::from(req.blocks)));
                }
                assert!(c.failure().is_none());
            }
            // Replay: the version each sector has in the host's view and on the disk.
            let mut host = vec![0u64; 160];
            let mut disk = vec![0u64; 160];
            for (v, e) in log.borrow().iter().enumerate() {
                match *e {
                    Ev::HostWrite(l, n) => (l..l + n).for_each(|s| host[s as usize] = v as u64 + 1),
                    Ev::Destage(l, n) => {
                        (l..l + n).for_each(|s| disk[s as usize] = host[s as usize])
                    }
                }
            }
            let ls = u64::from(c.spec.line_sectors);
            for s in 0..160u64 {
                let dirty = c
                    .find(s)
                    .is_some_and(|i| c.lines[i].dirty & (1 << (s % ls)) != 0);
                assert!(
                    dirty || disk[s as usize] == host[s as usize],
                    "seed {seed}: sector {s} lost its write"
                );
            }
            let st = c.stats();
            assert!(st.destages > 100 && st.read_hits > 100, "{st:?}");
        }
    }

    /// The sizes are checked before anything is allocated.
    #[test]
    fn sizes_beyond_the_limits_are_refused() {
        let ok = CacheMemSpec {
            lines: 128,
            line_sectors: 64,
            max_request: 512,
            flush_cluster: 8,
            max_gather: 7,
        };
        assert!(ok.validate().is_ok());
        for bad in [
            CacheMemSpec {
                line_sectors: 65,
                ..ok.clone()
            },
            CacheMemSpec {
                lines: MAX_LINES + 1,
                ..ok.clone()
            },
            CacheMemSpec {
                lines: 8,
                ..ok.clone()
            },
            CacheMemSpec {
                max_request: 0,
                ..ok.clone()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
    }
}
