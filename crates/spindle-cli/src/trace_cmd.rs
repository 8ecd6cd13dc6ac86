//! `spindle trace`: what a trace file holds, and its records as spindle CSV.

use crate::progress::Progress;
use crate::table::{thousands, Align, Table};
use anyhow::{anyhow, Context, Result};
use spindle::trace::compress_out::{CompressedWriter, OutputCompression};
use spindle::trace::merge::open;
use spindle::trace::summary::TraceSummary;
use spindle::trace::{CsvWriter, DeviceNumbering, Format, TraceFiles, TraceStream};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The devices listed in the text output (all of them in JSON).
const TEXT_DEVICES: usize = 20;

/// Reads `files` as a stream (several merged, their devices numbered by `numbering`): its
/// summary (text or JSON), and with `csv` its records written there as spindle CSV in
/// file order (merged order, for several). `device` keeps one trace device; `limit` stops after that many records.
#[allow(clippy::too_many_arguments)]
pub fn trace(
    files: &TraceFiles,
    numbering: Option<DeviceNumbering>,
    format: Option<&str>,
    device: Option<u32>,
    limit: Option<u64>,
    csv: Option<&Path>,
    json: bool,
) -> Result<String> {
    let format = match format {
        Some(f) => Some(
            f.parse::<Format>()
                .map_err(|e: String| anyhow!("--format: {e}"))?,
        ),
        None => None,
    };
    let stream = open(files, format, numbering).map_err(|e| anyhow!("{e}"))?;
    let (file, format) = (stream.name(), stream.format());
    let stream_files = stream.files().to_vec();
    let inputs: Vec<PathBuf> = stream_files.iter().map(PathBuf::from).collect();
    // Content hashes are kept where the format has them.
    let with_md5 = matches!(format, Format::Fiu | Format::SpindleCsv);
    let to_stdout = csv.is_some_and(crate::outputs::is_stdout);
    // A file is written beside the target and renamed there only when the whole trace
    // was read, so an error never leaves a file that looks complete.
    let mut out = match csv {
        Some(_) if to_stdout => {
            let sink = CompressedWriter::new(
                Box::new(std::io::stdout()) as Sink,
                OutputCompression::Plain,
            )
            .context("cannot write standard output")?;
            Some(CsvOut {
                w: CsvWriter::new(sink, with_md5).context("cannot write standard output")?,
                name: "standard output".into(),
                partial: None,
            })
        }
        Some(path) => {
            let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
            crate::outputs::check_output("--csv", path, &inputs)?;
            crate::outputs::check_replaceable("--csv", path)?;
            let mut partial = path.as_os_str().to_owned();
            partial.push(".partial");
            let partial = PathBuf::from(partial);
            let f = std::fs::File::create(&partial)
                .with_context(|| format!("cannot create {}", partial.display()))?;
            // A target named .gz or .zst is written compressed.
            let sink = CompressedWriter::new(Box::new(f) as Sink, OutputCompression::of(path))
                .with_context(|| format!("cannot start compressing {}", partial.display()))?;
            Some(CsvOut {
                w: CsvWriter::new(sink, with_md5)?,
                name: partial.display().to_string(),
                partial: Some((partial, path)),
            })
        }
        None => None,
    };
    let mut summary = TraceSummary::new();
    let mut others: BTreeSet<u32> = BTreeSet::new();
    let read = read_into(stream, device, limit, &mut summary, &mut others, &mut out).and_then(
        |()| match (device, summary.requests) {
            (Some(d), 0) => {
                let listed: Vec<String> = others.iter().map(u32::to_string).collect();
                let more = if others.len() >= MAX_LISTED_DEVICES {
                    ", ..."
                } else {
                    ""
                };
                Err(anyhow!(
                    "{file}: device {d} has no requests (devices seen: {}{more})",
                    listed.join(", ")
                ))
            }
            // As an empty file is refused before its format is known.
            (None, 0) => Err(anyhow!("{file}: the trace holds no requests")),
            _ => Ok(()),
        },
    );
    let partial = out
        .as_ref()
        .and_then(|o| o.partial.as_ref().map(|(p, _)| p.clone()));
    let finished = read.and_then(|()| match out {
        Some(CsvOut { w, name, partial }) => {
            w.finish()
                .and_then(CompressedWriter::finish)
                .with_context(|| format!("cannot write {name}"))?;
            if let Some((partial, path)) = partial {
                std::fs::rename(&partial, path).with_context(|| {
                    format!("cannot rename {} to {}", partial.display(), path.display())
                })?;
            }
            Ok(())
        }
        None => Ok(()),
    });
    if let (Err(_), Some(partial)) = (&finished, &partial) {
        // Nothing half-written is left behind, whatever failed.
        let _ = std::fs::remove_file(partial);
    }
    match finished {
        // The records' reader went away (`| head`): reading stopped there, not an error.
        Err(e) if to_stdout && crate::outputs::reader_went_away(&e) => return Ok(String::new()),
        r => r?,
    }
    if json {
        let v = serde_json::json!({
            "file": file,
            "files": stream_files,
            "format": format.name(),
            "summary": summary,
            "span_s": summary.span_s(),
            "requests_per_s": summary.rate_per_s(),
            "sizes_sectors": summary.sizes(),
        });
        return Ok(summary_to(
            to_stdout,
            serde_json::to_string_pretty(&v)? + "\n",
        ));
    }
    Ok(summary_to(to_stdout, text(&file, format, &summary)))
}

/// Where the records go: a file (written beside its target, `partial`, and renamed
/// there at the end) or standard output.
struct CsvOut<'a> {
    w: CsvWriter<CompressedWriter<Sink>>,
    /// What errors call it.
    name: String,
    /// The file being written and the target it is renamed to.
    partial: Option<(PathBuf, &'a Path)>,
}

/// Where the records' bytes go below any compression.
type Sink = Box<dyn std::io::Write + Send>;

/// The summary, for the caller to print on standard output; or, when the records went
/// there, written to standard error here (the caller then prints nothing).
fn summary_to(records_on_stdout: bool, summary: String) -> String {
    if records_on_stdout {
        crate::outputs::summary_to_stderr(&summary);
        String::new()
    } else {
        summary
    }
}

/// Devices listed when `--device` names none of the trace's.
const MAX_LISTED_DEVICES: usize = 12;

/// The records of `stream` kept by `device` and `limit`, into `summary` and the CSV
/// writer; the devices `--device` passed over into `others` (a few).
fn read_into(
    stream: TraceStream<'_>,
    device: Option<u32>,
    limit: Option<u64>,
    summary: &mut TraceSummary,
    others: &mut BTreeSet<u32>,
    out: &mut Option<CsvOut<'_>>,
) -> Result<()> {
    let mut bar = match limit {
        // No progress bar between records that go to the same terminal.
        _ if out.as_ref().is_some_and(|o| o.partial.is_none())
            && std::io::IsTerminal::is_terminal(&std::io::stdout()) =>
        {
            Progress::hidden()
        }
        Some(n) => Progress::new(n, "records"),
        None => Progress::counter("records"),
    };
    for record in stream {
        if limit.is_some_and(|n| summary.requests >= n) {
            break;
        }
        let r = record.map_err(|e| anyhow!("{e}"))?;
        if device.is_some_and(|d| d != r.device) {
            if others.len() < MAX_LISTED_DEVICES {
                others.insert(r.device);
            }
            continue;
        }
        summary.add(&r);
        bar.set(summary.requests);
        if let Some(CsvOut { w, name, .. }) = out {
            w.write(&r)
                .with_context(|| format!("cannot write {name}"))?;
        }
    }
    bar.finish();
    Ok(())
}

fn text(file: &str, format: Format, s: &TraceSummary) -> String {
    let mut o = String::new();
    let pct = |n: u64| 100.0 * n as f64 / s.requests.max(1) as f64;
    let gb = |sectors: u64| sectors as f64 * 512.0 / 1e9;
    let _ = writeln!(o, "trace      {file} ({format})");
    let _ = writeln!(
        o,
        "requests   {}: {:.1} % reads; {} read, {} written",
        thousands(s.requests),
        pct(s.reads),
        bytes(s.sectors_read),
        bytes(s.sectors_written)
    );
    let order = if s.in_arrival_order {
        "in arrival order"
    } else {
        "not in arrival order (replays sort it; the sequential share and --limit follow \
         the file's order)"
    };
    let rate = if s.span_s() > 0.0 {
        format!("{:.1} requests/s", s.rate_per_s())
    } else {
        "no rate (every request at one time stamp)".to_string()
    };
    let _ = writeln!(
        o,
        "time       {:.3} s from the first request to the last, {rate}; {order}",
        s.span_s(),
    );
    if let Some(q) = s.sizes() {
        let _ = writeln!(
            o,
            "sizes      mean {:.1} sectors; p50 {}, p90 {}, p99 {}, largest {} (sectors of 512 bytes)",
            q.mean, q.p50, q.p90, q.p99, q.max
        );
    }
    let _ = writeln!(
        o,
        "sequential {:.1} % start where their device's previous request ended",
        pct(s.sequential)
    );
    let _ = writeln!(o, "devices    {}\n", thousands(s.devices.len() as u64));
    let mut t = Table::new(&[
        ("device", Align::Right),
        ("requests", Align::Right),
        ("reads", Align::Right),
        ("extent (sectors)", Align::Right),
        ("extent (GB)", Align::Right),
        ("sequential", Align::Right),
    ]);
    let mut busiest: Vec<_> = s.devices.iter().collect();
    busiest.sort_by_key(|(d, x)| (std::cmp::Reverse(x.requests), **d));
    for (d, x) in busiest.iter().take(TEXT_DEVICES) {
        let share = |n: u64| format!("{:.1} %", 100.0 * n as f64 / x.requests.max(1) as f64);
        t.row(vec![
            d.to_string(),
            thousands(x.requests),
            share(x.reads),
            thousands(x.max_end_lbn),
            format!("{:.3}", gb(x.max_end_lbn)),
            share(x.sequential),
        ]);
    }
    o.push_str(&t.render());
    if busiest.len() > TEXT_DEVICES {
        let _ = writeln!(
            o,
            "... and {} more devices (the {TEXT_DEVICES} busiest are shown; --json lists all)",
            thousands((busiest.len() - TEXT_DEVICES) as u64)
        );
    }
    o
}

/// `sectors` of 512 bytes in decimal units (kB, MB, GB, TB).
fn bytes(sectors: u64) -> String {
    let b = sectors as f64 * 512.0;
    match b {
        b if b >= 1e12 => format!("{:.2} TB", b / 1e12),
        b if b >= 1e9 => format!("{:.2} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.2} MB", b / 1e6),
        b => format!("{:.1} kB", b / 1e3),
    }
}
