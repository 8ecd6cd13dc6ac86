//! Queue-depth-1 random I/O on a drive: the "1 OP" service time of the proximal I/O
//! paper (PROX-EQ1) and the seed drives' random-access numbers.

use crate::disk::hdd::{DiskError, Hdd, Request};
use crate::disk::params::DiskParams;
use crate::time::SimTime;
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

/// Issues `requests` uniformly random requests of `blocks` sectors (aligned to their
/// size) over the whole disk, one at a time. Between requests the host idles for a
/// random fraction of a revolution, so the head meets each request at a random angle;
/// the cache cannot help random requests and is left as the drive has it.
pub fn random_io(
    params: &DiskParams,
    requests: usize,
    blocks: u32,
    write: bool,
    seed: u64,
) -> Result<RandomIoResult, DiskError> {
    let mut hdd = Hdd::new(params.clone())?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let slots = hdd.capacity() / blocks.max(1) as u64;
    let period = hdd.period_ns();
    let mut t = SimTime::ZERO;
    let (mut sum, mut seek, mut rot, mut xfer, mut ovh) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for i in 0..requests {
        let lbn = rng.gen_range(0..slots) * blocks as u64;
        let c = hdd.service(
            t,
            Request {
                id: i as u64,
                lbn,
                blocks,
                write,
            },
        );
        sum += c.service_ns();
        seek += c.breakdown.seek_ns;
        rot += c.breakdown.rotation_ns;
        xfer += c.breakdown.transfer_ns;
        ovh += c.breakdown.overhead_ns;
        // Idle long enough for any background work to end, plus a random phase.
        t = c.done + 50_000_000 + rng.gen_range(0..period.max(1.0) as u64);
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
