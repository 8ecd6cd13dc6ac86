//! The report's `index.html`: one self-contained page (embedded CSS, inline SVG).

use std::fmt::Write;

use super::format::{escape, fmt_value, looks_numeric};
use super::{ExperimentOutput, Table};

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
.summary { font-size: 17px; margin: 4px 0 20px; }
.summary strong { padding: 2px 8px; border-radius: 4px; }
.summary.ok strong { background: #dcf5e3; color: #11632c; }
.summary.bad strong { background: #fde4e4; color: #a11a1a; }
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
"#;

/// The whole page. `stems[i]` is the file stem of `outputs[i]`, `plots[i]` its SVGs.
pub(crate) fn index_html(
    outputs: &[ExperimentOutput],
    stems: &[String],
    plots: &[Vec<String>],
) -> String {
    let total: usize = outputs.iter().map(|o| o.checks.len()).sum();
    let passed: usize = outputs
        .iter()
        .map(|o| o.checks.iter().filter(|c| c.pass).count())
        .sum();

    let mut h = String::with_capacity(64 * 1024);
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    h.push_str("<title>spindle experiment report</title>\n<style>");
    h.push_str(CSS);
    h.push_str("</style>\n</head>\n<body>\n<main>\n<h1>spindle experiment report</h1>\n");
    let _ = writeln!(
        h,
        "<p class=\"summary {}\"><strong>{passed} of {total} checks pass</strong> \
         <span class=\"muted\">across {} experiment{}</span></p>",
        if passed == total { "ok" } else { "bad" },
        outputs.len(),
        if outputs.len() == 1 { "" } else { "s" }
    );

    // Table of contents.
    h.push_str("<nav>\n<h2>Contents</h2>\n<ol>\n");
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
    h.push_str("</ol>\n</nav>\n");

    for ((out, stem), svgs) in outputs.iter().zip(stems).zip(plots) {
        experiment(&mut h, out, stem, svgs);
    }
    h.push_str("</main>\n</body>\n</html>\n");
    h
}

/// "k/m pass" pill for the table of contents.
fn badge(out: &ExperimentOutput) -> String {
    let total = out.checks.len();
    let passed = out.checks.iter().filter(|c| c.pass).count();
    if total == 0 {
        "<span class=\"badge none\">no checks</span>".into()
    } else {
        let class = if passed == total { "ok" } else { "bad" };
        format!("<span class=\"badge {class}\">{passed}/{total} pass</span>")
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

    for (k, svg) in svgs.iter().enumerate() {
        let file = format!("{stem_e}-{}.svg", k + 1);
        let _ = writeln!(
            h,
            "<figure>\n{}<figcaption>Figure {}: {} (<a href=\"{file}\">{file}</a>)</figcaption>\n</figure>",
            svg,
            k + 1,
            escape(&out.plots[k].title)
        );
    }

    for table in &out.tables {
        write_table(h, table);
    }

    h.push_str("<h3>Checks</h3>\n");
    if out.checks.is_empty() {
        h.push_str("<p class=\"muted\">No checks.</p>\n");
    } else {
        // The per-check id is shown only when it adds something beyond the experiment id.
        let show_id = out.checks.iter().any(|c| c.id != out.id);
        h.push_str("<div class=\"scroll\"><table class=\"checks\">\n<thead><tr>");
        if show_id {
            h.push_str("<th>Check</th>");
        }
        h.push_str(
            "<th>Metric</th><th>Paper</th><th>Ours</th><th>Tolerance</th><th>Result</th></tr></thead>\n<tbody>\n",
        );
        for c in &out.checks {
            let (class, result) = if c.pass {
                ("pass", "✓ PASS")
            } else {
                ("miss", "✗ MISS")
            };
            let _ = write!(h, "<tr class=\"{class}\">");
            if show_id {
                let _ = write!(h, "<td class=\"id\">{}</td>", escape(&c.id));
            }
            let _ = writeln!(
                h,
                "<td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"result\">{result}</td></tr>",
                escape(&c.metric),
                escape(&fmt_value(c.paper)),
                escape(&fmt_value(c.ours)),
                escape(&c.tolerance)
            );
        }
        h.push_str("</tbody>\n</table></div>\n");
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
