//! Fault injection for array members: writes that are acknowledged but never reach
//! the media (lost writes), writes that land on the wrong block (misdirected writes),
//! and silent bit flips. Every injected fault is recorded with the locations it
//! damaged, so tests can check that each one was detected or overwritten.

use crate::store::SECTORS_PER_BLOCK;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;

/// What happens to one write as the drive completes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteFate {
    Persist,
    /// Acknowledged, not stored.
    Lost,
    /// Stored at this block instead.
    Misdirected(u64),
    /// Power or firmware failure mid-write: only the first this many 512-byte
    /// sectors of the 4 KiB block reach the media (1..=7), the rest keep old bytes.
    Torn(u32),
}

/// One member's own fault stream (a `faults` table on a stack entry): its rates and
/// its own seeded generator, so that members draw independently of each other.
#[derive(Clone, Debug)]
pub struct MemberFaults {
    pub rng: ChaCha8Rng,
    pub lost_write: f64,
    pub misdirected_write: f64,
    pub torn_write: f64,
}

/// The kinds of fault that damage a stored block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultClass {
    Lost = 0,
    Misdirected = 1,
    Torn = 2,
    Flip = 3,
}

/// What became of the locations one kind of fault damaged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct KindTally {
    /// Rewritten by a repair after a detection.
    pub repaired: u64,
    /// Overwritten by an ordinary write before any read met them.
    pub overwritten: u64,
}

/// Counts of injected faults by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Injected {
    pub lost_writes: u64,
    pub misdirected_writes: u64,
    pub bit_flips: u64,
    /// Left out of the output when 0 (older reports had no torn writes).
    #[serde(skip_serializing_if = "is_zero")]
    pub torn_writes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Injected {
    pub fn total(&self) -> u64 {
        self.lost_writes + self.misdirected_writes + self.bit_flips + self.torn_writes
    }
}

/// Seeded fault injection; off (probabilities 0) by default.
#[derive(Clone, Debug)]
pub struct FaultInjector {
    rng: ChaCha8Rng,
    /// Probability that a write is lost.
    pub lost_write: f64,
    /// Probability that a write lands elsewhere.
    pub misdirected_write: f64,
    /// How far (in blocks, either way) a misdirected write can land.
    pub misdirect_reach: u64,
    pub injected: Injected,
    /// Damaged locations overwritten by a repair after a detection.
    pub repaired_locations: u64,
    /// Damaged locations overwritten by an ordinary write before any read saw them.
    pub masked_locations: u64,
    /// (member, block) locations whose contents are wrong because of a fault and
    /// have not been rewritten since.
    damaged: FxHashMap<(usize, u64), FaultClass>,
    /// The kind of the last fault at each location ever damaged (kept after repair),
    /// to attribute detections to what caused them.
    last_kind: FxHashMap<(usize, u64), FaultClass>,
    /// Per kind of fault: damaged locations repaired and overwritten.
    pub by_kind: [KindTally; 4],
    /// Device writes (array members and whatever else asks `write_survives`) still
    /// to persist before a simulated power cut; `None`: no crash planned.
    crash_budget: Option<u64>,
    /// Per-member streams (empty: every member draws from `rng` with the rates above).
    members: Vec<MemberFaults>,
}

impl FaultInjector {
    pub fn new(seed: u64) -> FaultInjector {
        FaultInjector {
            rng: ChaCha8Rng::seed_from_u64(seed),
            lost_write: 0.0,
            misdirected_write: 0.0,
            misdirect_reach: 128,
            injected: Injected::default(),
            repaired_locations: 0,
            masked_locations: 0,
            damaged: FxHashMap::default(),
            last_kind: FxHashMap::default(),
            by_kind: [KindTally::default(); 4],
            crash_budget: None,
            members: Vec::new(),
        }
    }

    /// Gives each member its own rates and seeded stream (member `i` uses
    /// `members[i]`; members beyond the list inject nothing).
    pub fn with_members(mut self, members: Vec<MemberFaults>) -> FaultInjector {
        self.members = members;
        self
    }

    /// Member `disk`'s own stream, if it has one (for the caller's own fault sites).
    pub fn member_rng(&mut self, disk: usize) -> Option<&mut ChaCha8Rng> {
        self.members.get_mut(disk).map(|m| &mut m.rng)
    }

    /// Stops injecting write faults (every rate to 0, per-member ones too); what was
    /// injected and damaged is kept.
    pub fn stop(&mut self) {
        self.lost_write = 0.0;
        self.misdirected_write = 0.0;
        for m in &mut self.members {
            m.lost_write = 0.0;
            m.misdirected_write = 0.0;
            m.torn_write = 0.0;
        }
    }

    /// Cancels a planned (or happened) power cut: the power is back.
    pub fn power_restored(&mut self) {
        self.crash_budget = None;
    }

    /// Plans a power cut: the next `writes` device writes persist, every later one is
    /// lost (not counted as an injected fault).
    pub fn crash_after_writes(&mut self, writes: u64) {
        self.crash_budget = Some(writes);
    }

    /// Device writes left before the planned power cut.
    pub fn crash_budget(&self) -> Option<u64> {
        self.crash_budget
    }

    /// Whether the planned power cut has happened.
    pub fn crashed(&self) -> bool {
        self.crash_budget == Some(0)
    }

    /// Whether a device write reaches its media (false once the power is cut).
    pub fn write_survives(&mut self) -> bool {
        match &mut self.crash_budget {
            None => true,
            Some(0) => false,
            Some(n) => {
                *n -= 1;
                true
            }
        }
    }

    /// No faults.
    pub fn none() -> FaultInjector {
        FaultInjector::new(0)
    }

    /// Decides the fate of a write of `block` on member `disk`; `repair` says the
    /// write restores a block after a detected fault.
    pub fn fate(&mut self, disk: usize, block: u64, repair: bool) -> WriteFate {
        if !self.write_survives() {
            return WriteFate::Lost;
        }
        let reach = self.misdirect_reach.max(1);
        let fate = if self.members.is_empty() {
            if self.lost_write <= 0.0 && self.misdirected_write <= 0.0 {
                WriteFate::Persist
            } else {
                let rates = (self.lost_write, self.misdirected_write, 0.0);
                draw(&mut self.rng, rates, reach, block)
            }
        } else {
            match self.members.get_mut(disk) {
                Some(m)
                    if m.lost_write > 0.0 || m.misdirected_write > 0.0 || m.torn_write > 0.0 =>
                {
                    let rates = (m.lost_write, m.misdirected_write, m.torn_write);
                    draw(&mut m.rng, rates, reach, block)
                }
                _ => WriteFate::Persist,
            }
        };
        match fate {
            WriteFate::Lost => {
                self.injected.lost_writes += 1;
                self.damage(disk, block, FaultClass::Lost);
            }
            WriteFate::Misdirected(to) => {
                self.injected.misdirected_writes += 1;
                self.damage(disk, block, FaultClass::Misdirected);
                self.damage(disk, to, FaultClass::Misdirected);
            }
            WriteFate::Torn(_) => {
                self.injected.torn_writes += 1;
                self.damage(disk, block, FaultClass::Torn);
            }
            WriteFate::Persist => self.persisted(disk, block, repair),
        }
        fate
    }

    fn persisted(&mut self, disk: usize, block: u64, repair: bool) {
        if let Some(kind) = self.damaged.remove(&(disk, block)) {
            let t = &mut self.by_kind[kind as usize];
            if repair {
                self.repaired_locations += 1;
                t.repaired += 1;
            } else {
                self.masked_locations += 1;
                t.overwritten += 1;
            }
        }
    }

    fn damage(&mut self, disk: usize, block: u64, kind: FaultClass) {
        self.damaged.insert((disk, block), kind);
        self.last_kind.insert((disk, block), kind);
    }

    /// The kind of the last fault injected at (disk, block), if any ever was.
    pub fn kind_at(&self, disk: usize, block: u64) -> Option<FaultClass> {
        self.last_kind.get(&(disk, block)).copied()
    }

    /// Records a bit flip the caller applied at (disk, block).
    pub fn note_bit_flip(&mut self, disk: usize, block: u64) {
        self.injected.bit_flips += 1;
        self.damage(disk, block, FaultClass::Flip);
    }

    /// Forgets damage at a location (its member was replaced, or it was rewritten by
    /// a repair outside the write path).
    pub fn forget(&mut self, disk: usize, block: u64) {
        self.damaged.remove(&(disk, block));
    }

    /// Forgets all damage on a member (it was replaced).
    pub fn forget_disk(&mut self, disk: usize) {
        self.damaged.retain(|&(d, _), _| d != disk);
        self.last_kind.retain(|&(d, _), _| d != disk);
    }

    /// Locations currently damaged, sorted.
    pub fn damaged(&self) -> Vec<(usize, u64)> {
        let mut v: Vec<_> = self.damaged.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// A random draw for callers that pick fault sites (same seeded stream).
    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }
}

/// One write's draw from a fault stream with (lost, misdirected, torn) rates: which
/// fault, if any, and where a misdirected write lands (up to `reach` blocks away).
fn draw(rng: &mut ChaCha8Rng, rates: (f64, f64, f64), reach: u64, block: u64) -> WriteFate {
    let (lost, misdirected, torn) = rates;
    let x: f64 = rng.gen();
    if x < lost {
        WriteFate::Lost
    } else if x < lost + misdirected {
        let off = rng.gen_range(1..=reach);
        let to = if rng.gen_bool(0.5) && block >= off {
            block - off
        } else {
            block + off
        };
        WriteFate::Misdirected(to)
    } else if x < lost + misdirected + torn {
        WriteFate::Torn(rng.gen_range(1..SECTORS_PER_BLOCK as u32))
    } else {
        WriteFate::Persist
    }
}

/// Where a fault campaign's bit flip lands on a member: a row among the first
/// `rows_span`, its data block four times in five, else the checksum block of its zone,
/// and one bit of that block. Returns (member block, bit).
pub fn draw_bit_flip<R: Rng>(rng: &mut R, rows_span: u64) -> (u64, usize) {
    let row = rng.gen_range(0..rows_span);
    let block = if rng.gen_bool(0.8) {
        super::layout::data_block(row)
    } else {
        super::layout::checksum_block(row)
    };
    (block, rng.gen_range(0..crate::store::BLOCK_BYTES * 8))
}
