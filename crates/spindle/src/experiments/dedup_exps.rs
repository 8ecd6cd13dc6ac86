//! I/O Deduplication (Koller and Rangaswami, FAST '10) on the **synthetic stand-in for
//! the FIU traces** ([`crate::dedup::gen`]): the generator's inputs measured back
//! (DEDUP-T1, T2, F3, F4: consistency checks), trace analyses (F1, F2), and runs of
//! stacks built from run TOML on the WD5000AAKB preset (F8–F11, T3), plus Eq. 1
//! (DEDUP-MEM). Every run's stack is a `RunConfig` TOML run by `engine::run`, the
//! generated records tapped by a `ContentFeed` as `spindle run` does for FIU traces.
//!
//! Scale: every page count of a workload is multiplied by `scale`, chosen so that a
//! week is about [`WEEK_REQUESTS`] requests (quick: a fifth), and cache sizes with it;
//! the replay runs at the traced request rate (acceleration 1/scale), at most 100× as in
//! the paper.

use super::Check;
use crate::config::RunConfig;
use crate::dedup::gen::{ContentTraceSpec, FiuWorkload, Layout, INTERVAL_DAYS};
use crate::dedup::{ContentFeed, Digest, PAGE_SECTORS};
use crate::engine::{self, RequestLog, RunOptions, Source};
use crate::node::NodeReport;
use crate::report::{ExperimentOutput, Plot, PlotKind, Series, Table};
use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt::Write as _;

/// Requests a generated week holds (full run).
pub const WEEK_REQUESTS: f64 = 150_000.0;
const DISK: &str = "wd5000aakb";
const STAND_IN: &str = "Synthetic stand-in for the FIU traces: the traces (with per-page content \
    hashes) cannot be shipped, so every run here uses the content-trace generator, whose only \
    inputs are the workloads' published characteristics (Table 1, Table 2, Figure 3's 2.5, \
    Figure 4's overlaps; listed below with their sources). Nothing is tuned to an outcome figure. \
    The same experiments take the real traces when a user has them.";

/// The scale giving `week` requests per week.
fn scale_for(w: FiuWorkload, week: f64) -> f64 {
    let p = w.published();
    let pages = (p.reads_total_gb + p.writes_total_gb) * 1e9 / 4096.0;
    (week / pages).min(1.0)
}

fn spec(w: FiuWorkload, quick: bool, days: u32, seed: u64) -> ContentTraceSpec {
    let week = if quick {
        WEEK_REQUESTS / 5.0
    } else {
        WEEK_REQUESTS
    };
    spec_at(w, week, days, seed)
}

/// Requests a generated week holds in DEDUP-F8 (full run; quick: a sixth). F8 counts
/// cache hits, which grow with the scale (the cache scales with the workload) while the
/// hit rate does not: a larger week makes the counts more than noise.
pub const F8_WEEK_REQUESTS: f64 = 600_000.0;

/// Fewest week-2 sector hits for which F8 states a content/sector ratio: with fewer,
/// the counting error alone (1/√n: 20 % at 25) exceeds the differences the paper
/// reports, so the ratio is undefined.
const F8_MIN_HITS: u64 = 25;

fn spec_at(w: FiuWorkload, week: f64, days: u32, seed: u64) -> ContentTraceSpec {
    let scale = scale_for(w, week);
    let mut s = ContentTraceSpec::new(w, scale, days, seed);
    s.accel = (1.0 / scale).clamp(1.0, 100.0);
    s
}

fn params_table(quick: bool, seed: u64) -> Table {
    let mut t = Table::new(&["parameter", "web-vm", "mail", "homes", "source"]);
    let pubs: Vec<_> = FiuWorkload::ALL.iter().map(|w| w.published()).collect();
    for (i, (name, _, src)) in pubs[0].rows().into_iter().enumerate() {
        let mut row = vec![name.to_string()];
        for p in &pubs {
            row.push(format!("{}", p.rows()[i].1));
        }
        row.push(src.to_string());
        t.rows.push(row);
    }
    let mut row = vec!["scale (page counts ×)".to_string()];
    for w in FiuWorkload::ALL {
        row.push(format!("{:.5}", spec(w, quick, 7, seed).scale));
    }
    row.push("chosen: a week ≈ 150,000 requests (quick 30,000)".into());
    t.rows.push(row);
    let mut row = vec!["write-back flush interval, s".to_string()];
    for _ in FiuWorkload::ALL {
        row.push(format!("{}", crate::dedup::gen::FLUSH_S));
    }
    row.push(
        "assumed: Linux's default write-back and ext3 commit interval (the traces were taken \
         below a page cache, §2); at the traced request rate"
            .into(),
    );
    t.rows.push(row);
    let mut row = vec!["replay acceleration".to_string()];
    for w in FiuWorkload::ALL {
        row.push(format!("{:.1}", spec(w, quick, 7, seed).accel));
    }
    row.push("1/scale, at most 100× (the paper's replay bound)".into());
    t.rows.push(row);
    t
}

/// The first DEDUP section of the report: it alone carries [`STAND_IN`] and the
/// generator's parameters; the others refer to it.
const FIRST: &str = "DEDUP-T1";

fn new_output(id: &str, title: &str, what: &str, quick: bool, seed: u64) -> ExperimentOutput {
    if id == FIRST {
        let mut out = ExperimentOutput::new(id, title, format!("{what}\n\n{STAND_IN}"), seed);
        out.tables.push(params_table(quick, seed));
        out
    } else {
        let refer = format!(
            "Runs on the synthetic stand-in for the FIU traces; its inputs and their sources \
             are described, with the generator's parameters, under {FIRST}."
        );
        ExperimentOutput::new(id, title, format!("{what}\n\n{refer}"), seed)
    }
}

// ----- running a stack ------------------------------------------------------------------

/// A run's TOML: one WD5000AAKB behind an elevator (LOOK, one request at the drive:
/// PATA has no command queueing), under `layers` (`[[layer]]` tables). The paper's
/// layers sit above the block layer's I/O scheduler (§3.3, Figure 5); its Linux 2.6.20
/// scheduled with an elevator (which one is not stated: LOOK is assumed).
fn stack_toml(layers: &str) -> String {
    format!(
        "[workload.synthetic]\nkind = \"synthetic\"\npattern = {{ kind = \"uniform\" }}\n\
         sizes = {{ kind = \"fixed\", sectors = 8 }}\nread-fraction = 1.0\n\
         arrivals = {{ kind = \"poisson\", rate-per-s = 10 }}\ncount = 1\n\
         [scheduler]\nkind = \"look\"\nqueue-depth = 1\n\
         [device]\nkind = \"disk\"\ndisk = \"{DISK}\"\n{layers}"
    )
}

fn cache_layer(pages: u64, policy: &str, addressing: &str) -> String {
    format!(
        "[[layer]]\nkind = \"content-cache\"\npages = {}\npolicy = \"{policy}\"\naddressing = \"{addressing}\"\n",
        pages.max(1)
    )
}

/// A content-addressed ARC cache whose sector lists are preloaded from the generated
/// disk image of `s` (the duplicate information the paper loads before its runs).
fn preloaded_cache_layer(pages: u64, s: &ContentTraceSpec) -> String {
    format!(
        "{}preload = {{ workload = \"{}\", scale = {}, seed = {} }}\n",
        cache_layer(pages, "arc", "content"),
        s.workload.name(),
        s.scale,
        s.seed
    )
}

fn drr_layer(s: &ContentTraceSpec, selective: bool) -> Result<String, String> {
    let w = s.workload.name();
    let mut t = format!(
        "[[layer]]\nkind = \"drr\"\npreload = {{ workload = \"{w}\", scale = {}, seed = {} }}\n",
        s.scale, s.seed
    );
    if selective {
        let l = s.layout()?;
        let p = s.workload.published();
        // Assumed (the paper gives no size): each volume holds two copies of a week's
        // unique read content.
        let scratch = ((p.reads_content_gb * 1e9 / 4096.0 * s.scale) * 2.0)
            .ceil()
            .max(1.0) as u64;
        let _ = writeln!(
            t,
            "selective = {{ copies = 10, volumes = 5, scratch-pages = {scratch}, span-pages = {}, period-s = {} }}",
            l.fs_pages,
            86_400.0 / s.accel
        );
    }
    Ok(t)
}

/// Runs the generated trace `s` through the stack of `toml`; `on` sees each request.
fn run_stack(
    toml: &str,
    s: &ContentTraceSpec,
    on: &mut dyn FnMut(&RequestLog),
) -> Result<Vec<NodeReport>, String> {
    let c = RunConfig::from_toml(toml, "dedup.toml").map_err(|e| e.to_string())?;
    let feed = ContentFeed::new();
    let mut b = c.build_fed(Some(&feed)).map_err(|e| e.to_string())?;
    let records = feed.tap(s.trace()?);
    engine::run(
        b.root.as_mut(),
        &b.units,
        Source::Open {
            requests: Box::new(records),
            stride: 0,
        },
        RunOptions::default(),
        &mut |l| on(l),
    )
    .map_err(|e| e.to_string())?;
    let mut nodes = Vec::new();
    b.root.report("stack", &mut nodes);
    Ok(nodes)
}

fn extra(nodes: &[NodeReport], kind: &str, name: &str) -> f64 {
    nodes
        .iter()
        .filter(|n| n.kind == kind)
        .flat_map(|n| n.extra.iter())
        .find(|(k, _)| k == name)
        .and_then(|(_, v)| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// Disk read times of one run: per-request service times (ns) of reads that went to
/// the disk, from `from` on.
struct ReadTimes {
    times: Vec<u64>,
    total_ns: u64,
    /// Seek and rotation time of the reads that went to the disk, ns.
    seek_ns: u64,
    rot_ns: u64,
    hits: u64,
    reads: u64,
}

impl ReadTimes {
    /// Mean seek and rotation per disk read, ms.
    fn seek_rot_ms(&self) -> (f64, f64) {
        let n = self.times.len().max(1) as f64 * 1e6;
        (self.seek_ns as f64 / n, self.rot_ns as f64 / n)
    }
}

fn read_times(
    toml: &str,
    s: &ContentTraceSpec,
    from: u64,
) -> Result<(ReadTimes, Vec<NodeReport>), String> {
    let mut r = ReadTimes {
        times: Vec::new(),
        total_ns: 0,
        seek_ns: 0,
        rot_ns: 0,
        hits: 0,
        reads: 0,
    };
    let nodes = run_stack(toml, s, &mut |l| {
        if l.write || l.background || l.arrival.0 < from {
            return;
        }
        r.reads += 1;
        if served_by_layer(l) {
            r.hits += 1;
            return;
        }
        r.times.push(l.service_ns());
        r.seek_ns += l.breakdown.seek_ns;
        r.rot_ns += l.breakdown.rotation_ns;
        r.total_ns += l.service_ns();
    })?;
    Ok((r, nodes))
}

/// A read the content cache served: no drive time at all (a read the drive served from
/// its own buffer is a disk I/O, with command overhead, and is counted as one).
fn served_by_layer(l: &RequestLog) -> bool {
    l.cache_hit && l.breakdown == crate::disk::hdd::Breakdown::default()
}

fn quartiles_ms(v: &mut [u64]) -> (f64, f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    v.sort_unstable();
    let q = |f: f64| v[((v.len() - 1) as f64 * f) as usize] as f64 / 1e6;
    (q(0.25), q(0.5), q(0.75))
}

// ----- the generator's inputs measured back (consistency) ------------------------------

const INPUT_WHY: &str =
    "a generator input measured back from the generated stand-in trace, not a reproduction";

/// DEDUP-T1: one week's volumes, unique sectors and unique content.
pub fn dedup_t1(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let mut out = new_output(
        "DEDUP-T1",
        "Table 1: one-week workload summary, measured back from the stand-in traces",
        "One generated week per workload; volumes and unique counts (pages × 4096 B, divided by the \
         scale) compared with Table 1.",
        quick,
        seed,
    );
    let mut t = Table::new(&["workload", "cell", "paper GB", "ours GB"]);
    let mut csv = String::from("workload,cell,paper_gb,ours_gb\n");
    for w in FiuWorkload::ALL {
        let s = spec(w, quick, 7, seed);
        let p = w.published();
        let (mut rt, mut wt) = (0u64, 0u64);
        let (mut rs, mut rc, mut ws, mut wc) = (
            FxHashSet::default(),
            FxHashSet::<Digest>::default(),
            FxHashSet::default(),
            FxHashSet::<Digest>::default(),
        );
        for r in s.trace()? {
            let page = r.lbn / PAGE_SECTORS;
            if r.write {
                wt += 1;
                ws.insert(page);
                wc.insert(r.content[0]);
            } else {
                rt += 1;
                rs.insert(page);
                rc.insert(r.content[0]);
            }
        }
        let gb = |n: usize| n as f64 * 4096.0 / 1e9 / s.scale;
        let fs_acc = (rs.len() + ws.len()) as f64 * 4096.0 / 1e9 / s.scale / p.fs_gb * 100.0;
        let cells = [
            ("reads total", p.reads_total_gb, gb(rt as usize)),
            ("reads sectors", p.reads_sectors_gb, gb(rs.len())),
            ("reads content", p.reads_content_gb, gb(rc.len())),
            ("writes total", p.writes_total_gb, gb(wt as usize)),
            ("writes sectors", p.writes_sectors_gb, gb(ws.len())),
            ("writes content", p.writes_content_gb, gb(wc.len())),
        ];
        for (cell, paper, ours) in cells {
            t.rows.push(vec![
                w.name().into(),
                cell.into(),
                format!("{paper}"),
                format!("{ours:.3}"),
            ]);
            let _ = writeln!(csv, "{},{cell},{paper},{ours:.4}", w.name());
            out.checks.push(
                Check::relative(
                    "DEDUP-T1",
                    &format!("{} {cell} (GB)", w.name()),
                    paper,
                    ours,
                    0.01,
                )
                .consistency(INPUT_WHY),
            );
        }
        let paper_fs = match w {
            FiuWorkload::WebVm => 2.8,
            FiuWorkload::Mail => 6.27,
            FiuWorkload::Homes => 1.44,
        };
        t.rows.push(vec![
            w.name().into(),
            "FS accessed %".into(),
            format!("{paper_fs}"),
            format!("{fs_acc:.2}"),
        ]);
        out.checks.push(
            Check::absolute("DEDUP-T1", &format!("{} FS accessed (%)", w.name()), paper_fs, fs_acc, 0.5)
                .consistency("follows from the generator's unique-sector inputs (the paper's Table 1 does not quite agree with itself here: unique sectors read plus written over the file-system size give 3.0 % for web-vm and 6.7 % for mail against the printed 2.8 % and 6.27 %, because reads and writes overlap)"),
        );
    }
    out.tables.push(t);
    out.csv = csv;
    Ok(out)
}

/// DEDUP-T2: disk static similarity of the generated disk image.
pub fn dedup_t2(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let mut out = new_output(
        "DEDUP-T2",
        "Table 2: disk static similarity of the stand-in disk images",
        "The generated disk image's static similarity (all − zeros)/(unique − 1) (DEDUP-EQ-SS), \
         counted by streaming every non-zero page of the layout.",
        quick,
        seed,
    );
    let mut t = Table::new(&[
        "workload",
        "unique pages",
        "non-zero pages",
        "similarity",
        "paper",
    ]);
    let mut csv = String::from("workload,unique,total,similarity,paper\n");
    for w in FiuWorkload::ALL {
        let s = spec(w, quick, 7, seed);
        let l = s.layout()?;
        let mut contents = FxHashSet::<Digest>::default();
        let mut total = 0u64;
        for (_, d) in l.pages() {
            total += 1;
            contents.insert(d);
        }
        let sim = total as f64 / (contents.len() as f64 - 1.0).max(1.0);
        let paper = match w {
            FiuWorkload::WebVm => 2.67,
            FiuWorkload::Mail => 2.64,
            FiuWorkload::Homes => 2.94,
        };
        t.rows.push(vec![
            w.name().into(),
            contents.len().to_string(),
            total.to_string(),
            format!("{sim:.3}"),
            format!("{paper}"),
        ]);
        let _ = writeln!(
            csv,
            "{},{},{total},{sim:.4},{paper}",
            w.name(),
            contents.len()
        );
        out.checks.push(
            Check::relative(
                "DEDUP-T2",
                &format!("{} static similarity", w.name()),
                paper,
                sim,
                0.03,
            )
            .consistency(INPUT_WHY),
        );
    }
    out.tables.push(t);
    out.csv = csv;
    Ok(out)
}

/// Copies on disk of the content of `page` (counted from the layout).
fn copies_of(l: &Layout, page: u64) -> Option<u64> {
    l.content_at(page).map(|c| l.copies(c))
}

/// DEDUP-F3: workload static similarity against the copy cap.
pub fn dedup_f3(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let mut out = new_output(
        "DEDUP-F3",
        "Workload static similarity against the copy cap x (one day), stand-in traces",
        "Average on-disk copies of the blocks read in one generated day, counting at most x copies \
         per content.",
        quick,
        seed,
    );
    let caps = [1u64, 2, 5, 10, 100, 1000];
    let mut t = Table::new(&["workload", "x=1", "x=2", "x=5", "x=10", "x=100", "x=1000"]);
    let mut csv = String::from("workload,cap,similarity\n");
    for w in FiuWorkload::ALL {
        let s = spec(w, quick, 1, seed);
        let l = s.layout()?;
        let mut sums = [0f64; 6];
        let mut n = 0u64;
        for r in s.trace()?.filter(|r| !r.write) {
            if let Some(k) = copies_of(&l, r.lbn / PAGE_SECTORS) {
                n += 1;
                for (i, &c) in caps.iter().enumerate() {
                    sums[i] += k.min(c) as f64;
                }
            }
        }
        let v: Vec<f64> = sums.iter().map(|x| x / n.max(1) as f64).collect();
        let mut row = vec![w.name().to_string()];
        for (i, x) in v.iter().enumerate() {
            row.push(format!("{x:.3}"));
            let _ = writeln!(csv, "{},{},{x:.4}", w.name(), caps[i]);
        }
        t.rows.push(row);
        out.checks.push(
            Check::absolute(
                "DEDUP-F3",
                &format!("{} similarity at x = 1000", w.name()),
                2.5,
                v[5],
                0.25,
            )
            .consistency(INPUT_WHY),
        );
        out.checks.push(
            Check::holds(
                "DEDUP-F3",
                &format!("{} non-decreasing in x", w.name()),
                v.windows(2).all(|p| p[0] <= p[1]),
            )
            .consistency("a capped mean cannot fall as the cap rises"),
        );
    }
    out.tables.push(t);
    out.csv = csv;
    Ok(out)
}

/// DEDUP-F4: content working-set overlap over 3 weeks.
pub fn dedup_f4(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let mut out = new_output(
        "DEDUP-F4",
        "Content working-set overlap over 3 weeks (seven 3-day intervals), stand-in traces",
        "For each 3-day interval: the share of the content read in it that was read or written \
         in the previous interval (interval 1: itself, 100 %).",
        quick,
        seed,
    );
    let mut t = Table::new(&[
        "workload",
        "I1",
        "I2",
        "I3",
        "I4",
        "I5",
        "I6",
        "I7",
        "mean I2–I7",
        "paper",
    ]);
    let mut csv = String::from("workload,interval,overlap_pct\n");
    for w in FiuWorkload::ALL {
        let s = spec(w, quick, 21, seed);
        let (reads_day, writes_day) = s.trace()?.per_day();
        let per_interval = (reads_day + writes_day) * u64::from(INTERVAL_DAYS);
        let mut prev_all: FxHashSet<Digest> = FxHashSet::default();
        let (mut read, mut all) = (
            FxHashSet::<Digest>::default(),
            FxHashSet::<Digest>::default(),
        );
        let mut overlaps = Vec::new();
        let close = |read: &mut FxHashSet<Digest>,
                     all: &mut FxHashSet<Digest>,
                     prev: &mut FxHashSet<Digest>,
                     first: bool| {
            let o = if first {
                100.0
            } else {
                read.iter().filter(|d| prev.contains(*d)).count() as f64 / read.len().max(1) as f64
                    * 100.0
            };
            *prev = std::mem::take(all);
            read.clear();
            o
        };
        for (i, r) in s.trace()?.enumerate() {
            if (i as u64).is_multiple_of(per_interval) && i > 0 {
                let first = overlaps.is_empty();
                overlaps.push(close(&mut read, &mut all, &mut prev_all, first));
            }
            all.insert(r.content[0]);
            if !r.write {
                read.insert(r.content[0]);
            }
        }
        let first = overlaps.is_empty();
        overlaps.push(close(&mut read, &mut all, &mut prev_all, first));
        let mean = overlaps[1..].iter().sum::<f64>() / (overlaps.len() - 1).max(1) as f64;
        let paper = w.published().overlap * 100.0;
        let mut row = vec![w.name().to_string()];
        for (i, o) in overlaps.iter().enumerate() {
            row.push(format!("{o:.1}"));
            let _ = writeln!(csv, "{},{},{o:.2}", w.name(), i + 1);
        }
        row.push(format!("{mean:.1}"));
        row.push(format!("{paper}"));
        t.rows.push(row);
        out.checks.push(
            Check::absolute(
                "DEDUP-F4",
                &format!("{} mean overlap I2–I7 (%)", w.name()),
                paper,
                mean,
                5.0,
            )
            .consistency(INPUT_WHY),
        );
    }
    out.tables.push(t);
    out.csv = csv;
    Ok(out)
}

// ----- trace analyses -------------------------------------------------------------------

/// DEDUP-F1 and F2 from one generated day per workload: infinite-cache hits and mean
/// reuse distances, by sector and by content.
fn analyse_day(s: &ContentTraceSpec) -> Result<[f64; 8], String> {
    let mut last_sector: FxHashMap<u64, u64> = FxHashMap::default();
    let mut last_content: FxHashMap<Digest, u64> = FxHashMap::default();
    // [read sector hits, read content hits, write sector hits, write content hits,
    //  read sector dist sum, read content dist sum, write sector dist, write content dist]
    let mut a = [0f64; 8];
    let mut n = [0f64; 4];
    for (i, r) in s.trace()?.enumerate() {
        let i = i as u64;
        let page = r.lbn / PAGE_SECTORS;
        let w = usize::from(r.write);
        if let Some(&j) = last_sector.get(&page) {
            a[2 * w] += 1.0;
            a[4 + 2 * w] += (i - j) as f64;
            n[2 * w] += 1.0;
        }
        if let Some(&j) = last_content.get(&r.content[0]) {
            a[2 * w + 1] += 1.0;
            a[5 + 2 * w] += (i - j) as f64;
            n[2 * w + 1] += 1.0;
        }
        last_sector.insert(page, i);
        last_content.insert(r.content[0], i);
    }
    // A mean over no reuse is undefined (NaN), not 0: nothing was accessed twice.
    for k in 0..4 {
        a[4 + k] = if n[k] > 0.0 {
            a[4 + k] / n[k]
        } else {
            f64::NAN
        };
    }
    Ok(a)
}

/// DEDUP-F1: page-cache hits with an infinite cache, content vs sector.
pub fn dedup_f1(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let mut out = new_output(
        "DEDUP-F1",
        "Page-cache hits with an infinite cache, content vs sector addressing (one day), stand-in traces",
        "One generated day per workload; a request hits when its sector (sector addressing) or its \
         content (content addressing) was accessed before that day.",
        quick,
        seed,
    );
    let mut t = Table::new(&[
        "workload",
        "read hits sector",
        "read hits content",
        "write hits sector",
        "write hits content",
    ]);
    let mut csv = String::from("workload,read_sector,read_content,write_sector,write_content\n");
    for w in FiuWorkload::ALL {
        let a = analyse_day(&spec(w, quick, 1, seed))?;
        t.rows.push(vec![
            w.name().into(),
            format!("{}", a[0]),
            format!("{}", a[1]),
            format!("{}", a[2]),
            format!("{}", a[3]),
        ]);
        let _ = writeln!(csv, "{},{},{},{},{}", w.name(), a[0], a[1], a[2], a[3]);
        out.checks.push(Check::holds(
            "DEDUP-F1",
            &format!("{} content read hits ≥ sector read hits", w.name()),
            a[1] >= a[0],
        ).consistency("every sector hit of a static page is also a content hit, so this cannot fail on a trace whose read pages are never rewritten (as the stand-in's)"));
    }
    out.tables.push(t);
    out.csv = csv;
    Ok(out)
}

/// DEDUP-F2: mean reuse distances, content vs sector.
pub fn dedup_f2(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let mut out = new_output(
        "DEDUP-F2",
        "Average reuse distance, content vs sector, stand-in traces",
        "One generated day per workload; the mean number of requests between successive accesses \
         to the same sector, and to the same content, for reads and for writes.",
        quick,
        seed,
    );
    let mut t = Table::new(&[
        "workload",
        "read sector",
        "read content",
        "write sector",
        "write content",
    ]);
    let mut csv = String::from("workload,read_sector,read_content,write_sector,write_content\n");
    let distance = |d: f64| {
        if d.is_nan() {
            "none accessed twice".to_string()
        } else {
            format!("{d:.0}")
        }
    };
    let mut no_sector_reread = Vec::new();
    for w in FiuWorkload::ALL {
        let a = analyse_day(&spec(w, quick, 1, seed))?;
        if a[4].is_nan() {
            no_sector_reread.push(w.name());
        }
        t.rows.push(vec![
            w.name().into(),
            distance(a[4]),
            distance(a[5]),
            distance(a[6]),
            distance(a[7]),
        ]);
        let _ = writeln!(
            csv,
            "{},{:.1},{:.1},{:.1},{:.1}",
            w.name(),
            a[4],
            a[5],
            a[6],
            a[7]
        );
        out.checks.push(Check::holds(
            "DEDUP-F2",
            &format!("{} reads: content distance < sector distance", w.name()),
            a[5] < a[4],
        ));
        out.checks.push(Check::holds(
            "DEDUP-F2",
            &format!("{} writes: content distance < sector distance", w.name()),
            a[7] < a[6],
        ));
    }
    if !no_sector_reread.is_empty() {
        let _ = write!(
            out.description,
            " In the generated day no sector is read twice in {}: the stand-in's reads \
             spread over the volume at the daily pace Table 1 gives, without the skew of \
             the real traces (which the paper does not publish), so the reads' sector reuse \
             distance is undefined and their check cannot hold.",
            no_sector_reread.join(", ")
        );
    }
    out.tables.push(t);
    out.csv = csv;
    Ok(out)
}

// ----- stacks on the WD5000AAKB ---------------------------------------------------------

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

// ----- lookup cost (DEDUP-F12, F13, EQ-CPU) ---------------------------------------------

/// Why the lookup experiments count probes: the paper measured CPU cycles, which a
/// deterministic simulation cannot; what makes a lookup O(N) or O(1) is the hash chain
/// it walks, and that is counted exactly.
const PROBES_NOTE: &str = "Simulated time cannot measure CPU cycles, so these runs measure the \
    mechanism the paper's cycle counts reflect: a lookup's cost is counted as the memory accesses \
    of a chained hash-table lookup, one bucket head plus every record compared on its chain \
    (found or not), deterministic for a seed. Cycles and nanoseconds per lookup are measured \
    only by `spindle bench` (content-cache lookups at 2^12, 2^16, 2^20 and 2^24 buckets), on \
    the host, outside any check; so are the effects the paper attributes to L2 and TLB misses \
    beyond 2^20 buckets, which no probe count can show. MD5 (about 100,000 cycles in the paper) \
    is excluded here and timed by `spindle bench`.";

/// The content cache of the lookup runs: the paper's 200 MB (50,000 pages) times the
/// workload's scale, ARC, content-addressed.
fn lookup_cache_pages(s: &ContentTraceSpec) -> u64 {
    ((50_000.0 * s.scale).round() as u64).max(1)
}

/// One day of web-vm as (page, content, write), 4 KiB pages.
fn day_pages(s: &ContentTraceSpec) -> Result<Vec<(u64, Digest, bool)>, String> {
    let mut v = Vec::new();
    for r in s.trace()? {
        for (k, d) in r.content.iter().enumerate() {
            v.push((r.lbn / PAGE_SECTORS + k as u64, *d, r.write));
        }
    }
    Ok(v)
}

/// The lookups of a replay: for each, the records its table held then and its cost
/// (bucket head + records compared).
#[derive(Default)]
struct LookupCosts {
    sector: Vec<(u32, u32)>,
    content: Vec<(u32, u32)>,
    /// Whether each sector lookup found its page.
    sector_found: Vec<bool>,
    /// Whether each content lookup found its content.
    content_found: Vec<bool>,
}

/// Replays `pages` through a content cache of 2^`buckets_log2` buckets as the paper's
/// implementation looks up (§4.5.1): a read does a sector lookup, and a content lookup
/// to insert on a miss; a write does both (write-through).
fn lookup_costs(
    pages: &[(u64, Digest, bool)],
    cache_pages: u64,
    buckets_log2: u32,
) -> Result<LookupCosts, String> {
    use crate::dedup::{Addressing, CacheConfig, ContentCache, Policy};
    let mut c: ContentCache<()> = ContentCache::new(CacheConfig {
        pages: cache_pages,
        policy: Policy::Arc,
        addressing: Addressing::Content,
        buckets_log2,
    })?;
    let mut out = LookupCosts::default();
    for &(page, d, write) in pages {
        let (n, found) = c.sector_probes(page);
        out.sector.push((c.entries() as u32, 1 + n));
        out.sector_found.push(found);
        if write || c.read(page).is_none() {
            let (n, found) = c.content_probes(&d);
            out.content.push((c.contents() as u32, 1 + n));
            out.content_found.push(found);
            if write {
                c.write(page, &d, ());
            } else {
                c.fill(page, &d, || ());
            }
        }
    }
    Ok(out)
}

/// `v` cut into `bins` runs of equal length in order: (mean records held, mean cost).
fn binned(v: &[(u32, u32)], bins: usize) -> Vec<(f64, f64)> {
    let n = v.len() / bins;
    if n == 0 {
        return Vec::new();
    }
    v.chunks_exact(n)
        .take(bins)
        .map(|c| {
            let k = c.len() as f64;
            (
                c.iter().map(|x| f64::from(x.0)).sum::<f64>() / k,
                c.iter().map(|x| f64::from(x.1)).sum::<f64>() / k,
            )
        })
        .collect()
}

/// `v` cut into `bins` runs of equal length in order, keeping in each only the lookups
/// whose outcome (`found`) is `want`: (mean records held, mean cost); a run with none
/// is left out.
fn binned_by(v: &[(u32, u32)], found: &[bool], want: bool, bins: usize) -> Vec<(f64, f64)> {
    let n = v.len() / bins;
    if n == 0 {
        return Vec::new();
    }
    v.chunks_exact(n)
        .zip(found.chunks_exact(n))
        .take(bins)
        .filter_map(|(c, f)| {
            let kept: Vec<&(u32, u32)> = c
                .iter()
                .zip(f)
                .filter(|(_, &x)| x == want)
                .map(|(l, _)| l)
                .collect();
            let k = kept.len() as f64;
            (k > 0.0).then(|| {
                (
                    kept.iter().map(|x| f64::from(x.0)).sum::<f64>() / k,
                    kept.iter().map(|x| f64::from(x.1)).sum::<f64>() / k,
                )
            })
        })
        .collect()
}

/// R² of the least-squares line through `pts`.
fn r_squared(pts: &[(f64, f64)]) -> f64 {
    let n = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n,
        pts.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let syy: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    if sxx == 0.0 || syy == 0.0 {
        return 0.0;
    }
    sxy * sxy / (sxx * syy)
}

/// Largest relative departure of the costs in `pts` from their mean.
fn spread(pts: &[(f64, f64)]) -> f64 {
    let mean = pts.iter().map(|p| p.1).sum::<f64>() / pts.len().max(1) as f64;
    pts.iter()
        .map(|p| (p.1 / mean - 1.0).abs())
        .fold(0.0, f64::max)
}

/// Mean cost of the lookups in `v`.
fn mean_cost(v: &[(u32, u32)]) -> f64 {
    v.iter().map(|x| f64::from(x.1)).sum::<f64>() / v.len().max(1) as f64
}

/// Records compared per lookup over the mean load factor (records / buckets) the
/// lookups met: 1/2 for hits and 1 for misses on a uniformly hashed chained table.
fn per_load(v: &[(u32, u32)], buckets_log2: u32) -> f64 {
    let compared: f64 = v.iter().map(|x| f64::from(x.1 - 1)).sum();
    let load: f64 = v
        .iter()
        .map(|x| f64::from(x.0) / (1u64 << buckets_log2) as f64)
        .sum();
    compared / load.max(f64::MIN_POSITIVE)
}

/// Bins of the day in F12.
const F12_BINS: usize = 10;

/// DEDUP-F12: lookup cost as the content cache's tables fill over a day of web-vm, with
/// 2^5 and 2^25 buckets.
pub fn dedup_f12(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let s = spec(FiuWorkload::WebVm, quick, 1, seed);
    let mut out = new_output(
        "DEDUP-F12",
        "Lookup cost vs content-cache size, 2^5 and 2^25 buckets (probe counts; stand-in web-vm day)",
        &format!(
            "One generated day of web-vm through a content-addressed ARC cache of 50,000 pages \
             times the workload's scale, with 2^5 and with 2^25 buckets in both hash tables. \
             The day's lookups are cut into {F12_BINS} runs of equal length in time order; for \
             each, the mean number of records its table held (x: the cache's unique pages, \
             which grow through the day) and the mean lookup cost (y). \
             The paper states that with 2^5 buckets the cost grows about linearly (\"approaches \
             O(N) where N is the size of the hash-table\") and with 2^25 it stays about constant, \
             but gives no numbers. What grows with N is the chain a lookup walks: a lookup that \
             does not find its record walks its whole chain (about N/buckets records), while one \
             that finds it stops at it, and where it sits depends on how recently it was \
             inserted (new records go to the head), not on N. A day's mix of the two shifts as \
             the cache warms (the second table), which moves the mean cost at any bucket count \
             without saying anything about N. So the checks use the lookups that do not find \
             their record: with 2^5 buckets their cost grows linearly with the records held \
             (R² ≥ 0.9); with 2^25 it stays within ±20 % of its mean. The first table and the \
             plots also give every lookup's mean cost, for context; the second table splits \
             the sector lookups by outcome, per bin.\n\n{PROBES_NOTE}"
        ),
        quick,
        seed,
    );
    let pages = day_pages(&s)?;
    let cache = lookup_cache_pages(&s);
    let small = lookup_costs(&pages, cache, 5)?;
    let large = lookup_costs(&pages, cache, 25)?;
    let mut t = Table::new(&[
        "bin",
        "sector entries held",
        "sector cost, 2^5",
        "sector cost, 2^25",
        "contents held",
        "content cost, 2^5",
        "content cost, 2^25",
    ]);
    let mut csv =
        String::from("bin,entries,sector_2_5,sector_2_25,contents,content_2_5,content_2_25\n");
    let (s5, s25) = (
        binned(&small.sector, F12_BINS),
        binned(&large.sector, F12_BINS),
    );
    let (c5, c25) = (
        binned(&small.content, F12_BINS),
        binned(&large.content, F12_BINS),
    );
    for i in 0..s5.len().min(c5.len()) {
        t.rows.push(vec![
            (i + 1).to_string(),
            format!("{:.0}", s5[i].0),
            format!("{:.2}", s5[i].1),
            format!("{:.3}", s25[i].1),
            format!("{:.0}", c5[i].0),
            format!("{:.2}", c5[i].1),
            format!("{:.3}", c25[i].1),
        ]);
        let _ = writeln!(
            csv,
            "{},{:.1},{:.4},{:.4},{:.1},{:.4},{:.4}",
            i + 1,
            s5[i].0,
            s5[i].1,
            s25[i].1,
            c5[i].0,
            c5[i].1,
            c25[i].1
        );
    }
    let miss = |l: &LookupCosts, sector: bool| {
        if sector {
            binned_by(&l.sector, &l.sector_found, false, F12_BINS)
        } else {
            binned_by(&l.content, &l.content_found, false, F12_BINS)
        }
    };
    for (kind, sector, all5, all25) in [("sector", true, &s5, &s25), ("content", false, &c5, &c25)]
    {
        let (m5, m25) = (miss(&small, sector), miss(&large, sector));
        out.checks.push(Check::at_least(
            "DEDUP-F12",
            &format!(
                "{kind} lookups not finding their record, 2^5 buckets: R² of cost against records held (O(N))"
            ),
            0.9,
            r_squared(&m5),
        ));
        out.checks.push(Check::below(
            "DEDUP-F12",
            &format!(
                "{kind} lookups not finding their record, 2^25 buckets: largest departure from the mean cost (O(1))"
            ),
            0.2,
            spread(&m25),
        ));
        let series = |label: &str, points: &Vec<(f64, f64)>| Series {
            label: label.into(),
            points: points.clone(),
        };
        out.plots.push(Plot {
            title: format!("{kind} lookup cost through the day (web-vm stand-in)"),
            x_label: "records held by the table".into(),
            y_label: "memory accesses per lookup".into(),
            kind: PlotKind::Line,
            series: vec![
                series("2^5 buckets, not found (whole chain)", &m5),
                series("2^5 buckets, every lookup", all5),
                series("2^25 buckets, not found (whole chain)", &m25),
                series("2^25 buckets, every lookup", all25),
            ],
            log_x: false,
            paper: Vec::new(),
            x_categories: Vec::new(),
        });
    }
    out.tables.push(t);
    // Context, not a check: the sector lookups split by outcome. A lookup that finds its
    // page walks half its chain on average, one that does not walks all of it, so a
    // day whose mix of the two shifts moves the mean cost at any bucket count.
    let mut h = Table::new(&[
        "bin",
        "sector lookups finding their page",
        "cost when found, 2^5",
        "cost when not found, 2^5",
        "cost when found, 2^25",
        "cost when not found, 2^25",
    ]);
    let n = small.sector.len() / F12_BINS;
    if n > 0 {
        for i in 0..F12_BINS {
            let r = i * n..(i + 1) * n;
            let mean = |l: &LookupCosts, want: bool| {
                let v: Vec<f64> = l.sector[r.clone()]
                    .iter()
                    .zip(&l.sector_found[r.clone()])
                    .filter(|(_, &f)| f == want)
                    .map(|(x, _)| f64::from(x.1))
                    .collect();
                if v.is_empty() {
                    "–".to_string()
                } else {
                    format!("{:.2}", v.iter().sum::<f64>() / v.len() as f64)
                }
            };
            let found = small.sector_found[r.clone()].iter().filter(|&&f| f).count();
            h.rows.push(vec![
                (i + 1).to_string(),
                format!("{:.0} %", 100.0 * found as f64 / n as f64),
                mean(&small, true),
                mean(&small, false),
                mean(&large, true),
                mean(&large, false),
            ]);
        }
    }
    out.tables.push(h);
    out.csv = csv;
    Ok(out)
}

/// DEDUP-F13 (and DEDUP-EQ-CPU's O(N)/O(1) statements): lookup cost against the bucket
/// count, 2^5 to 2^25, over the same web-vm day.
pub fn dedup_f13(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    use crate::dedup::table::{MAX_BUCKETS_LOG2, MIN_BUCKETS_LOG2};
    let s = spec(FiuWorkload::WebVm, quick, 1, seed);
    let mut out = new_output(
        "DEDUP-F13",
        "Lookup cost vs number of hash buckets, 2^5 to 2^25 (probe counts; stand-in web-vm day)",
        &format!(
            "The day and cache of DEDUP-F12, replayed once per bucket count from 2^5 to 2^25; \
             the mean cost of every sector lookup and of every content lookup of the day. \
             Checks: the cost does not rise (by more than 1 %) from one bucket count to the next \
             up to 2^20 (the paper: it falls as buckets increase, up to 2^20); DEDUP-EQ-CPU's \
             O(N) at 2^5 buckets, as records compared per lookup over the load factor the \
             lookups met (0.5 for hits to 1 for misses on a uniformly hashed table), and its \
             O(1) at 2^25, as at most 1.05 records compared per lookup. The paper's rise beyond \
             2^20 buckets (L2 and TLB misses) and its sub-µs sweet spot are host effects: see \
             `spindle bench`.\n\n{PROBES_NOTE}"
        ),
        quick,
        seed,
    );
    let pages = day_pages(&s)?;
    let cache = lookup_cache_pages(&s);
    let mut t = Table::new(&[
        "buckets",
        "sector cost",
        "content cost",
        "sector lookups",
        "content lookups",
    ]);
    let mut csv = String::from("buckets_log2,sector_cost,content_cost\n");
    let (mut sector_pts, mut content_pts) = (Vec::new(), Vec::new());
    let mut ends = Vec::new();
    for b in MIN_BUCKETS_LOG2..=MAX_BUCKETS_LOG2 {
        let l = lookup_costs(&pages, cache, b)?;
        let (sc, cc) = (mean_cost(&l.sector), mean_cost(&l.content));
        t.rows.push(vec![
            format!("2^{b}"),
            format!("{sc:.3}"),
            format!("{cc:.3}"),
            l.sector.len().to_string(),
            l.content.len().to_string(),
        ]);
        let _ = writeln!(csv, "{b},{sc:.5},{cc:.5}");
        sector_pts.push((f64::from(b), sc));
        content_pts.push((f64::from(b), cc));
        if b == MIN_BUCKETS_LOG2 || b == MAX_BUCKETS_LOG2 {
            ends.push((b, l));
        }
    }
    for (kind, pts) in [("sector", &sector_pts), ("content", &content_pts)] {
        let rises = pts
            .windows(2)
            .filter(|w| w[1].0 <= 20.0 && w[1].1 > w[0].1 * 1.01)
            .count();
        out.checks.push(Check::holds(
            "DEDUP-F13",
            &format!(
                "{kind} lookup cost does not rise with more buckets, 2^5 to 2^20 ({rises} rises)"
            ),
            rises == 0,
        ));
    }
    for (b, l) in &ends {
        for (kind, v) in [("sector", &l.sector), ("content", &l.content)] {
            if *b == MIN_BUCKETS_LOG2 {
                out.checks.push(
                    Check::range(
                        "DEDUP-EQ-CPU",
                        &format!("2^{b} buckets: {kind} records compared per lookup / load factor (O(N))"),
                        0.5,
                        1.0,
                        per_load(v, *b),
                    )
                    .reference("a uniformly hashed chained table: 1/2 of the load for a hit, all of it for a miss"),
                );
            } else {
                let compared = mean_cost(v) - 1.0;
                out.checks.push(Check::below(
                    "DEDUP-EQ-CPU",
                    &format!("2^{b} buckets: {kind} records compared per lookup (O(1))"),
                    1.05,
                    compared,
                ));
            }
        }
    }
    out.plots.push(Plot {
        title: "Lookup cost against hash-table buckets (web-vm stand-in day)".into(),
        x_label: "buckets (log2)".into(),
        y_label: "memory accesses per lookup".into(),
        kind: PlotKind::Line,
        series: vec![
            Series {
                label: "sector lookups".into(),
                points: sector_pts,
            },
            Series {
                label: "content lookups".into(),
                points: content_pts,
            },
        ],
        log_x: false,
        paper: Vec::new(),
        x_categories: Vec::new(),
    });
    out.tables.push(t);
    out.csv = csv;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_cost_is_linear_with_few_buckets_and_flat_with_many() {
        // Random pages and contents (half rereads): probe counts follow the table's load.
        use rand::{Rng, SeedableRng};
        for seed in 0..3 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let pages: Vec<(u64, Digest, bool)> = (0..6_000)
                .map(|i| {
                    let page = if i > 100 && rng.gen_bool(0.5) {
                        rng.gen_range(0..i as u64)
                    } else {
                        rng.gen::<u64>() >> 8
                    };
                    (page, [rng.gen_range(0..200u8); 16], rng.gen_bool(0.3))
                })
                .collect();
            let small = lookup_costs(&pages, 500, 5).unwrap();
            let large = lookup_costs(&pages, 500, 25).unwrap();
            assert_eq!(small.sector.len(), pages.len());
            assert!(r_squared(&binned(&small.sector, 10)) > 0.9);
            let k = per_load(&small.sector, 5);
            assert!((0.5..=1.0).contains(&k), "{k}");
            assert!(mean_cost(&large.sector) - 1.0 <= 1.05);
            assert!(mean_cost(&small.sector) > 10.0 * mean_cost(&large.sector));
        }
        assert!((r_squared(&[(1.0, 3.0), (2.0, 5.0), (4.0, 9.0)]) - 1.0).abs() < 1e-12);
        assert!((spread(&[(0.0, 1.0), (0.0, 3.0)]) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn cache_drr_and_duplication_run_from_toml_and_complete_every_request_once() {
        for seed in [1, 2, 3] {
            let mut s = ContentTraceSpec::new(FiuWorkload::WebVm, 0.001, 2, seed);
            s.accel = 100.0;
            let n = s.trace().unwrap().count() as u64;
            let layers = format!(
                "{}{}",
                cache_layer(40, "arc", "content"),
                drr_layer(&s, true).unwrap()
            );
            let (mut fg, mut bg) = (0u64, 0u64);
            let mut seen = FxHashSet::default();
            let nodes = run_stack(&stack_toml(&layers), &s, &mut |l| {
                if l.background {
                    bg += 1;
                } else {
                    fg += 1;
                    assert!(seen.insert(l.id), "request {} completed twice", l.id);
                }
            })
            .unwrap();
            assert_eq!(fg, n, "seed {seed}");
            assert!(
                bg > 0,
                "seed {seed}: the replicator's requests are logged apart"
            );
            assert_eq!(extra(&nodes, "drr", "duplication requests") as u64, bg);
            // Copies entered the map (the last round may have found nothing popular
            // and dropped the previous round's copies, so the count at the end may be 0).
            assert!(extra(&nodes, "drr", "copies placed") > 0.0, "{nodes:?}");
            assert!(extra(&nodes, "drr", "redirected") > 0.0);
        }
    }
}

#[cfg(test)]
mod diagnose {
    use super::*;

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
mod week {
    use super::*;

    /// Not a check: one full-scale generated web-vm week (about 3.6 M requests) through
    /// content cache + DRR + selective duplication, for its run time and peak memory
    /// (`/usr/bin/time -v cargo test --release -p spindle --lib full_week -- --ignored`).
    #[test]
    #[ignore]
    fn full_week_web_vm_through_all_three() {
        let mut s = ContentTraceSpec::new(FiuWorkload::WebVm, 1.0, 7, 1);
        s.accel = 1.0;
        let layers = format!(
            "{}{}",
            cache_layer(50_000, "arc", "content"),
            drr_layer(&s, true).unwrap()
        );
        let mut n = 0u64;
        let t = std::time::Instant::now();
        let nodes = run_stack(&stack_toml(&layers), &s, &mut |_| n += 1).unwrap();
        println!(
            "{n} requests in {:.1} s; {:?}",
            t.elapsed().as_secs_f64(),
            nodes[1].extra
        );
    }
}

#[cfg(test)]
mod instrument {
    use super::*;

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
