//! Property tests for numeric validation: any value either runs correctly or is refused
//! with an error naming it; never a panic, never a silent clamp (a value accepted is the
//! value used).

use proptest::prelude::*;
use spindle::disk::presets::preset;
use spindle::disk::Hdd;
use spindle::workload::{Arrivals, GenSpec, OpenSpec, OpenStream, Pattern, Sizes};
use std::path::{Path, PathBuf};

/// Interesting floats: the edges of every range plus arbitrary ones.
fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(-1.0),
        Just(1e-300),
        Just(1e300),
        Just(f64::MAX),
        Just(f64::MIN_POSITIVE),
        -1e7..1e7f64,
        any::<f64>(),
    ]
}

fn any_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1),
        Just(u32::MAX as u64),
        Just(u32::MAX as u64 + 1),
        Just(u64::MAX),
        Just(1 << 48),
        0..100_000u64,
        any::<u64>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A drive's time parameters: accepted only within the documented limits, and then
    /// kept exactly as given.
    #[test]
    fn drive_times_run_or_are_refused(field in 0usize..6, v in any_f64()) {
        let mut p = preset("cheetah15k5").unwrap();
        let name = match field {
            0 => { p.mech.rpm = v; "rotation speed" }
            1 => { p.mech.head_switch_ms = v; "head switch" }
            2 => { p.mech.write_settle_ms = v; "write settle" }
            3 => { p.ctrl.read_complete_ms = v; "read completion" }
            4 => { p.ctrl.bus_read_block_ms = v; "bus time" }
            _ => { p.firmware.turnaround_ms = v; "turnaround" }
        };
        match Hdd::new(p.clone()) {
            Ok(h) => {
                prop_assert!(v.is_finite(), "{name} = {v} accepted");
                prop_assert_eq!(h.params(), &p);
            }
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(msg.contains(name), "{msg} does not name {name}");
            }
        }
    }

    /// A drive's sizes: refused beyond their limits before anything is allocated.
    #[test]
    fn drive_sizes_run_or_are_refused(field in 0usize..5, v in any_u64()) {
        let mut p = preset("mimic-base").unwrap();
        let v32 = v.min(u32::MAX as u64) as u32;
        match field {
            0 => p.cache.segments = v32,
            1 => p.cache.segment_blocks = v32,
            2 => p.firmware.queue_depth = v32,
            3 => p.geometry.zones[0].spt = v32,
            _ => p.firmware.write_cache_sectors = v,
        }
        match Hdd::new(p.clone()) {
            Ok(h) => prop_assert_eq!(h.params(), &p),
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(msg.contains("must be") || msg.contains("zone"), "{msg}");
            }
        }
    }

    /// An open synthetic workload: any rate, count and read fraction either validates
    /// and generates, or is refused naming the field.
    #[test]
    fn open_workloads_run_or_are_refused(
        rate in any_f64(),
        count in any_u64(),
        read_fraction in any_f64(),
        sectors in prop_oneof![Just(0u32), Just(u32::MAX), 1..4096u32],
    ) {
        let spec = OpenSpec {
            gen: GenSpec {
                pattern: Pattern::Uniform,
                sizes: Sizes::Fixed { sectors },
                read_fraction,
                align: None,
                start: 0,
                span: None,
                capacity: Some(1_000_000),
            },
            arrivals: Arrivals::Poisson { rate_per_s: rate },
            count,
            seed: 1,
            device: 0,
        };
        match spec.validate() {
            Ok(()) => {
                prop_assert!(rate.is_finite() && rate > 0.0);
                prop_assert!((0.0..=1.0).contains(&read_fraction));
                prop_assert!(count <= spindle::workload::MAX_REQUESTS);
                let s = OpenStream::new(&spec).unwrap();
                for r in s.take(50) {
                    prop_assert!(r.lbn + r.blocks as u64 <= 1_000_000);
                    prop_assert_eq!(r.blocks, sectors);
                }
            }
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(msg.contains("must"), "{msg}");
            }
        }
    }

    /// A validate trace's times: a line is read with exactly the time written, or
    /// refused naming the line and field.
    #[test]
    fn validate_times_are_kept_or_refused(t in any_f64()) {
        let text = format!("R Hit 100 8 {t} 5\n");
        match spindle::validate::trace::parse_validate_trace(&text, "v.trace") {
            Ok(r) => {
                prop_assert_eq!(r.len(), 1);
                prop_assert_eq!(r[0].measured_us, t + 0.0);
                prop_assert!((0.0..=spindle::validate::trace::MAX_TIME_US).contains(&t));
            }
            Err(e) => prop_assert!(e.to_string().starts_with("v.trace:1: field 5"), "{e}"),
        }
    }

    /// The compression factor: within its documented range or refused.
    #[test]
    fn compression_is_checked(f in any_f64()) {
        let ok = spindle::workload::check_compress(f).is_ok();
        prop_assert_eq!(ok, (spindle::workload::MIN_COMPRESS..=spindle::workload::MAX_COMPRESS).contains(&f));
    }
}

/// atlas10k's files copied to a fresh directory, with one value replaced.
fn atlas_with(dir: &Path, ext: &str, from: &str, to: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/disksim");
    for e in ["parv", "diskspecs", "model", "seek"] {
        let mut text = std::fs::read_to_string(src.join(format!("atlas10k.{e}"))).unwrap();
        if e == ext {
            assert!(text.contains(from));
            text = text.replacen(from, to, 1);
        }
        std::fs::write(dir.join(format!("atlas10k.{e}")), text).unwrap();
    }
    dir.join("atlas10k.parv")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A DiskSim parameter written into the file is imported as written or refused with
    /// the file and line that hold it: never truncated or clamped.
    #[test]
    fn imported_integers_are_kept_or_refused(which in 0usize..4, v in prop_oneof![
        Just(i64::MIN), Just(-1i64), Just(0), Just(1), Just(u32::MAX as i64),
        Just(u32::MAX as i64 + 1), Just(i64::MAX), -10..100_000i64,
    ]) {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("numeric_props/{which}-{v}"));
        let (ext, from, line) = match which {
            0 => ("diskspecs", "Number of buffer segments = 10", 34),
            1 => ("diskspecs", "Max queue length = 1", 18),
            2 => ("model", "Number of spares = 89", 36),
            _ => ("model", "Rotation speed (in rpms) = 10025", 18),
        };
        let key = from.split(" = ").next().unwrap();
        let parv = atlas_with(&dir, ext, from, &format!("{key} = {v}"));
        match spindle::disksim::import::import_first_disk(&parv) {
            Ok(p) => {
                let got = match which {
                    0 => p.cache.segments as i64,
                    1 => p.firmware.queue_depth as i64,
                    2 => p.geometry.zones[0].spares as i64,
                    _ => p.mech.rpm as i64,
                };
                prop_assert_eq!(got, v, "{} = {} imported as {}", key, v, got);
            }
            Err(e) => {
                let msg = e.to_string();
                // A zone its spares empty is refused at the zone, naming the value.
                let whole_zone = which == 2 && msg.contains("atlas10k.model:")
                    && msg.contains(&format!("spares ({v})"));
                prop_assert!(
                    msg.contains(&format!("atlas10k.{ext}:{line}"))
                        || msg.contains("atlas10k.parv")
                        || whole_zone,
                    "{msg}"
                );
            }
        }
    }
}
