//! Parameter sweeps: a grid of `spindle run` options expanded to points (the cartesian
//! product), each point run as `spindle run` would run it, one row of metrics per point.
//!
//! The grid is data shared by every front: the CLI reads it from TOML (`[grid]`,
//! `[fixed]`), Python passes a dict, and both go through [`Grid::new`], so the points,
//! their order, their keys and their rows are the same whichever front (or Ray worker)
//! runs them.
//!
//! * **Order.** Axes keep the order they were given in (file order, dict order); the
//!   first axis varies slowest, as in nested loops or `itertools.product`. A point's
//!   index is its position in that order.
//! * **Key.** A point's key is a hash (FNV-1a, 64 bits, hex) of every option it runs
//!   with, fixed ones included, as `spindle run` flags sorted by name. It does not depend
//!   on the grid's shape, so a grown grid (one more seed) still finds the rows already
//!   computed, and a changed fixed option does not reuse rows of another sweep.
//! * **Determinism.** A point runs from its options alone (the simulator is seeded), so
//!   the same point gives the same row, bit for bit, on any thread or machine.

use crate::options::{flag_name, from_pairs, takes_list, MAX_PAIRS};
use crate::run::{load_workload, run_config, Outcome};
use anyhow::{anyhow, bail, Context, Result};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Most points one grid may expand to (checked from the axes' lengths before expanding).
pub const MAX_POINTS: usize = 100_000;
/// Most axes one grid may have.
pub const MAX_AXES: usize = 32;
/// `--jobs`: points run at once.
pub const MAX_JOBS: usize = 1024;
/// The grid file, bytes.
pub const MAX_GRID_BYTES: u64 = 1 << 20;
/// A running sweep rewrites its output at most this often, so an interrupted sweep
/// resumes from where it was (seconds).
const CHECKPOINT_S: u64 = 30;

/// One option value: a grid value or a fixed option's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// The values of a repeatable flag (`--layer`), one grid value: the flag is given
    /// once per element, in order. Elements are strings or numbers ([`Grid::new`]
    /// refuses anything else); its column holds it as JSON text (`["drr"]`).
    List(Vec<Value>),
}

/// How a grid value that is a list within a list is refused, on every front.
pub const NESTED_TOO_DEEP: &str = "nested too deep: a grid value is one value or a list of strings or numbers (a list only for a repeatable flag such as layer: layer = [[\"drr\"], [\"content-cache:arc:50000\", \"drr\"]])";

impl Value {
    fn kind(&self) -> Kind {
        match self {
            Value::Bool(_) => Kind::Bool,
            Value::Int(_) => Kind::Int,
            Value::Float(_) => Kind::Float,
            // A list's column holds its JSON text.
            Value::Str(_) | Value::List(_) => Kind::Str,
        }
    }

    /// The flag's value on the command line; `None` for a switch (`true`). `false`
    /// leaves the flag out and a list repeats it (see [`push_flag`]).
    fn arg(&self) -> Option<String> {
        match self {
            Value::Bool(_) => None,
            Value::Int(i) => Some(i.to_string()),
            // Rust's shortest round-trip form: the flag parses back to the same f64.
            Value::Float(f) => Some(f.to_string()),
            Value::Str(s) => Some(s.clone()),
            Value::List(_) => Some(self.to_string()),
        }
    }

    /// The value as its column stores it.
    fn as_column(&self, kind: Kind) -> Value {
        match (self, kind) {
            (Value::Int(i), Kind::Float) => Value::Float(*i as f64),
            (Value::List(_), _) => Value::Str(self.to_string()),
            (v, _) => v.clone(),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Str(s) => write!(f, "{s:?}"),
            // JSON (and TOML) text, the same on every platform: `["a", 2]`.
            Value::List(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match v {
                        Value::Str(s) => {
                            f.write_str(&serde_json::to_string(s).map_err(|_| fmt::Error)?)?
                        }
                        v => write!(f, "{v}")?,
                    }
                }
                f.write_str("]")
            }
        }
    }
}

/// A column's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Bool,
    Int,
    Float,
    Str,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bool => "bool",
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::Str => "str",
        }
    }
}

/// One axis of the grid: an option and the values it takes.
#[derive(Clone, Debug)]
pub struct Axis {
    /// The column name: the option's name with `_` for `-` (`queue_depth`).
    pub name: String,
    /// Where it was given, for errors (`grid.toml:4: grid.queue_depth`).
    pub at: String,
    pub values: Vec<Value>,
    pub kind: Kind,
}

/// A grid: its axes and the options every point shares.
#[derive(Clone, Debug)]
pub struct Grid {
    pub axes: Vec<Axis>,
    /// (option name, value), in the order given; a repeated name repeats the flag.
    pub fixed: Vec<(String, Value)>,
    len: usize,
}

/// One point of a grid.
#[derive(Clone, Debug)]
pub struct Point {
    pub index: usize,
    pub key: String,
    /// One value per axis, as the axis's column stores it.
    pub params: Vec<Value>,
    /// The point's options as `spindle run` flag pairs, fixed ones first.
    pub pairs: Vec<(String, Option<String>)>,
}

impl Point {
    /// `scheduler="sstf", queue_depth=4`, for messages.
    pub fn describe(&self, grid: &Grid) -> String {
        let v: Vec<String> = grid
            .axes
            .iter()
            .zip(&self.params)
            .map(|(a, v)| match (&a.values[0], v) {
                // A list's column text is JSON already: shown as it is.
                (Value::List(_), Value::Str(s)) => format!("{}={s}", a.name),
                _ => format!("{}={v}", a.name),
            })
            .collect();
        format!("point {} ({})", self.index, v.join(", "))
    }
}

/// One result row: the point and what its run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub point: usize,
    pub key: String,
    pub params: Vec<Value>,
    /// One value per [`METRICS`] entry.
    pub metrics: Vec<Value>,
}

/// The metric columns of a row, in order, with their types.
pub const METRICS: &[(&str, Kind)] = &[
    ("requests", Kind::Int),
    ("reads", Kind::Int),
    ("writes", Kind::Int),
    ("mean_response_ms", Kind::Float),
    ("p50_response_ms", Kind::Float),
    ("p90_response_ms", Kind::Float),
    ("p99_response_ms", Kind::Float),
    ("max_response_ms", Kind::Float),
    ("mean_service_ms", Kind::Float),
    ("mean_queue_ms", Kind::Float),
    ("mean_overhead_ms", Kind::Float),
    ("mean_seek_ms", Kind::Float),
    ("mean_rotation_ms", Kind::Float),
    ("mean_transfer_ms", Kind::Float),
    ("cache_hit_fraction", Kind::Float),
    ("throughput_per_s", Kind::Float),
    ("makespan_ms", Kind::Float),
    ("total_disk_time_ms", Kind::Float),
    ("drives", Kind::Int),
    ("utilization_mean", Kind::Float),
    ("utilization_max", Kind::Float),
];

/// The leading columns of a row: the point's index and key.
pub const POINT_COLUMN: &str = "point";
pub const KEY_COLUMN: &str = "key";

fn metric_values(o: &Outcome) -> Vec<Value> {
    let m = &o.metrics;
    let u = &m.utilization;
    let int = |n: usize| Value::Int(n as i64);
    let util_mean = if u.is_empty() {
        0.0
    } else {
        u.iter().sum::<f64>() / u.len() as f64
    };
    vec![
        int(m.requests),
        int(m.reads),
        int(m.writes),
        Value::Float(m.mean_response_ms),
        Value::Float(m.p50_response_ms),
        Value::Float(m.p90_response_ms),
        Value::Float(m.p99_response_ms),
        Value::Float(m.max_response_ms),
        Value::Float(m.mean_service_ms),
        Value::Float(m.mean_queue_ms),
        Value::Float(m.mean_breakdown.overhead_ms),
        Value::Float(m.mean_breakdown.seek_ms),
        Value::Float(m.mean_breakdown.rotation_ms),
        Value::Float(m.mean_breakdown.transfer_ms),
        Value::Float(m.cache_hit_fraction),
        Value::Float(m.throughput_per_s),
        Value::Float(m.makespan_ms),
        Value::Float(m.total_disk_time_ms),
        int(u.len()),
        Value::Float(util_mean),
        Value::Float(u.iter().copied().fold(0.0, f64::max)),
    ]
}

/// An option's column name: `queue-depth` and `--queue_depth` are `queue_depth`.
pub fn column_name(option: &str) -> String {
    option.trim().trim_start_matches('-').replace('-', "_")
}

/// Appends the flag pair(s) of `name = value`: `true` is a switch, `false` leaves it out,
/// a list gives the flag once per element, in order.
fn push_flag(pairs: &mut Vec<(String, Option<String>)>, name: &str, value: &Value) {
    match value {
        Value::Bool(false) => {}
        Value::List(items) => {
            for v in items {
                pairs.push((name.to_string(), v.arg()));
            }
        }
        v => pairs.push((name.to_string(), v.arg())),
    }
}

/// FNV-1a, 64 bits: small, stable across platforms and releases (a point's key must
/// not change when the standard library's hasher does).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The key of a run with these flag pairs: flags sorted by name (a repeated flag keeps
/// its order, which matters for `--layer`), hashed.
fn key_of(pairs: &[(String, Option<String>)]) -> String {
    let mut flags: Vec<(String, &Option<String>)> =
        pairs.iter().map(|(n, v)| (flag_name(n), v)).collect();
    flags.sort_by(|a, b| a.0.cmp(&b.0));
    let mut text = String::new();
    for (flag, value) in flags {
        text += &flag;
        if let Some(v) = value {
            text.push('=');
            text += v;
        }
        text.push('\n');
    }
    format!("{:016x}", fnv1a(text.as_bytes()))
}

/// An axis whose values are lists (a repeatable flag's values, one list a point): every
/// value a list, each of one or more strings or numbers, and the option repeatable.
fn check_lists(name: &str, at: &str, values: &[Value]) -> Result<()> {
    let Some(list) = values.iter().find(|v| matches!(v, Value::List(_))) else {
        return Ok(());
    };
    if let Some(one) = values.iter().find(|v| !matches!(v, Value::List(_))) {
        bail!(
            "{at}: value {one} is a single value but {list} is a list; on an axis of lists every value is a list (write [{one}])"
        );
    }
    for v in values {
        let Value::List(items) = v else { continue };
        if items.is_empty() {
            bail!("{at}: value [] is an empty list; each value of an axis of lists gives the flag one or more times ({name} = [[\"drr\"], [\"content-cache:arc:50000\", \"drr\"]])");
        }
        for item in items {
            match item {
                Value::List(_) => bail!("{at}: value {v} is {NESTED_TOO_DEEP}"),
                Value::Bool(_) => bail!(
                    "{at}: value {v} holds {item}; a list holds the values of a repeatable flag (strings or numbers), not switches"
                ),
                _ => {}
            }
        }
    }
    let flag = flag_name(name);
    if takes_list(name) == Some(false) {
        bail!(
            "{at}: value {list} is a list, but {flag} takes one value; only a repeatable flag (such as --layer) takes a list as one grid value (a plain list gives one value a point: {name} = [a, b], not [[a], [b]])"
        );
    }
    Ok(())
}

fn is_reserved(name: &str) -> bool {
    name == POINT_COLUMN || name == KEY_COLUMN || METRICS.iter().any(|(m, _)| *m == name)
}

impl Grid {
    /// A grid of `axes` (name, where given, values) and `fixed` options (name, where
    /// given, value). Checks names, types and the grid's size before anything expands.
    pub fn new(
        axes: Vec<(String, String, Vec<Value>)>,
        fixed: Vec<(String, String, Value)>,
    ) -> Result<Grid> {
        if axes.len() > MAX_AXES {
            bail!(
                "the grid has {} keys; at most {MAX_AXES} are supported",
                axes.len()
            );
        }
        let mut seen: HashMap<String, String> = HashMap::new();
        let mut check_name = |name: &str, at: &str| -> Result<String> {
            let col = column_name(name);
            if col.is_empty() || !col.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                bail!("{at}: `{name}` is not an option name; expected a `spindle run` option such as queue_depth");
            }
            if is_reserved(&col) {
                bail!("{at}: `{col}` names a result column, not a `spindle run` option");
            }
            if let Some(first) = seen.insert(col.clone(), at.to_string()) {
                bail!("{at}: option `{col}` is given twice (also at {first})");
            }
            Ok(col)
        };
        let mut grid_axes = Vec::with_capacity(axes.len());
        let mut len: usize = 1;
        for (name, at, values) in axes {
            let name = check_name(&name, &at)?;
            if values.is_empty() {
                bail!("{at}: an empty list; expected at least one value");
            }
            len = len.checked_mul(values.len()).filter(|&n| n <= MAX_POINTS).ok_or_else(|| {
                anyhow!("{at}: the grid would have more than {MAX_POINTS} points (the limit of one sweep); split it into smaller sweeps")
            })?;
            check_lists(&name, &at, &values)?;
            let mut kind = values[0].kind();
            for v in &values {
                kind = match (kind, v.kind()) {
                    (a, b) if a == b => a,
                    (Kind::Int | Kind::Float, Kind::Int | Kind::Float) => Kind::Float,
                    (a, b) => bail!(
                        "{at}: values of one type expected (all strings, numbers or booleans), got a {} and a {}",
                        a.name(),
                        b.name()
                    ),
                };
            }
            for (i, v) in values.iter().enumerate() {
                if values[..i].contains(v) {
                    bail!("{at}: value {v} is given twice");
                }
            }
            grid_axes.push(Axis {
                name,
                at,
                values,
                kind,
            });
        }
        let mut grid_fixed = Vec::with_capacity(fixed.len());
        for (name, at, value) in fixed {
            // A list in the fixed options repeats its flag: the names come in a row.
            let repeated = grid_fixed
                .last()
                .is_some_and(|(n, _): &(String, Value)| *n == column_name(&name));
            let name = if repeated {
                if takes_list(&name) == Some(false) {
                    bail!(
                        "{at}: a list of values, but {} takes one value; to run each value, make it an axis of the grid",
                        flag_name(&name)
                    );
                }
                column_name(&name)
            } else {
                check_name(&name, &at)?
            };
            grid_fixed.push((name, value));
        }
        if grid_fixed.len() + grid_axes.len() > MAX_PAIRS {
            bail!("at most {MAX_PAIRS} options per run");
        }
        Ok(Grid {
            axes: grid_axes,
            fixed: grid_fixed,
            len,
        })
    }

    /// Reads a grid file (see `spindle sweep --help` for its format). A file without
    /// `[grid]` keys is refused: it has no points to sweep.
    pub fn from_toml(text: &str, file: &str) -> Result<Grid> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct GridFile {
            #[serde(default)]
            grid: BTreeMap<String, toml::Spanned<toml::Value>>,
            #[serde(default)]
            fixed: BTreeMap<String, toml::Spanned<toml::Value>>,
        }
        let parsed: GridFile = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            let msg = e.message().trim_end().to_string();
            match line {
                Some(l) => anyhow!("{file}:{l}: {msg} (a grid file has a [grid] table of lists and an optional [fixed] table)"),
                None => anyhow!("{file}: {msg}"),
            }
        })?;
        // A file without grid keys (empty, only comments, an empty [grid], only [fixed])
        // is not a sweep: it would run one point of defaults or of [fixed] alone.
        if parsed.grid.is_empty() {
            bail!(
                "{file}: no points: the file has no [grid] keys; expected a [grid] table of lists, one per option to vary (e.g. [grid] then seed = [1, 2]); to run one point, give one key a one-value list (seed = [1])"
            );
        }
        // The tables are sorted by name; their file order is the axes' order.
        let in_file_order = |t: BTreeMap<String, toml::Spanned<toml::Value>>| {
            let mut v: Vec<_> = t.into_iter().collect();
            v.sort_by_key(|(_, s)| s.span().start);
            v
        };
        let mut axes = Vec::new();
        for (name, spanned) in in_file_order(parsed.grid) {
            let at = format!(
                "{file}:{}: grid.{name}",
                line_of(text, spanned.span().start)
            );
            let values = match spanned.into_inner() {
                toml::Value::Array(items) => items
                    .into_iter()
                    .map(|v| grid_value(v, &at))
                    .collect::<Result<Vec<_>>>()?,
                other => bail!(
                    "{at}: expected a list of values (e.g. {name} = [1, 2]), got {}; put a single value in [fixed]",
                    toml_type(&other)
                ),
            };
            axes.push((name, at, values));
        }
        let mut fixed = Vec::new();
        for (name, spanned) in in_file_order(parsed.fixed) {
            let at = format!(
                "{file}:{}: fixed.{name}",
                line_of(text, spanned.span().start)
            );
            match spanned.into_inner() {
                toml::Value::Array(items) => {
                    for v in items {
                        fixed.push((name.clone(), at.clone(), scalar(v, &at)?));
                    }
                }
                v => fixed.push((name.clone(), at.clone(), scalar(v, &at)?)),
            }
        }
        if axes.len() > MAX_AXES {
            bail!(
                "{file}: the grid has {} keys; at most {MAX_AXES} are supported",
                axes.len()
            );
        }
        Grid::new(axes, fixed)
    }

    /// Points in the grid.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The point at `index` (< `len()`): the last axis varies fastest.
    pub fn point(&self, index: usize) -> Point {
        let mut rest = index;
        let mut picks = vec![0; self.axes.len()];
        for (pick, axis) in picks.iter_mut().zip(&self.axes).rev() {
            *pick = rest % axis.values.len();
            rest /= axis.values.len();
        }
        let mut pairs = Vec::with_capacity(self.fixed.len() + self.axes.len());
        for (name, value) in &self.fixed {
            push_flag(&mut pairs, name, value);
        }
        let mut params = Vec::with_capacity(self.axes.len());
        for (axis, &pick) in self.axes.iter().zip(&picks) {
            let v = &axis.values[pick];
            push_flag(&mut pairs, &axis.name, v);
            params.push(v.as_column(axis.kind));
        }
        Point {
            index,
            key: key_of(&pairs),
            params,
            pairs,
        }
    }

    /// The columns of a row, with their types.
    pub fn columns(&self) -> Vec<(String, Kind)> {
        let mut c = vec![
            (POINT_COLUMN.to_string(), Kind::Int),
            (KEY_COLUMN.to_string(), Kind::Str),
        ];
        c.extend(self.axes.iter().map(|a| (a.name.clone(), a.kind)));
        c.extend(METRICS.iter().map(|(n, k)| (n.to_string(), *k)));
        c
    }

    /// Checks that every point's options parse and make a configuration, before any
    /// runs: a bad value is reported with its point, not after an hour of sweeping.
    /// Returns the files the points read (configurations, traces, Disk Mimic and
    /// miniMimic tables, drive files), which no output may overwrite.
    pub fn check(&self) -> Result<Vec<PathBuf>> {
        // Each drive model is loaded once, whichever points name it; each distinct
        // stack (the configuration without its workload and seed) is built once, as
        // the run builds it, so what only the built stack refuses is found here too.
        let mut drives_read = Vec::new();
        let mut stacks_built: std::collections::HashSet<String> = Default::default();
        // The files read: each point's configuration and trace, each stack's tables
        // and drive files once.
        let mut files: std::collections::BTreeSet<PathBuf> = Default::default();
        for i in 0..self.len {
            let p = self.point(i);
            let checked = from_pairs(p.pairs.clone())
                .and_then(|o| o.config())
                .and_then(|c| {
                    c.workload.check().map_err(|e| anyhow!("{e}"))?;
                    spindle::layers::check_layers(&c.layer).map_err(|e| anyhow!(e))?;
                    let tree = c.device_tree().map_err(|e| anyhow!("{e}"))?;
                    tree.check_drive_count().map_err(|e| anyhow!(e))?;
                    tree.check_cylinder_layouts("device")
                        .map_err(|e| anyhow!(e))?;
                    // A layout engine builds its RAID-4 from one set of drive
                    // parameters, which a drive of several arms has not.
                    let layout = c.layout.is_some();
                    let disks = tree.disks();
                    files.extend(crate::outputs::workload_inputs(&c));
                    for d in &disks {
                        if !drives_read.contains(&(layout, d.clone())) {
                            if layout {
                                d.params("disks").map(drop)
                            } else {
                                d.check_drive("device")
                            }
                            .map_err(|e| anyhow!(e))?;
                            drives_read.push((layout, d.clone()));
                        }
                    }
                    let mut stack = c.clone();
                    stack.workload = Default::default();
                    stack.seed = 0;
                    let key = toml::to_string(&stack).map_err(|e| anyhow!("{e}"))?;
                    if stacks_built.insert(key) {
                        files.extend(crate::outputs::stack_inputs(&c, &disks));
                        c.build().map_err(|e| anyhow!("{e}"))?;
                    }
                    Ok(())
                });
            if let Err(e) = checked {
                bail!("{}: {e:#}", p.describe(self));
            }
        }
        Ok(files.into_iter().collect())
    }
}

/// One value of a grid axis: a scalar, or a list (of scalars: [`Grid::new`] names a
/// list nested in it as too deep, and anything deeper is refused here).
fn grid_value(v: toml::Value, at: &str) -> Result<Value> {
    let toml::Value::Array(items) = v else {
        return scalar(v, at);
    };
    let text = toml::Value::Array(items.clone()).to_string();
    let element = |v: toml::Value| match v {
        toml::Value::Array(inner) => {
            if inner.iter().any(|v| v.is_array()) {
                bail!("{at}: value {text} is {NESTED_TOO_DEEP}");
            }
            inner
                .into_iter()
                .map(|v| scalar(v, at))
                .collect::<Result<Vec<_>>>()
                .map(Value::List)
        }
        v => scalar(v, at),
    };
    items
        .into_iter()
        .map(element)
        .collect::<Result<Vec<_>>>()
        .map(Value::List)
}

/// A TOML scalar as a value; anything else is an error at `at`.
fn scalar(v: toml::Value, at: &str) -> Result<Value> {
    Ok(match v {
        toml::Value::String(s) => Value::Str(s),
        toml::Value::Integer(i) => Value::Int(i),
        toml::Value::Float(f) => Value::Float(f),
        toml::Value::Boolean(b) => Value::Bool(b),
        other => bail!(
            "{at}: expected a string, number or boolean, got {}",
            toml_type(&other)
        ),
    })
}

fn toml_type(v: &toml::Value) -> &'static str {
    match v {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a float",
        toml::Value::Boolean(_) => "a boolean",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "a list",
        toml::Value::Table(_) => "a table",
    }
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Runs one point as `spindle run` runs its options (without a progress bar).
pub fn run_point(grid: &Grid, index: usize) -> Result<Row> {
    let p = grid.point(index);
    let run = || -> Result<Row> {
        let c = from_pairs(p.pairs.clone())?.config()?;
        let mut w = load_workload(&c)?;
        let o = run_config(&c, &mut w, "", &mut |_| Ok(()))?;
        Ok(Row {
            point: p.index,
            key: p.key.clone(),
            params: p.params.clone(),
            metrics: metric_values(&o),
        })
    };
    run().map_err(|e| anyhow!("{}: {e:#}", p.describe(grid)))
}

/// Runs the points `todo` on `jobs` threads. `on_row` sees each row as it arrives, on
/// the calling thread; an error from it (or from a point) stops the sweep: no new point
/// starts, running ones finish. Returns the rows done (in point order) and the error.
///
/// Threads, not processes: a point is pure Rust with no shared state and no global
/// interpreter lock, so threads run points in parallel with no start-up or copying cost.
pub fn run_points(
    grid: &Grid,
    todo: &[usize],
    jobs: usize,
    on_row: &mut dyn FnMut(&Row) -> Result<()>,
) -> (Vec<Row>, Option<anyhow::Error>) {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // Asked to stop from outside (Python's Ctrl-C): no further point starts.
    let watch = spindle::interrupt::Watch::start();
    let mut rows = Vec::with_capacity(todo.len());
    let mut error = None;
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<Result<Row>>();
        let mut spawned = 0;
        for _ in 0..jobs.clamp(1, todo.len().max(1)) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            // The system may give fewer threads than asked: the sweep runs on those
            // it got, and fails only if it got none.
            let thread = std::thread::Builder::new().spawn_scoped(s, move || {
                while !stop.load(Ordering::Relaxed) {
                    let Some(&index) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let row = if watch.stopped() {
                        Err(anyhow!(spindle::interrupt::MESSAGE))
                    } else {
                        run_point(grid, index)
                    };
                    if tx.send(row).is_err() {
                        break;
                    }
                }
            });
            match thread {
                Ok(_) => spawned += 1,
                Err(_) if spawned > 0 => break,
                Err(e) => {
                    error = Some(anyhow!("cannot start a thread to run the points: {e}"));
                    break;
                }
            }
        }
        drop(tx);
        for r in rx {
            match r.and_then(|row| on_row(&row).map(|_| row)) {
                Ok(row) => rows.push(row),
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    error.get_or_insert(e);
                }
            }
        }
    });
    rows.sort_by_key(|r| r.point);
    (rows, error)
}

/// The rows of an earlier sweep's output for this grid's points, by key. A row whose
/// key is not a point of this grid is an error: the file belongs to another sweep.
pub fn read_rows(path: &Path, grid: &Grid) -> Result<Vec<Row>> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    let at = path.display();
    let file = std::fs::File::open(path).with_context(|| format!("{at}: cannot open"))?;
    let reader = SerializedFileReader::new(file)
        .map_err(|e| anyhow!("{at}: not a Parquet file spindle can read: {e}"))?;
    let names: Vec<String> = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    let col = |name: &str| {
        names.iter().position(|n| n == name).ok_or_else(|| {
            anyhow!("{at}: no column `{name}`; not the output of a sweep of this grid (write to another file or remove it)")
        })
    };
    let key_col = col(KEY_COLUMN)?;
    let metric_cols = METRICS
        .iter()
        .map(|(m, _)| col(m))
        .collect::<Result<Vec<_>>>()?;
    let by_key: HashMap<String, usize> = (0..grid.len()).map(|i| (grid.point(i).key, i)).collect();
    let mut rows: Vec<Row> = Vec::new();
    let mut seen = HashMap::new();
    let iter = reader
        .get_row_iter(None)
        .map_err(|e| anyhow!("{at}: cannot read: {e}"))?;
    for (n, record) in iter.enumerate() {
        let record = record.map_err(|e| anyhow!("{at}: cannot read row {n}: {e}"))?;
        let fields: Vec<&Field> = record.get_column_iter().map(|(_, f)| f).collect();
        let key = match fields.get(key_col) {
            Some(Field::Str(k)) => k.clone(),
            _ => bail!("{at}: row {n}: column `key` holds no string"),
        };
        let Some(&index) = by_key.get(&key) else {
            bail!("{at}: row {n} (key {key}) is not a point of this grid: the file holds another sweep's results (write to another file or remove it)");
        };
        if seen.insert(key.clone(), n).is_some() {
            bail!("{at}: key {key} appears in two rows");
        }
        let mut metrics = Vec::with_capacity(METRICS.len());
        for ((name, kind), &c) in METRICS.iter().zip(&metric_cols) {
            metrics.push(match (kind, fields.get(c)) {
                (Kind::Int, Some(Field::Long(v))) => Value::Int(*v),
                (Kind::Float, Some(Field::Double(v))) => Value::Float(*v),
                (_, f) => bail!(
                    "{at}: row {n}: column `{name}` holds {}; expected a {}",
                    f.map_or("nothing".to_string(), |f| format!("`{f}`")),
                    kind.name()
                ),
            });
        }
        let p = grid.point(index);
        rows.push(Row {
            point: index,
            key,
            params: p.params,
            metrics,
        });
    }
    rows.sort_by_key(|r| r.point);
    Ok(rows)
}

/// Writes rows (sorted by point) as Parquet, uncompressed, through a temporary file
/// renamed into place: an interrupted write leaves the old file whole.
pub fn write_parquet(path: &Path, grid: &Grid, rows: &[Row]) -> Result<()> {
    use parquet::basic::{LogicalType, Repetition, Type as Physical};
    use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::types::Type;
    use std::sync::Arc;

    let columns = grid.columns();
    let fields = columns
        .iter()
        .map(|(name, kind)| {
            let physical = match kind {
                Kind::Bool => Physical::BOOLEAN,
                Kind::Int => Physical::INT64,
                Kind::Float => Physical::DOUBLE,
                Kind::Str => Physical::BYTE_ARRAY,
            };
            let t = Type::primitive_type_builder(name, physical)
                .with_repetition(Repetition::REQUIRED)
                .with_logical_type((*kind == Kind::Str).then_some(LogicalType::String))
                .build()?;
            Ok(Arc::new(t))
        })
        .collect::<parquet::errors::Result<Vec<_>>>()?;
    let schema = Arc::new(
        Type::group_type_builder("sweep")
            .with_fields(fields)
            .build()?,
    );
    let tmp = tmp_path(path);
    let write = || -> Result<()> {
        let file = std::fs::File::create(&tmp)?;
        let props = WriterProperties::builder()
            .set_created_by(format!("spindle {}", env!("CARGO_PKG_VERSION")))
            .build();
        let mut w = SerializedFileWriter::new(file, schema, Arc::new(props))?;
        let mut group = w.next_row_group()?;
        let mut c = 0;
        while let Some(mut cw) = group.next_column()? {
            let value = |r: &Row| -> Value {
                match c {
                    0 => Value::Int(r.point as i64),
                    1 => Value::Str(r.key.clone()),
                    c if c < 2 + r.params.len() => r.params[c - 2].clone(),
                    c => r.metrics[c - 2 - r.params.len()].clone(),
                }
            };
            let values: Vec<Value> = rows.iter().map(value).collect();
            match columns[c].1 {
                Kind::Int => {
                    let v: Vec<i64> = values
                        .iter()
                        .map(|v| if let Value::Int(i) = v { *i } else { 0 })
                        .collect();
                    cw.typed::<Int64Type>().write_batch(&v, None, None)?;
                }
                Kind::Float => {
                    let v: Vec<f64> = values
                        .iter()
                        .map(|v| if let Value::Float(f) = v { *f } else { 0.0 })
                        .collect();
                    cw.typed::<DoubleType>().write_batch(&v, None, None)?;
                }
                Kind::Bool => {
                    let v: Vec<bool> = values.iter().map(|v| *v == Value::Bool(true)).collect();
                    cw.typed::<BoolType>().write_batch(&v, None, None)?;
                }
                Kind::Str => {
                    let v: Vec<ByteArray> = values
                        .iter()
                        .map(|v| match v {
                            Value::Str(s) => ByteArray::from(s.as_str()),
                            _ => ByteArray::from(""),
                        })
                        .collect();
                    cw.typed::<ByteArrayType>().write_batch(&v, None, None)?;
                }
            }
            cw.close()?;
            c += 1;
        }
        group.close()?;
        w.close()?;
        Ok(())
    };
    write()
        .and_then(|_| std::fs::rename(&tmp, path).map_err(Into::into))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            anyhow!("{}: cannot write: {e}", path.display())
        })
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Writes rows as CSV: a header of the columns, one line per row; floats in their
/// shortest form that reads back to the same number.
pub fn write_csv(path: &Path, grid: &Grid, rows: &[Row]) -> Result<()> {
    let quoted = |s: String| {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s
        }
    };
    let cell = |v: &Value| match v {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::Str(s) => quoted(s.clone()),
        // Columns hold a list as its text (`as_column`).
        Value::List(_) => quoted(v.to_string()),
    };
    let header: Vec<String> = grid.columns().into_iter().map(|(n, _)| n).collect();
    let mut text = header.join(",") + "\n";
    for r in rows {
        let mut cells = vec![r.point.to_string(), r.key.clone()];
        cells.extend(r.params.iter().chain(&r.metrics).map(cell));
        text += &cells.join(",");
        text.push('\n');
    }
    let tmp = tmp_path(path);
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| anyhow!("{}: cannot write: {e}", path.display()))
}

/// Old rows and new ones, in point order.
fn merged(old: &[Row], new: &[Row]) -> Vec<Row> {
    let mut all: Vec<Row> = old.iter().chain(new).cloned().collect();
    all.sort_by_key(|r| r.point);
    all
}

/// `spindle sweep`'s settings.
pub struct SweepArgs<'a> {
    pub grid: &'a Path,
    pub out: &'a Path,
    pub csv: Option<&'a Path>,
    pub jobs: Option<usize>,
    pub list: bool,
}

/// `spindle sweep`: runs the grid's points not yet in `out`, writes all rows to `out`
/// (and `csv`), and returns a summary line.
pub fn sweep(a: &SweepArgs) -> Result<String> {
    let file = a.grid.display().to_string();
    let text = crate::limits::read_text(a.grid, MAX_GRID_BYTES)?;
    let grid = Grid::from_toml(&text, &file)?;
    if a.list {
        let mut s = String::new();
        for i in 0..grid.len() {
            let p = grid.point(i);
            // The options are parsed (not built, which takes the full check): a
            // listed point is one `spindle run` accepts as written.
            from_pairs(p.pairs.clone())
                .and_then(|o| o.config())
                .map_err(|e| anyhow!("{file}: {}: {e:#}", p.describe(&grid)))?;
            s += &format!("{}  {}\n", p.key, p.describe(&grid));
        }
        return Ok(s);
    }
    let read = grid.check().map_err(|e| anyhow!("{file}: {e:#}"))?;
    let read: Vec<&Path> = read.iter().map(PathBuf::as_path).collect();
    let outputs = std::iter::once(("--out", a.out)).chain(a.csv.map(|c| ("--csv", c)));
    for (flag, out) in outputs {
        crate::outputs::check_output(flag, out, &read)?;
        // Written last, beside the target: a folder that takes no file fails now.
        let tmp = tmp_path(out);
        if !tmp.exists() {
            std::fs::File::create(&tmp)
                .and_then(|_| std::fs::remove_file(&tmp))
                .map_err(|e| anyhow!("{flag} {}: cannot write beside it: {e}", out.display()))?;
        }
    }
    let jobs = match a.jobs {
        Some(j) => {
            crate::limits::count("--jobs", j as u64, MAX_JOBS as u64)?;
            j
        }
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let old = if a.out.exists() {
        read_rows(a.out, &grid)?
    } else {
        Vec::new()
    };
    let done: std::collections::HashSet<usize> = old.iter().map(|r| r.point).collect();
    let todo: Vec<usize> = (0..grid.len()).filter(|i| !done.contains(i)).collect();
    let started = std::time::Instant::now();
    let mut bar = crate::progress::Progress::new(todo.len() as u64, "sweep");
    let mut fresh: Vec<Row> = Vec::new();
    let mut last_write = std::time::Instant::now();
    let (new, error) = run_points(&grid, &todo, jobs, &mut |row| {
        fresh.push(row.clone());
        bar.step(fresh.len() as u64);
        if last_write.elapsed().as_secs() >= CHECKPOINT_S {
            write_parquet(a.out, &grid, &merged(&old, &fresh))?;
            last_write = std::time::Instant::now();
        }
        Ok(())
    });
    bar.finish();
    let all = merged(&old, &new);
    write_parquet(a.out, &grid, &all)?;
    if let Some(csv) = a.csv {
        write_csv(csv, &grid, &all)?;
    }
    if let Some(e) = error {
        return Err(e.context(format!(
            "{file}: sweep stopped; {} of {} points are in {} (run again to resume)",
            all.len(),
            grid.len(),
            a.out.display()
        )));
    }
    let threads = jobs.min(todo.len()).max(1);
    Ok(format!(
        "{} points: {} run in {:.1} s on {threads} thread{}, {} already in {}; wrote {}{}\n",
        grid.len(),
        new.len(),
        started.elapsed().as_secs_f64(),
        if threads == 1 { "" } else { "s" },
        old.len(),
        a.out.display(),
        a.out.display(),
        a.csv
            .map_or(String::new(), |c| format!(" and {}", c.display()))
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(text: &str) -> Result<Grid> {
        Grid::from_toml(text, "g.toml")
    }

    #[test]
    fn points_are_the_product_in_file_order_last_key_fastest() {
        let g = grid(
            "[grid]\nscheduler = [\"fcfs\", \"sstf\"]\nqueue_depth = [1, 2, 4]\n[fixed]\nlimit = 100\n",
        )
        .unwrap();
        assert_eq!(g.len(), 6);
        let names: Vec<&str> = g.axes.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["scheduler", "queue_depth"]);
        let p = g.point(4);
        assert_eq!(p.params, [Value::Str("sstf".into()), Value::Int(2)]);
        assert_eq!(
            p.pairs,
            [
                ("limit".into(), Some("100".into())),
                ("scheduler".into(), Some("sstf".into())),
                ("queue_depth".into(), Some("2".into())),
            ]
        );
        let keys: std::collections::HashSet<String> = (0..6).map(|i| g.point(i).key).collect();
        assert_eq!(keys.len(), 6);
    }

    #[test]
    fn keys_depend_on_the_options_not_on_the_grid_shape() {
        let a = grid("[grid]\nseed = [1, 2]\nqueue-depth = [4]\n").unwrap();
        let b = grid("[grid]\nqueue_depth = [4, 8]\nseed = [3, 2]\n").unwrap();
        // seed 2 at queue depth 4: point 1 of a, point 1 of b.
        assert_eq!(a.point(1).key, b.point(1).key);
        assert_ne!(a.point(0).key, b.point(0).key);
        // A fixed option is part of the key.
        let c = grid("[grid]\nseed = [1, 2]\nqueue-depth = [4]\n[fixed]\nlimit = 5\n").unwrap();
        assert_ne!(a.point(0).key, c.point(0).key);
    }

    #[test]
    fn integers_and_floats_make_a_float_column_switches_are_booleans() {
        let g = grid("[grid]\nrate = [50, 75.5]\nspread = [false, true]\n").unwrap();
        assert_eq!(g.axes[0].kind, Kind::Float);
        assert_eq!(g.point(0).params[0], Value::Float(50.0));
        assert_eq!(g.point(0).pairs, [("rate".into(), Some("50".into()))]);
        assert_eq!(
            g.point(3).pairs,
            [
                ("rate".into(), Some("75.5".into())),
                ("spread".into(), None)
            ]
        );
    }

    #[test]
    fn bad_grids_name_the_file_line_and_key() {
        let cases = [
            ("", "g.toml: no points: the file has no [grid] keys"),
            ("# nothing\n\n", "g.toml: no points"),
            ("[grid]\n", "g.toml: no points"),
            (
                "[fixed]\nseed = 1\n",
                "to run one point, give one key a one-value list",
            ),
            ("[grid]\nseed = 1\n", "g.toml:2: grid.seed: expected a list"),
            ("[grid]\nseed = []\n", "g.toml:2: grid.seed: an empty list"),
            (
                "[grid]\nseed = [1, \"two\"]\n",
                "grid.seed: values of one type expected",
            ),
            (
                "[grid]\nseed = [1, 1]\n",
                "grid.seed: value 1 is given twice",
            ),
            (
                "[grid]\nseed = [1]\nqueue-depth = [1]\nqueue_depth = [2]\n",
                "is given twice",
            ),
            (
                "[grid]\nseed = [1]\n[fixed]\nseed = 2\n",
                "g.toml:4: fixed.seed: option `seed` is given twice",
            ),
            ("[grid]\nrequests = [1]\n", "names a result column"),
            ("[grids]\nseed = [1]\n", "g.toml:1: unknown field `grids`"),
            (
                "[grid]\nseed = [[1]]\n",
                "g.toml:2: grid.seed: value [1] is a list, but --seed takes one value",
            ),
            (
                "[grid]\nseed = [{a = 1}]\n",
                "expected a string, number or boolean, got a table",
            ),
            (
                "[grid]\nlayer = [[\"drr\"], \"drr\"]\n",
                "g.toml:2: grid.layer: value \"drr\" is a single value but [\"drr\"] is a list",
            ),
            (
                "[grid]\nlayer = [[\"drr\"], []]\n",
                "g.toml:2: grid.layer: value [] is an empty list",
            ),
            (
                "[grid]\nlayer = [[[\"drr\"]]]\n",
                "g.toml:2: grid.layer: value [[\"drr\"]] is nested too deep",
            ),
            (
                "[grid]\nlayer = [[[[\"drr\"]]]]\n",
                "g.toml:2: grid.layer: value [[[\"drr\"]]] is nested too deep",
            ),
            (
                "[grid]\nlayer = [[true]]\n",
                "grid.layer: value [true] holds true",
            ),
            (
                "[grid]\nlayer = [[\"drr\"], [\"drr\"]]\n",
                "grid.layer: value [\"drr\"] is given twice",
            ),
            (
                "[grid]\nseed = [1]\n[fixed]\nqueue_depth = [1, 2]\n",
                "g.toml:4: fixed.queue_depth: a list of values, but --queue-depth takes one value",
            ),
        ];
        for (text, want) in cases {
            let e = grid(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_list_value_repeats_its_flag_in_order_and_runs_as_those_flags() {
        let g = grid(
            "[grid]\nlayer = [[\"content-cache:arc:500\"], [\"content-cache:arc:500\", \"journal\"]]\nseed = [1, 2]\n[fixed]\ntrace = \"sample:hplajw\"\nlimit = 300\ndisks = 2\narray = \"raid1\"\n",
        )
        .unwrap();
        g.check().unwrap();
        assert_eq!(g.len(), 4);
        assert_eq!(g.axes[0].kind, Kind::Str);
        let p = g.point(2);
        let layer = |v: &str| ("layer".to_string(), Some(v.to_string()));
        assert_eq!(
            p.pairs[4..],
            [
                layer("content-cache:arc:500"),
                layer("journal"),
                ("seed".into(), Some("1".into()))
            ]
        );
        // The column holds the list as JSON text; messages show it so.
        assert_eq!(
            p.params[0],
            Value::Str("[\"content-cache:arc:500\", \"journal\"]".into())
        );
        assert!(p
            .describe(&g)
            .contains("layer=[\"content-cache:arc:500\", \"journal\"], seed=1"));
        // The order of a repeated flag is the stack's order: part of the key.
        let swapped = grid(
            "[grid]\nlayer = [[\"journal\", \"content-cache:arc:500\"]]\nseed = [1]\n[fixed]\ntrace = \"sample:hplajw\"\nlimit = 300\ndisks = 2\narray = \"raid1\"\n",
        )
        .unwrap();
        assert_ne!(swapped.point(0).key, p.key);
        // A list on an axis is the same run, and the same key, as that list in [fixed].
        let fixed = grid(
            "[grid]\nseed = [1]\n[fixed]\ntrace = \"sample:hplajw\"\nlimit = 300\ndisks = 2\narray = \"raid1\"\nlayer = [\"content-cache:arc:500\", \"journal\"]\n",
        )
        .unwrap();
        assert_eq!(fixed.point(0).key, p.key);
        let (a, b) = (run_point(&g, 2).unwrap(), run_point(&fixed, 0).unwrap());
        assert_eq!(a.metrics, b.metrics);
        // And the layers matter: a run with only the cache differs.
        assert_ne!(run_point(&g, 0).unwrap().metrics, a.metrics);
    }

    #[test]
    fn too_many_points_is_refused_before_expanding() {
        let big: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
        let text = format!("[grid]\nseed = [{0}]\nlimit = [{0}]\n", big.join(", "));
        let e = grid(&text).unwrap_err().to_string();
        assert!(e.contains("more than 100000 points"), "{e}");
    }

    #[test]
    fn a_bad_value_is_found_before_any_point_runs() {
        let g = grid("[grid]\nscheduler = [\"sstf\", \"fastest\"]\n").unwrap();
        let e = g.check().unwrap_err().to_string();
        assert!(e.contains("point 1 (scheduler=\"fastest\")"), "{e}");
        let g = grid("[grid]\nqueue_depth = [1, \"many\"]\n");
        assert!(g.is_err());
        let g = grid("[grid]\nwindow = [\"many\"]\n").unwrap();
        let e = g.check().unwrap_err().to_string();
        assert!(e.contains("--window"), "{e}");
        let g = grid("[grid]\ndisk = [\"st34502lw\", \"no-such-drive\"]\n").unwrap();
        let e = g.check().unwrap_err().to_string();
        assert!(e.contains("point 1") && e.contains("no-such-drive"), "{e}");
    }

    #[test]
    fn a_drive_of_several_arms_passes_the_check_as_it_runs() {
        // The check loads one arm's drive, as the tree builds it: the preset loader
        // alone refuses a name ending in heads-per-surface.
        let g =
            grid("[grid]\ndisk = [\"st34502lw\", \"st34502lw:heads-per-surface=2\"]\n").unwrap();
        g.check().unwrap();
        let g = grid("[grid]\ndisk = [\"st34502lw:heads-per-surface=99\"]\n").unwrap();
        let e = g.check().unwrap_err().to_string();
        assert!(e.contains("heads-per-surface"), "{e}");
    }

    /// What only the built stack refuses (a window on a scheduler that does not scan)
    /// is found before any point runs, each distinct stack built once.
    #[test]
    fn a_stack_the_run_would_refuse_is_found_before_any_point_runs() {
        let g = grid(
            "[grid]\nscheduler = [\"greedy\", \"sstf\"]\n[fixed]\nwindow = 4\nsynthetic = \"open\"\ncount = 10\n",
        )
        .unwrap();
        let e = g.check().unwrap_err().to_string();
        assert!(e.contains("point 1") && e.contains("window"), "{e}");
    }

    #[test]
    fn a_drive_of_several_arms_where_the_run_refuses_it_is_refused_before_any_point_runs() {
        // Under a cylinder layout (rsplit, intra) and under a layout engine a drive of
        // several arms cannot stand: the run refuses it, so the check does too.
        let arms = "\"st34502lw:heads-per-surface=2\"";
        for fixed in [
            "array = \"rsplit:2\"\ndisks = 2",
            "array = \"intra:2x1\"\ndisks = 2",
            "layout = \"dle\"",
        ] {
            let g = grid(&format!(
                "[grid]\ndisk = [\"st34502lw\", {arms}]\n[fixed]\n{fixed}\n"
            ))
            .unwrap();
            let e = g.check().unwrap_err().to_string();
            assert!(e.contains("point 1") && e.contains("arms"), "{fixed}: {e}");
        }
        // A mirror or split of such drives runs, so it passes.
        let g = grid(&format!(
            "[grid]\ndisk = [{arms}]\n[fixed]\narray = \"mirror:2\"\ndisks = 2\n"
        ))
        .unwrap();
        g.check().unwrap();
    }

    #[test]
    fn a_point_gives_the_same_row_every_time_and_on_any_thread() {
        let g = grid(
            "[grid]\nscheduler = [\"fcfs\", \"sstf\"]\nseed = [1, 2]\n[fixed]\nsynthetic = \"open\"\ncount = 300\n",
        )
        .unwrap();
        g.check().unwrap();
        let one = run_point(&g, 3).unwrap();
        assert_eq!(one, run_point(&g, 3).unwrap());
        assert_eq!(one.metrics[0], Value::Int(300));
        let (rows, err) = run_points(&g, &[3, 0, 2, 1], 3, &mut |_| Ok(()));
        assert!(err.is_none());
        assert_eq!(
            rows.iter().map(|r| r.point).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        assert_eq!(rows[3], one);
        // Different seeds, different runs.
        assert_ne!(rows[2].metrics, rows[3].metrics);
    }

    /// A fresh directory under the system's temporary one.
    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("spindle-sweep-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_sweep_resumes_keeps_its_rows_when_a_point_fails_and_is_byte_stable() {
        let d = scratch("resume");
        let (grid, out) = (d.join("g.toml"), d.join("r.parquet"));
        let args = |jobs| SweepArgs {
            grid: &grid,
            out: &out,
            csv: None,
            jobs: Some(jobs),
            list: false,
        };
        // The second trace does not exist: its points fail when they run, the first's
        // rows are kept (one thread: points run in order).
        let bad = d.join("missing.trace");
        let text = |traces: &str| {
            format!("[grid]\ntrace = [{traces}]\nseed = [1, 2]\n[fixed]\nlimit = 200\n")
        };
        std::fs::write(
            &grid,
            text(&format!(
                "\"sample:hplajw\", {:?}",
                bad.display().to_string()
            )),
        )
        .unwrap();
        let e = sweep(&args(1)).unwrap_err();
        assert!(
            format!("{e:#}").contains("sweep stopped; 2 of 4 points are in"),
            "{e:#}"
        );
        let g = Grid::from_toml(&std::fs::read_to_string(&grid).unwrap(), "g").unwrap();
        let kept = read_rows(&out, &g).unwrap();
        assert_eq!(kept.iter().map(|r| r.point).collect::<Vec<_>>(), [0, 1]);
        // The good half as its own grid: nothing to run, and the same rows.
        std::fs::write(&grid, text("\"sample:hplajw\"")).unwrap();
        let said = sweep(&args(2)).unwrap();
        assert!(said.contains("2 points: 0 run"), "{said}");
        let first = std::fs::read(&out).unwrap();
        // Run afresh: the same bytes.
        std::fs::remove_file(&out).unwrap();
        let said = sweep(&args(2)).unwrap();
        assert!(said.contains("2 points: 2 run"), "{said}");
        assert_eq!(std::fs::read(&out).unwrap(), first);
        let _ = std::fs::remove_dir_all(&d);
    }
}
