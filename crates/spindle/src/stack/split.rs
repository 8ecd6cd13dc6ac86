//! A split layer: a request larger than `max-kib` goes below in pieces of at most that
//! size, issued together; it completes when its last piece does, with the pieces'
//! times gathered as [`Parts`] gathers them. It stands for a limit
//! between a guest and the device, such as a paravirtual block ring whose requests carry
//! a bounded number of pages (Xen's blkif: 11 pages of 4 KiB, 44 KiB).

use super::layer::{Layer, LayerIo};
use crate::disk::hdd::Request;
use crate::node::{Done, NodeReport, Parts};
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
            reads: 0,
            writes: 0,
            pieces: 0,
        })
    }
}

pub struct Split {
    /// Largest piece, sectors.
    max: u64,
    /// Requests from above → pieces still below, and what the done ones reported.
    parents: FxHashMap<u64, (Request, u32, Parts)>,
    /// Piece id → request from above.
    below: FxHashMap<u64, u64>,
    next_id: u64,
    /// Requests from above, as every node counts them.
    reads: u64,
    writes: u64,
    pieces: u64,
}

impl Layer for Split {
    fn on_request(&mut self, _now: SimTime, req: Request, io: &mut LayerIo) {
        if req.write {
            self.writes += 1;
        } else {
            self.reads += 1;
        }
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
        self.parents.insert(req.id, (req, n, Parts::default()));
    }

    fn on_complete(&mut self, now: SimTime, done: &Done, io: &mut LayerIo) {
        let Some(pid) = self.below.remove(&done.req.id) else {
            return;
        };
        let Some(p) = self.parents.get_mut(&pid) else {
            return;
        };
        p.1 -= 1;
        p.2.absorb(done);
        if p.1 == 0 {
            if let Some((req, _, parts)) = self.parents.remove(&pid) {
                // Held and served where its last piece was.
                io.up.push(Done {
                    released: done.released,
                    unit: done.unit,
                    ..parts.done(req, now)
                });
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
            reads: self.reads,
            writes: self.writes,
            busy_ns: 0,
            extra: vec![
                ("requests".into(), (self.reads + self.writes).to_string()),
                ("pieces".into(), self.pieces.to_string()),
            ],
            is_drive: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::disk::presets::preset;
    use crate::engine::{self, RequestLog, RunOptions, Source};
    use crate::sched::SchedulerKind;
    use crate::stack::layer::LayerNode;
    use crate::stack::queue::QueueSpec;
    use crate::stack::tree::build_from_params;
    use crate::time::SimTime;
    use crate::trace::IoRecord;

    /// One 128 KiB read of a cold drive, through a split into `max_kib` pieces or not.
    fn one_read(max_kib: Option<u64>) -> RequestLog {
        let disk = preset("mimic-base").unwrap();
        let b = build_from_params(&[disk], &QueueSpec::new(SchedulerKind::Fcfs)).unwrap();
        let rec = IoRecord {
            arrival: SimTime(0),
            device: 0,
            lbn: 100_000,
            blocks: 256,
            write: false,
            content: Vec::new(),
        };
        let mut logs = Vec::new();
        let mut run = |root: &mut dyn crate::node::Device| {
            engine::run(
                root,
                &b.units,
                Source::records(std::slice::from_ref(&rec)),
                RunOptions::default(),
                &mut |l| logs.push(*l),
            )
            .unwrap();
        };
        match max_kib {
            Some(max_kib) => {
                let split = super::SplitSpec { max_kib }.build().unwrap();
                run(&mut LayerNode::new(Box::new(split), b.root));
            }
            None => {
                let mut root = b.root;
                run(root.as_mut());
            }
        }
        logs[0]
    }

    #[test]
    fn a_split_request_reports_all_its_pieces() {
        let whole = one_read(None);
        let split = one_read(Some(4));
        // Started when its first piece did, not its last; the drive's time over all
        // 32 pieces, not the last piece's.
        assert!(split.start.0 <= whole.start.0 + 1_000_000, "{split:?}");
        assert!(!split.cache_hit, "the first piece went to the media");
        let b = split.breakdown;
        let at_drive = b.overhead_ns + b.seek_ns + b.rotation_ns + b.transfer_ns;
        assert!(b.seek_ns > 0 && b.transfer_ns >= whole.breakdown.transfer_ns / 2);
        assert!(
            at_drive + 1_000_000 >= split.done.0 - split.start.0,
            "breakdown {at_drive} ns against {} ns at the drive",
            split.done.0 - split.start.0
        );
    }
}
