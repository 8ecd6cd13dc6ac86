//! MimdRAID's Square Root Rules 2 and 3 (§2.2) measured on the disk model. Rule 2: the paper's
//! drive (`st34502lw`, the Cheetah 9LP of its Table 1) rebuilt with smaller platters
//! (`st34502lw:smaller-platters=C`, see `disk/altered.rs` for every scaling rule),
//! random single-sector reads one at a time, and L = a + b/√C fitted to the means.
//! The power-scaling formula of the same section (MIMD-EQ-POWER) is evaluated on the
//! presets' own scale factors, as a consistency check. Rule 3: the same drive with H
//! heads per surface on independent arms (`st34502lw:heads-per-surface=H`,
//! `stack/arms.rs`), L = a + b/√H fitted the same way.

use super::mimd_stack::sqrt_rule_fit;
use super::random_io::random_io;
use super::Check;
use crate::disk::altered::SMALLER_PLATTERS;
use crate::disk::hdd::Hdd;
use crate::disk::presets::preset;
use crate::report::{ExperimentOutput, Plot, PlotKind, Series, Table};
use std::fmt::Write as _;

/// The base drive.
const BASE: &str = "st34502lw";

/// Platter-capacity divisors measured (C = 1 is the unaltered drive).
const SCALES: [f64; 4] = [1.0, 2.0, 4.0, 9.0];

/// One platter size's measurement.
struct Point {
    c: f64,
    capacity: u64,
    cylinders: u32,
    rpm: f64,
    mean_ms: f64,
    seek_ms: f64,
    rotation_ms: f64,
    other_ms: f64,
}

/// MIMD-RULE2 (with MIMD-EQ-POWER as a consistency check).
pub fn mimd_rule2(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    let n = if quick { 2_000 } else { 20_000 };
    let mut out = ExperimentOutput::new(
        "MIMD-RULE2",
        "Smaller platters and the Square Root Rule 2 (§2.2.1), on the disk model",
        format!(
            "MimdRAID's drive ({BASE}, the Cheetah 9LP of Table 1) rebuilt with platters of \
             1/C the capacity for C = 1, 2, 4, 9 (`disk = \"{BASE}{SMALLER_PLATTERS}C\"` in a \
             stack's TOML): the areal density is kept, so cylinders and sectors per track \
             shrink by √C and capacity by C; the spindle turns √C times as fast (the same \
             linear velocity and data rate); the seek curve, in cylinders, is the drive's \
             own, because the track pitch is unchanged, so a seek of d cylinders is the same \
             physical distance and the stroke shrinks by √C (a lighter arm's faster \
             acceleration is not modelled); overheads, bus and cache are the base drive's. \
             On each, {n} random single-sector reads over the whole drive, one at a time, \
             each after an idle gap of a random phase (the head meets it at a random angle \
             from where the last read left it). The paper states the rule without numbers \
             of its own: the part of the latency that does not depend on overheads improves \
             by √C. As for Rule 1 (MIMD-F5), the overhead is the intercept a of \
             L = a + b/√C fitted by least squares over the four sizes; the checks' \
             tolerances are Rule 1's (±15 %, R² ≥ 0.95), fixed before any run. The drive's \
             own breakdown is shown beside the fit: its rotational delay shrinks by √C, its \
             seek time by less (a seek's settle does not shrink with distance), which the \
             fitted intercept absorbs, as the paper's overhead includes the arm's \
             acceleration."
        ),
        seed,
    );
    let base = preset(BASE)?;
    let mut pts = Vec::new();
    for (i, &c) in SCALES.iter().enumerate() {
        let p = preset(&format!("{BASE}{SMALLER_PLATTERS}{c}"))?;
        let hdd = Hdd::new(p.clone()).map_err(|e| e.to_string())?;
        let r =
            random_io(&p, n, 1, false, seed ^ ((i as u64 + 1) << 24)).map_err(|e| e.to_string())?;
        pts.push(Point {
            c,
            capacity: hdd.capacity(),
            cylinders: p.geometry.zones.last().map_or(0, |z| z.last_cyl + 1),
            rpm: p.mech.rpm,
            mean_ms: r.mean_ms,
            seek_ms: r.mean_seek_ms,
            rotation_ms: r.mean_rotation_ms,
            other_ms: r.mean_transfer_ms + r.mean_overhead_ms,
        });
    }
    let fit: Vec<(f64, f64)> = pts.iter().map(|p| (p.c, p.mean_ms)).collect();
    let (a, b, r2) = sqrt_rule_fit(&fit);
    let one = &pts[0];

    let mut table = Table::new(&[
        "C",
        "capacity GB",
        "cylinders",
        "rpm",
        "latency ms",
        "seek ms",
        "rotation ms",
        "other ms",
        "fit a + b/√C",
        "(L(1) − a)/(L(C) − a)",
        "positioning ratio",
        "√C",
    ]);
    out.csv =
        "c,capacity_sectors,cylinders,rpm,latency_ms,seek_ms,rotation_ms,other_ms,fit_ms\n".into();
    for p in &pts {
        let fitted = a + b / p.c.sqrt();
        let _ = writeln!(
            out.csv,
            "{},{},{},{:.1},{:.4},{:.4},{:.4},{:.4},{fitted:.4}",
            p.c, p.capacity, p.cylinders, p.rpm, p.mean_ms, p.seek_ms, p.rotation_ms, p.other_ms
        );
        table.rows.push(vec![
            format!("{}", p.c),
            format!("{:.3}", p.capacity as f64 * 512.0 / 1e9),
            p.cylinders.to_string(),
            format!("{:.0}", p.rpm),
            format!("{:.3}", p.mean_ms),
            format!("{:.3}", p.seek_ms),
            format!("{:.3}", p.rotation_ms),
            format!("{:.3}", p.other_ms),
            format!("{fitted:.3}"),
            format!("{:.3}", (one.mean_ms - a) / (p.mean_ms - a)),
            format!(
                "{:.3}",
                (one.seek_ms + one.rotation_ms) / (p.seek_ms + p.rotation_ms)
            ),
            format!("{:.3}", p.c.sqrt()),
        ]);
    }
    out.tables.push(table);
    out.tables.push(fit_table(a, b, r2));

    let id = "MIMD-RULE2";
    for &c in &[4.0, 9.0] {
        if let Some(p) = pts.iter().find(|p| p.c == c) {
            out.checks.push(Check::relative(
                id,
                &format!(
                    "platters of 1/{c} the capacity: latency less the fitted overhead, full size \
                     over smaller (√{c})"
                ),
                c.sqrt(),
                (one.mean_ms - a) / (p.mean_ms - a),
                0.15,
            ));
        }
    }
    out.checks.push(Check::range(
        id,
        "R² of the fit L = a + b/√C over C = 1, 2, 4, 9",
        0.95,
        1.0,
        r2,
    ));
    // Inputs read back: the presets scale as documented.
    if let Some(p) = pts.iter().find(|p| p.c == 9.0) {
        out.checks.push(
            Check::relative(
                id,
                "C = 9 preset: capacity of the full-size drive over the smaller one (C)",
                9.0,
                one.capacity as f64 / p.capacity as f64,
                0.03,
            )
            .consistency(
                "The preset is built to hold 1/C the capacity (whole cylinders and sectors \
                 round it); this reads the construction back.",
            ),
        );
        out.checks.push(
            Check::relative(
                id,
                "C = 9: mean rotational delay, full size over smaller (√C)",
                3.0,
                one.rotation_ms / p.rotation_ms.max(1e-9),
                0.05,
            )
            .consistency(
                "The spindle is set to turn √C times as fast, so the rotational delay of \
                 reads at random angles shrinks by √C by construction.",
            ),
        );
    }

    // MIMD-EQ-POWER: P ∝ diameter^4.6 × rpm^2.8, on the C = 2 preset's own factors.
    if let Some(p) = pts.iter().find(|p| p.c == 2.0) {
        let diameter = p.cylinders as f64 / one.cylinders as f64;
        let speed = p.rpm / base.mech.rpm;
        let power = diameter.powf(4.6) * speed.powf(2.8);
        out.checks.push(
            Check::absolute(
                "MIMD-EQ-POWER",
                "power of the C = 2 (f = √2) preset over the full-size drive: \
                 (diameter ratio)^4.6 × (rpm ratio)^2.8",
                0.536,
                power,
                0.01,
            )
            .consistency(
                "The paper's power law evaluated on our preset's diameter (cylinder span) \
                 and spindle-speed ratios; the model simulates no power, so this is \
                 arithmetic on the scale factors, not a measurement.",
            ),
        );
        let _ = write!(
            out.description,
            "\n\nPower (MIMD-EQ-POWER, §2.2.1): the paper's law P ∝ diameter^4.6 × rpm^2.8 on \
             the C = 2 preset's factors (diameter × {diameter:.4}, rpm × {speed:.4}) gives \
             × {power:.3}: the smaller, faster drive draws less power at the same data rate. \
             The disk model has no power model; this is arithmetic only."
        );
    }
    let _ = write!(
        out.description,
        "\n\nFit: L = {a:.2} + {b:.2}/√C ms (R² {r2:.4}). The drive's own positioning time \
         (seek + rotation) improves by {:.2} at C = 4 and {:.2} at C = 9 (√C: 2 and 3): its \
         rotation by √C, its seek less, since the same settle ends every seek.",
        (one.seek_ms + one.rotation_ms) / (pts[2].seek_ms + pts[2].rotation_ms),
        (one.seek_ms + one.rotation_ms) / (pts[3].seek_ms + pts[3].rotation_ms),
    );

    let xs: Vec<f64> = pts.iter().map(|p| p.c).collect();
    out.plots.push(Plot {
        title: "Random-read latency against platter-capacity divisor C".into(),
        x_label: "C (platter capacity ÷ C, diameter ÷ √C, rpm × √C)".into(),
        y_label: "mean latency (ms)".into(),
        kind: PlotKind::Line,
        series: vec![
            Series {
                label: "simulated latency".into(),
                points: pts.iter().map(|p| (p.c, p.mean_ms)).collect(),
            },
            Series {
                label: format!("fit {a:.2} + {b:.2}/√C"),
                points: xs.iter().map(|&c| (c, a + b / c.sqrt())).collect(),
            },
            Series {
                label: "seek (drive's breakdown)".into(),
                points: pts.iter().map(|p| (p.c, p.seek_ms)).collect(),
            },
            Series {
                label: "rotation (drive's breakdown)".into(),
                points: pts.iter().map(|p| (p.c, p.rotation_ms)).collect(),
            },
        ],
        log_x: false,
        paper: Vec::new(),
        x_categories: Vec::new(),
    });
    Ok(out)
}

/// Heads per surface measured for MIMD-RULE3 (H = 1 is the unaltered drive).
const HEADS: [u32; 7] = [1, 2, 3, 4, 6, 9, 12];

/// MIMD-RULE3: one drive with H heads per surface on independent arms.
pub fn mimd_rule3(quick: bool, seed: u64) -> Result<ExperimentOutput, String> {
    use super::mimd_stack::{
        disk_toml, figure5_device, random_reads_on, stack_toml, Favour, Figure5Layout,
    };
    use crate::disk::altered::HEADS_PER_SURFACE;
    let n = if quick { 2_000 } else { 20_000 };
    let mut out = ExperimentOutput::new(
        "MIMD-RULE3",
        "More heads per surface and the Square Root Rule 3 (§2.2.2), on the disk model",
        format!(
            "MimdRAID's drive ({BASE}, the Cheetah 9LP of Table 1) built with H heads per \
             surface on independent arms, H = {} (`disk = \"{BASE}{HEADS_PER_SURFACE}H\"` in a \
             stack's TOML, stack/arms.rs): H arms, each with a head on every surface, sit \
             evenly round the platters (arm i is i/H of a turn round from arm 0) and move \
             independently over the one copy of the data; each request goes to the arm the \
             drive model predicts reaches its sector first (command overhead, that arm's \
             seek, the wait for the sector to come round to it). Everything else (zones, \
             seek curve, rpm, overheads, bus, cache) is the drive's; each arm has its own \
             data channel, as the paper expects. On each, {n} random single-sector reads \
             over the whole drive, one at a time, each after an idle gap of a random phase. \
             The paper states the rule without numbers of its own (its Figure 5 plots the \
             curve with x = heads per surface): the part of the latency that does not \
             depend on overheads improves by √H. As for Rules 1 and 2, the overhead is the \
             intercept a of L = a + b/√H fitted by least squares over the measured H; the \
             tolerances are Rule 1's (±15 %, R² ≥ 0.95), fixed before any run. The paper \
             also says D synchronized mirrors emulate D heads per surface: the H = 4 drive \
             and 4 synchronized mirrors are run on the same reads.",
            HEADS.map(|h| h.to_string()).join(", ")
        ),
        seed,
    );
    let mut pts = Vec::new();
    for (i, &h) in HEADS.iter().enumerate() {
        let m = random_reads_on(
            &disk_toml(&format!("{BASE}{HEADS_PER_SURFACE}{h}"), 1),
            n,
            seed ^ ((i as u64 + 1) << 24) ^ 0x3EAD,
        )?;
        pts.push((h, m));
    }
    let fit: Vec<(f64, f64)> = pts
        .iter()
        .map(|(h, m)| (f64::from(*h), m.mean_ms))
        .collect();
    let (a, b, r2) = sqrt_rule_fit(&fit);
    let one = pts[0].1;
    let ratio = |ms: f64| (one.mean_ms - a) / (ms - a);

    let mut table = Table::new(&[
        "H",
        "latency ms",
        "seek ms",
        "rotation ms",
        "other ms",
        "fit a + b/√H",
        "(L(1) − a)/(L(H) − a)",
        "positioning ratio",
        "√H",
    ]);
    out.csv = "h,latency_ms,seek_ms,rotation_ms,other_ms,fit_ms\n".into();
    for (h, m) in &pts {
        let hf = f64::from(*h);
        let fitted = a + b / hf.sqrt();
        let _ = writeln!(
            out.csv,
            "{h},{:.4},{:.4},{:.4},{:.4},{fitted:.4}",
            m.mean_ms, m.seek_ms, m.rotation_ms, m.overhead_ms
        );
        table.rows.push(vec![
            h.to_string(),
            format!("{:.3}", m.mean_ms),
            format!("{:.3}", m.seek_ms),
            format!("{:.3}", m.rotation_ms),
            format!("{:.3}", m.overhead_ms),
            format!("{fitted:.3}"),
            format!("{:.3}", ratio(m.mean_ms)),
            format!(
                "{:.3}",
                (one.seek_ms + one.rotation_ms) / (m.seek_ms + m.rotation_ms)
            ),
            format!("{:.3}", hf.sqrt()),
        ]);
    }
    out.tables.push(table);
    out.tables.push(fit_table(a, b, r2));

    let id = "MIMD-RULE3";
    for &h in &[2u32, 4, 9] {
        if let Some((_, m)) = pts.iter().find(|(x, _)| *x == h) {
            out.checks.push(Check::relative(
                id,
                &format!(
                    "{h} heads per surface (one drive, {h} arms): latency less the fitted \
                     overhead, one head over {h} (√{h})"
                ),
                f64::from(h).sqrt(),
                ratio(m.mean_ms),
                0.15,
            ));
        }
    }
    out.checks.push(Check::range(
        id,
        "R² of the fit L = a + b/√H over the measured H",
        0.95,
        1.0,
        r2,
    ));
    // The paper's equivalence, on the same reads.
    let same = |toml: &str| random_reads_on(toml, n / 2, seed ^ 0x4EAD5);
    let arms4 = same(&disk_toml(&format!("{BASE}{HEADS_PER_SURFACE}4"), 1))?;
    let mirrors4 = same(&stack_toml(&figure5_device(
        1,
        4,
        0,
        &Figure5Layout::whole(Favour::Seek)?,
    )))?;
    out.checks.push(
        Check::relative(
            id,
            "a drive with 4 heads per surface against 4 synchronized mirrors, same reads: \
             latency ratio (the paper: mirrors emulate the heads)",
            1.0,
            arms4.mean_ms / mirrors4.mean_ms,
            0.02,
        )
        .consistency(
            "Both are built alike (arm i, or mirror i, i/4 of a turn round; each read to \
             the one the drive model says reaches it first), so on read-only work they agree \
             by construction; this guards the two builds.",
        ),
    );
    let _ = write!(
        out.description,
        "\n\nFit: L = {a:.2} + {b:.2}/√H ms (R² {r2:.4}). The drive's own positioning time \
         (seek + rotation) improves by {:.2} at H = 4 and {:.2} at H = 9 (√H: 2 and 3). Same \
         reads on 4 arms and on 4 synchronized mirrors: {:.3} and {:.3} ms.",
        (one.seek_ms + one.rotation_ms) / (pts[3].1.seek_ms + pts[3].1.rotation_ms),
        (one.seek_ms + one.rotation_ms) / (pts[5].1.seek_ms + pts[5].1.rotation_ms),
        arms4.mean_ms,
        mirrors4.mean_ms,
    );

    let xs: Vec<f64> = pts.iter().map(|(h, _)| f64::from(*h)).collect();
    out.plots.push(Plot {
        title: "Random-read latency against heads per surface H".into(),
        x_label: "H (heads per surface, independent arms)".into(),
        y_label: "mean latency (ms)".into(),
        kind: PlotKind::Line,
        series: vec![
            Series {
                label: "simulated latency".into(),
                points: pts
                    .iter()
                    .map(|(h, m)| (f64::from(*h), m.mean_ms))
                    .collect(),
            },
            Series {
                label: format!("fit {a:.2} + {b:.2}/√H"),
                points: xs.iter().map(|&h| (h, a + b / h.sqrt())).collect(),
            },
            Series {
                label: "seek (drive's breakdown)".into(),
                points: pts
                    .iter()
                    .map(|(h, m)| (f64::from(*h), m.seek_ms))
                    .collect(),
            },
            Series {
                label: "rotation (drive's breakdown)".into(),
                points: pts
                    .iter()
                    .map(|(h, m)| (f64::from(*h), m.rotation_ms))
                    .collect(),
            },
        ],
        log_x: false,
        paper: vec![Series {
            label: "paper: Square Root Rule 2.7 + 6.2/√H (Figure 5)".into(),
            points: xs.iter().map(|&h| (h, 2.7 + 6.2 / h.sqrt())).collect(),
        }],
        x_categories: Vec::new(),
    });
    Ok(out)
}

/// The one-row table of a fit of L = a + b/√D: a, b and R².
fn fit_table(a: f64, b: f64, r2: f64) -> Table {
    let mut fits = Table::new(&["a (ms)", "b (ms)", "R²"]);
    fits.rows.push(vec![
        format!("{a:.3}"),
        format!("{b:.3}"),
        format!("{r2:.4}"),
    ]);
    fits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule3_reproduction_checks_pass_for_several_seeds() {
        for seed in [1, 7, 42] {
            let out = mimd_rule3(true, seed).expect("run");
            for c in &out.checks {
                assert!(c.pass, "seed {seed}: {c:?}");
            }
            assert!(out.checks.iter().any(|c| c.is_reproduction()));
        }
    }

    #[test]
    fn rule2_reproduction_checks_pass_for_several_seeds() {
        for seed in [1, 7, 42] {
            let out = mimd_rule2(true, seed).expect("run");
            for c in &out.checks {
                assert!(c.pass, "seed {seed}: {c:?}");
            }
            assert!(out
                .checks
                .iter()
                .any(|c| c.id == "MIMD-RULE2" && c.is_reproduction()));
            assert!(out
                .checks
                .iter()
                .all(|c| c.id != "MIMD-EQ-POWER" || !c.is_reproduction()));
        }
    }
}
