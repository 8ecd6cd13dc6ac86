//! DiskSim's eight synthetic `valid/` configurations, the drive files they source and
//! DiskSim's own figures on them, built into the binary from `data/disksim/`
//! (BSD-3-Clause, `data/disksim/LICENSE-DiskSim`), so DISKSIM-SUITE runs from an
//! installed package as from the repository.

use super::import::ImportError;
use super::system::{load_system_text, System};
use crate::disk::presets::{bundled_file, splice_sources};
use std::path::Path;

macro_rules! suite_file {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!("../../../../data/disksim/", $name)),
        )
    };
}

/// The suite's files (name, contents); the drives they share with the validation set
/// (atlas10k, ibm18es, cheetah9LP) come from [`bundled_file`].
const SUITE_FILES: &[(&str, &str)] = &[
    suite_file!("synthopen.parv"),
    suite_file!("synthclosed.parv"),
    suite_file!("synthmixed.parv"),
    suite_file!("synthraid5.parv"),
    suite_file!("syntharrays.parv"),
    suite_file!("synthcachemem.parv"),
    suite_file!("synthcachedev.parv"),
    suite_file!("synthsimpledisk.parv"),
    suite_file!("hp_c3323a.diskspecs"),
    suite_file!("hp_c3323a.model"),
    suite_file!("hp_c3323a.seek"),
    suite_file!("suite-figures.tsv"),
    suite_file!("suite-units.tsv"),
];

/// A file of the suite, or of the validation drives it sources, by name.
pub fn suite_file(name: &str) -> Option<&'static str> {
    SUITE_FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .or_else(|| bundled_file(name))
}

/// Loads the suite's configuration `stem` (e.g. `synthopen`) from the built-in files.
pub fn load_suite_system(stem: &str) -> Result<System, ImportError> {
    let name = format!("{stem}.parv");
    let missing = |msg: String| ImportError::File {
        file: name.clone(),
        msg,
    };
    let text = suite_file(&name).ok_or_else(|| missing("not a built-in file".into()))?;
    let text = splice_sources(text, &suite_file, 0).map_err(missing)?;
    let reader = |p: &Path| -> std::io::Result<String> {
        let file = p.file_name().and_then(|f| f.to_str()).unwrap_or("");
        suite_file(file)
            .map(str::to_string)
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "not a built-in file"))
    };
    load_system_text(&text, Path::new(&name), &reader)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disksim::import::bundled_disksim_dir;
    use crate::disksim::system::{load_system, run_system};

    /// The built-in copy runs as the repository's file does.
    #[test]
    fn each_configuration_loads_from_memory_as_from_its_file() {
        for stem in crate::disksim::SUITE {
            let from_file = load_system(&bundled_disksim_dir().join(format!("{stem}.parv")));
            let built_in = load_suite_system(stem);
            match (from_file, built_in) {
                (Ok(a), Ok(b)) => {
                    let (ra, rb) = (run_system(&a, 42), run_system(&b, 42));
                    assert_eq!(
                        ra.map(|r| r.mean_ms).ok(),
                        rb.map(|r| r.mean_ms).ok(),
                        "{stem}"
                    );
                }
                (Err(a), Err(b)) => {
                    // Refused alike, naming the file without its directory.
                    let dir = format!("{}/", bundled_disksim_dir().display());
                    assert_eq!(a.to_string().replace(&dir, ""), b.to_string(), "{stem}");
                }
                (a, b) => panic!("{stem}: {:?} against {:?}", a.is_ok(), b.is_ok()),
            }
        }
        assert!(suite_file("suite-figures.tsv").is_some());
        assert!(load_suite_system("nonesuch").is_err());
    }
}
