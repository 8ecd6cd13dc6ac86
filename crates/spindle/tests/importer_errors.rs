//! Malformed DiskSim parameter files: clear errors with file and line, never a panic.

use spindle::disksim::import::import_first_disk;
use std::path::PathBuf;

fn data(name: &str) -> String {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/disksim")).join(name);
    std::fs::read_to_string(p).unwrap()
}

/// Writes a copy of the cheetah9LP files with one file edited, returns the .parv path.
fn variant(tag: &str, file: &str, from: &str, to: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spindle-import-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in [
        "cheetah9LP.parv",
        "cheetah9LP.diskspecs",
        "cheetah9LP.model",
        "cheetah9LP.seek",
    ] {
        let mut text = data(f);
        if f == file {
            assert!(text.contains(from), "{f} lacks {from:?}");
            text = text.replacen(from, to, 1);
        }
        std::fs::write(dir.join(f), text).unwrap();
    }
    dir.join("cheetah9LP.parv")
}

fn error_of(path: &std::path::Path) -> String {
    match import_first_disk(path) {
        Ok(_) => panic!("{} imported although it is malformed", path.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn float_rpm_is_refused_with_its_line() {
    let p = variant(
        "rpm",
        "cheetah9LP.model",
        "Rotation speed (in rpms) = 10045",
        "Rotation speed (in rpms) = 10045.0",
    );
    let e = error_of(&p);
    assert!(
        e.contains("cheetah9LP.model:") && e.contains("integer"),
        "{e}"
    );
}

#[test]
fn unmodelled_seek_type_is_refused() {
    // Without a seek-curve file, `linear` (broken in DiskSim 4.0) is refused by name.
    let p = variant(
        "seek",
        "cheetah9LP.model",
        "Seek type = extracted,\n      Single cylinder seek time = 0.831000,\n      Full seek curve = cheetah9LP.seek,",
        "Seek type = linear,\n      Single cylinder seek time = 0.831000,",
    );
    let e = error_of(&p);
    assert!(
        e.contains("cheetah9LP.model:") && e.contains("linear"),
        "{e}"
    );
}

#[test]
fn a_seek_type_beside_a_seek_curve_must_be_extracted() {
    // DiskSim would load the curve and still time seeks by `constant` (synthclosed
    // 87.82 → 54.76 ms): refused rather than silently timed by the curve.
    let p = variant(
        "seekcurve",
        "cheetah9LP.model",
        "Seek type = extracted,",
        "Seek type = constant,",
    );
    let e = error_of(&p);
    assert!(
        e.contains("cheetah9LP.model:")
            && e.contains("Seek type = extracted")
            && e.contains("constant"),
        "{e}"
    );
}

#[test]
fn bad_seek_curve_line_names_the_seek_file() {
    let p = variant("seekline", "cheetah9LP.seek", "2,\t1.00300", "2,\tfast");
    let e = error_of(&p);
    assert!(e.contains("cheetah9LP.seek:3"), "{e}");
}

#[test]
fn unmodelled_controller_feature_is_refused() {
    let p = variant(
        "preseek",
        "cheetah9LP.diskspecs",
        "Preseeking level = 0",
        "Preseeking level = 2",
    );
    let e = error_of(&p);
    assert!(
        e.contains("cheetah9LP.diskspecs:") && e.contains("Preseeking"),
        "{e}"
    );
}

#[test]
fn missing_sourced_file_is_an_error() {
    let p = variant(
        "source",
        "cheetah9LP.diskspecs",
        "source cheetah9LP.model",
        "source nowhere.model",
    );
    let e = error_of(&p);
    assert!(e.contains("nowhere.model"), "{e}");
}

#[test]
fn unsorted_slips_are_accepted_as_disksim_does() {
    // atlas_III's model lists some slips out of order; DiskSim takes them.
    let p = variant(
        "slips",
        "cheetah9LP.model",
        "168317,\n               223330,",
        "223330,\n               168317,",
    );
    let params = import_first_disk(&p).unwrap();
    assert_eq!(params.geometry.zones[0].slips[0], 168317);
}

#[test]
fn almost_read_hits_are_imported_not_refused() {
    let p = variant(
        "almost",
        "cheetah9LP.diskspecs",
        "Allow almost read hits = 0",
        "Allow almost read hits = 1",
    );
    let params = import_first_disk(&p).unwrap_or_else(|e| panic!("{e}"));
    assert!(params.cache.almost_read_hits);
    let plain = variant(
        "almost-off",
        "cheetah9LP.diskspecs",
        "Allow almost read hits = 0",
        "Allow almost read hits = 0",
    );
    assert!(
        !import_first_disk(&plain)
            .expect("import")
            .cache
            .almost_read_hits
    );
}
