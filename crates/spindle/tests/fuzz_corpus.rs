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

/// Bytes that numeric and keyword checks should meet: limits, signs, special floats.
const INTERESTING: &[&[u8]] = &[
    b"0",
    b"-1",
    b"4294967295",
    b"4294967296",
    b"18446744073709551615",
    b"9223372036854775807",
    b"-9223372036854775808",
    b"1e308",
    b"-1e308",
    b"1e-310",
    b"NaN",
    b"inf",
    b"-0",
    b"0.0",
    b"\n",
    b"=",
    b"[",
    b"]",
    b"{",
    b"}",
    b",",
    b"\"",
    b"#",
    b"source ",
    b"\xff\xfe",
];

/// One random edit of `data`: flip a bit, set a byte, insert or delete bytes, copy a
/// chunk of the input (or of another seed) over or into it, or splice in a number that
/// sits at a limit.
fn mutate(rng: &mut rand_chacha::ChaCha8Rng, data: &mut Vec<u8>, other: &[u8]) {
    use rand::Rng;
    let len = data.len();
    match rng.gen_range(0..8u8) {
        0 if len > 0 => {
            let i = rng.gen_range(0..len);
            data[i] ^= 1 << rng.gen_range(0..8);
        }
        1 if len > 0 => {
            let i = rng.gen_range(0..len);
            data[i] = rng.gen();
        }
        2 => {
            let i = rng.gen_range(0..=len);
            let n = rng.gen_range(1..=8);
            let bytes: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
            data.splice(i..i, bytes);
        }
        3 if len > 0 => {
            let i = rng.gen_range(0..len);
            let n = rng.gen_range(1..=(len - i).min(64));
            data.drain(i..i + n);
        }
        4 if len > 0 => {
            // Duplicate a chunk of the input somewhere else in it.
            let i = rng.gen_range(0..len);
            let n = rng.gen_range(1..=(len - i).min(256));
            let chunk = data[i..i + n].to_vec();
            let at = rng.gen_range(0..=len);
            data.splice(at..at, chunk);
        }
        5 if !other.is_empty() => {
            // Splice a chunk of another seed.
            let i = rng.gen_range(0..other.len());
            let n = rng.gen_range(1..=(other.len() - i).min(256));
            let at = rng.gen_range(0..=len);
            data.splice(at..at, other[i..i + n].iter().copied());
        }
        6 => {
            // Replace a run of digits (or any byte) with a number at a limit.
            let pick = INTERESTING[rng.gen_range(0..INTERESTING.len())];
            if len == 0 {
                data.extend_from_slice(pick);
                return;
            }
            let i = rng.gen_range(0..len);
            let mut j = i;
            while j < len && (data[j].is_ascii_digit() || data[j] == b'.') {
                j += 1;
            }
            data.splice(i..j.max(i + 1).min(len), pick.iter().copied());
        }
        _ if len > 1 => {
            // Cut the input short (a truncated file).
            let n = rng.gen_range(1..len);
            data.truncate(n);
        }
        _ => data.push(rng.gen()),
    }
}

/// The slowest input of a target is saved (as `slow-SEED`) when it took longer than this.
const SLOW_INPUT: std::time::Duration = std::time::Duration::from_secs(1);

/// A stand-in for the coverage-guided fuzzers that needs no cargo-fuzz (blind mutation):
/// each target's seeds, mutated by 1-8 random edits each time, run through its entry
/// function. Seeded (`SPINDLE_FUZZ_SEED`, default 1); `SPINDLE_FUZZ_EXECS` inputs per
/// target (default 70,000: over a million in all) or `SPINDLE_FUZZ_SECS` seconds per
/// target, whichever ends first. Inputs that panic are written to
/// target/fuzz-findings/TARGET/ and the test fails naming them; a target's slowest input
/// is kept there too (`slow-SEED`) when it took over [`SLOW_INPUT`].
///
/// cargo test --release -p spindle --test fuzz_corpus -- --ignored --nocapture
#[test]
#[ignore = "long: a million mutated inputs"]
fn mutated_corpus_never_panics() {
    use rand::{Rng, SeedableRng};
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let seed = env("SPINDLE_FUZZ_SEED", 1);
    let per_target = env("SPINDLE_FUZZ_EXECS", 70_000);
    let secs = env("SPINDLE_FUZZ_SECS", u64::MAX);
    let only = std::env::var("SPINDLE_FUZZ_TARGET").ok();
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fuzz-findings");
    let message = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let m = message.clone();
    std::panic::set_hook(Box::new(move |info| {
        *m.lock().unwrap() = info.to_string();
    }));
    let (mut all, mut found) = (0u64, Vec::new());
    for (name, entry) in entries::TARGETS {
        if only.as_deref().is_some_and(|o| o != *name) {
            continue;
        }
        let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(corpus_dir().join(name))
            .unwrap()
            .map(|e| std::fs::read(e.unwrap().path()).unwrap())
            .collect();
        seeds.sort();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ all);
        let started = std::time::Instant::now();
        let (mut execs, mut crashes, mut slowest) = (0u64, 0u64, std::time::Duration::ZERO);
        let mut slowest_input = Vec::new();
        while execs < per_target && started.elapsed().as_secs() < secs {
            let mut data = seeds[rng.gen_range(0..seeds.len())].clone();
            let other = &seeds[rng.gen_range(0..seeds.len())];
            for _ in 0..rng.gen_range(1..=8) {
                mutate(&mut rng, &mut data, other);
            }
            let t = std::time::Instant::now();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| entry(&data)));
            if t.elapsed() > slowest {
                slowest = t.elapsed();
                slowest_input.clone_from(&data);
            }
            execs += 1;
            if r.is_err() {
                crashes += 1;
                let dir = out.join(name);
                std::fs::create_dir_all(&dir).unwrap();
                let f = dir.join(format!("crash-{seed}-{execs}"));
                std::fs::write(&f, &data).unwrap();
                found.push(format!("{}: {}", f.display(), message.lock().unwrap()));
            }
        }
        // An input that takes seconds is a finding too (a bound missing somewhere): kept
        // for a look, not failed on (a loaded machine can make any input slow).
        if slowest > SLOW_INPUT {
            let dir = out.join(name);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("slow-{seed}")), &slowest_input).unwrap();
        }
        println!(
            "{name:24} {execs:>9} executions  {crashes} panics  {:.0} s  slowest input {:.1} ms",
            started.elapsed().as_secs_f64(),
            slowest.as_secs_f64() * 1e3
        );
        all += execs;
    }
    let _ = std::panic::take_hook();
    println!("{all} executions in all, {} panics", found.len());
    assert!(found.is_empty(), "panics:\n{}", found.join("\n"));
}
