//! The 48-bit linear congruential generator of POSIX `drand48`, which DiskSim's
//! synthetic generator draws from: one stream shared by every generator of a run.
//!
//! DiskSim seeds it twice: with the configuration's seed before each generator draws
//! its first request, then, as the run starts, with the fixed seed
//! [`DISKSIM_RUN_SEED`]. Every later draw thus follows one sequence whatever the
//! seed; the seed only changes the first request of each generator. Drawing from the
//! same sequence in the same order gives the same requests as DiskSim, so figures that
//! belong to that one sequence (a disk that happens to get fewer reads) are
//! reproduced, not averaged away over independent streams.

/// Multiplier and increment of the POSIX recurrence X' = (a X + c) mod 2^48.
const MULT: u64 = 0x5_DEEC_E66D;
const ADD: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;
/// The low 16 bits `srand48` puts under the seed.
const SEED_LOW: u64 = 0x330E;

/// The seed DiskSim's run starts from (`disksim_run_simulation`), whatever the
/// configuration's.
pub const DISKSIM_RUN_SEED: u64 = 1_000_003;

/// A `drand48` stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rand48 {
    x: u64,
}

impl Rand48 {
    /// The stream `srand48(seed)` starts: the seed's low 32 bits above 0x330E.
    pub fn seeded(seed: u64) -> Rand48 {
        Rand48 {
            x: ((seed & 0xFFFF_FFFF) << 16) | SEED_LOW,
        }
    }

    /// The next value in [0, 1): the new state over 2^48 (exact in an f64).
    pub fn next_f64(&mut self) -> f64 {
        self.x = (self.x.wrapping_mul(MULT).wrapping_add(ADD)) & MASK;
        self.x as f64 / (1u64 << 48) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_posix_recurrence() {
        // srand48(0): X0 = 0x330E; X1 = a * 0x330E + 0xB mod 2^48.
        let mut r = Rand48::seeded(0);
        let x1 = (MULT * 0x330E + 0xB) & MASK;
        assert_eq!(r.next_f64(), x1 as f64 / 2f64.powi(48));
        // The seed's bits above 32 are dropped, as srand48's long seed is cut.
        assert_eq!(Rand48::seeded(7), Rand48::seeded(7 | (1 << 40)));
        // The C library's srand48(1000003) then drand48() three times, as states
        // (each value times 2^48).
        let mut d = Rand48::seeded(DISKSIM_RUN_SEED);
        for want in [
            25_867_705_340_161u64,
            92_300_440_789_880,
            246_079_974_287_907,
        ] {
            assert_eq!(d.next_f64() * 2f64.powi(48), want as f64);
        }
        let mut a = Rand48::seeded(42);
        assert!((0..10_000)
            .map(|_| a.next_f64())
            .all(|u| (0.0..1.0).contains(&u)));
    }
}
