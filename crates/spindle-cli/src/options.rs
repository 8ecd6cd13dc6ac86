//! A run's options given as name–value pairs, the way Python keywords and sweep grids
//! give them: each pair becomes the `spindle run` flag of that name, and the CLI's own
//! parser reads them, so every front accepts the same options with the same errors.

use crate::run::StackArgs;
use anyhow::{anyhow, Result};
use spindle::config::RunConfig;
use spindle::sched::SchedulerKind;

/// Most pairs one run takes (a `layer` list counts once per layer).
pub const MAX_PAIRS: usize = 256;

// `spindle run`'s stack flags and its host scheduler. (A plain comment, as on
// `StackArgs`: a doc comment would replace the subcommand's help text.)
#[derive(clap::Args, Clone, Debug, Default)]
pub struct StackOptions {
    #[command(flatten)]
    pub stack: StackArgs,
    /// Host scheduler: fcfs, sstf, look, clook, greedy (the shortest time to the media
    /// from the simulator's exact prediction: command overhead, seek, rotation), smtf or smtf-<mean|median|max|min|prob> (the
    /// Disk Mimic, probed first), online-set:<sstf|clook>, online-priority:<sstf|clook>
    /// or freeblock [default: the config's, else sstf]
    #[arg(long, value_name = "NAME")]
    pub scheduler: Option<String>,
}

impl StackOptions {
    /// The scheduler named, if one was.
    pub fn scheduler_kind(&self) -> Result<Option<SchedulerKind>> {
        self.scheduler
            .as_deref()
            .map(|s| s.trim().parse().map_err(|e: String| anyhow!(e)))
            .transpose()
    }

    /// The run configuration these options describe (see `StackArgs::config`).
    pub fn config(&self) -> Result<RunConfig> {
        let mut c = self.stack.config()?;
        if let Some(s) = self.scheduler_kind()? {
            crate::run::check_scheduled(&c, "--scheduler")?;
            c.scheduler.kind = s;
        }
        crate::run::check_mimic_flags(&self.stack, &c, &[c.scheduler.kind])?;
        Ok(c)
    }
}

#[derive(clap::Parser)]
#[command(name = "spindle run", no_binary_name = true)]
struct Parsed {
    #[command(flatten)]
    options: StackOptions,
}

/// The flag a pair's name stands for: `queue_depth` and `queue-depth` are `--queue-depth`.
pub fn flag_name(name: &str) -> String {
    format!("--{}", name.trim_start_matches('-').replace('_', "-"))
}

/// Whether the `spindle run` option `name` (`layer`, `queue_depth`) is a repeatable
/// flag (each use adds a value, as `--layer`); `None` if there is no such option.
/// Read from the parser itself, so a flag made repeatable later takes lists at once.
pub fn takes_list(name: &str) -> Option<bool> {
    let flag = flag_name(name);
    let cmd = <Parsed as clap::CommandFactory>::command();
    let arg = cmd
        .get_arguments()
        .find(|a| a.get_long().is_some_and(|l| flag[2..] == *l))?;
    Some(matches!(arg.get_action(), clap::ArgAction::Append))
}

/// Parses pairs (name, value) as `spindle run` flags; a pair without a value is a
/// switch (`--spread`). Errors are the CLI's own, naming the flag and what it expects.
pub fn from_pairs<I>(pairs: I) -> Result<StackOptions>
where
    I: IntoIterator<Item = (String, Option<String>)>,
{
    parse_pairs::<Parsed, _>(pairs, "run").map(|p| p.options)
}

/// Parses pairs (name, value) as the flags of the command parser `P` (at most
/// [`MAX_PAIRS`] of them, each `per` whatever one call runs), with the CLI's errors.
pub fn parse_pairs<P: clap::Parser, I>(pairs: I, per: &str) -> Result<P>
where
    I: IntoIterator<Item = (String, Option<String>)>,
{
    let mut argv = Vec::new();
    for (i, (name, value)) in pairs.into_iter().enumerate() {
        if i >= MAX_PAIRS {
            return Err(anyhow!("at most {MAX_PAIRS} options per {per}"));
        }
        // `--flag=value`: a value that starts with '-' (`seed = -1`) stays a value.
        argv.push(match value {
            Some(v) => format!("{}={v}", flag_name(&name)),
            None => flag_name(&name),
        });
    }
    P::try_parse_from(argv).map_err(|e| {
        use clap::error::ErrorKind;
        // Options are not a command line: no usage text, and asking for help is not one.
        if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
            return anyhow!("`help` and `version` are not options of a {per}");
        }
        // The message and any tip (a similar option's name), without the usage lines.
        let text = e.render().to_string();
        let kept: Vec<&str> = text
            .split("\n\n")
            .map(str::trim)
            .filter(|p| !p.starts_with("Usage:") && !p.starts_with("For more information"))
            .collect();
        let kept = kept.join("; ");
        anyhow!("{}", kept.strip_prefix("error: ").unwrap_or(&kept))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(k: &str, v: &str) -> (String, Option<String>) {
        (k.into(), Some(v.into()))
    }

    #[test]
    fn a_value_starting_with_a_dash_is_named_as_the_flags_value() {
        let e = from_pairs([pair("seed", "-1")]).err().unwrap().to_string();
        assert!(e.contains("invalid value '-1' for '--seed"), "{e}");
    }

    #[test]
    fn keywords_become_the_cli_flags() {
        let o = from_pairs([
            pair("synthetic", "open"),
            pair("queue_depth", "4"),
            pair("scheduler", "sstf"),
            ("spread".into(), None),
        ])
        .unwrap();
        assert_eq!(o.stack.queue_depth, Some(4));
        assert!(o.stack.spread);
        assert_eq!(o.scheduler_kind().unwrap(), Some(SchedulerKind::Sstf));
        assert_eq!(o.config().unwrap().scheduler.queue_depth, 4);
    }

    #[test]
    fn bad_values_and_unknown_names_are_the_cli_errors() {
        let e = from_pairs([pair("queue_depth", "many")]).unwrap_err();
        assert!(e.to_string().contains("--queue-depth"), "{e}");
        let e = from_pairs([pair("no_such_option", "1")]).unwrap_err();
        assert!(e.to_string().contains("--no-such-option"), "{e}");
        // Clap's usage lines are for a command line, which options are not; its tips stay.
        let e = from_pairs([pair("queue_dpth", "1")])
            .unwrap_err()
            .to_string();
        assert!(!e.contains("Usage") && !e.starts_with("error:"), "{e}");
        assert!(
            e.contains("tip: a similar argument exists: '--queue-depth'"),
            "{e}"
        );
        let e = from_pairs([("help".into(), None)]).unwrap_err().to_string();
        assert!(
            e.contains("`help` and `version` are not options of a run"),
            "{e}"
        );
        let e = from_pairs([pair("scheduler", "fastest")]).unwrap();
        assert!(e.config().is_err());
    }

    #[test]
    fn the_parser_says_which_flags_repeat() {
        assert_eq!(takes_list("layer"), Some(true));
        assert_eq!(takes_list("--layer"), Some(true));
        assert_eq!(takes_list("queue_depth"), Some(false));
        assert_eq!(takes_list("spread"), Some(false));
        assert_eq!(takes_list("no_such_option"), None);
    }
}
