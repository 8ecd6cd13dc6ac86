//! The content cache's memory overhead, Eq. 1: DEDUP-MEM.

use crate::experiments::Check;
use crate::report::{ExperimentOutput, Table};
use std::fmt::Write as _;

/// The metadata of a content cache of `p` pages (ARC, 2^`buckets_log2` buckets) filled
/// with `p` contents, each on `wss` sectors (one read and cached, the others preloaded).
fn filled_memory(
    p: u64,
    wss: u64,
    buckets_log2: u32,
) -> Result<crate::dedup::cache::Memory, String> {
    use crate::dedup::{Addressing, CacheConfig, ContentCache, Policy};
    let mut c: ContentCache<()> = ContentCache::new(CacheConfig {
        pages: p,
        policy: Policy::Arc,
        addressing: Addressing::Content,
        buckets_log2,
    })?;
    for i in 0..p {
        let mut d = [0u8; 16];
        d[..8].copy_from_slice(&i.to_le_bytes());
        for k in 1..wss {
            c.preload(i * wss + k, &d);
        }
        c.fill(i * wss, &d, || ());
    }
    Ok(c.memory())
}

/// DEDUP-MEM: Eq. 1's worked example, and the implementation's metadata against it.
pub fn dedup_mem(_quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    use crate::dedup::cache::eq1_bytes;
    let mut out = ExperimentOutput::new(
        "DEDUP-MEM",
        "Memory overhead of the content cache (Eq. 1): the worked example and our structure",
        "Eq. 1, mem = 13·P + 36·P·WSS + 8·HTB, for the paper's example (1 GiB cache = 262,144 pages, \
         WSS = 4, 10^6 buckets), and the metadata our content cache holds when filled to that \
         example (2^20 buckets, the nearest power of two; every cached content on 4 sectors).",
        seed,
    );
    let p = 262_144u64;
    let eq = eq1_bytes(p, 4 * p, 1_000_000) as f64;
    let pct = eq / (1u64 << 30) as f64 * 100.0;
    out.checks.push(
        Check::relative("DEDUP-MEM", "Eq. 1 example, MB", 48.0, eq / 1e6, 0.05)
            .consistency("arithmetic on the paper's formula"),
    );
    out.checks.push(
        Check::absolute("DEDUP-MEM", "Eq. 1 example, % of 1 GiB", 4.6, pct, 0.1)
            .consistency("arithmetic on the paper's formula"),
    );
    let m = filled_memory(p, 4, 20)?;
    let mut t = Table::new(&["quantity", "value"]);
    for (k, v) in [
        ("pages cached", m.cached.to_string()),
        ("sector entries", m.entries.to_string()),
        (
            "Eq. 1 with our counts (2^20 buckets), bytes",
            m.eq1_bytes.to_string(),
        ),
        ("metadata held, bytes", m.metadata_bytes.to_string()),
    ] {
        t.rows.push(vec![k.into(), v]);
    }
    out.checks.push(
        Check::relative(
            "DEDUP-MEM",
            "our metadata bytes against Eq. 1 (±10 %)",
            m.eq1_bytes as f64,
            m.metadata_bytes as f64,
            0.10,
        )
        .reference("Eq. 1 evaluated with our structure's counts (not a printed number)"),
    );
    out.tables.push(t);
    // DEDUP-EQ-MEM: the derived value with 2^20 buckets, and the formula against our
    // measured footprint at other similarities (P = 2^16 pages, 2^18 buckets).
    out.checks.push(
        Check::relative(
            "DEDUP-EQ-MEM",
            "Eq. 1 with P = 2^18, WSS = 4, HTB = 2^20, bytes",
            49_545_216.0,
            eq1_bytes(p, 4 * p, 1 << 20) as f64,
            0.0,
        )
        .consistency("arithmetic: Eq. 1 on the paper's worked example (1 GB cache, WSS = 4) with 2^20 buckets; the paper prints ≈48 MB for 10^6 buckets"),
    );
    let mut g = Table::new(&["WSS", "Eq. 1, bytes", "held, bytes", "held / Eq. 1"]);
    let mut csv = format!(
        "quantity,value\neq1_example_bytes,{eq}\neq1_ours,{}\nheld,{}\n",
        m.eq1_bytes, m.metadata_bytes
    );
    let mut held = Vec::new();
    for wss in [2u64, 4, 8] {
        let g_m = filled_memory(1 << 16, wss, 18)?;
        held.push((wss, g_m.metadata_bytes as f64, g_m.eq1_bytes as f64));
        let ratio = g_m.metadata_bytes as f64 / g_m.eq1_bytes as f64;
        g.rows.push(vec![
            wss.to_string(),
            g_m.eq1_bytes.to_string(),
            g_m.metadata_bytes.to_string(),
            format!("{ratio:.3}"),
        ]);
        let _ = writeln!(
            csv,
            "wss{wss}_eq1,{}\nwss{wss}_held,{}",
            g_m.eq1_bytes, g_m.metadata_bytes
        );
        out.checks.push(
            Check::relative(
                "DEDUP-EQ-MEM",
                &format!(
                    "our metadata bytes against Eq. 1, P = 2^16, WSS = {wss}, HTB = 2^18 (±10 %)"
                ),
                g_m.eq1_bytes as f64,
                g_m.metadata_bytes as f64,
                0.10,
            )
            .reference("Eq. 1 evaluated with our structure's counts (not a printed number)"),
        );
    }
    out.tables.push(g);
    // Our bytes split into Eq. 1's three terms: per sector entry from the slope between
    // WSS = 2 and 8, per content record (one per cached page here) from the rest.
    let (p16, htb) = ((1u64 << 16) as f64, (1u64 << 18) as f64);
    let per_entry = (held[2].1 - held[0].1) / (p16 * 6.0);
    let per_page = (held[0].1 - 2.0 * p16 * per_entry - 8.0 * htb) / p16;
    let mid = per_page * p16 + 4.0 * p16 * per_entry + 8.0 * htb;
    let mut f = Table::new(&["term", "Eq. 1, bytes", "ours (measured), bytes"]);
    f.rows.push(vec![
        "per cached page (vc_page; ours: a content record)".into(),
        "13".into(),
        format!("{per_page:.1}"),
    ]);
    f.rows.push(vec![
        "per sector entry (vc_entry), P·WSS of them".into(),
        "36".into(),
        format!("{per_entry:.1}"),
    ]);
    f.rows.push(vec![
        "per hash-table bucket (both tables)".into(),
        "8".into(),
        "8".into(),
    ]);
    f.rows.push(vec![
        "WSS = 4 predicted from WSS = 2 and 8 (linearity)".into(),
        String::new(),
        format!("{mid:.0} (measured {:.0})", held[1].1),
    ]);
    out.tables.push(f);
    let off = |k: usize| (held[k].1 / held[k].2 - 1.0) * 100.0;
    let _ = write!(
        out.description,
        "\n\nWhy our bytes depart from Eq. 1 at WSS = 2 and 8. Eq. 1 describes the paper's \
         \"current unoptimized implementation\" (§4.6): 13 B per cached page (vc_page), 36 B per \
         sector entry (vc_entry), 8 B per bucket. Our structure has the same three terms, linear \
         in P, P·WSS and HTB (the last table: WSS = 4 predicted from the other two within a few \
         bytes), with other sizes, measured from the allocated slabs: {per_entry:.0} B per sector \
         entry (a 24 B record holding the page number, the content's index, its list links and a \
         residency stamp, plus a 4 B chain link; every link a 4-byte slot index, no digest) and \
         {per_page:.0} B per content (a 20 B record with the 16 B MD5, kept once per content \
         rather than per sector, a 4 B chain link, a 16 B replacement-list node and the page \
         slot). The paper does not give its records' layouts; 36 B fits a sector entry that \
         holds the digest itself. So our bytes are higher than Eq. 1 when few sectors share a \
         content ({:+.1} % at WSS = 2), about equal near the paper's example ({:+.1} % at \
         WSS = 4) and lower when many do ({:+.1} % at WSS = 8). The ±10 % checks at WSS = 2 \
         and 8 compare two layouts, not a simulated quantity with the paper's; their misses are \
         this difference, and we keep the more compact entry rather than copy the paper's.",
        off(0),
        off(1),
        off(2)
    );
    out.csv = csv;
    Ok(out)
}
