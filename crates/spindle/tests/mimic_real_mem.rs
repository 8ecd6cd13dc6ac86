//! MIMIC-REAL and MIMIC-MEM through the registry in quick mode: they run, are
//! deterministic, and report the paper's values next to ours.

use spindle::experiments::registry::{select, RunOpts};
use spindle::report::ExperimentOutput;

fn run(id: &str) -> ExperimentOutput {
    let e = select(&[id.to_string()]).unwrap();
    assert_eq!(e.len(), 1, "{id} selects one experiment");
    (e[0].run)(&RunOpts {
        quick: true,
        seed: 1,
        full_scale: false,
        durability: Default::default(),
    })
    .unwrap()
}

#[test]
fn mimic_real_reports_both_replays_against_the_paper() {
    let a = run("MIMIC-REAL");
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&run("MIMIC-REAL")).unwrap(),
        "deterministic"
    );
    let paper: Vec<f64> = a.checks.iter().map(|c| c.paper).collect();
    assert_eq!(paper, vec![8.0, 12.0, 1.0]);
    // The decision on idle time and the paper's values are in the report text.
    assert!(a.description.contains("Idle time removed"));
    assert!(a.description.contains("8 %") && a.description.contains("12 %"));
    // Greedy-optimal bounds SMTF in both replays.
    for case in ["with idle time", "idle time removed"] {
        let gain = |s: &str| -> f64 {
            let line = a
                .csv
                .lines()
                .find(|l| l.starts_with(&format!("{case},{s},")))
                .unwrap();
            line.split(',').nth(3).unwrap().parse().unwrap()
        };
        assert!(gain("greedy") >= gain("smtf"), "{case}");
    }
    // The checked replays run at the thesis's request rate, hplajw's own rate is context:
    // the faster rate leaves the scheduler a choice far more often.
    assert!(a.description.contains("150,000"));
    let choice = |case: &str| -> f64 {
        let line = a
            .csv
            .lines()
            .find(|l| l.starts_with(&format!("{case},clook,")))
            .unwrap();
        line.split(',').nth(6).unwrap().parse().unwrap()
    };
    // Replay names hold no comma, so the CSV's columns line up.
    assert!(a.csv.lines().all(|l| l.split(',').count() == 8));
    let (fast, own) = (
        choice("with idle time"),
        choice("context: hplajw's own rate (with idle time)"),
    );
    assert!(fast > 2.0 * own, "{fast} vs {own}");
}

#[test]
fn mimic_mem_counts_entries_from_the_table() {
    let a = run("MIMIC-MEM");
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&run("MIMIC-MEM")).unwrap(),
        "deterministic"
    );
    let value = |k: &str| -> f64 {
        a.csv
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{k},")))
            .unwrap()
            .parse()
            .unwrap()
    };
    let sectors = value("sectors");
    assert_eq!(value("full_entries"), 8.0 * sectors);
    assert_eq!(
        value("full_table_bytes"),
        value("full_entries") * value("bytes_per_entry")
    );
    assert!(value("interp_entries_kept") > 0.0);
    // What follows from the entry count and the accounting alone.
    for metric in ["10 GB disk", "linearly"] {
        let c = a.checks.iter().find(|c| c.metric.contains(metric)).unwrap();
        assert!(c.pass, "{c:?}");
    }
}
