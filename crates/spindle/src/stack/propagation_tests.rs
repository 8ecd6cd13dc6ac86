//! Background propagation end to end: a mirror whose members record every write
//! they complete and what each read they are sent can see. A read must see every
//! write acknowledged before the host sent it, and once the run drains every replica
//! holds every write.

use super::array::ReplicaChoice;
use super::drive_node::DriveNode;
use super::mimd::{Layout, MirrorLayouts, Organization};
use crate::disk::drive::Drive;
use crate::disk::hdd::Request;
use crate::disk::presets::preset;
use crate::node::{Device, Done, NodeReport};
use crate::time::SimTime;
use rand::{Rng, SeedableRng};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::rc::Rc;

/// What the members saw, shared with the test.
#[derive(Default)]
struct Log {
    /// (member, sector) → writes completed there.
    applied: FxHashMap<(usize, u64), u32>,
    /// Per read sent to a member: (member, first sector, the fewest writes completed
    /// on any of its sectors when it was sent).
    reads: Vec<(usize, u64, u32)>,
}

/// A member drive that records into [`Log`].
struct Recorder {
    inner: DriveNode,
    member: usize,
    writes: FxHashMap<u64, (u64, u32)>,
    log: Rc<RefCell<Log>>,
}

impl Device for Recorder {
    fn capacity(&self) -> u64 {
        self.inner.capacity()
    }
    fn outstanding(&self) -> usize {
        self.inner.outstanding()
    }
    fn can_accept(&self) -> bool {
        self.inner.can_accept()
    }
    fn submit(&mut self, now: SimTime, req: Request) {
        if req.write {
            self.writes.insert(req.id, (req.lbn, req.blocks));
        } else {
            let mut log = self.log.borrow_mut();
            let seen = (req.lbn..req.lbn + u64::from(req.blocks))
                .map(|s| log.applied.get(&(self.member, s)).copied().unwrap_or(0))
                .min()
                .unwrap_or(0);
            log.reads.push((self.member, req.lbn, seen));
        }
        self.inner.submit(now, req);
    }
    fn next_wake(&self) -> Option<SimTime> {
        self.inner.next_wake()
    }
    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        let from = out.len();
        self.inner.wake(now, out);
        for d in &out[from..] {
            if let Some((lbn, blocks)) = self.writes.remove(&d.req.id) {
                let mut log = self.log.borrow_mut();
                for s in lbn..lbn + u64::from(blocks) {
                    *log.applied.entry((self.member, s)).or_insert(0) += 1;
                }
            }
        }
    }
    fn drive(&self) -> Option<&Drive> {
        Some(self.inner.drive())
    }
    fn describe(&self, depth: usize, out: &mut String) {
        self.inner.describe(depth, out);
    }
    fn report_until(&self, path: &str, end: SimTime, out: &mut Vec<NodeReport>) {
        self.inner.report_until(path, end, out);
    }
}

/// A mirror of `n` recording drives (spindles at i/n of a turn) with background
/// propagation, and the log they share.
fn recorded_mirror(n: usize, seed: u64, staleness_ms: f64) -> (Rc<RefCell<Log>>, Layout) {
    let log = Rc::new(RefCell::new(Log::default()));
    let members: Vec<Box<dyn Device>> = (0..n)
        .map(|m| {
            let mut d = Drive::new(preset("st34502lw").unwrap()).unwrap();
            d.hdd_mut().set_spindle_phase(m as f64 / n as f64);
            Box::new(Recorder {
                inner: DriveNode::new(d, "st34502lw"),
                member: m,
                writes: FxHashMap::default(),
                log: Rc::clone(&log),
            }) as Box<dyn Device>
        })
        .collect();
    let org = Organization::Mirror {
        layouts: MirrorLayouts::Identical,
    };
    let l = Layout::new(org, members, ReplicaChoice::Positioning, seed)
        .unwrap()
        .with_background(staleness_ms)
        .unwrap();
    (log, l)
}

/// Requests arriving every 4 ms on average (members queue now and then, and copies
/// wait), half writes, over a few blocks, never two at once on one block; returns the
/// log, the acknowledged host writes per block and the layout.
fn run(seed: u64, staleness_ms: f64) -> (Rc<RefCell<Log>>, FxHashMap<u64, u32>, Layout) {
    let (log, mut l) = recorded_mirror(3, seed, staleness_ms);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut acked: FxHashMap<u64, u32> = FxHashMap::default();
    // Host requests in flight: id → (block, write).
    let mut busy: FxHashMap<u64, (u64, bool)> = FxHashMap::default();
    let (mut now, mut next_arrival, mut id) = (SimTime::ZERO, SimTime::ZERO, 0u64);
    let mut out = Vec::new();
    loop {
        let wake = l.next_wake();
        if id < 2000 && wake.is_none_or(|w| next_arrival <= w) {
            now = next_arrival;
            next_arrival = SimTime(now.0 + rng.gen_range(0..8_000_000));
            // Blocks far apart, so replicas differ in how soon they reach them.
            let block = rng.gen_range(0..16u64) * 100_000;
            if busy.values().any(|&(b, _)| b == block) {
                continue;
            }
            let write = rng.gen_bool(0.5);
            if !write {
                let want = acked.get(&block).copied().unwrap_or(0);
                log.borrow_mut().reads.push((usize::MAX, block, want));
            }
            busy.insert(id, (block, write));
            l.submit(
                now,
                Request {
                    id,
                    lbn: block,
                    blocks: 8,
                    write,
                },
            );
            id += 1;
            continue;
        }
        let Some(t) = wake else { break };
        now = now.max(t);
        out.clear();
        l.wake(now, &mut out);
        for d in &out {
            if let Some((block, true)) = busy.remove(&d.req.id) {
                *acked.entry(block).or_insert(0) += 1;
            }
        }
    }
    assert!(busy.is_empty(), "every request completes");
    (log, acked, l)
}

#[test]
fn reads_see_every_acknowledged_write_and_every_replica_catches_up() {
    for seed in 1..=3 {
        let (log, acked, l) = run(seed, 20.0);
        let log = log.borrow();
        // A member read of a block serves the one host read of it in flight (the
        // latest marker, member usize::MAX): it must hold every write acknowledged
        // before the host asked.
        let mut want: FxHashMap<u64, u32> = FxHashMap::default();
        let mut reads = 0;
        for &(m, block, n) in &log.reads {
            if m == usize::MAX {
                want.insert(block, n);
                continue;
            }
            let w = want.get(&block).copied().unwrap_or(0);
            assert!(
                n >= w,
                "seed {seed}: member {m} read block {block} holding {n} writes, {w} acknowledged"
            );
            reads += 1;
        }
        assert!(reads > 500, "seed {seed}: {reads} reads checked");
        for (&block, &n) in &acked {
            for m in 0..3 {
                for s in block..block + 8 {
                    assert_eq!(
                        log.applied.get(&(m, s)).copied().unwrap_or(0),
                        n,
                        "seed {seed}: member {m} sector {s}"
                    );
                }
            }
        }
        let mut rep = Vec::new();
        l.report("m", &mut rep);
        let extra = &rep[0].extra;
        let get = |k: &str| extra.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let wait: f64 = get("longest background wait ms").unwrap().parse().unwrap();
        assert!(wait <= 20.0 + 1e-9, "seed {seed}: waited {wait} ms");
        let copies: u64 = get("background copies").unwrap().parse().unwrap();
        assert_eq!(
            copies,
            2 * acked.values().map(|&n| u64::from(n)).sum::<u64>()
        );
        let waited: u64 = get("reads that waited for a replica")
            .unwrap()
            .parse()
            .unwrap();
        eprintln!("seed {seed}: {reads} reads checked, {copies} copies, longest wait {wait} ms, {waited} reads waited");
    }
}

/// Background propagation acknowledges a write sooner than writing every replica.
#[test]
fn background_writes_are_acknowledged_sooner() {
    let mean_write = |background: bool| {
        // Write-through drives: a write is done when it is on the media.
        let mut p = preset("st34502lw").unwrap();
        p.cache.fast_write_level = 0;
        let members: Vec<Box<dyn Device>> = (0..3)
            .map(|m| {
                // Unsynchronized spindles: the replicas turn at different phases.
                let mut d = Drive::new(p.clone()).unwrap();
                d.hdd_mut().set_spindle_phase(m as f64 / 3.0);
                Box::new(DriveNode::new(d, "st34502lw")) as Box<dyn Device>
            })
            .collect();
        let org = Organization::Mirror {
            layouts: MirrorLayouts::Identical,
        };
        let mut l = Layout::new(org, members, ReplicaChoice::Positioning, 5).unwrap();
        if background {
            l = l.with_background(1000.0).unwrap();
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let (mut now, mut total) = (SimTime::ZERO, 0u64);
        let mut out = Vec::new();
        for id in 0..300u64 {
            let lbn = rng.gen_range(0..l.capacity() / 8) * 8;
            let start = now;
            l.submit(
                now,
                Request {
                    id,
                    lbn,
                    blocks: 8,
                    write: true,
                },
            );
            loop {
                now = now.max(l.next_wake().unwrap());
                out.clear();
                l.wake(now, &mut out);
                if out.iter().any(|d| d.req.id == id) {
                    break;
                }
            }
            total += now.0 - start.0;
            // Time for the background copies between writes.
            now = SimTime(now.0 + 30_000_000);
        }
        total as f64 / 300.0 / 1e6
    };
    let (fg, bg) = (mean_write(false), mean_write(true));
    assert!(
        bg < fg * 0.9,
        "background {bg:.2} ms, foreground {fg:.2} ms"
    );
}

/// A read of a block sent while its write is still at every replica waits, then
/// reads a replica that holds the write.
#[test]
fn a_read_behind_its_write_waits_for_a_replica_that_holds_it() {
    let (log, mut l) = recorded_mirror(2, 1, 50.0);
    for (id, write) in [(0, true), (1, false)] {
        l.submit(
            SimTime::ZERO,
            Request {
                id,
                lbn: 4096,
                blocks: 8,
                write,
            },
        );
    }
    assert!(log.borrow().reads.is_empty(), "the read waits");
    let (mut done, mut out) = (Vec::new(), Vec::new());
    while let Some(t) = l.next_wake() {
        out.clear();
        l.wake(t, &mut out);
        done.extend(out.iter().map(|d| d.req.id));
    }
    assert_eq!(done.first(), Some(&0), "the write first: {done:?}");
    let log = log.borrow();
    assert_eq!(log.reads.len(), 1);
    assert!(
        log.reads[0].2 >= 1,
        "the read saw the write: {:?}",
        log.reads
    );
    let mut rep = Vec::new();
    l.report("m", &mut rep);
    assert!(rep[0]
        .extra
        .iter()
        .any(|(k, v)| k == "reads that waited for a replica" && v == "1"));
}
