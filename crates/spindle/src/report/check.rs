//! What a reproduction check is: one simulated number set against a paper's, with its
//! tolerance, and whether it can fail (a reproduction) or cannot (a consistency check).
//! Experiments make checks; the report counts and prints them.

use serde::Serialize;

/// What a check shows.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "lowercase")]
pub enum CheckKind {
    /// A number our simulation produced, compared with the paper's number: it can fail.
    Reproduction,
    /// Arithmetic, inputs read back, a formula evaluated on the paper's own inputs, a
    /// structural property or a looser duplicate of another check. Useful to catch
    /// regressions, but it is never counted as a reproduction.
    Consistency,
}

/// One comparison of a simulated number against a paper's.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Check {
    pub id: String,
    pub metric: String,
    pub paper: f64,
    pub ours: f64,
    /// Allowed deviation, as written (e.g. "±10 %", "±0.05").
    pub tolerance: String,
    pub pass: bool,
    pub kind: CheckKind,
    /// For a consistency check: why it is not a reproduction, written for the reader.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub why: String,
    /// When the reference value is not a number printed in the paper (for example our
    /// own value for a related configuration that the paper calls "similar"): what it
    /// is, written for the reader. Empty when the reference is the paper's number.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reference: String,
}

impl Check {
    /// A qualitative claim: passes when it holds (reported as 1 against 1).
    pub fn holds(id: &str, metric: &str, ok: bool) -> Check {
        Check {
            id: id.into(),
            metric: metric.into(),
            paper: 1.0,
            ours: if ok { 1.0 } else { 0.0 },
            tolerance: "holds".into(),
            pass: ok,
            kind: CheckKind::Reproduction,
            why: String::new(),
            reference: String::new(),
        }
    }

    /// Passes when `ours` is within `rel` (a fraction) of `paper`.
    pub fn relative(id: &str, metric: &str, paper: f64, ours: f64, rel: f64) -> Check {
        Check {
            id: id.into(),
            metric: metric.into(),
            paper,
            ours,
            tolerance: format!("±{:.0} %", rel * 100.0),
            pass: (ours - paper).abs() <= rel * paper.abs(),
            kind: CheckKind::Reproduction,
            why: String::new(),
            reference: String::new(),
        }
    }

    /// Passes when `ours` is within `abs` of `paper`.
    pub fn absolute(id: &str, metric: &str, paper: f64, ours: f64, abs: f64) -> Check {
        Check {
            id: id.into(),
            metric: metric.into(),
            paper,
            ours,
            tolerance: format!("±{abs}"),
            pass: (ours - paper).abs() <= abs,
            kind: CheckKind::Reproduction,
            why: String::new(),
            reference: String::new(),
        }
    }

    /// Passes when `ours` is strictly below the paper's bound.
    pub fn below(id: &str, metric: &str, bound: f64, ours: f64) -> Check {
        Check {
            id: id.into(),
            metric: metric.into(),
            paper: bound,
            ours,
            tolerance: format!("< {}", trim(bound)),
            pass: ours < bound,
            kind: CheckKind::Reproduction,
            why: String::new(),
            reference: String::new(),
        }
    }

    /// Passes when `ours` is at least the paper's bound.
    pub fn at_least(id: &str, metric: &str, bound: f64, ours: f64) -> Check {
        Check {
            id: id.into(),
            metric: metric.into(),
            paper: bound,
            ours,
            tolerance: format!("≥ {}", trim(bound)),
            pass: ours >= bound,
            kind: CheckKind::Reproduction,
            why: String::new(),
            reference: String::new(),
        }
    }

    /// Passes when `lo <= ours <= hi`; `paper` is the range's midpoint.
    pub fn range(id: &str, metric: &str, lo: f64, hi: f64, ours: f64) -> Check {
        Check {
            id: id.into(),
            metric: metric.into(),
            paper: 0.5 * (lo + hi),
            ours,
            tolerance: format!("[{}, {}]", trim(lo), trim(hi)),
            pass: lo <= ours && ours <= hi,
            kind: CheckKind::Reproduction,
            why: String::new(),
            reference: String::new(),
        }
    }
}

impl Check {
    /// Marks this check as a consistency check; `why` tells the reader why it cannot
    /// count as a reproduction.
    pub fn consistency(mut self, why: &str) -> Check {
        self.kind = CheckKind::Consistency;
        self.why = why.into();
        self
    }

    /// Marks this check as a consistency check when `cond` holds.
    pub fn consistency_if(self, cond: bool, why: &str) -> Check {
        if cond {
            self.consistency(why)
        } else {
            self
        }
    }

    /// Says what the reference value is when it is not the paper's own number.
    pub fn reference(mut self, what: &str) -> Check {
        self.reference = what.into();
        self
    }

    /// Whether this check counts as a reproduction.
    pub fn is_reproduction(&self) -> bool {
        self.kind == CheckKind::Reproduction
    }
}

/// A number printed without float noise (at most 3 decimals).
fn trim(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
