//! The host's greedy-optimal scheduler ranks waiting requests by the time each would
//! take to reach the media if sent now. On a drive whose command overhead the host
//! cannot overlap (one request outstanding), that time starts with the overhead: a
//! ranking by positioning alone picks, again and again, the sector the overhead then
//! makes it miss by a whole revolution, and loses to SSTF.

use rand::{Rng, SeedableRng};
use spindle::disk::presets::preset;
use spindle::engine::Source;
use spindle::runner::{simulate, StackSpec};
use spindle::sched::SchedulerKind;
use spindle::time::SimTime;
use spindle::trace::IoRecord;

/// Random one-block requests arriving faster than the drive serves them, so the host
/// queue is long and the scheduler has choices.
fn busy_workload(cap: u64, seed: u64, read_fraction: f64) -> Vec<IoRecord> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut t = 0u64;
    (0..1500)
        .map(|_| {
            t += rng.gen_range(0..8_000_000);
            IoRecord {
                arrival: SimTime(t),
                device: 0,
                lbn: rng.gen_range(0..cap - 8),
                blocks: 8,
                write: !rng.gen_bool(read_fraction),
                content: Vec::new(),
            }
        })
        .collect()
}

fn disk_time_ms(disk: &str, kind: SchedulerKind, recs: &[IoRecord]) -> f64 {
    let spec = StackSpec::one_disk(preset(disk).unwrap(), kind);
    simulate(&spec, Source::records(recs), &mut |_| {})
        .unwrap()
        .metrics
        .total_disk_time_ms
}

#[test]
fn greedy_spends_less_time_at_the_disk_than_sstf_where_the_overhead_counts() {
    for (disk, seed, reads) in [
        ("hp-c2249a", 1u64, 1.0),
        ("hp-c2249a", 2, 0.5),
        ("ibm18es", 3, 1.0),
        ("mimic-9lzx", 4, 0.5),
    ] {
        let cap = spindle::disk::Hdd::new(preset(disk).unwrap())
            .unwrap()
            .capacity();
        let recs = busy_workload(cap, seed, reads);
        let sstf = disk_time_ms(disk, SchedulerKind::Sstf, &recs);
        let greedy = disk_time_ms(disk, SchedulerKind::Greedy, &recs);
        assert!(
            greedy < 0.95 * sstf,
            "{disk} seed {seed}: greedy {greedy:.0} ms against SSTF {sstf:.0} ms at the disk"
        );
    }
}
