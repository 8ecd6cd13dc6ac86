//! The proximal I/O paper's strand model and its two practical-considerations figures:
//! PROX-APPA-model (Appendix A's birthday-paradox model against the simulated strands),
//! PROX-F3 (distribution of strand response time: simulated strands, the model, FIFO)
//! and PROX-F4 (issuing a strand in random against ascending LBN order, with a named
//! firmware limitation model).
//!
//! The strands themselves are PROX-F2's (`strands::queue_depth_samples`): proximal
//! strands of 8 × 4 KiB reads within 100,000 LBNs on the Cheetah 15K.5 preset, issued in
//! ascending LBN order, all 8 outstanding at the drive (QD 8, the drive's SPTF reorders)
//! or one at a time (QD 1 = FIFO).

use super::options::RunOpts;
use super::random_io::random_io;
use super::strand_model::{MaxLoad, ModelInputs, StrandModel};
use super::strands::{
    queue_depth_samples, strand_samples, IssueOrder, Placement, StrandConfig, StrandSample,
};
use super::Check;
use crate::disk::hdd::Hdd;
use crate::disk::params::{DiskParams, FirmwarePolicy};
use crate::disk::presets::preset;
use crate::report::{ExperimentOutput, Plot, PlotKind, Series, Table};
use std::fmt::Write as _;

/// Strand size of the appendix and Figures 3–4.
const D: usize = 8;

fn trials(o: &RunOpts) -> usize {
    if o.quick {
        2000
    } else {
        20_000
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Population variance.
fn variance(v: &[f64]) -> f64 {
    let m = mean(v);
    v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len().max(1) as f64
}

/// The lower median.
fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(s.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or(f64::NAN)
}

fn cdf_points(v: &[f64]) -> Vec<(f64, f64)> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len().max(1) as f64;
    s.iter()
        .enumerate()
        .map(|(i, &x)| (x, (i + 1) as f64 / n))
        .collect()
}

/// The model's inputs for a simulated drive. Decision (the paper is silent on how H is
/// obtained for a real drive): the bin width is the drive's minimal time from the start
/// of one request's data to the start of the next one's on another track — its
/// repositioning time, max(head switch, firmware command turnaround), plus one request's
/// transfer (S sectors) — at the first zone's SPT, as App. A uses. The initial term is
/// the drive's command overhead plus its average seek; the model adds half a turn of
/// rotational latency itself.
pub fn drive_model_inputs(params: &DiskParams, blocks: u32) -> Result<ModelInputs, String> {
    let hdd = Hdd::new(params.clone()).map_err(|e| e.to_string())?;
    let spt = hdd.locate(0).map(|l| l.spt).ok_or("empty disk")?;
    let rev_ms = hdd.period_ns() / 1e6;
    let reposition_ms = params
        .mech
        .head_switch_ms
        .max(hdd.turnaround_ns() as f64 / 1e6);
    let transfer_ms = blocks as f64 * rev_ms / spt as f64;
    Ok(ModelInputs {
        spt,
        rev_ms,
        switch_ms: reposition_ms + transfer_ms,
        initial_seek_ms: params.ctrl.read_miss.after_read + hdd.average_seek_ms(),
        bins_override: None,
    })
}

/// The model-implementation checks of PROX-APPA-model (catalog), under `id`.
fn model_checks(id: &str) -> Vec<Check> {
    let paper = ModelInputs::paper_cheetah();
    let b6 = StrandModel::new(paper.with_bins(6), D as u32);
    let b8 = MaxLoad::new(D as u32, 8);
    let why = if id == "PROX-APPA-model" {
        MODEL_ON_PAPER_INPUTS
    } else {
        "Repeats PROX-APPA-model's check of the model on the paper's inputs."
    };
    [
        Check::absolute(
            id,
            "model b = 6, D = 8: E[Revs]",
            3.42,
            b6.load.expected_revs(),
            0.02,
        ),
        Check::absolute(
            id,
            "model b = 6, D = 8: revolutions per request",
            0.43,
            b6.load.revs_per_request(),
            0.01,
        ),
        Check::absolute(
            id,
            "model b = 6, D = 8: Var[revolutions], rev²",
            0.57,
            b6.load.variance(),
            0.02,
        ),
        Check::absolute(
            id,
            "model b = 6, D = 8: strand time with 3.5 ms initial seek, ms",
            17.2,
            b6.mean_ms(),
            0.1,
        ),
        Check::absolute(
            id,
            "model b = 8, D = 8: E[Revs]",
            3.10,
            b8.expected_revs(),
            0.02,
        ),
        Check::absolute(
            id,
            "model b = 8, D = 8: P(no extra revolution)",
            0.0024,
            b8.q(1),
            0.00005,
        ),
    ]
    .into_iter()
    .map(|c| c.consistency(why))
    .collect()
}

/// Why a check of the appendix's model on the appendix's own inputs is not a reproduction.
const MODEL_ON_PAPER_INPUTS: &str = "The appendix's formula evaluated on the appendix's own \
    inputs: it checks our implementation of the model, not a simulated result.";

const STRANDS_SETUP: &str = "Simulated strands: the Cheetah 15K.5 preset; a strand is 8 × 4 KiB \
    reads uniformly random within 100,000 LBNs of a random spot, issued in ascending LBN order; \
    'Strands' has all 8 outstanding at the drive (its SPTF reorders them), 'FIFO' one at a time \
    (the host feeds them in ascending LBN order as each completes) — PROX-F2's strands at queue \
    depths 8 and 1, same seeds. Before each strand one untimed random read moves the head away \
    and the host idles a random phase, so the strand pays an average seek and a random \
    rotational latency.";

const REVS_DECISION: &str = "Counting revolutions of a simulated strand (the paper does not \
    say how it counted them): the strand's time after its first data transfer begins — strand \
    time minus the first-served request's command overhead, seek and rotational latency — \
    divided by the revolution time and rounded up. A strand whose requests all pass under the \
    head within one turn counts 1, the model's 'no extra revolution' (max load 1); the model's \
    extra ½ revolution is the initial rotational latency, which this count excludes.";

/// How the model's bins are chosen, with the simulated drive's numbers.
fn bins_decision(params: &DiskParams, drive: &ModelInputs) -> String {
    format!(
        "Model bins: App. A's inputs (SPT 1200, track switch 0.475 ms, 4 ms per turn) give H = \
         142 sectors and B = SPT/H = 8.45, so b = ⌊B⌋ = 8, but every number the appendix states \
         reproduces only with b = 6 (the appendix itself says 'this disk can service at best six in \
         a single revolution'). For the simulated drive we take the bin width to be its minimal \
         time from the start of one request's data to the start of the next one's on another \
         track — max(head switch {:.3} ms, firmware command turnaround {:.3} ms) plus one 4 KiB \
         transfer at the first zone's {} sectors per track, {:.3} ms — which gives H = {} \
         sectors, B = {:.2} and b = {}. (The preset's turnaround was itself chosen from the \
         paper's 'at best six', so this agreement is by construction, not an independent \
         confirmation.) The model assumes every request on its own track; within 100,000 LBNs \
         (about 83 tracks of the first zone) two of 8 requests share a track in about 30 % of \
         strands.",
        params.mech.head_switch_ms,
        params.firmware.turnaround_ms,
        drive.spt,
        drive.switch_ms,
        drive.h_sectors(),
        drive.bins_exact(),
        drive.bins()
    )
}

/// PROX-APPA-model: the appendix's model, exactly, and against the simulated strands.
pub fn prox_appa_model(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let params = preset("cheetah15k5")?;
    let drive_in = drive_model_inputs(&params, 8)?;
    let samples = queue_depth_samples(&params, D, &[8], trials(o), o.seed)
        .map_err(|e| e.to_string())?
        .pop()
        .map(|(_, s)| s)
        .unwrap_or_default();
    let times: Vec<f64> = samples.iter().map(|s| s.time_ms).collect();
    let sim_mean = mean(&times);
    let sim_var = variance(&times);
    let mut out = ExperimentOutput::new(
        "PROX-APPA-model",
        "Birthday-paradox model of proximal strands (Appendix A)",
        format!(
            "Appendix A's model: a strand of D requests in b equal bins of the track circle \
             needs as many revolutions as its fullest bin holds, so E[Revs] = ½ + E[max load] and \
             a strand takes s + T_rev·(½ + k) with probability Q_k = P(max load = k). The printed \
             recurrence for Q_k is garbled; we compute the exact max-load distribution of D \
             balls in b bins by a dynamic program over the bins (each bin takes a binomial share \
             of the balls still unplaced).\n\n{}\n\n{STRANDS_SETUP} {} strands. \
             Model rows: the paper's inputs with b = 8 and b = 6 (3.5 ms initial seek), and the \
             simulated drive's inputs (b = {}, initial seek = command overhead + average seek \
             = {:.3} ms).",
            bins_decision(&params, &drive_in),
            times.len(),
            drive_in.bins(),
            drive_in.initial_seek_ms
        ),
        o.seed,
    );

    let paper = ModelInputs::paper_cheetah();
    let rows: Vec<(String, StrandModel)> = vec![
        (
            format!(
                "paper inputs, b = ⌊{:.2}⌋ = {}",
                paper.bins_exact(),
                paper.bins()
            ),
            StrandModel::new(paper, D as u32),
        ),
        (
            "paper inputs, b = 6 (override)".into(),
            StrandModel::new(paper.with_bins(6), D as u32),
        ),
        (
            format!(
                "simulated drive, b = ⌊{:.2}⌋ = {}",
                drive_in.bins_exact(),
                drive_in.bins()
            ),
            StrandModel::new(drive_in, D as u32),
        ),
    ];
    let mut table = Table::new(&[
        "model",
        "D",
        "P(no extra rev)",
        "E[Revs]",
        "revs per request",
        "Var rev²",
        "mode",
        "strand ms",
        "strand var ms²",
    ]);
    out.csv =
        "model,d,b,p_no_extra,e_revs,revs_per_request,var_rev2,mode,strand_ms,strand_var_ms2,pmf\n"
            .into();
    for (label, m6) in &rows {
        for d in [6u32, 8] {
            let m = StrandModel::new(m6.inputs, d);
            let l = &m.load;
            table.rows.push(vec![
                label.clone(),
                d.to_string(),
                format!("{:.4}", l.q(1)),
                format!("{:.3}", l.expected_revs()),
                format!("{:.3}", l.revs_per_request()),
                format!("{:.3}", l.variance()),
                l.mode().to_string(),
                format!("{:.3}", m.mean_ms()),
                format!("{:.3}", m.variance_ms2()),
            ]);
            let pmf: Vec<String> = (1..=d)
                .filter(|&k| l.q(k) > 0.0)
                .map(|k| format!("{k}:{:.4}", l.q(k)))
                .collect();
            let _ = writeln!(
                out.csv,
                "\"{label}\",{d},{},{:.6},{:.6},{:.6},{:.6},{},{:.6},{:.6},\"{}\"",
                l.b,
                l.q(1),
                l.expected_revs(),
                l.revs_per_request(),
                l.variance(),
                l.mode(),
                m.mean_ms(),
                m.variance_ms2(),
                pmf.join(" ")
            );
        }
    }
    let drive_model = &rows[2].1;
    table.rows.push(vec![
        format!("simulated strands ({} strands)", times.len()),
        D.to_string(),
        format!(
            "{:.4}",
            samples.iter().filter(|s| s.revolutions == 1).count() as f64
                / samples.len().max(1) as f64
        ),
        "—".into(),
        "—".into(),
        "—".into(),
        revolution_mode(&samples).to_string(),
        format!("{sim_mean:.3}"),
        format!("{sim_var:.3}"),
    ]);
    out.tables.push(table);
    out.tables.push(Table {
        columns: ["quantity", "value"].map(String::from).to_vec(),
        rows: vec![
            vec![
                "H (paper inputs), sectors".into(),
                paper.h_sectors().to_string(),
            ],
            vec!["B = SPT/H (paper inputs)".into(), f3(paper.bins_exact())],
            vec![
                "simulated drive: repositioning + transfer per request, ms".into(),
                f3(drive_in.switch_ms),
            ],
            vec![
                "model (simulated drive) mean vs simulated mean".into(),
                format!(
                    "{:.3} vs {:.3} ms ({:+.1} %)",
                    drive_model.mean_ms(),
                    sim_mean,
                    (drive_model.mean_ms() / sim_mean - 1.0) * 100.0
                ),
            ],
        ],
    });

    out.checks = model_checks("PROX-APPA-model");
    let b6 = |d: u32| StrandModel::new(paper.with_bins(6), d);
    out.checks.push(
        Check::absolute(
            "PROX-APPA-model",
            "model b = 6: strand variance, ms² (paper σ² = 9)",
            9.0,
            b6(8).variance_ms2(),
            0.5,
        )
        .consistency(MODEL_ON_PAPER_INPUTS),
    );
    out.checks.push(
        Check::absolute(
            "PROX-APPA-model",
            "model b = 6, D = 8: most frequent revolution count (paper: three)",
            3.0,
            b6(8).load.mode() as f64,
            0.0,
        )
        .consistency(MODEL_ON_PAPER_INPUTS),
    );
    out.checks.push(
        Check::absolute(
            "PROX-APPA-model",
            "model b = 6, D = 6: P(no extra revolution) (paper 0.02)",
            0.02,
            b6(6).load.q(1),
            0.005,
        )
        .consistency(MODEL_ON_PAPER_INPUTS),
    );
    out.checks.push(
        Check::absolute(
            "PROX-APPA-model",
            "model b = 6: per-request revolutions, D = 8 below D = 6, % (paper 12)",
            12.0,
            (1.0 - b6(8).load.revs_per_request() / b6(6).load.revs_per_request()) * 100.0,
            0.5,
        )
        .consistency(MODEL_ON_PAPER_INPUTS),
    );
    out.checks.push(Check::absolute(
        "PROX-APPA-model",
        "b derived from the simulated drive (⌊T_rev / (reposition + transfer)⌋)",
        6.0,
        drive_in.bins() as f64,
        0.0,
    ).consistency("The preset's command turnaround (0.6 ms) was chosen so that this b is 6, the bin count every number of the appendix implies, so it cannot fail."));
    out.checks.push(
        Check::relative(
            "PROX-APPA-model",
            "simulated strand of 8 (QD 8), mean ms",
            17.1,
            sim_mean,
            0.10,
        )
        .consistency(
            "A looser duplicate (±10 %) of PROX-F3's check (±1 ms) of the same simulated strands.",
        ),
    );
    Ok(out)
}

fn f3(x: f64) -> String {
    format!("{x:.3}")
}

/// Most frequent revolution count among simulated strands (smallest on ties).
fn revolution_mode(samples: &[StrandSample]) -> u32 {
    let hist = revolution_histogram(samples);
    let mut best = (0u32, 0usize);
    for (k, &c) in hist.iter().enumerate() {
        if c > best.1 {
            best = (k as u32, c);
        }
    }
    best.0
}

/// `hist[k]` = number of strands that used k revolutions.
fn revolution_histogram(samples: &[StrandSample]) -> Vec<usize> {
    let max = samples.iter().map(|s| s.revolutions).max().unwrap_or(0) as usize;
    let mut hist = vec![0usize; max + 1];
    for s in samples {
        hist[s.revolutions as usize] += 1;
    }
    hist
}

/// The paper's mean response time of a strand of 8 at queue depth 8 (Figure 3), ms.
const PAPER_F3_MEAN_MS: f64 = 17.1;

/// PROX-F3: distribution of strand response time, simulated strands vs model vs FIFO.
pub fn prox_f3(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let params = preset("cheetah15k5")?;
    let drive_in = drive_model_inputs(&params, 8)?;
    let model = StrandModel::new(drive_in, D as u32);
    let sweep =
        queue_depth_samples(&params, D, &[1, 8], trials(o), o.seed).map_err(|e| e.to_string())?;
    let get = |q: u32| {
        sweep
            .iter()
            .find(|(d, _)| *d == q)
            .map(|(_, s)| s.clone())
            .unwrap_or_default()
    };
    let (fifo, strands) = (get(1), get(8));
    let t = |v: &[StrandSample]| v.iter().map(|s| s.time_ms).collect::<Vec<f64>>();
    let (tf, ts) = (t(&fifo), t(&strands));
    let mut out = ExperimentOutput::new(
        "PROX-F3",
        "Model-predicted vs simulated distribution of strand response time (Figure 3)",
        format!(
            "{STRANDS_SETUP} {} strands each. 'Model' is App. A's birthday model for D = 8 with \
             the simulated drive's inputs: b = {} bins, initial seek {:.3} ms (command overhead \
             + average seek), so strand times {:.1}, {:.1}, {:.1}, {:.1} ms … with probabilities \
             Q_k. Model bins as in PROX-APPA-model.\n\n{REVS_DECISION}\n\nThe model's variance is that of the \
             revolution count alone (its initial seek is a constant and its initial latency a \
             fixed ½ turn); the simulated strands also vary in the lead before the first \
             transfer (seek distance and rotational latency). The table splits the simulated \
             variance into the two parts.",
            ts.len(),
            model.load.b,
            model.inputs.initial_seek_ms,
            model.strand_ms(2),
            model.strand_ms(3),
            model.strand_ms(4),
            model.strand_ms(5),
        ),
        o.seed,
    );
    out.plots.push(Plot {
        title: "Strand response time, D = 8 (CDF)".into(),
        x_label: "strand response time (ms)".into(),
        y_label: "fraction of strands".into(),
        kind: PlotKind::Step,
        series: vec![
            Series {
                label: "Strands (simulated, QD 8)".into(),
                points: cdf_points(&ts),
            },
            Series {
                label: format!("Model (App. A, b = {})", model.load.b),
                // The step starts from 0 at the shortest possible strand.
                points: model
                    .cdf()
                    .first()
                    .map(|&(t, _)| (t, 0.0))
                    .into_iter()
                    .chain(model.cdf())
                    .collect(),
            },
            Series {
                label: "FIFO (simulated, QD 1)".into(),
                points: cdf_points(&tf),
            },
        ],
        log_x: false,
        // The paper states the mean (and variance) of its strands, not their CDF.
        paper: vec![Series {
            label: format!("paper: mean strand of 8, {PAPER_F3_MEAN_MS} ms"),
            points: vec![(PAPER_F3_MEAN_MS, 0.0), (PAPER_F3_MEAN_MS, 1.0)],
        }],
        x_categories: Vec::new(),
    });
    let hist = revolution_histogram(&strands);
    let kmax = (hist.len().saturating_sub(1) as u32).max(6);
    let n = strands.len().max(1) as f64;
    out.plots.push(Plot {
        title: "Revolutions per strand of 8: simulated (QD 8) vs model".into(),
        x_label: "revolutions".into(),
        y_label: "fraction of strands".into(),
        kind: PlotKind::Bars,
        series: vec![
            Series {
                label: "simulated strands".into(),
                points: (1..=kmax)
                    .map(|k| (k as f64, *hist.get(k as usize).unwrap_or(&0) as f64 / n))
                    .collect(),
            },
            Series {
                label: format!("model Q_k (b = {})", model.load.b),
                points: (1..=kmax).map(|k| (k as f64, model.load.q(k))).collect(),
            },
        ],
        log_x: false,
        paper: Vec::new(),
        x_categories: Vec::new(),
    });
    let mut table = Table::new(&["curve", "mean ms", "variance ms²", "median ms", "p90 ms"]);
    let q90 = |v: &[f64]| {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        s.get((s.len() * 9 / 10).min(s.len().saturating_sub(1)))
            .copied()
            .unwrap_or(f64::NAN)
    };
    let model_median = model
        .cdf()
        .into_iter()
        .find(|&(_, c)| c >= 0.5)
        .map(|p| p.0)
        .unwrap_or(f64::NAN);
    let model_p90 = model
        .cdf()
        .into_iter()
        .find(|&(_, c)| c >= 0.9)
        .map(|p| p.0)
        .unwrap_or(f64::NAN);
    for (label, v) in [("Strands (QD 8)", &ts), ("FIFO (QD 1)", &tf)] {
        table.rows.push(vec![
            label.into(),
            f3(mean(v)),
            f3(variance(v)),
            f3(median(v)),
            f3(q90(v)),
        ]);
    }
    table.rows.push(vec![
        format!("Model (b = {})", model.load.b),
        f3(model.mean_ms()),
        f3(model.variance_ms2()),
        f3(model_median),
        f3(model_p90),
    ]);
    out.tables.push(table);
    // Where the simulated variance comes from: the lead (overhead, initial seek and
    // rotational latency, a constant plus ½ turn in the model) and the rest.
    let lead: Vec<f64> = strands.iter().map(|s| s.lead_ms).collect();
    let rest: Vec<f64> = strands.iter().map(|s| s.time_ms - s.lead_ms).collect();
    let (ml, mr) = (mean(&lead), mean(&rest));
    let cov = lead
        .iter()
        .zip(&rest)
        .map(|(a, b)| (a - ml) * (b - mr))
        .sum::<f64>()
        / lead.len().max(1) as f64;
    out.tables.push(Table {
        columns: [
            "Strands (QD 8): part of the strand time",
            "mean ms",
            "variance ms²",
        ]
        .map(String::from)
        .to_vec(),
        rows: vec![
            vec![
                "lead: overhead + initial seek + rotational latency".into(),
                f3(ml),
                f3(variance(&lead)),
            ],
            vec![
                "rest: first transfer to last completion".into(),
                f3(mr),
                f3(variance(&rest)),
            ],
            vec!["2 × covariance".into(), "—".into(), f3(2.0 * cov)],
        ],
    });
    let mut rt = Table::new(&["revolutions", "simulated fraction", "model Q_k"]);
    for k in 1..=kmax {
        rt.rows.push(vec![
            k.to_string(),
            format!("{:.4}", *hist.get(k as usize).unwrap_or(&0) as f64 / n),
            format!("{:.4}", model.load.q(k)),
        ]);
    }
    out.tables.push(rt);

    out.csv = "curve,strand,time_ms,lead_ms,revolutions\n".into();
    for (label, v) in [("strands_qd8", &strands), ("fifo_qd1", &fifo)] {
        for (i, s) in v.iter().enumerate() {
            let _ = writeln!(
                out.csv,
                "{label},{i},{:.6},{:.6},{}",
                s.time_ms, s.lead_ms, s.revolutions
            );
        }
    }
    for (t, q) in model.distribution() {
        let _ = writeln!(out.csv, "model_pmf,,{t:.6},,{q:.6}");
    }

    out.checks.push(Check::absolute(
        "PROX-F3",
        "simulated strand of 8 (QD 8), mean ms",
        PAPER_F3_MEAN_MS,
        mean(&ts),
        1.0,
    ));
    out.checks.push(Check::absolute(
        "PROX-F3",
        "simulated strand of 8 (QD 8), variance ms²",
        9.6,
        variance(&ts),
        3.0,
    ));
    out.checks.extend(model_checks("PROX-F3"));
    out.checks.push(Check::absolute(
        "PROX-F3",
        "simulated revolution-count histogram: mode",
        3.0,
        revolution_mode(&strands) as f64,
        0.0,
    ));
    out.checks.push(Check::at_least(
        "PROX-F3",
        "FIFO median / Strands median",
        1.2,
        median(&tf) / median(&ts),
    ));
    Ok(out)
}

/// PROX-F4: strands issued in random vs ascending LBN order, on an idealized SPTF
/// firmware and on one limited to the leading ascending-LBN run of its queue.
pub fn prox_f4(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "PROX-F4",
        "Effect of issuing strands in ascending LBN order (Figure 4)",
        "Per-request service time (strand time / 8) of proximal strands of 8 × 4 KiB reads within \
         100,000 LBNs, all 8 outstanding at the drive, issued in ascending LBN order or in a \
         random order, on two drives (the paper's are unnamed; we use the two drives of the \
         paper, the Cheetah 15K.5 and the nearline WD RE3 presets). Both orders see the same \
         strand placements. Setup otherwise as PROX-F1.\n\n\
         Firmware limitation model (named 'SPTF limited to the ascending-LBN run', firmware \
         policy SptfAscendingRun): the firmware scans its queue in arrival order and stops at \
         the first command whose LBN is below its predecessor's; SPTF chooses only among that \
         leading ascending run. The paper attributes the effect to a firmware bug and too little \
         embedded CPU (§2.5) without describing it; we model the simplest firmware that fits: \
         a scheduler that considers only the head of the queue when the issue order is unsorted. \
         Sorted issue makes the whole queue one run, so the limited firmware then behaves \
         exactly like ideal SPTF; a random order of 8 starts with a leading run of 1.7 requests \
         on average, so the drive's first choices are close to FIFO; the run grows as commands \
         complete, so part of SPTF's gain survives (the table gives the share lost). Idealized SPTF shows no \
         difference between the orders, as expected. FIFO (one request \
         outstanding, ascending order) is shown for reference. The figure's 'full track data' \
         reference bar is not reproduced. The check 'random order does not work' is ours (the \
         figure has no numbers): random issue at least 1.2 × slower per request than ascending \
         issue on the limited firmware.\n\n\
         Per-request times in OP divide by the drive's simulated random 4 KiB read (PROX-EQ1).",
        o.seed,
    );
    let cfg_for = |issue: IssueOrder| StrandConfig {
        trials: trials(o),
        seed: o.seed,
        issue,
        ..StrandConfig::default()
    };
    let mut table = Table::new(&[
        "drive",
        "firmware",
        "ascending ms",
        "random ms",
        "random / ascending",
        "ascending OP",
        "random OP",
        "share of SPTF's gain over FIFO lost",
    ]);
    out.csv = "drive,firmware,issue,per_request_ms,per_request_op\n".into();
    let mut bars: Vec<Series> = vec![
        Series {
            label: "ideal SPTF, ascending".into(),
            points: vec![],
        },
        Series {
            label: "ideal SPTF, random".into(),
            points: vec![],
        },
        Series {
            label: "limited firmware, ascending".into(),
            points: vec![],
        },
        Series {
            label: "limited firmware, random".into(),
            points: vec![],
        },
        Series {
            label: "FIFO (QD 1)".into(),
            points: vec![],
        },
    ];
    for (di, name) in ["cheetah15k5", "wd-re3"].into_iter().enumerate() {
        let params = preset(name)?;
        let op = random_io(&params, 4000, 8, false, o.seed)
            .map_err(|e| e.to_string())?
            .mean_ms;
        let seed = o.seed ^ 0xF4;
        let per = |policy: FirmwarePolicy, depth: u32, issue: IssueOrder| -> Result<f64, String> {
            let s = strand_samples(
                &params,
                policy,
                depth,
                Placement::Proximal,
                D,
                &cfg_for(issue),
                seed,
            )
            .map_err(|e| e.to_string())?;
            Ok(mean(&s.iter().map(|x| x.time_ms).collect::<Vec<_>>()) / D as f64)
        };
        let ideal_a = per(FirmwarePolicy::Sptf, D as u32, IssueOrder::Ascending)?;
        let ideal_r = per(FirmwarePolicy::Sptf, D as u32, IssueOrder::Random)?;
        let lim_a = per(
            FirmwarePolicy::SptfAscendingRun,
            D as u32,
            IssueOrder::Ascending,
        )?;
        let lim_r = per(
            FirmwarePolicy::SptfAscendingRun,
            D as u32,
            IssueOrder::Random,
        )?;
        let fifo = per(FirmwarePolicy::Sptf, 1, IssueOrder::Ascending)?;
        for (fw, a, r) in [
            ("ideal SPTF", ideal_a, ideal_r),
            ("SPTF limited to the ascending-LBN run", lim_a, lim_r),
        ] {
            table.rows.push(vec![
                name.into(),
                fw.into(),
                f3(a),
                f3(r),
                format!("{:.3}", r / a),
                f3(a / op),
                f3(r / op),
                format!("{:.0} %", (r - a) / (fifo - a) * 100.0),
            ]);
            for (issue, v) in [("ascending", a), ("random", r)] {
                let _ = writeln!(out.csv, "{name},{fw},{issue},{v:.6},{:.6}", v / op);
            }
        }
        table.rows.push(vec![
            name.into(),
            "FIFO (QD 1, ascending)".into(),
            f3(fifo),
            "—".into(),
            "—".into(),
            f3(fifo / op),
            "—".into(),
            "—".into(),
        ]);
        let _ = writeln!(
            out.csv,
            "{name},FIFO (QD 1),ascending,{fifo:.6},{:.6}",
            fifo / op
        );
        for (s, v) in bars.iter_mut().zip([ideal_a, ideal_r, lim_a, lim_r, fifo]) {
            s.points.push((di as f64, v));
        }

        out.checks.push(Check::relative(
            "PROX-F4",
            &format!(
                "{name}: ideal SPTF, random-order vs ascending per-request ms (no difference)"
            ),
            ideal_a,
            ideal_r,
            0.02,
        ).reference("our ascending-order value").consistency("Structural: all 8 requests reach the ideal SPTF queue together, so the issue order cannot change its choices."));
        out.checks.push(Check::at_least(
            "PROX-F4",
            &format!(
                "{name}: limited firmware, random-order / ascending per-request time \
                 (random order 'does not work')"
            ),
            1.2,
            lim_r / lim_a,
        ));
        out.checks.push(Check::holds(
            "PROX-F4",
            &format!("{name}: limited firmware with ascending issue equals ideal SPTF"),
            (lim_a - ideal_a).abs() <= 1e-9 * ideal_a,
        ).consistency("Structural: issued in ascending order, the strand is a single run, which the limited firmware serves as ideal SPTF does."));
        if name == "cheetah15k5" {
            out.checks.push(
                Check::relative(
                    "PROX-F4",
                    "cheetah15k5: ascending-order per-request cost at 8 vs PROX-F1, OP",
                    0.39,
                    lim_a / op,
                    0.10,
                )
                .consistency(
                    "A looser duplicate (±10 %) of PROX-F1's check (±0.05 OP) of the same number.",
                ),
            );
        }
    }
    out.tables.push(table);
    out.plots.push(Plot {
        title: "Per-request time, strand of 8".into(),
        x_label: "drive".into(),
        y_label: "per-request time (ms)".into(),
        kind: PlotKind::Bars,
        series: bars,
        log_x: false,
        paper: Vec::new(),
        x_categories: vec!["Cheetah 15K.5".into(), "WD RE3".into()],
    });
    Ok(out)
}
