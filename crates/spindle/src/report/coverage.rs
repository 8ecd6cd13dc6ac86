//! Coverage of the catalog: for every catalog id, whether the report reproduces it, and
//! the counts that head the report, the terminal summary, summary.json and the README.
//!
//! Only reproduction checks (a simulated number against the paper's) decide an id's
//! status; consistency checks are counted apart and never make an id "reproduced".

use serde::Serialize;

use super::catalog::{catalog, Document};
use super::Check;
use super::ExperimentOutput;

/// Catalog ids that cannot be reproduced from the sources, and why (a reader's
/// sentence). An id here that gains a check is counted by its checks instead.
pub const NOT_REPRODUCIBLE: &[(&str, &str)] = &[
    (
        "LOGSKIP-F5.9",
        "SCSI Disk 2 is a second IBM 9LZX of another revision \"with different physical \
         characteristics\"; the thesis states none of them, and a copy of Disk 1 would only \
         repeat LOGSKIP-F5.8",
    ),
    (
        "LOGSKIP-F5.13",
        "SCSI Disk 2: no stated parameters (see LOGSKIP-F5.9); a copy of Disk 1 would only \
         repeat LOGSKIP-F5.12",
    ),
    (
        "LOGSKIP-F5.16",
        "SCSI Disk 2: no stated parameters (see LOGSKIP-F5.9); a copy of Disk 1 would only \
         repeat LOGSKIP-F5.15",
    ),
];

/// Why `id` cannot be reproduced here, if it cannot.
pub fn not_reproducible(id: &str) -> Option<&'static str> {
    NOT_REPRODUCIBLE
        .iter()
        .find(|(i, _)| *i == id)
        .map(|(_, why)| *why)
}

/// Where a catalog id stands.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every reproduction check passes.
    Reproduced,
    /// Some of its reproduction checks pass.
    Partly,
    /// None of its reproduction checks passes.
    Missed,
    /// Only consistency checks, no reproduction check.
    ConsistencyOnly,
    /// Nothing in the report yet.
    NotImplemented,
    /// Cannot be reproduced from the sources (see [`NOT_REPRODUCIBLE`]).
    NotReproducible,
    /// A diagram with nothing to measure.
    NonQuantitative,
    /// An algorithm description: it specifies parts spindle builds (their checks are
    /// under the figures that use them).
    Description,
}

impl Status {
    pub const ALL: [Status; 8] = [
        Status::Reproduced,
        Status::Partly,
        Status::Missed,
        Status::ConsistencyOnly,
        Status::NotImplemented,
        Status::NotReproducible,
        Status::NonQuantitative,
        Status::Description,
    ];

    /// How the report names it.
    pub fn label(self) -> &'static str {
        match self {
            Status::Reproduced => "reproduced",
            Status::Partly => "partly reproduced",
            Status::Missed => "missed",
            Status::ConsistencyOnly => "consistency checks only",
            Status::NotImplemented => "not yet implemented",
            Status::NotReproducible => "not reproducible here",
            Status::NonQuantitative => "non-quantitative",
            Status::Description => "algorithm description",
        }
    }
}

/// One catalog id's coverage.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct IdCoverage {
    pub id: String,
    pub document: String,
    pub title: String,
    pub status: Status,
    /// Reproduction checks and how many pass.
    pub reproduction_checks: usize,
    pub reproduction_passed: usize,
    pub consistency_checks: usize,
    /// File stems of the report sections holding its checks (anchors in index.html).
    pub sections: Vec<String>,
}

/// Counts of catalog ids by status.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct StatusCounts {
    pub ids: usize,
    pub reproduced: usize,
    pub partly: usize,
    pub missed: usize,
    pub consistency_only: usize,
    pub not_implemented: usize,
    pub not_reproducible: usize,
    pub non_quantitative: usize,
    pub description: usize,
}

impl StatusCounts {
    fn add(&mut self, s: Status) {
        self.ids += 1;
        *match s {
            Status::Reproduced => &mut self.reproduced,
            Status::Partly => &mut self.partly,
            Status::Missed => &mut self.missed,
            Status::ConsistencyOnly => &mut self.consistency_only,
            Status::NotImplemented => &mut self.not_implemented,
            Status::NotReproducible => &mut self.not_reproducible,
            Status::NonQuantitative => &mut self.non_quantitative,
            Status::Description => &mut self.description,
        } += 1;
    }

    /// The count for one status.
    pub fn get(&self, s: Status) -> usize {
        match s {
            Status::Reproduced => self.reproduced,
            Status::Partly => self.partly,
            Status::Missed => self.missed,
            Status::ConsistencyOnly => self.consistency_only,
            Status::NotImplemented => self.not_implemented,
            Status::NotReproducible => self.not_reproducible,
            Status::NonQuantitative => self.non_quantitative,
            Status::Description => self.description,
        }
    }
}

/// Checks counted by kind.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct CheckCounts {
    /// Reproduction checks on catalog ids.
    pub reproduction: usize,
    pub reproduction_passed: usize,
    /// Consistency checks (any id).
    pub consistency: usize,
    pub consistency_passed: usize,
    /// Reproduction checks on ids outside the catalog (DiskSim's real-drive validation).
    pub outside_catalog: usize,
    pub outside_catalog_passed: usize,
}

/// A check that did not pass, with the report section it is in.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Miss {
    pub check: Check,
    pub section: String,
}

/// The whole coverage picture.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Coverage {
    pub counts: StatusCounts,
    pub by_document: Vec<(String, StatusCounts)>,
    pub checks: CheckCounts,
    pub ids: Vec<IdCoverage>,
    /// Ids of checks outside the catalog, in report order.
    pub outside_catalog_ids: Vec<String>,
    /// Failing reproduction checks (catalog or not), in report order.
    pub missed: Vec<Miss>,
    /// Failing consistency checks, in report order (each one is a bug to look at).
    pub failed_consistency: Vec<Miss>,
}

impl Coverage {
    /// The one-line answer: "X of 115 catalog ids reproduced, …".
    pub fn headline(&self) -> String {
        let c = &self.counts;
        format!(
            "{} of {} catalog ids reproduced, {} partly, {} missed, {} not yet implemented, {} \
             not reproducible here ({} with consistency checks only, {} non-quantitative, {} \
             algorithm descriptions)",
            c.reproduced,
            c.ids,
            c.partly,
            c.missed,
            c.not_implemented,
            c.not_reproducible,
            c.consistency_only,
            c.non_quantitative,
            c.description
        )
    }

    /// The check counts in one line.
    pub fn checks_line(&self) -> String {
        let k = &self.checks;
        format!(
            "{} of {} reproduction checks pass; {} of {} consistency checks pass (not counted \
             as reproductions); {} of {} checks against DiskSim (real-drive measurements and DiskSim's own runs) pass",
            k.reproduction_passed,
            k.reproduction,
            k.consistency_passed,
            k.consistency,
            k.outside_catalog_passed,
            k.outside_catalog
        )
    }
}

/// Coverage of the catalog by `outputs`; `stems[i]` is the section anchor of `outputs[i]`.
pub fn coverage(outputs: &[ExperimentOutput], stems: &[String]) -> Coverage {
    let cat = catalog();
    let checks: Vec<(&Check, &str)> = outputs
        .iter()
        .zip(stems)
        .flat_map(|(o, s)| o.checks.iter().map(move |c| (c, s.as_str())))
        .collect();
    let in_catalog = |id: &str| cat.iter().any(|e| e.id == id);

    let mut counts = StatusCounts::default();
    let mut by_doc: Vec<(Document, StatusCounts)> = Document::ALL
        .iter()
        .map(|&d| (d, StatusCounts::default()))
        .collect();
    let mut ids = Vec::with_capacity(cat.len());
    for e in &cat {
        let mine: Vec<&(&Check, &str)> = checks.iter().filter(|(c, _)| c.id == e.id).collect();
        let repro = mine.iter().filter(|(c, _)| c.is_reproduction()).count();
        let passed = mine
            .iter()
            .filter(|(c, _)| c.is_reproduction() && c.pass)
            .count();
        let consistency = mine.len() - repro;
        let status = if e.algorithm && mine.is_empty() {
            Status::Description
        } else if !e.quantitative && !e.algorithm {
            Status::NonQuantitative
        } else if repro > 0 {
            if passed == repro {
                Status::Reproduced
            } else if passed == 0 {
                Status::Missed
            } else {
                Status::Partly
            }
        } else if consistency > 0 {
            Status::ConsistencyOnly
        } else if not_reproducible(e.id).is_some() {
            Status::NotReproducible
        } else {
            Status::NotImplemented
        };
        let mut sections: Vec<String> = Vec::new();
        for (_, s) in &mine {
            if !sections.iter().any(|x| x == s) {
                sections.push(s.to_string());
            }
        }
        counts.add(status);
        if let Some((_, c)) = by_doc.iter_mut().find(|(d, _)| *d == e.document) {
            c.add(status);
        }
        ids.push(IdCoverage {
            id: e.id.into(),
            document: e.document.name().into(),
            title: e.title.into(),
            status,
            reproduction_checks: repro,
            reproduction_passed: passed,
            consistency_checks: consistency,
            sections,
        });
    }

    let mut k = CheckCounts::default();
    let mut outside = Vec::new();
    let mut missed = Vec::new();
    let mut failed_consistency = Vec::new();
    for (c, s) in &checks {
        let miss = || Miss {
            check: (*c).clone(),
            section: s.to_string(),
        };
        if !c.is_reproduction() {
            k.consistency += 1;
            k.consistency_passed += usize::from(c.pass);
            if !c.pass {
                failed_consistency.push(miss());
            }
            continue;
        }
        if in_catalog(&c.id) {
            k.reproduction += 1;
            k.reproduction_passed += usize::from(c.pass);
        } else {
            k.outside_catalog += 1;
            k.outside_catalog_passed += usize::from(c.pass);
            if !outside.contains(&c.id) {
                outside.push(c.id.clone());
            }
        }
        if !c.pass {
            missed.push(miss());
        }
    }
    Coverage {
        counts,
        by_document: by_doc
            .into_iter()
            .filter(|(_, c)| c.ids > 0)
            .map(|(d, c)| (d.name().to_string(), c))
            .collect(),
        checks: k,
        ids,
        outside_catalog_ids: outside,
        missed,
        failed_consistency,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(id: &str, checks: Vec<Check>) -> ExperimentOutput {
        let mut o = ExperimentOutput::new(id, id, "", 1);
        o.checks = checks;
        o
    }

    #[test]
    fn statuses_and_counts() {
        let outs = [
            out(
                "PROX-T1",
                vec![
                    Check::absolute("PROX-T1", "a", 1.0, 1.0, 0.1),
                    Check::absolute("PROX-T1", "b", 1.0, 2.0, 0.1),
                    Check::absolute("PROX-F1", "c", 1.0, 1.0, 0.1),
                    Check::absolute("MIMIC-MEM", "d", 1.0, 1.0, 0.1).consistency("arithmetic"),
                    Check::absolute("PROX-F2", "e", 1.0, 3.0, 0.1),
                    Check::absolute("PROX-F5", "f", 1.0, 1.0, 0.1),
                ],
            ),
            out(
                "X",
                vec![Check::absolute("DISKSIM-VALID", "g", 1.0, 1.0, 0.1)],
            ),
        ];
        let stems = ["PROX-T1".to_string(), "X".to_string()];
        let c = coverage(&outs, &stems);
        let status = |id: &str| c.ids.iter().find(|e| e.id == id).map(|e| e.status);
        assert_eq!(status("PROX-T1"), Some(Status::Partly));
        assert_eq!(status("PROX-F1"), Some(Status::Reproduced));
        assert_eq!(status("PROX-F2"), Some(Status::Missed));
        assert_eq!(status("MIMIC-MEM"), Some(Status::ConsistencyOnly));
        assert_eq!(status("PROX-F5"), Some(Status::NonQuantitative));
        assert_eq!(status("DEDUP-T3"), Some(Status::NotImplemented));
        assert_eq!(c.counts.ids, 115);
        let sum: usize = Status::ALL.iter().map(|&s| c.counts.get(s)).sum();
        assert_eq!(sum, 115);
        let doc_sum: usize = c.by_document.iter().map(|(_, d)| d.ids).sum();
        assert_eq!(doc_sum, 115);
        assert_eq!(c.checks.reproduction, 5);
        assert_eq!(c.checks.reproduction_passed, 3);
        assert_eq!(c.checks.consistency, 1);
        assert_eq!(c.checks.outside_catalog, 1);
        assert_eq!(c.outside_catalog_ids, ["DISKSIM-VALID"]);
        assert_eq!(c.missed.len(), 2);
        assert!(c
            .headline()
            .starts_with("1 of 115 catalog ids reproduced, 1 partly, 1 missed"));
    }
}
