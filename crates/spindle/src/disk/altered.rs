//! Altered drives (MimdRAID §2.2, the Square Root Rules 2 and 3; issue 19): a built-in
//! drive rebuilt with smaller platters, on another host bus, or with several heads per
//! surface, so users can ask what each gives, and `spindle reproduce MIMD-RULE2` /
//! `MIMD-RULE3` measure them.
//!
//! Name form: `<preset>:<option>=<value>`, options chained with `:` and applied left to
//! right, e.g. `st34502lw:smaller-platters=4`, `st34502lw:bus-mb-s=80`,
//! `st34502lw:bus-mb-s=80:heads-per-surface=4`, usable wherever a disk preset is
//! (`disk = "…"` in TOML, `--disk` on the CLI). Options:
//!
//! **`smaller-platters=C`** (1..=64). What "platter capacity ÷ C" means here,
//! following the paper's argument ("platter
//! capacity ↓ C means area ↓ C, diameter ↓ √C, maximum seek ↓ √C, and, at constant
//! internal data rate / linear velocity, RPM ↑ √C"), with s = √C:
//! * **Areal density unchanged**: tracks per inch and bits per inch stay as they are.
//!   So every radial extent shrinks by s (each zone keeps its share of the stroke and
//!   has 1/s of its cylinders) and every track's circumference shrinks by s (sectors
//!   per track ÷ s). Capacity falls by s² = C (up to rounding of whole cylinders and
//!   sectors).
//! * **RPM × s**: a track of 1/s the sectors turning s times as fast passes the head
//!   at the same linear velocity and the same data rate (sectors per ms).
//! * **Seek in physical terms**: the track pitch is unchanged, so a move of d
//!   cylinders is the same physical distance as on the full-size drive and costs the
//!   same time: the seek curve t(d) is kept as it is, and only the stroke (the
//!   number of cylinders) shrinks by s. Not modelled: a shorter, lighter arm would
//!   also accelerate faster; keeping the curve is the conservative choice (seek
//!   times improve only through shorter distances).
//! * **Skews in sectors unchanged**: a switch takes the same time and the same
//!   number of sectors pass under the head in it (same data rate); a skew longer than
//!   the shorter track wraps round (modulo the track), which lands the head on the
//!   same sector. Angular offsets keep their angle (÷ s).
//! * Everything else (heads, controller overheads, bus, cache, firmware) is the base
//!   drive's. Defect lists name physical sectors of the base drive's platters and are
//!   dropped; the altered drive has no spare sectors.
//!
//! **`bus-mb-s=N`** (MB/s, 1..=100,000): the drive on a host interface of N MB/s
//! (decimal), i.e. 512/N µs per 512-byte block, reads and writes. The drives DiskSim
//! extracted from real hardware carry the bus time of the host they were measured
//! on (the Cheetah 9LP model: 0.105 ms a block, 4.9 MB/s), which is a property of
//! that host, not of the drive; MimdRAID's Cheetah 9LP is on Ultra2 SCSI (80 MB/s,
//! its Table 1). Everything else is kept.
//!
//! **`uniform-tracks`**: every track holds the same number of sectors, the base drive's
//! mean per track (its capacity over its tracks, rounded down), on the same cylinders
//! and surfaces, at the same rpm, with the same seek curve: constant track capacity,
//! the assumption under MimdRAID's seek-distance formulas (§2.1: Eq 1's S/3, Eq 2's
//! S/(2D+1), Eq 4's bounds), on which uniformly random data is uniformly spread over
//! the cylinders (`st34502lw:uniform-tracks`: 214 sectors a track; Table 1 gives the
//! Cheetah 9LP 212 on average, and the preset holds 0.9 % more). Skews keep their angle (sectors scaled by the new sectors per track
//! over the outer zone's); defect lists are dropped, as for smaller platters.
//!
//! **`heads-per-surface=H`** (1..=16): H independent arms, each with a head on every
//! surface, spaced evenly round the platters (arm i sits i/H of a turn after arm 0),
//! as in the paper's Figure 4. Not a change of parameters but of the mechanism: a
//! stack builds it as a device of H arms ([`crate::stack::arms`]), each request served
//! by the arm the drive model predicts reaches it first. It must be the last option;
//! [`preset`](super::presets::preset) alone (one set of parameters) refuses it.

use super::geometry::{Sparing, ZoneSpec};
use super::params::{DiskParams, MAX_RPM};

/// The name suffix of a smaller-platter drive.
pub const SMALLER_PLATTERS: &str = ":smaller-platters=";

/// The name suffix of a drive on a host bus of N MB/s.
pub const BUS_MB_S: &str = ":bus-mb-s=";

/// The name suffix of a drive with constant track capacity.
pub const UNIFORM_TRACKS: &str = ":uniform-tracks";

/// The name suffix of a drive with H heads per surface on independent arms.
pub const HEADS_PER_SURFACE: &str = ":heads-per-surface=";

/// Largest platter-capacity divisor C (platters of 1/8 the diameter).
pub const MAX_PLATTER_SCALE: f64 = 64.0;

/// Fastest host bus, MB/s (slowest: 1).
pub const MAX_BUS_MB_S: f64 = 100_000.0;

/// Most heads per surface (arms round one platter; the paper: "the size of the inner
/// radius of the platter limits the number of heads").
pub const MAX_HEADS_PER_SURFACE: u32 = 16;

/// One option of an altered-drive name.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Alteration {
    SmallerPlatters(f64),
    BusMbS(f64),
    UniformTracks,
    HeadsPerSurface(u32),
}

const OPTIONS: &str = "smaller-platters=C, bus-mb-s=N, uniform-tracks or heads-per-surface=H";

/// Splits `name` into its base preset and options (`None`: no option in it).
fn parse(name: &str) -> Option<Result<(&str, Vec<Alteration>), String>> {
    let (stem, rest) = name.split_once(':')?;
    let mut opts = Vec::new();
    for part in rest.split(':') {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let alt = match key.trim() {
            "smaller-platters" => parse_scale(value).map(Alteration::SmallerPlatters),
            "bus-mb-s" => parse_bus(value).map(Alteration::BusMbS),
            "uniform-tracks" if !part.contains('=') => Ok(Alteration::UniformTracks),
            "uniform-tracks" => Err(format!(
                "uniform-tracks takes no value (write `:uniform-tracks`), got `{part}` in `{name}`"
            )),
            "heads-per-surface" => parse_heads(value).map(Alteration::HeadsPerSurface),
            _ => Err(format!(
                "unknown drive option `{part}` in `{name}`: expected {OPTIONS} after the \
                 preset, e.g. `st34502lw:smaller-platters=4`"
            )),
        };
        match alt {
            // Each option once: a second would compound the first (C × C beyond the
            // documented range) or silently replace it.
            Ok(a)
                if opts
                    .iter()
                    .any(|o| std::mem::discriminant(o) == std::mem::discriminant(&a)) =>
            {
                return Some(Err(format!(
                    "`{}` is given twice in `{name}`: give each drive option once",
                    key.trim()
                )))
            }
            Ok(a) => opts.push(a),
            Err(e) => return Some(Err(e)),
        }
    }
    let arms = opts
        .iter()
        .position(|a| matches!(a, Alteration::HeadsPerSurface(_)));
    if arms.is_some_and(|i| i + 1 != opts.len()) {
        return Some(Err(format!(
            "heads-per-surface must be the last option of `{name}` (it builds the drive of \
             arms from the drive the options before it describe)"
        )));
    }
    Some(Ok((stem, opts)))
}

/// The drive `name` names, if it is an altered-drive name (`None` otherwise).
/// `base` resolves the base preset. A name with `heads-per-surface` is refused: it is
/// a drive of several arms, which only a stack builds ([`arms`]).
pub fn from_name(
    name: &str,
    base: &dyn Fn(&str) -> Result<DiskParams, String>,
) -> Option<Result<DiskParams, String>> {
    let (stem, opts) = match parse(name)? {
        Ok(x) => x,
        Err(e) => return Some(Err(e)),
    };
    Some((|| {
        let mut p = base(stem)?;
        for a in opts {
            p = match a {
                Alteration::SmallerPlatters(c) => smaller_platters(&p, c)?,
                Alteration::BusMbS(n) => on_bus(&p, n)?,
                Alteration::UniformTracks => uniform_tracks(&p)?,
                Alteration::HeadsPerSurface(h) => {
                    return Err(format!(
                        "`{name}` is a drive of {h} arms (heads-per-surface={h}): name it as a \
                         stack's disk (`disk = \"{name}\"` in a [device] or [[disks]] table, or \
                         --disk), where it is built arm by arm; one set of drive parameters \
                         cannot describe it"
                    ))
                }
            };
        }
        Ok(p)
    })())
}

/// For a name ending in `:heads-per-surface=H`: the name of one arm's drive (the name
/// without that option) and H. `None` for any other name; an error for a malformed
/// altered name that mentions heads per surface.
pub fn arms(name: &str) -> Option<Result<(String, u32), String>> {
    let (rest, _) = name.rsplit_once(HEADS_PER_SURFACE)?;
    match parse(name)? {
        Err(e) => Some(Err(e)),
        Ok((_, opts)) => match opts.last() {
            Some(&Alteration::HeadsPerSurface(h)) => Some(Ok((rest.to_string(), h))),
            _ => None,
        },
    }
}

fn parse_heads(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(h) if (1..=MAX_HEADS_PER_SURFACE).contains(&h) => Ok(h),
        _ => Err(format!(
            "heads-per-surface: H must be a whole number within 1..={MAX_HEADS_PER_SURFACE} \
             (independent arms round the platters), got `{text}`"
        )),
    }
}

fn parse_bus(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && (1.0..=MAX_BUS_MB_S).contains(&n) => Ok(n),
        _ => Err(format!(
            "bus-mb-s: N must be a number of MB/s within 1..={MAX_BUS_MB_S} (e.g. 80 for \
             Ultra2 SCSI), got `{text}`"
        )),
    }
}

/// `base` on a host bus of `mb_s` MB/s (see the module comment).
pub fn on_bus(base: &DiskParams, mb_s: f64) -> Result<DiskParams, String> {
    let mut p = base.clone();
    let ms = 0.512 / mb_s;
    p.ctrl.bus_read_block_ms = ms;
    p.ctrl.bus_write_block_ms = ms;
    p.name = format!("{}{BUS_MB_S}{mb_s}", base.name);
    p.provenance = format!(
        "{} on a host bus of {mb_s} MB/s ({ms:.4} ms per 512-byte block, reads and writes; \
         disk/altered.rs). Base: {}",
        base.name, base.provenance
    );
    p.validate().map_err(|e| format!("bus-mb-s: {e}"))?;
    Ok(p)
}

/// `base` with every track holding its mean sectors per track (see the module comment).
pub fn uniform_tracks(base: &DiskParams) -> Result<DiskParams, String> {
    let g = super::geometry::Geometry::new(&base.geometry)
        .map_err(|e| format!("uniform-tracks: {e}"))?;
    let (Some(first), Some(last)) = (base.geometry.zones.first(), base.geometry.zones.last())
    else {
        return Err(format!("uniform-tracks: {} has no zone", base.name));
    };
    let tracks = u64::from(last.last_cyl - first.first_cyl + 1) * u64::from(g.surfaces());
    let spt = u32::try_from(g.capacity() / tracks.max(1)).unwrap_or(0);
    if spt == 0 {
        return Err(format!(
            "uniform-tracks: {} holds less than one sector per track",
            base.name
        ));
    }
    // Same angle: a skew of k sectors of the outer zone's track is k·spt/outer here.
    let angle = |k: u32| (u64::from(k) * u64::from(spt) / u64::from(first.spt.max(1))) as u32 % spt;
    let mut p = base.clone();
    p.geometry.zones = vec![ZoneSpec {
        first_cyl: first.first_cyl,
        last_cyl: last.last_cyl,
        spt,
        offset_sectors: angle(first.offset_sectors),
        empty_front: 0,
        track_skew: angle(first.track_skew),
        cyl_skew: angle(first.cyl_skew),
        spares: 0,
        slips: Vec::new(),
        remaps: Vec::new(),
    }];
    p.geometry.sparing = Sparing::None;
    p.name = format!("{}{UNIFORM_TRACKS}", base.name);
    p.provenance = format!(
        "{} with constant track capacity (MimdRAID §2.1's assumption; disk/altered.rs): \
         every track {spt} sectors, the base drive's mean; cylinders, surfaces, rpm, seek \
         curve, overheads, bus and cache the base drive's. Base: {}",
        base.name, base.provenance
    );
    p.validate().map_err(|e| format!("uniform-tracks: {e}"))?;
    super::geometry::Geometry::new(&p.geometry).map_err(|e| format!("uniform-tracks: {e}"))?;
    Ok(p)
}

/// C as written after `:smaller-platters=`: a number within 1..=64.
fn parse_scale(text: &str) -> Result<f64, String> {
    let c: f64 = text.trim().parse().map_err(|_| {
        format!(
            "smaller-platters: C must be a number within 1..={MAX_PLATTER_SCALE} (platter \
             capacity ÷ C), got `{text}`"
        )
    })?;
    check_scale(c)?;
    Ok(c)
}

fn check_scale(c: f64) -> Result<(), String> {
    if c.is_finite() && (1.0..=MAX_PLATTER_SCALE).contains(&c) {
        Ok(())
    } else {
        Err(format!(
            "smaller-platters: C must be within 1..={MAX_PLATTER_SCALE} (platter capacity ÷ C; \
             C < 1 would be larger platters than the drive's form factor holds), got {c}"
        ))
    }
}

/// `base` with platters of 1/C the capacity (see the module comment for every rule).
pub fn smaller_platters(base: &DiskParams, c: f64) -> Result<DiskParams, String> {
    check_scale(c)?;
    let s = c.sqrt();
    let mut p = base.clone();
    let shrink = |x: u64| (x as f64 / s).round() as u64;
    let mut zones: Vec<ZoneSpec> = Vec::with_capacity(base.geometry.zones.len());
    let mut next_free = 0u32;
    for (i, z) in base.geometry.zones.iter().enumerate() {
        let first = (shrink(u64::from(z.first_cyl)) as u32).max(next_free);
        let end = shrink(u64::from(z.last_cyl) + 1) as u32;
        // A zone keeps at least one cylinder (its share of the stroke rounds to ≥ 1).
        let last = end.saturating_sub(1).max(first);
        let spt = shrink(u64::from(z.spt)) as u32;
        if spt == 0 {
            return Err(format!(
                "smaller-platters: C = {c} leaves zone {i} of {} with no sector per track \
                 ({} ÷ √C rounds to 0)",
                base.name, z.spt
            ));
        }
        zones.push(ZoneSpec {
            first_cyl: first,
            last_cyl: last,
            spt,
            offset_sectors: (shrink(u64::from(z.offset_sectors)) % u64::from(spt)) as u32,
            empty_front: 0,
            track_skew: z.track_skew % spt,
            cyl_skew: z.cyl_skew % spt,
            spares: 0,
            slips: Vec::new(),
            remaps: Vec::new(),
        });
        next_free = last + 1;
    }
    p.geometry.zones = zones;
    p.geometry.sparing = Sparing::None;
    p.mech.rpm = base.mech.rpm * s;
    if p.mech.rpm > MAX_RPM {
        return Err(format!(
            "smaller-platters: C = {c} would spin {} at {:.0} rpm, above the model's {MAX_RPM} rpm",
            base.name, p.mech.rpm
        ));
    }
    p.name = format!("{}{SMALLER_PLATTERS}{c}", base.name);
    p.provenance = format!(
        "{} with platters of 1/{c} the capacity (MimdRAID Square Root Rule 2, derived in \
         disk/altered.rs): same areal density, so cylinders and sectors per track ÷ √C; \
         rpm × √C (constant linear velocity and data rate); seek curve in cylinders kept \
         (same track pitch, stroke ÷ √C); overheads, bus and cache the base drive's. Base: {}",
        base.name, base.provenance
    );
    // The parameters must hold and the geometry must build (every size checked before
    // allocating).
    p.validate().map_err(|e| format!("smaller-platters: {e}"))?;
    super::geometry::Geometry::new(&p.geometry).map_err(|e| format!("smaller-platters: {e}"))?;
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::hdd::Hdd;
    use crate::disk::presets::preset;

    fn cyls(p: &DiskParams) -> u32 {
        p.geometry.zones.last().map_or(0, |z| z.last_cyl + 1)
    }

    #[test]
    fn capacity_rpm_and_stroke_scale_as_documented() {
        let base = preset("st34502lw").unwrap();
        let cap0 = Hdd::new(base.clone()).unwrap().capacity() as f64;
        for c in [1.0, 2.0, 4.0, 9.0, 16.0] {
            let name = format!("st34502lw{SMALLER_PLATTERS}{c}");
            let p = preset(&name).unwrap();
            assert_eq!(p.name, name);
            let cap = Hdd::new(p.clone()).unwrap().capacity() as f64;
            let s = f64::sqrt(c);
            assert!((cap0 / cap / c - 1.0).abs() < 0.02, "C={c}: {}", cap0 / cap);
            assert!((p.mech.rpm / base.mech.rpm - s).abs() < 1e-9);
            let stroke = cyls(&base) as f64 / cyls(&p) as f64;
            assert!((stroke / s - 1.0).abs() < 0.01, "C={c}: stroke ÷ {stroke}");
            assert_eq!(p.mech.seek, base.mech.seek);
            // Same data rate: sectors per ms in the outer zone within rounding.
            let rate = |q: &DiskParams| q.geometry.zones[0].spt as f64 * q.mech.rpm;
            assert!((rate(&p) / rate(&base) - 1.0).abs() < 0.01);
        }
        // C = 1 changes nothing but the name and provenance.
        let one = preset(&format!("st34502lw{SMALLER_PLATTERS}1")).unwrap();
        assert_eq!(Hdd::new(one.clone()).unwrap().capacity() as f64, cap0);
        assert_eq!(one.mech, base.mech);
    }

    #[test]
    fn a_bus_option_sets_the_host_time_per_block_and_nothing_else() {
        let base = preset("st34502lw").unwrap();
        let p = preset("st34502lw:bus-mb-s=80").unwrap();
        assert_eq!(p.name, "st34502lw:bus-mb-s=80");
        assert!((p.ctrl.bus_read_block_ms - 0.0064).abs() < 1e-12);
        assert!((p.ctrl.bus_write_block_ms - 0.0064).abs() < 1e-12);
        assert_eq!(p.mech, base.mech);
        assert_eq!(p.geometry, base.geometry);
        // Options chain left to right.
        let q = preset("st34502lw:smaller-platters=4:bus-mb-s=80").unwrap();
        assert_eq!(q.name, "st34502lw:smaller-platters=4:bus-mb-s=80");
        assert_eq!(q.mech.rpm, base.mech.rpm * 2.0);
        assert!((q.ctrl.bus_read_block_ms - 0.0064).abs() < 1e-12);
        for bad in ["0", "0.5", "-1", "100001", "NaN", "fast", ""] {
            let e = preset(&format!("st34502lw{BUS_MB_S}{bad}")).unwrap_err();
            assert!(e.contains("bus-mb-s: N must be"), "{bad}: {e}");
        }
    }

    #[test]
    fn heads_per_surface_names_a_drive_of_arms_only_a_stack_builds() {
        assert_eq!(
            arms("st34502lw:bus-mb-s=80:heads-per-surface=4"),
            Some(Ok(("st34502lw:bus-mb-s=80".to_string(), 4)))
        );
        assert_eq!(arms("st34502lw:smaller-platters=4"), None);
        assert_eq!(arms("st34502lw"), None);
        let e = preset("st34502lw:heads-per-surface=4").unwrap_err();
        assert!(e.contains("drive of 4 arms"), "{e}");
        for bad in ["0", "17", "2.5", "x", ""] {
            let e = arms(&format!("st34502lw{HEADS_PER_SURFACE}{bad}"))
                .unwrap()
                .unwrap_err();
            assert!(
                e.contains("H must be a whole number within 1..=16"),
                "{bad}: {e}"
            );
        }
        let e = arms("st34502lw:heads-per-surface=2:bus-mb-s=80")
            .unwrap()
            .unwrap_err();
        assert!(e.contains("must be the last option"), "{e}");
        let e = preset("st34502lw:fast-arms=2").unwrap_err();
        assert!(e.contains("unknown drive option `fast-arms=2`"), "{e}");
    }

    #[test]
    fn uniform_tracks_keep_the_capacity_on_tracks_of_one_size() {
        let base = preset("st34502lw").unwrap();
        let p = preset(&format!("st34502lw{UNIFORM_TRACKS}")).unwrap();
        assert_eq!(p.name, "st34502lw:uniform-tracks");
        assert_eq!(p.geometry.zones.len(), 1);
        // 8,965,284 sectors on 6,962 × 6 tracks.
        assert_eq!(p.geometry.zones[0].spt, 214);
        assert_eq!(cyls(&p), cyls(&base));
        assert_eq!(p.mech, base.mech);
        let (c0, c) = (
            Hdd::new(base).unwrap().capacity(),
            Hdd::new(p).unwrap().capacity(),
        );
        assert!(c <= c0 && (c0 - c) as f64 / (c0 as f64) < 0.005, "{c0} {c}");
        let e = preset("st34502lw:uniform-tracks=2").unwrap_err();
        assert!(e.contains("uniform-tracks takes no value"), "{e}");
    }

    #[test]
    fn bad_scale_is_refused_with_a_clear_error() {
        for bad in ["0", "0.5", "-4", "65", "NaN", "inf", "four", ""] {
            let e = preset(&format!("st34502lw{SMALLER_PLATTERS}{bad}")).unwrap_err();
            assert!(e.contains("smaller-platters: C must be"), "{bad}: {e}");
        }
        let e = preset(&format!("nosuchdisk{SMALLER_PLATTERS}4")).unwrap_err();
        assert!(e.contains("unknown disk preset `nosuchdisk`"), "{e}");
    }
}
