//! A block cache layer: an LRU cache of 4 KiB blocks in host memory above any device.
//! A read whose blocks are all cached completes after `hit-us`; any other read goes
//! below and its blocks are cached when it completes. Writes go through to the device
//! (write-through) and their blocks are cached when the write completes. Timing only:
//! it tracks which blocks are cached, not their bytes.

use super::layer::{Layer, LayerIo};
use crate::disk::hdd::Request;
use crate::node::{Done, NodeReport};
use crate::time::SimTime;
use lru::LruCache;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::num::NonZeroUsize;

/// Sectors per cached block.
const BLOCK_SECTORS: u64 = 8;
/// Largest cache, KiB (16 GiB: each block costs about 64 bytes of bookkeeping).
pub const MAX_CACHE_KIB: u64 = 16 << 20;

/// `[[layer]] kind = "cache"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CacheSpec {
    /// Capacity, KiB.
    pub size_kib: u64,
    /// Time to serve a read from the cache, µs.
    #[serde(default = "default_hit_us")]
    pub hit_us: f64,
}

fn default_hit_us() -> f64 {
    20.0
}

impl CacheSpec {
    /// Checks the settings without allocating the cache.
    pub fn check(&self) -> Result<(), String> {
        if self.size_kib < 4 || self.size_kib > MAX_CACHE_KIB {
            return Err(format!(
                "cache size-kib must be within 4..={MAX_CACHE_KIB}, got {}",
                self.size_kib
            ));
        }
        if !(self.hit_us.is_finite() && (0.0..=1e6).contains(&self.hit_us)) {
            return Err(format!(
                "cache hit-us must be within 0..=1000000, got {}",
                crate::show::value(self.hit_us)
            ));
        }
        Ok(())
    }

    pub fn build(&self) -> Result<BlockCache, String> {
        self.check()?;
        let blocks = NonZeroUsize::new((self.size_kib / 4) as usize)
            .ok_or("cache size-kib must be at least 4")?;
        Ok(BlockCache {
            spec: self.clone(),
            lru: LruCache::new(blocks),
            below: FxHashMap::default(),
            hits: FxHashMap::default(),
            next_id: 0,
            stats: Stats::default(),
        })
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    reads: u64,
    writes: u64,
    hits: u64,
}

pub struct BlockCache {
    spec: CacheSpec,
    lru: LruCache<u64, ()>,
    /// The layer's requests below → the request from above they serve.
    below: FxHashMap<u64, Request>,
    /// Reads served from the cache, by timer token.
    hits: FxHashMap<u64, (Request, SimTime)>,
    next_id: u64,
    stats: Stats,
}

/// The blocks `req` touches, wholly or in part: a read hits only if all are cached.
fn blocks(req: &Request) -> std::ops::Range<u64> {
    let end = req.lbn + u64::from(req.blocks.max(1));
    req.lbn / BLOCK_SECTORS..end.div_ceil(BLOCK_SECTORS)
}

/// The blocks `req` covers whole: only these become cached when it completes. A block it
/// reads or writes only in part holds sectors the cache never saw.
fn whole_blocks(req: &Request) -> std::ops::Range<u64> {
    let end = req.lbn + u64::from(req.blocks.max(1));
    req.lbn.div_ceil(BLOCK_SECTORS)..end / BLOCK_SECTORS
}

impl BlockCache {
    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

impl Layer for BlockCache {
    fn on_request(&mut self, now: SimTime, req: Request, io: &mut LayerIo) {
        if req.write {
            self.stats.writes += 1;
        } else {
            self.stats.reads += 1;
            // `get` refreshes each block's place in the LRU order.
            if blocks(&req).all(|b| self.lru.get(&b).is_some()) {
                self.stats.hits += 1;
                let token = self.fresh_id();
                self.hits.insert(token, (req, now));
                io.timers
                    .push((now + crate::time::ms_to_ns(self.spec.hit_us / 1e3), token));
                return;
            }
        }
        let id = self.fresh_id();
        self.below.insert(id, req);
        io.below.push(Request { id, ..req });
    }

    fn on_complete(&mut self, _now: SimTime, done: &Done, io: &mut LayerIo) {
        let Some(req) = self.below.remove(&done.req.id) else {
            return;
        };
        // A block written in part that was cached stays cached (write-through updates
        // its copy); one read or written in part that was not does not become cached.
        for b in whole_blocks(&req) {
            self.lru.put(b, ());
        }
        io.up.push(Done { req, ..*done });
    }

    fn on_timer(&mut self, now: SimTime, token: u64, io: &mut LayerIo) {
        if let Some((req, at)) = self.hits.remove(&token) {
            io.up.push(Done {
                cache_hit: true,
                ..Done::served(req, at, now)
            });
        }
    }

    fn outstanding(&self) -> usize {
        self.below.len() + self.hits.len()
    }

    fn describe(&self) -> String {
        format!(
            "cache ({} KiB LRU of 4 KiB blocks, write-through, hit {} µs)",
            self.spec.size_kib, self.spec.hit_us
        )
    }

    fn report(&self, path: &str) -> NodeReport {
        let s = &self.stats;
        let rate = if s.reads > 0 {
            s.hits as f64 / s.reads as f64 * 100.0
        } else {
            0.0
        };
        NodeReport {
            path: path.to_string(),
            kind: "cache".into(),
            reads: s.reads,
            writes: s.writes,
            busy_ns: 0,
            extra: vec![
                ("read hits".into(), s.hits.to_string()),
                ("hit rate".into(), format!("{rate:.1} %")),
            ],
            is_drive: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::disk::presets::preset;
    use crate::engine::{self, RunOptions, Source};
    use crate::sched::SchedulerKind;
    use crate::stack::layer::LayerNode;
    use crate::stack::queue::QueueSpec;
    use crate::stack::tree::build_from_params;
    use crate::time::SimTime;
    use crate::trace::IoRecord;

    fn rec(ms: u64, lbn: u64, write: bool) -> IoRecord {
        sized(ms, lbn, 8, write)
    }

    fn sized(ms: u64, lbn: u64, blocks: u32, write: bool) -> IoRecord {
        IoRecord {
            arrival: SimTime(ms * 1_000_000),
            device: 0,
            lbn,
            blocks,
            write,
            content: Vec::new(),
        }
    }

    /// Response times (ns, in request order) of `recs` through a cache of `size_kib`.
    fn responses(size_kib: u64, recs: &[IoRecord]) -> Vec<u64> {
        let disk = preset("mimic-base").unwrap();
        let b = build_from_params(&[disk], &QueueSpec::new(SchedulerKind::Fcfs)).unwrap();
        let cache = super::CacheSpec {
            size_kib,
            hit_us: 50.0,
        }
        .build()
        .unwrap();
        let mut root = LayerNode::new(Box::new(cache), b.root);
        let mut logs = Vec::new();
        engine::run(
            &mut root,
            &b.units,
            Source::records(recs),
            RunOptions::default(),
            &mut |l| logs.push(*l),
        )
        .unwrap();
        logs.sort_by_key(|l| l.id);
        logs.iter().map(|l| l.response_ns()).collect()
    }

    #[test]
    fn a_block_seen_only_in_part_is_not_served_from_memory() {
        let recs = [
            sized(0, 803, 1, true),     // one sector of block 100 written
            sized(100, 800, 8, false),  // the rest of it never seen: miss
            sized(200, 1601, 1, false), // one sector of block 200 read
            sized(300, 1600, 8, false), // miss
            sized(400, 1600, 8, false), // now whole: hit
            sized(500, 1604, 12, true), // block 200 in part (cached), block 201 whole
            sized(600, 1600, 16, false),
        ];
        let resp = responses(64, &recs);
        assert!(resp[1] > 1_000_000 && resp[3] > 1_000_000, "{resp:?}");
        assert_eq!(resp[4], 50_000);
        assert_eq!(resp[6], 50_000, "{resp:?}");
    }

    #[test]
    fn repeated_and_written_blocks_are_served_from_memory() {
        let disk = preset("mimic-base").unwrap();
        let mut b = build_from_params(&[disk], &QueueSpec::new(SchedulerKind::Fcfs)).unwrap();
        let cache = super::CacheSpec {
            size_kib: 8,
            hit_us: 50.0,
        }
        .build()
        .unwrap();
        let mut root: Box<dyn crate::node::Device> =
            Box::new(LayerNode::new(Box::new(cache), b.root));
        b.root = Box::new(crate::stack::array::Volumes::new(Vec::new()));
        let recs = vec![
            rec(0, 800, false),    // miss: cached after
            rec(100, 800, false),  // hit
            rec(200, 4000, true),  // write-through: cached after
            rec(300, 4000, false), // hit
            rec(400, 9000, false), // miss: evicts LBN 800 (two blocks fit)
            rec(500, 800, false),  // miss again
        ];
        let mut logs = Vec::new();
        engine::run(
            root.as_mut(),
            &b.units,
            Source::records(&recs),
            RunOptions::default(),
            &mut |l| logs.push(*l),
        )
        .unwrap();
        logs.sort_by_key(|l| l.id);
        let resp: Vec<u64> = logs.iter().map(|l| l.response_ns()).collect();
        assert_eq!(resp[1], 50_000);
        assert_eq!(resp[3], 50_000);
        for i in [0, 2, 4] {
            assert!(resp[i] > 1_000_000, "request {i}: {resp:?}");
        }
        // The last read was evicted (two blocks fit) and went to the drive.
        let mut nodes = Vec::new();
        root.report("stack", &mut nodes);
        assert_eq!(nodes[0].kind, "cache");
        assert!(nodes[0]
            .extra
            .contains(&("read hits".to_string(), "2".to_string())));
        assert_eq!(nodes[0].reads, 5);
        assert_eq!(
            nodes[1..]
                .iter()
                .filter(|n| n.is_drive)
                .map(|n| n.reads)
                .sum::<u64>(),
            3
        );
    }
}
