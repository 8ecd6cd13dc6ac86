//! RAID-5 and RAID-Mimic (thesis ch. 6): I/O counts per write pattern on a
//! left-asymmetric RAID-5 (RAID5-F6.1) and on-line stripe discovery (RAID5-F6.3).
//! Both build their stacks from the same TOML a user writes (`[device]`, `[[layer]]`).

use super::options::RunOpts;
use super::{Check, StackToml};
use crate::engine::{self, RequestLog, RunOptions, Source};
use crate::layers::LayerSpec;
use crate::node::{Device, NodeReport};
use crate::report::{ExperimentOutput, Plot, PlotKind, Series, Table};
use crate::stack::layer::LayerNode;
use crate::stack::queue::SchedulerConfig;
use crate::stack::raid_mimic::{pick_stripe, Findings, StripeRule};
use crate::stack::tree::build;
use crate::time::SimTime;
use crate::trace::IoRecord;
use rand::{Rng, SeedableRng};
use std::fmt::Write as _;

/// The thesis's array (§6.4): an Adaptec 2200S RAID-5, left asymmetric, 3 data disks,
/// 16 KB chunk (48 KB stripe), IBM 9LZX disks — here `mimic-9lzx`, the same model of
/// the 9LZX that chapter 5's experiments use (SCSI Disk 1: Table 3.1's geometry with a
/// real drive's command overheads). The overhead-free `mimic-base` streams back-to-back
/// writes without a missed rotation, which the thesis's own Figure 5.1 shows the 9LZX
/// does not do (6.13 ms for each sequential 4 KB synchronous write).
const THESIS_RAID5: &str = "[device]\nkind = \"raid5\"\ncount = 4\nstripe-kib = 16\n\
    parity-layout = \"left-asymmetric\"\n[device.member]\nkind = \"disk\"\ndisk = \"mimic-9lzx\"\n";

/// Runs `recs` open-loop on `root`; the request logs and every node's report.
fn run(
    root: &mut dyn Device,
    b_units: &crate::node::Units,
    recs: &[IoRecord],
) -> Result<(Vec<RequestLog>, Vec<NodeReport>), String> {
    let mut logs = Vec::new();
    engine::run(
        root,
        b_units,
        Source::records(recs),
        RunOptions::default(),
        &mut |l| logs.push(*l),
    )
    .map_err(|e| e.to_string())?;
    let mut nodes = Vec::new();
    root.report("stack", &mut nodes);
    Ok((logs, nodes))
}

fn extra(n: &NodeReport, key: &str) -> u64 {
    n.extra
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
}

/// RAID5-F6.1: member I/Os per write pattern on the thesis's left-asymmetric array.
pub fn raid5_f6_1(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let mut out = ExperimentOutput::new(
        "RAID5-F6.1",
        "RAID-5 left-asymmetric layout and I/O counts per write pattern (Figure 6.1)",
        "The thesis's array as a stack ([device] kind = \"raid5\", 4 members of the mimic-9lzx \
         model of the IBM 9LZX, stripe-kib = 16, parity-layout = \"left-asymmetric\"). Blocks are numbered \
         from 1 as in Figure 6.1, one block per 16 KiB chunk; each pattern runs alone on a fresh \
         array (requests 50 ms apart, so none overlap) and the array's own counters give the \
         member reads and writes.\n\n\
         The thesis does not say how its controller updates parity; the simulated RAID-5 does the standard read-modify-write: a \
         write covering part of a stripe reads the old data and the old parity, then writes \
         both, so one small write costs 4 member I/Os. The thesis counts only the parity read \
         and the parity write as extra (2); the old-data read is the third extra I/O, reported \
         apart. A write covering whole stripes reads nothing and writes the data and one parity \
         chunk per stripe.",
        o.seed,
    );
    let stack = StackToml::parse(THESIS_RAID5)?;
    let chunk = 32u64; // sectors (16 KiB)
    let ndata = 3u64;
    // Figure 6.1's layout: which member holds each block and parity of the first rows.
    let mut layout = Table::new(&["row", "member 0", "member 1", "member 2", "member 3"]);
    let members = 4u64;
    for row in 0..4u64 {
        let mut cells = vec![String::new(); members as usize];
        for k in 0..ndata {
            let (m, p) = crate::stack::array::ParityLayout::LeftAsymmetric.place(members, row, k);
            cells[m] = format!("{}", row * ndata + k + 1);
            cells[p] = format!("P{}", row + 1);
        }
        let mut r = vec![(row + 1).to_string()];
        r.extend(cells);
        layout.rows.push(r);
    }
    let row2 = &layout.rows[1];
    let fig = row2[1] == "4" && row2[2] == "5" && row2[3] == "P2" && row2[4] == "6";
    out.tables.push(layout);
    out.checks.push(
        Check::holds(
            "RAID5-F6.1",
            "blocks 4, 5, 6 form the second stripe with parity P2 (Figure 6.1's layout)",
            fig,
        )
        .consistency("The layout is the array's placement rule read back, not a measurement."),
    );

    // Write patterns: (name, requests as (first block, blocks)).
    let patterns: [(&str, &[(u64, u64)]); 4] = [
        ("update block 5", &[(5, 1)]),
        ("update block 4, then blocks 5+6", &[(4, 1), (5, 2)]),
        ("update blocks 4, 5, 6 at once (whole stripe)", &[(4, 3)]),
        ("update blocks 4..9 at once (two whole stripes)", &[(4, 6)]),
    ];
    let mut t = Table::new(&[
        "pattern",
        "requests",
        "member reads",
        "member writes",
        "parity-member I/Os",
        "read-modify-writes",
        "extra I/Os (beyond data writes)",
        "mean response (ms)",
    ]);
    out.csv = "pattern,requests,member_reads,member_writes,parity_ios,rmw,extra,mean_ms\n".into();
    let mut counts = Vec::new();
    for (name, reqs) in patterns {
        let mut b = StackToml::device(&stack)?;
        let recs: Vec<IoRecord> = reqs
            .iter()
            .enumerate()
            .map(|(i, &(first, n))| IoRecord {
                arrival: SimTime(i as u64 * 50_000_000),
                device: 0,
                lbn: (first - 1) * chunk,
                blocks: (n * chunk) as u32,
                write: true,
                content: Vec::new(),
            })
            .collect();
        let (logs, nodes) = run(b.root.as_mut(), &b.units, &recs)?;
        let raid = nodes
            .iter()
            .find(|n| n.kind == "raid5")
            .ok_or("no raid5 node in the stack")?;
        let reads = extra(raid, "member reads");
        let writes = extra(raid, "member writes");
        let rmw = extra(raid, "read-modify-writes");
        // Parity members of the rows touched: row r's parity is on member 3 - r % 4.
        let parity_members: Vec<usize> = reqs
            .iter()
            .flat_map(|&(first, n)| (first - 1..first - 1 + n).map(|b| b / ndata))
            .map(|row| 3 - (row % 4) as usize)
            .collect();
        let drive_ios = |m: usize| -> u64 {
            nodes
                .iter()
                .filter(|n| n.is_drive && n.path.contains(&format!("member {m}")))
                .map(|n| n.reads + n.writes)
                .sum()
        };
        let mut pm = parity_members.clone();
        pm.sort_unstable();
        pm.dedup();
        let parity_ios: u64 = pm.iter().map(|&m| drive_ios(m)).sum();
        let data_writes: u64 = reqs.iter().map(|r| r.1).sum();
        let extra_ios = reads + writes - data_writes;
        let mean = logs.iter().map(|l| l.response_ns()).sum::<u64>() as f64
            / logs.len().max(1) as f64
            / 1e6;
        t.rows.push(vec![
            name.into(),
            reqs.len().to_string(),
            reads.to_string(),
            writes.to_string(),
            parity_ios.to_string(),
            rmw.to_string(),
            extra_ios.to_string(),
            format!("{mean:.3}"),
        ]);
        let _ = writeln!(
            out.csv,
            "\"{name}\",{},{reads},{writes},{parity_ios},{rmw},{extra_ios},{mean:.3}",
            reqs.len()
        );
        counts.push((reads, writes, parity_ios, rmw, extra_ios));
    }
    out.tables.push(t);
    let c = |id: &str, metric: &str, paper: f64, ours: u64| {
        Check::absolute(id, metric, paper, ours as f64, 0.0)
    };
    // Update block 5: the thesis's 2 extra operations are the parity read and write.
    out.checks.push(c(
        "RAID5-F6.1",
        "update block 5: I/Os on P2's member (read P2, write P2')",
        2.0,
        counts[0].2,
    ));
    out.checks.push(
        c(
            "RAID5-F6.1",
            "update block 5: old-data reads (standard read-modify-write; the thesis does not count them)",
            1.0,
            counts[0].0 - 1,
        )
        .consistency(
            "The reference is our own choice of read-modify-write (the thesis does not say how its controller updates parity), not a number of the thesis.",
        ),
    );
    out.checks.push(c(
        "RAID5-F6.1",
        "update block 4, then 5+6: read-modify-writes of P2",
        2.0,
        counts[1].3,
    ));
    out.checks.push(c(
        "RAID5-F6.1",
        "whole-stripe update of 4, 5, 6: extra I/Os (the parity write only)",
        1.0,
        counts[2].4,
    ));
    out.checks.push(c(
        "RAID5-F6.1",
        "whole-stripe update of 4, 5, 6: member reads",
        0.0,
        counts[2].0,
    ));
    out.checks.push(c(
        "RAID5-F6.1",
        "two whole stripes (4..9): extra I/Os (one parity write per stripe)",
        2.0,
        counts[3].4,
    ));
    Ok(out)
}

/// The F6.3 stack: the thesis's array with a discovering RAID-Mimic layer above it.
fn f6_3_toml(samples: u32) -> String {
    format!(
        "{THESIS_RAID5}[[layer]]\nkind = \"raid-mimic\"\ngranule-kib = 8\nmax-kib = 192\n\
         shift-kib = 4\nsamples = {samples}\n"
    )
}

/// Runs the discovering stack on a sequential guest; what the layer learned.
pub fn discover(toml_text: &str, seed: u64, mib: u64) -> Result<Findings, String> {
    let stack = StackToml::parse(toml_text)?;
    let b = StackToml::device(&stack)?;
    let [LayerSpec::RaidMimic(spec)] = stack.layer.as_slice() else {
        return Err("the stack must have one raid-mimic layer".into());
    };
    let layer = spec.build()?;
    let found = layer.findings();
    let mut root = LayerNode::new(Box::new(layer), b.root);
    let recs = crate::workload::sequential_guest(seed, mib);
    run(&mut root, &b.units, &recs)?;
    let f = found.borrow().clone();
    Ok(f)
}

/// RAID5-F6.3: bandwidth by assumed stripe size, aligned and shifted; the stripe found.
pub fn raid5_f6_3(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let samples = if o.quick { 4 } else { 16 };
    let toml_text = f6_3_toml(samples);
    let mut out = ExperimentOutput::new(
        "RAID5-F6.3",
        "Determining the stripe size on-line (RAID-Mimic, Figure 6.3)",
        format!(
            "The thesis's array (left-asymmetric RAID-5, 3 data disks of the mimic-9lzx model of the IBM 9LZX \
             model, 16 KiB chunk, 48 KiB stripe) under a RAID-Mimic layer that is not told the \
             stripe:\n\n{toml_text}\n\
             The guest writes one long sequential run in 4..64 KiB writes (seeded), faster than \
             the array takes it. The layer cuts the held data into cells of each candidate size \
             (8..192 KiB by 8) either aligned (starting on multiples of the size) or shifted by \
             4 KiB, issues one write at a time, and times each whole cell from issue to \
             completion; the bandwidth of a group is its bytes over its summed times ({samples} \
             writes per group). The thesis does not give the sizes it tried; we use 8 KiB \
             steps up to 192 KiB, four times the true stripe. The layer takes as the stripe the \
             smallest size whose aligned/shifted bandwidth ratio is within 25 % of the best \
             ratio (rule alignment-gain); the thesis's own rule, the highest aligned bandwidth, \
             is reported beside it. \"Others\" in the peak/others ratio are the aligned sizes \
             that are not multiples of the stripe.\n\n\
             The members are the mimic-9lzx model, as in chapter 5: after a write \
             completes, the drive's command overhead lets the next sequential sector pass under \
             the head, so each whole-stripe write issued on its own costs about a revolution \
             (the thesis's Figure 5.1 shows the same of the 9LZX). An earlier version used the \
             overhead-free mimic-base, whose whole-stripe writes streamed at the media rate \
             (about 69 MB/s, a ratio near 8.6).\n\n\
             What we know of the remaining gap: both lines run at about half the thesis's \
             values (48 KiB aligned about 7 MB/s against nearly 14; the others about 4 against \
             about 9). 14 MB/s for 48 KiB writes issued one at a time is one write every \
             3.4 ms, less than the 6 ms revolution, so the thesis's array did not pay a missed \
             revolution per write: a write-back cache in the Adaptec 2200S (its policy is \
             not stated) or in the drives would explain it. Neither is modelled \
             (write-through everywhere), and with a write-back cache the read-modify-writes \
             would be partly hidden too, so how the ratio would move is not known. The ratio \
             also depends on which sizes are tried (the thesis's set is unstated)."
        ),
        o.seed,
    );
    let f = discover(&toml_text, o.seed, if o.quick { 60 } else { 200 })?;
    let stripe_kib = 48u64;
    let mut t = Table::new(&["size (KiB)", "aligned MB/s", "shifted MB/s", "writes each"]);
    out.csv = "size_kib,aligned_mb_s,shifted_mb_s,writes\n".into();
    let mut aligned = Vec::new();
    let mut shifted = Vec::new();
    for a in f.groups.iter().filter(|g| g.aligned) {
        let s = f
            .groups
            .iter()
            .find(|g| !g.aligned && g.size == a.size)
            .copied()
            .unwrap_or(*a);
        let kib = a.size / 2;
        t.rows.push(vec![
            kib.to_string(),
            format!("{:.3}", a.mb_per_s()),
            format!("{:.3}", s.mb_per_s()),
            a.writes.min(s.writes).to_string(),
        ]);
        let _ = writeln!(
            out.csv,
            "{kib},{:.4},{:.4},{}",
            a.mb_per_s(),
            s.mb_per_s(),
            a.writes.min(s.writes)
        );
        aligned.push((kib as f64, a.mb_per_s()));
        shifted.push((kib as f64, s.mb_per_s()));
    }
    out.tables.push(t);
    out.plots.push(Plot {
        title: "Write bandwidth by assumed stripe size".into(),
        x_label: "stripe size tried (KiB)".into(),
        y_label: "bandwidth (MB/s)".into(),
        kind: PlotKind::Line,
        series: vec![
            Series {
                label: "aligned".into(),
                points: aligned.clone(),
            },
            Series {
                label: "shifted 4 KiB (unaligned)".into(),
                points: shifted.clone(),
            },
        ],
        log_x: false,
        paper: vec![Series {
            label: "paper: peak at 48 (about 14 MB/s)".into(),
            points: vec![(48.0, 14.0)],
        }],
        x_categories: Vec::new(),
    });
    let found = f.stripe.map_or(0, |s| s / 2);
    out.checks.push(Check::absolute(
        "RAID5-F6.3",
        "stripe found on-line (KiB), not told",
        stripe_kib as f64,
        found as f64,
        0.0,
    ));
    let (argmax, peak_any) =
        aligned
            .iter()
            .copied()
            .fold((0.0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    out.checks.push(Check::holds(
        "RAID5-F6.3",
        &format!(
            "argmax of aligned bandwidth ({argmax} KiB, {peak_any:.2} MB/s) is the stripe or a multiple of it"
        ),
        argmax > 0.0 && (argmax as u64).is_multiple_of(stripe_kib),
    ));
    let at = |v: &[(f64, f64)], kib: u64| v.iter().find(|p| p.0 as u64 == kib).map_or(0.0, |p| p.1);
    let peak = at(&aligned, stripe_kib);
    let others: Vec<f64> = aligned
        .iter()
        .filter(|p| !(p.0 as u64).is_multiple_of(stripe_kib))
        .map(|p| p.1)
        .collect();
    let others_mean = others.iter().sum::<f64>() / others.len().max(1) as f64;
    out.checks.push(Check::absolute(
        "RAID5-F6.3",
        &format!(
            "aligned 48 KiB / mean of aligned non-multiples ({peak:.2} / {others_mean:.2} MB/s)"
        ),
        1.55,
        if others_mean > 0.0 {
            peak / others_mean
        } else {
            0.0
        },
        0.25,
    ));
    out.checks.push(Check::holds(
        "RAID5-F6.3",
        &format!(
            "unaligned below aligned at 48 KiB ({:.2} < {peak:.2} MB/s)",
            at(&shifted, stripe_kib)
        ),
        at(&shifted, stripe_kib) < peak,
    ));
    let by_bw = pick_stripe(&f.groups, StripeRule::Bandwidth, 0.0).map_or(0, |s| s / 2);
    out.checks.push(
        Check::holds(
            "RAID5-F6.3",
            &format!(
                "the thesis's rule (highest aligned bandwidth, {by_bw} KiB) lands on a multiple of the stripe"
            ),
            by_bw > 0 && by_bw.is_multiple_of(stripe_kib),
        )
        .consistency("A looser duplicate of the argmax check above."),
    );
    Ok(out)
}

/// The guest OS's requests for `files` files written one after another, each of a size
/// uniform in 0.5..1.5 × `avg_kib` (rounded up to 4 KiB) and placed at a seeded random
/// 4 KiB-aligned place below `capacity` sectors (a file system does not lay files end to
/// end, so one file's tail and the next file's head do not form a stripe). The OS merges a file's pages into requests of at most `merge_kib`; aligning,
/// it cuts them on multiples of `stripe_kib` (whole stripes joined up to the merge limit).
fn guest_files(
    avg_kib: u64,
    files: u32,
    stripe_kib: Option<u64>,
    merge_kib: u64,
    capacity: u64,
    seed: u64,
) -> Vec<IoRecord> {
    let merge = merge_kib * 2;
    let mut out = Vec::new();
    for (lbn, sectors) in file_extents(avg_kib, files, capacity, seed) {
        let end = lbn + sectors;
        let mut at = lbn;
        while at < end {
            let left = end - at;
            let len = match stripe_kib.map(|s| s * 2) {
                None => left.min(merge),
                Some(st) => {
                    let into = at % st;
                    if into != 0 {
                        (st - into).min(left).min(merge)
                    } else if left >= st && merge >= st {
                        (left / st).min(merge / st) * st
                    } else {
                        left.min(merge)
                    }
                }
            };
            out.push(IoRecord {
                arrival: SimTime::ZERO,
                device: 0,
                lbn: at,
                blocks: len as u32,
                write: true,
                content: Vec::new(),
            });
            at += len;
        }
    }
    out
}

/// The files of `guest_files`: (first sector, sectors) of each, in writing order.
fn file_extents(avg_kib: u64, files: u32, capacity: u64, seed: u64) -> Vec<(u64, u64)> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..files)
        .map(|_| {
            let kib = (avg_kib as f64 * rng.gen_range(0.5..1.5)).ceil() as u64;
            let sectors = kib.div_ceil(4).max(1) * 8;
            let lbn = rng.gen_range(0..(capacity - sectors) / 8) * 8;
            (lbn, sectors)
        })
        .collect()
}

/// The share of `extents` that hold at least one whole aligned stripe of `stripe`
/// sectors: the only files VMM alignment can turn into whole-stripe writes.
fn whole_stripe_share(extents: &[(u64, u64)], stripe: u64) -> f64 {
    let holds = extents
        .iter()
        .filter(|&&(lbn, n)| lbn.div_ceil(stripe) * stripe + stripe <= lbn + n)
        .count();
    holds as f64 / extents.len().max(1) as f64
}

/// The guest keeps `depth` requests in flight, issuing the next as one completes.
struct InFlight {
    reqs: Vec<IoRecord>,
    next: usize,
    depth: u32,
}

impl engine::ClosedSource for InFlight {
    fn start(&mut self) -> Vec<(u32, IoRecord)> {
        let n = (self.depth as usize).min(self.reqs.len());
        self.next = n;
        (0..n).map(|i| (i as u32, self.reqs[i].clone())).collect()
    }
    fn on_complete(&mut self, _process: u32, now: SimTime) -> Option<IoRecord> {
        let mut r = self.reqs.get(self.next)?.clone();
        self.next += 1;
        r.arrival = now;
        Some(r)
    }
}

/// MB/s of the guest's writes on the stack `toml_text`: its bytes over the time to the
/// last completion.
fn guest_bandwidth(toml_text: &str, reqs: Vec<IoRecord>, depth: u32) -> Result<f64, String> {
    let stack = StackToml::parse(toml_text)?;
    let q = SchedulerConfig::default().queue_spec()?;
    let b = build(&stack.device, &q, None)?;
    let mut root = crate::layers::with_layers(b.root, &stack.layer)?;
    let bytes: u64 = reqs.iter().map(|r| u64::from(r.blocks) * 512).sum();
    let mut src = InFlight {
        reqs,
        next: 0,
        depth,
    };
    let mut end = 0u64;
    engine::run(
        root.as_mut(),
        &b.units,
        Source::Closed(&mut src),
        RunOptions::default(),
        &mut |l| end = end.max(l.done.0),
    )
    .map_err(|e| e.to_string())?;
    Ok(if end == 0 {
        0.0
    } else {
        bytes as f64 / end as f64 * 1e3
    })
}

/// The value of line `l` (of F6.4's four) at average size `kib`; 0 if not run.
fn at_size(lines: &[Vec<(f64, f64)>; 4], l: usize, kib: u64) -> f64 {
    lines[l]
        .iter()
        .find(|p| p.0 as u64 == kib)
        .map_or(0.0, |p| p.1)
}

/// RAID5-F6.4: OS and VMM alignment to the stripe, by average file size.
pub fn raid5_f6_4(o: &RunOpts) -> Result<ExperimentOutput, String> {
    const RING: &str = "[[layer]]\nkind = \"split\"\nmax-kib = 44\n";
    const VMM_ALIGN: &str =
        "[[layer]]\nkind = \"raid-mimic\"\nstripe-kib = 48\nmax-request-kib = 1024\ndepth = 4\n";
    let (sizes, files): (&[u64], u32) = if o.quick {
        (&[4, 48, 512, 5120], 100)
    } else {
        (&[4, 16, 48, 128, 512, 1024, 5120, 16384], 500)
    };
    let depth = 8;
    // The guest's merge limit is the ring slot: XenLinux's blkfront caps its queue at
    // 11 one-page segments ("Ensure a merged request will fit in a single I/O ring
    // slot"), so the guest's block layer never forms a request above 44 KiB.
    let merge_kib = 44;
    let plain = format!("{RING}{THESIS_RAID5}");
    let capacity = StackToml::device(&StackToml::parse(THESIS_RAID5)?)?
        .root
        .capacity();
    let aligned = format!("{RING}{VMM_ALIGN}{THESIS_RAID5}");
    let mut out = ExperimentOutput::new(
        "RAID5-F6.4",
        "Specialization for RAID-5: OS vs VMM stripe alignment (Figure 6.4)",
        format!(
            "The guest writes {files} files one after another (each at a seeded random 4 KiB-aligned \
             place, as a file system scatters files; each file's size uniform in 0.5..1.5 × the average, rounded up to 4 KiB) with {depth} requests in \
             flight. Between guest and VMM a paravirtual ring carries at most 44 KiB per request \
             (Xen's blkif: 11 one-page segments), and the guest's own block layer knows it: \
             XenLinux's block front end caps its queue at 11 segments so that \"a merged \
             request will fit in a single I/O ring slot\". So the guest OS merges a file's \
             pages into requests of at most {merge_kib} KiB; aligning, it cuts them on 48 KiB \
             stripe boundaries first (a stripe goes as 44 + 4 KiB). The split layer below the \
             guest is that ring; it finds nothing left to cut. Without VMM alignment the \
             requests go to the array as they are; with it, a RAID-Mimic layer told the stripe \
             (as §6.4 assumes) joins them into whole aligned stripes (up to 1 MiB, 4 writes in \
             flight). Decisions the thesis leaves open: the guest's depth, the file placement, \
             the VMM's join limit and depth. The array is the thesis's (left-asymmetric RAID-5, 3 data disks of the \
             mimic-9lzx model of the IBM 9LZX, 16 KiB chunk). The average sizes are our choice (the figure's \
             x points are not stated). Stacks, top first:\n\n\
             no VMM alignment:\n{plain}\nVMM alignment:\n{aligned}\n\
             Members are the mimic-9lzx model (see RAID5-F6.3); an earlier version used the \
             overhead-free mimic-base, whose whole stripes streamed at the media rate (5 MB \
             ratio about 4), and let the guest form 128 KiB requests that the ring then cut \
             (44 + 44 + 40 KiB), which made OS alignment hurt more and VMM + OS beat \
             VMM-only."
        ),
        o.seed,
    );
    let mut t = Table::new(&[
        "avg file (KiB)",
        "none MB/s",
        "OS only MB/s",
        "VMM only MB/s",
        "VMM + OS MB/s",
    ]);
    out.csv = "avg_kib,none,os_only,vmm_only,vmm_os\n".into();
    let mut lines: [Vec<(f64, f64)>; 4] = Default::default();
    for (i, &avg) in sizes.iter().enumerate() {
        let seed = o.seed.wrapping_add(i as u64);
        let os_plain = guest_files(avg, files, None, merge_kib, capacity, seed);
        let os_aligned = guest_files(avg, files, Some(48), merge_kib, capacity, seed);
        let v = [
            guest_bandwidth(&plain, os_plain.clone(), depth)?,
            guest_bandwidth(&plain, os_aligned.clone(), depth)?,
            guest_bandwidth(&aligned, os_plain, depth)?,
            guest_bandwidth(&aligned, os_aligned, depth)?,
        ];
        for (l, &x) in lines.iter_mut().zip(&v) {
            l.push((avg as f64, x));
        }
        t.rows.push(
            std::iter::once(avg.to_string())
                .chain(v.iter().map(|x| format!("{x:.3}")))
                .collect(),
        );
        let _ = writeln!(
            out.csv,
            "{avg},{:.4},{:.4},{:.4},{:.4}",
            v[0], v[1], v[2], v[3]
        );
    }
    out.tables.push(t);
    let shares: Vec<String> = sizes
        .iter()
        .filter(|&&s| s <= 128)
        .enumerate()
        .map(|(i, &s)| {
            let e = file_extents(s, files, capacity, o.seed.wrapping_add(i as u64));
            format!("{s} KiB: {:.0} %", 100.0 * whole_stripe_share(&e, 96))
        })
        .collect();
    let _ = write!(
        out.description,
        "\n\nWhat we know of the misses. OS-only alignment is worse than none for large \
         files, not level with it: under the 44 KiB limit the aligned guest sends each \
         stripe as 44 + 4 KiB, two read-modify-writes, where the unaligned guest's 44 KiB \
         requests average 1.09 per stripe; here a request that spans two stripes updates \
         both at once (their parity is on different drives), so fewer requests cost less. \
         A controller that handled a spanning request stripe by stripe would pay about two \
         updates per stripe either way, as the thesis's near-equal lines suggest, but how \
         the Adaptec 2200S did it is not known. VMM alignment gains at small average sizes \
         because some files already hold a whole aligned stripe, which the VMM writes \
         whole; the share of files that do, by average size: {}. The thesis says small \
         files 'do not generate whole stripes'; it does not state its x points, so the \
         bound of 48 KiB used here is our reading of the figure.",
        shares.join(", ")
    );
    // How much of OS alignment's cost comes from requests overlapping: the largest
    // size again with one request in flight (the guest's depth is not stated).
    if let Some((i, &big)) = sizes.iter().enumerate().next_back() {
        let seed = o.seed.wrapping_add(i as u64);
        let one = |stripe| -> Result<f64, String> {
            guest_bandwidth(
                &plain,
                guest_files(big, files, stripe, merge_kib, capacity, seed),
                1,
            )
        };
        let (none1, os1) = (one(None)?, one(Some(48))?);
        let diff = |a: f64, b: f64| if b > 0.0 { 100.0 * (a / b - 1.0) } else { 0.0 };
        let _ = write!(
            out.description,
            " With one request in flight instead of {depth}, at {big} KiB, OS-only alignment \
             is {:+.0} % against none ({os1:.2} / {none1:.2} MB/s), where with {depth} it is \
             {:+.0} %: the gap grows with requests running together. Then the unaligned \
             guest's requests, most of which update two stripes whose parity is on different \
             drives, overlap well, while each aligned stripe's 4 KiB second piece re-reads and \
             rewrites the parity block its 44 KiB first piece has just written, on the same \
             drive. Our array does not order two updates of one stripe (it models timing, not \
             the ordering a controller needs to keep parity right); how the Adaptec 2200S \
             ordered them, and how many requests the thesis's guest kept in flight, are not \
             stated.",
            diff(os1, none1),
            diff(at_size(&lines, 1, big), at_size(&lines, 0, big)),
        );
        // The same size with a controller's ordering above the array: writes of one
        // stripe row one at a time (`stack::stripe_lock`).
        const LOCK: &str = "[[layer]]\nkind = \"stripe-lock\"\nstripe-kib = 48\n";
        let locked = format!("{RING}{LOCK}{THESIS_RAID5}");
        let locked_aligned = format!("{RING}{VMM_ALIGN}{LOCK}{THESIS_RAID5}");
        let with_lock = |stack: &str, stripe| -> Result<f64, String> {
            guest_bandwidth(
                stack,
                guest_files(big, files, stripe, merge_kib, capacity, seed),
                depth,
            )
        };
        let (none_l, os_l, vmm_l) = (
            with_lock(&locked, None)?,
            with_lock(&locked, Some(48))?,
            with_lock(&locked_aligned, None)?,
        );
        let _ = write!(
            out.description,
            " Ordering alone does not explain the thesis's lines: with a stripe lock above \
             the array (a `stripe-lock` layer: writes of one 48 KiB row one at a time, in \
             arrival order), at {big} KiB with {depth} in flight, OS-only alignment is {:+.0} % \
             against none ({os_l:.2} / {none_l:.2} MB/s) and VMM alignment {:.2}× none \
             ({vmm_l:.2} MB/s): the unaligned guest's consecutive requests now share a row and \
             wait for each other, so alignment helps where the thesis saw no difference. The \
             checks above run without the lock, as the array model stands.",
            diff(os_l, none_l),
            if none_l > 0.0 { vmm_l / none_l } else { 0.0 },
        );
    }
    let names = [
        "OS no, VMM no",
        "OS yes, VMM no",
        "OS no, VMM yes",
        "OS yes, VMM yes",
    ];
    out.plots.push(Plot {
        title: "Write bandwidth by average file size".into(),
        x_label: "average file size (KiB)".into(),
        y_label: "bandwidth (MB/s)".into(),
        kind: PlotKind::Line,
        series: names
            .iter()
            .zip(&lines)
            .map(|(n, p)| Series {
                label: (*n).into(),
                points: p.clone(),
            })
            .collect(),
        log_x: true,
        paper: vec![
            Series {
                label: "paper: 5 MB, no VMM alignment (about 8)".into(),
                points: vec![(5120.0, 8.0)],
            },
            Series {
                label: "paper: 5 MB, VMM alignment (over 15)".into(),
                points: vec![(5120.0, 15.0)],
            },
        ],
        x_categories: Vec::new(),
    });
    let at = |l: usize, kib: u64| {
        lines[l]
            .iter()
            .find(|p| p.0 as u64 == kib)
            .map_or(0.0, |p| p.1)
    };
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    out.checks.push(Check::absolute(
        "RAID5-F6.4",
        &format!(
            "5 MB files: VMM-aligned / none ({:.2} / {:.2} MB/s)",
            at(2, 5120),
            at(0, 5120)
        ),
        1.9,
        ratio(at(2, 5120), at(0, 5120)),
        0.3,
    ));
    let worst_os = sizes
        .iter()
        .map(|&s| (ratio(at(1, s), at(0, s)) - 1.0).abs())
        .fold(0.0, f64::max);
    out.checks.push(Check::below(
        "RAID5-F6.4",
        "OS-only alignment vs none: largest relative difference over the sizes",
        0.05,
        worst_os,
    ));
    let vmm_only_ok = sizes.iter().all(|&s| at(2, s) >= at(3, s));
    out.checks.push(Check::holds(
        "RAID5-F6.4",
        "VMM-only ≥ VMM + OS at every size",
        vmm_only_ok,
    ));
    let small_gain = sizes
        .iter()
        .filter(|&&s| s <= 48)
        .map(|&s| ratio(at(2, s), at(0, s)) - 1.0)
        .fold(f64::MIN, f64::max);
    out.checks.push(Check::below(
        "RAID5-F6.4",
        "VMM alignment's largest gain for average files ≤ 48 KiB",
        0.05,
        small_gain,
    ));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passed(out: &ExperimentOutput, metric_start: &str) -> bool {
        out.checks
            .iter()
            .filter(|c| c.metric.starts_with(metric_start))
            .all(|c| c.pass)
    }

    /// Every RAID5-F6.1 count holds, and RAID5-F6.3 finds the stripe for any seed; the
    /// peak/others ratio is the one reported miss (see the experiment's description).
    #[test]
    fn raid5_experiments_hold_for_several_seeds() {
        for seed in [1, 7, 42] {
            let o = RunOpts {
                quick: true,
                seed,
                full_scale: false,
                durability: Default::default(),
            };
            let f1 = raid5_f6_1(&o).unwrap();
            assert!(
                f1.checks.iter().all(|c| c.pass),
                "seed {seed}: {:?}",
                f1.checks
            );
            let f3 = raid5_f6_3(&o).unwrap();
            for m in [
                "stripe found",
                "argmax",
                "unaligned below",
                "the thesis's rule",
            ] {
                assert!(passed(&f3, m), "seed {seed} {m}: {:?}", f3.checks);
            }
        }
    }
}
