//! Output files, checked before any work: never a file the command reads (it would be
//! emptied before it is read), never a folder, and in a folder that exists — so a long
//! run does not end in an error its first second could have given.

use anyhow::{bail, Result};
use std::path::{Path, PathBuf};

/// Whether an output named on the command line is `-`, standard output: rows that
/// stream (`run --requests-csv -`, `trace --csv -`) go there, and the command's summary
/// to standard error instead.
pub fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// Writes `text` to standard error, as a summary whose rows went to standard output:
/// a standard error that cannot be written loses the summary, and is no reason to
/// panic (as `eprint!` would) or to fail a run whose rows were written.
pub fn summary_to_stderr(text: &str) {
    use std::io::Write;
    let mut e = std::io::stderr().lock();
    let _ = e.write_all(text.as_bytes()).and_then(|()| e.flush());
}

/// Whether `e` comes from the reader of standard output going away (`| head`): the
/// command then stops, and that is not its error.
pub fn reader_went_away(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Refuses `out`, given as `flag`, if it names an existing folder, one of `inputs`, or
/// a file in a folder that does not exist.
pub fn check_output(flag: &str, out: &Path, inputs: &[&Path]) -> Result<()> {
    if is_stdout(out) {
        // Said, not written to a file named `-`.
        bail!("{flag} -: this output cannot go to standard output; give a file (`./-` for a file of that name)");
    }
    if out.is_dir() {
        bail!("{flag} {}: is a folder; give a file", out.display());
    }
    if let Some(input) = inputs.iter().find(|i| same_file(i, out)) {
        bail!(
            "{flag} {} is {}, which this command reads: give another file",
            out.display(),
            input.display()
        );
    }
    // A DiskSim parameter file reads others: those it sources, the seek curves it
    // names, and the validation trace beside it.
    for input in inputs {
        // Only a file named as one: a trace, table or device is never imported.
        let Some(arg) = input.to_str().filter(|a| a.ends_with(".parv")) else {
            continue;
        };
        let (_, mut read) =
            spindle::disk::parv::param::files_read_by(|| crate::disks::load_disk(arg));
        read.push(input.with_extension("trace"));
        if let Some(file) = read.iter().find(|f| same_file(f, out)) {
            bail!(
                "{flag} {} is {}, which the parameter file {} reads: give another file",
                out.display(),
                file.display(),
                input.display()
            );
        }
    }
    let folder = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !folder.is_dir() {
        bail!(
            "{flag} {}: the folder {} does not exist",
            out.display(),
            folder.display()
        );
    }
    Ok(())
}

/// Refuses `out` if it exists as anything but a regular file: for outputs written
/// beside the target and renamed over it, which would replace a device (`/dev/null`),
/// a pipe or a symbolic link with a plain file.
pub fn check_replaceable(flag: &str, out: &Path) -> Result<()> {
    match std::fs::symlink_metadata(out) {
        Ok(m) if m.file_type().is_symlink() => bail!(
            "{flag} {}: is a symbolic link, which the finished file would replace; give the file it points to",
            out.display()
        ),
        Ok(m) if !m.is_file() => bail!(
            "{flag} {}: is not a regular file (a device or pipe), which the finished file would replace; give a file",
            out.display()
        ),
        _ => Ok(()),
    }
}

/// Whether `a` and `b` name the same place, whether or not a file is there yet: the
/// same file name in the same existing folder.
pub fn same_place(a: &Path, b: &Path) -> bool {
    if same_file(a, b) {
        return true;
    }
    let folder = |p: &Path| {
        let f = p
            .parent()
            .filter(|f| !f.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::canonicalize(f).ok()
    };
    a.file_name() == b.file_name() && folder(a).is_some() && folder(a) == folder(b)
}

/// The files a run of `c` reads, with `disks` its device tree's drives: its
/// configuration file and its trace ([`workload_inputs`]) and what its stack reads
/// ([`stack_inputs`]). Outputs of the run, or of a sweep of such runs, must be none of
/// them.
pub fn run_inputs(
    c: &spindle::config::RunConfig,
    disks: &[spindle::stack::tree::DiskSpec],
) -> Vec<PathBuf> {
    let mut files = workload_inputs(c);
    for f in stack_inputs(c, disks) {
        if !files.contains(&f) {
            files.push(f);
        }
    }
    files
}

/// The configuration file `c` was read from and the trace file it replays.
pub fn workload_inputs(c: &spindle::config::RunConfig) -> Vec<PathBuf> {
    let traces = c.workload.trace.iter().flat_map(|t| t.specs());
    c.source
        .iter()
        .map(PathBuf::from)
        .chain(traces.filter_map(|s| trace_file(s)).map(Path::to_path_buf))
        .collect()
}

/// The files a stack reads, with `disks` its drives: the Disk Mimic tables of its
/// queues, its journals' miniMimic tables and its drive files (a `.parv` file's own
/// sources are found by [`check_output`]). They do not depend on the workload or seed.
pub fn stack_inputs(
    c: &spindle::config::RunConfig,
    disks: &[spindle::stack::tree::DiskSpec],
) -> Vec<PathBuf> {
    // A drive is a preset or a file, told apart as the loader tells them.
    let drive_file = |name: &str| {
        (crate::disks::is_drive_file(name) || crate::disks::is_parv_path(name))
            .then(|| PathBuf::from(name))
    };
    let queues = std::iter::once(&c.scheduler)
        .chain(c.array_scheduler.as_ref())
        .chain(disks.iter().filter_map(|d| d.scheduler.as_ref()));
    let journals = c.layer.iter().filter_map(|l| match l {
        spindle::layers::LayerSpec::Journal(j) => j.minimimic.as_deref().map(PathBuf::from),
        _ => None,
    });
    let mut files: Vec<PathBuf> = Vec::new();
    let named = queues
        .filter_map(|s| s.mimic_table.clone())
        .chain(journals)
        .chain(disks.iter().filter_map(|d| drive_file(&d.disk)));
    for f in named {
        if !files.contains(&f) {
            files.push(f);
        }
    }
    files
}

/// The file a trace spec (`FORMAT:PATH`, a path, or `sample:NAME`) reads, if any.
pub fn trace_file(spec: &str) -> Option<&Path> {
    if spec.starts_with("sample:") {
        return None;
    }
    Some(spindle::trace::stream::spec_path(spec))
}

/// Whether `a` and `b` name the same existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_that_would_lose_work_are_refused() {
        let dir = std::env::temp_dir().join(format!("spindle-outputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("t.csv");
        std::fs::write(&input, "x").unwrap();
        let e = check_output("--csv", &input, &[&input])
            .unwrap_err()
            .to_string();
        assert!(e.contains("which this command reads"), "{e}");
        let e = check_output("--csv", &dir, &[]).unwrap_err().to_string();
        assert!(e.contains("is a folder"), "{e}");
        let e = check_output("--csv", &dir.join("no/x.csv"), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist"), "{e}");
        check_output("--csv", &dir.join("new.csv"), &[&input]).unwrap();
        check_output("--csv", Path::new("new.csv"), &[]).unwrap();
        let e = check_replaceable("--csv", Path::new("/dev/null"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a regular file"), "{e}");
        check_replaceable("--csv", &input).unwrap();
        check_replaceable("--csv", &dir.join("new.csv")).unwrap();
        assert!(same_place(&dir.join("new.csv"), &dir.join("./new.csv")));
        assert!(!same_place(&dir.join("new.csv"), &dir.join("other.csv")));
        assert_eq!(trace_file("msr:a/b.csv"), Some(Path::new("a/b.csv")));
        assert_eq!(trace_file("sample:hplajw"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
