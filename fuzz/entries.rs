//! The fuzz targets' entry functions, shared by the cargo-fuzz targets (fuzz_targets/)
//! and the stable corpus replay (crates/spindle/tests/fuzz_corpus.rs). Each takes any
//! bytes; a bad input must come back as an error value, never a panic, an abort or an
//! endless run. Anything that parses is also pushed one step further (a disk is built,
//! a trace is read to its end, a configuration builds its stack), so the checks that
//! come after parsing are exercised too.

#![allow(dead_code)]

use spindle::trace::Format;
use std::path::Path;

/// A target's entry function.
pub type Entry = fn(&[u8]);

/// Every target: (name, entry).
pub const TARGETS: &[(&str, Entry)] = &[
    ("parv", parv),
    ("seek", seek),
    ("trace_disksim_ascii", trace_disksim_ascii),
    ("trace_disksim_validate", trace_disksim_validate),
    ("trace_hp_srt", trace_hp_srt),
    ("trace_msr", trace_msr),
    ("trace_fiu", trace_fiu),
    ("trace_spc", trace_spc),
    ("trace_blkparse", trace_blkparse),
    ("trace_blktrace", trace_blktrace),
    ("trace_alibaba", trace_alibaba),
    ("trace_tencent", trace_tencent),
    ("trace_spindle_csv", trace_spindle_csv),
    ("trace_detect", trace_detect),
    ("validate_trace", validate_trace),
    ("stack_toml", stack_toml),
    ("stack_toml_parse", stack_toml_parse),
    ("mimic_table", mimic_table),
];

/// Where fuzzed parameter files claim to live: nothing they `source` by a relative
/// name exists there.
const NOWHERE: &str = "/nonexistent-spindle-fuzz/fuzz.parv";

/// Separates a parameter file from the seek curve its `Full seek curve` reads.
const SEEK_SPLIT: &[u8] = b"\n#--seek--\n";

/// A DiskSim parameter file (.parv/.model/.diskspecs, one text after `source` splicing)
/// and, after a `#--seek--` line, the seek curve file any disk names.
pub fn parv(data: &[u8]) {
    let (parv, seek) = match find(data, SEEK_SPLIT) {
        Some(i) => (&data[..i], &data[i + SEEK_SPLIT.len()..]),
        None => (data, &b""[..]),
    };
    let text = String::from_utf8_lossy(parv);
    let seek = String::from_utf8_lossy(seek).into_owned();
    let reader = move |_: &Path| -> std::io::Result<String> { Ok(seek.clone()) };
    // The importer builds every disk it returns once (its model checks run too).
    let _ = spindle::disksim::import::import_parv_text(&text, Path::new(NOWHERE), &reader);
}

/// A `.seek` curve file.
pub fn seek(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = spindle::disksim::import::parse_seek_text(&text, Path::new("fuzz.seek"));
}

fn trace(data: &[u8], format: Option<Format>) {
    let Ok(stream) = spindle::trace::stream::open_bytes(data, "fuzz.trace", format) else {
        return;
    };
    for r in stream {
        if r.is_err() {
            break;
        }
    }
    // The whole-file reader must agree with itself (it reads the same records).
    let _ = spindle::trace::parse_trace_bytes(data, "fuzz.trace", format);
}

pub fn trace_disksim_ascii(data: &[u8]) {
    trace(data, Some(Format::DisksimAscii))
}
pub fn trace_disksim_validate(data: &[u8]) {
    trace(data, Some(Format::DisksimValidate))
}
pub fn trace_hp_srt(data: &[u8]) {
    trace(data, Some(Format::HpSrt))
}
pub fn trace_msr(data: &[u8]) {
    trace(data, Some(Format::Msr))
}
pub fn trace_fiu(data: &[u8]) {
    trace(data, Some(Format::Fiu))
}
pub fn trace_spc(data: &[u8]) {
    trace(data, Some(Format::Spc))
}
pub fn trace_blkparse(data: &[u8]) {
    trace(data, Some(Format::Blkparse))
}
pub fn trace_blktrace(data: &[u8]) {
    trace(data, Some(Format::Blktrace))
}
pub fn trace_alibaba(data: &[u8]) {
    trace(data, Some(Format::Alibaba))
}
pub fn trace_tencent(data: &[u8]) {
    trace(data, Some(Format::Tencent))
}
pub fn trace_spindle_csv(data: &[u8]) {
    trace(data, Some(Format::SpindleCsv))
}
/// Format detection, then the detected reader.
pub fn trace_detect(data: &[u8]) {
    trace(data, None)
}

/// DiskSim's validate trace as `spindle validate` reads it (with think and measured
/// times).
pub fn validate_trace(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(records) = spindle::validate::trace::parse_validate_trace(&text, "fuzz.trace") else {
        return;
    };
    // Replay what fits the disk, as `spindle validate` does after its capacity check.
    static PARAMS: std::sync::OnceLock<Option<spindle::disk::params::DiskParams>> =
        std::sync::OnceLock::new();
    let Some(params) = PARAMS.get_or_init(|| spindle::disk::presets::preset("hp-c2247a").ok())
    else {
        return;
    };
    let Ok(mut hdd) = spindle::disk::Hdd::new(params.clone()) else {
        return;
    };
    let cap = hdd.capacity();
    let fits = records
        .iter()
        .all(|r| matches!(r.lbn.checked_add(r.blocks as u64), Some(end) if end <= cap));
    if fits && !records.is_empty() && records.len() <= 256 {
        let _ = spindle::validate::replay::validate("fuzz", &mut hdd, &records);
    }
}

/// The TOML run configuration (`spindle run --config`): parse, then build the stack.
pub fn stack_toml(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(c) = spindle::config::RunConfig::from_toml(&text, "fuzz.toml") else {
        return;
    };
    if c.device_tree().is_ok() {
        let _ = c.build();
    }
}

/// The TOML run configuration, parsed and its device tree resolved, without building
/// the stack (many more inputs per second than [`stack_toml`]).
pub fn stack_toml_parse(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(c) = spindle::config::RunConfig::from_toml(&text, "fuzz.toml") {
        let _ = c.device_tree();
        let _ = c.workload.describe();
    }
}

/// The Disk Mimic's table file (`spindle mimic show`).
pub fn mimic_table(data: &[u8]) {
    let _ = spindle::mimic::table::MimicTable::parse(data, "fuzz.json");
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
