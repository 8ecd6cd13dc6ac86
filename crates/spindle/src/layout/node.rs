//! A layout engine over a RAID-4 of drives as one stack device (`[layout]` in a run
//! configuration): the DLE with its flash staging area, or the update-in-place and
//! write-anywhere baselines, over a RAID-4 that stores real bytes, each member a host
//! queue (any scheduler) over a drive.
//!
//! Addresses: the device's sectors are cut into 16 MB extents of the volume, each
//! created when first touched. Requests are served one at a time in arrival order: a
//! request's flash and disk work runs, through the engine's stepper, to its end
//! before the next starts (the layout engine's interface is synchronous, as the
//! paper's prototype served requests), so while it serves, nothing else can reach
//! its members and its future is its own to simulate.

use super::config::LayoutConfig;
use super::dle::{Dle, DleConfig, DleError};
use crate::array::{ios_per_revolution, ArrayError, BatchReport, Raid4, Raid4Config};
use crate::disk::hdd::Request;
use crate::disk::params::DiskParams;
use crate::flash::presets::preset as flash_preset;
use crate::node::{tree_line, Device, Done, NodeReport};
use crate::stack::queue::QueueSpec;
use crate::store::{block_from, SECTORS_PER_BLOCK};
use crate::time::SimTime;
use rustc_hash::FxHashSet;
use std::collections::VecDeque;

/// Blocks per extent (16 MB) when the device's address space is cut into extents (a
/// volume smaller than that is one extent of its own size).
const EXTENT_BLOCKS: u64 = 4096;

/// What the RAID write batches did, summed as they happen (PROX-T2's columns).
#[derive(Clone, Copy, Debug, Default)]
struct BatchTotals {
    batches: u64,
    user_writes: u64,
    disk_ios: u64,
    /// Sum of batch response times, ms.
    resp_ms: f64,
    /// Sums over batches of the data disks' I/Os (the disks that did any) and the
    /// parity disk's, with how many (batch, disk) pairs each sums.
    data_ios: u64,
    data_disks: u64,
    parity_ios: u64,
    parity_disks: u64,
}

impl BatchTotals {
    fn add(&mut self, b: &BatchReport) {
        self.batches += 1;
        self.user_writes += b.user_writes;
        self.disk_ios += b.disk_ios();
        self.resp_ms += b.response_ms();
        let parity = b.disks.len().saturating_sub(1);
        for (i, d) in b.disks.iter().enumerate().filter(|(_, d)| d.ios() > 0) {
            if i == parity {
                self.parity_ios += d.ios();
                self.parity_disks += 1;
            } else {
                self.data_ios += d.ios();
                self.data_disks += 1;
            }
        }
    }

    /// PROX-T2's I/Os per revolution on the batches' means.
    fn ios_per_revolution(&self, rev_ms: f64) -> f64 {
        let mean = |sum: u64, n: u64| sum as f64 / n.max(1) as f64;
        ios_per_revolution(
            mean(self.data_ios, self.data_disks),
            mean(self.parity_ios, self.parity_disks),
            self.resp_ms / self.batches.max(1) as f64,
            rev_ms,
        )
    }
}

/// The layout engine and its array as a device.
pub struct LayoutNode {
    dle: Dle,
    cfg: LayoutConfig,
    disk: String,
    /// Extents the device's addresses map onto.
    extents: u64,
    /// Blocks per extent: [`EXTENT_BLOCKS`], or the whole volume if it is smaller.
    extent_blocks: u64,
    created: FxHashSet<u32>,
    waiting: VecDeque<Request>,
    /// The request being served: (request, start, done).
    serving: Option<(Request, SimTime, SimTime)>,
    /// Requests served so far (numbers the contents of written blocks).
    served: u64,
    reads: u64,
    writes: u64,
    busy_ns: u64,
    batches: BatchTotals,
    rev_ms: f64,
    /// Requests the layout engine refused, and the first reason.
    errors: u64,
    first_error: Option<String>,
    /// An internal error (a breach of the simulation's invariants) stopped the node:
    /// it serves nothing more and the run ends with this as its error.
    failed: Option<String>,
}

impl LayoutConfig {
    /// The layout engine this table describes over a RAID-4 of `disk`, each member
    /// behind a host queue built from `member_queue`.
    pub fn build(&self, disk: DiskParams, member_queue: QueueSpec) -> Result<LayoutNode, String> {
        self.validate()?;
        let range = self.allocation_range_kib / 4;
        let raid_cfg = Raid4Config {
            data_disks: self.data_disks,
            stripe_unit_blocks: range,
            max_outstanding: member_queue.depth as usize,
            sync_writes: self.sync_writes,
            data: self.data,
            ..Raid4Config::default()
        };
        let rev_ms = 60_000.0 / disk.mech.rpm;
        let name = disk.name.clone();
        let raid = Raid4::with_member_queue(disk, raid_cfg, member_queue).map_err(|e| match e {
            // The allocation range is the RAID-4's stripe unit: name the key that set it.
            ArrayError::StripeUnitTooLarge {
                disk, data_blocks, ..
            } => format!(
                "layout.allocation-range-kib = {} is more than a {disk} member's {} KiB of data: each range is one stripe unit of the RAID-4",
                self.allocation_range_kib,
                data_blocks * 4
            ),
            e => e.to_string(),
        })?;
        let mut volume = raid.layout().volume_blocks();
        let mut managed = 0;
        if let Some(mib) = self.volume_mib {
            let blocks = mib * 256;
            if blocks > volume {
                return Err(format!(
                    "layout.volume-mib = {mib} is more than the RAID-4's data volume ({} MiB)",
                    volume / 256
                ));
            }
            (volume, managed) = (blocks, blocks);
        }
        let dle_cfg = DleConfig {
            policy: self.kind,
            staging_blocks: (self.staging_fraction() * volume as f64).round() as u64,
            small_write_blocks: self.threshold_kib.div_ceil(4),
            range_blocks: range,
            volume_blocks: managed,
            ..DleConfig::default()
        };
        let flash = flash_preset(&self.flash).map_err(|e| e.to_string())?;
        let dle = Dle::new(raid, flash, dle_cfg).map_err(|e| e.to_string())?;
        Ok(LayoutNode {
            dle,
            cfg: self.clone(),
            disk: name,
            extents: (volume.min(u64::from(u32::MAX)) / EXTENT_BLOCKS.min(volume).max(1)).max(1),
            extent_blocks: EXTENT_BLOCKS.min(volume).max(1),
            created: FxHashSet::default(),
            waiting: VecDeque::new(),
            serving: None,
            served: 0,
            reads: 0,
            writes: 0,
            busy_ns: 0,
            batches: BatchTotals::default(),
            rev_ms,
            errors: 0,
            first_error: None,
            failed: None,
        })
    }
}

impl LayoutNode {
    /// The layout engine (for its counters).
    pub fn dle(&self) -> &Dle {
        &self.dle
    }

    /// The layout engine and its RAID-4, to drive directly (the layout-engine
    /// experiments: they age and measure it call by call).
    pub fn into_dle(self) -> Dle {
        self.dle
    }

    /// Serves `req` from `now` to its end; returns when it ends, or `None` when an
    /// internal error stopped the node (then the request never completes).
    fn serve(&mut self, now: SimTime, req: Request) -> Option<SimTime> {
        self.dle.raid_mut().idle_until(now);
        let i = self.served;
        self.served += 1;
        match self.layout_io(i, &req) {
            Ok(()) => {}
            Err(DleError::Array(ArrayError::Internal(e))) => {
                self.failed = Some(format!(
                    "layout node, request {}: internal error: {e}",
                    req.id
                ));
                return None;
            }
            Err(e) => {
                // The layout engine refused the request (the volume is full, …): it
                // completes, and the report counts it.
                self.errors += 1;
                self.first_error
                    .get_or_insert(format!("request {}: {e}", req.id));
            }
        }
        for b in std::mem::take(&mut self.dle.batches) {
            self.batches.add(&b);
        }
        Some(self.dle.raid().now().max(self.dle.flash_done).max(now))
    }

    /// The layout engine's reads or writes of `req`, extent by extent.
    fn layout_io(&mut self, i: u64, req: &Request) -> Result<(), DleError> {
        let first = req.lbn / SECTORS_PER_BLOCK;
        let last = (req.lbn + u64::from(req.blocks.max(1)) - 1) / SECTORS_PER_BLOCK;
        let mut b = first;
        while b <= last {
            let size = self.extent_blocks;
            let extent = (b / size) % self.extents;
            let off = b % size;
            let n = (last - b + 1).min(size - off);
            let e = extent as u32;
            if self.created.insert(e) {
                self.dle.create(e, size)?;
            }
            if req.write {
                let data: Vec<_> = (0..n)
                    .map(|k| block_from(format!("request {i} block {}", b + k).as_bytes()))
                    .collect();
                self.dle.write(e, off, &data)?;
            } else {
                self.dle.read(e, off, n)?;
            }
            b += n;
        }
        Ok(())
    }

    fn start_next(&mut self, now: SimTime) {
        if self.serving.is_some() || self.failed.is_some() {
            return;
        }
        if let Some(req) = self.waiting.pop_front() {
            if let Some(done) = self.serve(now, req) {
                self.serving = Some((req, now, done));
            }
        }
    }
}

impl Device for LayoutNode {
    fn capacity(&self) -> u64 {
        self.extents * self.extent_blocks * SECTORS_PER_BLOCK
    }

    fn outstanding(&self) -> usize {
        // A stop leaves the request it stopped on unfinished.
        self.waiting.len() + usize::from(self.serving.is_some() || self.failed.is_some())
    }

    fn can_accept(&self) -> bool {
        true
    }

    fn submit(&mut self, now: SimTime, req: Request) {
        if req.write {
            self.writes += 1;
        } else {
            self.reads += 1;
        }
        self.waiting.push_back(req);
        self.start_next(now);
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.serving.map(|(_, _, done)| done)
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        let Some((req, start, done)) = self.serving.take() else {
            return;
        };
        self.busy_ns += done.0 - start.0;
        out.push(Done::served(req, start, done));
        self.start_next(now);
    }

    fn failure(&self) -> Option<String> {
        self.failed.clone()
    }

    fn describe(&self, depth: usize, out: &mut String) {
        let c = &self.cfg;
        tree_line(
            depth,
            out,
            &format!(
                "layout {} (staging {} % of the volume on {}, small writes below {} KiB, allocation range {} KiB; one request at a time)",
                c.kind.name(), 100.0 * c.staging_fraction(), c.flash, c.threshold_kib, c.allocation_range_kib
            ),
        );
        let raid = self.dle.raid();
        tree_line(
            depth + 1,
            out,
            &format!(
                "raid4 ({}+1 of {}, stripe unit {} KiB, checksum blocks, {}{})",
                c.data_disks,
                self.disk,
                raid.layout().stripe_unit * 4,
                match c.data {
                    crate::store::DataMode::RealBytes => "real bytes",
                    crate::store::DataMode::TimingOnly => "timing only",
                },
                if c.sync_writes {
                    ""
                } else {
                    ", no cache flush after a batch"
                }
            ),
        );
        for m in raid.members() {
            m.node().describe(depth + 2, out);
        }
    }

    fn report_until(&self, path: &str, end: SimTime, out: &mut Vec<NodeReport>) {
        let s = &self.dle.stats;
        let b = &self.batches;
        let n = b.batches.max(1) as f64;
        let mut extra = vec![
            ("staged blocks".to_string(), s.staged_blocks.to_string()),
            ("direct blocks".to_string(), s.direct_blocks.to_string()),
            ("destages".to_string(), s.destages.to_string()),
            ("write batches".to_string(), b.batches.to_string()),
            (
                "user writes per batch".to_string(),
                format!("{:.1}", b.user_writes as f64 / n),
            ),
            (
                "disk I/Os per batch".to_string(),
                format!("{:.1}", b.disk_ios as f64 / n),
            ),
            (
                "amplification".to_string(),
                format!(
                    "{:.2}",
                    b.disk_ios as f64 / (b.user_writes as f64).max(1e-9)
                ),
            ),
            (
                "I/Os per revolution".to_string(),
                format!("{:.2}", b.ios_per_revolution(self.rev_ms)),
            ),
            ("batch ms".to_string(), format!("{:.1}", b.resp_ms / n)),
        ];
        if self.errors > 0 {
            extra.push(("errors".to_string(), self.errors.to_string()));
            if let Some(e) = &self.first_error {
                extra.push(("first error".to_string(), e.clone()));
            }
        }
        out.push(NodeReport {
            path: path.to_string(),
            kind: format!("layout {}", self.cfg.kind.name()),
            reads: self.reads,
            writes: self.writes,
            busy_ns: self.busy_ns,
            extra,
            is_drive: false,
        });
        for (i, m) in self.dle.raid().members().iter().enumerate() {
            m.node()
                .report_until(&format!("{path}/raid4/member {i}"), end, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::RunConfig;
    use crate::engine::{self, RunOptions, Source};
    use crate::node::Device;
    use crate::time::SimTime;
    use crate::trace::IoRecord;

    const WORKLOAD: &str = r#"
[workload.synthetic]
kind = "synthetic"
pattern = { kind = "uniform" }
sizes = { kind = "fixed", sectors = 8 }
read-fraction = 0.5
arrivals = { kind = "poisson", rate-per-s = 50 }
count = 10
"#;

    fn config(rest: &str) -> RunConfig {
        RunConfig::from_toml(&format!("{WORKLOAD}{rest}"), "test.toml").unwrap()
    }

    /// Single-block writes to a few places, then reads of them, 5 ms apart.
    fn records(n: u64) -> Vec<IoRecord> {
        (0..n)
            .map(|i| IoRecord {
                arrival: SimTime(i * 5_000_000),
                device: 0,
                lbn: (i % 7) * 1_000_000 + 2_048 * (i % 3),
                blocks: 8,
                write: i < n / 2,
                content: Vec::new(),
            })
            .collect()
    }

    /// Runs `records` through the stack; returns the completions in order.
    fn run(c: &RunConfig, recs: &[IoRecord]) -> (Vec<(u64, u64)>, String) {
        let mut b = c.build().unwrap();
        let mut done = Vec::new();
        engine::run(
            b.root.as_mut(),
            &b.units,
            Source::records(recs),
            RunOptions::default(),
            &mut |l| done.push((l.id, l.done.0)),
        )
        .unwrap();
        let mut reports = Vec::new();
        b.root.report("stack", &mut reports);
        let text = reports
            .iter()
            .map(|r| {
                format!(
                    "{} {} {} {} {:?}\n",
                    r.path, r.kind, r.reads, r.writes, r.extra
                )
            })
            .collect();
        (done, text)
    }

    /// The update-in-place layout over a RAID-4 of small drives serves every request
    /// once, one at a time in arrival order, and its members (host queues over drives)
    /// do the work; the same stack twice gives the same run.
    #[test]
    fn a_layout_stack_serves_every_request_once_in_order() {
        let c = config("[layout]\nkind = \"update-in-place\"\n[[disks]]\ndisk = \"hp-c2249a\"\n");
        let recs = records(40);
        let (done, report) = run(&c, &recs);
        assert_eq!(done.len(), recs.len());
        let ids: Vec<u64> = done.iter().map(|d| d.0).collect();
        assert_eq!(ids, (0..recs.len() as u64).collect::<Vec<_>>());
        assert!(done.windows(2).all(|w| w[0].1 <= w[1].1));
        // Every write updates parity and a data member.
        let busy: Vec<bool> = (0..5)
            .map(|m| {
                let line = report
                    .lines()
                    .find(|l| l.starts_with(&format!("stack/raid4/member {m}/device ")))
                    .unwrap();
                !line.contains(" 0 0 ")
            })
            .collect();
        assert!(busy[4], "{report}");
        assert!(busy[..4].iter().any(|&b| b), "{report}");
        assert_eq!(run(&c, &recs), (done, report));
    }

    /// Each member's scheduler comes from the `[device]` RAID-4 (here SMTF), and the
    /// DLE stages small writes on flash instead of writing the RAID-4.
    #[test]
    fn the_dle_runs_over_a_raid4_with_a_scheduler_per_member() {
        let c = config(
            "[layout]\nkind = \"dle\"\n[device]\nkind = \"raid4\"\ncount = 5\n\
             [device.member]\nkind = \"disk\"\ndisk = \"hp-c2249a\"\n\
             [device.member.scheduler]\nkind = \"smtf\"\nqueue-depth = 8\n",
        );
        let tree = c.describe_stack().unwrap();
        assert_eq!(tree.matches("queue smtf").count(), 5, "{tree}");
        let (done, report) = run(&c, &records(20));
        assert_eq!(done.len(), 20);
        assert!(report.contains("(\"staged blocks\", \"10\")"), "{report}");
    }

    /// An internal error inside the RAID-4 (its members breaking the engine's time
    /// invariant) stops the node: the run ends with that error, naming it, instead
    /// of a panic. (The DLE's small writes go to flash, so it is the baselines that
    /// reach the array here.)
    #[test]
    fn an_internal_error_in_the_array_is_a_run_error() {
        for kind in ["update-in-place", "write-anywhere"] {
            let c = config(&format!(
                "[layout]\nkind = \"{kind}\"\n[[disks]]\ndisk = \"hp-c2249a\"\n"
            ));
            let mut node = c.layout_stack().unwrap();
            let units = crate::node::Units::single(node.capacity());
            let recs = records(40);
            let run = |node: &mut super::LayoutNode| {
                let mut done = 0;
                let r = engine::run(
                    node,
                    &units,
                    Source::records(&recs),
                    RunOptions::default(),
                    &mut |_| done += 1,
                );
                (r.err().map(|e| e.to_string()), done)
            };
            let (healthy, done) = run(&mut c.layout_stack().unwrap());
            assert_eq!((healthy, done), (None, recs.len()), "{kind}");
            node.dle.raid_mut().break_clock = true;
            let (e, done) = run(&mut node);
            let e = e.unwrap_or_default();
            assert!(
                e.contains("the stack stopped") && e.contains("internal error"),
                "{kind}: {e}"
            );
            assert!(done < recs.len(), "{kind}");
            assert!(node.failure().is_some(), "{kind}");
            assert_eq!(node.outstanding(), recs.len() - done, "{kind}");
        }
    }

    /// `volume-mib` bounds the managed volume (and the staging area is a share of
    /// it); more than the array holds, or zero, is refused naming the key;
    /// `data` and `sync-writes` reach the RAID-4.
    #[test]
    fn the_volume_data_and_flush_keys_reach_the_engine() {
        let stack = |extra: &str| {
            config(&format!(
                "[layout]\nkind = \"dle\"\nstaging-pct = 2.0\n{extra}[[disks]]\ndisk = \"hp-c2249a\"\n"
            ))
        };
        let whole = stack("").layout_stack().unwrap();
        let part = stack("volume-mib = 64\ndata = \"timing-only\"\nsync-writes = false\n")
            .layout_stack()
            .unwrap();
        let (w, p) = (whole.dle(), part.dle());
        assert_eq!(p.config().volume_blocks, 64 * 256);
        assert_eq!(
            p.config().staging_blocks,
            (0.02 * 64.0 * 256.0f64).round() as u64
        );
        assert_eq!(w.config().volume_blocks, 0);
        assert!(w.config().staging_blocks > p.config().staging_blocks);
        assert_eq!(p.raid().config().data, crate::store::DataMode::TimingOnly);
        assert!(!p.raid().config().sync_writes && w.raid().config().sync_writes);
        assert_eq!(part.capacity(), 4 * 4096 * 8);
        // A volume smaller than one extent offers its own size, no more.
        let tiny = stack("volume-mib = 8\n").layout_stack().unwrap();
        assert_eq!(tiny.capacity(), 8 * 256 * 8);
        let tree = stack("data = \"timing-only\"\nsync-writes = false\n")
            .describe_stack()
            .unwrap();
        assert!(tree.contains("timing only, no cache flush"), "{tree}");
        // The timing-only stack serves a workload like the real one.
        let small: Vec<IoRecord> = records(20)
            .into_iter()
            .map(|r| IoRecord {
                lbn: r.lbn % (64 * 2048 - 8),
                ..r
            })
            .collect();
        let (done, _) = run(&stack("volume-mib = 64\ndata = \"timing-only\"\n"), &small);
        assert_eq!(done.len(), 20);
        for (bad, key) in [
            ("volume-mib = 0\n", "volume-mib"),
            ("volume-mib = 100000000\n", "volume-mib"),
            ("data = \"paper\"\n", "data"),
        ] {
            let e = RunConfig::from_toml(
                &format!(
                    "{WORKLOAD}[layout]\nkind = \"dle\"\n{bad}[[disks]]\ndisk = \"hp-c2249a\"\n"
                ),
                "test.toml",
            )
            .map_err(|e| e.to_string())
            .and_then(|c| c.build().map(|_| ()).map_err(|e| e.to_string()))
            .err()
            .unwrap_or_default();
            assert!(e.contains(key), "{bad}: {e}");
        }
    }

    /// A layout over anything but a RAID-4 of the right size, identical drives and the
    /// layout's stripe unit is refused before the run, saying why.
    #[test]
    fn a_layout_over_the_wrong_array_is_refused() {
        let member = "[device.member]\nkind = \"disk\"\ndisk = \"hp-c2249a\"\n";
        for (device, why) in [
            ("kind = \"raid5\"\ncount = 5\n", "RAID-4"),
            (
                "kind = \"raid4\"\ncount = 3\n",
                "needs a RAID-4 of 5 members",
            ),
            (
                "kind = \"raid4\"\ncount = 5\nstripe-kib = 64\n",
                "stripe unit",
            ),
        ] {
            let c = config(&format!(
                "[layout]\nkind = \"dle\"\n[device]\n{device}{member}"
            ));
            let e = c.build().err().unwrap().to_string();
            assert!(e.contains(why) && e.contains("test.toml"), "{device}: {e}");
        }
    }
}
