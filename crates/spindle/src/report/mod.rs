//! Experiment reports: a self-contained HTML page with inline SVG plots, per-experiment
//! CSV files, standalone SVG files and a machine-readable `summary.json` of all checks.
//!
//! Everything here is deterministic: the same [`ExperimentOutput`]s give byte-identical
//! files (no timestamps, no hash-map iteration).

pub mod catalog;
mod check;
pub mod coverage;
mod format;
mod html;
mod no_paper;
pub mod summary;
mod svg;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use serde::Serialize;

pub use check::{Check, CheckKind};
pub use coverage::{Coverage, Status};
pub use summary::{
    highlights_markdown, replace_highlights_block, replace_readme_block, summary_markdown,
    summary_text,
};
pub use svg::svg_plot;

/// One named data series of a plot.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// How a plot draws its series.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub enum PlotKind {
    /// Points joined by straight lines, in the order given.
    Line,
    /// A step function (for CDFs): each value holds until the next point's x.
    Step,
    /// Unconnected markers (scatter).
    Points,
    /// Grouped bars: x is the group index, one bar per series in each group.
    Bars,
}

/// A 2-D chart.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Plot {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub kind: PlotKind,
    pub series: Vec<Series>,
    /// Logarithmic x axis (ignored for [`PlotKind::Bars`]; x <= 0 points are dropped).
    pub log_x: bool,
    /// The paper's values for the same axes, drawn in black with dashed lines and hollow
    /// markers and named in the legend. For [`PlotKind::Bars`], `paper[i]` is drawn as
    /// markers over the bars of `series[i]`.
    pub paper: Vec<Series>,
    /// Names of the x categories: when not empty, x values are indices into it and the
    /// x axis is labelled with the names (for bars: the groups).
    pub x_categories: Vec<String>,
}

/// A plain table of already formatted cells.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table with these column headings.
    pub fn new(columns: &[&str]) -> Table {
        Table {
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
        }
    }
}

/// Everything one experiment contributes to the report.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ExperimentOutput {
    /// Catalog id, e.g. "PROX-T1".
    pub id: String,
    pub title: String,
    /// What it is, the setup and the decisions: plain-text paragraphs separated by blank
    /// lines.
    pub description: String,
    pub seed: u64,
    pub checks: Vec<Check>,
    pub plots: Vec<Plot>,
    pub tables: Vec<Table>,
    /// The experiment's data as CSV (header + rows).
    pub csv: String,
}

impl ExperimentOutput {
    /// An output with no checks, plots, tables or data yet.
    pub fn new(
        id: &str,
        title: &str,
        description: impl Into<String>,
        seed: u64,
    ) -> ExperimentOutput {
        ExperimentOutput {
            id: id.into(),
            title: title.into(),
            description: description.into(),
            seed,
            checks: Vec::new(),
            plots: Vec::new(),
            tables: Vec::new(),
            csv: String::new(),
        }
    }
}

/// The catalog coverage of `outputs` (section anchors as in the written report).
pub fn report_coverage(outputs: &[ExperimentOutput]) -> Coverage {
    coverage::coverage(outputs, &file_stems(outputs))
}

/// Pretty JSON: the headline counts, the coverage of every catalog id, the missed checks
/// and `checks`, every check flattened over the experiments in order (keys `id`,
/// `metric`, `paper`, `ours`, `tolerance`, `pass`, `kind`, and `why` / `reference` when
/// set).
pub fn summary_json(outputs: &[ExperimentOutput]) -> String {
    summary::summary_json(outputs, &report_coverage(outputs))
}

/// Writes the report into `dir` (created if needed):
///
/// - `index.html`: a standalone page with a summary, a table of contents and, per
///   experiment, its description, inline plots, tables, checks and a link to its CSV;
/// - `ID.csv`: each experiment's data;
/// - `ID-k.svg`: each experiment's k-th plot (k from 1), as a standalone SVG file;
/// - `summary.json`: [`summary_json`].
///
/// `ID` is the experiment id with characters outside `[A-Za-z0-9._-]` replaced by `_`
/// (and `-2`, `-3`, ... appended should two experiments end up with the same name).
pub fn write_report(dir: &Path, outputs: &[ExperimentOutput]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    let stems = file_stems(outputs);
    let mut plots: Vec<Vec<String>> = Vec::with_capacity(outputs.len());
    for (out, stem) in outputs.iter().zip(&stems) {
        fs::write(dir.join(format!("{stem}.csv")), data_csv(out))?;
        let mut svgs = Vec::with_capacity(out.plots.len());
        for (k, plot) in out.plots.iter().enumerate() {
            let svg = svg_plot(plot);
            fs::write(dir.join(format!("{stem}-{}.svg", k + 1)), &svg)?;
            svgs.push(svg);
        }
        plots.push(svgs);
    }
    let cov = coverage::coverage(outputs, &stems);
    fs::write(
        dir.join("index.html"),
        html::index_html(outputs, &stems, &plots, &cov),
    )?;
    fs::write(
        dir.join("summary.json"),
        summary::summary_json(outputs, &cov),
    )?;
    Ok(())
}

/// `v` as one CSV field: quoted (quotes doubled) where it holds a comma, a quote or a
/// line break.
pub fn csv_field(v: &str) -> std::borrow::Cow<'_, str> {
    if v.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", v.replace('"', "\"\"")).into()
    } else {
        v.into()
    }
}

/// An experiment's CSV: its own data, or, for an experiment that keeps none of its
/// own, its first table (else its checks), so that no linked CSV is empty.
fn data_csv(out: &ExperimentOutput) -> String {
    fn line(cells: &[String]) -> String {
        let mut l = cells
            .iter()
            .map(|c| csv_field(c))
            .collect::<Vec<_>>()
            .join(",");
        l.push('\n');
        l
    }
    if !out.csv.is_empty() {
        return out.csv.clone();
    }
    let checks;
    let table = match out.tables.first() {
        Some(t) => t,
        None => {
            checks = Table {
                columns: ["id", "metric", "paper", "ours", "tolerance", "pass"]
                    .map(String::from)
                    .to_vec(),
                rows: out
                    .checks
                    .iter()
                    .map(|c| {
                        vec![
                            c.id.clone(),
                            c.metric.clone(),
                            c.paper.to_string(),
                            c.ours.to_string(),
                            c.tolerance.clone(),
                            c.pass.to_string(),
                        ]
                    })
                    .collect(),
            };
            &checks
        }
    };
    std::iter::once(line(&table.columns))
        .chain(table.rows.iter().map(|r| line(r)))
        .collect()
}

/// `id` made safe for a file name: characters outside `[A-Za-z0-9._-]` become `_`.
pub fn file_stem(id: &str) -> String {
    let s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "experiment".to_string()
    } else {
        s
    }
}

/// Unique file stems, one per output, in order.
fn file_stems(outputs: &[ExperimentOutput]) -> Vec<String> {
    let mut used = BTreeSet::new();
    outputs
        .iter()
        .map(|o| {
            let base = file_stem(&o.id);
            let mut stem = base.clone();
            let mut n = 2;
            while !used.insert(stem.to_ascii_lowercase()) {
                stem = format!("{base}-{n}");
                n += 1;
            }
            stem
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_are_safe_and_unique() {
        assert_eq!(file_stem("PROX-T1"), "PROX-T1");
        assert_eq!(file_stem("a/b c<>.x"), "a_b_c__.x");
        assert_eq!(file_stem(""), "experiment");
        let mk = |id: &str| ExperimentOutput {
            id: id.into(),
            title: String::new(),
            description: String::new(),
            seed: 0,
            checks: vec![],
            plots: vec![],
            tables: vec![],
            csv: String::new(),
        };
        let outs = [mk("a b"), mk("a_b"), mk("a/b")];
        assert_eq!(file_stems(&outs), ["a_b", "a_b-2", "a_b-3"]);
    }

    #[test]
    fn an_experiment_without_data_of_its_own_gets_its_table_or_checks_as_csv() {
        let mut out = ExperimentOutput::new("X", "x", String::new(), 1);
        out.checks.push(Check::range("X", "a, b", 1.0, 2.0, 1.5));
        let csv = data_csv(&out);
        assert!(
            csv.starts_with("id,metric,paper,ours,tolerance,pass\nX,\"a, b\","),
            "{csv}"
        );
        assert!(csv.ends_with(",1.5,\"[1, 2]\",true\n"), "{csv}");
        let mut t = Table::new(&["what", "value"]);
        t.rows.push(vec!["say \"hi\"".into(), "2".into()]);
        out.tables.push(t);
        assert_eq!(data_csv(&out), "what,value\n\"say \"\"hi\"\"\",2\n");
        out.csv = "own\n".into();
        assert_eq!(data_csv(&out), "own\n");
    }
}
