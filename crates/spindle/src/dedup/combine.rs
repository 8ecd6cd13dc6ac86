//! FIU `homes` traces carry one MD5 per 512-byte sector; the content unit of I/O
//! Deduplication is the 4 KiB page. [`combine_sectors`] sits between the trace reader
//! and the engine and merges each run of eight single-sector records that covers one
//! aligned page — same device, same direction, consecutive sectors, in trace order —
//! into one one-page record whose digest is the MD5 of the eight sector digests in
//! order (two pages get the same digest exactly when their eight sectors have the same
//! contents, under the paper's no-collision assumption). Anything else passes through
//! unchanged (its pages stay of unknown content, as before). It streams: at most eight
//! records are held.

use super::{content::md5, Digest, PAGE_SECTORS};
use crate::trace::IoRecord;

/// Merges runs of 512-byte-digest records into 4 KiB-page records (see the module note).
pub fn combine_sectors<I: Iterator<Item = IoRecord>>(records: I) -> CombineSectors<I> {
    CombineSectors {
        inner: records,
        held: Vec::with_capacity(PAGE_SECTORS as usize),
        out: std::collections::VecDeque::new(),
    }
}

pub struct CombineSectors<I> {
    inner: I,
    /// A run being gathered: single-sector records from an aligned page start.
    held: Vec<IoRecord>,
    /// Records ready to hand out, in order.
    out: std::collections::VecDeque<IoRecord>,
}

fn is_sector(r: &IoRecord) -> bool {
    r.blocks == 1 && r.content.len() == 1
}

impl<I: Iterator<Item = IoRecord>> CombineSectors<I> {
    /// Whether `r` continues the held run.
    fn continues(&self, r: &IoRecord) -> bool {
        match self.held.last() {
            None => is_sector(r) && r.lbn.is_multiple_of(PAGE_SECTORS),
            Some(last) => {
                is_sector(r)
                    && r.device == last.device
                    && r.write == last.write
                    && r.lbn == last.lbn + 1
            }
        }
    }

    fn release_held(&mut self) {
        self.out.extend(self.held.drain(..));
    }
}

impl<I: Iterator<Item = IoRecord>> Iterator for CombineSectors<I> {
    type Item = IoRecord;

    fn next(&mut self) -> Option<IoRecord> {
        loop {
            if let Some(r) = self.out.pop_front() {
                return Some(r);
            }
            let Some(r) = self.inner.next() else {
                self.release_held();
                return self.out.pop_front();
            };
            if !self.continues(&r) {
                self.release_held();
                if !(is_sector(&r) && r.lbn.is_multiple_of(PAGE_SECTORS)) {
                    self.out.push_back(r);
                    continue;
                }
            }
            self.held.push(r);
            if self.held.len() as u64 == PAGE_SECTORS {
                let mut bytes = Vec::with_capacity(16 * PAGE_SECTORS as usize);
                for h in &self.held {
                    bytes.extend_from_slice(&h.content[0]);
                }
                let digest: Digest = md5(&bytes);
                let first = &self.held[0];
                let page = IoRecord {
                    blocks: PAGE_SECTORS as u32,
                    content: vec![digest],
                    ..first.clone()
                };
                self.held.clear();
                return Some(page);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn sector(t: u64, lbn: u64, write: bool, c: u8) -> IoRecord {
        IoRecord {
            arrival: SimTime(t),
            device: 0,
            lbn,
            blocks: 1,
            write,
            content: vec![[c; 16]],
        }
    }

    #[test]
    fn eight_aligned_sectors_make_one_page_and_the_rest_passes() {
        let mut v: Vec<IoRecord> = (0..8).map(|i| sector(i, 16 + i, false, i as u8)).collect();
        // Same contents elsewhere: the same page digest.
        v.extend((0..8).map(|i| sector(100 + i, 800 + i, true, i as u8)));
        // A broken run (a gap) and an unaligned start pass through.
        v.push(sector(200, 40, false, 1));
        v.push(sector(201, 42, false, 1));
        v.push(sector(202, 51, false, 1));
        // A whole-page record passes through.
        v.push(IoRecord {
            blocks: 8,
            ..sector(203, 64, false, 9)
        });
        let out: Vec<IoRecord> = combine_sectors(v.clone().into_iter()).collect();
        assert_eq!(out.len(), 2 + 3 + 1);
        assert_eq!(
            (out[0].lbn, out[0].blocks, out[0].arrival, out[0].write),
            (16, 8, SimTime(0), false)
        );
        assert_eq!((out[1].lbn, out[1].write), (800, true));
        assert_eq!(out[0].content, out[1].content);
        assert_ne!(out[0].content[0], [0u8; 16]);
        assert_eq!(&out[2..], &v[16..]);
        // Arrivals stay in order.
        assert!(out.windows(2).all(|p| p[0].arrival <= p[1].arrival));
    }

    #[test]
    fn a_different_sector_changes_the_page_digest() {
        let a: Vec<IoRecord> = (0..8).map(|i| sector(i, i, false, 1)).collect();
        let mut b = a.clone();
        b[5].content = vec![[2; 16]];
        let da = combine_sectors(a.into_iter()).next().unwrap().content;
        let db = combine_sectors(b.into_iter()).next().unwrap().content;
        assert_ne!(da, db);
    }
}
