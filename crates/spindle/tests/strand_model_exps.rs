//! PROX-APPA-model, PROX-F3 and PROX-F4 through the registry in quick mode: they run,
//! are deterministic, and the checks that do not depend on the paper's hardware pass.

use spindle::experiments::registry::{select, RunOpts};
use spindle::report::ExperimentOutput;

fn run(id: &str, seed: u64) -> ExperimentOutput {
    let e = select(&[id.to_string()]).unwrap();
    assert_eq!(e.len(), 1, "{id} selects one experiment");
    (e[0].run)(&RunOpts {
        quick: true,
        seed,
        full_scale: false,
        durability: Default::default(),
    })
    .unwrap()
}

fn check<'a>(out: &'a ExperimentOutput, metric: &str) -> &'a spindle::experiments::Check {
    out.checks
        .iter()
        .find(|c| c.metric.contains(metric))
        .unwrap_or_else(|| panic!("{}: no check `{metric}`", out.id))
}

#[test]
fn deterministic_per_seed() {
    for id in ["PROX-APPA-model", "PROX-F3", "PROX-F4"] {
        let a = serde_json::to_string(&run(id, 5)).unwrap();
        let b = serde_json::to_string(&run(id, 5)).unwrap();
        let c = serde_json::to_string(&run(id, 6)).unwrap();
        assert_eq!(a, b, "{id}: same seed, same output");
        assert_ne!(a, c, "{id}: another seed, other strands");
    }
}

#[test]
fn model_checks_pass() {
    let out = run("PROX-APPA-model", 1);
    for c in out.checks.iter().filter(|c| c.metric.starts_with("model")) {
        assert!(c.pass, "{}: paper {} ours {}", c.metric, c.paper, c.ours);
    }
    assert!(check(&out, "b derived from the simulated drive").pass);
    assert!(check(&out, "simulated strand of 8").pass);
}

#[test]
fn f3_strands_beat_fifo_and_peak_at_three() {
    let out = run("PROX-F3", 1);
    assert!(check(&out, "FIFO median / Strands median").pass);
    assert!(check(&out, "histogram: mode").pass);
    assert!(check(&out, "mean ms").pass);
    assert_eq!(out.plots[0].series.len(), 3);
}

#[test]
fn f4_order_matters_only_for_the_limited_firmware() {
    let out = run("PROX-F4", 1);
    for drive in ["cheetah15k5", "wd-re3"] {
        assert!(check(&out, &format!("{drive}: ideal SPTF")).pass);
        assert!(check(&out, &format!("{drive}: limited firmware with ascending")).pass);
        let lim = check(&out, &format!("{drive}: limited firmware, random-order"));
        assert!(lim.ours > 1.1, "{drive}: {}", lim.ours);
    }
    assert!(check(&out, "vs PROX-F1").pass);
}
