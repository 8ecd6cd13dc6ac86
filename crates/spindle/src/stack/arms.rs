//! A drive with H heads per surface on independent arms (MimdRAID §2.2.2, Figure 4, the
//! Square Root Rule 3; issue 19), as a device: `disk = "<preset>:heads-per-surface=H"`.
//!
//! The mechanism: H arms, each carrying a head on every surface, sit evenly round the
//! platters (arm i is i/H of a turn after arm 0, so a sector passes under arm i's head
//! i/H of a revolution after it passed under arm 0's) and move independently. One
//! copy of the data is on the platters; any arm can read or write any sector. Each
//! request goes to one arm: among the arms with the fewest requests in hand, the one
//! the drive model predicts reaches the sector first if sent now (its command
//! overhead, seek from where that arm's heads are, and the wait for the sector to come
//! round to it: [`Hdd::read_delay_if_sent`]), ties to the lower arm. This is the
//! choice a drive's firmware can make exactly, since it knows where every arm is.
//!
//! How it is built: arm i is the base drive's whole mechanism and controller
//! ([`DriveNode`]) with its spindle phase turned by i/H (the same spindle, seen from
//! an arm i/H of a turn round). So every arm has a data channel of its own (the paper:
//! "each arm in such a drive is likely to need its own data channel") and, beyond
//! the paper, a command processor and buffer of its own: a read finds data another
//! arm read ahead because the choice predicts that arm's buffer hit as a zero wait,
//! but the buffers together hold H times what the one drive's would. Arms do not
//! collide (the paper spaces them so they cannot). With one arm this is the drive.
//! Timing only, like the other MimdRAID arrays.

use crate::disk::drive::Drive;
use crate::disk::hdd::Request;
use crate::node::{tree_line, Device, Done, NodeReport};
use crate::stack::drive_node::DriveNode;
use crate::time::SimTime;

/// A drive of several independent arms over one set of platters.
pub struct Arms {
    name: String,
    arms: Vec<DriveNode>,
    /// Requests each arm served.
    served: Vec<u64>,
    scratch: Vec<Done>,
}

impl Arms {
    /// `arms[i]` is arm i: the same drive, its spindle phase turned by i/H here.
    /// `name` is the whole drive's (with its `heads-per-surface` option).
    pub fn new(name: impl Into<String>, arms: Vec<Drive>) -> Result<Arms, String> {
        let h = arms.len();
        if h == 0 {
            return Err("a drive needs at least one arm".into());
        }
        let cap = arms[0].hdd().capacity();
        if arms.iter().any(|a| a.hdd().capacity() != cap) {
            return Err("every arm of a drive reaches the same platters".into());
        }
        let name = name.into();
        let arms: Vec<DriveNode> = arms
            .into_iter()
            .enumerate()
            .map(|(i, mut d)| {
                d.hdd_mut().set_spindle_phase(i as f64 / h as f64);
                DriveNode::new(d, format!("{name} arm {i}"))
            })
            .collect();
        Ok(Arms {
            name,
            served: vec![0; arms.len()],
            arms,
            scratch: Vec::new(),
        })
    }

    /// Heads per surface (arms).
    pub fn heads_per_surface(&self) -> usize {
        self.arms.len()
    }

    /// The arm that takes a request for `lbn` at `now` (see the module comment).
    fn choose(&self, now: SimTime, lbn: u64) -> usize {
        (0..self.arms.len())
            .filter(|&i| self.arms[i].can_accept())
            .min_by_key(|&i| {
                let a = &self.arms[i];
                let delay = a.drive().hdd().read_delay_if_sent(now, lbn);
                (a.outstanding(), delay, i)
            })
            .unwrap_or_else(|| {
                // None can accept (callers check `can_accept`): the least busy queues it.
                (0..self.arms.len())
                    .min_by_key(|&i| (self.arms[i].outstanding(), i))
                    .unwrap_or(0)
            })
    }
}

impl Device for Arms {
    fn capacity(&self) -> u64 {
        self.arms[0].capacity()
    }

    fn outstanding(&self) -> usize {
        self.arms.iter().map(|a| a.outstanding()).sum()
    }

    fn can_accept(&self) -> bool {
        self.arms.iter().any(|a| a.can_accept())
    }

    fn submit(&mut self, now: SimTime, req: Request) {
        self.enqueue(now, req);
        self.start(now);
    }

    fn enqueue(&mut self, now: SimTime, req: Request) {
        let i = self.choose(now, req.lbn);
        self.served[i] += 1;
        // Each request goes to exactly one arm, so the caller's ids stay unique below.
        self.arms[i].enqueue(now, req);
    }

    fn start(&mut self, now: SimTime) {
        for a in &mut self.arms {
            a.start(now);
        }
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.arms.iter().filter_map(|a| a.next_wake()).min()
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        let due = self
            .arms
            .iter()
            .enumerate()
            .filter_map(|(i, a)| a.next_wake().map(|t| (t, i)))
            .min();
        if let Some((t, i)) = due {
            if t <= now {
                let mut got = std::mem::take(&mut self.scratch);
                got.clear();
                self.arms[i].wake(now, &mut got);
                out.append(&mut got);
                self.scratch = got;
            }
        }
    }

    fn describe(&self, depth: usize, out: &mut String) {
        let gb = self.capacity() as f64 * 512.0 / 1e9;
        tree_line(
            depth,
            out,
            &format!(
                "disk {} ({gb:.1} GB, {} heads per surface on independent arms; each request \
                 to the arm that reaches it first)",
                self.name,
                self.arms.len()
            ),
        );
        for a in &self.arms {
            a.describe(depth + 1, out);
        }
    }

    fn report_until(&self, path: &str, end: SimTime, out: &mut Vec<NodeReport>) {
        let served: Vec<String> = self.served.iter().map(|n| n.to_string()).collect();
        let mut arms = Vec::new();
        for (i, a) in self.arms.iter().enumerate() {
            a.report_until(&format!("{path}/arm {i}"), end, &mut arms);
        }
        out.push(NodeReport {
            path: path.to_string(),
            kind: format!("disk {} ({} arms)", self.name, self.arms.len()),
            reads: arms.iter().map(|n| n.reads).sum(),
            writes: arms.iter().map(|n| n.writes).sum(),
            busy_ns: 0,
            extra: vec![("requests per arm".into(), served.join(" "))],
            is_drive: false,
        });
        // Each arm is a mechanism of its own: its busy time is its utilization.
        out.extend(arms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::engine::{self, RunOptions, Source};
    use crate::trace::IoRecord;
    use rand::{Rng, SeedableRng};

    /// A run of `disk` behind a FIFO host queue `depth` deep.
    fn built(disk: &str, depth: u32) -> crate::stack::tree::Built {
        let toml = format!(
            "[workload.synthetic]\nkind = \"synthetic\"\npattern = {{ kind = \"uniform\" }}\n\
             sizes = {{ kind = \"fixed\", sectors = 1 }}\nread-fraction = 1.0\n\
             arrivals = {{ kind = \"poisson\", rate-per-s = 20 }}\ncount = 1\n\
             [scheduler]\nkind = \"fcfs\"\nqueue-depth = {depth}\n\
             [device]\nkind = \"disk\"\ndisk = \"{disk}\"\n"
        );
        RunConfig::from_toml(&toml, "arms.toml")
            .unwrap()
            .build()
            .unwrap()
    }

    /// Mean response (ms) of `n` random single-sector requests (writes with
    /// probability `writes`), one every `gap` ns on average (uniform in gap/2..3gap/2),
    /// and the stack's node reports.
    fn run(
        disk: &str,
        depth: u32,
        writes: f64,
        gap: u64,
        n: usize,
        seed: u64,
    ) -> (f64, Vec<NodeReport>) {
        let mut b = built(disk, depth);
        let cap = b.root.capacity();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut t = 0u64;
        let recs: Vec<IoRecord> = (0..n)
            .map(|_| {
                t += rng.gen_range(gap / 2..gap * 3 / 2);
                IoRecord {
                    arrival: SimTime(t),
                    device: 0,
                    lbn: rng.gen_range(0..cap),
                    blocks: 1,
                    write: rng.gen_bool(writes),
                    content: Vec::new(),
                }
            })
            .collect();
        let mut sum = 0u64;
        let mut done = 0usize;
        engine::run(
            b.root.as_mut(),
            &b.units,
            Source::records(&recs),
            RunOptions::default(),
            &mut |l| {
                sum += l.response_ns();
                done += 1;
            },
        )
        .unwrap();
        assert_eq!(done, n);
        assert_eq!(b.root.outstanding(), 0);
        let mut nodes = Vec::new();
        b.root.report("d", &mut nodes);
        (sum as f64 / n as f64 / 1e6, nodes)
    }

    /// Random reads one at a time, each 20–40 ms after the last (random platter angles).
    fn reads(disk: &str, n: usize, seed: u64) -> (f64, Vec<NodeReport>) {
        run(disk, 1, 0.0, 30_000_000, n, seed)
    }

    fn arms_of(nodes: &[NodeReport]) -> Vec<&NodeReport> {
        nodes.iter().filter(|n| n.is_drive).collect()
    }

    #[test]
    fn one_arm_is_the_drive_itself() {
        for seed in [1u64, 2, 3] {
            let (plain, _) = reads("st34502lw", 300, seed);
            let (one, nodes) = reads("st34502lw:heads-per-surface=1", 300, seed);
            assert_eq!(plain, one, "seed {seed}");
            assert_eq!(arms_of(&nodes).len(), 1);
        }
    }

    #[test]
    fn more_arms_cut_random_read_latency_and_share_the_work() {
        for seed in [1u64, 5, 9] {
            let (one, _) = reads("st34502lw", 600, seed);
            let (two, _) = reads("st34502lw:heads-per-surface=2", 600, seed);
            let (four, nodes) = reads("st34502lw:heads-per-surface=4", 600, seed);
            assert!(
                two < one * 0.9 && four < two * 0.93,
                "seed {seed}: {one} {two} {four}"
            );
            // Every arm served some reads, and each read was served once.
            let arms = arms_of(&nodes);
            assert_eq!(arms.len(), 4);
            assert!(arms.iter().all(|a| a.reads > 50), "seed {seed}: {arms:?}");
            assert_eq!(arms.iter().map(|a| a.reads).sum::<u64>(), 600);
        }
    }

    #[test]
    fn a_write_is_written_once_by_one_arm() {
        for seed in [2u64, 4] {
            let (_, nodes) = run(
                "st34502lw:heads-per-surface=3",
                1,
                1.0,
                30_000_000,
                200,
                seed,
            );
            let arms = arms_of(&nodes);
            assert_eq!(arms.iter().map(|a| a.writes).sum::<u64>(), 200);
            assert!(arms.iter().all(|a| a.writes > 0), "seed {seed}: {arms:?}");
        }
    }

    #[test]
    fn arms_work_at_once_under_a_deep_queue() {
        for seed in [3u64, 8] {
            // A request every 2 ms on average: more than one arm can keep up with.
            let (one, _) = run("st34502lw", 8, 0.3, 2_000_000, 1_500, seed);
            let (three, nodes) = run(
                "st34502lw:heads-per-surface=3",
                8,
                0.3,
                2_000_000,
                1_500,
                seed,
            );
            assert!(three < one / 2.0, "seed {seed}: {one} {three}");
            let arms = arms_of(&nodes);
            assert_eq!(arms.iter().map(|a| a.reads + a.writes).sum::<u64>(), 1_500);
        }
    }

    #[test]
    fn the_arms_sit_evenly_round_the_platters() {
        let p = crate::disk::presets::preset("st34502lw").unwrap();
        let arms: Vec<Drive> = (0..4).map(|_| Drive::new(p.clone()).unwrap()).collect();
        let a = Arms::new("x", arms).unwrap();
        assert_eq!(a.heads_per_surface(), 4);
        // The same sector asked of each arm at the same instant, from the same head
        // position: the waits, modulo a turn, are a quarter turn apart.
        let period = a.arms[0].drive().hdd().period_ns();
        for lbn in [1_000u64, 777_777, 5_000_000] {
            let mut d: Vec<f64> = a
                .arms
                .iter()
                .map(|x| {
                    (x.drive().hdd().read_delay_if_sent(SimTime(0), lbn) as f64).rem_euclid(period)
                        / period
                })
                .collect();
            d.sort_by(f64::total_cmp);
            for i in 1..4 {
                assert!((d[i] - d[i - 1] - 0.25).abs() < 0.01, "{lbn}: {d:?}");
            }
        }
    }
}
