//! `spindle reproduce`: run registered experiments and write the report.

use crate::experiments::checks_table;
use anyhow::{anyhow, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use spindle::experiments::registry::{select, RunOpts};
use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

pub fn reproduce(
    ids: &[String],
    quick: bool,
    full_scale: bool,
    out: &Path,
    seed: u64,
    json: bool,
) -> Result<String> {
    let exps = select(ids).map_err(|e| anyhow!(e))?;
    let opts = RunOpts {
        quick,
        seed,
        full_scale,
    };
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
    let mut outputs = Vec::new();
    let mut timings = Vec::new();
    for e in &exps {
        if let Some(b) = &bar {
            b.set_message(e.id);
        }
        let t = Instant::now();
        let o = (e.run)(&opts).map_err(|err| anyhow!("{}: {err}", e.id))?;
        timings.push((e.id, t.elapsed().as_secs_f64()));
        outputs.push(o);
        if let Some(b) = &bar {
            b.inc(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    spindle::report::write_report(out, &outputs)
        .with_context(|| format!("cannot write the report to {}", out.display()))?;
    if json {
        return Ok(spindle::report::summary_json(&outputs) + "\n");
    }
    let checks: Vec<_> = outputs
        .iter()
        .flat_map(|o| o.checks.iter().cloned())
        .collect();
    let mut s = format!(
        "{} experiment(s), seed {seed}{}{}; report in {}/index.html\n",
        outputs.len(),
        if quick { ", quick mode" } else { "" },
        if full_scale { ", full scale" } else { "" },
        out.display()
    );
    for (id, secs) in &timings {
        s += &format!("  {id:<16} {secs:6.1} s\n");
    }
    s.push('\n');
    s += &checks_table(&checks);
    Ok(s)
}
