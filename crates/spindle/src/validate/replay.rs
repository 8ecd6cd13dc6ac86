//! DiskSim-style validation replay: closed loop, one request outstanding.
//!
//! Request 1 is issued at time 0; request i+1 is issued `think_us(i)` after request i
//! completes (reference §9). The simulated access time of a request is its completion
//! minus its issue time, compared against the real drive's measured time with the
//! demerit figure.

use super::demerit::rms_demerit;
use super::trace::ValidateRecord;
use crate::disk::hdd::{Hdd, Request};
use crate::time::SimTime;
use serde::Serialize;

/// The outcome of validating one drive.
#[derive(Clone, Debug, Serialize)]
pub struct ValidationResult {
    pub disk: String,
    pub requests: usize,
    pub rms_ms: f64,
    pub mean_measured_ms: f64,
    pub mean_simulated_ms: f64,
}

/// Replays `trace` on `hdd` and returns the simulated access time (ms) of each request.
pub fn replay(hdd: &mut Hdd, trace: &[ValidateRecord]) -> Vec<f64> {
    let mut out = Vec::with_capacity(trace.len());
    let mut t = SimTime::ZERO;
    for (i, r) in trace.iter().enumerate() {
        let req = Request {
            id: i as u64,
            lbn: r.lbn,
            blocks: r.blocks,
            write: r.write,
        };
        let c = hdd.service(t, req);
        out.push((c.done.0 - t.0) as f64 / 1e6);
        t = c.done + SimTime::from_us(r.think_us).0;
    }
    out
}

/// Replays and scores one drive.
pub fn validate(name: &str, hdd: &mut Hdd, trace: &[ValidateRecord]) -> ValidationResult {
    let sim = replay(hdd, trace);
    let measured: Vec<f64> = trace.iter().map(|r| r.measured_us / 1000.0).collect();
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    ValidationResult {
        disk: name.to_string(),
        requests: trace.len(),
        rms_ms: rms_demerit(&sim, &measured),
        mean_measured_ms: mean(&measured),
        mean_simulated_ms: mean(&sim),
    }
}
