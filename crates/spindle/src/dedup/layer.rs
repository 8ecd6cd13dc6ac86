//! The content-addressed cache as a stack layer (`[[layer]] kind = "content-cache"`).
//! A read whose pages are all cached completes after `hit-us`; any other read goes
//! below, and when it completes its whole pages enter the cache if not present. A
//! write goes below (write-through) and, on its way, moves each page it writes to the
//! new content's sector list and caches the page. With `addressing = "sector"` it is
//! the vanilla sector-addressed cache of the same size. Hits are counted per page by
//! how they were found (sector or content).

use super::cache::{Addressing, CacheConfig, ContentCache, HitBy, Memory};
use super::content::{ContentSource, UniqueContent};
use super::replace::Policy;
use super::table::{MAX_BUCKETS_LOG2, MIN_BUCKETS_LOG2};
use super::PAGE_SECTORS;
use crate::disk::hdd::Request;
use crate::node::{Done, NodeReport};
use crate::stack::layer::{Layer, LayerIo};
use crate::time::SimTime;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// `[[layer]] kind = "content-cache"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ContentCacheSpec {
    /// Capacity, 4 KiB pages (1..=2^26).
    pub pages: u64,
    /// `arc` (default) or `lru`.
    #[serde(default = "default_policy")]
    pub policy: Policy,
    /// `content` (default) or `sector` (the vanilla baseline).
    #[serde(default = "default_addressing")]
    pub addressing: Addressing,
    /// Hash-table buckets as a power of two, 5..=25 (default 20).
    #[serde(default = "default_buckets_log2")]
    pub buckets_log2: u32,
    /// Time to serve a read from the cache, µs.
    #[serde(default = "default_hit_us")]
    pub hit_us: f64,
    /// Pre-load the sector lists (which sectors hold which content, nothing cached)
    /// with a generated disk image, as the paper pre-loads its module's duplicate
    /// information before its F10, F11 and Table 3 runs (§4.2–4.4): a first read of a
    /// sector then hits when another sector's copy of its content is cached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preload: Option<super::gen::ContentTraceSpec>,
}

fn default_policy() -> Policy {
    Policy::Arc
}
fn default_addressing() -> Addressing {
    Addressing::Content
}
fn default_buckets_log2() -> u32 {
    20
}
fn default_hit_us() -> f64 {
    20.0
}

impl ContentCacheSpec {
    pub fn new(policy: Policy, pages: u64) -> ContentCacheSpec {
        ContentCacheSpec {
            pages,
            policy,
            addressing: default_addressing(),
            buckets_log2: default_buckets_log2(),
            hit_us: default_hit_us(),
            preload: None,
        }
    }

    /// Parses the CLI form `content-cache:POLICY:PAGES[:sector|:content]`, e.g.
    /// `content-cache:arc:50000`.
    pub fn parse_cli(s: &str) -> Result<ContentCacheSpec, String> {
        let want = "expected content-cache:arc|lru:PAGES[:content|sector]";
        let parts: Vec<&str> = s.split(':').collect();
        if parts.len() < 3 || parts.len() > 4 || parts[0] != "content-cache" {
            return Err(format!("--layer `{s}`: {want}"));
        }
        let policy = match parts[1] {
            "arc" => Policy::Arc,
            "lru" => Policy::Lru,
            p => {
                return Err(format!(
                    "--layer `{s}`: policy must be arc or lru, got `{p}`"
                ))
            }
        };
        let pages = parts[2].parse::<u64>().map_err(|_| {
            format!(
                "--layer `{s}`: PAGES must be a whole number of 4 KiB pages, got `{}`",
                parts[2]
            )
        })?;
        let mut spec = ContentCacheSpec::new(policy, pages);
        if let Some(a) = parts.get(3) {
            spec.addressing = match *a {
                "content" => Addressing::Content,
                "sector" => Addressing::Sector,
                a => {
                    return Err(format!(
                        "--layer `{s}`: addressing must be content or sector, got `{a}`"
                    ))
                }
            };
        }
        spec.check()?;
        Ok(spec)
    }

    /// Checks the settings without allocating the cache.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=super::cache::MAX_PAGES).contains(&self.pages) {
            return Err(format!(
                "content-cache pages must be within 1..={}, got {}",
                super::cache::MAX_PAGES,
                self.pages
            ));
        }
        if !(MIN_BUCKETS_LOG2..=MAX_BUCKETS_LOG2).contains(&self.buckets_log2) {
            return Err(format!(
                "content-cache buckets-log2 must be within {MIN_BUCKETS_LOG2}..={MAX_BUCKETS_LOG2} \
                 (2^5..2^25 buckets), got {}",
                self.buckets_log2
            ));
        }
        if !(self.hit_us.is_finite() && (0.0..=1e6).contains(&self.hit_us)) {
            return Err(format!(
                "content-cache hit-us must be within 0..=1000000, got {}",
                self.hit_us
            ));
        }
        Ok(())
    }

    /// The layer, for a workload without content hashes.
    pub fn build(&self) -> Result<ContentCacheLayer, String> {
        self.build_with(Box::new(UniqueContent::default()))
    }

    /// The layer, with the workload's content from `source`.
    pub fn build_with(&self, source: Box<dyn ContentSource>) -> Result<ContentCacheLayer, String> {
        self.check()?;
        let mut cache = ContentCache::new(CacheConfig {
            pages: self.pages,
            policy: self.policy,
            addressing: self.addressing,
            buckets_log2: self.buckets_log2,
        })?;
        if let Some(p) = &self.preload {
            if self.addressing == Addressing::Sector {
                return Err(
                    "content-cache preload needs addressing = \"content\" (a sector-addressed \
                     cache keeps no sector lists)"
                        .into(),
                );
            }
            let layout = p
                .layout()
                .map_err(|e| format!("content-cache preload: {e}"))?;
            for (page, digest) in layout.pages() {
                cache.preload(page, &digest);
            }
        }
        Ok(ContentCacheLayer {
            spec: self.clone(),
            cache,
            source,
            below: FxHashMap::default(),
            hits: FxHashMap::default(),
            next_id: 0,
            stats: Stats::default(),
        })
    }
}

/// Counts, per request and per page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub reads: u64,
    pub writes: u64,
    /// Reads served wholly from the cache.
    pub read_hits: u64,
    pub read_pages: u64,
    pub read_page_hits_sector: u64,
    pub read_page_hits_content: u64,
    pub write_pages: u64,
    pub write_page_hits_sector: u64,
    pub write_page_hits_content: u64,
    /// Pages a read miss brought in (not already present).
    pub fills: u64,
    /// Pages read whose content was not known (nothing cached).
    pub unknown: u64,
}

pub struct ContentCacheLayer {
    spec: ContentCacheSpec,
    cache: ContentCache<()>,
    source: Box<dyn ContentSource>,
    /// The layer's requests below → the request from above they serve.
    below: FxHashMap<u64, Request>,
    /// Reads served from the cache, by timer token.
    hits: FxHashMap<u64, (Request, SimTime)>,
    next_id: u64,
    stats: Stats,
}

/// The pages a request touches, and whether each is whole.
fn pages(req: &Request) -> impl Iterator<Item = (u64, bool)> {
    let start = req.lbn;
    let end = req.lbn + u64::from(req.blocks.max(1));
    (start / PAGE_SECTORS..end.div_ceil(PAGE_SECTORS)).map(move |p| {
        (
            p,
            p * PAGE_SECTORS >= start && (p + 1) * PAGE_SECTORS <= end,
        )
    })
}

impl ContentCacheLayer {
    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    pub fn memory(&self) -> Memory {
        self.cache.memory()
    }

    /// Records that `page` holds `digest` (the preloaded duplicate map).
    pub fn preload(&mut self, page: u64, digest: &super::Digest) {
        self.cache.preload(page, digest);
    }

    fn count_hit(&mut self, by: HitBy, write: bool) {
        let s = &mut self.stats;
        match (by, write) {
            (HitBy::Sector, false) => s.read_page_hits_sector += 1,
            (HitBy::Content, false) => s.read_page_hits_content += 1,
            (HitBy::Sector, true) => s.write_page_hits_sector += 1,
            (HitBy::Content, true) => s.write_page_hits_content += 1,
        }
    }
}

impl Layer for ContentCacheLayer {
    fn on_request(&mut self, now: SimTime, req: Request, io: &mut LayerIo) {
        if req.write {
            self.stats.writes += 1;
            for (k, (page, whole)) in pages(&req).enumerate() {
                self.stats.write_pages += 1;
                match self.source.content(req.id, true, page, k) {
                    Some(d) if whole => {
                        if let Some(by) = self.cache.write(page, &d, ()) {
                            self.count_hit(by, true);
                        }
                    }
                    // Part of a page: its new content is recorded, nothing is cached.
                    // Keyed by the sector, the key outlives the write: the cached page
                    // is stale and leaves the cache.
                    Some(d) if self.spec.addressing == Addressing::Content => {
                        self.cache.preload(page, &d)
                    }
                    _ => self.cache.invalidate(page),
                }
            }
            self.source.finished(req.id);
        } else {
            self.stats.reads += 1;
            self.stats.read_pages += pages(&req).count() as u64;
            if pages(&req).all(|(p, _)| self.cache.probe(p)) {
                for (p, _) in pages(&req) {
                    if let Some((by, ())) = self.cache.read(p) {
                        self.count_hit(by, false);
                    }
                }
                self.stats.read_hits += 1;
                self.source.finished(req.id);
                let token = self.fresh_id();
                self.hits.insert(token, (req, now));
                io.timers
                    .push((now + crate::time::ms_to_ns(self.spec.hit_us / 1e3), token));
                return;
            }
        }
        // The workload's id goes below unchanged, so that a layer below (DRR) can ask
        // the content feed about the same request.
        self.below.insert(req.id, req);
        io.below.push(req);
    }

    fn on_complete(&mut self, _now: SimTime, done: &Done, io: &mut LayerIo) {
        let Some(req) = self.below.remove(&done.req.id) else {
            return;
        };
        if !req.write {
            for (k, (page, whole)) in pages(&req).enumerate() {
                if !whole {
                    continue;
                }
                // What the layer knows of the page is exact (every write passed through
                // it); otherwise the workload says what the read returned.
                let d = match self.spec.addressing {
                    // Keyed by the sector: the digest is not used.
                    Addressing::Sector => Some([0; 16]),
                    Addressing::Content => self
                        .cache
                        .known(page)
                        .or_else(|| self.source.content(req.id, false, page, k)),
                };
                match d {
                    Some(d) => {
                        let before = self.cache.probe(page);
                        self.cache.fill(page, &d, || ());
                        if !before {
                            self.stats.fills += 1;
                        }
                    }
                    None => self.stats.unknown += 1,
                }
            }
            self.source.finished(req.id);
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
        let s = &self.spec;
        format!(
            "content-cache ({} {}-addressed, {} pages of 4 KiB, 2^{} buckets, write-through, hit {} µs{})",
            s.policy.name(),
            match s.addressing {
                Addressing::Content => "content",
                Addressing::Sector => "sector",
            },
            s.pages,
            s.buckets_log2,
            s.hit_us,
            match &s.preload {
                Some(p) => format!(", sector lists preloaded from the generated {} image", p.workload.name()),
                None => String::new(),
            }
        )
    }

    fn report(&self, path: &str) -> NodeReport {
        let s = &self.stats;
        let m = self.cache.memory();
        let hits = s.read_page_hits_sector + s.read_page_hits_content;
        let rate = if s.read_pages > 0 {
            hits as f64 / s.read_pages as f64 * 100.0
        } else {
            0.0
        };
        let mib = |b: u64| format!("{:.3} MiB", b as f64 / (1u64 << 20) as f64);
        NodeReport {
            path: path.to_string(),
            kind: "content-cache".into(),
            reads: s.reads,
            writes: s.writes,
            busy_ns: 0,
            extra: vec![
                ("read hits".into(), s.read_hits.to_string()),
                (
                    "read page hits (sector)".into(),
                    s.read_page_hits_sector.to_string(),
                ),
                (
                    "read page hits (content)".into(),
                    s.read_page_hits_content.to_string(),
                ),
                ("read page hit rate".into(), format!("{rate:.1} %")),
                (
                    "write page hits (sector)".into(),
                    s.write_page_hits_sector.to_string(),
                ),
                (
                    "write page hits (content)".into(),
                    s.write_page_hits_content.to_string(),
                ),
                ("pages filled by reads".into(), s.fills.to_string()),
                ("pages cached".into(), m.cached.to_string()),
                ("sector entries".into(), m.entries.to_string()),
                ("contents tracked".into(), m.contents.to_string()),
                ("metadata (Eq. 1)".into(), mib(m.eq1_bytes)),
                ("metadata (held)".into(), mib(m.metadata_bytes)),
            ],
            is_drive: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_form_parses_and_refuses_clearly() {
        let s = ContentCacheSpec::parse_cli("content-cache:arc:50000").unwrap();
        assert_eq!(
            (s.policy, s.pages, s.addressing),
            (Policy::Arc, 50_000, Addressing::Content)
        );
        let s = ContentCacheSpec::parse_cli("content-cache:lru:1000:sector").unwrap();
        assert_eq!((s.policy, s.addressing), (Policy::Lru, Addressing::Sector));
        for (bad, says) in [
            (
                "content-cache:fifo:10",
                "policy must be arc or lru, got `fifo`",
            ),
            ("content-cache:arc:0", "pages must be within"),
            ("content-cache:arc:x", "got `x`"),
            ("content-cache:arc", "expected"),
        ] {
            let e = ContentCacheSpec::parse_cli(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        let mut spec = ContentCacheSpec::new(Policy::Arc, 10);
        spec.buckets_log2 = 26;
        let e = spec.build().err().unwrap();
        assert!(e.contains("buckets-log2 must be within 5..=25"), "{e}");
    }

    #[test]
    fn preload_knows_every_page_of_the_image_and_needs_content_addressing() {
        use super::super::gen::{ContentTraceSpec, FiuWorkload};
        let image = ContentTraceSpec::new(FiuWorkload::WebVm, 0.001, 1, 3);
        let mut spec = ContentCacheSpec::new(Policy::Arc, 8);
        spec.preload = Some(image.clone());
        let layer = spec.build().unwrap();
        let layout = image.layout().unwrap();
        let m = layer.memory();
        assert_eq!(m.entries, layout.pages().count() as u64);
        assert_eq!(m.cached, 0, "preloading caches nothing");
        for (page, d) in layout.pages().take(50) {
            assert_eq!(layer.cache.known(page), Some(d));
        }
        spec.addressing = Addressing::Sector;
        let e = spec.build().err().unwrap();
        assert!(e.contains("needs addressing = \"content\""), "{e}");
    }

    /// Runs `recs` (with content) through a content-cache of two pages over a drive;
    /// returns the layer's report and the response times.
    fn through_layer(
        addressing: Addressing,
        recs: &[crate::trace::IoRecord],
    ) -> (NodeReport, Vec<u64>) {
        use crate::disk::presets::preset;
        use crate::engine::{self, RunOptions, Source};
        use crate::node::Device;
        use crate::sched::SchedulerKind;
        use crate::stack::queue::QueueSpec;
        use crate::stack::tree::build_from_params;
        let disk = preset("mimic-base").unwrap();
        let b = build_from_params(&[disk], &QueueSpec::new(SchedulerKind::Fcfs)).unwrap();
        let feed = super::super::ContentFeed::new();
        let mut spec = ContentCacheSpec::new(Policy::Lru, 2);
        spec.addressing = addressing;
        spec.hit_us = 50.0;
        let layer = spec.build_with(Box::new(feed.clone())).unwrap();
        let mut root = crate::stack::layer::LayerNode::new(Box::new(layer), b.root);
        let mut logs = Vec::new();
        engine::run(
            &mut root,
            &b.units,
            Source::Open {
                requests: Box::new(feed.tap(recs.iter().cloned())),
                stride: engine::device_stride(recs),
            },
            RunOptions::default(),
            &mut |l| logs.push(*l),
        )
        .unwrap();
        assert_eq!(feed.pending(), 0, "the feed forgets finished requests");
        logs.sort_by_key(|l| l.id);
        let mut nodes = Vec::new();
        root.report("stack", &mut nodes);
        (
            nodes.swap_remove(0),
            logs.iter().map(|l| l.response_ns()).collect(),
        )
    }

    fn extra(r: &NodeReport, name: &str) -> String {
        r.extra
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }

    #[test]
    fn a_page_evicted_by_sector_hits_by_content_through_the_engine() {
        let rec = |ms: u64, page: u64, write: bool, c: u8| crate::trace::IoRecord {
            arrival: SimTime(ms * 1_000_000),
            device: 0,
            lbn: page * PAGE_SECTORS,
            blocks: 8,
            write,
            content: vec![[c; 16]],
        };
        let recs = [
            rec(0, 200, false, 0xa),   // miss: A cached, via page 200
            rec(100, 1, true, 0xc),    // write C
            rec(200, 2, true, 0xd),    // write D: A evicted (two pages)
            rec(300, 100, true, 0xa),  // write A elsewhere: A cached again
            rec(400, 200, false, 0xa), // page 200 holds A: a content hit
        ];
        let (r, resp) = through_layer(Addressing::Content, &recs);
        assert_eq!(extra(&r, "read page hits (content)"), "1", "{r:?}");
        assert_eq!(extra(&r, "read page hits (sector)"), "0");
        assert_eq!(resp[4], 50_000);
        let (r, resp) = through_layer(Addressing::Sector, &recs);
        assert_eq!(extra(&r, "read page hits (content)"), "0");
        assert_eq!(extra(&r, "read hits"), "0");
        assert_ne!(resp[4], 50_000, "went to the drive");
    }

    #[test]
    fn a_write_of_part_of_a_cached_page_makes_the_next_read_miss() {
        // No content in the workload (as from a plain trace): each write's is new.
        let rec = |ms: u64, lbn: u64, blocks: u32, write: bool| crate::trace::IoRecord {
            arrival: SimTime(ms * 1_000_000),
            device: 0,
            lbn,
            blocks,
            write,
            content: Vec::new(),
        };
        let recs = [
            rec(0, 800, 8, false),   // miss: page 100 cached
            rec(100, 800, 8, false), // hit
            rec(200, 801, 1, true),  // part of page 100 rewritten
            rec(300, 800, 8, false), // its old copy must not serve this read
        ];
        for addressing in [Addressing::Content, Addressing::Sector] {
            let (r, resp) = through_layer(addressing, &recs);
            assert_eq!(extra(&r, "read hits"), "1", "{addressing:?}: {r:?}");
            assert_eq!(resp[1], 50_000);
            assert_ne!(resp[3], 50_000, "{addressing:?}: went to the drive");
        }
    }
}
