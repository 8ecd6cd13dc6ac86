//! The report writer: files, HTML content, summary JSON, SVG shape, determinism, escaping.

use std::fs;
use std::path::{Path, PathBuf};

use spindle::experiments::Check;
use spindle::report::{
    summary_json, svg_plot, write_report, ExperimentOutput, Plot, PlotKind, Series, Table,
};

const NASTY: &str = "<script>alert('x')</script> & \"co\"";

fn check(id: &str, metric: &str, paper: f64, ours: f64, pass: bool) -> Check {
    let mut c = Check::relative(id, metric, paper, ours, 0.10);
    c.pass = pass;
    c
}

fn plot(kind: PlotKind, log_x: bool, series: Vec<Series>) -> Plot {
    Plot {
        title: format!("{kind:?} plot"),
        x_label: "request size (KiB)".into(),
        y_label: "latency (ms)".into(),
        kind,
        series,
        log_x,
        paper: Vec::new(),
        x_categories: Vec::new(),
    }
}

fn series(label: &str, points: Vec<(f64, f64)>) -> Series {
    Series {
        label: label.into(),
        points,
    }
}

fn sample() -> Vec<ExperimentOutput> {
    let curve = |k: f64| {
        (0..40)
            .map(|i| (2f64.powi(i / 3), k + (i as f64).sqrt()))
            .collect()
    };
    let cdf = (0..500)
        .map(|i| {
            (
                5.0 + (i as f64 * 0.37).sin() * 3.0 + i as f64 * 0.01,
                (i + 1) as f64 / 500.0,
            )
        })
        .collect();
    vec![
        ExperimentOutput {
            id: "PROX-T1".into(),
            title: "Random reads vs. request size".into(),
            description: "First paragraph\nspans two lines.\n\nSecond paragraph.".into(),
            seed: 42,
            checks: vec![
                check("PROX-T1", "mean service time (ms)", 12.5, 12.8123, true),
                check("PROX-T1", "IOPS at 4 KiB", 120.0, 95.0, false),
            ],
            plots: vec![
                plot(
                    PlotKind::Line,
                    true,
                    vec![series("model", curve(1.0)), series("paper", curve(2.0))],
                ),
                plot(PlotKind::Step, false, vec![series("CDF", cdf)]),
            ],
            tables: vec![Table {
                columns: vec!["size".into(), "ms".into()],
                rows: vec![vec!["4 KiB".into(), "12.813".into()]],
            }],
            csv: "size,ms\n4,12.8123\n".into(),
        },
        ExperimentOutput {
            id: "B/2 x".into(),
            title: NASTY.into(),
            description: NASTY.into(),
            seed: 7,
            checks: vec![check("B/2 x", "tail <p99> & more", 1.0, 1.05, true)],
            plots: vec![
                plot(
                    PlotKind::Bars,
                    false,
                    vec![
                        series("FIFO", vec![(0.0, 3.0), (1.0, 5.0), (2.0, -1.0)]),
                        series(NASTY, vec![(0.0, 2.0), (1.0, 6.5), (2.0, 1.0)]),
                    ],
                ),
                plot(
                    PlotKind::Points,
                    false,
                    vec![series("", vec![(1.0, 2.0), (3.0, 4.0)])],
                ),
            ],
            tables: vec![],
            csv: "a,b\n1,2\n".into(),
        },
    ]
}

/// A fresh, empty directory under the system temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spindle-report-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

/// Every file in `dir`, sorted by name, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Minimal XML well-formedness: balanced, properly nested tags and no bare '&' or '<'.
fn assert_well_formed(xml: &str) {
    let trimmed = xml.trim();
    assert!(
        trimmed.starts_with("<svg") || trimmed.starts_with("<?xml"),
        "bad start"
    );
    assert!(trimmed.ends_with("</svg>"), "bad end");
    let mut stack: Vec<String> = Vec::new();
    let mut rest = trimmed;
    while let Some(start) = rest.find('<') {
        let text = &rest[..start];
        for (i, _) in text.match_indices('&') {
            let ent = &text[i..];
            let end = ent.find(';').expect("entity without ';'");
            assert!(end <= 8, "bare '&' in {ent:.20}");
        }
        let end = rest[start..].find('>').expect("unclosed tag") + start;
        let tag = &rest[start + 1..end];
        assert!(!tag.contains('<'), "'<' inside tag: {tag}");
        if tag.starts_with('?') || tag.starts_with('!') {
        } else if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().unwrap();
            stack.push(name.to_string());
        }
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    assert!(
        !xml.contains("NaN") && !xml.contains("inf"),
        "non-finite coordinate"
    );
}

#[test]
fn report_writes_all_files() {
    let dir = temp_dir("files").join("nested");
    let outs = sample();
    write_report(&dir, &outs).unwrap();
    for name in [
        "index.html",
        "summary.json",
        "PROX-T1.csv",
        "PROX-T1-1.svg",
        "PROX-T1-2.svg",
        "B_2_x.csv",
        "B_2_x-1.svg",
        "B_2_x-2.svg",
    ] {
        assert!(dir.join(name).is_file(), "{name} missing");
    }
    assert_eq!(
        fs::read_to_string(dir.join("PROX-T1.csv")).unwrap(),
        outs[0].csv
    );
    assert_eq!(
        fs::read_to_string(dir.join("B_2_x.csv")).unwrap(),
        outs[1].csv
    );
    for (name, bytes) in files(&dir) {
        if name.ends_with(".svg") {
            assert_well_formed(std::str::from_utf8(&bytes).unwrap());
        }
    }
    assert_eq!(
        fs::read_to_string(dir.join("summary.json")).unwrap(),
        summary_json(&outs)
    );
    fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}

#[test]
fn report_html_lists_checks_and_marks_misses() {
    let dir = temp_dir("html");
    let outs = sample();
    write_report(&dir, &outs).unwrap();
    let html = fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    // The headline: catalog ids by status; PROX-T1 has one miss, so it is partly reproduced.
    assert!(html.contains("0 of 115 catalog ids reproduced</strong>, 1 partly, 0 missed"));
    assert!(html.contains("1 of 2 reproduction checks pass"));
    assert!(html.contains("mean service time (ms)"));
    assert!(html.contains("IOPS at 4 KiB"));
    assert!(html.contains("tail &lt;p99&gt; &amp; more"));
    // One failing check: in the missed table at the top and in its section; passes marked.
    assert_eq!(html.matches("✗ miss").count(), 1);
    assert_eq!(html.matches("✓ pass").count(), 2);
    assert!(html.contains("<tr class=\"miss\"><td>IOPS at 4 KiB</td>"));
    assert!(html.contains("<tr class=\"miss\"><td class=\"id\">PROX-T1</td><td>IOPS at 4 KiB</td>"));
    // Every catalog id is in the coverage table.
    assert_eq!(html.matches("<tr><td class=\"id\">").count(), 115);
    // Numbers with 3 decimals at most.
    assert!(html.contains(">12.812<"));
    // Links to the data, inline plots, TOC anchors, paragraphs.
    assert!(html.contains("href=\"PROX-T1.csv\""));
    assert!(html.contains("href=\"B_2_x.csv\""));
    assert!(html.contains("href=\"#PROX-T1\"") && html.contains("id=\"PROX-T1\""));
    assert_eq!(html.matches("<svg").count(), 4);
    assert!(html.contains("<p>First paragraph spans two lines.</p>\n<p>Second paragraph.</p>"));
    assert!(html.contains("<td class=\"num\">12.813</td>"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn report_summary_json_lists_all_checks() {
    let outs = sample();
    let v: serde_json::Value = serde_json::from_str(&summary_json(&outs)).unwrap();
    let list = v["checks"].as_array().expect("a JSON list of checks");
    let all: Vec<&Check> = outs.iter().flat_map(|o| &o.checks).collect();
    assert_eq!(list.len(), all.len());
    for (j, c) in list.iter().zip(all) {
        let obj = j.as_object().unwrap();
        let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["id", "kind", "metric", "ours", "paper", "pass", "tolerance"]
        );
        assert_eq!(obj["id"], c.id.as_str());
        assert_eq!(obj["metric"], c.metric.as_str());
        assert_eq!(obj["paper"].as_f64(), Some(c.paper));
        assert_eq!(obj["ours"].as_f64(), Some(c.ours));
        assert_eq!(obj["tolerance"], c.tolerance.as_str());
        assert_eq!(obj["pass"], c.pass);
        assert_eq!(obj["kind"], "reproduction");
    }
    assert_eq!(v["coverage"].as_array().map(Vec::len), Some(115));
    assert_eq!(v["catalog"]["partly"], 1);
    assert_eq!(v["missed"].as_array().map(Vec::len), Some(1));
    let empty: serde_json::Value = serde_json::from_str(&summary_json(&[])).unwrap();
    assert_eq!(empty["checks"].as_array().map(Vec::len), Some(0));
    assert_eq!(empty["catalog"]["not_implemented"], 93);
    assert_eq!(empty["catalog"]["not_reproducible"], 3);
    assert_eq!(empty["catalog"]["description"], 8);
}

#[test]
fn report_is_deterministic() {
    let (a, b) = (temp_dir("det-a"), temp_dir("det-b"));
    write_report(&a, &sample()).unwrap();
    write_report(&b, &sample()).unwrap();
    let (fa, fb) = (files(&a), files(&b));
    assert_eq!(fa.len(), 8);
    assert!(fa == fb, "two writes differ");
    // Writing again over an existing report gives the same bytes.
    write_report(&a, &sample()).unwrap();
    assert!(files(&a) == fb);
    fs::remove_dir_all(&a).unwrap();
    fs::remove_dir_all(&b).unwrap();
}

#[test]
fn report_escapes_special_characters() {
    let dir = temp_dir("escape");
    let outs = sample();
    write_report(&dir, &outs).unwrap();
    let html = fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(!html.contains("<script>"));
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;co&quot;"));
    assert!(html.contains(">B/2 x<"));
    let svg = fs::read_to_string(dir.join("B_2_x-1.svg")).unwrap();
    assert!(!svg.contains("<script>"));
    assert!(svg.contains("&lt;script&gt;"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn report_svg_handles_every_kind_and_degenerate_data() {
    let odd = vec![
        series("empty", vec![]),
        series("one", vec![(3.0, 3.0)]),
        series(
            "nan",
            vec![(f64::NAN, 1.0), (2.0, f64::INFINITY), (-1.0, 2.0)],
        ),
    ];
    let many = (0..12)
        .map(|i| series(&format!("s{i}"), vec![(1.0, i as f64), (2.0, 1.0)]))
        .collect();
    let huge = vec![series(
        "big",
        (0..100_000)
            .map(|i| (i as f64, (i as f64 / 1e5).powi(2)))
            .collect(),
    )];
    for kind in [
        PlotKind::Line,
        PlotKind::Step,
        PlotKind::Points,
        PlotKind::Bars,
    ] {
        for log_x in [false, true] {
            for s in [
                vec![],
                odd.clone(),
                vec![series("c", vec![(5.0, 7.0), (5.0, 7.0)])],
                Vec::clone(&many),
            ] {
                assert_well_formed(&svg_plot(&plot(kind, log_x, s)));
            }
        }
    }
    let big = svg_plot(&plot(PlotKind::Step, false, huge));
    assert_well_formed(&big);
    assert!(
        big.len() < 200_000,
        "100k-point CDF gave {} bytes",
        big.len()
    );
    let tiny = vec![
        series("t", vec![(1e-9, 1e-12), (2e-9, 3e-12)]),
        series("u", vec![(1e9, 5e11)]),
    ];
    assert_well_formed(&svg_plot(&plot(PlotKind::Line, false, tiny.clone())));
    assert_well_formed(&svg_plot(&plot(PlotKind::Line, true, tiny)));
}

#[test]
fn paper_values_and_categories_are_drawn() {
    let mut p = plot(
        PlotKind::Bars,
        false,
        vec![series("ours", vec![(0.0, 1.0), (1.0, 2.0)])],
    );
    p.paper = vec![series("paper (Table 9)", vec![(0.0, 1.5), (1.0, 2.5)])];
    p.x_categories = vec!["alone".into(), "together".into()];
    let svg = svg_plot(&p);
    assert_well_formed(&svg);
    // Text elements hold their text on a line of its own.
    let text = |t: &str| format!(">\n{t}\n</text>");
    assert!(svg.contains(&text("paper (Table 9)")));
    assert!(svg.contains(&text("alone")) && svg.contains(&text("together")));
    // Hollow paper markers over the bars: white inside, dark outline.
    assert!(svg.contains("fill=\"#FFFFFF\"") && svg.contains("stroke=\"#222222\""));
    let mut l = plot(
        PlotKind::Line,
        false,
        vec![series("a", vec![(1.0, 1.0), (2.0, 2.0)])],
    );
    l.paper = vec![series("paper", vec![(1.0, 1.2), (1.5, 1.4), (2.0, 2.2)])];
    let svg = svg_plot(&l);
    // The paper's curve is dashed: many short dark segments, not one line.
    assert!(svg.matches("stroke=\"#222222\"").count() > 10);
    assert!(svg.contains(&text("paper")));
}

/// The README's text between the lines `begin` and `end`.
fn readme_block(begin: &str, end: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let readme = fs::read_to_string(path).unwrap();
    let b = readme.find(begin).expect("begin marker") + begin.len();
    let e = readme[b..].find(end).expect("end marker") + b;
    readme[b..e].to_string()
}

/// The README quotes the reproduction summary between generated markers: the block is
/// there, written by `spindle reproduce --readme`, and its headline's counts cover the
/// catalog's 115 ids.
#[test]
fn readme_quotes_a_generated_summary() {
    use spindle::report::summary::{README_BEGIN, README_END};
    let block = &readme_block(README_BEGIN, README_END);
    let head = block
        .lines()
        .find(|l| l.contains("catalog ids reproduced"))
        .expect("the headline");
    let head = &head[..head.find(".**").expect("bold headline")];
    let nums: Vec<usize> = head
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    // X of 115 reproduced, Y partly, Z missed, W not implemented, R not reproducible (C
    // consistency only, N non-quantitative, A algorithm descriptions).
    assert_eq!(nums.len(), 9, "{head}");
    assert_eq!(nums[1], 115);
    assert_eq!(nums.iter().sum::<usize>() - 115, 115, "{head}");
    assert!(block.contains("From `spindle reproduce all"));
}

/// The README's results section quotes its figures from a generated block: every
/// experiment it talks about has rows there, from a run of them all.
#[test]
fn readme_quotes_generated_highlights() {
    use spindle::report::summary::{HIGHLIGHTS_BEGIN, HIGHLIGHTS_END, HIGHLIGHT_IDS};
    let block = &readme_block(HIGHLIGHTS_BEGIN, HIGHLIGHTS_END);
    assert!(block.contains("From `spindle reproduce all"), "{block}");
    for id in HIGHLIGHT_IDS {
        assert!(
            block.lines().any(|l| l.starts_with(&format!("| {id} |"))),
            "no row for {id}"
        );
    }
}
