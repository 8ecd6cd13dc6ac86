//! Hand-written SVG charts: axes with "nice" ticks, optional logarithmic x, a legend
//! outside the data area, and line / step / point / grouped-bar series.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::format::{escape, fmt_sci, trim_zeros};
use super::{Plot, PlotKind};

/// Canvas width; the height grows past `MIN_HEIGHT` only for long legends.
const WIDTH: f64 = 720.0;
const MIN_HEIGHT: f64 = 420.0;
/// Font size of ticks and legend, and a conservative average glyph width for it.
const FONT: f64 = 12.0;
const CHAR_W: f64 = 0.62 * FONT;
const TITLE_FONT: f64 = 15.0;
const TICK_LEN: f64 = 5.0;
const LEGEND_ROW: f64 = 18.0;
/// Width of a legend entry's swatch plus the gap before its label.
const SWATCH_W: f64 = 30.0;
/// A legend wider than this goes below the plot rather than beside it.
const LEGEND_BESIDE_MAX_W: f64 = 200.0;
/// Legend labels longer than this are cut (the full text stays in a tooltip).
const LEGEND_MAX_CHARS: usize = 80;
/// Line plots with at most this many points per series also get markers.
const MARKER_MAX_POINTS: usize = 25;

/// The paper's values: one dark colour, dashed, hollow markers.
const PAPER_COLOR: &str = "#222222";
const PAPER_DASH: &str = "5 4";
/// Dash patterns of our series, by index, so that series differ by more than colour.
const DASHES: [&str; 5] = ["", "8 4", "2 3", "10 3 2 3", "4 2 1 2"];
/// Marker shapes of our series, by index.
const SHAPES: [Shape; 5] = [
    Shape::Circle,
    Shape::Square,
    Shape::Triangle,
    Shape::Diamond,
    Shape::Cross,
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
}

/// How one series is drawn.
#[derive(Clone, Copy)]
struct Style {
    color: &'static str,
    dash: &'static str,
    shape: Shape,
    hollow: bool,
}

fn our_style(i: usize) -> Style {
    Style {
        color: PALETTE[i % PALETTE.len()],
        dash: DASHES[i % DASHES.len()],
        shape: SHAPES[i % SHAPES.len()],
        hollow: false,
    }
}

fn paper_style(i: usize) -> Style {
    Style {
        color: PAPER_COLOR,
        dash: PAPER_DASH,
        shape: [
            Shape::Diamond,
            Shape::Circle,
            Shape::Square,
            Shape::Triangle,
        ][i % 4],
        hollow: true,
    }
}

fn dash_attr(dash: &str) -> String {
    if dash.is_empty() {
        String::new()
    } else {
        format!(" stroke-dasharray=\"{dash}\"")
    }
}

/// Tableau-10: distinguishable and colour-blind friendlier than the classic palette.
const PALETTE: [&str; 10] = [
    "#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2", "#edc948", "#9c755f",
    "#ff9da7", "#bab0ac",
];

/// One axis: its domain and its ticks in data units.
struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    /// Labelled ticks.
    ticks: Vec<(f64, String)>,
    /// Unlabelled minor grid lines (log axes).
    minor: Vec<f64>,
}

impl Axis {
    /// Position of `v` along the axis, 0 at `lo` and 1 at `hi`.
    fn frac(&self, v: f64) -> f64 {
        if self.log {
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        }
    }
}

/// A standalone SVG document (starting with `<svg`) for `plot`. Also valid inline in
/// HTML: it uses no element ids.
pub fn svg_plot(plot: &Plot) -> String {
    let bars = plot.kind == PlotKind::Bars;
    let log_x = plot.log_x && !bars;

    // Finite data, per series (x > 0 on a log axis).
    let drawable = |points: &[(f64, f64)]| -> Vec<(f64, f64)> {
        points
            .iter()
            .copied()
            .filter(|&(x, y)| x.is_finite() && y.is_finite() && (!log_x || x > 0.0))
            .collect()
    };
    let series: Vec<Vec<(f64, f64)>> = plot.series.iter().map(|s| drawable(&s.points)).collect();
    let paper: Vec<Vec<(f64, f64)>> = plot.paper.iter().map(|s| drawable(&s.points)).collect();
    let all = || series.iter().chain(paper.iter()).flatten();
    let cats = &plot.x_categories;

    // Bar groups: the distinct x values, in order.
    let groups: Vec<f64> = if bars {
        let mut g: Vec<f64> = all().map(|p| p.0).collect();
        g.sort_by(f64::total_cmp);
        g.dedup();
        g
    } else {
        Vec::new()
    };

    // ----- y range, with a little headroom so markers and bars don't touch the frame -----
    let (mut y_min, mut y_max) = min_max(all().map(|p| p.1));
    if bars {
        y_min = y_min.min(0.0);
        y_max = y_max.max(0.0);
    }
    if plot.kind != PlotKind::Step {
        let pad = 0.03 * (y_max - y_min);
        y_min = if y_min >= 0.0 {
            (y_min - pad).max(0.0)
        } else {
            y_min - pad
        };
        y_max = if y_max <= 0.0 {
            (y_max + pad).min(0.0)
        } else {
            y_max + pad
        };
    }

    // ----- legend: right of the data area, or below it when the labels are long -----
    let show_legend =
        plot.series.len() + plot.paper.len() > 1 || plot.series.iter().any(|s| !s.label.is_empty());
    let legend_series: Vec<(&super::Series, Style)> = plot
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| (s, our_style(i)))
        .chain(
            plot.paper
                .iter()
                .enumerate()
                .map(|(i, s)| (s, paper_style(i))),
        )
        .collect();
    let legend_labels: Vec<String> = legend_series
        .iter()
        .map(|(s, _)| *s)
        .enumerate()
        .map(|(i, s)| {
            let l = if s.label.is_empty() {
                format!("series {}", i + 1)
            } else {
                s.label.clone()
            };
            truncate(&l, LEGEND_MAX_CHARS)
        })
        .collect();
    let widest = legend_labels.iter().map(|l| text_w(l)).fold(0.0, f64::max);
    let beside = show_legend && 10.0 + SWATCH_W + widest + 10.0 <= LEGEND_BESIDE_MAX_W;
    // Each entry's offset from the legend's top-left corner, and the legend's size.
    let mut entries: Vec<(f64, f64)> = Vec::with_capacity(legend_labels.len());
    let (legend_w, legend_h) = if !show_legend {
        (0.0, 0.0)
    } else if beside {
        for i in 0..legend_labels.len() {
            entries.push((10.0, 5.0 + LEGEND_ROW * i as f64));
        }
        (
            10.0 + SWATCH_W + widest + 10.0,
            10.0 + LEGEND_ROW * legend_labels.len() as f64,
        )
    } else {
        // A grid of equal columns across the canvas, filled row by row.
        let avail = WIDTH - 32.0;
        let col_w = SWATCH_W + widest + 24.0;
        let cols = ((avail + 24.0) / col_w).floor().max(1.0) as usize;
        for i in 0..legend_labels.len() {
            entries.push(((i % cols) as f64 * col_w, (i / cols) as f64 * LEGEND_ROW));
        }
        let used_cols = cols.min(legend_labels.len());
        let rows = legend_labels.len().div_ceil(cols);
        (used_cols as f64 * col_w - 24.0, rows as f64 * LEGEND_ROW)
    };
    let below_h = if show_legend && !beside {
        legend_h + 8.0
    } else {
        0.0
    };

    // ----- vertical layout -----
    let top = if plot.title.is_empty() { 14.0 } else { 40.0 };
    let axis_h = TICK_LEN + 6.0 + FONT + if plot.x_label.is_empty() { 10.0 } else { 34.0 };
    let bottom = axis_h + below_h;
    let height = if beside {
        MIN_HEIGHT.max(top + legend_h + bottom + 10.0).ceil()
    } else {
        (MIN_HEIGHT + below_h).ceil()
    };
    let plot_h = height - top - bottom;

    // ----- y axis (its label width decides the left margin) -----
    let y_axis = linear_axis(y_min, y_max, ((plot_h / 45.0).floor() as usize).clamp(3, 9));
    let y_label_w = y_axis
        .ticks
        .iter()
        .map(|t| text_w(&t.1))
        .fold(0.0, f64::max);
    let left = (if plot.y_label.is_empty() { 8.0 } else { 30.0 }) + y_label_w + TICK_LEN + 6.0;

    // ----- x axis: as many ticks as fit without overlapping labels -----
    let legend_space = if beside { legend_w + 20.0 } else { 0.0 };
    let approx_w = WIDTH - left - 24.0 - legend_space;
    let x_axis = if bars {
        bar_axis(&groups, cats, approx_w)
    } else if !cats.is_empty() {
        category_axis(cats, approx_w)
    } else {
        let (x_min, x_max) = min_max(all().map(|p| p.0));
        if log_x {
            log_axis(
                log_low(&series, plot.kind == PlotKind::Step, x_min),
                x_max,
                approx_w,
            )
        } else {
            fitted_linear_axis(x_min, x_max, approx_w)
        }
    };
    // Room on the right for half of the last tick label, and for the legend.
    let last_half = x_axis
        .ticks
        .last()
        .filter(|t| x_axis.frac(t.0) > 0.9)
        .map_or(0.0, |t| text_w(&t.1) / 2.0);
    let right_gap = (last_half + 8.0).max(18.0);
    let right = right_gap + legend_space;
    let plot_w = WIDTH - left - right;
    let (x0, y0) = (left, top + plot_h); // bottom-left corner of the data area
    let legend_origin = if beside {
        (x0 + plot_w + right_gap, top)
    } else {
        ((WIDTH - legend_w) / 2.0, y0 + axis_h)
    };

    let sx = |v: f64| x0 + x_axis.frac(v.clamp(x_axis.lo, x_axis.hi)) * plot_w;
    let sy = |v: f64| y0 - y_axis.frac(v) * plot_h;

    let mut o = String::with_capacity(4096);
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" role=\"img\" \
         font-family=\"'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif\" font-size=\"{FONT}\">",
        w = n(WIDTH),
        h = n(height)
    );
    let _ = writeln!(o, "<title>{}</title>", escape(&plot.title));
    let _ = writeln!(
        o,
        "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>",
        n(WIDTH),
        n(height)
    );

    // Grid.
    let mut minor = String::new();
    for &v in &x_axis.minor {
        let _ = write!(minor, "M{} {}V{}", n(sx(v)), n(y0), n(top));
    }
    if !minor.is_empty() {
        let _ = writeln!(
            o,
            "<path d=\"{minor}\" stroke=\"#f0f0f0\" stroke-width=\"1\" fill=\"none\"/>"
        );
    }
    let mut grid = String::new();
    if !bars {
        for (v, _) in &x_axis.ticks {
            let _ = write!(grid, "M{} {}V{}", n(sx(*v)), n(y0), n(top));
        }
    }
    for (v, _) in &y_axis.ticks {
        let _ = write!(grid, "M{} {}H{}", n(x0), n(sy(*v)), n(x0 + plot_w));
    }
    let _ = writeln!(
        o,
        "<path d=\"{grid}\" stroke=\"#dddddd\" stroke-width=\"1\" fill=\"none\"/>"
    );

    // Data.
    let _ = writeln!(o, "<g stroke-linejoin=\"round\" stroke-linecap=\"round\">");
    for (i, pts) in series.iter().enumerate() {
        let style = our_style(i);
        let color = style.color;
        let dash = dash_attr(style.dash);
        match plot.kind {
            PlotKind::Line | PlotKind::Step => {
                let mut px: Vec<(f64, f64)> = if plot.kind == PlotKind::Step {
                    let mut sorted = pts.clone();
                    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
                    let mut v = Vec::with_capacity(sorted.len() * 2);
                    for (k, &(x, y)) in sorted.iter().enumerate() {
                        if k > 0 {
                            v.push((sx(x), sy(sorted[k - 1].1)));
                        }
                        v.push((sx(x), sy(y)));
                    }
                    v
                } else {
                    pts.iter().map(|&(x, y)| (sx(x), sy(y))).collect()
                };
                px = simplify(&px);
                if px.len() >= 2 {
                    let _ = write!(o, "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"{dash} points=\"");
                    for (k, (x, y)) in px.iter().enumerate() {
                        let sep = if k == 0 { "" } else { " " };
                        let _ = write!(o, "{sep}{},{}", n(*x), n(*y));
                    }
                    let _ = writeln!(o, "\"/>");
                }
                if plot.kind == PlotKind::Line && (pts.len() <= MARKER_MAX_POINTS || px.len() == 1)
                {
                    markers(&mut o, pts.iter().map(|&(x, y)| (sx(x), sy(y))), style, 3.2);
                }
            }
            PlotKind::Points => {
                markers(&mut o, pts.iter().map(|&(x, y)| (sx(x), sy(y))), style, 3.2);
            }
            PlotKind::Bars => {
                let band = plot_w / groups.len().max(1) as f64;
                let bw = band * 0.8 / series.len().max(1) as f64;
                let base = sy(0.0);
                let _ = writeln!(o, "<g fill=\"{color}\">");
                let mut seen = BTreeSet::new();
                for &(x, y) in pts {
                    let Ok(g) = groups.binary_search_by(|v| v.total_cmp(&x)) else {
                        continue;
                    };
                    if !seen.insert(g) {
                        continue; // one bar per series and group: the first wins
                    }
                    let bx = x0 + band * g as f64 + band * 0.1 + bw * i as f64;
                    let (ya, yb) = (sy(y).min(base), sy(y).max(base));
                    let _ = writeln!(
                        o,
                        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}: {}</title></rect>",
                        n(bx),
                        n(ya),
                        n((bw - 1.0).max(0.5)),
                        n((yb - ya).max(0.5)),
                        escape(&plot.series[i].label),
                        escape(&super::format::fmt_value(y))
                    );
                }
                let _ = writeln!(o, "</g>");
            }
        }
    }
    // The paper's values, over ours.
    for (i, pts) in paper.iter().enumerate() {
        let style = paper_style(i);
        if bars {
            // Over the bar of the series with the same index.
            let band = plot_w / groups.len().max(1) as f64;
            let bw = band * 0.8 / series.len().max(1) as f64;
            let at = pts.iter().filter_map(|&(x, y)| {
                let g = groups.binary_search_by(|v| v.total_cmp(&x)).ok()?;
                Some((
                    x0 + band * g as f64 + band * 0.1 + bw * (i as f64 + 0.5),
                    sy(y),
                ))
            });
            markers(&mut o, at, style, 4.5);
            continue;
        }
        let px: Vec<(f64, f64)> = pts.iter().map(|&(x, y)| (sx(x), sy(y))).collect();
        if joins_paper_points(plot.kind, px.len()) {
            let _ = write!(
                o,
                "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"{} points=\"",
                style.color,
                dash_attr(style.dash)
            );
            for (k, (x, y)) in px.iter().enumerate() {
                let sep = if k == 0 { "" } else { " " };
                let _ = write!(o, "{sep}{},{}", n(*x), n(*y));
            }
            let _ = writeln!(o, "\"/>");
        }
        markers(&mut o, px.into_iter(), style, 4.5);
    }
    let _ = writeln!(o, "</g>");

    // Frame, ticks and tick labels.
    let _ = writeln!(
        o,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888888\" stroke-width=\"1\"/>",
        n(x0),
        n(top),
        n(plot_w),
        n(plot_h)
    );
    let mut marks = String::new();
    for (v, _) in &x_axis.ticks {
        let _ = write!(marks, "M{} {}v{}", n(sx(*v)), n(y0), n(TICK_LEN));
    }
    for (v, _) in &y_axis.ticks {
        let _ = write!(marks, "M{} {}h{}", n(x0), n(sy(*v)), n(-TICK_LEN));
    }
    let _ = writeln!(
        o,
        "<path d=\"{marks}\" stroke=\"#888888\" stroke-width=\"1\" fill=\"none\"/>"
    );
    let _ = writeln!(o, "<g fill=\"#333333\" text-anchor=\"middle\">");
    for (v, label) in &x_axis.ticks {
        let _ = writeln!(
            o,
            "<text x=\"{}\" y=\"{}\">{}</text>",
            n(sx(*v)),
            n(y0 + TICK_LEN + 4.0 + FONT),
            escape(label)
        );
    }
    let _ = writeln!(o, "</g>\n<g fill=\"#333333\" text-anchor=\"end\">");
    for (v, label) in &y_axis.ticks {
        let _ = writeln!(
            o,
            "<text x=\"{}\" y=\"{}\">{}</text>",
            n(x0 - TICK_LEN - 4.0),
            n(sy(*v) + FONT * 0.35),
            escape(label)
        );
    }
    let _ = writeln!(o, "</g>");

    // Axis labels and title.
    if !plot.x_label.is_empty() {
        let _ = writeln!(
            o,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\" fill=\"#222222\">{}</text>",
            n(x0 + plot_w / 2.0),
            n(y0 + TICK_LEN + 4.0 + FONT + 24.0),
            escape(&plot.x_label)
        );
    }
    if !plot.y_label.is_empty() {
        let (x, y) = (16.0, top + plot_h / 2.0);
        let _ = writeln!(
            o,
            "<text x=\"{x}\" y=\"{y}\" transform=\"rotate(-90 {x} {y})\" text-anchor=\"middle\" \
             font-size=\"13\" fill=\"#222222\">{}</text>",
            escape(&plot.y_label),
            x = n(x),
            y = n(y)
        );
    }
    if !plot.title.is_empty() {
        let _ = writeln!(
            o,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"{TITLE_FONT}\" font-weight=\"bold\" \
             fill=\"#111111\">{}</text>",
            n(x0 + plot_w / 2.0),
            n(top - 16.0),
            escape(&plot.title)
        );
    }

    // Legend, outside the data area so it never covers data.
    if show_legend {
        let (lx, ly) = legend_origin;
        if beside {
            let _ = writeln!(
                o,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\" stroke=\"#cccccc\" rx=\"3\"/>",
                n(lx),
                n(ly),
                n(legend_w),
                n(legend_h)
            );
        }
        for (i, (label, &(dx, dy))) in legend_labels.iter().zip(&entries).enumerate() {
            let style = legend_series[i].1;
            let color = style.color;
            let sx0 = lx + dx;
            let cy = ly + dy + LEGEND_ROW / 2.0;
            match plot.kind {
                _ if style.hollow => {
                    if joins_paper_points(plot.kind, legend_series[i].0.points.len()) {
                        let _ = writeln!(
                            o,
                            "<path d=\"M{} {}h24\" stroke=\"{color}\" stroke-width=\"1.5\"{}/>",
                            n(sx0),
                            n(cy),
                            dash_attr(style.dash)
                        );
                    }
                    markers(&mut o, [(sx0 + 12.0, cy)].into_iter(), style, 4.5);
                }
                PlotKind::Bars => {
                    let _ = writeln!(
                        o,
                        "<rect x=\"{}\" y=\"{}\" width=\"24\" height=\"10\" fill=\"{color}\"/>",
                        n(sx0),
                        n(cy - 5.0)
                    );
                }
                PlotKind::Points => {
                    markers(&mut o, [(sx0 + 12.0, cy)].into_iter(), style, 3.5);
                }
                PlotKind::Line | PlotKind::Step => {
                    let _ = writeln!(
                        o,
                        "<path d=\"M{} {}h24\" stroke=\"{color}\" stroke-width=\"2.5\"{}/>",
                        n(sx0),
                        n(cy),
                        dash_attr(style.dash)
                    );
                    if plot.kind == PlotKind::Line {
                        markers(&mut o, [(sx0 + 12.0, cy)].into_iter(), style, 3.2);
                    }
                }
            }
            let full = &legend_series[i].0.label;
            let tip = if label != full {
                format!("<title>{}</title>", escape(full))
            } else {
                String::new()
            };
            let _ = writeln!(
                o,
                "<text x=\"{}\" y=\"{}\" fill=\"#222222\">{tip}{}</text>",
                n(sx0 + SWATCH_W),
                n(cy + FONT * 0.35),
                escape(label)
            );
        }
    }
    o.push_str("</svg>\n");
    o
}

/// Whether the paper's points of a series are joined by a dashed line: on line plots, when
/// there are enough of them to be a curve (two points joined would suggest values between
/// them that the paper does not give).
fn joins_paper_points(kind: PlotKind, points: usize) -> bool {
    kind == PlotKind::Line && points >= 3
}

/// Markers of one style, at most one per half-pixel cell.
fn markers(o: &mut String, pts: impl Iterator<Item = (f64, f64)>, style: Style, r: f64) {
    let mut cells = BTreeSet::new();
    let paint = if style.hollow {
        format!(
            "fill=\"#ffffff\" stroke=\"{}\" stroke-width=\"1.6\"",
            style.color
        )
    } else {
        format!(
            "fill=\"{}\" fill-opacity=\"0.85\" stroke=\"{}\" stroke-width=\"1\"",
            style.color, style.color
        )
    };
    let _ = writeln!(o, "<g {paint}>");
    for (x, y) in pts {
        if !cells.insert(((x * 2.0).round() as i64, (y * 2.0).round() as i64)) {
            continue;
        }
        let _ = match style.shape {
            Shape::Circle => writeln!(
                o,
                "<circle cx=\"{}\" cy=\"{}\" r=\"{}\"/>",
                n(x),
                n(y),
                n(r)
            ),
            Shape::Square => {
                let h = r * 0.9;
                writeln!(
                    o,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
                    n(x - h),
                    n(y - h),
                    n(2.0 * h),
                    n(2.0 * h)
                )
            }
            Shape::Triangle => writeln!(
                o,
                "<path d=\"M{} {}L{} {}L{} {}Z\"/>",
                n(x),
                n(y - r * 1.2),
                n(x + r * 1.1),
                n(y + r * 0.8),
                n(x - r * 1.1),
                n(y + r * 0.8)
            ),
            Shape::Diamond => writeln!(
                o,
                "<path d=\"M{} {}L{} {}L{} {}L{} {}Z\"/>",
                n(x),
                n(y - r * 1.3),
                n(x + r * 1.1),
                n(y),
                n(x),
                n(y + r * 1.3),
                n(x - r * 1.1),
                n(y)
            ),
            Shape::Cross => writeln!(
                o,
                "<path d=\"M{} {}h{}M{} {}v{}\" stroke-width=\"2\"/>",
                n(x - r),
                n(y),
                n(2.0 * r),
                n(x),
                n(y - r),
                n(2.0 * r)
            ),
        };
    }
    let _ = writeln!(o, "</g>");
}

/// The low end of a log x axis. For a distribution (step plot), where its rise begins:
/// the leading points at fraction 0 (empty histogram buckets down to the smallest
/// bucket) are not data, and would stretch the axis over decades of nothing; each
/// series keeps its last zero point, half a step to the left of its first non-zero one.
fn log_low(series: &[Vec<(f64, f64)>], step: bool, min: f64) -> f64 {
    if !step {
        return min;
    }
    let starts = series.iter().filter_map(|pts| {
        let k = pts.iter().position(|p| p.1 > 0.0)?;
        let first = pts[k].0;
        let before = if k > 0 { pts[k - 1].0 } else { first };
        Some(if before > 0.0 {
            before.max(first / 2.0)
        } else {
            first / 2.0
        })
    });
    let lo = starts.fold(f64::INFINITY, f64::min);
    if lo.is_finite() && lo > 0.0 {
        min.max(lo)
    } else {
        min
    }
}

/// Drops vertices closer than half a pixel to the previous kept one (always keeps the
/// last), so a 100 000-sample CDF stays a few kilobytes.
fn simplify(px: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(px.len().min(4096));
    for (k, &p) in px.iter().enumerate() {
        match out.last() {
            Some(&q) if (p.0 - q.0).abs().max((p.1 - q.1).abs()) < 0.5 => {
                if k == px.len() - 1 {
                    out.push(p);
                }
            }
            _ => out.push(p),
        }
    }
    out
}

/// A coordinate with at most one decimal.
fn n(v: f64) -> String {
    trim_zeros(&format!("{v:.1}"))
}

/// Estimated rendered width of a label.
fn text_w(s: &str) -> f64 {
    s.chars().count() as f64 * CHAR_W
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

/// Smallest and largest value; (0, 1) when there are none.
fn min_max(vals: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if lo > hi {
        (0.0, 1.0)
    } else {
        (lo, hi)
    }
}

/// 1, 2 or 5 times a power of ten, near `raw`.
fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let m = if norm < 1.5 {
        1.0
    } else if norm < 3.0 {
        2.0
    } else if norm < 7.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// A linear axis covering [min, max], extended to whole steps, with about `target`
/// intervals.
fn linear_axis(min: f64, max: f64, target: usize) -> Axis {
    let (mut min, mut max) = (min, max);
    if max - min <= f64::EPSILON * max.abs().max(min.abs()).max(1e-300) {
        // A single value: centre it in a small range.
        let pad = if min == 0.0 { 1.0 } else { min.abs() * 0.1 };
        min -= pad;
        max += pad;
    }
    let step = nice_step((max - min) / target.max(1) as f64);
    let lo = (min / step + 1e-9).floor() * step;
    let hi = (max / step - 1e-9).ceil() * step;
    let count = ((hi - lo) / step).round() as usize;
    let ticks = (0..=count)
        .map(|k| {
            let v = lo + k as f64 * step;
            let v = if v.abs() < step * 1e-9 { 0.0 } else { v };
            (v, tick_label(v, step))
        })
        .collect();
    Axis {
        lo,
        hi,
        log: false,
        ticks,
        minor: Vec::new(),
    }
}

/// A tick value printed with exactly the precision its step needs.
fn tick_label(v: f64, step: f64) -> String {
    let big = v.abs().max(step);
    if big >= 1e7 || step < 1e-5 {
        let digits = (big.log10().floor() - step.log10().floor()) as usize + 1;
        return fmt_sci(v, digits.clamp(1, 6));
    }
    let decimals = (-(step.log10() + 1e-9).floor()).max(0.0) as usize;
    trim_zeros(&format!("{v:.decimals$}"))
}

/// Whether labels centred at `positions` (pixels, increasing) leave a gap between them.
fn labels_fit(ticks: &[(f64, String)], pos: impl Fn(f64) -> f64) -> bool {
    ticks.windows(2).all(|w| {
        let room = pos(w[1].0) - pos(w[0].0);
        room >= (text_w(&w[0].1) + text_w(&w[1].1)) / 2.0 + 10.0
    })
}

/// The linear x axis with the most ticks (up to 10) whose labels don't overlap.
fn fitted_linear_axis(min: f64, max: f64, width: f64) -> Axis {
    let mut target = 10;
    loop {
        let axis = linear_axis(min, max, target);
        let span = axis.hi - axis.lo;
        if target <= 2 || labels_fit(&axis.ticks, |v| (v - axis.lo) / span * width) {
            return axis;
        }
        target -= 1;
    }
}

/// A logarithmic axis over the data (plus 3 % of the span each side). Labels at 1-2-5
/// multiples when they fit, else at decades (every `s`-th if crowded); minor grid lines at
/// 2..9x; linear-style ticks when the range holds fewer than two labels.
fn log_axis(min: f64, max: f64, width: f64) -> Axis {
    let (min, max) = if min > 0.0 && max >= min {
        (min, max)
    } else {
        (1.0, 10.0)
    };
    let (mut a, mut b) = (min.log10(), max.log10());
    if b - a < 1e-9 {
        a -= 0.5;
        b += 0.5;
    }
    let pad = 0.03 * (b - a);
    let (a, b) = (a - pad, b + pad);
    let (lo, hi) = (10f64.powf(a), 10f64.powf(b));
    let pos = |v: f64| (v.log10() - a) / (b - a) * width;
    let inside = |v: f64| v >= lo && v <= hi;
    let (k0, k1) = (a.floor() as i32, b.ceil() as i32);
    let decade_pts = |ms: &[f64]| -> Vec<(f64, String)> {
        let mut t = Vec::new();
        for k in k0..=k1 {
            for &m in ms {
                let v = m * 10f64.powi(k);
                if inside(v) {
                    t.push((v, pow10_label(m, k)));
                }
            }
        }
        t
    };
    let mut minor = Vec::new();
    if b - a <= 8.0 {
        for (v, _) in decade_pts(&[2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]) {
            minor.push(v);
        }
    }
    let axis = |ticks: Vec<(f64, String)>, minor: Vec<f64>| Axis {
        lo,
        hi,
        log: true,
        ticks,
        minor,
    };

    let ticks = decade_pts(&[1.0, 2.0, 5.0]);
    if b - a <= 3.0 && ticks.len() >= 2 && labels_fit(&ticks, pos) {
        return axis(ticks, minor);
    }
    let decades = decade_pts(&[1.0]);
    if decades.len() >= 2 {
        for s in [1, 2, 3, 4, 5, 10, 20, 50, 100] {
            let ticks: Vec<(f64, String)> = decades
                .iter()
                .filter(|(v, _)| (v.log10().round() as i64).rem_euclid(s) == 0)
                .cloned()
                .collect();
            if ticks.len() >= 2 && labels_fit(&ticks, pos) || s == 100 {
                let minor = if s == 1 { minor } else { Vec::new() };
                return axis(ticks, minor);
            }
        }
    }
    // Less than a decade: ordinary nice ticks, kept to those inside the range.
    let mut target = 8;
    loop {
        let lin = linear_axis(min, max, target);
        let ticks: Vec<(f64, String)> = lin
            .ticks
            .into_iter()
            .filter(|t| t.0 > 0.0 && inside(t.0))
            .collect();
        if target <= 2 || labels_fit(&ticks, pos) {
            return axis(ticks, minor);
        }
        target -= 1;
    }
}

/// `m * 10^k` as a short label: plain for moderate magnitudes, "2e7" style otherwise.
fn pow10_label(m: f64, k: i32) -> String {
    if (-4..=5).contains(&k) {
        let decimals = (-k).max(0) as usize;
        trim_zeros(&format!("{:.decimals$}", m * 10f64.powi(k)))
    } else {
        format!("{}e{}", m as i64, k)
    }
}

/// The categorical axis of grouped bars: one band per group, labelled with its x value
/// or, when `cats` names it, its category (every k-th label if they would overlap).
fn bar_axis(groups: &[f64], cats: &[String], width: f64) -> Axis {
    let count = groups.len().max(1);
    let labels: Vec<String> = groups.iter().map(|&g| category_name(g, cats)).collect();
    let widest = labels.iter().map(|l| text_w(l)).fold(0.0, f64::max);
    let band = width / count as f64;
    let every = ((widest + 10.0) / band).ceil().max(1.0) as usize;
    let ticks = labels
        .into_iter()
        .enumerate()
        .filter(|(g, _)| g % every == 0)
        .map(|(g, l)| (g as f64 + 0.5, l))
        .collect();
    Axis {
        lo: 0.0,
        hi: count as f64,
        log: false,
        ticks,
        minor: Vec::new(),
    }
}

/// `x` as a category name when it indexes `cats`, else as a number.
fn category_name(x: f64, cats: &[String]) -> String {
    if x >= 0.0 && x.fract() == 0.0 {
        if let Some(c) = cats.get(x as usize) {
            return c.clone();
        }
    }
    super::format::fmt_value(x)
}

/// A categorical x axis for points and lines: category i at x = i, half a band of room
/// each side.
fn category_axis(cats: &[String], width: f64) -> Axis {
    let count = cats.len().max(1);
    let widest = cats.iter().map(|l| text_w(l)).fold(0.0, f64::max);
    let band = width / count as f64;
    let every = ((widest + 10.0) / band).ceil().max(1.0) as usize;
    Axis {
        lo: -0.5,
        hi: count as f64 - 0.5,
        log: false,
        ticks: cats
            .iter()
            .enumerate()
            .filter(|(i, _)| i % every == 0)
            .map(|(i, c)| (i as f64, c.clone()))
            .collect(),
        minor: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_nice() {
        let a = linear_axis(0.13, 9.7, 5);
        let labels: Vec<&str> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["0", "2", "4", "6", "8", "10"]);
        let a = linear_axis(0.0, 0.35, 7);
        assert_eq!(a.ticks[1].1, "0.05");
        let a = linear_axis(5.0, 5.0, 5);
        assert!(a.lo < 5.0 && a.hi > 5.0);
    }

    #[test]
    fn log_ticks_are_decades() {
        let a = log_axis(1.0, 4000.0, 600.0);
        let labels: Vec<&str> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["1", "10", "100", "1000"]);
        assert!(a.hi < 6000.0);
        let a = log_axis(3.0, 70.0, 600.0);
        let labels: Vec<&str> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["5", "10", "20", "50"]);
        let a = log_axis(300.0, 700.0, 600.0);
        assert!(a.ticks.len() >= 2);
        let a = log_axis(1e-3, 1e12, 300.0);
        assert!(a.ticks.len() < 10);
    }
}
