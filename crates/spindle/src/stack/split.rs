//! A split layer: a request larger than `max-kib` goes below in pieces of at most that
//! size, issued together; it completes when its last piece does. It stands for a limit
//! between a guest and the device, such as a paravirtual block ring whose requests carry
//! a bounded number of pages (Xen's blkif: 11 pages of 4 KiB, 44 KiB).

use super::layer::{Layer, LayerIo};
use crate::disk::hdd::Request;
use crate::node::{Done, NodeReport};
use crate::time::SimTime;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Largest piece, KiB (64 MiB).
pub const MAX_PIECE_KIB: u64 = 64 << 10;

/// `[[layer]] kind = "split"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SplitSpec {
    /// Largest piece, KiB.
    pub max_kib: u64,
}

impl SplitSpec {
    pub fn build(&self) -> Result<Split, String> {
        if !(1..=MAX_PIECE_KIB).contains(&self.max_kib) {
            return Err(format!(
                "split max-kib must be within 1..={MAX_PIECE_KIB}, got {}",
                self.max_kib
            ));
        }
        Ok(Split {
            max: self.max_kib * 2,
            parents: FxHashMap::default(),
            below: FxHashMap::default(),
            next_id: 0,
            requests: 0,
            pieces: 0,
        })
    }
}

pub struct Split {
    /// Largest piece, sectors.
    max: u64,
    /// Requests from above → pieces still below.
    parents: FxHashMap<u64, (Request, u32)>,
    /// Piece id → request from above.
    below: FxHashMap<u64, u64>,
    next_id: u64,
    requests: u64,
    pieces: u64,
}

impl Layer for Split {
    fn on_request(&mut self, _now: SimTime, req: Request, io: &mut LayerIo) {
        self.requests += 1;
        let (mut at, end) = (req.lbn, req.lbn + u64::from(req.blocks.max(1)));
        let mut n = 0;
        while at < end {
            let len = (end - at).min(self.max);
            self.next_id += 1;
            self.below.insert(self.next_id, req.id);
            io.below.push(Request {
                id: self.next_id,
                lbn: at,
                blocks: len as u32,
                write: req.write,
            });
            at += len;
            n += 1;
        }
        self.pieces += u64::from(n);
        self.parents.insert(req.id, (req, n));
    }

    fn on_complete(&mut self, _now: SimTime, done: &Done, io: &mut LayerIo) {
        let Some(pid) = self.below.remove(&done.req.id) else {
            return;
        };
        let Some(p) = self.parents.get_mut(&pid) else {
            return;
        };
        p.1 -= 1;
        if p.1 == 0 {
            if let Some((req, _)) = self.parents.remove(&pid) {
                io.up.push(Done { req, ..*done });
            }
        }
    }

    fn on_timer(&mut self, _now: SimTime, _token: u64, _io: &mut LayerIo) {}

    fn outstanding(&self) -> usize {
        self.parents.len()
    }

    fn describe(&self) -> String {
        format!("split (pieces of at most {} KiB)", self.max / 2)
    }

    fn report(&self, path: &str) -> NodeReport {
        NodeReport {
            path: path.to_string(),
            kind: "split".into(),
            reads: 0,
            writes: 0,
            busy_ns: 0,
            extra: vec![
                ("requests".into(), self.requests.to_string()),
                ("pieces".into(), self.pieces.to_string()),
            ],
            is_drive: false,
        }
    }
}
