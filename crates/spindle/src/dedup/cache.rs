//! The content-addressed cache's data structure (the paper's Fig. 6, §3.2): one entry
//! per sector (`vc_entry`, here per 4 KiB page) found by a sector-keyed hash table, one
//! record per content (found by a digest-keyed hash table) holding the list of sectors
//! that contain it and, while cached, its page. Replacement (LRU or ARC) works on
//! contents; evicting a content drops its page but keeps its sector list, so the
//! duplicate map survives eviction. A write moves its sector to the new content's list.
//!
//! The structure is generic over the cached page `P`: the simulator caches `()` (it
//! only needs to know what is held), the real-bytes test caches the page's bytes.
//!
//! In [`Addressing::Sector`] mode the same structure is the vanilla baseline: every
//! sector's content is keyed by the sector itself, so two sectors holding the same
//! data occupy two pages.
//!
//! **Compact metadata, as the paper's 4-byte pointers (§4.6, Eq. 1).** Every link is a
//! `u32` slot index into one of two slabs (sector entries, content records), never a
//! pointer or a `usize`; the hash tables are 4-byte bucket heads (Eq. 1's 8 B per
//! bucket for the two tables) and a 4-byte chain link per record; records hold no
//! padding (an entry is 24 B, a content record 20 B, its replacement node 16 B) and
//! nothing is allocated per record. Residency stamps are
//! 32-bit and renumbered before they wrap. Limits: at most [`MAX_TRACKED`] entries and
//! as many contents (`u32` slots, [`NIL`] reserved), checked before a slab grows (past
//! it a page's content is simply not tracked: never stale); the page count is checked
//! against [`MAX_PAGES`] when the cache is made. [`ContentCache::memory`] measures the
//! bytes from the slabs' allocated capacities, not from the formula.

use super::replace::{Policy, Replacer};
use super::table::{Chains, NIL};
use super::Digest;
use serde::{Deserialize, Serialize};

/// Largest cache, pages (256 GiB of 4 KiB pages; metadata about 64 B a page).
pub const MAX_PAGES: u64 = 1 << 26;
/// Most sectors (pages) and contents the structure tracks: indices are `u32`.
pub const MAX_TRACKED: usize = (u32::MAX - 1) as usize;

/// How reads find cached data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Addressing {
    /// By content hash: any sector holding a cached content hits.
    Content,
    /// By sector: the vanilla baseline.
    Sector,
}

/// How a hit was found: the same sector's page was cached (a sector-addressed cache of
/// the same history would hold it too, as far as residency goes), or only another
/// sector's identical content was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HitBy {
    Sector,
    Content,
}

#[derive(Clone, Copy, Debug)]
pub struct CacheConfig {
    pub pages: u64,
    pub policy: Policy,
    pub addressing: Addressing,
    /// Hash-table buckets (both tables), as a power of two: 5..=25.
    pub buckets_log2: u32,
}

/// A page (`vc_entry`): which content it holds and its place in that content's sector
/// list. `seen` is the residency (epoch) of its content this sector last touched.
/// 24 bytes (its sector-table link is in the table's link array).
#[derive(Clone, Copy, Debug)]
struct Entry {
    page: u64,
    seen: u32,
    content: u32,
    prev: u32,
    next: u32,
}

/// A content: its digest and the head of its sector list (`NIL`: no sector holds
/// it): 20 bytes. (The epoch of its current residency is kept with its replacement
/// node; its content-table link in the table's link array.)
#[derive(Clone, Copy, Debug)]
struct Content {
    digest: Digest,
    head: u32,
}

// The record sizes the module documentation states (and DEDUP-MEM relies on).
const _: () = assert!(std::mem::size_of::<Entry>() == 24);
const _: () = assert!(std::mem::size_of::<Content>() == 20);

/// The last residency stamp before they are renumbered (stamps are `u32`).
const EPOCH_LIMIT: u32 = u32::MAX - 1;

/// Memory held by the structure, and the paper's model of it (DEDUP-EQ-MEM).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Memory {
    /// Capacity, pages (P).
    pub pages: u64,
    /// Pages held now.
    pub cached: u64,
    /// Sector entries (vc_entry).
    pub entries: u64,
    /// Content records (with a sector list, a page, or a ghost).
    pub contents: u64,
    /// Buckets per hash table (HTB).
    pub buckets: u64,
    /// Sector entries per content record: the measured similarity.
    pub similarity: f64,
    /// Eq. 1 with the counted entries: 13·P + 36·entries + 8·HTB (P·WSS = entries).
    pub eq1_bytes: u64,
    /// Bytes this implementation's metadata holds (allocated capacity, page data
    /// excluded).
    pub metadata_bytes: u64,
}

pub struct ContentCache<P> {
    cfg: CacheConfig,
    by_sector: Chains,
    by_content: Chains,
    entries: Vec<Entry>,
    contents: Vec<Content>,
    free: Vec<u32>,
    data: Vec<Option<P>>,
    repl: Replacer,
    epoch: u32,
    /// Renumber stamps when `epoch` reaches this ([`EPOCH_LIMIT`]; tests lower it).
    epoch_limit: u32,
    dropped: Vec<u32>,
}

/// The content key of `page` in sector mode (never an MD5 in that mode).
fn sector_key(page: u64) -> Digest {
    let mut d = [0xff; 16];
    d[..8].copy_from_slice(&page.to_le_bytes());
    d
}

fn digest_key(d: &Digest) -> u64 {
    u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

impl<P> ContentCache<P> {
    pub fn new(cfg: CacheConfig) -> Result<ContentCache<P>, String> {
        if !(1..=MAX_PAGES).contains(&cfg.pages) {
            return Err(format!(
                "content cache pages must be within 1..={MAX_PAGES}, got {}",
                cfg.pages
            ));
        }
        Ok(ContentCache {
            by_sector: Chains::new(cfg.buckets_log2)?,
            by_content: Chains::new(cfg.buckets_log2)?,
            entries: Vec::new(),
            contents: Vec::new(),
            free: Vec::new(),
            data: Vec::new(),
            repl: Replacer::new(cfg.policy, cfg.pages as usize),
            epoch: 0,
            epoch_limit: EPOCH_LIMIT,
            dropped: Vec::new(),
            cfg,
        })
    }

    pub fn config(&self) -> &CacheConfig {
        &self.cfg
    }

    /// Prefetch stages of a pipelined replay ([`super::replay`]); each a hint only,
    /// never a change to the cache. Stage 1: `page`'s sector-table bucket head and
    /// `digest`'s content-table bucket head.
    #[inline]
    pub(super) fn prefetch_buckets(&self, page: u64, digest: Option<&Digest>) {
        self.by_sector.prefetch_head(self.by_sector.bucket(page));
        if let Some(d) = digest {
            self.by_content
                .prefetch_head(self.by_content.bucket(digest_key(d)));
        }
    }

    /// Stage 2 (the bucket heads loaded by stage 1): the entry at the head of `page`'s
    /// chain, and the record at the head of `digest`'s.
    #[inline]
    pub(super) fn prefetch_entry(&self, page: u64, digest: Option<&Digest>) {
        let i = self.by_sector.head(self.by_sector.bucket(page));
        if let Some(e) = self.entries.get(i as usize) {
            crate::prefetch::prefetch(e);
        }
        if let Some(d) = digest {
            let c = self.by_content.head(self.by_content.bucket(digest_key(d)));
            if let Some(rec) = self.contents.get(c as usize) {
                crate::prefetch::prefetch(rec);
            }
        }
    }

    /// Stage 3 (the entry loaded by stage 2): if the head entry is `page`'s, the
    /// replacement node of its content, and for a write its content's record (compared
    /// with the new digest).
    #[inline]
    pub(super) fn prefetch_node(&self, page: u64, write: bool) {
        let i = self.by_sector.head(self.by_sector.bucket(page));
        if let Some(e) = self.entries.get(i as usize) {
            if e.page == page && e.content != NIL {
                self.repl.prefetch(e.content);
                if write {
                    if let Some(rec) = self.contents.get(e.content as usize) {
                        crate::prefetch::prefetch(rec);
                    }
                }
            }
        }
    }

    /// Sector lookup: the entry of `page`.
    #[inline]
    fn entry_of(&self, page: u64) -> u32 {
        let mut i = self.by_sector.head(self.by_sector.bucket(page));
        while i != NIL {
            if self.entries[i as usize].page == page {
                return i;
            }
            i = self.by_sector.next(i);
        }
        NIL
    }

    /// Content lookup: the record of `digest`.
    #[inline]
    fn content_of(&self, digest: &Digest) -> u32 {
        let mut i = self
            .by_content
            .head(self.by_content.bucket(digest_key(digest)));
        while i != NIL {
            if self.contents[i as usize].digest == *digest {
                return i;
            }
            i = self.by_content.next(i);
        }
        NIL
    }

    /// Records a sector lookup of `page` compares (the cost of a lookup in hash-chain
    /// probes, DEDUP-F12/F13): its position in its chain, or the chain's length; and
    /// whether it was found.
    pub fn sector_probes(&self, page: u64) -> (u32, bool) {
        let mut n = 0;
        let mut i = self.by_sector.head(self.by_sector.bucket(page));
        while i != NIL {
            n += 1;
            if self.entries[i as usize].page == page {
                return (n, true);
            }
            i = self.by_sector.next(i);
        }
        (n, false)
    }

    /// Records a content lookup of `digest` compares (see [`Self::sector_probes`]).
    pub fn content_probes(&self, digest: &Digest) -> (u32, bool) {
        let mut n = 0;
        let mut i = self
            .by_content
            .head(self.by_content.bucket(digest_key(digest)));
        while i != NIL {
            n += 1;
            if self.contents[i as usize].digest == *digest {
                return (n, true);
            }
            i = self.by_content.next(i);
        }
        (n, false)
    }

    /// Whether a read of `page` would hit, without touching anything.
    #[inline]
    pub fn probe(&self, page: u64) -> bool {
        let e = self.entry_of(page);
        e != NIL && {
            let c = self.entries[e as usize].content;
            c != NIL && self.repl.cached(c)
        }
    }

    /// A read of `page`: its cached page and how it was found, or `None` (a miss).
    #[inline]
    pub fn read(&mut self, page: u64) -> Option<(HitBy, &P)> {
        let e = self.entry_of(page);
        if e == NIL {
            return None;
        }
        let c = self.entries[e as usize].content;
        if c == NIL || !self.repl.cached(c) {
            return None;
        }
        self.repl.hit(c);
        let by = self.touch(e, c);
        self.data[c as usize].as_ref().map(|p| (by, p))
    }

    /// Marks that sector entry `e` touched its cached content `c`; how it hit.
    #[inline]
    fn touch(&mut self, e: u32, c: u32) -> HitBy {
        let epoch = self.repl.stamp(c);
        let entry = &mut self.entries[e as usize];
        let by = if entry.seen == epoch {
            HitBy::Sector
        } else {
            HitBy::Content
        };
        entry.seen = epoch;
        by
    }

    /// What `page` holds, if known (it was read, written or preloaded since; every write
    /// passes through the cache, so this is exact). Sector mode keeps no digests: `None`.
    pub fn known(&self, page: u64) -> Option<Digest> {
        if self.cfg.addressing == Addressing::Sector {
            return None;
        }
        let e = self.entry_of(page);
        if e == NIL {
            return None;
        }
        let c = self.entries[e as usize].content;
        (c != NIL).then(|| self.contents[c as usize].digest)
    }

    /// A read miss of `page` completed and returned content `digest`: records it in the
    /// duplicate map and caches the page (`data` gives it) if not already present.
    pub fn fill(&mut self, page: u64, digest: &Digest, data: impl FnOnce() -> P) {
        let Some((e, c)) = self.link(page, digest) else {
            return;
        };
        if !self.repl.cached(c) {
            self.admit(c, data());
        } else if self.cfg.addressing == Addressing::Sector {
            // The sector's key outlives a partial overwrite (`invalidate`): the page
            // just read is the current one.
            self.data[c as usize] = Some(data());
        }
        let epoch = self.repl.stamp(c);
        self.entries[e as usize].seen = epoch;
    }

    /// A write of `data` (content `digest`) to `page`, on its way to the disk: moves the
    /// sector to the new content's list and caches the page (write-through, the cache
    /// fills on writes). Returns how the content was already cached, if it was.
    pub fn write(&mut self, page: u64, digest: &Digest, data: P) -> Option<HitBy> {
        let (e, c) = self.link(page, digest)?;
        if self.repl.cached(c) {
            self.repl.hit(c);
            let by = self.touch(e, c);
            // Same digest is the same data, except in sector mode, where it is new data.
            self.data[c as usize] = Some(data);
            Some(by)
        } else {
            self.admit(c, data);
            let epoch = self.repl.stamp(c);
            self.entries[e as usize].seen = epoch;
            None
        }
    }

    /// Records that `page` holds `digest` without caching it (the duplicate map learnt
    /// over the disk's lifetime, preloaded before a run).
    pub fn preload(&mut self, page: u64, digest: &Digest) {
        self.link(page, digest);
    }

    /// `page` now holds content not known (a write of part of it): it leaves its
    /// content's list, so no read of it can hit stale data.
    pub fn invalidate(&mut self, page: u64) {
        let e = self.entry_of(page);
        if e != NIL {
            self.unlink(e);
        }
    }

    /// The pages holding the same content as `page` (itself included), into `out`.
    pub fn replicas(&self, page: u64, out: &mut Vec<u64>) {
        out.clear();
        let e = self.entry_of(page);
        if e == NIL {
            return;
        }
        let c = self.entries[e as usize].content;
        if c == NIL {
            out.push(page);
            return;
        }
        let mut i = self.contents[c as usize].head;
        while i != NIL {
            out.push(self.entries[i as usize].page);
            // A list longer than the entries there are loops: a broken structure,
            // refused loudly rather than walked without end.
            assert!(
                out.len() <= self.entries.len(),
                "sector list of content {c} loops"
            );
            i = self.entries[i as usize].next;
        }
    }

    fn admit(&mut self, c: u32, data: P) {
        if self.epoch >= self.epoch_limit {
            self.renumber();
        }
        self.epoch += 1;
        self.data[c as usize] = Some(data);
        let mut dropped = std::mem::take(&mut self.dropped);
        dropped.clear();
        self.repl.insert(c, &mut dropped);
        self.repl.set_stamp(c, self.epoch);
        for &x in &dropped {
            if !self.repl.cached(x) {
                self.data[x as usize] = None;
            }
            self.maybe_free(x);
        }
        self.dropped = dropped;
    }

    /// Renumbers residency stamps so they start again from 1. Only whether an entry's
    /// `seen` equals its cached content's stamp matters (a sector or a content hit), so
    /// that equality is kept and nothing else: cached contents get stamp 1, entries that
    /// touched their cached content's residency get 1, all others 0. Once per 2^32
    /// admissions, a walk of the slabs.
    fn renumber(&mut self) {
        for i in 0..self.entries.len() {
            let Entry { seen, content, .. } = self.entries[i];
            let same =
                content != NIL && self.repl.cached(content) && seen == self.repl.stamp(content);
            self.entries[i].seen = u32::from(same);
        }
        for c in 0..self.repl.slots() as u32 {
            let stamp = u32::from(self.repl.cached(c));
            self.repl.set_stamp(c, stamp);
        }
        self.epoch = 1;
    }

    #[cfg(test)]
    fn set_epoch_limit(&mut self, limit: u32) {
        self.epoch_limit = limit;
    }

    /// Puts `page` in `digest`'s sector list (creating what is missing); its entry and
    /// content indices, or `None` when the structure is full.
    fn link(&mut self, page: u64, digest: &Digest) -> Option<(u32, u32)> {
        let key = match self.cfg.addressing {
            Addressing::Content => *digest,
            Addressing::Sector => sector_key(page),
        };
        let mut e = self.entry_of(page);
        if e == NIL {
            if self.entries.len() >= MAX_TRACKED {
                return None;
            }
            e = self.entries.len() as u32;
            self.entries.push(Entry {
                page,
                seen: 0,
                content: NIL,
                prev: NIL,
                next: NIL,
            });
            let b = self.by_sector.bucket(page);
            self.by_sector.push(b, e);
        }
        let old = self.entries[e as usize].content;
        if old != NIL && self.contents[old as usize].digest == key {
            return Some((e, old));
        }
        let mut c = self.content_of(&key);
        if c == NIL {
            match self.new_content(key) {
                Some(x) => c = x,
                None => {
                    // Full: the page's content is no longer known, never stale.
                    self.unlink(e);
                    return None;
                }
            }
        }
        self.unlink(e);
        let head = self.contents[c as usize].head;
        let entry = &mut self.entries[e as usize];
        entry.seen = 0;
        entry.content = c;
        entry.prev = NIL;
        entry.next = head;
        if head != NIL {
            self.entries[head as usize].prev = e;
        }
        self.contents[c as usize].head = e;
        Some((e, c))
    }

    /// Takes entry `e` out of its content's sector list.
    fn unlink(&mut self, e: u32) {
        let Entry {
            content: c,
            prev,
            next,
            ..
        } = self.entries[e as usize];
        if c == NIL {
            return;
        }
        if prev == NIL {
            self.contents[c as usize].head = next;
        } else {
            self.entries[prev as usize].next = next;
        }
        if next != NIL {
            self.entries[next as usize].prev = prev;
        }
        let entry = &mut self.entries[e as usize];
        entry.content = NIL;
        entry.prev = NIL;
        entry.next = NIL;
        entry.seen = 0;
        self.maybe_free(c);
    }

    fn new_content(&mut self, digest: Digest) -> Option<u32> {
        let rec = Content { digest, head: NIL };
        let c = match self.free.pop() {
            Some(c) => {
                self.contents[c as usize] = rec;
                c
            }
            None => {
                if self.contents.len() >= MAX_TRACKED {
                    return None;
                }
                self.contents.push(rec);
                self.data.push(None);
                (self.contents.len() - 1) as u32
            }
        };
        let b = self.by_content.bucket(digest_key(&digest));
        self.by_content.push(b, c);
        Some(c)
    }

    /// Frees content `c` once no sector, page or ghost refers to it.
    fn maybe_free(&mut self, c: u32) {
        if self.contents[c as usize].head == NIL && !self.repl.tracked(c) {
            let b = self
                .by_content
                .bucket(digest_key(&self.contents[c as usize].digest));
            self.by_content.remove(b, c);
            self.data[c as usize] = None;
            self.free.push(c);
        }
    }

    /// Pages held.
    pub fn cached(&self) -> usize {
        self.repl.len()
    }

    /// Sector entries tracked.
    pub fn entries(&self) -> usize {
        self.entries.len()
    }

    /// Content records tracked (with a sector list, a page, or a ghost).
    pub fn contents(&self) -> usize {
        self.contents.len() - self.free.len()
    }

    pub fn memory(&self) -> Memory {
        let contents = (self.contents.len() - self.free.len()) as u64;
        let entries = self.entries.len() as u64;
        let buckets = self.by_sector.buckets() as u64;
        let metadata = self.entries.capacity() * std::mem::size_of::<Entry>()
            + self.contents.capacity() * std::mem::size_of::<Content>()
            + self.free.capacity() * 4
            + self.data.capacity() * std::mem::size_of::<Option<P>>()
            + self.by_sector.bytes()
            + self.by_content.bytes()
            + self.repl.bytes();
        Memory {
            pages: self.cfg.pages,
            cached: self.repl.len() as u64,
            entries,
            contents,
            buckets,
            similarity: if contents > 0 {
                entries as f64 / contents as f64
            } else {
                0.0
            },
            eq1_bytes: eq1_bytes(self.cfg.pages, entries, buckets),
            metadata_bytes: metadata as u64,
        }
    }
}

/// DEDUP-EQ-MEM: 13 B per cache page, 36 B per sector entry (P·WSS of them), 8 B per
/// hash-table bucket.
pub fn eq1_bytes(pages: u64, entries: u64, buckets: u64) -> u64 {
    13 * pages + 36 * entries + 8 * buckets
}

#[cfg(test)]
mod tests;
