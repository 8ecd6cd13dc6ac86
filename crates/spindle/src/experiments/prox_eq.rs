//! PROX-EQ2: the Cheetah 15K.5's surface-serpentine bands, read back from the drive
//! model's layout. (PROX-EQ3 and PROX-EQ4 are computed from PROX-T2's rows, in
//! `prox_t2_eq`.)

use super::Check;
use crate::report::Table;

/// PROX-EQ2 (§2.1): the Cheetah 15K.5's surface-serpentine bands, read back from the
/// model's layout. Every figure is an input of the preset (65-cylinder bands, 1,200
/// sectors per outer track, 8 surfaces, a flat seek up to the band's width), so the
/// checks are consistency checks.
pub fn prox_eq2(o: &super::options::RunOpts) -> Result<crate::report::ExperimentOutput, String> {
    use crate::disk::hdd::Hdd;
    let p = crate::disk::presets::preset("cheetah15k5")?;
    let hdd = Hdd::new(p.clone()).map_err(|e| e.to_string())?;
    let g = hdd.geometry();
    // Walk the first 1,000,000 LBNs a track's worth at a time (1,200 sectors per
    // track in the outer zone, no spares): where each track's first LBN sits.
    let spt = p.geometry.zones.first().map_or(1, |z| z.spt) as u64;
    let mut within_first_band = 0u64;
    let mut surface_runs: Vec<(u32, u64, u32, u32)> = Vec::new(); // (head, LBNs, min cyl, max cyl)
    let mut lbn = 0u64;
    while lbn < 1_000_000 {
        let Some(l) = g.locate(lbn) else { break };
        if l.pbn.cyl < 65 && within_first_band == lbn {
            within_first_band = lbn + spt;
        }
        match surface_runs.last_mut() {
            Some(r) if r.0 == l.pbn.head => {
                r.1 += spt;
                r.2 = r.2.min(l.pbn.cyl);
                r.3 = r.3.max(l.pbn.cyl);
            }
            _ => surface_runs.push((l.pbn.head, spt, l.pbn.cyl, l.pbn.cyl)),
        }
        lbn += spt;
    }
    let first_band: Vec<&(u32, u64, u32, u32)> = surface_runs.iter().take(8).collect();
    let runs_ok = first_band.len() == 8
        && first_band
            .iter()
            .enumerate()
            .all(|(i, r)| r.0 == i as u32 && r.1 == 65 * spt && r.2 == 0 && r.3 == 64);
    let flat = (1..=64).all(|d| hdd.seek_ns(d) == hdd.seek_ns(1));
    let switch_ms = p.mech.head_switch_ms;
    let within_band_ms = hdd.seek_ns(64) as f64 / 1e6;
    let mut out = crate::report::ExperimentOutput::new(
        "PROX-EQ2",
        "Serpentine band size of the Cheetah 15K.5 (§2.1), read back from the layout",
        format!(
            "The cheetah15k5 preset lays LBNs out in surface-serpentine bands (the paper's \
             §2.1): {} consecutive tracks of one surface, then the next surface back at the \
             band's first cylinder. Walking the first LBNs track by track: {} consecutive LBNs \
             from 0 lie within cylinders 0–64; the first band's LBNs run on surfaces 0…7 in \
             turn, 65 tracks each. A seek within a band (≤ 64 cylinders) costs {within_band_ms:.3} \
             ms, the flat part of the seek curve, set to the {switch_ms} ms track switch. These \
             are the preset's own inputs (band, sectors per track, surfaces, seek curve), so \
             the checks are consistency checks.",
            match p.geometry.order {
                crate::disk::TrackOrder::SurfaceBands { band } => band,
                _ => 0,
            },
            within_first_band
        ),
        o.seed,
    );
    let why = "The preset is built with 65-cylinder surface bands, 1,200 sectors per outer \
               track, 8 surfaces and a seek curve flat up to the band's width; this reads \
               the layout back.";
    out.checks.push(
        Check::absolute(
            "PROX-EQ2",
            "consecutive LBNs from 0 within the first 65 cylinders (SPT × C × surfaces)",
            624_000.0,
            within_first_band as f64,
            0.0,
        )
        .consistency(why),
    );
    out.checks.push(
        Check::holds(
            "PROX-EQ2",
            "the first band fills surfaces 0…7 in turn, 65 cylinders (0–64) each",
            runs_ok,
        )
        .consistency(why),
    );
    out.checks.push(
        Check::holds(
            "PROX-EQ2",
            "every seek within a band (1–64 cylinders) costs the track-switch time",
            flat && (within_band_ms - switch_ms).abs() < 1e-6,
        )
        .consistency(why),
    );
    let mut t = Table::new(&["surface", "LBNs", "first cylinder", "last cylinder"]);
    for r in surface_runs.iter().take(9) {
        t.rows.push(vec![
            r.0.to_string(),
            r.1.to_string(),
            r.2.to_string(),
            r.3.to_string(),
        ]);
    }
    out.tables.push(t);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::options::{Durability, RunOpts};

    #[test]
    fn cheetah_bands_read_back() {
        let o = RunOpts {
            quick: true,
            seed: 3,
            full_scale: false,
            durability: Durability::Flush,
        };
        let out = prox_eq2(&o).expect("run");
        assert_eq!(out.checks.len(), 3);
        assert!(out.checks.iter().all(|c| c.pass && !c.is_reproduction()));
    }
}
