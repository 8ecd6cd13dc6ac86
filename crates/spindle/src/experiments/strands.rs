//! Strands of small requests issued together to the drive's SPTF queue (proximal I/O
//! paper §2.3, Table 1 and Figure 1: PROX-T1, PROX-F1).
//!
//! A strand is `n` small requests near a random location, all queued at once in
//! ascending LBN order; the drive's firmware reorders them. The strand's response time
//! runs from the moment they are queued to the last completion. Four placements:
//!
//! * semi-sequential — request k+1 on the next track, rotated past request k by the
//!   track-to-track positioning time plus one request's transfer (catalog ambiguity P5);
//! * track-approximate — uniformly random within 1,024 LBNs;
//! * proximal — uniformly random within 100,000 LBNs (ambiguity P2), reads and writes.
//!
//! Before each strand the head is sent to a random place by one untimed random read and
//! the host idles a random fraction of a revolution, so the strand's first request pays
//! an average seek and a random rotational latency, as on the paper's test rig.

use super::random_io::random_io;
use super::Check;
use crate::disk::drive::Drive;
use crate::disk::hdd::{DiskError, Hdd, HeadPos};
use crate::disk::params::{DiskParams, FirmwarePolicy};
use crate::engine::{self, RunOptions, Source, Units};
use crate::node::Device;
use crate::sched::SchedulerKind;
use crate::stack::drive_node::DriveNode;
use crate::stack::metrics::RequestLog;
use crate::stack::queue::{QueueNode, QueueSpec};
use crate::time::SimTime;
use crate::trace::IoRecord;
use rand::seq::index::sample;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    SemiSequential,
    TrackApproximate,
    Proximal,
    ProximalWrite,
}

impl Placement {
    pub const ALL: [Placement; 4] = [
        Placement::SemiSequential,
        Placement::TrackApproximate,
        Placement::Proximal,
        Placement::ProximalWrite,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Placement::SemiSequential => "semi-sequential",
            Placement::TrackApproximate => "track-approximate",
            Placement::Proximal => "proximal read",
            Placement::ProximalWrite => "proximal write",
        }
    }

    fn write(self) -> bool {
        self == Placement::ProximalWrite
    }

    /// Table 1 of the paper: strand response time (ms) at 2, 4, 6, 8 requests.
    pub fn paper_table1(self) -> [f64; 4] {
        match self {
            Placement::SemiSequential => [5.9, 7.3, 8.6, 9.9],
            Placement::TrackApproximate => [7.4, 10.8, 13.9, 17.0],
            Placement::Proximal => [7.4, 11.2, 14.2, 17.1],
            Placement::ProximalWrite => [8.6, 12.9, 16.8, 20.4],
        }
    }
}

/// The order in which the host hands a strand's requests to the drive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IssueOrder {
    /// Ascending LBN (the paper's workaround, §2.5; all its strand numbers use it).
    #[default]
    Ascending,
    /// A uniformly random permutation (drawn from its own RNG stream, so the strands'
    /// placements are the same as with ascending issue).
    Random,
}

#[derive(Clone, Debug)]
pub struct StrandConfig {
    pub sizes: Vec<usize>,
    pub placements: Vec<Placement>,
    pub trials: usize,
    /// Request size in 512-byte sectors (the paper says "small"; 4 KiB assumed).
    pub blocks: u32,
    pub track_span: u64,
    pub proximal_span: u64,
    pub issue: IssueOrder,
    /// How the strand reaches the drive. `false` (the paper's setup, §2.5: "issued to a
    /// non-empty disk queue"): the drive holds the whole strand before it starts, so its
    /// SPTF chooses the first request too. `true`: the requests reach an idle drive one
    /// by one and it starts the first as it arrives, so only the rest are reordered.
    pub empty_queue: bool,
    pub seed: u64,
}

impl Default for StrandConfig {
    fn default() -> Self {
        StrandConfig {
            sizes: (1..=8).collect(),
            placements: Placement::ALL.to_vec(),
            trials: 2000,
            blocks: 8,
            track_span: 1024,
            proximal_span: 100_000,
            issue: IssueOrder::Ascending,
            empty_queue: false,
            seed: 1,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct StrandRow {
    pub placement: Placement,
    pub requests: usize,
    pub mean_strand_ms: f64,
    pub var_strand_ms2: f64,
    pub per_request_ms: f64,
    /// Per-request time over the drive's single random request time (1 OP).
    pub per_request_op: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct StrandReport {
    pub disk: String,
    pub seed: u64,
    pub trials: usize,
    pub blocks: u32,
    /// Simulated QD-1 random read and write times (1 OP).
    pub op_read_ms: f64,
    pub op_write_ms: f64,
    pub rows: Vec<StrandRow>,
    pub checks: Vec<Check>,
}

/// Runs every (placement, size) cell.
pub fn strand_table(params: &DiskParams, cfg: &StrandConfig) -> Result<StrandReport, DiskError> {
    let op_read = random_io(params, 4000, cfg.blocks, false, cfg.seed)?.mean_ms;
    let op_write = random_io(params, 4000, cfg.blocks, true, cfg.seed)?.mean_ms;
    let max_n = cfg.sizes.iter().copied().max().unwrap_or(1).max(1);
    let mut p = params.clone();
    p.firmware.policy = FirmwarePolicy::Sptf;
    p.firmware.queue_depth = p.firmware.queue_depth.max(max_n as u32);
    let mut rows = Vec::new();
    for (pi, &placement) in cfg.placements.iter().enumerate() {
        let mut stack = strand_stack_with(p.clone(), !cfg.empty_queue)?;
        for &n in &cfg.sizes {
            let seed = cfg.seed ^ ((pi as u64) << 32) ^ n as u64;
            let times = run_cell(&mut stack, placement, n, cfg, seed)?;
            let m = times.iter().sum::<f64>() / times.len().max(1) as f64;
            let var =
                times.iter().map(|t| (t - m) * (t - m)).sum::<f64>() / times.len().max(1) as f64;
            let op = if placement.write() { op_write } else { op_read };
            rows.push(StrandRow {
                placement,
                requests: n,
                mean_strand_ms: m,
                var_strand_ms2: var,
                per_request_ms: m / n as f64,
                per_request_op: m / n as f64 / op,
            });
        }
    }
    let checks = table1_checks(&rows, op_read, op_write);
    Ok(StrandReport {
        disk: params.name.clone(),
        seed: cfg.seed,
        trials: cfg.trials,
        blocks: cfg.blocks,
        op_read_ms: op_read,
        op_write_ms: op_write,
        rows,
        checks,
    })
}

/// One simulated strand.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StrandSample {
    /// Response time: from queueing the strand to its last completion, ms.
    pub time_ms: f64,
    /// The first-served request's command overhead, seek and rotational latency: the
    /// time before the strand's first data transfer, ms.
    pub lead_ms: f64,
    /// Revolutions the strand used: ⌈(time − lead) / T_rev⌉, the number of turns from
    /// the start of the first data transfer to the last completion (10 µs of slack for
    /// the completion overhead). A strand whose requests all pass under the head within
    /// one turn counts 1 — the birthday model's max load (App. A), which counts the
    /// revolutions after the initial rotational latency.
    pub revolutions: u32,
}

/// The stack a strand runs on: a drive with parameters `p` behind the host's FCFS
/// queue, which keeps as many requests at the drive as its firmware queue holds and
/// hands over together all it sends at one instant (`batch_submit`), so the SPTF
/// firmware sees a whole strand (up to its depth) before it starts; the rest wait at
/// the host in issue order and enter as slots free.
pub fn strand_stack(p: DiskParams) -> Result<QueueNode, DiskError> {
    strand_stack_with(p, true)
}

/// A [`strand_stack`] whose host hands over a strand together (`batch`) or one
/// request at a time, each free to start as it arrives (an idle drive then starts the
/// first before it sees the rest).
fn strand_stack_with(p: DiskParams, batch: bool) -> Result<QueueNode, DiskError> {
    let depth = p.firmware.queue_depth.max(1);
    let name = p.name.clone();
    let drive = DriveNode::new(Drive::new(p)?, name);
    QueueSpec {
        depth,
        batch_submit: batch,
        ..QueueSpec::new(SchedulerKind::Fcfs)
    }
    .build(Box::new(drive), 0)
    .map_err(DiskError::Param)
}

/// The drive of a [`strand_stack`].
fn strand_hdd(stack: &QueueNode) -> &Hdd {
    stack
        .device()
        .oracle()
        .expect("a strand stack is a queue over one drive")
}

/// Issues `lbns` (`blocks` sectors each, in this order) to `stack` all at `at` and runs
/// them on the engine; their logs in completion order.
fn run_strand(
    stack: &mut QueueNode,
    at: SimTime,
    lbns: &[u64],
    blocks: u32,
    write: bool,
) -> Result<Vec<RequestLog>, DiskError> {
    let recs: Vec<IoRecord> = lbns
        .iter()
        .map(|&lbn| IoRecord {
            arrival: at,
            device: 0,
            lbn,
            blocks,
            write,
            content: Vec::new(),
        })
        .collect();
    let units = Units::single(stack.capacity());
    let mut done = Vec::with_capacity(recs.len());
    engine::run(
        stack,
        &units,
        Source::records(&recs),
        RunOptions::default(),
        &mut |l| done.push(*l),
    )
    .map_err(|e| DiskError::Param(e.to_string()))?;
    Ok(done)
}

/// Strand response times (ms) of `cfg.trials` strands of `n` requests.
pub(crate) fn run_cell(
    stack: &mut QueueNode,
    placement: Placement,
    n: usize,
    cfg: &StrandConfig,
    seed: u64,
) -> Result<Vec<f64>, DiskError> {
    Ok(run_samples(stack, placement, n, cfg, seed)?
        .into_iter()
        .map(|s| s.time_ms)
        .collect())
}

/// `cfg.trials` strands of `n` requests on `stack` (a [`strand_stack`]), issued in
/// `cfg.issue` order.
pub fn run_samples(
    stack: &mut QueueNode,
    placement: Placement,
    n: usize,
    cfg: &StrandConfig,
    seed: u64,
) -> Result<Vec<StrandSample>, DiskError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Issue-order shuffles draw from their own stream so placements do not depend on it.
    let mut order_rng = ChaCha8Rng::seed_from_u64(seed ^ 0x15_5E_0D_E8);
    let cap = strand_hdd(stack).capacity();
    let b = cfg.blocks.max(1) as u64;
    let period = strand_hdd(stack).period_ns() as u64;
    let mut t = SimTime::ZERO;
    let mut out = Vec::with_capacity(cfg.trials);
    for _ in 0..cfg.trials {
        // Send the head somewhere random, then idle a random phase.
        let away = rng.gen_range(0..cap / b) * b;
        let r = run_strand(stack, t, &[away], cfg.blocks, false)?;
        t = r.last().map(|c| c.done).unwrap_or(t) + 20_000_000 + rng.gen_range(0..period.max(1));

        let span = match placement {
            Placement::TrackApproximate => cfg.track_span,
            _ => cfg.proximal_span,
        };
        let base = rng.gen_range(0..(cap.saturating_sub(span.max(b * n as u64 * 4))) / b) * b;
        let lbns = match placement {
            Placement::SemiSequential => semi_sequential(strand_hdd(stack), base, n, cfg.blocks),
            _ => {
                let slots = (span / b) as usize;
                let mut v: Vec<u64> = sample(&mut rng, slots.max(n), n)
                    .into_iter()
                    .map(|i| base + i as u64 * b)
                    .collect();
                v.sort_unstable();
                v
            }
        };
        let mut lbns = lbns;
        if cfg.issue == IssueOrder::Random {
            lbns.shuffle(&mut order_rng);
        }
        let done = run_strand(stack, t, &lbns, cfg.blocks, placement.write())?;
        let end = done.iter().map(|c| c.done).max().unwrap_or(t);
        // The first completion is the first request served (one mechanism).
        let lead_ns = done
            .first()
            .map(|c| {
                let b = c.breakdown;
                (c.start.0 - t.0) + b.overhead_ns + b.seek_ns + b.rotation_ns
            })
            .unwrap_or(0);
        let total_ns = end.0 - t.0;
        let sweep_ns = total_ns.saturating_sub(lead_ns).saturating_sub(10_000);
        out.push(StrandSample {
            time_ms: total_ns as f64 / 1e6,
            lead_ms: lead_ns as f64 / 1e6,
            revolutions: (sweep_ns as f64 / period as f64).ceil().max(1.0) as u32,
        });
        t = end;
    }
    Ok(out)
}

/// `n` requests from `start`, each on the next track, placed so the head arrives from
/// the previous request just as the next one comes round.
fn semi_sequential(hdd: &Hdd, start: u64, n: usize, blocks: u32) -> Vec<u64> {
    let geo = hdd.geometry();
    let mut out = vec![start];
    let mut prev = start;
    for _ in 1..n {
        let (Some(ploc), Some((_, last))) = (geo.locate(prev), geo.track_bounds(prev)) else {
            break;
        };
        let first = last + 1;
        let (Some(nloc), Some((_, nlast))) = (geo.locate(first), geo.track_bounds(first)) else {
            break;
        };
        let from = HeadPos {
            cyl: ploc.pbn.cyl,
            head: ploc.pbn.head,
        };
        // The minimal repositioning time: the track switch, or the firmware's command
        // turnaround if that is longer.
        let seek_ns = hdd
            .positioning_time(from, SimTime::ZERO, first, false)
            .map(|(s, _)| s)
            .unwrap_or(0)
            .max(hdd.turnaround_ns());
        let spt = nloc.spt as u64;
        let sector_ns = hdd.period_ns() / spt as f64;
        // One sector of margin so rounding never turns "just in time" into a lost turn.
        let offset = (seek_ns as f64 / sector_ns).ceil() as u64 + 1 + blocks as u64;
        let target = (ploc.angle_sectors as u64 * spt / ploc.spt as u64 + offset) % spt;
        let s = (target + spt - nloc.angle_sectors as u64) % spt;
        let s = s.min((nlast - first + 1).saturating_sub(blocks as u64));
        prev = first + s;
        out.push(prev);
    }
    out
}

/// PROX-T1 / PROX-F1 acceptance checks from whatever rows were run.
fn table1_checks(rows: &[StrandRow], op_read: f64, op_write: f64) -> Vec<Check> {
    let mut checks = vec![
        Check::relative(
            "PROX-EQ1",
            "single random 4 KiB read, ms",
            5.6,
            op_read,
            0.10,
        ).consistency("A second measurement of the number DISK-C15K5 checks (random 4 KiB read at queue depth 1), taken here as the strand's unit of cost (1 OP)."),
        Check::relative(
            "PROX-EQ1",
            "single random 4 KiB write, ms",
            5.8,
            op_write,
            0.10,
        ).consistency("A second measurement of the number DISK-C15K5 checks (random 4 KiB write at queue depth 1)."),
    ];
    let find = |p: Placement, n: usize| rows.iter().find(|r| r.placement == p && r.requests == n);
    for p in Placement::ALL {
        for (i, n) in [2usize, 4, 6, 8].into_iter().enumerate() {
            if let Some(r) = find(p, n) {
                checks.push(Check::relative(
                    "PROX-T1",
                    &format!("{} strand of {n}, ms", p.label()),
                    p.paper_table1()[i],
                    r.mean_strand_ms,
                    0.10,
                ));
            }
        }
    }
    if let Some(r) = find(Placement::Proximal, 8) {
        checks.push(Check::absolute(
            "PROX-F1",
            "proximal per-request cost at 8, OP",
            0.39,
            r.per_request_op,
            0.05,
        ));
    }
    if let Some(r) = find(Placement::SemiSequential, 8) {
        checks.push(Check::absolute(
            "PROX-F1",
            "semi-sequential per-request cost at 8, OP",
            0.23,
            r.per_request_op,
            0.03,
        ));
    }
    if let (Some(w), Some(r)) = (
        find(Placement::ProximalWrite, 8),
        find(Placement::Proximal, 8),
    ) {
        checks.push(Check::absolute(
            "PROX-T1",
            "proximal write/read strand ratio at 8",
            1.19,
            w.mean_strand_ms / r.mean_strand_ms,
            0.06,
        ));
    }
    checks
}

/// PROX-F2: a proximal strand of `n` reads with only `depth` of them outstanding at the
/// drive at a time; the rest wait at the host in ascending LBN order and enter as
/// slots free (catalog ambiguity P6). Returns the mean per-request time (ms) and the
/// strand times, per depth.
pub fn queue_depth_sweep(
    params: &DiskParams,
    n: usize,
    depths: &[u32],
    trials: usize,
    seed: u64,
) -> Result<Vec<(u32, f64, Vec<f64>)>, DiskError> {
    Ok(queue_depth_samples(params, n, depths, trials, seed)?
        .into_iter()
        .map(|(q, samples)| {
            let times: Vec<f64> = samples.iter().map(|s| s.time_ms).collect();
            let m = times.iter().sum::<f64>() / times.len().max(1) as f64;
            (q, m / n as f64, times)
        })
        .collect())
}

/// [`queue_depth_sweep`]'s strands with their details, per depth (PROX-F2, PROX-F3).
pub fn queue_depth_samples(
    params: &DiskParams,
    n: usize,
    depths: &[u32],
    trials: usize,
    seed: u64,
) -> Result<Vec<(u32, Vec<StrandSample>)>, DiskError> {
    let cfg = StrandConfig {
        trials,
        seed,
        ..StrandConfig::default()
    };
    let mut out = Vec::new();
    for &q in depths {
        let samples = strand_samples(
            params,
            FirmwarePolicy::Sptf,
            q,
            Placement::Proximal,
            n,
            &cfg,
            seed ^ 0xF2,
        )?;
        out.push((q, samples));
    }
    Ok(out)
}

/// `cfg.trials` strands of `n` requests with `placement`, issued in `cfg.issue` order
/// to a fresh drive whose firmware runs `policy` with at most `depth` requests
/// outstanding (the rest wait at the host in issue order and enter as slots free).
pub fn strand_samples(
    params: &DiskParams,
    policy: FirmwarePolicy,
    depth: u32,
    placement: Placement,
    n: usize,
    cfg: &StrandConfig,
    seed: u64,
) -> Result<Vec<StrandSample>, DiskError> {
    let mut p = params.clone();
    p.firmware.policy = policy;
    p.firmware.queue_depth = depth.max(1);
    let mut stack = strand_stack(p)?;
    run_samples(&mut stack, placement, n, cfg, seed)
}
