//! DiskSim's device cache (`disksim_cachedev` in an intelligent controller,
//! `disksim_cachedev.c`): one disk caches another at the same addresses.
//!
//! As DiskSim's module does, with no locking and no buffer limits:
//! - a read whose every sector is valid in the cache (and ends before `Cache size`) is
//!   read from the cache disk; any other read from the cached disk, and when that read
//!   is back the request completes and the same sectors are written to the cache disk
//!   in the background, becoming valid when that write is done;
//! - a write (ending before `Cache size`) goes to the cache disk and completes when it is
//!   there, its sectors then valid and dirty; with write-through (`Write scheme = 2`) it
//!   is also written to the cached disk then, which makes them clean. A write past the
//!   cache goes to the cached disk;
//! - with `Flush idle delay` > 0, once the cached disk's queue has been empty that long
//!   (the timer restarts when a request of that disk completes with its queue empty and
//!   stops when one arrives) and both disks' queues are empty, the lowest run of dirty
//!   sectors is read from the cache disk and written to the cached disk, its sectors
//!   then clean; the next run follows at once while both queues stay empty
//!   (`cachedev_idlework_callback`).
//!
//! A request longer than `Max request size` is served as consecutive pieces, each after
//! the last, as DiskSim's driver splits it.

use crate::disk::hdd::Request;
use crate::node::{tree_line, Device, Done, NodeReport};
use crate::time::{ms_to_ns, SimTime};
use rustc_hash::FxHashMap;

/// The parameters of a `disksim_cachedev` spindle models.
#[derive(Clone, Debug, PartialEq)]
pub struct CacheDevSpec {
    /// `Cache size`, sectors (no more than the cache disk holds).
    pub size: u64,
    /// `Max request size`, sectors (at least 1).
    pub max_request: u32,
    /// `Write scheme = 2`: writes also go on to the cached disk.
    pub write_through: bool,
    /// `Flush idle delay`, ms, when above 0.
    pub idle_ms: Option<f64>,
}

/// What the cache counted (DiskSim's "cache ..." controller statistics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheDevStats {
    pub reads: u64,
    pub read_hits: u64,
    pub read_misses: u64,
    pub populate_writes: u64,
    pub writes: u64,
    pub write_hits: u64,
    pub write_misses: u64,
    pub destage_reads: u64,
    pub destage_writes: u64,
}

/// A bit per sector, with a summary bit per word that is not zero and a summary word
/// below which every summary word is zero: the lowest set bit is found without
/// scanning the clean words (a 1 GB cache has 32,768 of them).
struct Bits {
    words: Vec<u64>,
    summary: Vec<u64>,
    low: usize,
}

impl Bits {
    fn new(n: u64) -> Bits {
        let words = n.div_ceil(64) as usize;
        Bits {
            words: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
            low: 0,
        }
    }
    fn get(&self, i: u64) -> bool {
        self.words
            .get((i / 64) as usize)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    /// Sets (or clears) sectors `from..from + n`; those beyond the map are ignored.
    fn set(&mut self, from: u64, n: u64, on: bool) {
        let end = from.saturating_add(n).min(self.words.len() as u64 * 64);
        let mut i = from;
        while i < end {
            let (wi, b) = ((i / 64) as usize, i % 64);
            let len = (64 - b).min(end - i);
            let mask = if len == 64 {
                u64::MAX
            } else {
                ((1u64 << len) - 1) << b
            };
            let (si, sb) = (wi / 64, 1u64 << (wi % 64));
            if on {
                self.words[wi] |= mask;
                self.summary[si] |= sb;
                self.low = self.low.min(si);
            } else {
                self.words[wi] &= !mask;
                if self.words[wi] == 0 {
                    self.summary[si] &= !sb;
                }
            }
            i += len;
        }
    }
    /// The lowest run of set bits below `limit`: first and length.
    fn first_run(&mut self, limit: u64) -> Option<(u64, u64)> {
        let low = self.low;
        let Some(si) = self.summary[low..]
            .iter()
            .position(|&w| w != 0)
            .map(|w| w + low)
        else {
            self.low = self.summary.len();
            return None;
        };
        self.low = si;
        let wi = si * 64 + self.summary[si].trailing_zeros() as usize;
        let first = wi as u64 * 64 + u64::from(self.words[wi].trailing_zeros());
        // The run, a word at a time.
        let mut end = first;
        while end < limit {
            let Some(&w) = self.words.get((end / 64) as usize) else {
                break;
            };
            let b = end % 64;
            let ones = u64::from((w >> b).trailing_ones());
            end += ones;
            if b + ones < 64 {
                break;
            }
        }
        Some((first, end.min(limit).max(first) - first))
    }
}

#[derive(Clone, Copy)]
enum Op {
    /// A host piece's read of `n` sectors (`hit`: from the cache disk).
    Read {
        host: u64,
        hit: bool,
        n: u64,
    },
    Populate {
        lbn: u64,
        n: u64,
    },
    /// A host piece's write of `n` sectors (`cached`: to the cache disk).
    Write {
        host: u64,
        cached: bool,
        n: u64,
    },
    Through {
        lbn: u64,
        n: u64,
    },
    IdleRead {
        lbn: u64,
        n: u64,
    },
    IdleWrite {
        lbn: u64,
        n: u64,
    },
}

struct Host {
    req: Request,
    start: SimTime,
    /// Sectors served so far.
    done: u64,
}

/// A `disksim_cachedev` controller cache: `cache` (the cache disk's controller queue)
/// holding `real`'s (the cached disk's) data.
pub struct CacheDev {
    spec: CacheDevSpec,
    real: Box<dyn Device>,
    cache: Box<dyn Device>,
    valid: Bits,
    dirty: Bits,
    hosts: FxHashMap<u64, Host>,
    ops: FxHashMap<u64, Op>,
    next_id: u64,
    idle_at: Option<SimTime>,
    /// The cached disk's and the cache disk's next wakes, as each said after the last
    /// call into it (a child changes only when called): no asking both at every step.
    real_wake: Option<SimTime>,
    cache_wake: Option<SimTime>,
    scratch: Vec<Done>,
    stats: CacheDevStats,
}

impl CacheDev {
    pub fn new(
        spec: CacheDevSpec,
        real: Box<dyn Device>,
        cache: Box<dyn Device>,
    ) -> Result<CacheDev, String> {
        if spec.size == 0 || spec.size > cache.capacity() {
            return Err(format!(
                "cache size must be 1..={} sectors (the cache disk's), got {}",
                cache.capacity(),
                spec.size
            ));
        }
        if spec.max_request == 0 {
            return Err("a `Max request size` of 0 is not modelled".into());
        }
        if let Some(ms) = spec.idle_ms {
            if !(ms > 0.0 && ms <= crate::disk::params::MAX_TIME_MS) {
                return Err(format!(
                    "flush idle delay must be within 0..={} ms, got {ms}",
                    crate::disk::params::MAX_TIME_MS
                ));
            }
        }
        Ok(CacheDev {
            real_wake: real.next_wake(),
            cache_wake: cache.next_wake(),
            valid: Bits::new(spec.size),
            dirty: Bits::new(spec.size),
            spec,
            real,
            cache,
            hosts: FxHashMap::default(),
            ops: FxHashMap::default(),
            next_id: 0,
            idle_at: None,
            scratch: Vec::new(),
            stats: CacheDevStats::default(),
        })
    }

    pub fn stats(&self) -> CacheDevStats {
        self.stats
    }

    fn issue(&mut self, now: SimTime, to_cache: bool, lbn: u64, n: u64, write: bool, op: Op) {
        self.next_id += 1;
        let req = Request {
            id: self.next_id,
            lbn,
            blocks: n as u32,
            write,
        };
        self.ops.insert(self.next_id, op);
        if to_cache {
            self.cache.submit(now, req);
            self.cache_wake = self.cache.next_wake();
        } else {
            // A request for the cached disk stops its idle timer.
            self.idle_at = None;
            self.real.submit(now, req);
            self.real_wake = self.real.next_wake();
        }
    }

    /// Starts host request `id`'s next piece.
    fn start_piece(&mut self, now: SimTime, id: u64) {
        let Some(h) = self.hosts.get(&id) else { return };
        let lbn = h.req.lbn + h.done;
        let n = (u64::from(h.req.blocks) - h.done).min(u64::from(self.spec.max_request));
        let end = lbn + n;
        if h.req.write {
            self.stats.writes += 1;
            let cached = end < self.spec.size;
            if cached {
                self.stats.write_hits += 1;
            } else {
                self.stats.write_misses += 1;
            }
            self.issue(
                now,
                cached,
                lbn,
                n,
                true,
                Op::Write {
                    host: id,
                    cached,
                    n,
                },
            );
        } else {
            self.stats.reads += 1;
            let hit = end < self.spec.size && (lbn..end).all(|s| self.valid.get(s));
            if hit {
                self.stats.read_hits += 1;
            } else {
                self.stats.read_misses += 1;
            }
            self.issue(now, hit, lbn, n, false, Op::Read { host: id, hit, n });
        }
    }

    /// Host request `id`'s piece of `n` sectors is served: the next piece, or done.
    fn piece_done(&mut self, now: SimTime, id: u64, n: u64, out: &mut Vec<Done>) {
        let Some(h) = self.hosts.get_mut(&id) else {
            return;
        };
        h.done += n;
        if h.done < u64::from(h.req.blocks) {
            self.start_piece(now, id);
        } else if let Some(h) = self.hosts.remove(&id) {
            out.push(Done::served(h.req, h.start, now));
        }
    }

    fn completed(&mut self, now: SimTime, id: u64, out: &mut Vec<Done>) {
        let Some(op) = self.ops.remove(&id) else {
            return;
        };
        match op {
            Op::Read { host, hit, n } => {
                if !hit {
                    let lbn = self.hosts.get(&host).map_or(0, |h| h.req.lbn + h.done);
                    self.stats.populate_writes += 1;
                    self.issue(now, true, lbn, n, true, Op::Populate { lbn, n });
                }
                self.piece_done(now, host, n, out);
            }
            Op::Populate { lbn, n } => self.valid.set(lbn, n, true),
            Op::Write { host, cached, n } => {
                let lbn = self.hosts.get(&host).map_or(0, |h| h.req.lbn + h.done);
                if cached {
                    self.valid.set(lbn, n, true);
                    self.dirty.set(lbn, n, true);
                    if self.spec.write_through {
                        self.stats.destage_writes += 1;
                        self.issue(now, false, lbn, n, true, Op::Through { lbn, n });
                    }
                }
                self.piece_done(now, host, n, out);
            }
            Op::Through { lbn, n } => self.dirty.set(lbn, n, false),
            Op::IdleRead { lbn, n } => {
                self.stats.destage_writes += 1;
                self.issue(now, false, lbn, n, true, Op::IdleWrite { lbn, n });
            }
            Op::IdleWrite { lbn, n } => {
                self.dirty.set(lbn, n, false);
                self.idle_work(now);
            }
        }
    }

    /// Both queues empty: write back the lowest dirty run.
    fn idle_work(&mut self, now: SimTime) {
        if self.real.outstanding() != 0 || self.cache.outstanding() != 0 {
            return;
        }
        let Some((lbn, n)) = self.dirty.first_run(self.spec.size) else {
            return;
        };
        self.stats.destage_reads += 1;
        self.issue(now, true, lbn, n, false, Op::IdleRead { lbn, n });
    }

    /// Wakes `child` (the cached disk or the cache disk) and handles what it finished.
    fn wake_child(&mut self, now: SimTime, real: bool, out: &mut Vec<Done>) {
        let mut got = std::mem::take(&mut self.scratch);
        got.clear();
        if real {
            self.real.wake(now, &mut got);
            self.real_wake = self.real.next_wake();
            if !got.is_empty() && self.real.outstanding() == 0 {
                if let Some(ms) = self.spec.idle_ms {
                    self.idle_at = Some(SimTime(now.0 + ms_to_ns(ms)));
                }
            }
        } else {
            self.cache.wake(now, &mut got);
            self.cache_wake = self.cache.next_wake();
        }
        for d in got.drain(..) {
            self.completed(now, d.req.id, out);
        }
        self.scratch = got;
    }
}

impl Device for CacheDev {
    fn capacity(&self) -> u64 {
        self.real.capacity()
    }

    fn outstanding(&self) -> usize {
        self.hosts.len()
    }

    fn can_accept(&self) -> bool {
        true
    }

    fn submit(&mut self, now: SimTime, req: Request) {
        self.hosts.insert(
            req.id,
            Host {
                req,
                start: now,
                done: 0,
            },
        );
        self.start_piece(now, req.id);
    }

    fn next_wake(&self) -> Option<SimTime> {
        // (Called at every step of the run: plain matches, no iterator.)
        let min = |a: Option<SimTime>, b: Option<SimTime>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        min(min(self.real_wake, self.cache_wake), self.idle_at)
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        if self.real_wake.is_some_and(|t| t <= now) {
            self.wake_child(now, true, out);
        } else if self.cache_wake.is_some_and(|t| t <= now) {
            self.wake_child(now, false, out);
        } else if self.idle_at.is_some_and(|t| t <= now) {
            self.idle_at = None;
            self.idle_work(now);
        }
    }

    fn describe(&self, depth: usize, out: &mut String) {
        let idle = match self.spec.idle_ms {
            Some(ms) => format!(", idle flush after {ms} ms"),
            None => String::new(),
        };
        tree_line(
            depth,
            out,
            &format!(
                "disksim controller cache (cachedev): {} sectors on the cache disk, {}{idle}",
                self.spec.size,
                if self.spec.write_through {
                    "write-through"
                } else {
                    "write-back"
                }
            ),
        );
        tree_line(depth + 1, out, "cached disk:");
        self.real.describe(depth + 2, out);
        tree_line(depth + 1, out, "cache disk:");
        self.cache.describe(depth + 2, out);
    }

    fn report_until(&self, path: &str, end: SimTime, out: &mut Vec<NodeReport>) {
        let s = self.stats;
        out.push(NodeReport {
            path: path.to_string(),
            kind: "disksim controller cache (cachedev)".into(),
            reads: s.reads,
            writes: s.writes,
            extra: vec![
                ("read hits".into(), s.read_hits.to_string()),
                ("read misses".into(), s.read_misses.to_string()),
                ("population writes".into(), s.populate_writes.to_string()),
                ("destage reads".into(), s.destage_reads.to_string()),
                ("destage writes".into(), s.destage_writes.to_string()),
            ],
            ..Default::default()
        });
        self.real.report_until(&format!("{path}/cached"), end, out);
        self.cache.report_until(&format!("{path}/cache"), end, out);
    }

    fn failure(&self) -> Option<String> {
        self.real.failure().or_else(|| self.cache.failure())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::rc::Rc;

    /// A disk serving what it is given in order, 1 ms each, logging (lbn, blocks, write).
    struct Disk {
        busy: VecDeque<(SimTime, Request)>,
        log: Rc<RefCell<Vec<(u64, u32, bool)>>>,
    }

    impl Device for Disk {
        fn capacity(&self) -> u64 {
            10_000
        }
        fn outstanding(&self) -> usize {
            self.busy.len()
        }
        fn can_accept(&self) -> bool {
            true
        }
        fn submit(&mut self, now: SimTime, req: Request) {
            self.log.borrow_mut().push((req.lbn, req.blocks, req.write));
            let start = self.busy.back().map_or(now, |b| b.0.max(now));
            self.busy.push_back((SimTime(start.0 + 1_000_000), req));
        }
        fn next_wake(&self) -> Option<SimTime> {
            self.busy.front().map(|b| b.0)
        }
        fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
            if let Some((t, req)) = self.busy.front().copied().filter(|b| b.0 <= now) {
                self.busy.pop_front();
                // As a drive reports it: the id only.
                out.push(Done::served(
                    Request {
                        lbn: 0,
                        blocks: 0,
                        ..req
                    },
                    SimTime(t.0 - 1_000_000),
                    t,
                ));
            }
        }
        fn describe(&self, _: usize, _: &mut String) {}
        fn report_until(&self, _: &str, _: SimTime, _: &mut Vec<NodeReport>) {}
    }

    type Log = Rc<RefCell<Vec<(u64, u32, bool)>>>;

    fn cache(idle_ms: Option<f64>) -> (CacheDev, Log, Log) {
        let (real, cached) = (Log::default(), Log::default());
        let d = |log: &Log| {
            Box::new(Disk {
                busy: VecDeque::new(),
                log: log.clone(),
            })
        };
        let spec = CacheDevSpec {
            size: 1_000,
            max_request: 8,
            write_through: false,
            idle_ms,
        };
        let c = CacheDev::new(spec, d(&real), d(&cached)).unwrap();
        (c, real, cached)
    }

    /// Runs `req` to its completion, returning when it completed.
    fn serve(c: &mut CacheDev, now: &mut SimTime, req: Request) -> SimTime {
        c.submit(*now, req);
        loop {
            let t = c.next_wake().expect("completes");
            *now = (*now).max(t);
            let mut out = Vec::new();
            c.wake(*now, &mut out);
            if let Some(d) = out.first() {
                assert_eq!(d.req, req);
                return d.done;
            }
        }
    }

    fn req(id: u64, lbn: u64, blocks: u32, write: bool) -> Request {
        Request {
            id,
            lbn,
            blocks,
            write,
        }
    }

    /// A read misses, is copied to the cache disk, then hits; a write goes to the
    /// cache disk; with an idle delay its dirty run is copied back once the disks are
    /// idle, and a request longer than `Max request size` goes in pieces.
    #[test]
    fn reads_populate_writes_stay_and_idle_time_copies_them_back() {
        for idle in [Some(5.0), None] {
            let (mut c, real, cached) = cache(idle);
            let mut now = SimTime::ZERO;
            assert_eq!(
                serve(&mut c, &mut now, req(1, 10, 4, false)),
                SimTime(1_000_000)
            );
            assert_eq!(real.borrow().as_slice(), &[(10, 4, false)]);
            // The population write follows the read.
            assert_eq!(cached.borrow().as_slice(), &[(10, 4, true)]);
            now = SimTime(3_000_000);
            while let Some(t) = c.next_wake().filter(|&t| t <= now) {
                let mut out = Vec::new();
                c.wake(t, &mut out);
                assert!(out.is_empty());
            }
            serve(&mut c, &mut now, req(2, 10, 4, false));
            assert_eq!(cached.borrow().last(), Some(&(10, 4, false)));
            // Ten sectors: two pieces of at most 8, both to the cache disk.
            serve(&mut c, &mut now, req(3, 100, 10, true));
            assert_eq!(&cached.borrow()[2..], &[(100, 8, true), (108, 2, true)]);
            // Past the cache's size: to the cached disk.
            serve(&mut c, &mut now, req(4, 995, 5, true));
            assert_eq!(real.borrow().last(), Some(&(995, 5, true)));
            // Let everything drain.
            while let Some(t) = c.next_wake() {
                let mut out = Vec::new();
                c.wake(t, &mut out);
                assert!(out.is_empty());
            }
            let s = c.stats();
            assert_eq!((s.read_hits, s.read_misses, s.populate_writes), (1, 1, 1));
            assert_eq!((s.write_hits, s.write_misses), (2, 1));
            if idle.is_some() {
                assert_eq!((s.destage_reads, s.destage_writes), (1, 1));
                assert_eq!(real.borrow().last(), Some(&(100, 10, true)));
                assert_eq!(c.dirty.first_run(1_000), None);
            } else {
                assert_eq!((s.destage_reads, s.destage_writes), (0, 0));
                assert_eq!(c.dirty.first_run(1_000), Some((100, 10)));
            }
        }
    }

    /// The summarised bit map finds the same lowest run as a plain scan, over sets
    /// and clears of random runs (words, summary words and the map's end crossed).
    #[test]
    fn bits_find_the_lowest_run_as_a_scan_does() {
        // Runs ending just before, at and just after a word's end.
        for (from, len) in [(0, 63), (0, 64), (0, 65), (5, 123), (64 * 64 - 1, 2)] {
            let mut bits = Bits::new(10_000);
            bits.set(from, len, true);
            assert_eq!(bits.first_run(10_000), Some((from, len)));
            assert_eq!(bits.first_run(from + 1), Some((from, 1)));
            bits.set(from, len, false);
            assert_eq!(bits.first_run(10_000), None);
        }
        let n = 64 * 64 * 3 + 17;
        let mut bits = Bits::new(n);
        let mut plain = vec![false; n as usize];
        let mut x = 12345u64;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        for _ in 0..5000 {
            // Clears as often as sets, so the lowest run moves and ends anywhere.
            let (from, len, on) = (next(n + 100), next(200), next(2) == 0);
            bits.set(from, len, on);
            for i in from..(from + len).min(n) {
                plain[i as usize] = on;
            }
            for limit in [n, next(n + 10)] {
                let want = plain.iter().position(|&b| b).map(|f| {
                    let run = plain[f..].iter().take_while(|&&b| b).count() as u64;
                    let f = f as u64;
                    let end = if f >= limit { f } else { (f + run).min(limit) };
                    (f, end - f)
                });
                assert_eq!(bits.first_run(limit), want);
            }
        }
    }
}
