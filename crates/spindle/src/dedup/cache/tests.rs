//! The cache with real bytes: every read it serves is compared with a plain copy of the
//! volume, after overwrites (whole and partial pages) and evictions.

use super::*;
use crate::dedup::{md5, PAGE_BYTES};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A page filled from a pattern number (few patterns: many duplicates).
fn pattern(k: u32) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(0xd0d0 + u64::from(k));
    (0..PAGE_BYTES).map(|_| rng.gen()).collect()
}

#[derive(Default, Debug)]
struct Tally {
    sector: u64,
    content: u64,
    misses: u64,
    evictions_seen: bool,
}

/// Random reads, whole-page writes (mostly of shared patterns), partial-page writes
/// and preloads over a small volume through a small cache; every hit's bytes must be
/// the volume's.
fn run(seed: u64, policy: Policy, addressing: Addressing, buckets_log2: u32) -> Tally {
    const VOLUME_PAGES: u64 = 256;
    const PATTERNS: u32 = 24;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let patterns: Vec<Vec<u8>> = (0..PATTERNS).map(pattern).collect();
    let mut volume: Vec<Vec<u8>> = (0..VOLUME_PAGES)
        .map(|_| patterns[rng.gen_range(0..PATTERNS) as usize].clone())
        .collect();
    let mut cache: ContentCache<Vec<u8>> = ContentCache::new(CacheConfig {
        pages: 16,
        policy,
        addressing,
        buckets_log2,
    })
    .unwrap();
    // Part of the duplicate map is known before the run.
    for p in 0..VOLUME_PAGES {
        if rng.gen_bool(0.3) {
            cache.preload(p, &md5(&volume[p as usize]));
        }
    }
    let mut t = Tally::default();
    let mut replicas = Vec::new();
    for step in 0..20_000 {
        // A skewed page choice, so some pages are hot.
        let p = if rng.gen_bool(0.5) {
            rng.gen_range(0..32)
        } else {
            rng.gen_range(0..VOLUME_PAGES)
        };
        let r = rng.gen_range(0..100);
        if r < 60 {
            match cache.read(p) {
                Some((by, bytes)) => {
                    assert!(
                        bytes == &volume[p as usize],
                        "seed {seed} step {step}: wrong bytes for page {p} ({by:?} hit)"
                    );
                    match by {
                        HitBy::Sector => t.sector += 1,
                        HitBy::Content => t.content += 1,
                    }
                }
                None => {
                    t.misses += 1;
                    let bytes = volume[p as usize].clone();
                    let d = md5(&bytes);
                    cache.fill(p, &d, || bytes);
                }
            }
        } else if r < 90 {
            let bytes = if rng.gen_bool(0.9) {
                patterns[rng.gen_range(0..PATTERNS) as usize].clone()
            } else {
                pattern(1000 + step)
            };
            volume[p as usize] = bytes.clone();
            cache.write(p, &md5(&bytes), bytes);
        } else {
            // A write of part of the page: the cache does not get the whole page.
            let at = rng.gen_range(0..PAGE_BYTES - 512);
            volume[p as usize][at..at + 512].fill(rng.gen());
            cache.invalidate(p);
        }
        if let Some(d) = cache.known(p) {
            assert_eq!(
                d,
                md5(&volume[p as usize]),
                "seed {seed}: stale content of {p}"
            );
        }
        // Every replica of a page's content holds the same bytes (what DRR relies on).
        cache.replicas(p, &mut replicas);
        for &q in &replicas {
            assert!(
                volume[q as usize] == volume[p as usize],
                "seed {seed} step {step}: page {q} listed as a replica of {p}"
            );
        }
        assert!(cache.cached() <= 16);
        t.evictions_seen |= cache.cached() == 16;
    }
    t
}

#[test]
fn content_addressing_returns_the_volumes_bytes_after_overwrites_and_evictions() {
    for seed in 0..6 {
        for policy in [Policy::Arc, Policy::Lru] {
            for buckets in [5, 12] {
                let t = run(seed, policy, Addressing::Content, buckets);
                assert!(t.content > 0 && t.sector > 0 && t.misses > 0, "{t:?}");
                assert!(t.evictions_seen);
            }
        }
    }
}

#[test]
fn sector_addressing_returns_the_volumes_bytes_and_never_hits_by_content() {
    for seed in 0..4 {
        for policy in [Policy::Arc, Policy::Lru] {
            let t = run(seed, policy, Addressing::Sector, 8);
            assert_eq!(t.content, 0, "{t:?}");
            assert!(t.sector > 0 && t.misses > 0, "{t:?}");
        }
    }
}

#[test]
fn eviction_keeps_sector_lists() {
    let mut c: ContentCache<()> = ContentCache::new(CacheConfig {
        pages: 1,
        policy: Policy::Lru,
        addressing: Addressing::Content,
        buckets_log2: 5,
    })
    .unwrap();
    let (a, b) = ([1u8; 16], [2u8; 16]);
    c.write(10, &a, ());
    c.write(20, &a, ());
    c.write(30, &b, ()); // evicts a's page
    assert!(!c.probe(10) && c.probe(30));
    let mut r = Vec::new();
    c.replicas(10, &mut r);
    r.sort_unstable();
    assert_eq!(r, [10, 20]);
    // A write moves its sector to the new content's list.
    c.write(20, &b, ());
    c.replicas(30, &mut r);
    r.sort_unstable();
    assert_eq!(r, [20, 30]);
    c.replicas(10, &mut r);
    assert_eq!(r, [10]);
    let m = c.memory();
    assert_eq!(m.entries, 3);
    assert_eq!(m.eq1_bytes, 13 + 36 * 3 + 8 * 32);
}

#[test]
fn eq1_matches_the_papers_worked_example() {
    // DEDUP-MEM: 1 GiB cache (2^18 pages), WSS 4, 10^6 buckets: 49,156,608 B ≈ 4.58 %.
    let b = eq1_bytes(1 << 18, 4 << 18, 1_000_000);
    assert_eq!(b, 49_156_608);
}

/// One random operation sequence through two caches that differ only in how they are
/// built (hash buckets, how often residency stamps are renumbered): every answer must
/// be the same, since neither may change what the cache holds or how a hit is found.
/// (When the structure was compacted, the same comparison against the old structure
/// passed; the DEDUP results stayed byte-identical.)
fn equivalent(seed: u64, policy: Policy, addressing: Addressing, a: (u32, u32), b: (u32, u32)) {
    const VOLUME_PAGES: u64 = 600;
    const CONTENTS: u8 = 90;
    let cache = |(buckets_log2, epoch_limit): (u32, u32)| {
        let mut c: ContentCache<u32> = ContentCache::new(CacheConfig {
            pages: 24,
            policy,
            addressing,
            buckets_log2,
        })
        .unwrap();
        c.set_epoch_limit(epoch_limit);
        c
    };
    let (mut new, mut old) = (cache(a), cache(b));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let digest = |k: u8| {
        let mut d = [k; 16];
        d[15] = 0x5a;
        d
    };
    let (mut rn, mut ro) = (Vec::new(), Vec::new());
    for step in 0..30_000u32 {
        let p = if rng.gen_bool(0.5) {
            rng.gen_range(0..40)
        } else {
            rng.gen_range(0..VOLUME_PAGES)
        };
        let d = digest(rng.gen_range(0..CONTENTS));
        let ctx =
            format!("seed {seed} {policy:?} {addressing:?} {a:?} vs {b:?} step {step} page {p}");
        match rng.gen_range(0..100) {
            0..=49 => {
                let x = new.read(p).map(|(by, v)| (by, *v));
                let y = old.read(p).map(|(by, v)| (by, *v));
                assert_eq!(x, y, "read: {ctx}");
                if x.is_none() {
                    let d = new.known(p).unwrap_or(d);
                    new.fill(p, &d, || step);
                    old.fill(p, &d, || step);
                }
            }
            50..=79 => assert_eq!(
                new.write(p, &d, step),
                old.write(p, &d, step),
                "write: {ctx}"
            ),
            80..=89 => {
                new.preload(p, &d);
                old.preload(p, &d);
            }
            _ => {
                new.invalidate(p);
                old.invalidate(p);
            }
        }
        assert_eq!(new.probe(p), old.probe(p), "probe: {ctx}");
        assert_eq!(new.known(p), old.known(p), "known: {ctx}");
        new.replicas(p, &mut rn);
        old.replicas(p, &mut ro);
        rn.sort_unstable();
        ro.sort_unstable();
        assert_eq!(rn, ro, "replicas: {ctx}");
        assert_eq!(new.cached(), old.cached(), "cached: {ctx}");
        assert_eq!(new.entries(), old.entries(), "entries: {ctx}");
    }
    let (x, y) = (new.memory(), old.memory());
    assert_eq!(
        (x.cached, x.entries, x.contents),
        (y.cached, y.entries, y.contents)
    );
}

#[test]
fn the_bucket_count_changes_no_answer() {
    for seed in 0..5 {
        for policy in [Policy::Arc, Policy::Lru] {
            for addressing in [Addressing::Content, Addressing::Sector] {
                equivalent(
                    seed,
                    policy,
                    addressing,
                    (5, u32::MAX - 1),
                    (10, u32::MAX - 1),
                );
            }
        }
    }
}

#[test]
fn renumbered_stamps_keep_sector_and_content_hits_apart() {
    // Stamps renumbered every few admissions (instead of once per 2^32): the hits and
    // how they were found stay those of a cache that never renumbers.
    for seed in 10..14 {
        for policy in [Policy::Arc, Policy::Lru] {
            for limit in [2, 7, 100] {
                equivalent(
                    seed,
                    policy,
                    Addressing::Content,
                    (6, limit),
                    (6, u32::MAX - 1),
                );
            }
        }
    }
}

#[test]
fn footprint_is_the_slabs_capacities() {
    // The Eq. 1 example at 1/64 scale: 2^12 pages, WSS 4, 2^14 buckets. Entries 24 B
    // + a 4-B chain link, content records 20 B + 4 B (link) + 1 B (page slot) + 16 B
    // (replacement node), 2 × 4 B per bucket: 2^14·28 + 2^12·41 + 2^14·8 = 757,760 B,
    // against Eq. 1's 774,144 B.
    let p = 1u64 << 12;
    let mut c: ContentCache<()> = ContentCache::new(CacheConfig {
        pages: p,
        policy: Policy::Arc,
        addressing: Addressing::Content,
        buckets_log2: 14,
    })
    .unwrap();
    for i in 0..p {
        let mut d = [0u8; 16];
        d[..8].copy_from_slice(&i.to_le_bytes());
        for k in 1..4 {
            c.preload(i * 4 + k, &d);
        }
        c.fill(i * 4, &d, || ());
    }
    let m = c.memory();
    assert_eq!((m.cached, m.entries, m.contents), (p, 4 * p, p));
    assert_eq!(m.eq1_bytes, 774_144);
    assert_eq!(m.metadata_bytes, 757_760);
    let dev = m.metadata_bytes as f64 / m.eq1_bytes as f64 - 1.0;
    assert!(dev.abs() <= 0.10, "{dev}");
}

#[test]
fn probe_counts_walk_the_chains() {
    // 2^5 buckets, 320 pages: chains average 10 records; a miss walks a whole chain.
    let mut c: ContentCache<()> = ContentCache::new(CacheConfig {
        pages: 1000,
        policy: Policy::Lru,
        addressing: Addressing::Content,
        buckets_log2: 5,
    })
    .unwrap();
    for i in 0..320u64 {
        c.write(i, &[(i % 40) as u8; 16], ());
    }
    assert!((0..320).all(|i| c.sector_probes(i).1));
    assert!((1000..1032).all(|i| !c.sector_probes(i).1));
    let hits: u32 = (0..320).map(|i| c.sector_probes(i).0).sum();
    // Each chain of n records costs 1 + 2 + … + n on lookups of its own records.
    assert!(hits > 320 * 3, "{hits}");
    let misses: u32 = (1000..1032).map(|i| c.sector_probes(i).0).sum();
    assert!(misses > 32 * 5, "{misses}");
    assert!((0..40u8).all(|k| c.content_probes(&[k; 16]).0 >= 1 && c.content_probes(&[k; 16]).1));
    assert!(!c.content_probes(&[99; 16]).1);
}
