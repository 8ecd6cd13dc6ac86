//! PROX-T2 on the RAID-4 back end: per batch, the response time, user writes, disk
//! I/Os, amplification, I/Os per revolution and the data/parity disks' I/Os, service
//! time per I/O and utilization (`prox_common::T2Row`). The baseline row is one random
//! 4 KiB update at a time, each a read-modify-write of data, parity and their checksum
//! blocks; the staged rows destage random updates through the data layout engine with
//! a 1–8 % flash staging area (`prox_common`'s aging, `prox_full` at full scale).

use super::options::{Durability, RunOpts};
use super::prox_common::{layout_stack, t2_row, write_cache_line, AgingSpec, StagedRows, T2Row};
use super::Check;
use crate::array::{ios_per_revolution, BatchReport, Raid4};
use crate::disk::presets::preset;
use crate::layout::LayoutPolicy;
use crate::report::{ExperimentOutput, Plot, PlotKind, Series, Table};
use crate::store::block_from;
use crate::store::DataMode;
use crate::validate::demerit::cdf_rows;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;

/// The baseline: `updates` single-block random updates over the whole volume, one at
/// a time, each preceded by a random read on every member (anti short-stroking,
/// excluded from the statistics as in the paper). PROX-T2 runs it under the run's
/// durability policy (`baseline_config`).
pub fn baseline_updates(
    stack: &str,
    updates: usize,
    seed: u64,
) -> Result<(T2Row, Vec<BatchReport>), String> {
    baseline_updates_on(layout_stack(stack)?.into_raid(), updates, seed)
}

/// [`baseline_updates`] on a given group (`spindle raid4 baseline`'s own shapes).
pub fn baseline_updates_on(
    mut array: Raid4,
    updates: usize,
    seed: u64,
) -> Result<(T2Row, Vec<BatchReport>), String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let blocks = array.layout().volume_blocks();
    let mut reports = Vec::with_capacity(updates);
    for i in 0..updates {
        array.scatter_heads(&mut rng).map_err(|e| e.to_string())?;
        let v = rng.gen_range(0..blocks);
        let data = block_from(format!("update {i} of block {v}").as_bytes());
        reports.push(array.write_batch(&[(v, data)]).map_err(|e| e.to_string())?);
    }
    let rev_ms = 60_000.0 / array.disk_params().mech.rpm;
    Ok((T2Row::from_batches("Baseline", &reports, rev_ms), reports))
}

/// PROX-T2's baseline RAID layer as a stack: the default 4+1 RAID-4 of wd-re3 (1 MB
/// stripe unit, members in issue order with 8 outstanding) that the layout engines
/// run over, here under `update-in-place` with no staging; the baseline writes its
/// updates to that RAID-4 directly, by volume block. With `Durability::WriteThrough`
/// the drives' write caches are off (an update is done once on the media), with
/// `Durability::Flush` an update ends with a cache flush (done once on the media too),
/// with `Durability::Cache` it returns once the drives have acknowledged it.
/// `write_cache_kib` overrides the drives' write cache.
pub fn baseline_stack(durability: Durability, write_cache_kib: Option<u64>) -> String {
    format!(
        "# The workload is the experiment's own: random single-block updates.\n\
         [workload]\n\
         [layout]\nkind = \"update-in-place\"\nsync-writes = {}\n\
         [[disks]]\ndisk = \"wd-re3\"\n{}",
        durability.sync_writes(),
        write_cache_line(write_cache_kib.or(durability.write_cache_kib()))
    )
}

/// PROX-T2, baseline row: 4+1 RAID-4 of wd-re3, 1 MB stripe unit.
pub fn prox_t2(o: &RunOpts) -> Result<ExperimentOutput, String> {
    let disk = preset("wd-re3")?;
    let rev_ms = 60_000.0 / disk.mech.rpm;
    let updates = if o.quick { 300 } else { 3000 };
    let policy = o.durability;
    // The baseline under every policy: the run's is checked, the others are context.
    let mut baselines = Vec::new();
    let mut reports = Vec::new();
    for d in Durability::ALL {
        let (mut r, reps) = baseline_updates(&baseline_stack(d, None), updates, o.seed)?;
        r.label = if d == policy {
            reports = reps;
            format!("Baseline ({} policy)", d.name())
        } else {
            format!("Baseline, {} policy (context)", d.name())
        };
        baselines.push((d, r));
    }
    let baseline_of = |d: Durability| baselines.iter().find(|(p, _)| *p == d).map(|(_, r)| r);
    let row = baseline_of(policy)
        .cloned()
        .ok_or("PROX-T2: no baseline row for the run's policy")?;
    let policy_times = baselines
        .iter()
        .map(|(d, r)| {
            format!(
                "{:.1} ms under {} ({:.1} ms of reads)",
                r.resp_ms,
                d.name(),
                r.read_phase_ms
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let id = "PROX-T2";
    let exact_ios = reports.iter().all(|r| r.disk_ios() == 8);
    let staged = if o.full_scale {
        super::prox_full::full_scale_staged_rows(o)?
    } else {
        staged_rows(o)?
    };
    let policy_name = policy.name();
    let mut out = ExperimentOutput {
        id: id.into(),
        title: "Random updates on a 4+1 RAID-4 with checksums (Table 2)".into(),
        description: format!(
            "A 4+1 RAID-4 of wd-re3 drives (1 MB stripe unit) storing real bytes, with a 64-byte \
             checksum/generation/identity entry per 4 KiB block packed into one checksum block per \
             63 data blocks. Baseline row: {updates} random single-block updates over the whole \
             volume, one at a time; before each, one random read per drive (excluded from the \
             statistics, as the paper's anti short-stroke I/Os). Each update reads data, parity and \
             both checksum blocks, then writes all four back. A stripe row's writes go once its \
             reads, and the checksum blocks that verify them, are done; each member gets its I/Os \
             as strands in ascending LBN with at most 8 outstanding; drives run SPTF.\n\n\
             Durability: this table ran under the {policy_name} policy (`spindle reproduce \
             --durability write-through|flush|cache`), every row alike. The wd-re3 drives ship \
             with a volatile write cache: with it on, a write completes once its data is in the \
             buffer, and the drive writes it to the media when it has nothing else to do (nearest \
             first; a running destage is not pre-empted) or when the host flushes. Under \
             `write-through` (the default) the RAID layer turns its members' write caches off, \
             as an enterprise RAID layer does over volatile drive caches, so a write completes \
             once it is on the media and each drive orders only the writes the RAID layer has \
             queued to it (at most 8). Under `flush` the caches stay on and a baseline update \
             and a destage batch each end with a cache flush: a destage batch is then on the \
             media as the flush returns too, but the drive has ordered the whole batch's writes \
             at once, a freedom the paper's RAID layer, which schedules each disk's queue itself \
             (section 4.4), does not hand the drive. Under `cache` a write counts as done once \
             the drives hold it: no row flushes. Both durable policies are what the layout \
             engine needs (it must know a destage is on the media before it points its metadata \
             at the new locations and frees the staging copies), and a fair baseline gives the \
             same guarantee; we chose write-through because the paper's RAID layer owns each \
             disk's queue and its strand measurements serve queued writes from the media (Table \
             1, on its SCSI drive: proximal write strands take longer than read strands, which \
             a write cache would not allow); the paper does not state the RE3s' cache setting. A baseline update takes \
             {policy_times}. The paper's rows do not fit one policy: its baseline, 16.8 ms, is \
             faster than an update on the media can be (its own random access is 11.7 ms, \
             section 5.4, which leaves 5.1 ms for the second read and both writes, less than \
             the 8.3 ms revolution a drive needs to rewrite sectors it has just read), while its \
             staged rows include the writes' media time (1 %: 129.5 ms, while the reads alone \
             take about half of that here). So under any policy some rows miss; the context \
             rows show the baseline under the other two.\n\n\
             Per disk and batch, ST is the paper's \"difference between the completions of the \
             last two I/Os\" averaged over the disk's I/Os, the first counted from the anti \
             short-stroke read that ended as the batch began: ST = (last completion - batch \
             start) / I/Os; utilization = I/Os x ST / response. I/Os per revolution = the mean \
             of the data disks' and the parity disk's I/Os per batch x revolution ({rev_ms:.2} \
             ms) / response: the I/Os a mean disk completes per revolution of the batch's \
             response time. The paper does not define the column (ambiguity P9); this reading \
             gives every row of its Table 2 from its own columns to within 0.08 (the \
             consistency check below), where revolution / mean ST gives only the baseline and \
             1 % rows. The baseline's ST and I/Os per revolution are not misses of their own: \
             a baseline update does four I/Os per disk, so its ST is the disk's span over four \
             and its I/Os per revolution four revolutions over the response (the paper's 16.8 / \
             4 = 4.2 ms and 4 x 8.33 / 16.8 = 2.0; ours {:.2} ms and {:.2}), and \
             both follow the response time above.",
            row.data_st_ms,
            row.ios_per_rev
        ),
        seed: o.seed,
        checks: Vec::new(),
        plots: Vec::new(),
        tables: vec![Table {
            columns: T2Row::columns(),
            rows: std::iter::once(row.cells())
                .chain(policy.others().filter_map(baseline_of).map(T2Row::cells))
                .chain(staged.rows.iter().map(|r| r.1.cells()))
                .chain(std::iter::once(paper_baseline_cells()))
                .chain(paper_t2_rows())
                .collect(),
        }],
        csv: String::new(),
    };
    out.checks.push(Check::holds(
        id,
        "every baseline update takes exactly 8 disk I/Os",
        exact_ios,
    ).consistency("Structural: our RAID-4 with checksums does 8 disk I/Os per update by design (PROX-EQ4); this counts them."));
    out.checks.push(
        Check::relative(
            id,
            "baseline disk I/Os per update (mean)",
            8.0,
            row.disk_ios,
            0.0,
        )
        .consistency("Structural: the same count as the check above, averaged."),
    );
    let (gap, gap_row) = ios_per_rev_definition_gap();
    out.checks.push(
        Check::below(
            id,
            &format!(
                "I/Os per revolution by our definition on the paper's own columns: largest gap \
                 from the printed value ({gap_row} row)"
            ),
            0.1,
            gap,
        )
        .consistency(
            "The definition (ambiguity P9) applied to the paper's own response times and I/O \
             counts: it tests our reading of the column, not a simulated result.",
        ),
    );
    out.checks.push(Check::relative(
        id,
        "baseline response time per update, ms",
        PAPER_BASELINE_RESP_MS,
        row.resp_ms,
        0.15,
    ));
    out.checks.push(Check::absolute(
        id,
        "baseline I/Os per revolution",
        2.0,
        row.ios_per_rev,
        0.2,
    ));
    out.checks.push(Check::relative(
        id,
        "baseline data-disk ST, ms",
        4.2,
        row.data_st_ms,
        0.15,
    ));
    out.checks.push(Check::relative(
        id,
        "baseline parity-disk ST, ms",
        4.2,
        row.parity_st_ms,
        0.15,
    ));
    out.checks.extend(staged_checks(&staged.rows));
    // PROX-EQ3/EQ4 from this table's own rows.
    let (eq_checks, eq_table, eq_note) =
        super::prox_t2_eq::prox_eq_checks(&row, &staged.rows, &disk, o.quick, o.seed)?;
    out.checks.extend(eq_checks);
    out.tables.push(eq_table);
    out.description.push_str(&eq_note);
    // PROXS-T1: service time per user write, baseline over 1 % staging.
    let one_pct = staged
        .rows
        .iter()
        .find(|(p, _)| (*p - 1.0).abs() < 1e-9)
        .map(|(_, r)| r.clone());
    if let Some(one) = &one_pct {
        let per_write = one.resp_ms / one.user_writes.max(1e-9);
        out.checks.push(Check::absolute(
            "PROXS-T1",
            "per-user-write service time, baseline / 1 % staging",
            6.0,
            row.resp_ms / per_write.max(1e-9),
            0.6,
        ));
        out.description.push_str(&format!(
            "\n\nPROXS-T1 divides the baseline's response by the 1 % row's time per user \
             write ({per_write:.2} ms); the paper's Table 2 gives 16.8 / (129.5 / 47.5) = 6.2. \
             Our inputs differ from the paper's by {:+.0} % (baseline) and {:+.0} % (time per \
             write), both under the one durability policy above.",
            (row.resp_ms / 16.8 - 1.0) * 100.0,
            (per_write / (129.5 / 47.5) - 1.0) * 100.0
        ));
    }
    out.description
        .push_str(&format!("\n\nStaged rows: {}", staged.note));
    out.description.push_str(&batch_size_note(&staged.rows));
    out.description
        .push_str(&parity_phase_note(&staged.rows, policy));
    out.plots.extend(staged_plots(&staged.rows));
    let mut resp: Vec<f64> = reports.iter().map(|r| r.response_ms()).collect();
    resp.sort_by(f64::total_cmp);
    out.plots.push(Plot {
        title: "Baseline update response time (CDF)".into(),
        x_label: "response time (ms)".into(),
        y_label: "fraction of updates".into(),
        kind: PlotKind::Step,
        series: vec![Series {
            label: "simulated, wd-re3 4+1 RAID-4".into(),
            points: cdf_rows(&resp).into_iter().collect(),
        }],
        log_x: false,
        // The paper gives only the mean (Table 2), not the distribution: a vertical line.
        paper: vec![Series {
            label: format!("paper: mean response {PAPER_BASELINE_RESP_MS} ms (Table 2)"),
            points: vec![(PAPER_BASELINE_RESP_MS, 0.0), (PAPER_BASELINE_RESP_MS, 1.0)],
        }],
        x_categories: Vec::new(),
    });
    let mut csv =
        String::from("update,response_ms,read_phase_ms,disk_ios,data_busy_ms,parity_busy_ms\n");
    for (i, r) in reports.iter().enumerate() {
        let data_busy: u64 = r.disks[..r.disks.len() - 1].iter().map(|d| d.busy_ns).sum();
        let parity_busy = r.disks.last().map_or(0, |d| d.busy_ns);
        let _ = writeln!(
            csv,
            "{i},{:.6},{:.6},{},{:.6},{:.6}",
            r.response_ms(),
            r.read_phase_ms(),
            r.disk_ios(),
            data_busy as f64 / 1e6,
            parity_busy as f64 / 1e6
        );
    }
    out.csv = csv;
    Ok(out)
}

/// The paper's baseline response time per update (Table 2), ms.
const PAPER_BASELINE_RESP_MS: f64 = 16.8;

fn paper_baseline_cells() -> Vec<String> {
    [
        "Baseline (paper)",
        "16.8",
        "1",
        "8",
        "8x",
        "2.0",
        "4",
        "4.2",
        "97%",
        "4",
        "4.2",
        "97%",
        "-",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Scale of a run: extents, staging sizes (%), destage cycles measured.
fn t2_scale(o: &RunOpts) -> (u32, Vec<f64>, u64) {
    if o.quick {
        (8, (1..=8).map(f64::from).collect(), 2)
    } else {
        (64, (1..=8).map(f64::from).collect(), 3)
    }
}

/// PROX-T2's staged rows: for each staging size, age a fresh engine and measure
/// whole destage cycles.
pub fn staged_rows(o: &RunOpts) -> Result<StagedRows, String> {
    let (extents, sizes, destages) = t2_scale(o);
    let mut rows = Vec::new();
    let mut note = String::new();
    for pct in sizes {
        let spec = AgingSpec {
            extents,
            fill: 0.89,
            updates_per_extent: 2000,
            staging: pct / 100.0,
            policy: LayoutPolicy::Proximal,
            seed: o.seed,
            data: DataMode::RealBytes,
            layout_only_aging: false,
            durability: o.durability,
        };
        if note.is_empty() {
            note = format!(
                "scaled configuration: {}; staging 1-8 % of the volume; each row is the mean over \
                 every extent batch of {destages} full destage cycles after aging, each batch preceded \
                 by one random read per drive. The paper's full scale (4 TB) runs with \
                 `--full-scale` (timing-only data, layout-only aging; about 12 minutes).",
                spec.scale_note()
            );
        }
        rows.push((pct, t2_row(&spec, destages)?));
    }
    Ok(StagedRows { rows, note })
}

/// The paper's Table 2, every staged row: (staging %, user writes per batch, I/O
/// amplification, I/Os per revolution).
const PAPER_T2_BATCHES: [(f64, f64, f64, f64); 8] = [
    (1.0, 47.5, 6.2, 5.3),
    (2.0, 85.2, 5.5, 7.2),
    (3.0, 119.7, 5.1, 8.1),
    (4.0, 149.3, 4.8, 7.7),
    (5.0, 179.1, 4.7, 8.7),
    (6.0, 226.1, 4.5, 9.0),
    (7.0, 259.5, 4.4, 9.0),
    (8.0, 254.8, 4.6, 8.7),
];

/// Why the staged rows' amplification and I/Os per revolution differ from the paper's
/// at the larger staging sizes: the batches differ in size, and at equal batch size
/// the rows agree. Compares each of our rows with the paper's row of the nearest batch
/// size.
fn batch_size_note(rows: &[(f64, T2Row)]) -> String {
    let [.., prev, last] = rows else {
        return String::new();
    };
    let ours: Vec<String> = rows
        .iter()
        .map(|(p, r)| {
            format!(
                "{p} %, {:.1} ({:.1} per staging percent)",
                r.user_writes,
                r.user_writes / p
            )
        })
        .collect();
    let mut pairs = Vec::new();
    let (mut amp_gap, mut iopr_ratio) = (0.0_f64, (f64::INFINITY, 0.0_f64));
    for (p, r) in rows {
        let near = PAPER_T2_BATCHES.iter().min_by(|a, b| {
            (a.1 - r.user_writes)
                .abs()
                .total_cmp(&(b.1 - r.user_writes).abs())
        });
        if let Some(&(pp, w, amp, iopr)) = near {
            if (w - r.user_writes).abs() <= 0.1 * r.user_writes {
                amp_gap = amp_gap.max((r.amplification - amp).abs());
                let ratio = r.ios_per_rev / iopr;
                iopr_ratio = (iopr_ratio.0.min(ratio), iopr_ratio.1.max(ratio));
                pairs.push(format!(
                    "our {p} % row ({:.1} user writes) {:.2}x and {:.2} I/Os per revolution, the \
                     paper's {pp} % row ({w}) {amp}x and {iopr}",
                    r.user_writes, r.amplification, r.ios_per_rev
                ));
            }
        }
    }
    let largest_paper = PAPER_T2_BATCHES.iter().map(|b| b.1).fold(0.0_f64, f64::max);
    // The paper's 4 % row breaks its own trend in I/Os per revolution.
    let four_pct = rows
        .iter()
        .find(|(p, r)| (*p - 4.0).abs() < 1e-9 && (r.ios_per_rev - 7.7).abs() > 1.0)
        .map_or(String::new(), |(_, r)| {
            format!(
                " Our 4 % row's {:.2} I/Os per revolution (PROX-EQ3) misses the paper's 7.7, \
                 which lies below both of the paper's neighbouring rows (3 %: 8.1, 5 %: 8.7).",
                r.ios_per_rev
            )
        });
    let matched = if pairs.is_empty() {
        String::new()
    } else {
        format!(
            " Compared at nearly the same batch size, our amplification agrees with the \
             paper's to within {amp_gap:.2}x and our I/Os per revolution are {:.0}-{:.0} % of \
             the paper's: {}.",
            100.0 * iopr_ratio.0,
            100.0 * iopr_ratio.1,
            pairs.join("; ")
        )
    };
    format!(
        "\n\nBatch size. A batch's I/O amplification and I/Os per revolution follow from how many \
         blocks of one extent it updates: that number sets how many data, parity and checksum \
         blocks it touches (one checksum block covers 63 data blocks and one parity block the \
         same offset on four data disks, so the more updates a batch holds, the fewer of those \
         I/Os each costs) and how densely its strands fill each track. Our batch is the number of distinct blocks of an \
         extent the staging area holds when it fills, so it grows in proportion to the staging \
         size: user writes per batch at {}. The paper's grows more slowly from 2 % on: 47.5 \
         per staging percent at 1 %, {:.1} at 8 %, where its batch (254.8) is smaller than at \
         7 % (259.5), its amplification rises again (4.4 to 4.6) and its I/Os per revolution \
         fall (9.0 to 8.7). The paper does not say why its batches stay small; its table's \
         largest, {largest_paper}, is {:.0} % of our {} % row's {:.1}.{matched} The \
         comparison does not reach the largest batches: the paper's text gives its 10 % row \
         as 369.7 user writes per batch with 4.5x and 8.6 I/Os per revolution, near our {} % \
         row's batch size but not its {:.2}x and {:.2}. From 6 % on the paper's amplification \
         and I/Os per revolution level off (4.4-4.6x, 8.6-9.0) while its batches still grow; \
         ours go from {:.2}x and {:.2} I/Os per revolution at {} % to {:.2}x and {:.2} at {} %. \
         The checks on the largest staging compare our {} % row with the paper's 8 % row, \
         whose batch is {:.0} % of ours; the smaller batch explains part of those misses, and \
         we do not know what levels off the paper's rows, so we change neither our batches \
         nor their cost.{}",
        ours.join("; "),
        254.8 / 8.0,
        largest_paper / last.1.user_writes.max(1e-9) * 100.0,
        last.0,
        last.1.user_writes,
        last.0,
        last.1.amplification,
        last.1.ios_per_rev,
        prev.1.amplification,
        prev.1.ios_per_rev,
        prev.0,
        last.1.amplification,
        last.1.ios_per_rev,
        last.0,
        last.0,
        254.8 / last.1.user_writes.max(1e-9) * 100.0,
        four_pct,
    )
}

/// The paper's staged rows, as table cells.
pub fn paper_t2_rows() -> Vec<Vec<String>> {
    let t = [
        (
            "1% (paper)",
            129.5,
            47.5,
            295.3,
            6.2,
            5.3,
            43.3,
            2.0,
            65,
            122.0,
            1.0,
            91,
        ),
        (
            "2% (paper)",
            155.0,
            85.2,
            465.3,
            5.5,
            7.2,
            66.1,
            1.4,
            61,
            201.1,
            0.7,
            93,
        ),
        (
            "4% (paper)",
            227.6,
            149.3,
            723.7,
            4.8,
            7.7,
            99.8,
            1.1,
            47,
            324.3,
            0.6,
            86,
        ),
        (
            "8% (paper)",
            320.9,
            254.8,
            1166.7,
            4.6,
            8.7,
            163.5,
            0.8,
            43,
            512.6,
            0.6,
            96,
        ),
    ];
    t.iter()
        .map(|r| {
            vec![
                r.0.to_string(),
                format!("{}", r.1),
                format!("{}", r.2),
                format!("{}", r.3),
                format!("{}x", r.4),
                format!("{}", r.5),
                format!("{}", r.6),
                format!("{}", r.7),
                format!("{}%", r.8),
                format!("{}", r.9),
                format!("{}", r.10),
                format!("{}%", r.11),
                "-".into(),
            ]
        })
        .collect()
}

/// Where the largest staging's time goes on the parity disk, the bottleneck: per read
/// in the batch's read phase and per write after it.
fn parity_phase_note(rows: &[(f64, T2Row)], policy: Durability) -> String {
    let Some((pct, r)) = rows.last() else {
        return String::new();
    };
    let writes = r.parity_ios - r.parity_reads;
    if r.parity_reads <= 0.0 || writes <= 0.0 {
        return String::new();
    }
    let per_read = r.read_phase_ms / r.parity_reads;
    let per_write = (r.resp_ms - r.read_phase_ms) / writes;
    let why = match policy {
        Durability::WriteThrough => {
            "Each write goes to the media at its own rotational position, the drive choosing \
             among at most 8 queued, so the write phase takes about twice as long per I/O as the \
             read phase, and that keeps our 6-8 % rows below the paper's. Under the flush \
             policy the drive orders the whole batch's cached writes at once and the write \
             phase is about half as long, which overshoots the paper's I/Os per revolution \
             instead (`--durability flush`)."
        }
        Durability::Flush => {
            "The drive orders the whole batch's cached writes at once when the batch's flush \
             comes, so the write phase is short and our larger rows overshoot the paper's I/Os \
             per revolution; under write-through each write goes to the media at its own \
             rotational position and the write phase is about twice as long."
        }
        Durability::Cache => {
            "The writes complete from the drives' caches; their media time falls outside the \
             batch."
        }
    };
    format!(
        "\n\nThe parity disk at {pct} % (utilization {:.0} %, the batch's bottleneck): \
         {:.1} reads in the {:.1} ms read phase, {per_read:.2} ms each, and {writes:.1} writes \
         in the {:.1} ms after it, {per_write:.2} ms each ({} policy); the paper's parity ST \
         is 0.6 ms for reads and writes together from 4 % on. {why}",
        100.0 * r.parity_util,
        r.parity_reads,
        r.read_phase_ms,
        r.resp_ms - r.read_phase_ms,
        policy.name(),
    )
}

/// The paper's Table 2, every row: (row, response ms, data I/Os, parity I/Os, printed
/// I/Os per revolution), the columns the I/Os-per-revolution definition reads.
const PAPER_T2_IO_COLUMNS: [(&str, f64, f64, f64, f64); 9] = [
    ("baseline", 16.8, 4.0, 4.0, 2.0),
    ("1 %", 129.5, 43.3, 122.0, 5.3),
    ("2 %", 155.0, 66.1, 201.1, 7.2),
    ("3 %", 182.9, 86.2, 269.9, 8.1),
    ("4 %", 227.6, 99.8, 324.3, 7.7),
    ("5 %", 235.9, 117.0, 379.8, 8.7),
    ("6 %", 278.4, 136.3, 469.3, 9.0),
    ("7 %", 315.4, 155.6, 529.2, 9.0),
    ("8 %", 320.9, 163.5, 512.6, 8.7),
];

/// Largest gap between the paper's printed I/Os per revolution and [`ios_per_revolution`] on
/// the paper's own columns (7,200 rpm), with the row it occurs in.
fn ios_per_rev_definition_gap() -> (f64, &'static str) {
    let rev_ms = 60_000.0 / 7200.0;
    PAPER_T2_IO_COLUMNS
        .iter()
        .map(|&(row, resp, data, parity, printed)| {
            (
                (ios_per_revolution(data, parity, resp, rev_ms) - printed).abs(),
                row,
            )
        })
        .fold((0.0, ""), |a, b| if b.0 > a.0 { b } else { a })
}

/// The catalog's checks on the staged rows.
pub fn staged_checks(rows: &[(f64, T2Row)]) -> Vec<Check> {
    let id = "PROX-T2";
    let mut c = Vec::new();
    let at = |p: f64| {
        rows.iter()
            .find(|(q, _)| (*q - p).abs() < 1e-9)
            .map(|r| &r.1)
    };
    if let Some(r) = at(1.0) {
        c.push(Check::absolute(
            id,
            "1 %: user writes per batch",
            47.5,
            r.user_writes,
            5.0,
        ));
        c.push(Check::absolute(
            id,
            "1 %: I/O amplification",
            6.2,
            r.amplification,
            0.4,
        ));
        c.push(Check::absolute(
            id,
            "1 %: I/Os per revolution",
            5.3,
            r.ios_per_rev,
            0.6,
        ));
        c.push(
            Check::at_least(
                id,
                "1 %: I/Os per revolution, looser bound (at least 4.5)",
                4.5,
                r.ios_per_rev,
            )
            .consistency("A looser bound on the number checked against the paper just above."),
        );
        c.push(
            Check::below(
                id,
                "1 %: I/O amplification, looser bound (below 7)",
                7.0,
                r.amplification,
            )
            .consistency("A looser bound on the number checked against the paper just above."),
        );
        c.push(Check::absolute(
            id,
            "1 %: data ST, ms",
            2.0,
            r.data_st_ms,
            0.3,
        ));
        c.push(Check::absolute(
            id,
            "1 %: parity ST, ms",
            1.0,
            r.parity_st_ms,
            0.2,
        ));
        c.push(Check::absolute(
            id,
            "1 %: batch response time, ms",
            129.5,
            r.resp_ms,
            13.0,
        ));
        c.push(Check::holds(
            id,
            "1 %: parity util above data util",
            r.parity_util > r.data_util,
        ));
    }
    let parity_util = |rows: &[(f64, T2Row)]| {
        let min = rows
            .iter()
            .map(|r| r.1.parity_util)
            .fold(f64::INFINITY, f64::min);
        Check::at_least(id, "parity util in every staged row", 0.86, min)
    };
    if rows.len() < 2 {
        // One row (the full-scale run): the trends across staging sizes do not apply.
        c.push(parity_util(rows));
        return c;
    }
    let upto7: Vec<&T2Row> = rows
        .iter()
        .filter(|(p, _)| *p <= 7.0)
        .map(|r| &r.1)
        .collect();
    let non_increasing = upto7
        .windows(2)
        .all(|w| w[1].amplification <= w[0].amplification + 0.05);
    c.push(Check::holds(
        id,
        "amplification non-increasing from 1 % to 7 % (0.05 slack)",
        non_increasing,
    ));
    if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
        c.push(Check::absolute(
            id,
            "largest staging: I/O amplification",
            4.6,
            last.1.amplification,
            0.3,
        ));
        c.push(Check::absolute(
            id,
            "largest staging: I/Os per revolution",
            8.7,
            last.1.ios_per_rev,
            1.0,
        ));
        c.push(Check::at_least(
            id,
            "I/Os per revolution rise from the smallest to the largest staging (ratio)",
            1.0,
            last.1.ios_per_rev / first.1.ios_per_rev.max(1e-9),
        ));
    }
    c.push(parity_util(rows));
    // PROXS-F1: diminishing returns after 3 %.
    if let (Some(a), Some(b), Some(z)) = (at(1.0), at(3.0), at(8.0)) {
        let gain =
            (z.ios_per_rev - b.ios_per_rev) / (z.ios_per_rev - a.ios_per_rev).abs().max(1e-9);
        c.push(Check::below(
            "PROXS-F1",
            "share of the 1-8 % I/Os-per-revolution gain after 3 %",
            0.25,
            gain,
        ));
    }
    c
}

pub fn staged_plots(rows: &[(f64, T2Row)]) -> Vec<Plot> {
    let series = |label: &str, f: &dyn Fn(&T2Row) -> f64| Series {
        label: label.into(),
        points: rows.iter().map(|(p, r)| (*p, f(r))).collect(),
    };
    let paper = |label: &str, pts: &[(f64, f64)]| Series {
        label: label.into(),
        points: pts.to_vec(),
    };
    vec![
        Plot {
            title: "I/Os per revolution against staging size".into(),
            x_label: "staging area (% of the volume)".into(),
            y_label: "I/Os per revolution".into(),
            kind: PlotKind::Line,
            series: vec![series("simulated", &|r| r.ios_per_rev)],
            log_x: false,
            paper: vec![paper(
                "paper (Table 2)",
                &[
                    (1.0, 5.3),
                    (2.0, 7.2),
                    (3.0, 8.1),
                    (4.0, 7.7),
                    (5.0, 8.7),
                    (6.0, 9.0),
                    (7.0, 9.0),
                    (8.0, 8.7),
                ],
            )],
            x_categories: Vec::new(),
        },
        Plot {
            title: "I/O amplification against staging size".into(),
            x_label: "staging area (% of the volume)".into(),
            y_label: "disk I/Os per user write".into(),
            kind: PlotKind::Line,
            series: vec![series("simulated", &|r| r.amplification)],
            log_x: false,
            paper: vec![paper(
                "paper (Table 2)",
                &[
                    (1.0, 6.2),
                    (2.0, 5.5),
                    (3.0, 5.1),
                    (4.0, 4.8),
                    (5.0, 4.7),
                    (6.0, 4.5),
                    (7.0, 4.4),
                    (8.0, 4.6),
                ],
            )],
            x_categories: Vec::new(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_update_is_eight_ios_at_about_two_per_revolution() {
        let disk = preset("wd-re3").expect("preset");
        let (row, reports) =
            baseline_updates(&baseline_stack(Durability::Cache, None), 60, 7).expect("run");
        assert!(reports.iter().all(|r| r.disk_ios() == 8));
        assert!((row.amplification - 8.0).abs() < 1e-9);
        assert!((1.6..2.6).contains(&row.ios_per_rev), "{row:?}");
        assert!(row.resp_ms > 10.0 && row.resp_ms < 25.0, "{row:?}");
        assert!(reports
            .iter()
            .all(|r| r.read_phase_ms() > 0.0 && r.read_phase_ms() < r.response_ms()));
        let write_phase = |reports: &[BatchReport]| {
            reports
                .iter()
                .map(|r| r.response_ms() - r.read_phase_ms())
                .sum::<f64>()
                / reports.len() as f64
        };
        // The drives acknowledge the writes from their cache: the write phase is
        // command and bus time only.
        let rev_ms = 60_000.0 / disk.mech.rpm;
        let cached = write_phase(&reports);
        assert!(cached < 0.1 * rev_ms, "write phase {cached} ms");
        // Write-through drives must rewrite sectors they have just read: on average
        // that costs most of a revolution after the read phase.
        let (_, reports) =
            baseline_updates(&baseline_stack(Durability::WriteThrough, None), 60, 7).expect("run");
        let through = write_phase(&reports);
        assert!(through > 0.6 * rev_ms, "write phase {through} ms");
        // Under the flush policy an update is done only once its writes are on the
        // media: the same cost, with the write cache on.
        let (_, reports) =
            baseline_updates(&baseline_stack(Durability::Flush, None), 60, 7).expect("run");
        let flushed = write_phase(&reports);
        assert!(flushed > 0.6 * rev_ms, "write phase {flushed} ms");
    }

    /// Ambiguity P9: the I/Os-per-revolution reading gives every printed value of the
    /// paper's Table 2 from the paper's own columns; the catalog's revolution / mean ST
    /// gives 11.8 for the 8 % row.
    #[test]
    fn the_papers_columns_give_its_ios_per_revolution() {
        let (gap, row) = ios_per_rev_definition_gap();
        assert!(gap < 0.1, "{row}: {gap}");
        let rev_ms = 60_000.0 / 7200.0;
        let (_, _, data, parity, printed) = PAPER_T2_IO_COLUMNS[8];
        let by_st = rev_ms * (4.0 * data + parity) / (4.0 * data * 0.8 + parity * 0.6);
        assert!((by_st - printed).abs() > 2.0, "{by_st}");
    }

    /// Write-through: the members' drives never hold an acknowledged write only in
    /// their caches, even with no flush after a batch; the cache policy does.
    #[test]
    fn write_through_members_hold_no_write_in_cache() {
        let held_after_each = |toml: &str| {
            let mut raid = layout_stack(toml).expect("stack").into_raid();
            let through = raid.members().iter().all(|m| !m.drive().caches_writes());
            let mut rng = ChaCha8Rng::seed_from_u64(5);
            let blocks = raid.layout().volume_blocks();
            let held: Vec<usize> = (0..30)
                .map(|i| {
                    let v = rng.gen_range(0..blocks);
                    raid.write_batch(&[(v, block_from(format!("{i}").as_bytes()))])
                        .expect("write");
                    raid.buffered_blocks()
                })
                .collect();
            (through, held)
        };
        let unflushed = baseline_stack(Durability::WriteThrough, None)
            .replace("sync-writes = true", "sync-writes = false");
        assert!(unflushed.contains("sync-writes = false"), "{unflushed}");
        let (through, held) = held_after_each(&unflushed);
        assert!(through && held.iter().all(|&h| h == 0), "{held:?}");
        let (through, held) = held_after_each(&baseline_stack(Durability::Cache, None));
        assert!(!through && held.iter().any(|&h| h > 0), "{held:?}");
    }
}
