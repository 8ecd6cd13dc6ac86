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

use super::replace::Replacer;
use super::table::{Chains, NIL};
use crate::dedup::cache::{
    eq1_bytes, Addressing, CacheConfig, HitBy, Memory, MAX_PAGES, MAX_TRACKED,
};
use crate::dedup::Digest;

/// A page (`vc_entry`): which content it holds and its place in that content's sector
/// list. `seen` is the residency (epoch) of its content this sector last touched.
#[derive(Clone, Copy, Debug)]
struct Entry {
    page: u64,
    seen: u64,
    content: u32,
    prev: u32,
    next: u32,
}

/// A content: its digest and its sector list. (The epoch of its current residency
/// is kept with its replacement node.)
#[derive(Clone, Copy, Debug)]
struct Content {
    digest: Digest,
    head: u32,
    count: u32,
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
    epoch: u64,
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
            dropped: Vec::new(),
            cfg,
        })
    }

    pub fn config(&self) -> &CacheConfig {
        &self.cfg
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
            i = self.entries[i as usize].next;
        }
    }

    fn admit(&mut self, c: u32, data: P) {
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
        self.entries[e as usize] = Entry {
            page,
            seen: 0,
            content: c,
            prev: NIL,
            next: head,
        };
        if head != NIL {
            self.entries[head as usize].prev = e;
        }
        let rec = &mut self.contents[c as usize];
        rec.head = e;
        rec.count += 1;
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
        self.contents[c as usize].count -= 1;
        let entry = &mut self.entries[e as usize];
        entry.content = NIL;
        entry.prev = NIL;
        entry.next = NIL;
        entry.seen = 0;
        self.maybe_free(c);
    }

    fn new_content(&mut self, digest: Digest) -> Option<u32> {
        let rec = Content {
            digest,
            head: NIL,
            count: 0,
        };
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
        if self.contents[c as usize].count == 0 && !self.repl.tracked(c) {
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
