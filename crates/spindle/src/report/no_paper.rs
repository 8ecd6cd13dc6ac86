//! Why a plot draws no values from the paper: for the report's list of such plots.

/// Why plot `k` (from 1) of experiment `id` has no paper values.
pub(crate) fn why(id: &str, k: usize) -> &'static str {
    match (id, k) {
        ("DISKSIM-VALID", _) | ("HPLAJW-DISKSIM", _) => {
            "compared with DiskSim's own measurements and results, not with a paper; the \
             checks give those reference values"
        }
        ("PROX-F3", 2) => {
            "the paper prints no histogram values; its mode (3 revolutions) is a check, \
             and its mean strand time is drawn on plot 1"
        }
        ("PROX-F4", _) => "the paper's figure has no printed values",
        ("MIMD-F7", _) => {
            "the paper states that the curve largely obeys the Square Root Rule and gives no values"
        }
        ("MIMD-RULE2", _) => {
            "the paper states the rule (latency less overhead shrinks by √C), not latencies; \
             the checks compare our ratios with √C"
        }
        ("MIMIC-F3.2", _) | ("MIMIC-F3.4", _) | ("MIMIC-F3.5", _) => {
            "the thesis's figure has no printed values; the checks test the orderings its \
             text states"
        }
        ("MIMIC-F3.3", _) => "the thesis's demerit values and distributions are figure-only",
        ("MIMIC-F3.7", _) => {
            "the per-disk values are figure-only; the thesis's stated bounds (FCFS sometimes \
             over 2×, SMTF within 8 % of greedy-optimal, C-LOOK and SSTF 10–50 % slower) are \
             checks"
        }
        ("MIMIC-F3.9", 2) => {
            "the thesis counts days, not sevenths of the requests; its one stated number is \
             drawn on plot 1"
        }
        ("MIMIC-MEM", _) => {
            "the thesis gives table sizes in its text only; they are in the table and checks"
        }
        ("LOGSKIP-F5.3", _) | ("LOGSKIP-F5.7", _) | ("LOGSKIP-F5.8", _) | ("LOGSKIP-F5.10", _) => {
            "the thesis's figure has no printed values"
        }
        ("LOGSKIP-F5.11", _) => {
            "the thesis states relations (averages within 1 %, the predicted range covering \
             over 99 % of the times), which are checks, not values"
        }
        ("LOGSKIP-F5.15", _) | ("LOGSKIP-F5.17", _) => {
            "the thesis describes the curves' shapes; its only numbers (3.35 ms predicted, \
             4.28 ms measured at 3 ms think time) are service times, not bandwidths"
        }
        ("DEDUP-F12", _) => {
            "the paper states growth rates (linear with 2^5 buckets, flat with 2^25), not values"
        }
        ("DEDUP-F13", _) => {
            "the paper's costs are CPU cycles on its host; ours are probe counts, on another axis"
        }
        _ => "the source gives no numbers for this plot",
    }
}
