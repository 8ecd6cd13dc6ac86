//! Seek curves: seek time as a function of cylinder distance.

use serde::{Deserialize, Serialize};

/// How long the arm takes to move a given number of cylinders (settling included, write
/// settle excluded). Distance 0 always costs nothing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SeekCurve {
    /// Measured (distance, ms) points, interpolated linearly between points and
    /// extrapolated from the last two past the end (DiskSim's extracted curve). Below
    /// the first point the curve runs from (0, 0).
    Table { points: Vec<(u32, f64)> },
    /// Lee/Ruemmler–Wilkes HPL equation (DiskSim `hpl`): `single` at distance 1 (if
    /// given), `a + b·√d` below `switch` cylinders, `c + e·d` from there.
    Hpl {
        switch: u32,
        a: f64,
        b: f64,
        c: f64,
        e: f64,
        single: Option<f64>,
    },
    /// DiskSim `hplplus10`: the first ten distances from a table, then the HPL equation.
    HplPlus10 {
        first_ten: [f64; 10],
        switch: u32,
        a: f64,
        b: f64,
        c: f64,
        e: f64,
    },
    /// Three regimes (proximal I/O paper §2.1): `flat_ms` for distances up to
    /// `flat_until` cylinders, `a + b·√d` up to `switch`, `c + e·d` beyond. With
    /// `flat_until = 0` this is the thesis's two-function curve.
    ThreeRegime {
        flat_until: u32,
        flat_ms: f64,
        switch: u32,
        a: f64,
        b: f64,
        c: f64,
        e: f64,
    },
}

impl SeekCurve {
    /// Seek time in ms for a move of `d` cylinders.
    pub fn seek_ms(&self, d: u32) -> f64 {
        if d == 0 {
            return 0.0;
        }
        match self {
            SeekCurve::Table { points } => table_lookup(points, d),
            SeekCurve::Hpl {
                switch,
                a,
                b,
                c,
                e,
                single,
            } => match single {
                Some(s) if d == 1 => *s,
                _ => hpl(*switch, *a, *b, *c, *e, d),
            },
            SeekCurve::HplPlus10 {
                first_ten,
                switch,
                a,
                b,
                c,
                e,
            } => {
                if d <= 10 {
                    first_ten[d as usize - 1]
                } else {
                    hpl(*switch, *a, *b, *c, *e, d)
                }
            }
            SeekCurve::ThreeRegime {
                flat_until,
                flat_ms,
                switch,
                a,
                b,
                c,
                e,
            } => {
                if d <= *flat_until {
                    *flat_ms
                } else {
                    hpl(*switch, *a, *b, *c, *e, d)
                }
            }
        }
    }

    /// The Table 3.1 two-function curve through three (distance, ms) points: square root
    /// from `p1` to `p2`, linear from `p2` through `p3` (thesis §3.5).
    pub fn two_function(p1: (u32, f64), p2: (u32, f64), p3: (u32, f64)) -> SeekCurve {
        let (b, a) = fit_sqrt(p1, p2);
        let e = (p3.1 - p2.1) / (p3.0 - p2.0) as f64;
        let c = p2.1 - e * p2.0 as f64;
        SeekCurve::ThreeRegime {
            flat_until: 0,
            flat_ms: 0.0,
            switch: p2.0,
            a,
            b,
            c,
            e,
        }
    }
}

/// (b, a) such that a + b·√d passes through both points.
pub fn fit_sqrt(p1: (u32, f64), p2: (u32, f64)) -> (f64, f64) {
    let (s1, s2) = ((p1.0 as f64).sqrt(), (p2.0 as f64).sqrt());
    let b = (p2.1 - p1.1) / (s2 - s1);
    (b, p1.1 - b * s1)
}

fn hpl(switch: u32, a: f64, b: f64, c: f64, e: f64, d: u32) -> f64 {
    if d < switch {
        a + b * (d as f64).sqrt()
    } else {
        c + e * d as f64
    }
}

fn table_lookup(points: &[(u32, f64)], d: u32) -> f64 {
    let i = points.partition_point(|&(pd, _)| pd < d);
    if let Some(&(pd, t)) = points.get(i) {
        if pd == d {
            return t;
        }
    }
    let (lo, hi) = match i {
        0 => ((0, 0.0), points.first().copied().unwrap_or((1, 0.0))),
        i if i >= points.len() => {
            // Past the last point: extrapolate from the last two.
            let n = points.len();
            if n < 2 {
                return points.last().map(|p| p.1).unwrap_or(0.0);
            }
            (points[n - 2], points[n - 1])
        }
        i => (points[i - 1], points[i]),
    };
    let span = (hi.0 as f64 - lo.0 as f64).max(1.0);
    lo.1 + (d as f64 - lo.0 as f64) * (hi.1 - lo.1) / span
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hplplus10_matches_disksim_reference_values() {
        // hp_c2247a's curve; values from the DiskSim reference (§4.2).
        let c = SeekCurve::HplPlus10 {
            first_ten: [2.89, 3.0, 3.2, 3.4, 3.6, 3.8, 4.0, 4.3, 4.6, 4.99],
            switch: 300,
            a: 3.81,
            b: 0.33,
            c: 7.75,
            e: 0.0059,
        };
        assert!((c.seek_ms(1) - 2.89).abs() < 1e-9);
        assert!((c.seek_ms(11) - 4.904).abs() < 1e-3);
        assert!((c.seek_ms(299) - 9.516).abs() < 1e-3);
        assert!((c.seek_ms(300) - 9.52).abs() < 1e-3);
        assert!((c.seek_ms(2000) - 19.55).abs() < 1e-3);
    }

    #[test]
    fn table_interpolates_and_extrapolates() {
        let c = SeekCurve::Table {
            points: vec![(1, 1.0), (3, 2.0), (5, 2.5)],
        };
        assert_eq!(c.seek_ms(0), 0.0);
        assert_eq!(c.seek_ms(3), 2.0);
        assert!((c.seek_ms(2) - 1.5).abs() < 1e-12);
        assert!((c.seek_ms(7) - 3.0).abs() < 1e-12);
    }

    #[test]
    fn two_function_hits_table_3_1_points() {
        // THESIS-EQ-SEEK: the base disk's seek times at 1, 400 and 3000 cylinders.
        let c = SeekCurve::two_function((1, 0.8), (400, 6.0), (3000, 8.0));
        assert!((c.seek_ms(1) - 0.8).abs() < 1e-9);
        assert!((c.seek_ms(400) - 6.0).abs() < 1e-9);
        assert!((c.seek_ms(3000) - 8.0).abs() < 1e-9);
        assert!(c.seek_ms(399) < 6.0);
    }
}
