//! Where the content of requests comes from (see the module note in [`super`]).

use super::{Digest, PAGE_SECTORS};
use crate::trace::IoRecord;
use md5::Digest as _;
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex};

/// MD5 of a page's bytes.
pub fn md5(page: &[u8]) -> Digest {
    md5::Md5::digest(page).into()
}

/// Answers what a request moves. `id` is the request's id as the layer received it,
/// `page` the absolute 4 KiB page and `k` its index within the request.
///
/// A source that answers reads from a disk image must answer every write as well: a
/// write it cannot describe makes the page's content unknown to the cache, and the
/// image would be stale for it.
pub trait ContentSource {
    /// The content of a whole page that write `id` puts there, or that read `id`
    /// returned; `None` when not known.
    fn content(&mut self, id: u64, write: bool, page: u64, k: usize) -> Option<Digest>;
    /// Request `id` is finished with: the source may forget it.
    fn finished(&mut self, _id: u64) {}
}

/// No content in the workload: each page of the disk image holds its own content and
/// each write writes content never seen before.
#[derive(Clone, Debug, Default)]
pub struct UniqueContent {
    writes: u64,
}

impl ContentSource for UniqueContent {
    fn content(&mut self, _id: u64, write: bool, page: u64, _k: usize) -> Option<Digest> {
        // Tagged so they are told apart from each other (never from real MD5s, which
        // these runs do not have).
        let mut d = [0u8; 16];
        if write {
            self.writes += 1;
            d[..8].copy_from_slice(&self.writes.to_le_bytes());
            d[15] = 0xfe;
        } else {
            d[..8].copy_from_slice(&page.to_le_bytes());
            d[15] = 0xfd;
        }
        Some(d)
    }
}

#[derive(Debug, Default)]
struct FeedState {
    /// The engine's index of the next record pulled.
    next: u64,
    /// Page digests of records with content pulled and not finished, by index (`None`:
    /// the record's digests do not describe whole pages), with whether it is a write
    /// and how many consumers have yet to finish with it.
    by_id: FxHashMap<u64, (Option<Vec<Digest>>, bool, u32)>,
    /// Handles made by [`ContentFeed::also_for_writes`].
    write_consumers: u32,
    /// Records without any content are unique content, as with [`UniqueContent`].
    unique: UniqueContent,
}

/// The content of a workload's records (trace hashes), handed to the content cache by
/// request id. [`ContentFeed::tap`] wraps the record stream given to the engine.
/// A record with no hashes at all is treated as [`UniqueContent`]; one whose hashes do
/// not describe whole pages gives no content (its pages become unknown).
#[derive(Clone, Debug, Default)]
pub struct ContentFeed {
    state: Arc<Mutex<FeedState>>,
    /// This handle consumes writes only (a layer below the content cache, which sees
    /// every write but not the reads the cache served).
    writes_only: bool,
}

/// A record's digests one per page, when it has exactly that: page-aligned, whole
/// pages, one digest each. (FIU `homes` digests cover 512 bytes: such records give no
/// page content until they are combined into pages.)
fn page_digests(r: &IoRecord) -> Option<Vec<Digest>> {
    let pages = u64::from(r.blocks) / PAGE_SECTORS;
    (r.lbn.is_multiple_of(PAGE_SECTORS)
        && u64::from(r.blocks).is_multiple_of(PAGE_SECTORS)
        && pages > 0
        && r.content.len() as u64 == pages)
        .then(|| r.content.clone())
}

impl ContentFeed {
    pub fn new() -> ContentFeed {
        ContentFeed::default()
    }

    /// The record stream, noting each record's content as the engine pulls it.
    pub fn tap<'a>(
        &self,
        records: impl Iterator<Item = IoRecord> + 'a,
    ) -> impl Iterator<Item = IoRecord> + 'a {
        let feed = self.clone();
        records.inspect(move |r| feed.note(r))
    }

    fn note(&self, r: &IoRecord) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let id = s.next;
        s.next += 1;
        if !r.content.is_empty() {
            let consumers = 1 + if r.write { s.write_consumers } else { 0 };
            s.by_id.insert(id, (page_digests(r), r.write, consumers));
        }
    }

    /// Another handle on the same records, for a layer below the content cache that
    /// keeps the workload's request ids (DRR): it is told writes only, and a write is
    /// forgotten once both have finished with it. Make it before the run starts.
    pub fn also_for_writes(&self) -> ContentFeed {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.write_consumers += 1;
        ContentFeed {
            state: self.state.clone(),
            writes_only: true,
        }
    }

    /// Records pulled and not finished (bounded by the requests in flight).
    pub fn pending(&self) -> usize {
        self.state.lock().map(|s| s.by_id.len()).unwrap_or(0)
    }
}

impl ContentSource for ContentFeed {
    fn content(&mut self, id: u64, write: bool, page: u64, k: usize) -> Option<Digest> {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match s.by_id.get(&id) {
            Some((d, _, _)) => d.as_ref().and_then(|d| d.get(k).copied()),
            None => s.unique.content(id, write, page, k),
        }
    }

    fn finished(&mut self, id: u64) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let Some((_, write, left)) = s.by_id.get_mut(&id) else {
            return;
        };
        if self.writes_only && !*write {
            return;
        }
        *left -= 1;
        if *left == 0 {
            s.by_id.remove(&id);
        }
    }
}
