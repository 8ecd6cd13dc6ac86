//! Trace-driven replay of the content cache alone, as a cache simulator such as
//! libCacheSim replays a trace: no disk and no timing, only what each request finds.
//! A read looks up its page and, on a miss, fills it with what the disk returns; a
//! write goes through the cache (write-through, as in the layer).
//!
//! **Why pipelined.** Each request walks from a bucket head to a sector entry to its
//! content's replacement node, and with a cache of realistic size each step is a miss
//! to memory that the next step waits for. Requests of a trace are independent until
//! they meet in the cache, so the replay reads [`AHEAD`] requests ahead and starts
//! loading their steps early: the bucket heads of the request `AHEAD` ahead, the entry
//! of the one `2·STAGE` ahead (its head is loaded by now), the node of the one `STAGE`
//! ahead. These are hints ([`crate::prefetch`]): the cache is changed only by the
//! request being served, in trace order, so a replay's result is exactly that of
//! serving the requests one by one (a test checks it). Measured by `spindle bench`.

use super::cache::{ContentCache, HitBy};
use super::Digest;
use serde::Serialize;

/// One request of a replayed trace: a 4 KiB page, its content, and whether it is
/// written. For a read, `content` is what the disk returns on a miss (when the cache
/// knows what the page holds, that wins: every write passes through the cache).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheRequest {
    pub page: u64,
    pub content: Digest,
    pub write: bool,
}

/// What a replay found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReplayCounts {
    pub reads: u64,
    pub read_hits: u64,
    /// Read hits found only through another sector's identical content.
    pub content_hits: u64,
    pub writes: u64,
    /// Hash-table lookups: a read is a sector lookup; a fill after a read miss and a
    /// write are a sector and a content lookup each.
    pub lookups: u64,
}

impl ReplayCounts {
    pub fn read_hit_ratio(&self) -> f64 {
        if self.reads == 0 {
            0.0
        } else {
            self.read_hits as f64 / self.reads as f64
        }
    }
}

/// Requests between prefetch stages (`spindle bench` on the development machine: 4, 6
/// and 8 all about 1.7× the unpipelined rate; 1 and 2 too short to cover a miss).
pub const STAGE: usize = 6;
/// How far ahead the replay reads: three stages.
pub const AHEAD: usize = 3 * STAGE;
/// Ring of requests read ahead (a power of two above `AHEAD`).
const RING: usize = 32;
const _: () = assert!(RING.is_power_of_two() && RING > AHEAD);

/// Serves one request; what it found is added to `n`.
fn serve(cache: &mut ContentCache<()>, r: &CacheRequest, n: &mut ReplayCounts) {
    if r.write {
        n.writes += 1;
        n.lookups += 2;
        cache.write(r.page, &r.content, ());
        return;
    }
    n.reads += 1;
    n.lookups += 1;
    match cache.read(r.page) {
        Some((by, _)) => {
            n.read_hits += 1;
            if by == HitBy::Content {
                n.content_hits += 1;
            }
        }
        None => {
            let d = cache.known(r.page).unwrap_or(r.content);
            cache.fill(r.page, &d, || ());
            n.lookups += 2;
        }
    }
}

/// Replays `requests` through `cache` in order (streamed: [`AHEAD`] requests are held
/// at a time).
pub fn replay(
    cache: &mut ContentCache<()>,
    requests: impl IntoIterator<Item = CacheRequest>,
) -> ReplayCounts {
    let mut n = ReplayCounts::default();
    let mut source = requests.into_iter();
    let empty = CacheRequest {
        page: 0,
        content: [0; 16],
        write: false,
    };
    let mut ring = [empty; RING];
    // Requests read: ring[at % RING] for at in served..read.
    let (mut served, mut read) = (0usize, 0usize);
    loop {
        while read - served <= AHEAD {
            let Some(r) = source.next() else { break };
            cache.prefetch_buckets(r.page, r.write.then_some(&r.content));
            ring[read % RING] = r;
            read += 1;
        }
        if served == read {
            return n;
        }
        if served + 2 * STAGE < read {
            let r = &ring[(served + 2 * STAGE) % RING];
            cache.prefetch_entry(r.page, r.write.then_some(&r.content));
        }
        if served + STAGE < read {
            let r = &ring[(served + STAGE) % RING];
            cache.prefetch_node(r.page, r.write);
        }
        serve(cache, &ring[served % RING], &mut n);
        served += 1;
    }
}

/// [`replay`] without prefetching: each request served as it is read (the reference
/// the tests compare with, and the bench's unpipelined figure).
pub fn replay_in_order(
    cache: &mut ContentCache<()>,
    requests: impl IntoIterator<Item = CacheRequest>,
) -> ReplayCounts {
    let mut n = ReplayCounts::default();
    for r in requests {
        serve(cache, &r, &mut n);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dedup::{md5, Addressing, CacheConfig, Policy};
    use rand::{Rng, SeedableRng};

    fn cache(policy: Policy, addressing: Addressing, log2: u32) -> ContentCache<()> {
        ContentCache::new(CacheConfig {
            pages: 300,
            policy,
            addressing,
            buckets_log2: log2,
        })
        .expect("valid config")
    }

    fn stream(seed: u64, len: usize) -> Vec<CacheRequest> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let digests: Vec<Digest> = (0..500u32).map(|i| md5(&i.to_le_bytes())).collect();
        (0..len)
            .map(|_| CacheRequest {
                page: rng.gen_range(0..2_000),
                content: digests[rng.gen_range(0..500)],
                write: rng.gen_bool(0.3),
            })
            .collect()
    }

    #[test]
    fn pipelined_replay_finds_what_serving_in_order_finds() {
        for seed in 0..6 {
            for (policy, addressing, log2) in [
                (Policy::Arc, Addressing::Content, 5),
                (Policy::Arc, Addressing::Content, 12),
                (Policy::Lru, Addressing::Content, 8),
                (Policy::Arc, Addressing::Sector, 10),
            ] {
                // Lengths around the read-ahead: shorter than a stage, than the ring, longer.
                for len in [0, 1, STAGE, AHEAD, AHEAD + 1, 5_000] {
                    let s = stream(seed, len);
                    let (mut a, mut b) = (
                        cache(policy, addressing, log2),
                        cache(policy, addressing, log2),
                    );
                    let na = replay(&mut a, s.iter().copied());
                    let nb = replay_in_order(&mut b, s.iter().copied());
                    assert_eq!(na, nb, "seed {seed} len {len} {policy:?} {addressing:?}");
                    assert_eq!(na.reads + na.writes, len as u64);
                    assert_eq!(a.memory(), b.memory());
                    for page in 0..2_000 {
                        assert_eq!(a.probe(page), b.probe(page));
                        assert_eq!(a.known(page), b.known(page));
                    }
                }
            }
        }
    }

    #[test]
    fn a_repeated_read_hits() {
        let mut c = cache(Policy::Arc, Addressing::Content, 5);
        let r = CacheRequest {
            page: 7,
            content: md5(b"x"),
            write: false,
        };
        let n = replay(&mut c, [r, r, r]);
        assert_eq!((n.reads, n.read_hits, n.lookups), (3, 2, 5));
        assert!((n.read_hit_ratio() - 2.0 / 3.0).abs() < 1e-12);
    }
}
