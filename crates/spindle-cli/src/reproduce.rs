//! `spindle reproduce`: run registered experiments and write the report.

use crate::experiments::checks_table;
use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use spindle::experiments::registry::{check_options, select, Durability, Experiment, RunOpts};
use spindle::report::ExperimentOutput;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Stack of each worker thread (the main thread's usual 8 MiB).
const WORKER_STACK: usize = 8 << 20;

/// One experiment's result and its wall time in seconds.
pub type Outcome = (Result<ExperimentOutput, String>, f64);

pub fn reproduce(
    ids: &[String],
    opts: &RunOpts,
    jobs: Option<usize>,
    out: &Path,
    json: bool,
    readme: Option<&Path>,
) -> Result<String> {
    if let Some(j) = jobs {
        crate::limits::count("--jobs", j as u64, crate::limits::MAX_JOBS)?;
    }
    let exps = select(ids).map_err(|e| anyhow!(e))?;
    check_options(&exps, opts).map_err(|e| anyhow!(e))?;
    // The README is read and its block's markers checked before the run, not after.
    if let Some(path) = readme {
        readme_text(path)?;
    }
    // So is the report's folder: made now (with its parents, as before), so that a
    // place it cannot be written fails in the first second, not after the run.
    if crate::outputs::is_stdout(out) {
        bail!("--out -: the report is a folder of files, not one stream; give a folder (`./-` for one of that name)");
    }
    if out.exists() && !out.is_dir() {
        bail!(
            "--out {}: is a file; give a folder for the report",
            out.display()
        );
    }
    std::fs::create_dir_all(out)
        .with_context(|| format!("--out {}: cannot make the report's folder", out.display()))?;
    let jobs = jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .min(exps.len())
        .max(1);
    let show = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
    let bar = show.then(|| {
        let b = ProgressBar::new(exps.len() as u64);
        b.set_style(
            ProgressStyle::with_template(
                "{msg:>16} [{bar:30}] {pos}/{len} experiments ({elapsed})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        b
    });
    let started = Instant::now();
    let outcomes = run_all(&exps, opts, jobs, &|id| {
        if let Some(b) = &bar {
            b.set_message(id);
            b.inc(1);
        }
        true
    });
    let wall = started.elapsed().as_secs_f64();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    // Registry order, whatever order they finished in: the report does not depend on
    // --jobs.
    let mut outputs = Vec::new();
    let mut timings = Vec::new();
    for (e, (result, secs)) in exps.iter().zip(outcomes) {
        outputs.push(result.map_err(|err| anyhow!("{}: {err}", e.id))?);
        timings.push((e.id, secs));
    }
    spindle::report::write_report(out, &outputs)
        .with_context(|| format!("cannot write the report to {}", out.display()))?;
    let cov = spindle::report::report_coverage(&outputs);
    if let Some(path) = readme {
        update_readme(path, &cov, &outputs, &exps, opts)?;
    }
    if json {
        return Ok(spindle::report::summary_json(&outputs) + "\n");
    }
    let checks: Vec<_> = outputs
        .iter()
        .flat_map(|o| o.checks.iter().cloned())
        .collect();
    let mut s = format!(
        "{} experiment(s), seed {}{}{}{}; report in {}/index.html\n",
        outputs.len(),
        opts.seed,
        if opts.quick { ", quick mode" } else { "" },
        if opts.full_scale { ", full scale" } else { "" },
        if opts.durability == Durability::default() {
            String::new()
        } else {
            format!(", durability {}", opts.durability.name())
        },
        out.display()
    );
    for (id, secs) in &timings {
        s += &format!("  {id:<16} {secs:6.1} s\n");
    }
    s += &format!("  {:<16} {wall:6.1} s wall, {jobs} at once\n", "total");
    s.push('\n');
    s += &checks_table(&checks);
    s.push('\n');
    s += &spindle::report::summary_text(&cov);
    Ok(s)
}

/// Rewrites the summary block of the README at `path` with this run's coverage, and its
/// highlights block (when it has one) with this run's checks of the experiments it
/// shows, if the run included them all.
/// The README `--readme` names, within its size limit and with its block's markers.
fn readme_text(path: &Path) -> Result<String> {
    let text = crate::limits::read_text(path, crate::limits::MAX_README_BYTES)?;
    spindle::report::replace_readme_block(&text, "")
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok(text)
}

fn update_readme(
    path: &Path,
    cov: &spindle::report::Coverage,
    outputs: &[spindle::report::ExperimentOutput],
    exps: &[Experiment],
    opts: &RunOpts,
) -> Result<()> {
    let text = readme_text(path)?;
    let ids: Vec<&str> = exps.iter().map(|e| e.id).collect();
    let all = spindle::experiments::registry::registry().len() == exps.len();
    let run = format!(
        "From `spindle reproduce {}{}{}{} --seed {}`, {} experiment{}.",
        if all {
            "all".to_string()
        } else {
            ids.join(" ")
        },
        if opts.quick { " --quick" } else { "" },
        if opts.full_scale { " --full-scale" } else { "" },
        if opts.durability == Durability::default() {
            String::new()
        } else {
            format!(" --durability {}", opts.durability.name())
        },
        opts.seed,
        exps.len(),
        if exps.len() == 1 { "" } else { "s" }
    );
    let block = spindle::report::summary_markdown(cov, &run);
    let mut new = spindle::report::replace_readme_block(&text, &block)
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let checks: Vec<_> = outputs
        .iter()
        .flat_map(|o| o.checks.iter().cloned())
        .collect();
    let ran_all_shown = spindle::report::summary::HIGHLIGHT_IDS
        .iter()
        .all(|id| checks.iter().any(|c| c.id == *id));
    if ran_all_shown && new.contains(spindle::report::summary::HIGHLIGHTS_BEGIN) {
        let block = spindle::report::highlights_markdown(&checks, &run);
        new = spindle::report::replace_highlights_block(&new, &block)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    }
    std::fs::write(path, new).with_context(|| format!("cannot write {}", path.display()))
}

/// Runs every experiment on `jobs` threads, each taking the next one not yet started;
/// `finished` is told each one's id as it ends (a progress bar) and answers whether to
/// go on (if not, no further experiment starts). Returns the outcomes in the order of
/// `exps`; one never started is an error.
pub fn run_all(
    exps: &[Experiment],
    opts: &RunOpts,
    jobs: usize,
    finished: &(dyn Fn(&'static str) -> bool + Sync),
) -> Vec<Outcome> {
    let watch = spindle::interrupt::Watch::start();
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Outcome>>> = exps.iter().map(|_| Mutex::new(None)).collect();
    let go_on = AtomicBool::new(true);
    let work = || loop {
        if !go_on.load(Ordering::Relaxed) {
            break;
        }
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(e) = exps.get(i) else { break };
        let t = Instant::now();
        // Asked to stop (Python's Ctrl-C): the experiments not yet begun are not run.
        let result = watch.check().and_then(|()| (e.run)(opts));
        let secs = t.elapsed().as_secs_f64();
        if let Ok(mut slot) = slots[i].lock() {
            *slot = Some((result, secs));
        }
        if !finished(e.id) {
            go_on.store(false, Ordering::Relaxed);
        }
    };
    std::thread::scope(|scope| {
        let mut started = 0;
        for _ in 0..jobs {
            // Experiments were written for the main thread's stack; give workers as much.
            let worker = std::thread::Builder::new().stack_size(WORKER_STACK);
            if worker.spawn_scoped(scope, work).is_ok() {
                started += 1;
            }
        }
        // No thread could start: run them here.
        if started == 0 {
            work();
        }
    });
    let why = if go_on.load(Ordering::Relaxed) {
        "did not finish (its thread panicked)"
    } else {
        "was not started (the run was stopped)"
    };
    slots
        .into_iter()
        .zip(exps)
        .map(|(slot, e)| {
            slot.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| (Err(format!("{} {why}", e.id)), 0.0))
        })
        .collect()
}
