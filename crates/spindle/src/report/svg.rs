//! The report's charts, drawn with plotters' SVG back end: line, step (CDF), point and
//! grouped-bar series; an optional logarithmic x axis; named categories on x; the
//! paper's values over ours; and a legend outside the data area, so it never covers
//! data. Series differ by colour, dash pattern and marker shape; the paper's are dark,
//! dashed and hollow.

use plotters::coord::combinators::BindKeyPoints;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::format::fmt_value;
use super::{Plot, PlotKind};

/// Canvas width; the height grows past `MIN_HEIGHT` only for long legends.
const WIDTH: u32 = 720;
const MIN_HEIGHT: u32 = 420;
const FONT: &str = "sans-serif";
/// Tick, legend and category labels, px, and a conservative average glyph width.
const LABEL_PX: f64 = 12.0;
const CHAR_W: f64 = 0.62 * LABEL_PX;
const TITLE_PX: f64 = 16.0;
const LEGEND_ROW: i32 = 18;
/// Width of a legend entry's swatch plus the gap before its label.
const SWATCH_W: i32 = 30;
/// A legend wider than this goes below the plot rather than beside it.
const LEGEND_BESIDE_MAX_W: i32 = 200;
/// Legend labels longer than this are cut.
const LEGEND_MAX_CHARS: usize = 80;
/// Category labels longer than this are cut.
const CATEGORY_MAX_CHARS: usize = 24;
/// Line plots with at most this many points per series also get markers.
const MARKER_MAX_POINTS: usize = 25;
const MARKER_R: i32 = 3;
const PAPER_MARKER_R: i32 = 4;

/// Tableau-10: distinguishable and colour-blind friendlier than the classic palette.
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0xba, 0xb0, 0xac),
];
/// The paper's values: one dark colour, dashed, hollow markers.
const PAPER_COLOR: RGBColor = RGBColor(0x22, 0x22, 0x22);
const PAPER_DASH: Dash = Dash(5, 4);
/// Dash patterns (dash, gap in px) of our series, by index; (0, 0) is solid.
const DASHES: [Dash; 5] = [Dash(0, 0), Dash(8, 4), Dash(2, 3), Dash(12, 3), Dash(4, 2)];
const SHAPES: [Shape; 5] = [
    Shape::Circle,
    Shape::Square,
    Shape::Triangle,
    Shape::Diamond,
    Shape::Cross,
];
const GRID: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);
const FRAME: RGBColor = RGBColor(0x88, 0x88, 0x88);
const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);

#[derive(Clone, Copy, PartialEq, Eq)]
struct Dash(u32, u32);

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
    color: RGBColor,
    dash: Dash,
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

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Chart<'a, 'b, X> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<X, RangedCoordf64>>;
type DrawResult = Result<(), DrawingAreaErrorKind<std::io::Error>>;

/// A standalone SVG document (starting with `<svg`) for `plot`. Also valid inline in
/// HTML: it uses no element ids.
pub fn svg_plot(plot: &Plot) -> String {
    let data = Prepared::of(plot);
    let legend = Legend::of(plot);
    let height = match legend.placement {
        Placement::Below { rows } => MIN_HEIGHT + (rows * LEGEND_ROW) as u32 + 10,
        Placement::Beside { width: _ } => {
            MIN_HEIGHT.max(80 + (legend.labels.len() as i32 * LEGEND_ROW) as u32)
        }
        Placement::None => MIN_HEIGHT,
    };
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, height)).into_drawing_area();
        // Drawing into a string cannot fail; an error would only lose the picture.
        let _ = draw(&root, plot, &data, &legend, height);
    }
    out.push('\n');
    out
}

fn draw(root: &Area, plot: &Plot, data: &Prepared, legend: &Legend, height: u32) -> DrawResult {
    root.fill(&WHITE)?;
    let (chart_area, legend_area) = match legend.placement {
        Placement::Beside { width } => {
            let (a, b) = root.split_horizontally(WIDTH as i32 - width - 16);
            (a, Some(b))
        }
        Placement::Below { rows } => {
            let (a, b) = root.split_vertically(height as i32 - rows * LEGEND_ROW - 10);
            (a, Some(b))
        }
        Placement::None => (root.clone(), None),
    };
    let (y_lo, y_hi) = data.y_range;
    if data.log_x {
        let (lo, hi) = data.x_range;
        let x = (lo..hi).log_scale().with_key_points(log_ticks(lo, hi));
        let mut chart = frame(&chart_area, plot, data, x, y_lo..y_hi)?;
        mesh(&mut chart, plot, data)?;
        series(&mut chart, plot, data)?;
    } else {
        let (lo, hi) = data.x_range;
        let mut chart = frame(&chart_area, plot, data, lo..hi, y_lo..y_hi)?;
        mesh(&mut chart, plot, data)?;
        series(&mut chart, plot, data)?;
        if !data.names.is_empty() {
            category_labels(&chart_area, &chart, data)?;
        }
    }
    if let Some(area) = legend_area {
        legend.draw(&area, plot.kind)?;
    }
    root.present()
}

/// What the data asks of the axes.
struct Prepared {
    log_x: bool,
    /// Our series and the paper's, finite (x > 0 on a log axis); for bars, x is the
    /// group's index.
    ours: Vec<Vec<(f64, f64)>>,
    paper: Vec<Vec<(f64, f64)>>,
    x_range: (f64, f64),
    y_range: (f64, f64),
    /// Names along x (categories or bar groups), one per integer x from 0.
    names: Vec<String>,
    /// Category names are drawn turned a quarter, to fit.
    turned: bool,
    bars: bool,
    groups: usize,
}

impl Prepared {
    fn of(plot: &Plot) -> Prepared {
        let bars = plot.kind == PlotKind::Bars;
        let log_x = plot.log_x && !bars;
        let drawable = |points: &[(f64, f64)]| -> Vec<(f64, f64)> {
            points
                .iter()
                .copied()
                .filter(|&(x, y)| x.is_finite() && y.is_finite() && (!log_x || x > 0.0))
                .collect()
        };
        let mut ours: Vec<Vec<(f64, f64)>> =
            plot.series.iter().map(|s| drawable(&s.points)).collect();
        let mut paper: Vec<Vec<(f64, f64)>> =
            plot.paper.iter().map(|s| drawable(&s.points)).collect();
        let cats = &plot.x_categories;
        // Bar groups: the distinct x values, in order; x becomes the group's index.
        let mut names = Vec::new();
        let mut groups = 0;
        if bars {
            let mut g: Vec<f64> = ours.iter().chain(&paper).flatten().map(|p| p.0).collect();
            g.sort_by(f64::total_cmp);
            g.dedup();
            let index = |x: f64| g.binary_search_by(|v| v.total_cmp(&x)).unwrap_or(0) as f64;
            for s in ours.iter_mut().chain(paper.iter_mut()) {
                for p in s.iter_mut() {
                    p.0 = index(p.0);
                }
            }
            names = g.iter().map(|&x| category_name(x, cats)).collect();
            groups = g.len();
        } else if !cats.is_empty() {
            names = cats.clone();
        }
        let all = || ours.iter().chain(&paper).flatten();
        let (mut y_lo, mut y_hi) = min_max(all().map(|p| p.1));
        if bars {
            y_lo = y_lo.min(0.0);
            y_hi = y_hi.max(0.0);
        }
        if plot.kind != PlotKind::Step {
            // Headroom, so markers and bars don't touch the frame.
            let pad = 0.04 * (y_hi - y_lo);
            y_lo = if y_lo >= 0.0 {
                (y_lo - pad).max(0.0)
            } else {
                y_lo - pad
            };
            y_hi = if y_hi <= 0.0 {
                (y_hi + pad).min(0.0)
            } else {
                y_hi + pad
            };
        }
        let y_range = widen(y_lo, y_hi);
        let x_range = if !names.is_empty() {
            (-0.5, names.len().max(1) as f64 - 0.5)
        } else {
            let (lo, hi) = min_max(all().map(|p| p.0));
            if log_x {
                let lo = log_low(&ours, plot.kind == PlotKind::Step, lo);
                let (lo, hi) = if lo > 0.0 { (lo, hi) } else { (1.0, 10.0) };
                if hi > lo {
                    (lo, hi)
                } else {
                    (lo / 2.0, lo * 2.0)
                }
            } else {
                widen(lo, hi)
            }
        };
        let slot = plot_width_estimate() / names.len().max(1) as f64;
        let widest = names
            .iter()
            .map(|n| text_w(&truncate(n, CATEGORY_MAX_CHARS)))
            .fold(0.0, f64::max);
        Prepared {
            log_x,
            ours,
            paper,
            x_range,
            y_range,
            turned: widest + 6.0 > slot,
            names,
            bars,
            groups,
        }
    }

    /// Space under the x axis for its labels and description.
    fn x_label_area(&self, plot: &Plot) -> u32 {
        let desc = if plot.x_label.is_empty() { 8 } else { 24 };
        let labels = if self.turned {
            let widest = self
                .names
                .iter()
                .map(|n| text_w(&truncate(n, CATEGORY_MAX_CHARS)))
                .fold(0.0, f64::max);
            widest.ceil() as u32 + 10
        } else {
            22
        };
        labels + desc
    }
}

/// The data area's width, before the legend and margins are known exactly: for
/// deciding whether category names fit side by side.
fn plot_width_estimate() -> f64 {
    f64::from(WIDTH) - 90.0 - f64::from(LEGEND_BESIDE_MAX_W)
}

/// The chart's frame: title, margins and coordinates.
fn frame<'a, 'b, X>(
    area: &'a Area<'b>,
    plot: &Plot,
    data: &Prepared,
    x: X,
    y: std::ops::Range<f64>,
) -> Result<Chart<'a, 'b, X::CoordDescType>, DrawingAreaErrorKind<std::io::Error>>
where
    X: AsRangedCoord<Value = f64>,
{
    let mut b = ChartBuilder::on(area);
    b.margin_left(8)
        .margin_right(18)
        .margin_top(if plot.title.is_empty() { 12 } else { 8 })
        .margin_bottom(4)
        .x_label_area_size(data.x_label_area(plot))
        .y_label_area_size(if plot.y_label.is_empty() { 48 } else { 66 });
    if !plot.title.is_empty() {
        b.caption(
            &plot.title,
            (FONT, TITLE_PX)
                .into_font()
                .style(FontStyle::Bold)
                .color(&INK),
        );
    }
    b.build_cartesian_2d(x, y)
}

/// Grid, ticks, tick labels and axis descriptions.
fn mesh<X>(chart: &mut Chart<'_, '_, X>, plot: &Plot, data: &Prepared) -> DrawResult
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let label_style = (FONT, LABEL_PX).into_font().color(&INK);
    let desc_style = (FONT, LABEL_PX + 1.0).into_font().color(&INK);
    let named = !data.names.is_empty();
    let x_fmt = |v: &f64| if named { String::new() } else { tick(*v) };
    let y_fmt = |v: &f64| tick(*v);
    let mut m = chart.configure_mesh();
    m.x_desc(plot.x_label.as_str())
        .y_desc(plot.y_label.as_str())
        .label_style(label_style)
        .axis_desc_style(desc_style)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .bold_line_style(GRID)
        .light_line_style(WHITE)
        .axis_style(FRAME)
        .x_labels(if named { 0 } else { 9 })
        .y_labels(8);
    if named {
        m.disable_x_mesh();
    }
    m.draw()
}

/// Our series, then the paper's over them.
fn series<X>(chart: &mut Chart<'_, '_, X>, plot: &Plot, data: &Prepared) -> DrawResult
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let n_series = data.ours.len().max(1);
    for (i, pts) in data.ours.iter().enumerate() {
        let style = our_style(i);
        match plot.kind {
            PlotKind::Line | PlotKind::Step => {
                let line = if plot.kind == PlotKind::Step {
                    steps(pts)
                } else {
                    pts.clone()
                };
                let line = thin(chart, &line);
                draw_line(chart, &line, style, 2)?;
                if plot.kind == PlotKind::Line
                    && (pts.len() <= MARKER_MAX_POINTS || line.len() == 1)
                {
                    draw_markers(chart, pts, style, MARKER_R)?;
                }
            }
            PlotKind::Points => draw_markers(chart, pts, style, MARKER_R)?,
            PlotKind::Bars => {
                let w = 0.8 / n_series as f64;
                let mut seen = vec![false; data.groups];
                let bars = pts.iter().filter_map(|&(g, y)| {
                    let k = g as usize;
                    // One bar per series and group: the first wins.
                    if seen.get(k).copied().unwrap_or(true) {
                        return None;
                    }
                    seen[k] = true;
                    let x0 = g - 0.4 + w * i as f64;
                    Some(Rectangle::new(
                        [(x0, 0.0), (x0 + w * 0.94, y)],
                        style.color.filled(),
                    ))
                });
                chart.draw_series(bars)?;
            }
        }
    }
    for (i, pts) in data.paper.iter().enumerate() {
        let style = paper_style(paper_style_index(plot, i));
        if data.bars {
            // Over the bar of the series with the same index.
            let w = 0.8 / n_series as f64;
            let at: Vec<(f64, f64)> = pts
                .iter()
                .map(|&(g, y)| (g - 0.4 + w * (i as f64 + 0.47), y))
                .collect();
            draw_markers(chart, &at, style, PAPER_MARKER_R + 1)?;
            continue;
        }
        if joins_paper_points(plot.kind, pts) {
            draw_line(chart, pts, style, 1)?;
        }
        draw_markers(chart, pts, style, PAPER_MARKER_R)?;
    }
    Ok(())
}

/// The names along x, under their positions; turned a quarter when they do not fit
/// side by side, so that none is dropped.
fn category_labels<X>(area: &Area, chart: &Chart<'_, '_, X>, data: &Prepared) -> DrawResult
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let (y_lo, _) = data.y_range;
    let style = (FONT, LABEL_PX).into_font().color(&INK);
    for (i, name) in data.names.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(i as f64, y_lo));
        let text = truncate(name, CATEGORY_MAX_CHARS);
        if data.turned {
            let s = style
                .clone()
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Right, VPos::Center));
            area.draw(&Text::new(text, (px, py + 6), s))?;
        } else {
            let s = style.clone().pos(Pos::new(HPos::Center, VPos::Top));
            area.draw(&Text::new(text, (px, py + 6), s))?;
        }
    }
    Ok(())
}

fn draw_line<X>(
    chart: &mut Chart<'_, '_, X>,
    pts: &[(f64, f64)],
    style: Style,
    width: u32,
) -> DrawResult
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    if pts.len() < 2 {
        return Ok(());
    }
    let stroke = style.color.stroke_width(width);
    match style.dash {
        Dash(0, _) => {
            chart.draw_series(LineSeries::new(pts.iter().copied(), stroke))?;
        }
        Dash(on, off) => {
            chart.draw_series(DashedLineSeries::new(pts.iter().copied(), on, off, stroke))?;
        }
    }
    Ok(())
}

fn draw_markers<X>(
    chart: &mut Chart<'_, '_, X>,
    pts: &[(f64, f64)],
    style: Style,
    r: i32,
) -> DrawResult
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    for &p in pts {
        chart.plotting_area().draw(&marker(p, style, r))?;
    }
    Ok(())
}

/// A step function's corners: each value holds until the next point's x.
fn steps(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut sorted = pts.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut v = Vec::with_capacity(sorted.len() * 2);
    for (k, &(x, y)) in sorted.iter().enumerate() {
        if k > 0 {
            v.push((x, sorted[k - 1].1));
        }
        v.push((x, y));
    }
    v
}

/// Drops vertices closer than half a pixel to the previous kept one (always keeps the
/// last), so a 100 000-sample CDF stays a few kilobytes.
fn thin<X>(chart: &Chart<'_, '_, X>, pts: &[(f64, f64)]) -> Vec<(f64, f64)>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(pts.len().min(4096));
    let mut last: Option<(i32, i32)> = None;
    for (k, &p) in pts.iter().enumerate() {
        let px = chart.backend_coord(&p);
        let near = last.is_some_and(|q| (px.0 - q.0).abs() < 1 && (px.1 - q.1).abs() < 1);
        if !near || k == pts.len() - 1 {
            out.push(p);
            last = Some(px);
        }
    }
    out
}

/// Where the legend goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Placement {
    None,
    /// Right of the data area, `width` px wide.
    Beside {
        width: i32,
    },
    /// Below the chart, in `rows` rows of equal columns.
    Below {
        rows: i32,
    },
}

struct Legend {
    labels: Vec<String>,
    styles: Vec<Style>,
    /// Whether a paper entry's points are joined by a line.
    joined: Vec<bool>,
    placement: Placement,
    col_w: i32,
}

impl Legend {
    fn of(plot: &Plot) -> Legend {
        let show = plot.series.len() + plot.paper.len() > 1
            || plot.series.iter().any(|s| !s.label.is_empty());
        let entries: Vec<(&super::Series, Style, bool)> = plot
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| (s, our_style(i), false))
            .chain(
                plot.paper
                    .iter()
                    .enumerate()
                    // An unnamed paper entry continues the one before it (no new entry).
                    .filter(|(_, s)| !s.label.is_empty())
                    .map(|(i, s)| {
                        (
                            s,
                            paper_style(paper_style_index(plot, i)),
                            joins_paper_points(plot.kind, &s.points),
                        )
                    }),
            )
            .collect();
        let labels: Vec<String> = entries
            .iter()
            .enumerate()
            .map(|(i, (s, _, _))| {
                let l = if s.label.is_empty() {
                    format!("series {}", i + 1)
                } else {
                    s.label.clone()
                };
                truncate(&l, LEGEND_MAX_CHARS)
            })
            .collect();
        let widest = labels.iter().map(|l| text_w(l)).fold(0.0, f64::max).ceil() as i32;
        let beside_w = 10 + SWATCH_W + widest + 10;
        let col_w = SWATCH_W + widest + 24;
        let placement = if !show {
            Placement::None
        } else if beside_w <= LEGEND_BESIDE_MAX_W {
            Placement::Beside { width: beside_w }
        } else {
            let cols = ((WIDTH as i32 - 8) / col_w).max(1);
            Placement::Below {
                rows: (labels.len() as i32 + cols - 1) / cols,
            }
        };
        Legend {
            labels,
            styles: entries.iter().map(|e| e.1).collect(),
            joined: entries.iter().map(|e| e.2).collect(),
            placement,
            col_w,
        }
    }

    fn draw(&self, area: &Area, kind: PlotKind) -> DrawResult {
        let label = (FONT, LABEL_PX)
            .into_font()
            .color(&INK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        let (top, cols) = match self.placement {
            Placement::Beside { width } => {
                let h = 10 + LEGEND_ROW * self.labels.len() as i32;
                area.draw(&Rectangle::new(
                    [(0, 40), (width, 40 + h)],
                    RGBColor(0xcc, 0xcc, 0xcc),
                ))?;
                (45, 1)
            }
            Placement::Below { .. } => (0, ((WIDTH as i32 - 8) / self.col_w).max(1)),
            Placement::None => return Ok(()),
        };
        let left = match self.placement {
            Placement::Below { .. } => {
                let used = cols.min(self.labels.len() as i32);
                ((WIDTH as i32 - (used * self.col_w - 24)) / 2).max(4)
            }
            _ => 10,
        };
        for (i, (text, &style)) in self.labels.iter().zip(&self.styles).enumerate() {
            let (c, r) = (i as i32 % cols, i as i32 / cols);
            let x = left + c * self.col_w;
            let y = top + r * LEGEND_ROW + LEGEND_ROW / 2;
            let swatch = |w: u32| -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
                let stroke = style.color.stroke_width(w);
                match style.dash {
                    Dash(0, _) => area.draw(&PathElement::new(vec![(x, y), (x + 24, y)], stroke)),
                    Dash(on, off) => {
                        let mut at = x;
                        while at < x + 24 {
                            let end = (at + on as i32).min(x + 24);
                            area.draw(&PathElement::new(vec![(at, y), (end, y)], stroke))?;
                            at = end + off as i32;
                        }
                        Ok(())
                    }
                }
            };
            let dot = |r: i32| marker((x + 12, y), style, r);
            if style.hollow {
                if self.joined[i] {
                    swatch(1)?;
                }
                area.draw(&dot(PAPER_MARKER_R))?;
            } else {
                match kind {
                    PlotKind::Bars => {
                        area.draw(&Rectangle::new(
                            [(x, y - 5), (x + 24, y + 5)],
                            style.color.filled(),
                        ))?;
                    }
                    PlotKind::Points => area.draw(&dot(MARKER_R))?,
                    PlotKind::Line | PlotKind::Step => {
                        swatch(2)?;
                        if kind == PlotKind::Line {
                            area.draw(&dot(MARKER_R))?;
                        }
                    }
                }
            }
            area.draw(&Text::new(text.clone(), (x + SWATCH_W, y), label.clone()))?;
        }
        Ok(())
    }
}

/// One marker centred on `at` (data or pixel coordinates), `r` px in radius.
fn marker<'e, DB: DrawingBackend + 'e, C: Clone + 'e>(
    at: C,
    style: Style,
    r: i32,
) -> DynElement<'e, DB, C> {
    let (fill, edge) = if style.hollow {
        (WHITE.filled(), style.color.stroke_width(2))
    } else {
        (style.color.mix(0.85).filled(), style.color.stroke_width(1))
    };
    let outline = |v: Vec<(i32, i32)>| {
        let mut closed = v.clone();
        closed.push(v[0]);
        EmptyElement::at(at.clone()) + Polygon::new(v, fill) + PathElement::new(closed, edge)
    };
    match style.shape {
        Shape::Circle => (EmptyElement::at(at.clone())
            + Circle::new((0, 0), r, fill)
            + Circle::new((0, 0), r, edge))
        .into_dyn(),
        Shape::Square => outline(vec![(-r, -r), (r, -r), (r, r), (-r, r)]).into_dyn(),
        Shape::Triangle => outline(vec![(0, -r - 1), (r + 1, r), (-r - 1, r)]).into_dyn(),
        Shape::Diamond => {
            outline(vec![(0, -r - 1), (r + 1, 0), (0, r + 1), (-r - 1, 0)]).into_dyn()
        }
        Shape::Cross => (EmptyElement::at(at.clone())
            + PathElement::new(vec![(-r, -r), (r, r)], style.color.stroke_width(2))
            + PathElement::new(vec![(-r, r), (r, -r)], style.color.stroke_width(2)))
        .into_dyn(),
    }
}

/// Whether the paper's points of a series are joined by a dashed line: on line plots, when
/// there are enough of them to be a curve (two points joined would suggest values between
/// them that the paper does not give).
/// The style of the paper's `i`-th entry: for bars, its own (it sits over the bar of
/// series `i`); else an unnamed entry is a further part of the named one before it
/// (the second of two lines marking a stated range, say) and shares its style.
fn paper_style_index(plot: &Plot, i: usize) -> usize {
    if plot.kind == PlotKind::Bars {
        return i;
    }
    let named = plot.paper[..=i.min(plot.paper.len().saturating_sub(1))]
        .iter()
        .filter(|s| !s.label.is_empty())
        .count();
    named.saturating_sub(1)
}

/// Two points at the same x (or y) are a vertical (horizontal) line marking one stated
/// value (a mean on a CDF, say), joined on any plot but bars.
fn joins_paper_points(kind: PlotKind, points: &[(f64, f64)]) -> bool {
    match points {
        [a, b] => kind != PlotKind::Bars && (a.0 == b.0 || a.1 == b.1),
        _ => kind == PlotKind::Line && points.len() >= 3,
    }
}

/// The fraction of a distribution below which its rise is not visible (under 2 px of
/// the plot's height).
const VISIBLE_FRACTION: f64 = 0.005;

/// The low end of a log x axis. For a distribution (step plot), where its rise becomes
/// visible: the leading points below [`VISIBLE_FRACTION`] (empty histogram buckets
/// down to the smallest bucket, or a handful of near-zero samples) would stretch the
/// axis over decades that show nothing; each series keeps the point before its first
/// visible one (at most half of its x to the left).
fn log_low(series: &[Vec<(f64, f64)>], step: bool, min: f64) -> f64 {
    if !step {
        return min;
    }
    let starts = series.iter().filter_map(|pts| {
        let k = pts.iter().position(|p| p.1 >= VISIBLE_FRACTION)?;
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

/// Labelled positions on a log axis from `lo` to `hi`: the decades, and 2 and 5 times
/// each when the axis spans few decades (else only every decade, or every few).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let decades = (b - a).max(1);
    let mults: &[f64] = if decades <= 3 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let every = (decades / 8 + 1) as usize;
    (a..=b)
        .step_by(every)
        .flat_map(|k| mults.iter().map(move |m| m * 10f64.powi(k)))
        .filter(|&v| v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9))
        .collect()
}

/// The name of bar group `x`: its category when `x` indexes one, else the number.
fn category_name(x: f64, cats: &[String]) -> String {
    if x >= 0.0 && x.fract() == 0.0 {
        if let Some(c) = cats.get(x as usize) {
            return c.clone();
        }
    }
    fmt_value(x)
}

/// A tick label: short, without trailing zeros.
fn tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    fmt_value(v)
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

/// A range with some width: a single value gets a band around it.
fn widen(lo: f64, hi: f64) -> (f64, f64) {
    if hi > lo {
        (lo, hi)
    } else {
        let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        (lo - d, hi + d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Series;

    #[test]
    fn a_distribution_axis_starts_where_its_rise_shows() {
        // Empty buckets from 1 µs, a 0.1 % tail at 2 µs, then the body from 0.1 ms.
        let mut pts = vec![(0.0, 0.0), (0.001, 0.0), (0.002, 0.001), (0.05, 0.001)];
        pts.extend([(0.1, 0.3), (1.0, 0.9), (10.0, 1.0)]);
        let lo = log_low(&[pts], true, 0.001);
        assert_eq!(lo, 0.05);
        // Not a distribution: the smallest x.
        assert_eq!(log_low(&[vec![(0.001, 5.0)]], false, 0.001), 0.001);
    }

    #[test]
    fn stated_values_as_lines_are_joined() {
        let v = [(5.0, 0.0), (5.0, 1.0)];
        let h = [(0.0, 6.13), (99.0, 6.13)];
        assert!(joins_paper_points(PlotKind::Step, &v));
        assert!(joins_paper_points(PlotKind::Line, &h));
        assert!(!joins_paper_points(
            PlotKind::Line,
            &[(1.0, 2.0), (3.0, 4.0)]
        ));
        assert!(!joins_paper_points(PlotKind::Bars, &v));
    }

    #[test]
    fn log_ticks_cover_the_range() {
        assert_eq!(log_ticks(0.4, 20.0), vec![0.5, 1.0, 2.0, 5.0, 10.0, 20.0]);
        let wide = log_ticks(1e-3, 1e9);
        assert!(wide
            .iter()
            .all(|v| (v.log10() - v.log10().round()).abs() < 1e-9));
        assert!(wide.len() <= 13);
    }

    #[test]
    fn every_category_is_named_however_many() {
        let cats: Vec<String> = (0..16).map(|i| format!("disk variant {i}")).collect();
        let plot = Plot {
            title: "t".into(),
            x_label: "disk".into(),
            y_label: "y".into(),
            kind: PlotKind::Bars,
            series: vec![Series {
                label: "a".into(),
                points: (0..16).map(|i| (i as f64, 1.0 + i as f64)).collect(),
            }],
            log_x: false,
            paper: Vec::new(),
            x_categories: cats.clone(),
        };
        let svg = svg_plot(&plot);
        for c in &cats {
            assert!(svg.contains(&format!(">\n{c}\n<")), "{c} missing");
        }
    }
}
