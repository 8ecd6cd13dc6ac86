//! Fault injection for array members: writes that are acknowledged but never reach
//! the media (lost writes), writes that land on the wrong block (misdirected writes),
//! and silent bit flips. Every injected fault is recorded with the locations it
//! damaged, so tests can check that each one was detected or overwritten.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashSet;

/// What happens to one write as the drive completes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteFate {
    Persist,
    /// Acknowledged, not stored.
    Lost,
    /// Stored at this block instead.
    Misdirected(u64),
}

/// Counts of injected faults by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Injected {
    pub lost_writes: u64,
    pub misdirected_writes: u64,
    pub bit_flips: u64,
}

impl Injected {
    pub fn total(&self) -> u64 {
        self.lost_writes + self.misdirected_writes + self.bit_flips
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
    damaged: FxHashSet<(usize, u64)>,
    /// Device writes (array members and whatever else asks `write_survives`) still
    /// to persist before a simulated power cut; `None`: no crash planned.
    crash_budget: Option<u64>,
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
            damaged: FxHashSet::default(),
            crash_budget: None,
        }
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
        if self.lost_write <= 0.0 && self.misdirected_write <= 0.0 {
            self.persisted(disk, block, repair);
            return WriteFate::Persist;
        }
        let x: f64 = self.rng.gen();
        if x < self.lost_write {
            self.injected.lost_writes += 1;
            self.damaged.insert((disk, block));
            WriteFate::Lost
        } else if x < self.lost_write + self.misdirected_write {
            let off = self.rng.gen_range(1..=self.misdirect_reach.max(1));
            let to = if self.rng.gen_bool(0.5) && block >= off {
                block - off
            } else {
                block + off
            };
            self.injected.misdirected_writes += 1;
            self.damaged.insert((disk, block));
            self.damaged.insert((disk, to));
            WriteFate::Misdirected(to)
        } else {
            self.persisted(disk, block, repair);
            WriteFate::Persist
        }
    }

    fn persisted(&mut self, disk: usize, block: u64, repair: bool) {
        if self.damaged.remove(&(disk, block)) {
            if repair {
                self.repaired_locations += 1;
            } else {
                self.masked_locations += 1;
            }
        }
    }

    /// Records a bit flip the caller applied at (disk, block).
    pub fn note_bit_flip(&mut self, disk: usize, block: u64) {
        self.injected.bit_flips += 1;
        self.damaged.insert((disk, block));
    }

    /// Forgets damage at a location (its member was replaced, or it was rewritten by
    /// a repair outside the write path).
    pub fn forget(&mut self, disk: usize, block: u64) {
        self.damaged.remove(&(disk, block));
    }

    /// Forgets all damage on a member (it was replaced).
    pub fn forget_disk(&mut self, disk: usize) {
        self.damaged.retain(|&(d, _)| d != disk);
    }

    /// Locations currently damaged, sorted.
    pub fn damaged(&self) -> Vec<(usize, u64)> {
        let mut v: Vec<_> = self.damaged.iter().copied().collect();
        v.sort_unstable();
        v
    }

    /// A random draw for callers that pick fault sites (same seeded stream).
    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }
}
