//! A fault-injection campaign: random writes and reads against a RAID-4 group while
//! writes are lost or misdirected and stored bits flip, every read checked against a
//! plain in-memory copy of the volume. It counts what was injected, detected and
//! repaired, and — the number that must stay zero — wrong bytes returned.

use super::error::ArrayError;
use super::layout::{checksum_block, data_block};
use super::raid4::{Raid4, Raid4Config};
use super::{FaultInjector, Injected};
use crate::disk::params::DiskParams;
use crate::store::{block_from, zero_block, Block};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::BTreeMap;

/// What to inject and for how long.
#[derive(Clone, Debug, Serialize)]
pub struct FaultCampaign {
    pub seed: u64,
    /// Operations (a write batch or a read batch of 1–6 blocks each).
    pub ops: usize,
    /// Volume blocks the operations touch (small, so that blocks are rewritten often).
    pub span_blocks: u64,
    /// Probability that a member write is lost (acknowledged, not stored).
    pub lost_write: f64,
    /// Probability that a member write lands on another block.
    pub misdirected_write: f64,
    /// Probability, after each operation, of flipping one bit of a stored block.
    pub bit_flip: f64,
    /// A scrub runs after every this many operations (0: only at the end).
    pub scrub_every: usize,
    /// Stripe unit in blocks (small, so the span covers many rows and zones).
    pub stripe_unit_blocks: u64,
}

impl Default for FaultCampaign {
    fn default() -> Self {
        FaultCampaign {
            seed: 1,
            ops: 3000,
            span_blocks: 2400,
            lost_write: 0.001,
            misdirected_write: 0.001,
            bit_flip: 0.02,
            scrub_every: 100,
            stripe_unit_blocks: 16,
        }
    }
}

/// What happened.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FaultReport {
    pub injected: Injected,
    pub injected_total: u64,
    /// Verification failures reported by the array (a fault may be seen more than once
    /// before it can be repaired).
    pub detections: u64,
    pub detections_repaired: u64,
    /// Damaged locations rewritten by a repair after a detection.
    pub locations_repaired: u64,
    /// Damaged locations overwritten by an ordinary write before any read met them.
    pub locations_overwritten: u64,
    pub reads_right: u64,
    /// Reads refused because a row held two faults at once (never wrong bytes).
    pub reads_refused: u64,
    pub writes_refused: u64,
    /// Bytes returned that differ from what was written: must be 0.
    pub returned_wrong: u64,
    /// Rows the final scrub could not recover.
    pub unrecoverable_after_scrub: u64,
    /// Why, for the first few of them.
    pub unrecoverable_examples: Vec<String>,
    /// Damaged locations still holding meaningful data after the final scrub.
    pub damaged_left: u64,
    /// Detections in a second scrub right after the final one (0 if all was repaired).
    pub second_scrub_detections: u64,
    pub final_reads_right: u64,
    /// Final read-back blocks refused with an error (unrecoverable rows), never guessed.
    pub final_reads_refused: u64,
    pub final_reads_total: u64,
    pub simulated_s: f64,
}

fn payload(rng: &mut ChaCha8Rng) -> Block {
    let mut b = [0u8; 48];
    rng.fill(&mut b[..]);
    block_from(&b)
}

/// Reads `blocks` and compares with the model: (right, refused, wrong).
fn check_reads(
    a: &mut Raid4,
    model: &BTreeMap<u64, Block>,
    blocks: &[u64],
) -> Result<(u64, u64, u64), ArrayError> {
    let (out, _) = a.read_batch(blocks)?;
    let mut n = (0, 0, 0);
    for (v, r) in blocks.iter().zip(out) {
        match r {
            Ok(b) if Some(&b) == model.get(v) || (model.get(v).is_none() && b == zero_block()) => {
                n.0 += 1
            }
            Ok(_) => n.2 += 1,
            Err(_) => n.1 += 1,
        }
    }
    Ok(n)
}

/// Runs the campaign on a 4+1 group of `disk`.
pub fn run_fault_campaign(disk: &DiskParams, c: &FaultCampaign) -> Result<FaultReport, ArrayError> {
    let cfg = Raid4Config {
        stripe_unit_blocks: c.stripe_unit_blocks,
        ..Raid4Config::default()
    };
    let mut a = Raid4::new(disk.clone(), cfg)?;
    let members = a.layout().members();
    let volume = a.layout().volume_blocks();
    if c.span_blocks == 0 || c.span_blocks > volume {
        // The range the campaign writes: refused, never narrowed to fit.
        return Err(ArrayError::OutOfRange {
            block: c.span_blocks,
            blocks: volume,
        });
    }
    let span = c.span_blocks;
    a.faults = FaultInjector::new(c.seed);
    a.faults.lost_write = c.lost_write;
    a.faults.misdirected_write = c.misdirected_write;
    let mut rng = ChaCha8Rng::seed_from_u64(c.seed ^ 0x5eed);
    let mut model: BTreeMap<u64, Block> = BTreeMap::new();
    let mut r = FaultReport::default();
    let watch = crate::interrupt::Watch::start();
    for i in 0..c.ops {
        if i % 1024 == 0 && watch.stopped() {
            return Err(ArrayError::Interrupted);
        }
        let k = rng.gen_range(1..=6);
        if rng.gen_bool(0.5) {
            let w: Vec<(u64, Block)> = (0..k)
                .map(|_| (rng.gen_range(0..span), payload(&mut rng)))
                .collect();
            // A write that meets two faults in one row is refused (nothing is written).
            match a.write_batch(&w) {
                Ok(_) => model.extend(w),
                Err(ArrayError::Unrecoverable { .. }) => r.writes_refused += 1,
                Err(e) => return Err(e),
            }
        } else {
            let blocks: Vec<u64> = (0..k).map(|_| rng.gen_range(0..span)).collect();
            let (right, refused, wrong) = check_reads(&mut a, &model, &blocks)?;
            r.reads_right += right;
            r.reads_refused += refused;
            r.returned_wrong += wrong;
        }
        if rng.gen_bool(c.bit_flip.clamp(0.0, 1.0)) {
            let disk = rng.gen_range(0..members);
            let row = rng.gen_range(0..span / cfg.data_disks as u64 + cfg.stripe_unit_blocks);
            let block = if rng.gen_bool(0.8) {
                data_block(row)
            } else {
                checksum_block(row)
            };
            a.inject_bit_flip(disk, block, rng.gen_range(0..4096 * 8));
        }
        if c.scrub_every > 0 && i % c.scrub_every == c.scrub_every - 1 {
            a.scrub()?;
        }
    }
    // Stop injecting, then scrub: whatever is still damaged must be found and fixed.
    a.faults.lost_write = 0.0;
    a.faults.misdirected_write = 0.0;
    let (errors, _) = a.scrub()?;
    r.unrecoverable_after_scrub = errors.len() as u64;
    r.unrecoverable_examples = errors.iter().take(5).map(|e| e.to_string()).collect();
    r.damaged_left = a.damaged_in_use();
    let (_, second) = a.scrub()?;
    r.second_scrub_detections = second.detections;
    let all: Vec<u64> = model.keys().copied().collect();
    let (right, refused, wrong) = check_reads(&mut a, &model, &all)?;
    r.final_reads_right = right;
    r.final_reads_refused = refused;
    r.final_reads_total = all.len() as u64;
    r.returned_wrong += wrong;
    r.injected = a.faults.injected;
    r.injected_total = r.injected.total();
    r.detections = a.detections().len() as u64;
    r.detections_repaired = a.detections().iter().filter(|d| d.repaired).count() as u64;
    r.locations_repaired = a.faults.repaired_locations;
    r.locations_overwritten = a.faults.masked_locations;
    r.simulated_s = a.now().as_ms() / 1e3;
    Ok(r)
}
