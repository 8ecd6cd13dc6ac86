//! Shortest Mimicked Time First: pick the waiting request the Disk Mimic predicts to be
//! quickest after the last one sent (thesis §3.4). Greedy, no fairness.

use super::DiskMimic;
use crate::disk::hdd::Request;

/// What SMTF remembers of the last request it sent to the drive.
#[derive(Clone, Copy, Debug, Default)]
pub struct LastRequest {
    pub write: bool,
    /// Last sector of the previous request.
    pub last_lbn: u64,
}

impl LastRequest {
    pub fn of(req: &Request) -> LastRequest {
        LastRequest {
            write: req.write,
            last_lbn: req.lbn + req.blocks.max(1) as u64 - 1,
        }
    }

    /// Signed inter-request distance to `req` (ALG-MIMIC).
    pub fn distance_to(&self, req: &Request) -> i64 {
        req.lbn as i64 - self.last_lbn as i64
    }
}

/// Index of the request with the shortest mimicked time; ties go to the earliest.
pub fn choose<'a>(
    mimic: &mut DiskMimic,
    last: LastRequest,
    reqs: impl Iterator<Item = &'a Request>,
) -> usize {
    let mut best = (u32::MAX, 0);
    for (i, r) in reqs.enumerate() {
        let t = mimic.predict(last.write, r.write, last.distance_to(r));
        if t < best.0 {
            best = (t, i);
        }
    }
    best.1
}
