//! The report's `index.html`: one self-contained page (embedded CSS, inline SVG).

use std::fmt::Write;

use super::coverage::{Coverage, Status};
use super::format::{escape, fmt_value, looks_numeric};
use super::{Check, ExperimentOutput, Table};

const CSS: &str = r#"
:root { color-scheme: light; }
body { margin: 0; background: #f6f7f9; color: #1d2433;
  font: 15px/1.55 "DejaVu Sans", "Segoe UI", "Helvetica Neue", Arial, sans-serif; }
main { max-width: 980px; margin: 0 auto; padding: 24px 32px 48px; background: #ffffff;
  min-height: 100vh; box-sizing: border-box; }
h1 { font-size: 28px; margin: 8px 0 4px; }
h2 { font-size: 21px; margin: 0 0 8px; padding-bottom: 4px; border-bottom: 2px solid #e3e6ec; }
h3 { font-size: 16px; margin: 22px 0 8px; }
a { color: #1f5fbf; }
code, .id { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.headline { font-size: 19px; margin: 6px 0 8px; }
.headline strong { padding: 2px 8px; border-radius: 4px; background: #dcf5e3; color: #11632c; }
p.bad { color: #a11a1a; font-weight: 600; }
table.compact { font-size: 13px; margin-top: 4px; }
td.id { white-space: nowrap; }
table.compact th, table.compact td { padding: 1px 8px; }
.top h2 { font-size: 18px; margin-top: 14px; }
h2 + .scroll, p + .scroll { margin-top: 4px; }
nav { background: #f3f5f8; border: 1px solid #e0e4ea; border-radius: 6px; padding: 10px 18px; }
nav h2 { border: 0; font-size: 16px; margin: 0 0 4px; padding: 0; }
nav ol { margin: 0; padding-left: 22px; }
nav li { margin: 2px 0; }
.badge { font-size: 12px; padding: 1px 7px; border-radius: 9px; margin-left: 6px; white-space: nowrap; }
.badge.ok { background: #dcf5e3; color: #11632c; }
.badge.bad { background: #fde4e4; color: #a11a1a; }
.badge.none { background: #eceff3; color: #5a6272; }
section { margin-top: 36px; }
.meta { color: #5a6272; font-size: 13px; margin: 0 0 10px; }
figure { margin: 16px 0; text-align: center; }
figure svg { max-width: 100%; height: auto; border: 1px solid #e3e6ec; border-radius: 4px; }
figcaption { font-size: 12px; color: #5a6272; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 14px; }
th, td { border: 1px solid #c9ced8; padding: 4px 10px; vertical-align: top; }
th { background: #eef1f5; text-align: left; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tbody tr:nth-child(even) td { background: #fafbfc; }
table.checks tr.pass td.result { background: #dcf5e3; color: #11632c; font-weight: 700; }
table.checks tr.miss td { background: #fff3f3; }
table.checks tr.miss td.result { background: #f8d4d4; color: #a11a1a; font-weight: 700; }
.muted { color: #5a6272; }
td.num .note { display: block; white-space: normal; font-size: 12px; color: #5a6272;
  text-align: left; min-width: 10em; max-width: 18em; }
td.wrap { white-space: normal; overflow-wrap: anywhere; }
"#;

/// The whole page. `stems[i]` is the file stem of `outputs[i]`, `plots[i]` its SVGs.
pub(crate) fn index_html(
    outputs: &[ExperimentOutput],
    stems: &[String],
    plots: &[Vec<String>],
    cov: &Coverage,
) -> String {
    let mut h = String::with_capacity(64 * 1024);
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    h.push_str("<title>spindle: which of the papers' results it reproduces</title>\n<style>");
    h.push_str(CSS);
    h.push_str("</style>\n</head>\n<body>\n<main>\n");
    h.push_str(
        "<h1>spindle: which of the papers' results it reproduces</h1>\n<div class=\"top\">\n",
    );
    let plots_total: usize = outputs.iter().map(|o| o.plots.len()).sum();
    let with_paper: usize = outputs
        .iter()
        .flat_map(|o| &o.plots)
        .filter(|p| !p.paper.is_empty())
        .count();
    let plot_note = format!(
        "<p class=\"meta\">{with_paper} of {plots_total} plots draw the paper's values (in black, \
         dashed, hollow markers, named in the legend); the other {} are \
         <a href=\"#no-paper-values\">listed with why</a>.</p>",
        plots_total - with_paper
    );
    summary_top(&mut h, cov, &plot_note);
    h.push_str("</div>\n");

    // Table of contents.
    h.push_str("<nav>\n<h2>Contents</h2>\n<ol>\n");
    h.push_str("<li><a href=\"#coverage\">Coverage of every catalog id</a></li>\n");
    for (out, stem) in outputs.iter().zip(stems) {
        let _ = writeln!(
            h,
            "<li><a href=\"#{}\"><span class=\"id\">{}</span> — {}</a>{}</li>",
            escape(stem),
            escape(&out.id),
            escape(&out.title),
            badge(out)
        );
    }
    h.push_str("<li><a href=\"#consistency\">Consistency checks</a></li>\n");
    h.push_str("<li><a href=\"#no-paper-values\">Plots without the paper's values</a></li>\n");
    h.push_str("</ol>\n</nav>\n");

    coverage_table(&mut h, cov);
    for ((out, stem), svgs) in outputs.iter().zip(stems).zip(plots) {
        experiment(&mut h, out, stem, svgs);
    }
    consistency_section(&mut h, outputs, stems);
    no_paper_section(&mut h, outputs, stems);
    h.push_str("</main>\n</body>\n</html>\n");
    h
}

/// The first screen: the answer, every missed check, coverage by document.
fn summary_top(h: &mut String, cov: &Coverage, plot_note: &str) {
    let c = &cov.counts;
    let _ = writeln!(
        h,
        "<p class=\"headline\"><strong>{} of {} catalog ids reproduced</strong>, {} partly, {} missed, \
         {} not yet implemented, {} not reproducible here <span class=\"muted\">({} with \
         consistency checks only, {} non-quantitative diagrams, {} algorithm descriptions)</span></p>",
        c.reproduced,
        c.ids,
        c.partly,
        c.missed,
        c.not_implemented,
        c.not_reproducible,
        c.consistency_only,
        c.non_quantitative,
        c.description
    );
    let k = &cov.checks;
    let _ = writeln!(
        h,
        "<p class=\"meta\">{} of {} reproduction checks pass. {} consistency checks ({} pass) are \
         listed <a href=\"#consistency\">apart</a> and never counted as reproductions. {} of {} \
         checks against DiskSim's real-drive measurements ({}) pass; they are not in the catalog.</p>",
        k.reproduction_passed,
        k.reproduction,
        k.consistency,
        k.consistency_passed,
        k.outside_catalog_passed,
        k.outside_catalog,
        escape(&cov.outside_catalog_ids.join(", "))
    );
    h.push_str(
        "<p class=\"meta\">A <em>reproduction check</em> compares a number our simulation \
         produced with the paper's number. An id is reproduced when all of its reproduction checks \
         pass, partly reproduced when some do, missed when none does. <em>Consistency checks</em> \
         (arithmetic, inputs read back, the paper's formulas on the paper's own inputs, structural \
         counts, looser duplicates) cannot fail on a wrong simulation, so they do not count. The \
         catalog lists 115 ids: every table, figure and formula of the five source documents.</p>\n",
    );

    let _ = writeln!(h, "{plot_note}");
    let _ = writeln!(h, "<h2>Missed checks ({})</h2>", cov.missed.len());
    if cov.missed.is_empty() {
        h.push_str("<p>None.</p>\n");
    } else {
        h.push_str(
            "<div class=\"scroll\"><table class=\"checks compact\">\n<thead><tr><th>Id</th><th>Metric</th>\
             <th>Paper</th><th>Ours</th><th>Tolerance</th><th>Section</th></tr></thead>\n<tbody>\n",
        );
        for m in &cov.missed {
            let _ = writeln!(
                h,
                "<tr class=\"miss\"><td class=\"id\">{}</td><td>{}</td>{}<td class=\"num\">{}</td>\
                 <td class=\"id\"><a href=\"#{s}\">{s}</a></td></tr>",
                escape(&m.check.id),
                escape(&m.check.metric),
                value_cells(&m.check),
                escape(&m.check.tolerance),
                s = escape(&m.section)
            );
        }
        h.push_str("</tbody>\n</table></div>\n");
    }
    if !cov.failed_consistency.is_empty() {
        let _ = writeln!(
            h,
            "<p class=\"bad\">{} consistency check(s) fail; see <a href=\"#consistency\">Consistency checks</a>.</p>",
            cov.failed_consistency.len()
        );
    }

    h.push_str("<h2>Coverage by document</h2>\n<div class=\"scroll\"><table class=\"compact\">\n<thead><tr><th>Document</th><th>Ids</th>");
    for s in Status::ALL {
        let _ = write!(h, "<th>{}</th>", escape(s.label()));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for (d, c) in cov
        .by_document
        .iter()
        .map(|(d, c)| (d.as_str(), c))
        .chain(std::iter::once(("All", &cov.counts)))
    {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"num\">{}</td>",
            escape(d),
            c.ids
        );
        for s in Status::ALL {
            let _ = write!(h, "<td class=\"num\">{}</td>", c.get(s));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table></div>\n");
}

/// Every catalog id with its status.
fn coverage_table(h: &mut String, cov: &Coverage) {
    let _ = writeln!(
        h,
        "<section id=\"coverage\">\n<h2>Coverage of every catalog id ({})</h2>",
        cov.ids.len()
    );
    h.push_str(
        "<div class=\"scroll\"><table class=\"coverage\">\n<thead><tr><th>Id</th><th>What</th><th>Status</th>\
         <th>Reproduction checks passed</th><th>Consistency checks</th><th>Section</th></tr></thead>\n<tbody>\n",
    );
    for e in &cov.ids {
        let class = match e.status {
            Status::Reproduced => "ok",
            Status::Partly | Status::Missed => "bad",
            _ => "none",
        };
        let checks = if e.reproduction_checks > 0 {
            format!("{} of {}", e.reproduction_passed, e.reproduction_checks)
        } else {
            "—".into()
        };
        let mut links: Vec<String> = e
            .sections
            .iter()
            .map(|s| format!("<a href=\"#{s}\">{s}</a>", s = escape(s)))
            .collect();
        if let Some(why) = super::coverage::not_reproducible(&e.id) {
            links.push(escape(why));
        }
        let _ = writeln!(
            h,
            "<tr><td class=\"id\">{}</td><td>{}</td><td><span class=\"badge {class}\">{}</span></td>\
             <td class=\"num\">{checks}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            escape(&e.id),
            escape(&e.title),
            escape(e.status.label()),
            e.consistency_checks,
            links.join(" ")
        );
    }
    h.push_str("</tbody>\n</table></div>\n</section>\n");
}

/// Every consistency check, with why it is not a reproduction.
fn consistency_section(h: &mut String, outputs: &[ExperimentOutput], stems: &[String]) {
    h.push_str("<section id=\"consistency\">\n<h2>Consistency checks</h2>\n");
    h.push_str(
        "<p>These checks catch regressions, but none of them can show that the simulation \
         reproduces a paper: each says why. They are not counted in the headline.</p>\n",
    );
    h.push_str(
        "<div class=\"scroll\"><table class=\"checks\">\n<thead><tr><th>Id</th><th>Metric</th>\
         <th>Reference</th><th>Ours</th><th>Tolerance</th><th>Result</th><th>Why it is not a reproduction</th>\
         <th>Section</th></tr></thead>\n<tbody>\n",
    );
    for (out, stem) in outputs.iter().zip(stems) {
        for c in out.checks.iter().filter(|c| !c.is_reproduction()) {
            let (class, result) = result_cells(c);
            let _ = writeln!(
                h,
                "<tr class=\"{class}\"><td class=\"id\">{}</td><td>{}</td>{}<td class=\"num\">{}</td>\
                 <td class=\"result\">{result}</td><td>{}</td><td><a href=\"#{s}\">{s}</a></td></tr>",
                escape(&c.id),
                escape(&c.metric),
                value_cells(c),
                escape(&c.tolerance),
                escape(&c.why),
                s = escape(stem)
            );
        }
    }
    h.push_str("</tbody>\n</table></div>\n</section>\n");
}

/// Every plot that draws no values from the paper, and why.
fn no_paper_section(h: &mut String, outputs: &[ExperimentOutput], stems: &[String]) {
    h.push_str("<section id=\"no-paper-values\">\n<h2>Plots without the paper's values</h2>\n");
    h.push_str("<div class=\"scroll\"><table class=\"compact\">\n<thead><tr><th>Plot</th><th>Title</th><th>Why</th></tr></thead>\n<tbody>\n");
    for (out, stem) in outputs.iter().zip(stems) {
        for (k, plot) in out.plots.iter().enumerate() {
            if !plot.paper.is_empty() {
                continue;
            }
            let _ = writeln!(
                h,
                "<tr class=\"no-paper\"><td class=\"id\"><a href=\"#{s}\">{s}-{n}</a></td><td>{}</td><td>{}</td></tr>",
                escape(&plot.title),
                escape(super::no_paper::why(&out.id, k + 1)),
                s = escape(stem),
                n = k + 1
            );
        }
    }
    h.push_str("</tbody>\n</table></div>\n</section>\n");
}

/// The paper and ours cells of a check: "holds" for qualitative claims, the reference's
/// nature when it is not the paper's number.
fn value_cells(c: &Check) -> String {
    if c.tolerance == "holds" {
        let ours = if c.pass { "holds" } else { "does not hold" };
        return format!("<td class=\"num\">holds</td><td class=\"num\">{ours}</td>");
    }
    let paper = if c.reference.is_empty() {
        escape(&fmt_value(c.paper))
    } else {
        format!(
            "{}<span class=\"note\">{}</span>",
            escape(&fmt_value(c.paper)),
            escape(&c.reference)
        )
    };
    format!(
        "<td class=\"num\">{paper}</td><td class=\"num\">{}</td>",
        escape(&fmt_value(c.ours))
    )
}

fn result_cells(c: &Check) -> (&'static str, &'static str) {
    if c.pass {
        ("pass", "✓ pass")
    } else {
        ("miss", "✗ miss")
    }
}

/// "k/m pass" pill for the table of contents (reproduction checks only).
fn badge(out: &ExperimentOutput) -> String {
    let repro: Vec<&Check> = out.checks.iter().filter(|c| c.is_reproduction()).collect();
    let total = repro.len();
    let passed = repro.iter().filter(|c| c.pass).count();
    if total == 0 {
        "<span class=\"badge none\">no reproduction checks</span>".into()
    } else {
        let class = if passed == total { "ok" } else { "bad" };
        format!("<span class=\"badge {class}\">{passed}/{total} reproduced</span>")
    }
}

fn experiment(h: &mut String, out: &ExperimentOutput, stem: &str, svgs: &[String]) {
    let stem_e = escape(stem);
    let _ = writeln!(
        h,
        "<section id=\"{stem_e}\">\n<h2><span class=\"id\">{}</span> — {}</h2>",
        escape(&out.id),
        escape(&out.title)
    );
    let _ = writeln!(
        h,
        "<p class=\"meta\">seed <code>{}</code> · {} · data: <a href=\"{stem_e}.csv\">{stem_e}.csv</a></p>",
        out.seed,
        badge(out)
    );
    for para in paragraphs(&out.description) {
        let _ = writeln!(h, "<p>{}</p>", escape(&para));
    }

    let n = svgs.len();
    for (k, svg) in svgs.iter().enumerate() {
        let file = format!("{stem_e}-{}.svg", k + 1);
        let which = if n > 1 {
            format!(" ({} of {n})", k + 1)
        } else {
            String::new()
        };
        let _ = writeln!(
            h,
            "<figure>\n{}<figcaption>{}{which}: {} (<a href=\"{file}\">{file}</a>)</figcaption>\n</figure>",
            svg,
            escape(&out.id),
            escape(&out.plots[k].title)
        );
    }

    for table in &out.tables {
        write_table(h, table);
    }

    let repro: Vec<&Check> = out.checks.iter().filter(|c| c.is_reproduction()).collect();
    let consistency = out.checks.len() - repro.len();
    h.push_str("<h3>Reproduction checks</h3>\n");
    if repro.is_empty() {
        h.push_str("<p class=\"muted\">None.</p>\n");
    } else {
        // The per-check id is shown only when it adds something beyond the experiment id.
        let show_id = repro.iter().any(|c| c.id != out.id);
        h.push_str("<div class=\"scroll\"><table class=\"checks\">\n<thead><tr>");
        if show_id {
            h.push_str("<th>Check</th>");
        }
        h.push_str(
            "<th>Metric</th><th>Paper</th><th>Ours</th><th>Tolerance</th><th>Result</th></tr></thead>\n<tbody>\n",
        );
        for c in repro {
            let (class, result) = result_cells(c);
            let _ = write!(h, "<tr class=\"{class}\">");
            if show_id {
                let _ = write!(h, "<td class=\"id\">{}</td>", escape(&c.id));
            }
            let _ = writeln!(
                h,
                "<td>{}</td>{}<td class=\"num\">{}</td><td class=\"result\">{result}</td></tr>",
                escape(&c.metric),
                value_cells(c),
                escape(&c.tolerance)
            );
        }
        h.push_str("</tbody>\n</table></div>\n");
    }
    if consistency > 0 {
        let _ = writeln!(
            h,
            "<p class=\"muted\">{consistency} consistency check{} of this experiment {} listed under \
             <a href=\"#consistency\">Consistency checks</a>.</p>",
            if consistency == 1 { "" } else { "s" },
            if consistency == 1 { "is" } else { "are" }
        );
    }
    h.push_str("</section>\n");
}

fn write_table(h: &mut String, table: &Table) {
    h.push_str("<div class=\"scroll\"><table>\n<thead><tr>");
    for c in &table.columns {
        let _ = write!(h, "<th>{}</th>", escape(c));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for row in &table.rows {
        h.push_str("<tr>");
        for cell in row {
            let class = if looks_numeric(cell) {
                " class=\"num\""
            } else {
                ""
            };
            let _ = write!(h, "<td{class}>{}</td>", escape(cell));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table></div>\n");
}

/// Paragraphs of plain text: separated by blank lines, inner line breaks become spaces.
fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() {
            if !cur.is_empty() {
                out.push(cur.join(" "));
                cur.clear();
            }
        } else {
            cur.push(t);
        }
    }
    if !cur.is_empty() {
        out.push(cur.join(" "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_paragraphs() {
        let p = paragraphs("one\ntwo\n\n  \nthree\n");
        assert_eq!(p, ["one two", "three"]);
    }
}
