//! `spindle bench`: prints the library's micro-benchmarks.

use crate::table::thousands;
use anyhow::{anyhow, Context, Result};
use spindle::bench::{run, BenchConfig, BenchReport};
use std::io::{IsTerminal, Write as _};

fn mark(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "NOT met"
    }
}

fn human(r: &BenchReport) -> String {
    let n = |x: f64| thousands(x.round().max(0.0) as u64);
    let (ds_lo, ds_hi) = (
        r.disksim_replay_requests_per_s.low,
        r.disksim_replay_requests_per_s.high,
    );
    let rp = &r.replay;
    let sp = &r.sptf;
    let mut out = String::new();
    out.push_str(&format!(
        "replay  {} requests/s, {:.0} ns per request   (target {} requests/s: {})\n",
        n(rp.requests_per_s),
        rp.ns_per_request,
        n(r.replay_target_requests_per_s),
        mark(r.replay_target_met)
    ));
    out.push_str(&format!(
        "        {} validation trace ({} requests, closed loop, FCFS, one outstanding);\n\
         \x20       median of {} runs of {} replays each, best run {} requests/s\n",
        rp.drive,
        n(rp.trace_requests as f64),
        rp.runs,
        rp.repetitions,
        n(rp.best_requests_per_s)
    ));
    out.push_str(&format!(
        "        DiskSim 4.0 (optimized build) replays the same traces at {}-{} requests/s\n\
         \x20       on this machine: spindle is {:.0}-{:.0}x faster\n",
        n(ds_lo),
        n(ds_hi),
        rp.requests_per_s / ds_hi,
        rp.requests_per_s / ds_lo
    ));
    out.push_str(&format!(
        "sptf    {} ns per decision among {} queued requests   (target {} ns: {})\n",
        n(sp.decision_ns),
        sp.queue,
        n(r.sptf_target_ns),
        mark(r.sptf_target_met)
    ));
    out.push_str(&format!(
        "        {} preset, {:.1} ns per positioning estimate;\n\
         \x20       median of {} runs of {} decisions each, best run {} ns\n",
        sp.drive,
        sp.ns_per_estimate,
        sp.runs,
        n(sp.decisions as f64),
        n(sp.best_decision_ns)
    ));
    out.push_str(&format!(
        "mimic   {:.1} ns per Disk Mimic lookup (target 50 ns: {}); {} ns per SMTF choice among\n\
         \x20       1000 queued (target 50,000 ns: {}); a fully probed table takes {:.0} MB per GB of disk\n",
        r.mimic_lookup_ns,
        mark(r.mimic_lookup_ns <= 50.0),
        n(r.smtf_decision_ns_1000),
        mark(r.smtf_decision_ns_1000 <= 50_000.0),
        r.mimic_table_bytes_per_gb / 1e6
    ));
    out.push_str(&format!(
        "raid4   {} ns of host CPU per simulated 4 KiB update (4+1 RAID-4 of wd-re3 with\n\
         \x20       checksum blocks: 8 disk I/Os, real bytes, verification)\n",
        n(r.raid4_update_ns)
    ));
    let st = &r.stack;
    out.push_str(&format!(
        "stack   {} requests/s end to end (target {}: {})\n\
         \x20       {}; {} requests a run, median of {}, best {}\n",
        n(st.requests_per_s),
        n(st.target_requests_per_s),
        mark(st.requests_per_s >= st.target_requests_per_s),
        st.setup,
        n(st.requests as f64),
        st.runs,
        n(st.best_requests_per_s)
    ));
    out.push_str(&format!(
        "replica {} ns per mirror read's replica choice among 4 by positioning time\n\
         \x20       (MimdRAID; st34502lw drive models) (target 1,000: {})\n",
        n(r.replica_choice_ns_4),
        mark(r.replica_choice_ns_4 <= 1_000.0)
    ));
    let cc = &r.content_cache;
    let figures: Vec<String> = cc
        .by_buckets
        .iter()
        .map(|f| format!("2^{}: {}", f.buckets_log2, n(f.lookups_per_s)))
        .collect();
    let ns: Vec<String> = cc
        .by_buckets
        .iter()
        .map(|f| format!("2^{}: {:.0}", f.buckets_log2, f.ns_per_lookup))
        .collect();
    out.push_str(&format!(
        "dedup   {} content-cache lookups/s with 2^{} buckets, MD5 excluded (target {}: {})\n\
         \x20       lookups/s by hash-table buckets: {}\n\
         \x20       {} lookups/s at 2^{} serving one request at a time (no read-ahead)\n\
         \x20       ns per lookup by buckets (host; DEDUP-F13's cycles): {}\n\
         \x20       {}; read hit ratio {:.1} %, median of {} runs\n\
         \x20       MD5 of one 4 KiB page: {:.0} ns (timed apart)\n",
        n(cc.lookups_per_s),
        cc.buckets_log2,
        n(cc.target_lookups_per_s),
        mark(cc.lookups_per_s >= cc.target_lookups_per_s),
        figures.join(", "),
        n(cc.in_order_lookups_per_s),
        cc.buckets_log2,
        ns.join(", "),
        cc.setup,
        cc.read_hit_ratio * 100.0,
        cc.runs,
        cc.md5_ns_per_page
    ));
    let sc = &r.sched;
    if let Some(first) = sc.figures.first() {
        let mut depths: Vec<usize> = Vec::new();
        let mut names: Vec<(String, Option<usize>)> = Vec::new();
        for f in &sc.figures {
            if !depths.contains(&f.depth) {
                depths.push(f.depth);
            }
            if !names.iter().any(|(s, _)| *s == f.scheduler) {
                names.push((f.scheduler.clone(), f.window));
            }
        }
        out.push_str(
            "sched   ns per host-queue decision (one push + one pop) at queue depth
",
        );
        out.push_str(&format!("        {:<28}", ""));
        for d in &depths {
            out.push_str(&format!("{:>10}", n(*d as f64)));
        }
        out.push('\n');
        for (name, window) in &names {
            let label = match window {
                Some(w) => format!("{name} ({w}-request window)"),
                None => name.clone(),
            };
            out.push_str(&format!("        {label:<28}"));
            for d in &depths {
                let cell = sc
                    .figure(name, *d)
                    .map_or("-".to_string(), |f| n(f.decision_ns));
                out.push_str(&format!("{cell:>10}"));
            }
            out.push('\n');
        }
        out.push_str(&format!(
            "        {} preset; median of {} runs each\n",
            sc.drive, first.runs
        ));
    }
    out
}

/// The README's block of benchmark figures (between [`README_BENCH_BEGIN`] and
/// [`README_BENCH_END`]), rewritten by `spindle bench --readme README.md`.
pub const README_BENCH_BEGIN: &str =
    "<!-- spindle bench: begin (generated by `spindle bench --readme README.md`; do not edit) -->";
pub const README_BENCH_END: &str = "<!-- spindle bench: end -->";

/// The figures as a README paragraph: the medians, with the targets they answer.
fn readme_block(r: &BenchReport) -> String {
    let n = |x: f64| thousands(x.round().max(0.0) as u64);
    let m = |x: f64| format!("{:.2}", x / 1e6);
    // SSTF's decision times and the queue depths they were measured at.
    let sstf: Vec<_> = r
        .sched
        .figures
        .iter()
        .filter(|f| f.scheduler == "sstf")
        .collect();
    let list = |v: Vec<String>| v.join(" / ");
    let sstf_ns = list(sstf.iter().map(|f| n(f.decision_ns)).collect());
    let sstf_depths = list(sstf.iter().map(|f| n(f.depth as f64)).collect());
    format!(
        "`spindle bench` on {cores} cores (medians; on a loaded machine they vary by tens of \
         percent): {replay} million requests/s replaying a validation trace (target 8; \
         DiskSim: {ds_lo}–{ds_hi}/s), {stack} million requests/s through the whole engine \
         (`stack`: 3 drives, SSTF queues, online metrics, workload and metrics on a second \
         core; target 3), {sptf} ns for an SPTF choice among 64 queued requests, \
         {lookup:.1} ns per Disk Mimic lookup, {smtf} ns for an SMTF choice among 1,000, \
         {replica} ns for a mirror read's replica choice among 4, {raid4} ns of host CPU \
         per simulated 4 KiB RAID-4 update (8 disk I/Os with real bytes), {dedup} million \
         content-cache lookups/s replaying a trace with read-ahead ({dedup_in_order} \
         million serving one request at a time; target 20), and {sstf_ns} ns per SSTF host-queue decision at \
         {sstf_depths} queued requests.\n",
        cores = std::thread::available_parallelism().map_or(1, |c| c.get()),
        replay = m(r.replay.requests_per_s),
        ds_lo = n(r.disksim_replay_requests_per_s.low),
        ds_hi = n(r.disksim_replay_requests_per_s.high),
        stack = m(r.stack.requests_per_s),
        sptf = n(r.sptf.decision_ns),
        lookup = r.mimic_lookup_ns,
        smtf = n(r.smtf_decision_ns_1000),
        replica = n(r.replica_choice_ns_4),
        raid4 = n(r.raid4_update_ns),
        dedup = m(r.content_cache.lookups_per_s),
        dedup_in_order = m(r.content_cache.in_order_lookups_per_s),
    )
}

/// `spindle bench`; with `readme`, the README's block of figures is rewritten too.
pub fn bench(json: bool, quick: bool, readme: Option<&std::path::Path>) -> Result<String> {
    let cfg = if quick {
        BenchConfig::quick()
    } else {
        BenchConfig::default()
    };
    // The README is read and its markers checked before measuring, not after.
    let readme_text = |path: &std::path::Path| -> Result<String> {
        let text = crate::limits::read_text(path, crate::limits::MAX_README_BYTES)?;
        spindle::report::summary::replace_marked_block(
            &text,
            README_BENCH_BEGIN,
            README_BENCH_END,
            "",
        )
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        Ok(text)
    };
    if let Some(path) = readme {
        readme_text(path)?;
    }
    if !json && std::io::stderr().is_terminal() {
        let _ = writeln!(std::io::stderr(), "measuring (a few seconds)...");
    }
    let report = run(&cfg).map_err(|e| anyhow!("benchmark setup failed: {e}"))?;
    if let Some(path) = readme {
        let text = readme_text(path)?;
        let new = spindle::report::summary::replace_marked_block(
            &text,
            README_BENCH_BEGIN,
            README_BENCH_END,
            &readme_block(&report),
        )
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        std::fs::write(path, new).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if json {
        Ok(serde_json::to_string_pretty(&report)? + "\n")
    } else {
        Ok(human(&report))
    }
}
