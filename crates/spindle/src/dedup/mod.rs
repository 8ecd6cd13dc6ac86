//! I/O Deduplication (Koller and Rangaswami, FAST '10; catalog ALG-DEDUP) as parts of
//! the stack: a content-addressed cache layer (§3.2) and a dynamic replica retriever
//! (§3.3).
//!
//! **How content reaches the layers.** Requests ([`crate::disk::hdd::Request`]) carry
//! no data: they are `Copy`, sit in every queue and event of the simulator, and most
//! runs have no content at all. Adding a digest (or an optional one) to them would
//! make every request in every part larger for the benefit of one layer. Instead the
//! content cache is built with a [`ContentSource`] that answers "what does request `id`
//! write to (or read from) this page": [`UniqueContent`] when the workload has no
//! hashes (each page of the disk image and each write is new content, so the cache
//! acts as a sector cache would), and [`ContentFeed`] for a workload with hashes, which
//! taps the record stream as the engine pulls it and keeps only the records in flight
//! (request ids are the engine's record indices, so the content cache must be the top
//! layer, as in the paper, where it is the first mechanism a request meets). The rest
//! of the simulator is untouched and pays nothing. The cache itself is generic over the
//! page it holds: `()` in the simulator, the page's bytes in the real-bytes test.

pub mod cache;
pub mod combine;
pub mod content;
pub mod drr;
pub mod gen;
pub mod layer;
pub mod replace;
pub mod replay;
pub mod selective;
pub mod table;

pub use cache::{Addressing, CacheConfig, ContentCache, HitBy};
pub use combine::combine_sectors;
pub use content::{md5, ContentFeed, ContentSource, UniqueContent};
pub use drr::{Drr, DrrSpec};
pub use gen::{ContentTrace, ContentTraceSpec, FiuWorkload, Layout};
pub use layer::{ContentCacheLayer, ContentCacheSpec};
pub use replace::Policy;
pub use replay::{replay, CacheRequest, ReplayCounts};

/// A content hash: MD5 of a 4 KiB page (assumed collision-free, as in the paper).
pub type Digest = [u8; 16];

/// 512-byte sectors per 4 KiB page, the unit of content.
pub const PAGE_SECTORS: u64 = 8;
/// Bytes per page.
pub const PAGE_BYTES: usize = 4096;
