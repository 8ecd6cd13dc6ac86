//! A table of bad invocations run through the binary: each must exit with status 2
//! within a few seconds, print no "panicked", and name the offending value or the
//! file and line in its message.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_spindle");
const DISKSIM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/disksim");
/// Longest a refused invocation may take.
const LIMIT: Duration = Duration::from_secs(10);

/// (arguments, text the error must contain). `{t}` is the fixture directory.
const CASES: &[(&str, &str)] = &[
    // run / compare: the stack
    ("run --disks 0", "got 0"),
    ("run --disks 4294967295", "4294967295"),
    ("run --disk wd-re3 --disks 100000", "100000"),
    (
        "run --trace sample:hplajw --device 99",
        "device 99 is not in it (devices: 0, 1)",
    ),
    ("run --trace sample:hplajw --limit 0", "workload.limit (--limit) = 0 keeps no requests"),
    (
        "run --disk st34502lw:smaller-platters=0",
        "C must be within 1..=64",
    ),
    ("disk-info st34502lw:smaller-platters=abc", "got `abc`"),
    ("disk-info st34502lw:smaller-platters=8:smaller-platters=8", "given twice"),
    (
        "run --disk st34502lw:heads-per-surface=0",
        "H must be a whole number within 1..=16",
    ),
    ("run --disk st34502lw:bus-mb-s=0", "bus-mb-s: N must be"),
    ("disk-info st34502lw:heads-per-surface=2", "drive of 2 arms"),
    (
        "run --queue-depth 0",
        "queue-depth must be within 1..=65536, got 0",
    ),
    ("run --queue-depth 4294967295", "4294967295"),
    (
        "run --queue-depth 4294967296",
        "--queue-depth must be within 1..=65536, got 4294967296",
    ),
    (
        "run --scheduler smtf --mimic-samples 0",
        "--mimic-samples must be within 1..=10000, got 0",
    ),
    (
        "run --scheduler smtf --mimic-samples 4294967295",
        "4294967295",
    ),
    ("run --scheduler bogus", "bogus"),
    ("run --scheduler online-set:bogus", "bogus"),
    ("run --scheduler online-set:", "must follow the colon"),
    ("compare --schedulers fcfs,bogus", "bogus"),
    ("run --max-wait-ms=-5", "-5"),
    ("run --max-wait-ms=NaN", "NaN"),
    ("run --layout bogus", "bogus"),
    ("run --array raid5 --parity-layout right", "right"),
    ("run --array raid4 --parity-layout left-asymmetric", "--parity-layout"),
    ("run --disk wd-re3 --layout dle --staging-pct=-1", "-1"),
    ("run --disk wd-re3 --layout dle --staging-pct 101", "101"),
    ("run --disk wd-re3 --layout dle --staging-pct NaN", "NaN"),
    ("run --array raid9", "raid9"),
    ("run --array raid0 --disks 2 --stripe-kib 0", "got 0"),
    (
        "run --array raid0 --disks 2 --stripe-kib 18446744073709551615",
        "18446744073709551615",
    ),
    ("run --stripe-kib 64", "--stripe-kib needs --array"),
    ("run --array raid0 --disks 100000", "100000"),
    ("run --cache-kib 0", "got 0"),
    (
        "run --layer content-cache:fifo:10",
        "policy must be arc or lru, got `fifo`",
    ),
    ("run --layer content-cache:arc:0", "pages must be within 1..="),
    ("run --layer content-cache:arc:99999999999", "got 99999999999"),
    ("run --layer content-cache:arc:10:both", "got `both`"),
    ("run --layer drr:x", "--layer `drr:x`"),
    ("run --layer journal:bogus", "unknown option `bogus`"),
    ("mimic skips --quick --log-mib 0 --out {t}/m", "--log-mib must be within"),
    ("mimic skips --quick --samples 0 --out {t}/m", "samples per cell"),
    ("mimic skips --quick --disk nope --out {t}/m", "nope"),
    ("run --layer journal:log-mib=0", "log-mib 0, expected 1 to"),
    ("run --layer journal:log-mib=x", "log-mib must be a whole number"),
    (
        "run --layer journal:log-mib=8:log-mib=9",
        "`log-mib` is given twice",
    ),
    ("run --layer journal:skip={t}/none.mm", "none.mm"),
    (
        "run --cache-kib 18446744073709551615",
        "18446744073709551615",
    ),
    ("run --disk bogus-disk", "bogus-disk"),
    ("run --disk {t}/missing.parv", "missing.parv"),
    // run: synthetic workloads
    ("run --synthetic bogus", "bogus"),
    (
        "run --synthetic open --count 0",
        "--count must be at least 1",
    ),
    (
        "run --synthetic open --count 18446744073709551615 --rate 1e12",
        "18446744073709551615",
    ),
    ("run --synthetic closed --count 4000000000", "4000000000"),
    ("run --synthetic open --rate 0", "got 0"),
    ("run --synthetic open --rate=-1", "-1"),
    ("run --synthetic open --rate NaN", "NaN"),
    ("run --synthetic open --rate inf", "inf"),
    ("run --synthetic open --rate 1e300", "one request per ns at most), got 1e300"),
    (
        "run --synthetic open --read-fraction 1e300",
        "must be within 0..=1, got 1e300",
    ),
    (
        "run --synthetic open --rate 1e-10",
        "raise the rate or lower the count",
    ),
    ("run --synthetic closed --think-ms=-1", "got -1"),
    ("run --synthetic closed --think-ms NaN", "got NaN"),
    ("run --synthetic closed --think-ms inf", "got inf"),
    ("run --synthetic closed --think-ms 1e300", "--think-ms must be within"),
    ("run --synthetic open --read-fraction 2", "got 2"),
    ("run --synthetic open --read-fraction=-0.5", "got -0.5"),
    ("run --synthetic open --read-fraction NaN", "got NaN"),
    (
        "run --synthetic open --pattern zipf --zipf-theta NaN",
        "got NaN",
    ),
    (
        "run --synthetic open --pattern zipf --zipf-theta=-1",
        "got -1",
    ),
    ("run --synthetic open --pattern bogus", "bogus"),
    (
        "run --synthetic open --pattern sequential --run-len 0",
        "run-len must be at least 1, got 0",
    ),
    ("run --synthetic open --size 0", "got 0"),
    ("run --synthetic open --size 4294967295", "4294967295"),
    ("run --synthetic closed --processes 0", "got 0"),
    (
        "run --synthetic closed --processes 4294967295",
        "4294967295",
    ),
    (
        "run --synthetic open --processes 18446744073709551615",
        "18446744073709551615",
    ),
    // run: traces and filters
    ("run --compress 0", "got 0"),
    ("run --compress=-1", "got -1"),
    ("run --compress NaN", "got NaN"),
    ("run --compress inf", "got inf"),
    ("run --compress 1e-300", "got 1e-300"),
    ("run --limit 0", "no requests"),
    ("run --trace {t}/missing.csv", "missing.csv"),
    ("run --trace {t}/garbage.txt", "garbage.txt"),
    ("run --trace {t}/cut.csv.gz", "cut.csv.gz:"),
    ("trace {t}/cut.csv.gz", "gzip data: the file ends inside compressed data"),
    ("run --trace {t}/bad-lbn.csv.gz", "bad-lbn.csv.gz:2: field 3 (lbn)"),
    ("run --trace {t}/traces.tgz", "traces.tgz: is a tar archive"),
    ("trace {t}/trace.csv.xz", "is xz-compressed, which spindle does not read"),
    ("trace {t}/trace.csv.xz --format msr", "is xz-compressed"),
    ("run --trace {t}/traces.tgz --format spindle-csv", "is a tar archive"),
    ("run --trace {t}/garbage.txt --format bogus", "bogus"),
    (
        "run --trace {t}/bad-lbn.csv --format spindle-csv",
        "bad-lbn.csv:2",
    ),
    (
        "run --trace {t}/neg-time.csv --format spindle-csv",
        "neg-time.csv:2",
    ),
    (
        "run --trace {t}/bad.ascii --format disksim-ascii",
        "bad.ascii:2",
    ),
    ("run --trace {t}/bad.msr --format msr", "bad.msr:1"),
    // several trace files merged
    (
        "run --trace {t}/src1_0.csv --trace {t}/src2_0.csv",
        "src2_0.csv:1: device 0 is in {t}/src1_0.csv too",
    ),
    (
        "trace {t}/src1_0.csv {t}/two-disks.csv --trace-devices per-file",
        "two-disks.csv:2: device 1 after device 0",
    ),
    (
        "run --trace {t}/src1_0.csv --trace {t}/plain.csv",
        "plain.csv: is spindle-csv but {t}/src1_0.csv is msr",
    ),
    ("trace {t}/src1_0.csv sample:hplajw", "read as it is and alone"),
    ("run --trace {t}/src1_0.csv --trace-devices bogus", "expected as-recorded or per-file"),
    (
        "run --synthetic web-vm --trace-devices per-file",
        "trace-devices (--trace-devices) applies to a trace file, not to [workload.content-trace]",
    ),
    (
        "run --synthetic open --trace-devices per-file",
        "trace-devices (--trace-devices) applies to a trace",
    ),
    (
        "run --trace {t}/src1_0.csv --trace {t}/src2_0.csv --trace msr:{t}/bad.msr --trace-devices per-file",
        "bad.msr:1",
    ),
    (
        "run --trace sample:hplajw --format spc --limit 5",
        "workload.format (--format) = spc applies to a trace file",
    ),
    ("trace msr:{t}/bad.msr --format msr", "give the format once"),
    (
        "run --trace {t}/bad-rwbs.blkparse --format blkparse",
        "bad-rwbs.blkparse:2: field 7 (RWBS): expected an RWBS",
    ),
    (
        "run --trace {t}/huge-lbn.csv --format spindle-csv",
        "18446744073709551000",
    ),
    // run: configuration files
    ("run --config {t}/missing.toml", "missing.toml"),
    (
        "run --config {t}/synthetic-count-0.toml",
        "synthetic-count-0.toml: workload.synthetic.count must be at least 1, got 0",
    ),
    (
        "run --config {t}/synthetic-fraction.toml",
        "synthetic-fraction.toml: workload.synthetic.read-fraction must be within 0..=1, got 1.5",
    ),
    (
        "run --config {t}/allocation-range.toml",
        "layout.allocation-range-kib = 4000000000 is more than a wd-re3 member",
    ),
    ("run --synthetic open --count 0", "--count"),
    ("run --config {t}/bad-syntax.toml", "bad-syntax.toml"),
    ("run --config {t}/bad-type.toml", "bad-type.toml"),
    ("run --config {t}/unknown-key.toml", "bogus-key"),
    (
        "run --config {t}/queue-depth-0.toml",
        "queue-depth-0.toml: scheduler.queue-depth must be within 1..=65536, got 0",
    ),
    ("run --window 0 --scheduler greedy", "--window must be at least 1, got 0"),
    ("torture --stack {t}/layers-typo.toml", "unknown key `layers`"),
    ("run --trace sample:hplajw --count 5", "--count applies to --synthetic open or closed"),
    ("run --trace sample:hplajw --rate 500", "--rate applies to --synthetic open"),
    ("run --synthetic closed --count 9 --rate 5", "--rate applies to --synthetic open"),
    ("run --synthetic open --count 9 --think-ms 5", "--think-ms applies to --synthetic closed"),
    ("run --synthetic web-vm --read-fraction 0.5", "--read-fraction applies to --synthetic open or closed;"),
    ("run --synthetic open --count 9 --run-len 4", "--run-len applies to --pattern sequential"),
    ("bench --quick --readme {t}/unknown-key.toml", "has no line `<!-- spindle bench: begin"),
    ("reproduce MIMD-T1 --quick --out {t}/never --readme {t}/unknown-key.toml", "has no line `<!-- spindle reproduce summary: begin"),
    ("run --config {t}/device-variant.toml", "line 7, column 1\n  |\n7 | rotation = \"diagonal\""),
    ("run --config {t}/zero-depth.toml", "got 0"),
    ("run --config {t}/spindles-over-arrays.toml", "device.spindles sets the angles of member drives, but member 0 is a raid0 array"),
    ("run --config {t}/seed-without-random.toml", "device.spindle-seed seeds random spindles: set spindles = \"random\" too"),
    ("run --config {t}/staging-on-baseline.toml", "layout.staging-pct applies to kind = \"dle\"; update-in-place stages nothing in flash"),
    ("run --synthetic open --count 9 --array raid1 --disks 2 --stripe-kib 7", "stripe-kib applies to raid0, raid4 and raid5"),
    ("run --synthetic open --count 9 --layout write-anywhere --staging-pct 2", "--staging-pct applies to --layout dle; write-anywhere stages nothing in flash"),
    ("run --synthetic open --count 9 --scheduler sstf --window 4", "window applies to greedy, smtf"),
    ("run --synthetic open --count 9 --scheduler clook --mimic-samples 4", "--mimic-samples applies to smtf and freeblock"),
    ("compare --synthetic open --count 9 --schedulers fcfs,sstf --mimic-interpolate", "--mimic-interpolate applies to smtf"),
    ("run --synthetic open --count 9 --scheduler online-set:sstf --mimic-samples 4", "--mimic-samples applies to smtf and freeblock"),
    ("compare --config {t}/own-scheduler.toml --schedulers fcfs,sstf", "--schedulers: every drive of the [device] names its own scheduler (clook, 2 outstanding)"),
    ("run --config {t}/own-scheduler.toml --queue-depth 8", "--queue-depth: every drive of the [device] names its own scheduler"),
    ("run --config {t}/huge-count.toml", "4294967295"),
    (
        "run --config {t}/huge-requests.toml",
        "18446744073709551615",
    ),
    ("run --config {t}/nan-rate.toml", "got NaN"),
    ("run --config {t}/background.toml", "background.toml: scheduler.background-outstanding must be within 0..=65536, got 4294967295"),
    ("run --config {t}/mimic-samples.toml", "mimic-samples.toml: scheduler.mimic-samples must be within 1..=10000, got 4294967295"),
    ("run --config {t}/mimic-samples0.toml", "got 0"),
    ("run --config {t}/max-wait.toml", "got 1e300"),
    ("run --config {t}/compress.toml", "compress.toml: workload.compress must be within 0.001..=1000000000, got 1e-300"),
    ("run --config {t}/fw-queue.toml", "firmware-queue-depth for `hp-c2249a` must be within 1..=65536, got 0"),
    ("run --config {t}/device-fw-queue-below-host.toml", "device.firmware-queue-depth 2 is below the host queue's depth 8"),
    ("run --config {t}/fw-queue-below-host.toml", "firmware-queue-depth 2 for `hp-c2249a` is below scheduler.queue-depth 8"),
    // write errors
    (
        "run --synthetic open --count 10 --requests-csv {t}/no-dir/out.csv",
        "no-dir/out.csv",
    ),
    (
        "run --synthetic open --count 10 --requests-csv /dev/full",
        "/dev/full",
    ),
    (
        "compare --synthetic open --count 10 --schedulers fcfs --plot /dev/full",
        "/dev/full",
    ),
    // `-` is standard output only where rows stream (run --requests-csv, trace --csv)
    (
        "compare --synthetic open --count 10 --schedulers fcfs --plot -",
        "--plot -: this output cannot go to standard output",
    ),
    (
        "mimic probe --disk hp-c2249a --out -",
        "--out -: this output cannot go to standard output",
    ),
    (
        "reproduce MIMD-T1 --quick --out -",
        "--out -: the report is a folder of files",
    ),
    (
        "mimic probe --distances 5 --samples 1 --out /dev/full",
        "/dev/full",
    ),
    (
        "mimic probe --distances 5 --samples 1 --out {t}/no-dir/t.json",
        "no-dir/t.json",
    ),
    (
        "reproduce DISK-SEEDS --quick --out /dev/full/report",
        "/dev/full/report",
    ),
    // random-io, strands, seed-checks
    ("random-io --blocks 4000000000 --requests 10", "4000000000"),
    ("random-io --blocks 0 --requests 10", "got 0"),
    ("random-io --requests 0", "got 0"),
    (
        "random-io --requests 18446744073709551615",
        "18446744073709551615",
    ),
    ("random-io --disk bogus-disk", "bogus-disk"),
    (
        "random-io --disk {t}/rpm/atlas10k.parv",
        "atlas10k.model:18",
    ),
    ("strands --trials 0", "got 0"),
    (
        "strands --trials 18446744073709551615",
        "18446744073709551615",
    ),
    ("strands --blocks 0 --trials 3", "got 0"),
    ("strands --blocks 4000000000 --trials 3", "4000000000"),
    ("strands --blocks 2049 --trials 3", "2049"),
    ("seed-checks --requests 0", "got 0"),
    (
        "seed-checks --requests 18446744073709551615",
        "18446744073709551615",
    ),
    // raid4
    (
        "raid4 baseline --updates 18446744073709551615",
        "18446744073709551615",
    ),
    ("raid4 baseline --updates 0", "got 0"),
    ("raid4 baseline --data-disks 0 --updates 1", "got 0"),
    (
        "raid4 baseline --data-disks 4294967295 --updates 1",
        "4294967295",
    ),
    ("raid4 baseline --outstanding 0 --updates 1", "got 0"),
    (
        "raid4 baseline --outstanding 18446744073709551615 --updates 1",
        "18446744073709551615",
    ),
    ("raid4 baseline --stripe-unit-kib 0 --updates 1", "got 0"),
    ("raid4 baseline --stripe-unit-kib 6 --updates 1", "got 6"),
    (
        "raid4 baseline --stripe-unit-kib 18446744073709551615 --updates 1",
        "18446744073709551615",
    ),
    ("raid4 baseline --disk bogus-disk --updates 1", "bogus-disk"),
    ("raid4 faults --ops 0", "got 0"),
    (
        "raid4 faults --ops 18446744073709551615",
        "18446744073709551615",
    ),
    ("raid4 faults --ops 1 --span 0", "got 0"),
    (
        "raid4 faults --ops 1 --span 18446744073709551615",
        "18446744073709551615",
    ),
    ("raid4 faults --ops 1 --span 65537", "got 65537"),
    (
        "raid4 faults --ops 1000000 --span 65536",
        "row checks, where at most 20000000",
    ),
    ("raid4 faults --ops 1 --lost 2", "got 2"),
    ("raid4 faults --ops 1 --lost NaN", "got NaN"),
    ("raid4 faults --ops 1 --misdirected=-0.1", "got -0.1"),
    ("raid4 faults --ops 1 --flips inf", "got inf"),
    // mimic
    ("mimic probe --distances 0 --out {t}/t.json", "got 0"),
    (
        "mimic probe --distances 18446744073709551615 --out {t}/t.json",
        "18446744073709551615",
    ),
    ("mimic probe --samples 0 --out {t}/t.json", "got 0"),
    (
        "mimic probe --samples 4294967295 --out {t}/t.json",
        "4294967295",
    ),
    ("mimic probe --distances 1000000 --samples 10000 --out {t}/t.json", "1000000 × 10000"),
    ("mimic probe --disk hp-c2249a --allow-writes --out {t}/t.json", "--allow-writes times writes on a real --device"),
    ("calibrate hp_c2247a --seed 5", "--seed places the probes of --probe-table"),
    ("raid4 baseline --updates 100001", "--updates must be within 1..=100000, got 100001"),
    ("mimic show {t}/missing.json", "missing.json"),
    (
        "mimic show {t}/garbage.txt",
        "garbage.txt: not a Disk Mimic table",
    ),
    ("mimic show {t}/empty-object.json", "missing field"),
    ("mimic show {t}/only-entries.json", "only-entries.json"),
    (
        "mimic show {t}/bad-op.json",
        "entries[0].prev: expected \"R\" or \"W\", found \"X\"",
    ),
    // disk-info and DiskSim parameter files
    ("disk-info bogus-disk", "bogus-disk"),
    ("disk-info {t}/missing.parv", "missing.parv"),
    ("disk-info {t}/rpm/atlas10k.parv", "atlas10k.model:18"),
    ("disk-info {t}/rpm0/atlas10k.parv", "atlas10k.model:18"),
    ("disk-info {t}/exponent/atlas10k.parv", "`9.9E-2` for a word: write `9.9e-2`"),
    ("disk-info {t}/cylinders-word/atlas10k.parv", "atlas10k.model:3"),
    (
        "disk-info {t}/segments/atlas10k.parv",
        "atlas10k.diskspecs:34",
    ),
    (
        "disk-info {t}/segments-huge/atlas10k.parv",
        "atlas10k.diskspecs:34",
    ),
    (
        "disk-info {t}/misspelt/atlas10k.parv",
        "atlas10k.diskspecs:34: `Number of bufer segments` is not a parameter of disksim_disk",
    ),
    (
        "disk-info {t}/misspelt-zone/atlas10k.parv",
        "did you mean `Last cylinder number`?",
    ),
    ("disk-info {t}/lastcyl/atlas10k.parv", "atlas10k.model:30"),
    ("disk-info {t}/queue/atlas10k.parv", "atlas10k.diskspecs:18"),
    (
        "disk-info {t}/overhead/atlas10k.parv",
        "atlas10k.diskspecs:66",
    ),
    ("disk-info {t}/spares/atlas10k.parv", "atlas10k.model:36"),
    ("disk-info {t}/syntax/atlas10k.parv", "atlas10k.model:19"),
    (
        "disk-info {t}/nosource/atlas10k.parv",
        "atlas10k.diskspecs:2",
    ),
    ("disk-info {t}/seekfile/atlas10k.parv", "atlas10k.seek:3"),
    ("disk-info {t}/selfsource/atlas10k.parv", "more than"),
    // validate
    ("validate {t}/missing.parv", "missing.parv"),
    ("validate bogus-drive", "bogus-drive"),
    ("validate {t}/action/atlas10k.parv", "atlas10k.trace:2"),
    ("validate {t}/bigtime/atlas10k.parv", "atlas10k.trace:2"),
    ("validate {t}/negtime/atlas10k.parv", "atlas10k.trace:2"),
    ("validate {t}/beyond/atlas10k.parv", "atlas10k.trace:2"),
    ("validate {t}/rpm/atlas10k.parv", "atlas10k.model:18"),
    // reproduce
    ("reproduce BOGUS-ID --quick --out {t}/r", "BOGUS-ID"),
    (
        "disk-info {t}/high-water.toml",
        "high water mark must be a fraction within 0..=1 (DiskSim's range), got 1.5",
    ),
    (
        "reproduce MIMD-T1 --full-scale --out {t}/r",
        "--full-scale applies to PROX-T2 only, and none is selected (MIMD-T1)",
    ),
    (
        "reproduce MIMD-T1 --durability cache --out {t}/r",
        "--durability cache applies to PROX-T2, PROX-T3, PROX-COST only",
    ),
    ("reproduce DISK-SEEDS --quick --jobs 0 --out {t}/r", "got 0"),
    (
        "reproduce DISK-SEEDS --quick --jobs 100000 --out {t}/r",
        "100000",
    ),
    // endless files
    ("mimic show /dev/zero", "/dev/zero: more than 268435456 bytes"),
    ("run --config /dev/zero", "/dev/zero: larger than 16777216 bytes"),
    ("run --trace /dev/zero", "/dev/zero"),
    ("run --trace /dev/zero --format msr", "/dev/zero: not a regular file"),
    ("disk-info /dev/zero", "/dev/zero"),
    ("trace {t}/empty.txt --format msr", "empty.txt: the trace holds no requests"),
    ("trace {t}/empty.txt", "the file is empty"),
    ("trace sample:hplajw --limit 2 --csv /dev/null", "not a regular file"),
    ("sweep {t}/grid.toml --out {t}/g.parquet --csv {t}/one-line.ascii", "which this command reads"),
    ("sweep {t}/grid.toml --out {t}/g.x --csv {t}/g.x", "is the --out file"),
    ("sweep {t}/grid.toml --out {t}/g2.x --csv /proc/x.csv", "cannot write beside it"),
    ("sweep {t}/grid-bogus.toml --out {t}/g3.x --list", "bogus-opt"),
    ("trace {t}", "is a folder"),
    ("probe rotation --disk hp-c2249a --span 1", "span must be within 2..="),
    ("reproduce MIMD-T1 --quick --out /proc/x", "cannot make the report's folder"),
    ("reproduce MIMD-T1 --quick --out {t}/grid.toml", "is a file; give a folder"),
    ("compare --schedulers fcfs,sstf,fcfs", "`fcfs` is given twice"),
    (
        "compare --schedulers fcfs,sstf --mimic-table {t}/tiny-table.json",
        "--mimic-table applies to the smtf schedulers, whose Disk Mimic it replaces; not fcfs, sstf",
    ),
    ("random-io --blocks 4194304 --requests 10000000", "at most 137438953472"),
    (
        "run --scheduler smtf --mimic-table {t}/tiny-table.json --mimic-interpolate",
        "--mimic-interpolate applies to a Disk Mimic probed off-line",
    ),
    ("trace sample:hplajw --limit 0", "0 is not in 1"),
    ("disk-info {t}/seek-zero/atlas10k.parv", "atlas10k.model:10: cannot read seek curve /dev/zero"),
    ("disk-info {t}/source-zero/atlas10k.parv", "atlas10k.diskspecs:2: cannot read sourced file `/dev/zero`"),
    // usage errors (clap)
    ("bogus-command", "bogus-command"),
    ("run --bogus-flag", "--bogus-flag"),
    ("run --queue-depth abc", "abc"),
    ("random-io --requests -5", "-5"),
];

/// A copy of DiskSim's atlas10k files in `dir/name`, with `from` replaced by `to` in
/// `atlas10k.EXT` (first occurrence).
fn variant(dir: &Path, name: &str, ext: &str, from: &str, to: &str) {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    for e in ["parv", "diskspecs", "model", "seek", "trace"] {
        let src = Path::new(DISKSIM).join(format!("atlas10k.{e}"));
        let mut text = std::fs::read_to_string(&src).unwrap();
        if e == "trace" {
            // A short trace keeps the runs fast.
            text = text.lines().take(20).map(|l| format!("{l}\n")).collect();
        }
        if e == ext {
            assert!(text.contains(from), "{name}: atlas10k.{e} lacks {from:?}");
            text = text.replacen(from, to, 1);
        }
        std::fs::write(d.join(format!("atlas10k.{e}")), text).unwrap();
    }
}

fn fixtures() -> PathBuf {
    let t = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad_input");
    let _ = std::fs::remove_dir_all(&t);
    std::fs::create_dir_all(&t).unwrap();
    let w = |name: &str, text: &str| std::fs::write(t.join(name), text).unwrap();
    w(
        "layers-typo.toml",
        "[[layers]]\nkind = \"journal\"\n[device]\nkind = \"raid4\"\ncount = 3\n[device.member]\nkind = \"disk\"\ndisk = \"hp-c2249a\"\n",
    );
    let synthetic = |count: &str, fraction: &str| {
        format!("[workload.synthetic]\nkind = \"synthetic\"\npattern = {{ kind = \"uniform\" }}\nsizes = {{ kind = \"fixed\", sectors = 8 }}\nread-fraction = {fraction}\narrivals = {{ kind = \"poisson\", rate-per-s = 20 }}\ncount = {count}\n")
    };
    w("synthetic-count-0.toml", &synthetic("0", "0.5"));
    let drive = spindle::disk::presets::disksim_preset("hp_c2247a")
        .unwrap()
        .to_drive_file()
        .unwrap();
    w(
        "high-water.toml",
        &drive.replace("high_water = 0.75", "high_water = 1.5"),
    );
    w(
        "bad-rwbs.blkparse",
        "  8,0 0 1 0.000001000 1 D WS 0 + 8 [k]\n  8,0 0 2 0.000002000 1 D XW 8 + 8 [k]\n",
    );
    w("synthetic-fraction.toml", &synthetic("10", "1.5"));
    w(
        "allocation-range.toml",
        "[workload]\ntrace = \"sample:hplajw\"\n[layout]\nkind = \"dle\"\nallocation-range-kib = 4000000000\n[device]\nkind = \"raid4\"\ncount = 5\n[device.member]\nkind = \"disk\"\ndisk = \"wd-re3\"\n",
    );
    w(
        "queue-depth-0.toml",
        "[workload]\ntrace = \"sample:hplajw\"\n[scheduler]\nkind = \"clook\"\nqueue-depth = 0\n",
    );
    // Compressed traces: damaged, an archive, a compressor spindle does not read.
    let gzip = |bytes: &[u8]| {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    };
    let csv = "arrival_ms,device,lbn,blocks,op\n".to_string() + &"0.0,0,100,8,R\n".repeat(2000);
    let packed = gzip(csv.as_bytes());
    std::fs::write(t.join("cut.csv.gz"), &packed[..packed.len() / 2]).unwrap();
    std::fs::write(
        t.join("bad-lbn.csv.gz"),
        gzip(b"arrival_ms,device,lbn,blocks,op\n0.0,0,abc,8,R\n"),
    )
    .unwrap();
    let mut tar = vec![0u8; 1024];
    tar[..8].copy_from_slice(b"msr.csv\0");
    tar[257..263].copy_from_slice(b"ustar\0");
    std::fs::write(t.join("traces.tgz"), gzip(&tar)).unwrap();
    std::fs::write(
        t.join("trace.csv.xz"),
        b"\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46",
    )
    .unwrap();
    w(
        "garbage.txt",
        "this is not a trace\n\x01\x02 nor anything else\n",
    );
    w(
        "bad-lbn.csv",
        "arrival_ms,device,lbn,blocks,op\n0.0,0,abc,8,R\n",
    );
    w(
        "neg-time.csv",
        "arrival_ms,device,lbn,blocks,op\n-5.0,0,0,8,R\n",
    );
    w(
        "huge-lbn.csv",
        "arrival_ms,device,lbn,blocks,op\n0.0,0,18446744073709551000,8,R\n",
    );
    w(
        "beyond-disk.csv",
        "arrival_ms,device,lbn,blocks,op\n0.0,0,100,8,R\n1.0,0,1000000000,8,R\n",
    );
    w("bad.ascii", "0.0 0 100 8 1\nx 0 100 8 1\n");
    w("bad.msr", "128166372003061629,src1,0,Bogus,0,4096,100\n");
    // Two MSR volumes of different servers, both disk 0, and a file of two devices.
    w("src1_0.csv", "128166372003061629,src1,0,Read,0,4096,100\n");
    w(
        "src2_0.csv",
        "128166372003061630,src2,0,Write,4096,4096,100\n",
    );
    w(
        "two-disks.csv",
        "128166372003061629,hm,0,Read,0,4096,100\n128166372003061631,hm,1,Read,0,4096,100\n",
    );
    w("plain.csv", "arrival_ms,device,lbn,blocks,op\n0,0,0,8,R\n");
    w("bad-syntax.toml", "seed = 1\n[workload\n");
    w(
        "bad-type.toml",
        "seed = 1\n[scheduler]\nkind = \"sstf\"\nqueue-depth = \"x\"\n",
    );
    w("unknown-key.toml", "seed = 1\nbogus-key = 3\n");
    // A bad value inside the tagged [device] table: the error points at its line.
    w(
        "device-variant.toml",
        "[workload]\ntrace = \"sample:hplajw\"\n[device]\nkind = \"intra\"\ncount = 4\nsplit = 2\nrotation = \"diagonal\"\n[device.member]\nkind = \"disk\"\ndisk = \"st34502lw\"\n",
    );
    w(
        "spindles-over-arrays.toml",
        "[workload]\ntrace = \"sample:hplajw\"\n[device]\nkind = \"raid1\"\ncount = 2\nspindles = \"spaced\"\n[device.member]\nkind = \"raid0\"\ncount = 2\n[device.member.member]\nkind = \"disk\"\ndisk = \"st34502lw\"\n",
    );
    w(
        "seed-without-random.toml",
        "[workload]\ntrace = \"sample:hplajw\"\n[device]\nkind = \"mirror\"\ncount = 2\nspindle-seed = 3\n[device.member]\nkind = \"disk\"\ndisk = \"st34502lw\"\n",
    );
    w(
        "staging-on-baseline.toml",
        "[workload]\ntrace = \"sample:hplajw\"\n[layout]\nkind = \"update-in-place\"\nstaging-pct = 37.5\n[[disks]]\ndisk = \"wd-re3\"\n",
    );
    w(
        "zero-depth.toml",
        "[workload]\ntrace = \"sample:hplajw\"\n[scheduler]\nkind = \"sstf\"\nqueue-depth = 0\n[[disks]]\ndisk = \"hp-c2249a\"\ncount = 1\n",
    );
    w(
        "own-scheduler.toml",
        "[workload]\ntrace = \"sample:hplajw\"\n[device]\nkind = \"raid0\"\ncount = 2\n[device.member]\nkind = \"disk\"\ndisk = \"cheetah9lp\"\nscheduler = { kind = \"clook\", queue-depth = 2 }\n",
    );
    w(
        "huge-count.toml",
        "[workload]\ntrace = \"sample:hplajw\"\n[scheduler]\nkind = \"sstf\"\n[[disks]]\ndisk = \"hp-c2249a\"\ncount = 4294967295\n",
    );
    let synth = |extra: &str| {
        format!(
            "[workload.synthetic]\nkind = \"synthetic\"\npattern = {{ kind = \"uniform\" }}\nsizes = {{ kind = \"fixed\", sectors = 8 }}\nread-fraction = 0.5\nseed = 1\n{extra}\n[scheduler]\nkind = \"sstf\"\n[[disks]]\ndisk = \"wd-re3\"\ncount = 1\n"
        )
    };
    w(
        "huge-requests.toml",
        &synth(
            "arrivals = { kind = \"poisson\", rate-per-s = 1e15 }\ncount = 18446744073709551615",
        ),
    );
    w(
        "nan-rate.toml",
        &synth("arrivals = { kind = \"poisson\", rate-per-s = nan }\ncount = 10"),
    );
    let sched = |sched: &str, key: &str| {
        format!("[workload]\ntrace = \"sample:hplajw\"\nlimit = 200\n[scheduler]\nkind = \"{sched}\"\n{key}\n[[disks]]\ndisk = \"hp-c2249a\"\ncount = 1\n")
    };
    w(
        "background.toml",
        &sched("freeblock", "background-outstanding = 4294967295"),
    );
    w(
        "mimic-samples.toml",
        &sched("smtf", "mimic-samples = 4294967295"),
    );
    w("mimic-samples0.toml", &sched("smtf", "mimic-samples = 0"));
    w("max-wait.toml", &sched("sstf", "max-wait-ms = 1e300"));
    w(
        "compress.toml",
        &sched("sstf", "").replace("limit = 200", "limit = 200\ncompress = 1e-300"),
    );
    w(
        "fw-queue.toml",
        &format!("{}firmware-queue-depth = 0\n", sched("sstf", "")),
    );
    w(
        "device-fw-queue-below-host.toml",
        "[workload]\ntrace = \"sample:hplajw\"\nlimit = 200\n[scheduler]\nkind = \"sstf\"\nqueue-depth = 8\n[device]\nkind = \"disk\"\ndisk = \"cheetah9lp\"\nfirmware-queue-depth = 2\n",
    );
    w(
        "fw-queue-below-host.toml",
        &format!(
            "{}firmware-queue-depth = 2\n",
            sched("sstf", "queue-depth = 8")
        ),
    );
    w("empty-object.json", "{}");
    w("empty.txt", "");
    w(
        "tiny-table.json",
        r#"{"entries":[{"cur":"R","distance":-5,"mean_ns":10,"prev":"W","samples_ns":[9,11]}],"intervals":[],"interval_limits":[],"interpolated_distances":0,"memory_bytes":100,"metric":"mean","probe_requests":2,"probe_sectors":2,"samples_per_distance":2}"#,
    );
    w("one-line.ascii", "0.0 0 100 8 1\n");
    let grid = format!(
        "[grid]\nscheduler = [\"fcfs\"]\n[fixed]\ntrace = \"{}\"\n",
        t.join("one-line.ascii").display()
    );
    w("grid.toml", &grid);
    w("grid-bogus.toml", "[grid]\nbogus_opt = [1, 2]\n");
    w("only-entries.json", "{\"entries\": []}");
    w(
        "bad-op.json",
        r#"{"entries":[{"cur":"R","distance":-5,"mean_ns":10,"prev":"X","samples_ns":[9,11]}],
        "intervals":[],"interval_limits":[],"interpolated_distances":0,"memory_bytes":100,
        "metric":"mean","probe_requests":8,"probe_sectors":2,"samples_per_distance":2}"#,
    );
    let rpm = "Rotation speed (in rpms) = 10025";
    variant(
        &t,
        "rpm",
        "model",
        rpm,
        "Rotation speed (in rpms) = 60000000000000",
    );
    variant(&t, "rpm0", "model", rpm, "Rotation speed (in rpms) = 0");
    // A number in a form DiskSim's lexer does not read, and a derived count that is
    // not a number at all.
    variant(
        &t,
        "exponent",
        "diskspecs",
        "Bulk sector transfer time = 0.099000",
        "Bulk sector transfer time = 9.9E-2",
    );
    variant(
        &t,
        "cylinders-word",
        "model",
        "Number of cylinders = 10042",
        "Number of cylinders = @@@",
    );
    let seg = "Number of buffer segments = 10";
    variant(
        &t,
        "segments",
        "diskspecs",
        seg,
        "Number of buffer segments = 2000000000",
    );
    variant(
        &t,
        "segments-huge",
        "diskspecs",
        seg,
        "Number of buffer segments = 9223372036854775808",
    );
    // Misspelt names: DiskSim would warn and run on its default.
    variant(
        &t,
        "misspelt",
        "diskspecs",
        seg,
        "Number of bufer segments = 10",
    );
    variant(
        &t,
        "misspelt-zone",
        "model",
        "Last cylinder number = 432",
        "Last cylindre number = 432",
    );
    variant(
        &t,
        "lastcyl",
        "model",
        "Last cylinder number = 432",
        "Last cylinder number = 4294967296",
    );
    variant(
        &t,
        "queue",
        "diskspecs",
        "Max queue length = 1",
        "Max queue length = 4294967296",
    );
    variant(
        &t,
        "overhead",
        "diskspecs",
        "Read completion overhead = 0.000000",
        "Read completion overhead = -5.0",
    );
    variant(
        &t,
        "spares",
        "model",
        "Number of spares = 89",
        "Number of spares = -7",
    );
    variant(
        &t,
        "syntax",
        "model",
        "Percent error in rpms =",
        "Percent error in rpms = =",
    );
    variant(
        &t,
        "seek-zero",
        "model",
        "Full seek curve = atlas10k.seek",
        "Full seek curve = /dev/zero",
    );
    variant(
        &t,
        "source-zero",
        "diskspecs",
        "source atlas10k.model",
        "source /dev/zero",
    );
    variant(
        &t,
        "nosource",
        "diskspecs",
        "source atlas10k.model",
        "source nowhere.model",
    );
    variant(&t, "seekfile", "seek", "\n", "\n1, 1.0\nabc, 2.0\n");
    variant(
        &t,
        "selfsource",
        "model",
        "Rotation speed (in rpms) = 10025",
        "Rotation speed (in rpms) = 10025, source atlas10k.model source atlas10k.model",
    );
    let line2 = |d: &Path| {
        let text = std::fs::read_to_string(d.join("atlas10k.trace")).unwrap();
        text.lines().nth(1).unwrap().to_string()
    };
    let base = Path::new(DISKSIM);
    let l2 = line2(base);
    let fields: Vec<&str> = l2.split_whitespace().collect();
    let swap = |i: usize, v: &str| {
        let mut f = fields.clone();
        f[i] = v;
        f.join(" ")
    };
    variant(&t, "action", "trace", &l2, &swap(1, "Bogus"));
    variant(&t, "bigtime", "trace", &l2, &swap(4, "1e308"));
    variant(&t, "negtime", "trace", &l2, &swap(5, "-3"));
    variant(&t, "beyond", "trace", &l2, &swap(2, "18446744073709551000"));
    t
}

#[test]
fn every_bad_invocation_exits_2_naming_what_is_wrong() {
    let t = fixtures();
    assert!(CASES.len() >= 100, "{} cases", CASES.len());
    let mut failures = Vec::new();
    for (args, want) in CASES {
        let args: Vec<String> = args
            .split_whitespace()
            .map(|a| a.replace("{t}", &t.display().to_string()))
            .collect();
        let want = want.replace("{t}", &t.display().to_string());
        let started = Instant::now();
        let mut child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err_pipe = child.stderr.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err_pipe.read_to_string(&mut s);
            s
        });
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if started.elapsed() > LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let err = reader.join().unwrap();
        let problem = match status {
            None => Some(format!("still running after {LIMIT:?}")),
            Some(s) if s.code() != Some(2) => Some(format!("exit status {s}")),
            Some(_) if err.contains("panicked") => Some("panicked".to_string()),
            Some(_) if !err.contains(&want) => Some(format!("message lacks {want:?}")),
            Some(_) => None,
        };
        if let Some(p) = problem {
            failures.push(format!(
                "spindle {}: {p}\n    {}",
                args.join(" "),
                err.trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} bad invocations misbehaved:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}
