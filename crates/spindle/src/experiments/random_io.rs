//! Queue-depth-1 random I/O on a drive: the "1 OP" service time of the proximal I/O
//! paper (PROX-EQ1) and the seed drives' random-access numbers.

use crate::disk::hdd::{DiskError, Hdd};
use crate::disk::params::DiskParams;
use crate::engine::{ClosedSource, Source};
use crate::runner::{simulate, StackSpec};
use crate::sched::SchedulerKind;
use crate::time::SimTime;
use crate::trace::IoRecord;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct RandomIoResult {
    pub disk: String,
    pub requests: usize,
    pub blocks: u32,
    pub write: bool,
    pub mean_ms: f64,
    pub mean_seek_ms: f64,
    pub mean_rotation_ms: f64,
    pub mean_transfer_ms: f64,
    pub mean_overhead_ms: f64,
    /// Revolution time / mean service time: random requests served per revolution.
    pub requests_per_revolution: f64,
}

/// One host process issuing random requests one at a time: each is issued an idle
/// gap after the previous one completes.
struct RandomIo {
    rng: ChaCha8Rng,
    left: usize,
    slots: u64,
    blocks: u32,
    write: bool,
    /// Revolution time, ns (the idle gap's random phase is below it).
    period: u64,
}

impl RandomIo {
    /// The next request, issued at `at`, if any are left.
    fn next(&mut self, at: SimTime) -> Option<IoRecord> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let lbn = self.rng.gen_range(0..self.slots) * u64::from(self.blocks);
        Some(IoRecord {
            arrival: at,
            device: 0,
            lbn,
            blocks: self.blocks,
            write: self.write,
            content: Vec::new(),
        })
    }
}

impl ClosedSource for RandomIo {
    fn start(&mut self) -> Vec<(u32, IoRecord)> {
        self.next(SimTime::ZERO)
            .map(|r| (0, r))
            .into_iter()
            .collect()
    }

    fn on_complete(&mut self, _process: u32, now: SimTime) -> Option<IoRecord> {
        if self.left == 0 {
            return None;
        }
        // Idle long enough for any background work to end, plus a random phase.
        let at = now + 50_000_000 + self.rng.gen_range(0..self.period);
        self.next(at)
    }
}

/// Issues `requests` uniformly random requests of `blocks` sectors (aligned to their
/// size) over the whole disk, one at a time. Between requests the host idles for a
/// random fraction of a revolution, so the head meets each request at a random angle;
/// the cache cannot help random requests and is left as the drive has it. The drive's
/// firmware write cache is off: a write's time is the mechanism's.
pub fn random_io(
    params: &DiskParams,
    requests: usize,
    blocks: u32,
    write: bool,
    seed: u64,
) -> Result<RandomIoResult, DiskError> {
    let hdd = Hdd::new(params.clone())?;
    let period = hdd.period_ns();
    let mut disk = params.clone();
    disk.firmware.write_cache_sectors = 0;
    let mut source = RandomIo {
        rng: ChaCha8Rng::seed_from_u64(seed),
        left: requests,
        slots: hdd.capacity() / blocks.max(1) as u64,
        blocks,
        write,
        period: period.max(1.0) as u64,
    };
    let spec = StackSpec::one_disk(disk, SchedulerKind::Fcfs);
    let run =
        simulate(&spec, Source::Closed(&mut source), &mut |_| {}).map_err(DiskError::Param)?;
    let (mut sum, mut seek, mut rot, mut xfer, mut ovh) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for c in &run.requests {
        sum += c.done.0 - c.start.0;
        seek += c.breakdown.seek_ns;
        rot += c.breakdown.rotation_ns;
        xfer += c.breakdown.transfer_ns;
        ovh += c.breakdown.overhead_ns;
    }
    let n = requests.max(1) as f64;
    let ms = |ns: u64| ns as f64 / n / 1e6;
    let mean_ms = ms(sum);
    Ok(RandomIoResult {
        disk: params.name.clone(),
        requests,
        blocks,
        write,
        mean_ms,
        mean_seek_ms: ms(seek),
        mean_rotation_ms: ms(rot),
        mean_transfer_ms: ms(xfer),
        mean_overhead_ms: ms(ovh),
        requests_per_revolution: period / 1e6 / mean_ms,
    })
}
