//! A progress bar for long runs, shown only when stderr is a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar over `total` units; hidden when stderr is not a terminal (or in CI).
    pub fn new(total: u64, label: &str) -> Progress {
        if !std::io::stderr().is_terminal() || std::env::var_os("CI").is_some() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(4));
        bar.set_style(
            ProgressStyle::with_template("{msg:>12} [{bar:40}] {pos}/{len} ({eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_message(label.to_string());
        Progress { bar: Some(bar) }
    }

    /// A running count without a known total (records of a trace read to its end).
    pub fn counter(label: &str) -> Progress {
        Progress {
            bar: spinner("{spinner} {human_pos} {msg} ({per_sec})", label),
        }
    }

    /// A spinner with the time spent, ticking by itself, for a wait without a count
    /// (a trace file's first pass before a run).
    pub fn waiting(label: &str) -> Progress {
        let bar = spinner("{spinner} {msg} ({elapsed})", label);
        if let Some(b) = &bar {
            b.enable_steady_tick(std::time::Duration::from_millis(250));
        }
        Progress { bar }
    }

    /// No bar at all (a sweep's points run without one each).
    pub fn hidden() -> Progress {
        Progress { bar: None }
    }

    /// Moves the bar to `done` now (for few, long units such as a sweep's points).
    pub fn step(&mut self, done: u64) {
        if let Some(b) = &self.bar {
            b.set_position(done);
        }
    }

    pub fn set(&mut self, done: u64) {
        if let Some(b) = &self.bar {
            if done.is_multiple_of(256) {
                b.set_position(done);
            }
        }
    }

    pub fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

/// A bar without a total drawn with `template`; none when stderr is not a terminal (or
/// in CI).
fn spinner(template: &str, label: &str) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() || std::env::var_os("CI").is_some() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_message(label.to_string());
    Some(bar)
}
