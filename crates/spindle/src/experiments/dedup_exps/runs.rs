//! Stacks on the WD5000AAKB: DEDUP-F8–F11, T3.

use super::{
    cache_layer, drr_layer, extra, new_output, preloaded_cache_layer, quartiles_ms, read_times,
    run_stack, spec, spec_at, stack_toml,
};
use crate::dedup::gen::FiuWorkload;
use crate::experiments::Check;
use crate::report::{ExperimentOutput, Table};
use std::fmt::Write as _;

/// Requests a generated week holds in DEDUP-F8 (full run; quick: a sixth). F8 counts
/// cache hits, which grow with the scale (the cache scales with the workload) while the
/// hit rate does not: a larger week makes the counts more than noise.
pub const F8_WEEK_REQUESTS: f64 = 600_000.0;

/// Fewest week-2 sector hits for which F8 states a content/sector ratio: with fewer,
/// the counting error alone (1/√n: 20 % at 25) exceeds the differences the paper
/// reports, so the ratio is undefined.
const F8_MIN_HITS: u64 = 25;

/// DEDUP-F8: per-day read hits in week 2, content vs sector ARC caches of 4 MB and
/// 200 MB (scaled).
pub fn dedup_f8(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let week = if quick {
        F8_WEEK_REQUESTS / 6.0
    } else {
        F8_WEEK_REQUESTS
    };
    let mut out = new_output(
        "DEDUP-F8",
        "Per-day read cache hits in week 2, content vs sector addressing, ARC, stand-in traces",
        &format!(
            "Two generated weeks through a content-cache layer (ARC; content- or sector-addressed) \
             over a WD5000AAKB; week 1 warms the cache, the mean hits per day of week 2 are \
             counted. Cache sizes are the paper's 1,000 and 50,000 pages times the workload's \
             scale. Hits grow with the scale while the hit rate does not, so this experiment runs \
             a larger stand-in than the others: a week of about {week:.0} requests (the scales \
             are in the table). A content/sector ratio is stated only when week 2 has at least \
             {F8_MIN_HITS} sector hits: below that the counting error alone (1/√n, 20 % at \
             {F8_MIN_HITS}) is larger than the differences the paper reports, and the ratio is \
             shown as undefined (a miss)."
        ),
        quick,
        seed,
    );
    let mut t = Table::new(&[
        "workload",
        "scale",
        "cache pages",
        "week-2 reads",
        "sector hits/day",
        "content hits/day",
        "content/sector",
    ]);
    let mut csv = String::from(
        "workload,scale,paper_pages,cache_pages,week2_reads,sector_per_day,content_per_day\n",
    );
    let mut gains = Vec::new();
    let mut undefined = Vec::new();
    let mut web200 = [0u64; 2];
    for w in FiuWorkload::ALL {
        let s = spec_at(w, week, 14, seed);
        let from = (7.0 * 86_400e9 / s.accel) as u64;
        let mut per = Vec::new();
        for paper_pages in [1000u64, 50_000] {
            let pages = (paper_pages as f64 * s.scale).round() as u64;
            let mut hits = [0u64; 2];
            let mut reads = 0;
            for (k, a) in ["sector", "content"].iter().enumerate() {
                let (r, _) = read_times(&stack_toml(&cache_layer(pages, "arc", a)), &s, from)?;
                hits[k] = r.hits;
                reads = r.reads;
            }
            let ratio = if hits[0] >= F8_MIN_HITS {
                hits[1] as f64 / hits[0] as f64
            } else {
                f64::NAN
            };
            let day = |h: u64| h as f64 / 7.0;
            t.rows.push(vec![
                w.name().into(),
                format!("{:.5}", s.scale),
                pages.max(1).to_string(),
                reads.to_string(),
                format!("{:.1}", day(hits[0])),
                format!("{:.1}", day(hits[1])),
                if ratio.is_nan() {
                    format!(
                        "undefined ({} sector hit{})",
                        hits[0],
                        if hits[0] == 1 { "" } else { "s" }
                    )
                } else {
                    format!("{ratio:.2}")
                },
            ]);
            let _ = writeln!(
                csv,
                "{},{:.6},{paper_pages},{},{reads},{:.2},{:.2}",
                w.name(),
                s.scale,
                pages.max(1),
                day(hits[0]),
                day(hits[1])
            );
            per.push((hits, ratio));
        }
        let (hits200, ratio200) = per[1];
        if w == FiuWorkload::WebVm {
            web200 = hits200;
        }
        if ratio200.is_nan() {
            undefined.push(format!(
                "{} ({} sector hit{} in week 2)",
                w.name(),
                hits200[0],
                if hits200[0] == 1 { "" } else { "s" }
            ));
        }
        match w {
            FiuWorkload::WebVm => out.checks.push(Check::at_least(
                "DEDUP-F8",
                "web-vm content/sector hits at 200 MB (stated ≈10×)",
                4.0,
                ratio200,
            )),
            FiuWorkload::Homes => out.checks.push(Check::absolute(
                "DEDUP-F8",
                "homes content/sector hits at 200 MB",
                4.0,
                ratio200,
                1.0,
            )),
            FiuWorkload::Mail => out.checks.push(Check::absolute(
                "DEDUP-F8",
                "mail content/sector hits at 200 MB",
                1.10,
                ratio200,
                0.05,
            )),
        }
        // Relative gain of content hits from 4 MB to 200 MB.
        gains.push((w, per[1].0[1] as f64 / (per[0].0[1] as f64).max(1e-9)));
    }
    // How the web-vm ratio at 200 MB moves with the stand-in's scale (context).
    let mut sweep = Table::new(&[
        "web-vm week, requests",
        "scale",
        "cache pages",
        "week-2 sector hits",
        "week-2 content hits",
        "content/sector",
    ]);
    for div in [20.0, 4.0, 1.0] {
        let s = spec_at(FiuWorkload::WebVm, week / div, 14, seed);
        let pages = (50_000.0 * s.scale).round() as u64;
        let hits = if div == 1.0 {
            // The main run above.
            web200
        } else {
            let from = (7.0 * 86_400e9 / s.accel) as u64;
            let mut h = [0u64; 2];
            for (k, a) in ["sector", "content"].iter().enumerate() {
                h[k] = read_times(&stack_toml(&cache_layer(pages, "arc", a)), &s, from)?
                    .0
                    .hits;
            }
            h
        };
        sweep.rows.push(vec![
            format!("{:.0}", week / div),
            format!("{:.5}", s.scale),
            pages.max(1).to_string(),
            hits[0].to_string(),
            hits[1].to_string(),
            if hits[0] > 0 {
                format!("{:.2}", hits[1] as f64 / hits[0] as f64)
            } else {
                "undefined".into()
            },
        ]);
    }
    let mail = gains
        .iter()
        .find(|g| g.0 == FiuWorkload::Mail)
        .map(|g| g.1)
        .unwrap_or(f64::NAN);
    out.checks.push(Check::holds(
        "DEDUP-F8",
        "the 4 MB → 200 MB gain is smallest for mail",
        gains.iter().all(|g| g.0 == FiuWorkload::Mail || g.1 > mail),
    ));
    out.description.push_str(
        "\n\nWhere this differs from the paper (content/sector ≈10× web-vm, 4× homes, +10 % \
         mail; the larger cache helping all but mail). The ratio depends on how soon a sector \
         is read again compared with how soon its content is read again at another sector. \
         The traces were taken below each machine's page cache, which absorbs quick re-reads \
         of a sector but not reads of the same content at other sectors; the published \
         characteristics give the volumes (Table 1: each sector read is read about 2.7 times a \
         week) but not this timing. The generator reads each 3-day read set in shuffled \
         rounds, so a sector and a duplicate of its content come back at the same pace, every \
         few days, far beyond what a 200 MB cache scaled to the stand-in holds, and writes \
         (three to eight times the reads, Table 1) fill the write-through cache in between. \
         So both caches hit a small share of the reads (the table's week-2 reads against its \
         hits per day), and the content cache's extra hits come only from the duplicates \
         inside a read set (Table 1's unique sectors over unique content read).",
    );
    if !undefined.is_empty() {
        let _ = write!(
            out.description,
            " Undefined at 200 MB: {}. mail's and homes' scales are smallest (their writes, \
             482 and 149 GB a week, dominate the request count), so their scaled 200 MB caches \
             hold tens to a few hundred pages and see only a handful of hits; a scale at which \
             they would see enough hits takes about 100 times this run's requests, beyond the \
             time this report allows.",
            undefined.join(", ")
        );
    }
    let _ = write!(
        out.description,
        " The 4 MB → 200 MB gain check rests on the same handful of hits for mail and homes. \
         The last table repeats web-vm's 200 MB runs on stand-ins 20 and 4 times smaller: the \
         ratio is {} from the smallest to this run's scale, so on the stand-in it is not a \
         fixed property of the published characteristics (the generator scales page counts \
         but not the file system, its copy-count cap or its ring of recently written \
         contents), and a pass or miss of the web-vm check at one scale says little about the \
         real trace.",
        sweep
            .rows
            .iter()
            .map(|r| r[5].clone())
            .collect::<Vec<_>>()
            .join(", ")
    );
    out.tables.push(t);
    out.tables.push(sweep);
    out.csv = csv;
    Ok(out)
}

/// DEDUP-F9: ARC vs LRU content caches, web-vm, one day.
pub fn dedup_f9(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let mut out = new_output(
        "DEDUP-F9",
        "ARC vs LRU content-addressed caches (web-vm, one day), stand-in trace",
        "One generated web-vm day through a content-addressed cache layer over a WD5000AAKB, ARC \
         and LRU, at cache sizes from 500 to 64,000 pages (times the scale); read page hits, and \
         read plus write page hits.",
        quick,
        seed,
    );
    let s = spec(FiuWorkload::WebVm, quick, 1, seed);
    let sizes = [500u64, 2000, 8000, 32_000, 64_000];
    let mut t = Table::new(&[
        "cache pages",
        "ARC read",
        "LRU read",
        "ARC read+write",
        "LRU read+write",
    ]);
    let mut csv = String::from("paper_pages,pages,arc_read,lru_read,arc_rw,lru_rw\n");
    let (mut ok_r, mut ok_w) = (true, true);
    let mut gaps = Vec::new();
    for &size in &sizes {
        let pages = (size as f64 * s.scale).round().max(1.0) as u64;
        let mut v = [0f64; 4];
        for (k, pol) in ["arc", "lru"].iter().enumerate() {
            let nodes = run_stack(
                &stack_toml(&cache_layer(pages, pol, "content")),
                &s,
                &mut |_| {},
            )?;
            let r = extra(&nodes, "content-cache", "read page hits (sector)")
                + extra(&nodes, "content-cache", "read page hits (content)");
            let wr = extra(&nodes, "content-cache", "write page hits (sector)")
                + extra(&nodes, "content-cache", "write page hits (content)");
            v[k] = r;
            v[2 + k] = r + wr;
        }
        ok_r &= v[0] >= v[1] * 0.99;
        ok_w &= v[2] >= v[3] * 0.99;
        gaps.push(v[2] - v[3]);
        t.rows.push(vec![
            pages.to_string(),
            format!("{}", v[0]),
            format!("{}", v[1]),
            format!("{}", v[2]),
            format!("{}", v[3]),
        ]);
        let _ = writeln!(csv, "{size},{pages},{},{},{},{}", v[0], v[1], v[2], v[3]);
    }
    let any_read_hit = t.rows.iter().any(|r| r[1] != "0" || r[2] != "0");
    out.checks.push(
        Check::holds("DEDUP-F9", "ARC ≥ LRU (reads) at every size, ±1 %", ok_r).consistency_if(
            !any_read_hit,
            "no read hit at any size in the generated day (each sector is re-read about every \
             two days), so the comparison is vacuous",
        ),
    );
    out.checks.push(Check::holds(
        "DEDUP-F9",
        "ARC ≥ LRU (reads+writes) at every size, ±1 %",
        ok_w,
    ));
    let imax = gaps
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|x| x.0)
        .unwrap_or(0);
    out.checks.push(Check::holds(
        "DEDUP-F9",
        "largest read+write gap at a non-maximal size",
        imax + 1 < sizes.len() && gaps[imax] > 0.0,
    ));
    if imax + 1 == sizes.len() {
        // The gap relative to LRU's hits, for the note.
        let rel: Vec<f64> = t
            .rows
            .iter()
            .map(|r| {
                let (a, l) = (
                    r[3].parse::<f64>().unwrap_or(f64::NAN),
                    r[4].parse::<f64>().unwrap_or(f64::NAN),
                );
                (a / l - 1.0) * 100.0
            })
            .collect();
        let (kmax, _) = rel
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .unwrap_or((0, &f64::NAN));
        let _ = write!(
            out.description,
            "\n\nWhere this differs from the paper (ARC's advantage for writes largest at small \
             to moderate sizes). The check takes the gap in hits, ARC − LRU ({} from the \
             smallest cache to the largest), which grows with the cache as both policies' hits \
             do. Relative to LRU's hits the gap is {} %, largest at {} pages. The paper's \
             Figure 9 gives no numbers and its text does not say which gap it means; we keep \
             the check on hits, as first written.",
            gaps.iter()
                .map(|g| format!("{g:.0}"))
                .collect::<Vec<_>>()
                .join(", "),
            rel.iter()
                .map(|g| format!("{g:.1}"))
                .collect::<Vec<_>>()
                .join(", "),
            t.rows[kmax][0]
        );
    }
    out.tables.push(t);
    out.csv = csv;
    Ok(out)
}

/// One week per workload: vanilla, DRR, DRR + selective duplication (medians, ms) and
/// quartiles.
struct ReplicaRuns {
    w: FiuWorkload,
    vanilla: (f64, f64, f64),
    drr: (f64, f64, f64),
    sd: (f64, f64, f64),
    redirected: f64,
    dup_pages: f64,
    /// Mean seek and rotation per disk read, ms: vanilla and DRR.
    van_seek_rot: (f64, f64),
    drr_seek_rot: (f64, f64),
}

fn replica_runs(quick: bool, seed: u64, with_sd: bool) -> Result<Vec<ReplicaRuns>, String> {
    let mut v = Vec::new();
    for w in FiuWorkload::ALL {
        let s = spec(w, quick, 7, seed);
        let (mut van, _) = read_times(&stack_toml(""), &s, 0)?;
        let (mut drr, nodes) = read_times(&stack_toml(&drr_layer(&s, false)?), &s, 0)?;
        let redirected = extra(&nodes, "drr", "redirected");
        let (sd, dup_pages) = if with_sd {
            let (mut r, nodes) = read_times(&stack_toml(&drr_layer(&s, true)?), &s, 0)?;
            (
                quartiles_ms(&mut r.times),
                extra(&nodes, "drr", "duplication write pages"),
            )
        } else {
            ((f64::NAN, f64::NAN, f64::NAN), f64::NAN)
        };
        let (van_seek_rot, drr_seek_rot) = (van.seek_rot_ms(), drr.seek_rot_ms());
        v.push(ReplicaRuns {
            w,
            van_seek_rot,
            drr_seek_rot,
            vanilla: quartiles_ms(&mut van.times),
            drr: quartiles_ms(&mut drr.times),
            sd,
            redirected,
            dup_pages,
        });
    }
    Ok(v)
}

fn cut(a: f64, b: f64) -> f64 {
    (1.0 - b / a) * 100.0
}

/// DEDUP-F10: dynamic replica retrieval alone.
pub fn dedup_f10(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let mut out = new_output(
        "DEDUP-F10",
        "Dynamic replica retrieval: per-request disk read time, vanilla vs DRR, stand-in traces",
        "One generated week per workload on a WD5000AAKB behind a LOOK elevator (one request at \
         the drive), with no layer (vanilla) and with a drr layer above the elevator whose \
         duplicate map is pre-loaded from the generated disk image; content cache and selective \
         duplication off. Per-request disk time = the drive's service time of each read.",
        quick,
        seed,
    );
    let runs = replica_runs(quick, seed, false)?;
    let mut t = Table::new(&[
        "workload",
        "vanilla q1/median/q3 ms",
        "DRR q1/median/q3 ms",
        "median cut %",
        "redirected",
    ]);
    let mut csv = String::from("workload,vanilla_median_ms,drr_median_ms,cut_pct\n");
    let mut cuts = Vec::new();
    for r in &runs {
        let c = cut(r.vanilla.1, r.drr.1);
        cuts.push((r.w, c));
        t.rows.push(vec![
            r.w.name().into(),
            format!("{:.2}/{:.2}/{:.2}", r.vanilla.0, r.vanilla.1, r.vanilla.2),
            format!("{:.2}/{:.2}/{:.2}", r.drr.0, r.drr.1, r.drr.2),
            format!("{c:.1}"),
            format!("{}", r.redirected),
        ]);
        let _ = writeln!(
            csv,
            "{},{:.3},{:.3},{c:.2}",
            r.w.name(),
            r.vanilla.1,
            r.drr.1
        );
        out.checks.push(Check::range(
            "DEDUP-F10",
            &format!("{} median read time cut (%)", r.w.name()),
            8.0,
            22.0,
            c,
        ));
    }
    let homes = cuts
        .iter()
        .find(|c| c.0 == FiuWorkload::Homes)
        .map(|c| c.1)
        .unwrap_or(f64::NAN);
    out.checks.push(Check::holds(
        "DEDUP-F10",
        "homes has the largest cut",
        cuts.iter().all(|c| c.1 <= homes),
    ));
    let mut parts = Vec::new();
    for r in &runs {
        parts.push(format!(
            "{} {:.2} → {:.2} ms seek, {:.2} → {:.2} ms rotation",
            r.w.name(),
            r.van_seek_rot.0,
            r.drr_seek_rot.0,
            r.van_seek_rot.1,
            r.drr_seek_rot.1
        ));
    }
    let _ = write!(
        out.description,
        "\n\nWhere this differs from the paper (at least 10 % for every workload, up to 20 % for \
         homes). DRR can shorten only a read's seek: the rotational wait (4.17 ms on average at \
         7,200 rpm) is the same at every copy. Mean per disk read, vanilla → DRR: {}. web-vm's \
         70 GB file system covers the outer 14 % of the 500 GB drive, so its seeks are short to \
         begin with and the nearest copy saves little of a read dominated by rotation; mail and \
         homes span the whole drive. The generator gives all three workloads the one workload \
         static similarity the paper publishes (2.5 copies per block read, Figure 3), so it \
         cannot make homes gain more than mail: which of the two gains more is the luck of the \
         drawn copies. Whatever made the real web-vm and homes reads gain more (more copies of \
         the blocks read, or copies nearer each other, than a uniform scatter) is not in the \
         published characteristics. The replay runs at the traced request rate (the scaled \
         stand-in at 1/scale); the paper replayed at up to 100× without giving each workload's \
         factor. Replaying the stand-in 10× faster lowers the cuts slightly (the elevator's \
         queue already shortens vanilla's seeks), so acceleration does not explain the gap.",
        parts.join("; ")
    );
    out.tables.push(t);
    out.csv = csv;
    Ok(out)
}

/// DEDUP-F11: selective duplication + DRR.
pub fn dedup_f11(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let mut out = new_output(
        "DEDUP-F11",
        "Selective duplication + DRR: per-request disk read time, stand-in traces",
        "As DEDUP-F10, plus selective duplication in the drr layer: 10 copies of the content an \
         ARC directory kept across days counts as frequent (its T2: read at least twice within \
         its history, the paper's extension of ARC) in 5 scratch volumes interleaved with the file \
         system's space, each holding two copies of a week's unique read content (assumed: the \
         paper gives no size); rounds at each (accelerated) day's end, their reads and writes real \
         I/O on the drive.",
        quick,
        seed,
    );
    let runs = replica_runs(quick, seed, true)?;
    let mut t = Table::new(&[
        "workload",
        "vanilla median ms",
        "DRR median ms",
        "DRR+SD q1/median/q3 ms",
        "DRR cut %",
        "DRR+SD cut %",
        "copy pages written",
    ]);
    let mut csv = String::from(
        "workload,vanilla_median_ms,drr_median_ms,sd_median_ms,drr_cut,sd_cut,copy_pages\n",
    );
    for r in &runs {
        let (c10, c11) = (cut(r.vanilla.1, r.drr.1), cut(r.vanilla.1, r.sd.1));
        t.rows.push(vec![
            r.w.name().into(),
            format!("{:.2}", r.vanilla.1),
            format!("{:.2}", r.drr.1),
            format!("{:.2}/{:.2}/{:.2}", r.sd.0, r.sd.1, r.sd.2),
            format!("{c10:.1}"),
            format!("{c11:.1}"),
            format!("{}", r.dup_pages),
        ]);
        let _ = writeln!(
            csv,
            "{},{:.3},{:.3},{:.3},{c10:.2},{c11:.2},{}",
            r.w.name(),
            r.vanilla.1,
            r.drr.1,
            r.sd.1,
            r.dup_pages
        );
        let paper = match r.w {
            FiuWorkload::WebVm => 33.0,
            FiuWorkload::Homes => 35.0,
            FiuWorkload::Mail => 23.0,
        };
        out.checks.push(Check::absolute(
            "DEDUP-F11",
            &format!("{} median read time cut with SD (%)", r.w.name()),
            paper,
            c11,
            5.0,
        ));
        out.checks.push(Check::holds(
            "DEDUP-F11",
            &format!("{} SD+DRR cut ≥ DRR cut", r.w.name()),
            c11 >= c10,
        ));
    }
    let _ = write!(
        out.description,
        "\n\nWhere this differs from the paper (33 % web-vm, 35 % homes, 23 % mail). A copy \
         helps a read only if its content was read at least twice within the directory's \
         history before the day's round. The generator carries Figure 4's content overlap from \
         one 3-day interval to the next, but within an interval it reads every sector of the \
         read set in shuffled rounds, each about every {} days (seven days times Table 1's \
         unique sectors read over pages read): a content is read twice only after days, and \
         the first day has no copies at all. The real traces were likely more skewed (some \
         content read many times a day), which would put more reads on copied content; no \
         published characteristic gives that skew, so the generator does not invent it. \
         web-vm gains least for the reason given under DEDUP-F10 (short seeks inside its \
         70 GB). The scratch size is assumed (the paper gives none).",
        FiuWorkload::ALL
            .iter()
            .map(|w| {
                let p = w.published();
                format!(
                    "{:.1} ({})",
                    7.0 * p.reads_sectors_gb / p.reads_total_gb,
                    w.name()
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    out.tables.push(t);
    out.csv = csv;
    Ok(out)
}

/// DEDUP-T3: total disk read time, all three mechanisms against a sector cache.
pub fn dedup_t3(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let mut out = new_output(
        "DEDUP-T3",
        "Table 3: total disk read time, vanilla (sector cache) vs I/O Deduplication, stand-in traces",
        "One generated week per workload on a WD5000AAKB. Vanilla: a sector-addressed ARC cache of \
         50,000 pages (200 MB) times the scale. I/O Deduplication: a content-addressed ARC cache of \
         the same size over drr with selective duplication (as DEDUP-F11). The paper loads the \
         duplicate information of the disk into its module's data structures before these runs \
         (§4.2–4.3; the content cache's sector lists are the structure DRR looks replicas up in, \
         §3.3), so both the content cache's sector lists and DRR's map are preloaded from the \
         generated disk image: a read of a sector never read before hits when another copy of \
         its content is cached. Total disk read time = the sum of the drive's service times of \
         the reads that reached it. The last columns repeat the I/O Deduplication run with the \
         content cache not preloaded (learning contents only as reads and writes pass, as in \
         DEDUP-F8), for comparison; the checks use the preloaded run.",
        quick,
        seed,
    );
    let mut t = Table::new(&[
        "workload",
        "vanilla s",
        "I/O dedup s",
        "improvement %",
        "paper %",
        "reads",
        "vanilla cache hits",
        "I/O dedup cache hits",
        "not preloaded: I/O dedup s",
        "not preloaded: improvement %",
        "not preloaded: cache hits",
    ]);
    let mut csv = String::from(
        "workload,vanilla_s,dedup_s,improvement_pct,vanilla_hits,dedup_hits,cold_dedup_s,cold_improvement_pct,cold_hits\n",
    );
    let mut imp = Vec::new();
    for w in FiuWorkload::ALL {
        let s = spec(w, quick, 7, seed);
        let pages = (50_000.0 * s.scale).round() as u64;
        let (van, _) = read_times(&stack_toml(&cache_layer(pages, "arc", "sector")), &s, 0)?;
        let drr = drr_layer(&s, true)?;
        let warm = format!("{}{drr}", preloaded_cache_layer(pages, &s));
        let (dd, _) = read_times(&stack_toml(&warm), &s, 0)?;
        let cold = format!("{}{drr}", cache_layer(pages, "arc", "content"));
        let (dc, _) = read_times(&stack_toml(&cold), &s, 0)?;
        let a = van.total_ns as f64 / 1e9;
        let (b, bc) = (dd.total_ns as f64 / 1e9, dc.total_ns as f64 / 1e9);
        let (i, ic) = (cut(a, b), cut(a, bc));
        let paper = match w {
            FiuWorkload::WebVm => 47.0,
            FiuWorkload::Mail => 28.0,
            FiuWorkload::Homes => 39.0,
        };
        imp.push(i);
        t.rows.push(vec![
            w.name().into(),
            format!("{a:.2}"),
            format!("{b:.2}"),
            format!("{i:.1}"),
            format!("{paper}"),
            van.reads.to_string(),
            van.hits.to_string(),
            dd.hits.to_string(),
            format!("{bc:.2}"),
            format!("{ic:.1}"),
            dc.hits.to_string(),
        ]);
        let _ = writeln!(
            csv,
            "{},{a:.3},{b:.3},{i:.2},{},{},{bc:.3},{ic:.2},{}",
            w.name(),
            van.hits,
            dd.hits,
            dc.hits
        );
        out.checks.push(Check::absolute(
            "DEDUP-T3",
            &format!("{} total read time improvement (%)", w.name()),
            paper,
            i,
            5.0,
        ));
    }
    out.checks.push(Check::holds(
        "DEDUP-T3",
        "ordering web-vm > homes > mail",
        imp[0] > imp[2] && imp[2] > imp[1],
    ));
    out.description.push_str(
        "\n\nWhere this differs from the paper (47 %, 28 %, 39 %). The improvement here is \
         almost all DRR's and selective duplication's (see DEDUP-F10 and F11, and their notes): \
         the content cache removes few reads (the table's hit columns against its reads), for \
         the reason given under DEDUP-F8: the stand-in re-reads a sector and a duplicate of its \
         content at the same slow pace, so a scaled 200 MB cache holds little that is read \
         again. Preloading the sector lists lets the first read of a duplicate hit when another \
         copy of its content is cached; on the stand-in that adds few hits (the last columns), \
         because a duplicate inside a read set is read, like any sector, days after its twin. \
         The paper's web-vm figure rests on a content cache with about 10× the sector cache's \
         hits (Figure 8), which the stand-in does not show",
    );
    if imp[0] < imp[1] && imp[0] < imp[2] {
        out.description
            .push_str(", so web-vm, not mail, has the smallest improvement here.");
    } else {
        out.description.push('.');
    }
    out.tables.push(t);
    out.csv = csv;
    Ok(out)
}

#[cfg(test)]
mod diagnose {
    use super::super::served_by_layer;
    use super::*;
    use crate::config::RunConfig;
    use crate::dedup::ContentFeed;
    use crate::engine::{self, RunOptions, Source};

    /// Not a check: prints week-2 read hits of web-vm with and without its writes
    /// (`cargo test --release -p spindle --lib diagnose -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn f8_hits_with_and_without_writes() {
        let s = spec(FiuWorkload::WebVm, false, 14, 1);
        let from = (7.0 * 86_400e9 / s.accel) as u64;
        let pages = (50_000.0 * s.scale).round() as u64;
        for keep_writes in [true, false] {
            for a in ["sector", "content"] {
                let c = RunConfig::from_toml(&stack_toml(&cache_layer(pages, "arc", a)), "d.toml")
                    .unwrap();
                let feed = ContentFeed::new();
                let mut b = c.build_fed(Some(&feed)).unwrap();
                let recs = s.trace().unwrap().filter(move |r| keep_writes || !r.write);
                let mut hits = 0u64;
                engine::run(
                    b.root.as_mut(),
                    &b.units,
                    Source::Open {
                        requests: Box::new(feed.tap(recs)),
                        stride: 0,
                    },
                    RunOptions::default(),
                    &mut |l| {
                        if !l.write && served_by_layer(l) && l.arrival.0 >= from {
                            hits += 1;
                        }
                    },
                )
                .unwrap();
                println!("writes {keep_writes} {a}: {hits} week-2 read hits");
            }
        }
    }
}

#[cfg(test)]
mod instrument {
    use super::super::served_by_layer;
    use super::*;
    use crate::config::RunConfig;
    use crate::dedup::gen::ContentTraceSpec;
    use crate::dedup::ContentFeed;
    use crate::engine::{self, RunOptions, Source};
    use crate::node::NodeReport;

    struct Stat {
        n: u64,
        med: f64,
        svc: f64,
        seek: f64,
        rot: f64,
        queue: f64,
        queued: f64,
        busy: f64,
    }

    /// One run of `s` with `sched` (a `[scheduler]` body) over `layers`; writes kept or
    /// dropped; arrivals compressed by `k` beyond the spec's acceleration.
    fn variant(
        s: &ContentTraceSpec,
        sched: &str,
        layers: &str,
        keep_writes: bool,
        k: f64,
    ) -> (Stat, Vec<NodeReport>) {
        let toml = stack_toml(layers).replace(
            "[scheduler]\nkind = \"look\"\nqueue-depth = 1\n",
            &format!("[scheduler]\n{sched}\n"),
        );
        let c = RunConfig::from_toml(&toml, "d.toml").unwrap();
        let feed = ContentFeed::new();
        let mut b = c.build_fed(Some(&feed)).unwrap();
        let recs = s
            .trace()
            .unwrap()
            .filter(move |r| keep_writes || !r.write)
            .map(move |mut r| {
                r.arrival = crate::time::SimTime((r.arrival.0 as f64 / k) as u64);
                r
            });
        let (mut n, mut seek, mut rot, mut q, mut svc, mut queued, mut busy, mut last) =
            (0u64, 0u64, 0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
        let mut times = Vec::new();
        engine::run(
            b.root.as_mut(),
            &b.units,
            Source::Open {
                requests: Box::new(feed.tap(recs)),
                stride: 0,
            },
            RunOptions::default(),
            &mut |l| {
                last = last.max(l.done.0);
                busy += l.service_ns();
                if l.background || l.write || served_by_layer(l) {
                    return;
                }
                n += 1;
                seek += l.breakdown.seek_ns;
                rot += l.breakdown.rotation_ns;
                q += l.start.0 - l.arrival.0;
                if l.start.0 > l.arrival.0 + 1000 {
                    queued += 1;
                }
                svc += l.service_ns();
                times.push(l.service_ns());
            },
        )
        .unwrap();
        let mut nodes = Vec::new();
        b.root.report("stack", &mut nodes);
        let m = |x: u64| x as f64 / n.max(1) as f64 / 1e6;
        let (_, med, _) = quartiles_ms(&mut times);
        (
            Stat {
                n,
                med,
                svc: m(svc),
                seek: m(seek),
                rot: m(rot),
                queue: m(q),
                queued: queued as f64 / n.max(1) as f64 * 100.0,
                busy: busy as f64 / last.max(1) as f64 * 100.0,
            },
            nodes,
        )
    }

    /// Not a check: where DRR's time goes (`cargo test --release -p spindle --lib
    /// instrument -- --ignored --nocapture`; env SCHED, WRITES=0, K, FULL).
    #[test]
    #[ignore]
    fn drr_gain_breakdown() {
        let quick = std::env::var("FULL").is_err();
        let sched = std::env::var("SCHED").unwrap_or("kind = \"look\"\nqueue-depth = 1".into());
        let keep = std::env::var("WRITES").map(|v| v != "0").unwrap_or(true);
        let k: f64 = std::env::var("K")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1.0);
        println!("sched {sched}; writes {keep}; extra compression {k}");
        for w in FiuWorkload::ALL {
            let s = spec(w, quick, 7, 1);
            let mut base = f64::NAN;
            for (name, layers) in [
                ("vanilla", String::new()),
                ("drr", drr_layer(&s, false).unwrap()),
                ("drr+sd", drr_layer(&s, true).unwrap()),
            ] {
                let (st, nodes) = variant(&s, &sched, &layers, keep, k);
                if name == "vanilla" {
                    base = st.med;
                }
                println!(
                    "{:7} {name:8} reads {:6} median {:6.3} ms (cut {:5.1}%) mean {:6.3} seek {:6.3} \
                     rot {:6.3} queue {:8.3} ms queued {:5.1}% busy {:5.1}%",
                    w.name(),
                    st.n,
                    st.med,
                    cut(base, st.med),
                    st.svc,
                    st.seek,
                    st.rot,
                    st.queue,
                    st.queued,
                    st.busy
                );
                for nd in nodes.iter().filter(|nd| nd.kind == "drr") {
                    let g = |key: &str| {
                        nd.extra
                            .iter()
                            .find(|(a, _)| a == key)
                            .map(|(_, v)| v.clone())
                            .unwrap_or_default()
                    };
                    println!(
                        "        redirected {} of {} with copies; kept {}; est. sectors saved/redirect {:.0}",
                        g("redirected"),
                        g("reads with copies"),
                        g("kept for merging"),
                        g("sectors saved").parse::<f64>().unwrap_or(0.0)
                            / g("redirected").parse::<f64>().unwrap_or(1.0).max(1.0)
                    );
                }
            }
        }
    }
}
