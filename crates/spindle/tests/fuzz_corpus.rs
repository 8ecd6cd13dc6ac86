//! Replays the fuzz targets' committed corpus (fuzz/corpus/TARGET/*) on stable Rust,
//! through the same entry functions the cargo-fuzz targets call (fuzz/entries.rs): any
//! panic there is a bug. New crash reproducers go into the corpus so they stay fixed.

#[path = "../../../fuzz/entries.rs"]
mod entries;

use std::path::Path;

fn corpus_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus")
}

#[test]
fn every_corpus_input_runs_without_a_panic() {
    let mut total = 0;
    for (name, entry) in entries::TARGETS {
        let dir = corpus_dir().join(name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{name}: no corpus");
        for f in files {
            let data = std::fs::read(&f).unwrap();
            let started = std::time::Instant::now();
            entry(&data);
            assert!(
                started.elapsed().as_secs() < 20,
                "{}: took {:?}",
                f.display(),
                started.elapsed()
            );
            total += 1;
        }
    }
    assert!(total >= entries::TARGETS.len());
}

#[test]
fn the_seed_parameter_files_import() {
    // The seeds must reach the importer's later stages, not stop at a syntax error.
    for f in std::fs::read_dir(corpus_dir().join("parv")).unwrap() {
        let f = f.unwrap().path();
        if f.extension().is_some_and(|e| e == "parv") {
            let data = std::fs::read_to_string(&f).unwrap();
            let (parv, seek) = data.split_once("\n#--seek--\n").unwrap_or((&data, ""));
            let seek = seek.to_string();
            let reader = move |_: &Path| -> std::io::Result<String> { Ok(seek.clone()) };
            let disks = spindle::disksim::import::import_parv_text(
                parv,
                Path::new("/nonexistent/x.parv"),
                &reader,
            )
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            assert!(!disks.is_empty());
        }
    }
}

#[test]
fn the_seed_tables_and_configs_parse() {
    for f in std::fs::read_dir(corpus_dir().join("mimic_table")).unwrap() {
        let f = f.unwrap().path();
        let data = std::fs::read(&f).unwrap();
        spindle::mimic::table::MimicTable::parse(&data, "t").unwrap();
    }
    for f in std::fs::read_dir(corpus_dir().join("stack_toml")).unwrap() {
        let f = f.unwrap().path();
        let text = std::fs::read_to_string(&f).unwrap();
        spindle::config::RunConfig::from_toml(&text, "t")
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
}
