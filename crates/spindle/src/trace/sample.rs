//! Traces built into the binary, so experiments run without data files.

use super::{srt, IoRecord, TraceError};
use std::sync::OnceLock;

/// The built-in traces: name (used as `sample:NAME`) and description.
pub const SAMPLES: [(&str, &str); 1] = [(
    "hplajw",
    "HP Labs SRT trace of workstation hplajw, one week from 1992-05-30 \
     (ajw.1week.srt: 44,519 requests on devices 0 and 1)",
)];

/// `data/traces/ajw.1week.srt` of the workspace (this file is crates/spindle/src/trace/).
static HPLAJW_SRT: &[u8] = include_bytes!("../../../../data/traces/ajw.1week.srt");

/// A built-in trace by name (`hplajw` or `sample:hplajw`), parsed on first use.
pub fn sample(name: &str) -> Result<&'static [IoRecord], TraceError> {
    static HPLAJW: OnceLock<Result<Vec<IoRecord>, TraceError>> = OnceLock::new();
    let name = name.strip_prefix("sample:").unwrap_or(name);
    match name {
        "hplajw" => HPLAJW
            .get_or_init(|| srt::parse(HPLAJW_SRT, "sample:hplajw"))
            .as_deref()
            .map_err(Clone::clone),
        _ => Err(TraceError::file(
            &format!("sample:{name}"),
            format!(
                "no such built-in trace (available: {})",
                SAMPLES.map(|(n, _)| n).join(", ")
            ),
        )),
    }
}
