//! miniMimic (thesis §5.4, catalog ALG-MINIMIMIC): a table of write service times keyed
//! by (request size, think time, skip distance), where the skip distance is the gap in
//! the log between the end of the previous write and the start of the next. It is
//! sampled off-line on the log region by timing chains of writes, summarised per cell
//! by mean, minimum and maximum, and recommends, for a size and think time, the skip
//! with the least mean. The log skipper refines it on-line with the times it observes.
//!
//! The model never looks inside the drive: it only sees the service times of the
//! writes it issued, as the thesis's user-level emulator saw a raw disk's.

use crate::engine::{self, ClosedSource, RunOptions, Source};
use crate::node::{Device, Units};
use crate::record::IoRecord;
use crate::time::SimTime;
use rand::{Rng, SeedableRng};
use std::fmt::Write as _;

/// Most grid values along one axis.
pub const MAX_AXIS: usize = 4096;
/// Most cells × samples one sampling run may time (the thesis's grid is 6.8 M).
pub const MAX_TIMED: u64 = 100_000_000;
/// Largest request size and |skip| on a grid, KiB.
pub const MAX_KIB: u32 = 64 * 1024;
/// Largest think time on a grid, µs.
pub const MAX_THINK_US: u32 = 1_000_000;

/// The values sampled along each axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Skip distances, KiB (negative: back in the log).
    pub skips_kib: Vec<i32>,
    /// Request sizes, KiB (multiples of 4).
    pub sizes_kib: Vec<u32>,
    /// Think times, µs.
    pub thinks_us: Vec<u32>,
    /// Timed writes per cell.
    pub samples: u32,
}

fn steps(lo: u32, hi: u32, step: u32) -> Vec<u32> {
    (lo..=hi).step_by(step as usize).collect()
}

impl Grid {
    /// The thesis's grid: skip 0–300 KB and size 0–200 KB in 4 KB steps, think 0–7 ms
    /// in 200 µs steps, 50 samples. A 0 KB write times nothing, so sizes start at 4 KB
    /// (Ambiguity T7): 76 × 50 × 36 cells, 6,840,000 timed writes.
    pub fn thesis() -> Grid {
        Grid {
            skips_kib: steps(0, 300, 4).into_iter().map(|s| s as i32).collect(),
            sizes_kib: steps(4, 200, 4),
            thinks_us: steps(0, 7000, 200),
            samples: 50,
        }
    }

    /// A coarse grid for a quick look: skip 0–300 KB in 12 KB steps, seven sizes
    /// from 4 to 200 KB, think 0–7 ms in 1 ms steps, 10 samples (14,560 timed writes).
    pub fn quick() -> Grid {
        Grid {
            skips_kib: steps(0, 300, 12).into_iter().map(|s| s as i32).collect(),
            sizes_kib: vec![4, 8, 16, 32, 64, 128, 200],
            thinks_us: steps(0, 7000, 1000),
            samples: 10,
        }
    }

    /// The thesis's grid at one size and think time (a figure's slice).
    pub fn slice(skips_kib: Vec<i32>, size_kib: u32, think_us: u32, samples: u32) -> Grid {
        Grid {
            skips_kib,
            sizes_kib: vec![size_kib],
            thinks_us: vec![think_us],
            samples,
        }
    }

    /// Cells on the grid.
    pub fn cells(&self) -> usize {
        self.skips_kib.len() * self.sizes_kib.len() * self.thinks_us.len()
    }

    /// Checks the grid's limits before anything is allocated.
    pub fn validate(&self) -> Result<(), String> {
        for (name, n) in [
            ("skips", self.skips_kib.len()),
            ("sizes", self.sizes_kib.len()),
            ("think times", self.thinks_us.len()),
        ] {
            if n == 0 || n > MAX_AXIS {
                return Err(format!(
                    "miniMimic grid: {n} {name}, expected 1 to {MAX_AXIS}"
                ));
            }
        }
        if self.samples == 0 || self.samples > 10_000 {
            return Err(format!(
                "miniMimic grid: {} samples per cell, expected 1 to 10000",
                self.samples
            ));
        }
        let timed = self.cells() as u64 * u64::from(self.samples);
        if timed > MAX_TIMED {
            return Err(format!(
                "miniMimic grid: {timed} timed writes, at most {MAX_TIMED}"
            ));
        }
        if let Some(s) = self
            .sizes_kib
            .iter()
            .find(|&&s| s == 0 || s % 4 != 0 || s > MAX_KIB)
        {
            return Err(format!(
                "miniMimic grid: size {s} KiB, expected a multiple of 4 KiB from 4 to {MAX_KIB}"
            ));
        }
        if let Some(s) = self
            .skips_kib
            .iter()
            .find(|&&s| s % 4 != 0 || s.unsigned_abs() > MAX_KIB)
        {
            return Err(format!(
                "miniMimic grid: skip {s} KiB, expected a multiple of 4 KiB within ±{MAX_KIB}"
            ));
        }
        if let Some(t) = self.thinks_us.iter().find(|&&t| t > MAX_THINK_US) {
            return Err(format!(
                "miniMimic grid: think time {t} µs, expected at most {MAX_THINK_US}"
            ));
        }
        for (name, sorted) in [
            ("skips", self.skips_kib.windows(2).all(|w| w[0] < w[1])),
            ("sizes", self.sizes_kib.windows(2).all(|w| w[0] < w[1])),
            (
                "think times",
                self.thinks_us.windows(2).all(|w| w[0] < w[1]),
            ),
        ] {
            if !sorted {
                return Err(format!(
                    "miniMimic grid: {name} must be strictly increasing"
                ));
            }
        }
        Ok(())
    }
}

/// The times seen in one cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    pub n: u64,
    pub sum_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
}

impl Cell {
    fn add(&mut self, ns: u64) {
        if self.n == 0 {
            self.min_ns = ns;
            self.max_ns = ns;
        } else {
            self.min_ns = self.min_ns.min(ns);
            self.max_ns = self.max_ns.max(ns);
        }
        self.n += 1;
        self.sum_ns += ns;
    }

    /// Mean service time, ns (`None` when nothing was seen).
    pub fn mean_ns(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_ns as f64 / self.n as f64)
    }
}

/// A recommendation: where to write next and what miniMimic expects it to cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Advice {
    pub skip_kib: i32,
    pub cell: Cell,
}

/// The sampled table.
#[derive(Clone, Debug, PartialEq)]
pub struct MiniMimic {
    pub grid: Grid,
    /// Indexed by (size, think, skip), skip fastest.
    cells: Vec<Cell>,
}

impl MiniMimic {
    /// An empty table on `grid`.
    pub fn new(grid: Grid) -> Result<MiniMimic, String> {
        grid.validate()?;
        let cells = vec![Cell::default(); grid.cells()];
        Ok(MiniMimic { grid, cells })
    }

    fn index(&self, size_i: usize, think_i: usize, skip_i: usize) -> usize {
        (size_i * self.grid.thinks_us.len() + think_i) * self.grid.skips_kib.len() + skip_i
    }

    /// The cell at grid indices.
    pub fn cell(&self, size_i: usize, think_i: usize, skip_i: usize) -> Cell {
        self.cells[self.index(size_i, think_i, skip_i)]
    }

    /// The grid size for a request of `size_kib`: the smallest sampled size at least
    /// as large, else the largest.
    pub fn size_index(&self, size_kib: u32) -> usize {
        let s = &self.grid.sizes_kib;
        s.iter().position(|&v| v >= size_kib).unwrap_or(s.len() - 1)
    }

    /// The grid think time nearest `think_ns`.
    pub fn think_index(&self, think_ns: u64) -> usize {
        let us = think_ns / 1000;
        let t = &self.grid.thinks_us;
        let mut best = 0;
        for (i, &v) in t.iter().enumerate() {
            if u64::from(v).abs_diff(us) < u64::from(t[best]).abs_diff(us) {
                best = i;
            }
        }
        best
    }

    /// The skip with the least mean for a size and think time.
    pub fn recommend(&self, size_kib: u32, think_ns: u64) -> Option<Advice> {
        let (si, ti) = (self.size_index(size_kib), self.think_index(think_ns));
        let mut best: Option<(f64, usize)> = None;
        for k in 0..self.grid.skips_kib.len() {
            if let Some(m) = self.cell(si, ti, k).mean_ns() {
                if best.is_none_or(|(b, _)| m < b) {
                    best = Some((m, k));
                }
            }
        }
        best.map(|(_, k)| Advice {
            skip_kib: self.grid.skips_kib[k],
            cell: self.cell(si, ti, k),
        })
    }

    /// Adds an observed time to the cell of (size, think, skip), if the skip is on the
    /// grid (the on-line refinement).
    pub fn observe(&mut self, size_kib: u32, think_ns: u64, skip_kib: i32, ns: u64) {
        let (si, ti) = (self.size_index(size_kib), self.think_index(think_ns));
        if let Some(k) = self.grid.skips_kib.iter().position(|&s| s == skip_kib) {
            let i = self.index(si, ti, k);
            self.cells[i].add(ns);
        }
    }

    /// The table as text (`minimimic 1` format).
    pub fn save(&self) -> String {
        let mut s = String::from("minimimic 1\n");
        let join = |v: Vec<String>| v.join(" ");
        let _ = writeln!(
            s,
            "skips-kib {}",
            join(self.grid.skips_kib.iter().map(|v| v.to_string()).collect())
        );
        let _ = writeln!(
            s,
            "sizes-kib {}",
            join(self.grid.sizes_kib.iter().map(|v| v.to_string()).collect())
        );
        let _ = writeln!(
            s,
            "thinks-us {}",
            join(self.grid.thinks_us.iter().map(|v| v.to_string()).collect())
        );
        let _ = writeln!(s, "samples {}", self.grid.samples);
        for c in &self.cells {
            let _ = writeln!(s, "{} {} {} {}", c.n, c.sum_ns, c.min_ns, c.max_ns);
        }
        s
    }

    /// Reads a table file written by [`MiniMimic::save`], of at most
    /// [`super::table::MAX_TABLE_BYTES`] (a device or a huge file is refused before it
    /// fills memory).
    pub fn load_file(path: &str) -> Result<MiniMimic, String> {
        use std::io::Read;
        let limit = super::table::MAX_TABLE_BYTES;
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
            .map_err(|e| format!("{path}: cannot read: {e}"))?;
        if bytes.len() as u64 > limit {
            return Err(format!(
                "{path}: more than {limit} bytes, the limit for a table file"
            ));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            format!(
                "{path}: not UTF-8 text (byte {})",
                e.utf8_error().valid_up_to()
            )
        })?;
        MiniMimic::load(&text, path)
    }

    /// Reads a table written by [`MiniMimic::save`]; `name` is for errors.
    pub fn load(text: &str, name: &str) -> Result<MiniMimic, String> {
        let mut lines = text.lines().enumerate();
        let mut next = |what: &str| {
            lines
                .next()
                .ok_or_else(|| format!("{name}: ends before its {what} line"))
        };
        let (_, head) = next("header")?;
        if head.trim() != "minimimic 1" {
            return Err(format!(
                "{name}:1: expected `minimimic 1`, got `{}`",
                head.chars().take(40).collect::<String>()
            ));
        }
        fn axis<T: std::str::FromStr>(
            name: &str,
            (i, line): (usize, &str),
            key: &str,
        ) -> Result<Vec<T>, String> {
            let mut parts = line.split_whitespace();
            if parts.next() != Some(key) {
                return Err(format!("{name}:{}: expected a `{key}` line", i + 1));
            }
            let v: Vec<&str> = parts.collect();
            if v.len() > MAX_AXIS {
                return Err(format!(
                    "{name}:{}: {} values, at most {MAX_AXIS}",
                    i + 1,
                    v.len()
                ));
            }
            v.iter()
                .map(|t| {
                    t.parse::<T>()
                        .map_err(|_| format!("{name}:{}: `{t}` is not a valid {key} value", i + 1))
                })
                .collect()
        }
        let skips_kib = axis(name, next("skips-kib")?, "skips-kib")?;
        let sizes_kib = axis(name, next("sizes-kib")?, "sizes-kib")?;
        let thinks_us = axis(name, next("thinks-us")?, "thinks-us")?;
        let samples: Vec<u32> = axis(name, next("samples")?, "samples")?;
        let [samples] = samples[..] else {
            return Err(format!("{name}:5: expected one samples value"));
        };
        let mut m = MiniMimic::new(Grid {
            skips_kib,
            sizes_kib,
            thinks_us,
            samples,
        })
        .map_err(|e| format!("{name}: {e}"))?;
        for c in 0..m.cells.len() {
            let (i, line) = next("cell")?;
            let v: Vec<u64> = line
                .split_whitespace()
                .map(|t| t.parse::<u64>())
                .collect::<Result<_, _>>()
                .map_err(|_| {
                    format!(
                        "{name}:{}: expected four whole numbers (n sum min max)",
                        i + 1
                    )
                })?;
            let [n, sum_ns, min_ns, max_ns] = v[..] else {
                return Err(format!(
                    "{name}:{}: expected four numbers (n sum min max), got {}",
                    i + 1,
                    v.len()
                ));
            };
            if n > 0
                && (min_ns > max_ns
                    || sum_ns < min_ns.saturating_mul(n)
                    || sum_ns > max_ns.saturating_mul(n))
            {
                return Err(format!("{name}:{}: min {min_ns} / max {max_ns} / sum {sum_ns} over {n} samples do not fit together", i + 1));
            }
            m.cells[c] = Cell {
                n,
                sum_ns,
                min_ns,
                max_ns,
            };
        }
        if let Some((i, _)) = lines.find(|(_, l)| !l.trim().is_empty()) {
            return Err(format!(
                "{name}:{}: more cells than the grid has ({})",
                i + 1,
                m.cells.len()
            ));
        }
        Ok(m)
    }
}

/// Where a sampling run writes: the log region, in 512-byte sectors.
#[derive(Clone, Copy, Debug)]
pub struct Region {
    pub start: u64,
    pub sectors: u64,
}

/// The chain of writes that samples the grid: per cell, one untimed write at a random
/// place in the region, then `samples` writes each `skip` after the end of the one
/// before and issued `think` after it completed.
struct Chain {
    grid: Grid,
    region: Region,
    seed: u64,
    /// Next write: (cell, k) with k = 0 the untimed lead-in.
    cell: usize,
    k: u32,
    pos: u64,
    total: usize,
}

impl Chain {
    fn dims(&self, cell: usize) -> (u32, u32, i32) {
        let g = &self.grid;
        let skip = g.skips_kib[cell % g.skips_kib.len()];
        let rest = cell / g.skips_kib.len();
        let think = g.thinks_us[rest % g.thinks_us.len()];
        let size = g.sizes_kib[rest / g.thinks_us.len()];
        (size, think, skip)
    }

    /// The record for the current (cell, k), arriving at `at` (plus think time).
    fn record(&mut self, at: SimTime) -> Option<IoRecord> {
        if self.cell >= self.total {
            return None;
        }
        let (size, think, skip) = self.dims(self.cell);
        let sectors = u64::from(size) * 2;
        let stride = sectors as i64 + i64::from(skip) * 2;
        if self.k == 0 {
            // A random 4 KiB-aligned start far enough from both ends for the chain.
            let span = stride.unsigned_abs() * u64::from(self.grid.samples + 1) + sectors;
            let room = self.region.sectors.saturating_sub(2 * span).max(8);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(
                self.seed ^ (self.cell as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
            );
            let off = span + rng.gen_range(0..room / 8) * 8;
            self.pos = self.region.start + off.min(self.region.sectors.saturating_sub(sectors));
        } else {
            self.pos = (self.pos as i64 + stride).max(self.region.start as i64) as u64;
        }
        let think_ns = if self.k == 0 {
            0
        } else {
            u64::from(think) * 1000
        };
        Some(IoRecord {
            arrival: SimTime(at.0 + think_ns),
            device: 0,
            lbn: self.pos,
            blocks: sectors as u32,
            write: true,
            content: Vec::new(),
        })
    }

    fn advance(&mut self) {
        self.k += 1;
        if self.k > self.grid.samples {
            self.k = 0;
            self.cell += 1;
        }
    }
}

impl ClosedSource for Chain {
    fn start(&mut self) -> Vec<(u32, IoRecord)> {
        let r = self.record(SimTime::ZERO);
        self.advance();
        r.map(|r| vec![(0, r)]).unwrap_or_default()
    }
    fn on_complete(&mut self, _process: u32, now: SimTime) -> Option<IoRecord> {
        let r = self.record(now);
        self.advance();
        r
    }
}

/// Samples `grid` on `dev` (idle, nothing else running) inside `region`. Each write's
/// service time is its response time (it is alone on the device).
pub fn sample(
    dev: &mut dyn Device,
    region: Region,
    grid: Grid,
    seed: u64,
) -> Result<MiniMimic, String> {
    let mut m = MiniMimic::new(grid.clone())?;
    for (cell, ns) in sample_times(dev, region, grid, seed)? {
        m.cells[cell].add(ns);
    }
    Ok(m)
}

/// [`sample`]'s individual times: (cell index, service time ns) in the order timed;
/// a cell's index counts skips fastest, then think times, then sizes.
pub fn sample_times(
    dev: &mut dyn Device,
    region: Region,
    grid: Grid,
    seed: u64,
) -> Result<Vec<(usize, u64)>, String> {
    grid.validate()?;
    if region.start + region.sectors > dev.capacity() {
        return Err(format!(
            "miniMimic region ends at sector {}, beyond the device's {}",
            region.start + region.sectors,
            dev.capacity()
        ));
    }
    let total = grid.cells();
    let per_cell = u64::from(grid.samples) + 1;
    let mut chain = Chain {
        grid,
        region,
        seed,
        cell: 0,
        k: 0,
        pos: 0,
        total,
    };
    let mut seen = 0u64;
    let units = Units::single(dev.capacity());
    let mut times: Vec<(usize, u64)> = Vec::new();
    engine::run(
        dev,
        &units,
        Source::Closed(&mut chain),
        RunOptions::default(),
        &mut |l| {
            // One process, one request at a time: completions come in issue order.
            let (cell, k) = ((seen / per_cell) as usize, seen % per_cell);
            if k > 0 {
                times.push((cell, l.response_ns()));
            }
            seen += 1;
        },
    )
    .map_err(|e| e.to_string())?;
    Ok(times)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::presets::preset;
    use crate::stack::drive_node::DriveNode;

    fn disk() -> Box<dyn Device> {
        let d = crate::disk::drive::Drive::new(preset("mimic-9lzx").unwrap()).unwrap();
        Box::new(DriveNode::new(d, "disk"))
    }

    #[test]
    fn sampled_table_recommends_a_skip_faster_than_sequential_and_round_trips() {
        let mut d = disk();
        let grid = Grid::slice((0..=80).step_by(4).collect(), 4, 0, 10);
        let m = sample(
            d.as_mut(),
            Region {
                start: 0,
                sectors: 80_000,
            },
            grid,
            7,
        )
        .unwrap();
        let a = m.recommend(4, 0).unwrap();

        let seq = m.cell(0, 0, 0).mean_ns().unwrap();
        assert!(a.skip_kib > 0, "{a:?}");
        assert!(a.cell.mean_ns().unwrap() < seq / 2.0, "{a:?} vs {seq}");
        let back = MiniMimic::load(&m.save(), "t").unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn bad_files_are_clear_errors() {
        assert!(MiniMimic::load("nope", "f").unwrap_err().contains("f:1"));
        let m = MiniMimic::new(Grid::slice(vec![0, 4], 4, 0, 1)).unwrap();
        let text = m.save();
        let cut: String = text.lines().take(6).collect::<Vec<_>>().join("\n");
        assert!(MiniMimic::load(&cut, "f")
            .unwrap_err()
            .contains("ends before"));
        let bad = text.replace("skips-kib 0 4", "skips-kib 0 x");
        assert!(MiniMimic::load(&bad, "f").unwrap_err().contains("`x`"));
        let mut lines: Vec<&str> = text.lines().collect();
        lines[5] = "2 10 9 1";
        assert!(MiniMimic::load(&lines.join("\n"), "f")
            .unwrap_err()
            .contains("do not fit"));
        assert!(Grid::slice(vec![0, 3], 4, 0, 1).validate().is_err());
    }
}
