//! `spindle`: the command-line front end of the spindle HDD simulator.

use spindle_cli::{
    bench, disks, disksim_run, experiments, mimic, minimimic, options, outputs, raid, reproduce,
    run, sweep, torture, trace_cmd, validate,
};

use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;

/// Exit status for any error the command reports (usage errors from clap also exit 2).
const EXIT_ERROR: u8 = 2;
/// Exit status of `raid4 faults` when the array ever returned wrong data (the report
/// is still printed).
const EXIT_WRONG_DATA: u8 = 1;

#[derive(Parser)]
#[command(
    name = "spindle",
    version,
    about = "spindle: a fast, faithful, disk-aware storage stack",
    long_about = "spindle: a fast, faithful, disk-aware storage stack.\n\
        \n\
        At its base a hard-disk model (geometry, seeks, rotation, controller, cache and command\n\
        queue) that reads DiskSim 4.0 parameter files (.parv) and is validated against\n\
        DiskSim's real-drive measurements; on top, host schedulers (SMTF, freeblock), arrays\n\
        (RAID, MimdRAID's mirrors, splits and intra-disk replicas), caches, flash staging,\n\
        journals and I/O Deduplication, composed as a stack (`spindle run --config FILE.toml`).\n\
        \n\
        Units throughout: times in milliseconds (ms) unless stated, sizes in 512-byte sectors\n\
        (LBNs), capacities in decimal GB (10^9 bytes).",
    after_help = "Examples:\n  \
        spindle run\n  \
        spindle run --config examples/cache-raid5.toml\n  \
        spindle disks\n  \
        spindle disk-info cheetah15k5\n  \
        spindle validate\n  \
        spindle reproduce all --quick\n\n\
        Run `spindle help <command>` or `spindle <command> --help` for details."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Each subcommand's arguments are built only when that subcommand runs (`defer`):
/// building all of them costs a short run such as `spindle run --disksim` about
/// half a million instructions and the page faults of their code.
#[derive(Subcommand)]
#[command(defer = true)]
enum Command {
    /// Replay a workload through a host scheduler and drives, and summarise it
    #[command(
        long_about = "Replay a workload through a stack of host scheduler and simulated drives and print a\n\
            summary: response time (mean, p50, p90, p99, max), time at the disk split into overhead,\n\
            seek, rotation and transfer, queueing time, throughput and drive utilisation.\n\
            \n\
            With no arguments it replays the built-in HP trace (hplajw, one week of 1992, 44,519\n\
            requests) on two HP C2249A disks with SSTF at the host — DiskSim's own configuration for\n\
            that trace. Flags override a TOML configuration given with --config (or --stack):\n\
            \n\
            \x20 seed = 1\n\
            \x20 [workload]\n\
            \x20 trace = \"sample:hplajw\"    # or a file; format = \"msr\" etc. to skip detection\n\
            \x20 compress = 20.0            # optional time compression\n\
            \x20 limit = 10000              # optional: only the first N requests\n\
            \x20 [scheduler]\n\
            \x20 kind = \"clook\"             # fcfs | sstf | look | clook | greedy | smtf[-metric] |\n\
            \x20                            # online-set:<base> | online-priority:<base> | freeblock\n\
            \x20 queue-depth = 1            # requests outstanding at each drive\n\
            \x20 max-wait-ms = 500.0        # optional aging bound\n\
            \x20 hold-overlapping = true    # hold requests behind overlapping unfinished ones\n\
            \x20 window = 64                # optional: greedy and smtf compare the 64 oldest\n\
            \x20 [[disks]]\n\
            \x20 disk = \"mimic-base\"        # preset or DiskSim .parv\n\
            \x20 count = 1\n\
            \x20 write-cache-kib = 0        # optional: the drive's write cache (0: off)\n\
            \x20 [layout]                   # optional: a layout engine over a RAID-4 of the disk\n\
            \x20                            # (members FCFS, 8 outstanding: no [scheduler] then)\n\
            \x20 kind = \"dle\"               # dle | update-in-place | write-anywhere\n\
            \x20 staging-pct = 1.0          # flash staging area, % of the volume (dle only)\n\
            \x20 allocation-range-kib = 1024\n\
            \x20 threshold-kib = 168        # smaller writes are staged\n\
            \x20 volume-mib = 4096          # optional: manage only the volume's first MiB\n\
            \x20 sync-writes = true         # each RAID-4 batch ends with a cache flush\n\
            \x20 data = \"real-bytes\"        # real-bytes | timing-only\n\
            \x20 [[layer]]                  # optional, repeatable, top first: a layer above the\n\
            \x20 kind = \"journal\"           # device (cache | content-cache | drr | raid-mimic |\n\
            \x20                            # split | journal); the data journal's keys:\n\
            \x20 checksum = true           # transactional checksums (else commit blocks)\n\
            \x20 log-mib = 40              # log size\n\
            \x20 clean-below-pct = 25      # clean the log when less is free\n\
            \x20 skip = false              # log skipping, with minimimic = \"table.mimic\"\n\
            \x20 refine = true             # refine the table with observed log writes\n\
            \n\
            Examples of whole stacks are in examples/: a DLE over a RAID-4\n\
            (dle-raid4-smtf.toml) and a data journal over a RAID-4 (journal-raid4.toml).\n\
            \n\
            A [device] entry may carry a faults table (lost, misdirected, torn writes, bit flips,\n\
            drive failure, power cut): the stack run here is timing-only, so it is refused before\n\
            the run (file and line); `spindle torture --stack FILE` runs it on byte-exact arrays.\n\
            \n\
            Trace devices map to disks in order (device d → disk d mod n, laid end to end when\n\
            there are fewer disks than devices). Times in ms; sizes in 512-byte sectors.",
        after_help = "Examples:\n  \
            spindle run\n  \
            spindle run --disk mimic-base --scheduler clook --compress 20\n  \
            spindle run --trace my.csv --format msr --disk cheetah15k5 --queue-depth 8 --json\n  \
            spindle run --config run.toml --requests-csv out.csv
  \
            spindle run --stack examples/journal-raid4.toml\n  \
            spindle run --disk wd-re3 --synthetic open --read-fraction 0.3 --layout dle --staging-pct 0.01"
    )]
    Run(RunArgs),

    /// Run several schedulers on the same workload and compare them side by side
    #[command(
        long_about = "Replay the same workload through the stack once per scheduler and print a table of\n\
            mean, p90 and p99 response time, mean and total time at the disk, and queueing time.\n\
            --plot FILE.svg draws their response-time distributions. All stack options of\n\
            `spindle run` apply.",
        after_help = "Examples:\n  \
            spindle compare --disk mimic-base --trace sample:hplajw --compress 20 --schedulers fcfs,sstf,clook,greedy\n  \
            spindle compare --schedulers fcfs,sstf --plot cdf.svg --json"
    )]
    Compare(CompareArgs),

    /// Run a grid of `spindle run` options (cartesian product), one row of metrics per point
    #[command(
        long_about = "Run every point of a grid of `spindle run` options and write one row per point to a\n\
            Parquet file (and CSV with --csv): the point's index and key, its grid values, and its\n\
            metrics (requests, reads, writes, mean/p50/p90/p99/max response ms, mean service, queue,\n\
            overhead, seek, rotation and transfer ms, cache hit fraction, throughput per s, makespan\n\
            ms, total disk time ms, drives, mean and max drive utilization). The grid file:\n\
            \n\
            \x20 [grid]                           # each key a list; the sweep runs every combination\n\
            \x20 scheduler = [\"fcfs\", \"sstf\", \"clook\", \"greedy\"]\n\
            \x20 queue_depth = [1, 2, 4, 8]       # any `spindle run` option: queue_depth or queue-depth\n\
            \x20 seed = [1, 2, 3, 4]\n\
            \x20 [fixed]                          # optional: options every point shares\n\
            \x20 trace = \"sample:hplajw\"\n\
            \x20 layer = [\"drr\"]                  # a list here repeats a repeatable flag\n\
            \n\
            Values are strings, integers, floats or booleans (true is a switch such as spread, false\n\
            leaves it out); paths are relative to the current directory. A repeatable flag (layer)\n\
            takes a list as one value, so its key may be a list of lists, each inner list one point's\n\
            flags in order (top first):\n\
            \n\
            \x20 layer = [[\"drr\"], [\"content-cache:arc:50000\", \"drr\"]]\n\
            \n\
            runs each point with --layer drr and with --layer content-cache:arc:50000 --layer drr;\n\
            every value of such a key is a non-empty list of strings or numbers (no deeper lists, no\n\
            lists for a flag that takes one value), and its column holds each list as JSON text\n\
            ([\"drr\"]).\n\
            \n\
            Points are numbered in file order, the last key varying fastest (like nested loops); rows\n\
            are written in that order, so the same grid gives the same file byte for byte. A point's\n\
            key is a hash of all its options (fixed ones included), so running again skips the points\n\
            already in --out (the sweep resumes; a grown grid runs only its new points) and rewrites\n\
            the file with the old and new rows; a file holding points of another grid is refused. A\n\
            running sweep saves its rows every 30 s. Every point's options are checked before any\n\
            runs. Limits: 100,000 points, 32 keys, a 1 MiB grid file; a file with no [grid] key\n\
            is refused (to run one point, give one key a one-value list).\n\
            \n\
            Points run on --jobs threads in this process: a point is single-threaded Rust with no\n\
            shared state, so threads need no start-up or copying. The same grid from Python\n\
            (spindle.sweep, local or Ray) gives the same rows.",
        after_help = "Examples:\n  \
            spindle sweep grid.toml --out results.parquet\n  \
            spindle sweep grid.toml --out results.parquet --csv results.csv --jobs 4\n  \
            spindle sweep grid.toml --out results.parquet --list    # the points and their keys"
    )]
    Sweep(SweepArgs),

    /// Run registered reproductions of the papers' tables and figures, write a report
    #[command(
        long_about = "Run the registered experiments (catalog ids from EXPERIMENTS.md: DISKSIM-VALID,\n\
            DISK-SEEDS, PROX-T1, PROX-F1, PROX-F2, MIMD-EQ, HPLAJW-DISKSIM, MIMIC-F3.2, ...) and\n\
            write a report to DIR: index.html (for each experiment what it is, its plots, tables and a\n\
            table of paper value, our value, tolerance and pass/fail), one CSV per experiment, the\n\
            plots as SVG, and summary.json (every check: id, metric, paper, ours, tolerance, pass).\n\
            IDs may be prefixes (PROX selects all PROX-*); `all` or none runs everything. --quick\n\
            uses fewer samples (seconds instead of minutes). The same seed gives identical files.",
        after_help = "Examples:\n  \
            spindle reproduce all --quick --out report\n  \
            spindle reproduce PROX-T1 PROX-F1 --out prox\n  \
            spindle reproduce MIMD --json"
    )]
    Reproduce(ReproduceArgs),

    /// Disk Mimic: configure its table off-line by probing a disk, or show a table
    #[command(subcommand)]
    Mimic(MimicCommand),

    /// Probe a real device's (or a simulated disk's) mechanics from timing
    #[command(subcommand)]
    Probe(ProbeCommand),

    /// List the built-in disk and flash presets with their key parameters
    #[command(
        long_about = "List every built-in disk preset with its key parameters: capacity (GB = sectors × 512 /\n\
            10^9, and sectors), surfaces, cylinders, zones, rotation speed (rpm), the drive's\n\
            command queue (depth and policy: FCFS or SPTF) and where its numbers come from. The four\n\
            DiskSim drives (cheetah9lp, ibm18es, atlas10k, hp-c2247a) are DiskSim's validated models\n\
            built into the binary; the others are built from the seed papers.\n\
            \n\
            Below the disks comes a second table of flash (SSD) presets for staging areas and\n\
            metadata: capacity (GB = 10^9 bytes), effective channels, queue limit, the time of one\n\
            4 KiB read and write on an idle device (µs), device bandwidth (MB/s = 10^6 bytes/s, all\n\
            channels streaming) and the 4 KiB random IOPS the model sustains with every channel busy.\n\
            Their parameters are fitted to the manufacturers' datasheets (see the provenance).\n\
            \n\
            --flash lists only the flash presets. --json prints the disks as before (an array of\n\
            disks, unchanged for scripts); --flash --json prints the flash presets as an array with\n\
            every model parameter and the datasheet figures they were fitted to.",
        after_help = "Examples:\n  \
            spindle disks\n  \
            spindle disks --json            # disks only, full provenance of each preset\n  \
            spindle disks --flash           # flash presets only\n  \
            spindle disks --flash --json    # flash presets: parameters and datasheet figures"
    )]
    Disks(DisksArgs),

    /// Show one disk in detail: geometry, zones, seek and rotation times, cache, overheads
    #[command(
        name = "disk-info",
        long_about = "Show one disk in detail: capacity, surfaces and cylinders, the zone table (first/last\n\
            cylinder, sectors per track, first LBN, LBN count), rotation speed and revolution time,\n\
            single-cylinder, average and full-stroke seek times, head switch, write settle, cache\n\
            (segments × size, read-ahead, write policy), command overheads and bus time, command\n\
            queue, and provenance.\n\
            \n\
            DISK is a preset name (see `spindle disks`) or a DiskSim 4.0 parameter file: an argument\n\
            ending in .parv, or any existing path, is imported (its first disk). All times are in\n\
            ms; sizes in 512-byte sectors.",
        after_help = "Examples:\n  \
            spindle disk-info mimic-base\n  \
            spindle disk-info data/disksim/atlas10k.parv\n  \
            spindle disk-info cheetah15k5 --json"
    )]
    DiskInfo(DiskInfoArgs),

    /// Summarise a trace file (requests, devices, sizes, rate, sequentiality), or convert it to CSV
    #[command(
        long_about = "Read a trace and summarise it: its format (detected unless --format names it),\n\
            requests and read share, bytes read and written, the time from the first request to the\n\
            last and the request rate, request sizes (mean, p50, p90, p99, largest, in 512-byte\n\
            sectors), the share of requests that start where their device's previous one ended,\n\
            and per device (the 20 busiest in text, all in JSON) requests, reads, extent and\n\
            sequential share. The file is read as a stream, in memory that grows only with the\n\
            number of devices and of distinct request sizes; formats with an absolute clock (msr,\n\
            fiu, hp-srt, alibaba, tencent) and blkparse and blktrace take a first pass too, so the\n\
            file must be a regular file (not a pipe) and --limit does not shorten that pass. The\n\
            sequential share and --limit follow the file's order. --csv writes the records read\n\
            as spindle CSV (file order, content hashes kept), which every spindle command and the\n\
            Python package read back; it is renamed into place only when the whole trace was read,\n\
            and written compressed when named .gz (gzip) or .zst (Zstandard).\n\
            \n\
            Formats: disksim-ascii, disksim-validate, hp-srt, msr, fiu, spc, blkparse, blktrace\n\
            (binary), alibaba, tencent, spindle-csv. Any of them may be gzip- or Zstandard-\n\
            compressed (told by the first bytes, not the name): it is decompressed as it is read,\n\
            on every pass, and never written out. Archives (tar, zip) and xz or bzip2 files are\n\
            refused: extract or recompress them first.\n\
            \n\
            Several files are merged into one trace by arrival, on one clock (the earliest record\n\
            of any file, for formats with an absolute clock), one record of each held at a time:\n\
            an MSR server's volumes, an FIU trace's days. They must share a format. Where two\n\
            files hold the same device number, --trace-devices says whether they are one device\n\
            (as-recorded) or file k is device k (per-file). With --csv the merged trace is\n\
            written as one file, which replays without the originals.",
        after_help = "Examples:\n  \
            spindle trace sda.blktrace.0\n  \
            spindle trace hm_0.csv.gz\n  \
            spindle trace hm_0.csv.gz hm_1.csv.gz --trace-devices per-file --csv hm.csv\n  \
            spindle trace io_traces.csv --device 17 --csv volume17.csv\n  \
            spindle trace hm_0.csv --format msr --json"
    )]
    Trace(TraceArgs),

    /// Replay DiskSim validation traces and compare with the real drives' measurements
    #[command(
        long_about = "Replay DiskSim validation traces and report how closely the simulated response times\n\
            match those measured on the real drive.\n\
            \n\
            For each FILE.parv: import its disk, read FILE.trace from the same directory (DiskSim's\n\
            validate format: op, buffer action, LBN, sectors, measured µs, think time µs), replay it\n\
            closed-loop with one request outstanding, and print the number of requests, the rms\n\
            demerit (Ruemmler-Wilkes: root-mean-square horizontal distance between the simulated and\n\
            measured response-time distributions), the mean measured and mean simulated response\n\
            times — all in ms. For DiskSim's own validation drives (matched by file name) DiskSim\n\
            4.0's published rms and mean are shown with the ratio ours/DiskSim.\n\
            \n\
            With no FILE, validates the four DiskSim drives (cheetah9LP, ibm18es, atlas10k,\n\
            hp_c2247a) from the copies built into the binary. A FILE may also be one of those names.\n\
            \n\
            A FILE may also be a spindle drive file (.toml, e.g. from `spindle calibrate`): its trace\n\
            is FILE.trace beside it, else the built-in trace of the drive it was calibrated from.\n\
            \n\
            With --calibrated, each drive is calibrated on the first half of its trace (see `spindle\n\
            calibrate`) and judged on the second half only: the table shows the uncalibrated and the\n\
            calibrated rms on that half beside DiskSim's rms on the same half, how each drive's times\n\
            are predicted (one replay, or phase-averaged where the trace does not pin the platter's\n\
            phase) and the sampling noise one replay carries.\n\
            \n\
            Any import or trace error stops with the file, line and problem, exit status 2.",
        after_help = "Examples:\n  \
            spindle validate\n  \
            spindle validate --calibrated\n  \
            spindle validate data/disksim/cheetah9LP.parv\n  \
            spindle validate my-drive.parv --json      # needs my-drive.trace beside it"
    )]
    Validate(ValidateArgs),

    /// Fit a drive's approximate parameters to its measured request times
    #[command(
        long_about = "Calibration from measurements. Fits what a drive file leaves approximate to the\n\
            drive's measured request times (a DiskSim validate-format trace): an offset on the\n\
            read-hit, read-miss and write command overheads, a scale and an offset (settle) on the\n\
            seek curve, the head-switch time and the write settle. The fit minimizes the rms\n\
            demerit of a closed-loop replay (deterministic pattern search, at most 400 replays a\n\
            fit). Which knobs to fit is itself chosen on held-out requests: each of 4 knob sets is\n\
            fitted to one half of the training requests, with and without a buffer residual (below),\n\
            and judged on the other, then the chosen set is fitted to them all (9 fits, so at most a\n\
            little over 3,600 replays).\n\
            \n\
            The buffer residual: requests the drive serves from its buffer (read hits, buffered\n\
            writes) never touch the media, so measured minus simulated time is the model's error\n\
            request by request. Per class (read or write, continuing the previous request or not)\n\
            their 8 quantiles become a distribution the drive draws one value from per request\n\
            (seeded: [cache.buffer_residual] seed). It is fitted before the knobs.\n\
            \n\
            Where the trace does not pin down where the platter was (few media reads line up with\n\
            the model's phase), the times are predicted phase-averaged, each media access's\n\
            rotational wait spread evenly over a revolution, and a read residual per positioning\n\
            class (same track, head switch, seek distance) is fitted on top where held-out requests\n\
            prefer it. It is written into the drive file ([mech.read_residual]).\n\
            \n\
            By default it fits on the first half of the trace and reports the demerit on the second\n\
            half, which the fit never saw; --all-requests fits on every request (for a drive file to\n\
            use, with no held-out figure). --out writes the calibrated drive as a spindle drive file\n\
            (TOML) that `spindle run --disk FILE.toml` and `spindle validate FILE.toml` accept.\n\
            \n\
            With --probe-table the measurements are a Disk Mimic table from `spindle mimic probe`\n\
            (of a real file or device with --device, or of a model): the drive is probed the same way\n\
            and scored by the rms of mean service times over bins of probed distances (means, since one\n\
            distance's few samples are mostly rotational latency). It fits on every other probed\n\
            distance and judges on the rest; --all-requests fits on all of them. The table records\n\
            distances, not places: the model's probes land anywhere on the model.",
        after_help = "Examples:\n  \
            spindle calibrate cheetah9LP\n  \
            spindle calibrate cheetah9LP --out cheetah9LP-calibrated.toml\n  \
            spindle calibrate my-drive.parv --all-requests --out my-drive.toml   # my-drive.trace beside it\n  \
            spindle mimic probe --device /dev/sdb --out sdb.json && spindle calibrate hp-c2249a --probe-table sdb.json --out sdb.toml"
    )]
    Calibrate(CalibrateArgs),

    /// Time the simulator's hot paths (replay throughput, SPTF and host scheduler decisions)
    #[command(
        long_about = "Micro-benchmarks of the simulator's hot paths:\n\
            \n\
            • replay: requests per second of the closed-loop validation replay of DiskSim's\n\
            \x20 cheetah9LP trace (10,000 requests), parsing and drive construction excluded; target\n\
            \x20 8,000,000 requests/s. DiskSim 4.0's optimized build replays the same traces at\n\
            \x20 19,000-49,000 requests/s on the development machine.\n\
            • sptf: nanoseconds for one shortest-positioning-time-first choice among 64 queued\n\
            \x20 random requests on the cheetah15k5 preset; target 5,000 ns.\n\
            • sched: nanoseconds per host-queue decision (one push and one pop) at queue depths\n\
            \x20 64, 1,000 and 100,000 for fcfs, sstf, clook and greedy with a 64-request window.\n\
            • mimic: one Disk Mimic lookup and one SMTF choice among 1,000 queued requests.\n\
            • raid4: host CPU per simulated 4 KiB update of a byte-exact 4+1 RAID-4.\n\
            • stack: requests per second of `spindle run --synthetic open --disks 3` in process\n\
            \x20 (200,000 requests); target 3,000,000 requests/s.\n\
            • replica: one mirror read's replica choice among 4 by positioning time; target\n\
            \x20 1,000 ns.\n\
            • dedup: content-cache lookups per second by hash-table size, replaying a trace\n\
            \x20 with read-ahead (and at the best size one request at a time); target 20,000,000.\n\
            \n\
            Each figure is the median of several timed runs; the whole takes a few seconds. Build\n\
            with --release: a debug build is many times slower.",
        after_help = "Examples:\n  \
            spindle bench\n  \
            spindle bench --json\n  \
            spindle bench --readme README.md"
    )]
    Bench(BenchArgs),

    /// Strands of small requests queued together (proximal I/O Table 1, Figure 1)
    #[command(
        long_about = "Strands of small requests issued together, in ascending LBN order, to the drive's SPTF\n\
            command queue (proximal I/O paper, Table 1 and Figure 1: PROX-T1, PROX-F1). For 1 to 8\n\
            requests per strand and four placements — semi-sequential (each request on the next\n\
            track, rotated by the minimal repositioning time), track-approximate (random within 1,024\n\
            LBNs), proximal reads and proximal writes (random within 100,000 LBNs) — prints the mean\n\
            strand response time (first issue to last completion, ms), the per-request time in ms\n\
            and in OP (one random request at queue depth 1), the paper's values, and the checks.",
        after_help = "Examples:\n  \
            spindle strands\n  \
            spindle strands --disk cheetah15k5 --json\n  \
            spindle strands --disk wd-re3 --trials 500"
    )]
    Strands(StrandsArgs),

    /// Random requests at queue depth 1: mean service time and its breakdown
    #[command(
        name = "random-io",
        long_about = "Uniformly random requests over the whole disk, one at a time, with a random idle phase\n\
            between them: the mean service time (ms) split into overhead, seek, rotational latency\n\
            and transfer, and random requests served per revolution.",
        after_help = "Examples:\n  \
            spindle random-io --disk cheetah15k5\n  \
            spindle random-io --disk st34502lw --blocks 1 --json"
    )]
    RandomIo(RandomIoArgs),

    /// Check the presets against the seed papers' drive numbers
    #[command(
        name = "seed-checks",
        long_about = "Measures the seed papers' drive numbers on the presets and compares them with the papers:\n\
            Cheetah 15K.5 random 4 KiB read 5.6 ms and write 5.8 ms, WD RE3 random read 11.1-11.7 ms,\n\
            ST34502LW single-sector random read 8.8 ms (all ±10 %), and the thesis's base disk seek\n\
            times 0.8 / 6.0 / 8.0 ms at 1 / 400 / 3000 cylinders with a 6 ms revolution.",
        after_help = "Examples:\n  \
            spindle seed-checks\n  \
            spindle seed-checks --json"
    )]
    SeedChecks(SeedChecksArgs),

    /// RAID-4 with per-block checksums: the PROX-T2 baseline and fault injection
    #[command(subcommand)]
    Raid4(Raid4Command),

    /// A seeded fault campaign over a byte-exact stack: faults, failures, power cuts
    #[command(
        long_about = "Runs random write and read batches (1-6 blocks) against a byte-exact stack while every\n\
            member's own seeded fault stream loses writes (acknowledged, not stored), misdirects them\n\
            (stored at a nearby wrong block), tears them (only the first 1-7 sectors stored) and flips\n\
            stored bits; whole drives fail and are rebuilt on replacements; the power is cut in the\n\
            middle of writes and the stack recovers — all interleaved with the user I/O. Every read is\n\
            compared with an in-memory copy of the volume (a block a power cut caught mid-write may\n\
            read as its old or new contents). Prints per fault kind what was injected, detected and\n\
            repaired, the reads refused as unrecoverable, and the WRONG BYTES returned (must be 0).\n\
            \n\
            The stack is a 4+1 RAID-4 (--array raid5: a RAID-5, the same group with its parity\n\
            rotating stripe by stripe, data placed around it by --parity-layout: left-symmetric,\n\
            the default as in `spindle run`, or left-asymmetric) unless --stack FILE names one: the\n\
            [device] tree of a run TOML, kind = \"raid4\", \"raid5\" (either parity-layout),\n\
            \"raid1\"/\"mirror\" or MimdRAID's \"intra\" with reliable = true, of identical drives,\n\
            where any entry may carry a faults table\n\
            (member's own, else its array's, else the command-line rates):\n\
            \n\
            \x20 [device]\n\
            \x20 kind = \"raid4\"\n\
            \x20 count = 5\n\
            \x20 stripe-kib = 64\n\
            \x20 [device.member]\n\
            \x20 kind = \"disk\"\n\
            \x20 disk = \"wd-re3\"\n\
            \x20 faults = { lost = 0.01, misdirected = 0.01, torn = 0.01, flips = 0.01,\n\
            \x20            fail-at-ms = 2000.0, crash-at-ms = 5000.0, seed = 7 }\n\
            \n\
            Each member draws from its own stream (the seed mixed with its place in the tree). The\n\
            byte-exact mirror and intra keep no checksums, so they take drive failures only;\n\
            timing-only kinds (raid0, MimdRAID's others, ...) are refused, as `spindle run` refuses any\n\
            faults table. Same seed,\n\
            same output, byte for byte.\n\
            \n\
            --array journal runs the data journal (commit blocks, or --log-checksum; --log-skip for\n\
            log skipping) on one write-through drive and cuts the power during writes (--crash, or\n\
            --rate): each block of a write in flight lands whole, not at all, or torn (first 1-7\n\
            sectors). After each cut the log is replayed and the whole volume read back: it must be\n\
            the state after some prefix of the transactions holding every acknowledged write. The\n\
            drive's writes may also be lost, misdirected or torn outside a cut, and stored blocks\n\
            flipped (--lost, --misdirected, --torn, --flips; --rate sets all of them and --crash):\n\
            the journal keeps an xxh3 checksum with each home block, and a block that fails it is\n\
            refused (counted), never returned. Drive failure (--fail) is refused: one drive holds\n\
            one copy, with nothing to rebuild from.\n\
            \n\
            --array journal --below raid4|raid5|mirror puts the journal's bytes on a byte-exact\n\
            array of --members drives (the journal's timing is the same array's timing model).\n\
            --fail is then the probability, per journal device write while every member is up,\n\
            that one member fails; it is rebuilt on a replacement at the first round (200\n\
            requests) after --replace-after requests, so power cuts and recoveries also land\n\
            while it is down.\n\
            The RAID-4's and RAID-5's members take --lost, --misdirected, --torn and --flips\n\
            (their checksums and generations catch them; the mirror keeps none, so it takes\n\
            --fail and --crash only).\n\
            Recovery reads the log and home blocks through the array: a block the array cannot\n\
            prove is missing to recovery and refused to the reader, never returned.\n\
            \n\
            --stack FILE runs the file's [device] tree (raid4, raid5 in either parity layout, or\n\
            raid1/mirror, of drives); with a [[layer]] kind = \"journal\" above it, the journal\n\
            campaign over that device (a drive, a raid4, a raid5 or a mirror); with a [layout], the\n\
            layout engine's campaign over its raid4 or raid5 (scaled down). Other layers carry no\n\
            bytes and are refused with the file and line.\n\
            \n\
            --array dle runs the data layout engine (small writes staged on x25m-g2 flash, destages)\n\
            over a 4+1 RAID-4 of --disk (--below raid5: a RAID-5, --parity-layout as above; the\n\
            engine's placement is tuned for RAID-4, the bytes are checked all the same); the\n\
            array's members take every fault kind, and power cuts hit flash and disk writes\n\
            alike, then the engine recovers. --span is split over 8\n\
            extents. The engine's metadata (extent maps, staging records, batch intents, snapshots)\n\
            is a log of records on the flash, each with an xxh3 checksum; recovery replays it.\n\
            --torn-metadata: a power cut that lands on a metadata write tears that record (a\n\
            seeded prefix reaches the flash, the rest is garbage); recovery must find the torn\n\
            tail by its checksum and cut it off, and the report counts records torn and tails cut\n\
            off. The flash takes no other faults: one copy of the log could detect damage to an\n\
            acknowledged record but not repair it.\n\
            \n\
            Exit status: 0 if every read returned the written bytes or was refused; 1 if any read\n\
            ever returned wrong bytes (the report is printed all the same); 2 on other errors.",
        after_help = "Examples:\n  \
            spindle torture --rate 0.01\n  \
            spindle torture --rate 0.05 --ops 100000 --seed 7 --json\n  \
            spindle torture --lost 0.01 --fail 0.001 --crash 0.001\n  \
            spindle torture --array raid5 --rate 0.01 --ops 100000 --seed 3\n  \
            spindle torture --array raid5 --parity-layout left-asymmetric --rate 0.05\n  \
            spindle torture --array mirror --members 3 --fail 0.01\n  \
            spindle torture --array journal --log-checksum --crash 0.05 --ops 20000\n  \
            spindle torture --array journal --rate 0.01 --ops 100000 --seed 2\n  \
            spindle torture --array journal --below raid4 --rate 0.01 --fail 0.002 --log-checksum\n  \
            spindle torture --array journal --below mirror --members 2 --fail 0.005 --crash 0.02\n  \
            spindle torture --array journal --below raid5 --rate 0.01 --ops 100000\n  \
            spindle torture --stack examples/journal-raid4.toml --rate 0.01 --fail 0.002\n  \
            spindle torture --array dle --rate 0.01 --ops 20000\n  \
            spindle torture --array dle --crash 0.05 --torn-metadata --seed 4\n  \
            spindle torture --array dle --below raid5 --rate 0.01\n  \
            spindle torture --stack stack.toml --seed 3"
    )]
    Torture(torture::TortureOptions),
}

// Array shape shared by the `raid4` subcommands. (A plain comment: a doc comment
// would replace their help text, their arguments being built deferred.)
#[derive(Args)]
struct ArrayArgs {
    /// Member drive: a preset name or a DiskSim .parv file
    #[arg(long, default_value = "wd-re3")]
    disk: String,
    /// Data members (one more holds parity)
    #[arg(long, default_value_t = 4)]
    data_disks: usize,
    /// Stripe unit in KiB (1024 for nearline drives, 512 for enterprise drives)
    #[arg(long, default_value_t = 1024)]
    stripe_unit_kib: u64,
    /// Requests outstanding at each drive
    #[arg(long, default_value_t = 8)]
    outstanding: usize,
}

#[derive(Subcommand)]
#[command(defer = true)]
enum Raid4Command {
    /// Random single-block updates, one at a time (PROX-T2's baseline row)
    #[command(
        long_about = "A RAID-4 group (parity on the last member) that stores real bytes, with a 64-byte\n\
            checksum/generation/identity entry per 4 KiB block packed into one checksum block per 63\n\
            data blocks. Each random 4 KiB update reads data, parity and both checksum blocks and\n\
            writes all four back (8 disk I/Os); before each, one random read per drive moves the\n\
            heads (not counted). Prints PROX-T2's columns: response time, disk I/Os, amplification,\n\
            I/Os per revolution, and each data and parity drive's I/Os, service time and utilization.\n\
            As in the paper's baseline, an update returns once the drives acknowledge its writes\n\
            (from their write caches where they have one: wd-re3 does); --sync flushes the caches\n\
            after every update, --write-through turns them off.",
        after_help = "Examples:\n  \
            spindle raid4 baseline\n  \
            spindle raid4 baseline --write-through\n  \
            spindle raid4 baseline --disk cheetah15k5 --stripe-unit-kib 512 --updates 5000 --json"
    )]
    Baseline {
        #[command(flatten)]
        array: ArrayArgs,
        /// Number of updates
        #[arg(long, default_value_t = 2000)]
        updates: usize,
        /// Flush the drives' write caches at the end of every update
        #[arg(long)]
        sync: bool,
        /// Run the drives without their write caches
        #[arg(long)]
        write_through: bool,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print the row as JSON
        #[arg(long)]
        json: bool,
    },
    /// Random reads and writes while injecting lost writes, misdirected writes and bit flips
    #[command(
        long_about = "Runs random write and read batches (1-6 blocks) against a 4+1 RAID-4 while member writes\n\
            are lost (acknowledged, not stored) or misdirected (stored at a nearby wrong block) with\n\
            the given probabilities, and after each operation a stored bit flips with probability\n\
            --flips. Every read is compared with an in-memory copy of the volume; a scrub runs every\n\
            --scrub-every operations and once more at the end. Prints what was injected, detected and\n\
            repaired, and how many wrong bytes were ever returned (must be 0).\n\
            \n\
            Exit status: 0 if every read returned the written bytes or was refused; 1 if any read\n\
            ever returned wrong bytes (the report is printed all the same); 2 on other errors.",
        after_help = "Examples:\n  \
            spindle raid4 faults\n  \
            spindle raid4 faults --ops 20000 --lost 0.002 --misdirected 0.002 --flips 0.05 --json"
    )]
    Faults {
        /// Member drive: a preset name or a DiskSim .parv file
        #[arg(long, default_value = "wd-re3")]
        disk: String,
        /// Operations (write or read batches), at most 1,000,000
        #[arg(long, default_value_t = 3000)]
        ops: usize,
        /// Volume blocks the operations touch, at most 65,536; the scrubs' work, (--ops /
        /// --scrub-every + 2) × --span / 4 stripe rows, is at most 20,000,000 row checks
        #[arg(long, default_value_t = 2400)]
        span: u64,
        /// Probability that a member write is lost
        #[arg(long, default_value_t = 0.001)]
        lost: f64,
        /// Probability that a member write lands on a wrong block
        #[arg(long, default_value_t = 0.001)]
        misdirected: f64,
        /// Probability of one bit flip in a stored block after each operation
        #[arg(long, default_value_t = 0.02)]
        flips: f64,
        /// Scrub after every N operations (0: only at the end)
        #[arg(long, default_value_t = 100)]
        scrub_every: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct StrandsArgs {
    /// A preset name or a DiskSim .parv file
    #[arg(long, default_value = "cheetah15k5")]
    disk: String,
    /// Strands per (placement, size) cell
    #[arg(long, default_value_t = 2000)]
    trials: usize,
    /// Request size in 512-byte sectors
    #[arg(long, default_value_t = 8)]
    blocks: u32,
    /// Seed of the random placement
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON (rows and checks)
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct RandomIoArgs {
    /// A preset name or a DiskSim .parv file
    #[arg(long, default_value = "cheetah15k5")]
    disk: String,
    /// Number of requests
    #[arg(long, default_value_t = 10_000)]
    requests: usize,
    /// Request size in 512-byte sectors
    #[arg(long, default_value_t = 8)]
    blocks: u32,
    /// Issue writes instead of reads
    #[arg(long)]
    write: bool,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct SeedChecksArgs {
    /// Random requests per measurement
    #[arg(long, default_value_t = 10_000)]
    requests: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON (a list of checks: id, metric, paper, ours, tolerance, pass)
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    opts: options::StackOptions,
    /// Print the summary as JSON (the same as --output-format json)
    #[arg(long)]
    json: bool,
    /// How to print the result: text, json (as --json) or fio-json (fio's JSON output:
    /// per direction iops, bw_bytes, total_ios and slat/clat/lat_ns with min, max,
    /// mean, stddev, N and percentiles keyed as fio keys them). `--format text|json|fio-json`
    /// means the same (no trace format has these names) [default: text]
    #[arg(long, value_name = "FORMAT", value_enum)]
    output_format: Option<run::OutputFormat>,
    /// Write one CSV line per request to FILE, as each completes (`-`: standard output,
    /// and the summary then goes to standard error; FILE.gz or FILE.zst: compressed,
    /// gzip or Zstandard, on a second thread)
    #[arg(long, value_name = "FILE")]
    requests_csv: Option<std::path::PathBuf>,
    /// Draw the stack (queues, arrays, drives) this run would build, and stop
    #[arg(long)]
    print_stack: bool,
    /// Run a whole DiskSim configuration with its synthetic generator (disks as a
    /// volume set behind the I/O driver's queue); other stack flags do not apply
    #[arg(long, value_name = "FILE.parv")]
    disksim: Option<std::path::PathBuf>,
    /// With --disksim: generator seeds, comma-separated, each 0..=2147483647 (DiskSim's)
    /// [default: the file's Init Seed]
    #[arg(long, value_name = "N,N,..")]
    disksim_seeds: Option<String>,
}

#[derive(Subcommand)]
#[command(defer = true)]
enum MimicCommand {
    /// Probe a disk through the device interface and write the Disk Mimic's table
    #[command(
        long_about = "Configure a Disk Mimic off-line: for random signed inter-request distances (and all four\n\
            read/write pairs) probe the disk — a random access, then a 2-sector request and a second\n\
            one the distance beyond it, S times — and record the service times it observes. With\n\
            --interpolate, the thesis's Table 3.2 ladder interpolates intervals whose ends predict\n\
            their check points. Reports distances probed and interpolated, samples and memory.",
        after_help = "Examples:\n  \
            spindle mimic probe --disk mimic-base --out table.json\n  \
            spindle mimic probe --disk cheetah9lp --distances 500 --samples 20 --interpolate --out t.json\n  \
            spindle mimic probe --device /dev/sdb --distances 500 --out sdb.json\n  \
            spindle run --scheduler smtf --mimic-table sdb.json"
    )]
    Probe {
        /// A preset or DiskSim .parv file
        #[arg(long, default_value = "mimic-base", conflicts_with = "device")]
        disk: String,
        /// Probe a real file or block device instead, timing reads with O_DIRECT (only
        /// reads, so only the read→read table, unless --allow-writes)
        #[arg(long, value_name = "PATH")]
        device: Option<std::path::PathBuf>,
        /// With --device: also time writes (of zeros, destroying the data at the probed
        /// places) and probe all four read/write pairs; refused on a device that holds a
        /// file system or partition table, is mounted, or is held by LVM/RAID
        #[arg(long, requires = "device")]
        allow_writes: bool,
        /// Random distances to ask for
        #[arg(long, default_value_t = 2000)]
        distances: usize,
        /// Samples per distance
        #[arg(long, default_value_t = 10)]
        samples: u32,
        /// Interpolate with the Table 3.2 ladder
        #[arg(long)]
        interpolate: bool,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where to write the table (JSON)
        #[arg(long, value_name = "FILE")]
        out: std::path::PathBuf,
    },
    /// Sample miniMimic's table (skip × size × think time) for the journal's log skipping
    #[command(
        long_about = "Sample miniMimic off-line: on a log region at the start of a simulated drive, time\n\
            chains of synchronous writes, each `skip` beyond the end of the one before and issued\n\
            `think` after it completed, for every (skip, size, think) of the grid: the thesis's\n\
            (skip 0-300 KB and size 4-200 KB in 4 KB steps, think 0-7 ms in 200 us steps, 50\n\
            samples: 6.84 M timed writes) or, with --quick, a coarse one. Writes the table\n\
            (`minimimic 1` text) that `--layer journal:skip=TABLE` loads.",
        after_help = "Examples:\n  \
            spindle mimic skips --quick --out quick.mimic\n  \
            spindle run --synthetic closed --layer journal:skip=quick.mimic --disks 1"
    )]
    Skips {
        /// A preset or DiskSim .parv file (the thesis's SCSI Disk 1: mimic-9lzx)
        #[arg(long, default_value = "mimic-9lzx")]
        disk: String,
        /// The coarse grid (14,560 timed writes) instead of the thesis's
        #[arg(long)]
        quick: bool,
        /// Timed writes per cell [default: the grid's, 50 or 10 with --quick]
        #[arg(long, value_name = "N")]
        samples: Option<u32>,
        /// Log size, MiB (the thesis: 40)
        #[arg(long, value_name = "MIB", default_value_t = 40)]
        log_mib: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where to write the table
        #[arg(long, value_name = "FILE")]
        out: std::path::PathBuf,
    },
    /// Summarise a table written by `spindle mimic probe`
    Show {
        /// The table (JSON)
        #[arg(value_name = "FILE")]
        table: std::path::PathBuf,
    },
}

#[derive(Subcommand)]
#[command(defer = true)]
enum ProbeCommand {
    /// Estimate the rotation period and sectors per track from timing (head tracking)
    #[command(
        long_about = "Estimate a disk's rotation from timing alone: one sector is reread back to back (on a\n\
            rotating disk with its read cache off, completions are one revolution apart: the period\n\
            is the modal interval), then pairs of reads k sectors apart give the sector time and so\n\
            the sectors per track. On a file, an SSD or a disk whose read cache serves the rereads,\n\
            it says that no rotation was found. A simulated disk (--disk) is probed with its cache\n\
            off and its true values are shown beside the estimate.",
        after_help = "Examples:\n  \
            spindle probe rotation --disk hp-c2249a\n  \
            spindle probe rotation --device /dev/sdb --at 1000000"
    )]
    Rotation {
        /// A real file or block device (read only, O_DIRECT)
        #[arg(long, value_name = "PATH", conflicts_with = "disk")]
        device: Option<std::path::PathBuf>,
        /// A simulated disk (preset or .parv) instead, as a test target
        #[arg(long, value_name = "NAME")]
        disk: Option<String>,
        /// First LBN (512-byte sector) of the probed region
        #[arg(long, value_name = "LBN", default_value_t = 0)]
        at: u64,
        /// Sectors in the probed region, at least 2 [default: 20000, or to the end of the
        /// device if fewer remain]
        #[arg(long, value_name = "SECTORS")]
        span: Option<u64>,
        /// Rereads, and pairs per stage (8 to 100000)
        #[arg(long, default_value_t = 200)]
        samples: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct ReproduceArgs {
    /// Experiment ids or id prefixes; `all` (the default) runs every one
    #[arg(value_name = "ID")]
    ids: Vec<String>,
    /// Fewer samples: a quick check instead of a full reproduction (experiments that take
    /// only seconds at full size run at full size: PROX-T1, PROX-F1, DISK-SEEDS,
    /// LOGSKIP-F5.2, FREEBLK-F4.1, FREEBLK-EQ and every DEDUP but DEDUP-F8)
    #[arg(long)]
    quick: bool,
    /// The paper's full scale where supported: PROX-T2's 1 % row on whole 1 TB drives
    /// (timing-only data, layout-only aging; minutes and several GB of memory)
    #[arg(long)]
    full_scale: bool,
    /// When an array write counts as done, for every row of PROX-T2 and the layout-engine
    /// runs: `write-through` (on the media when it completes: the members' write caches
    /// are off), `flush` (the drives cache writes; each update and destage ends with a
    /// cache flush) or `cache` (in the drives' write caches)
    #[arg(long, value_name = "POLICY", default_value = "write-through")]
    durability: spindle::experiments::registry::Durability,
    /// Report directory
    #[arg(long, value_name = "DIR", default_value = "spindle-report")]
    out: std::path::PathBuf,
    /// Seed of every random draw
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print summary.json's content instead of the summary table
    #[arg(long)]
    json: bool,
    /// Experiments run at once (default: the number of CPU cores). The report is the
    /// same for any value: each experiment draws from its own seeded generators
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Rewrite the summary block of this README (between its `spindle reproduce summary`
    /// markers) with this run's summary
    #[arg(long, value_name = "FILE")]
    readme: Option<std::path::PathBuf>,
}

#[derive(Args)]
struct SweepArgs {
    /// The grid (TOML: a [grid] table of lists, an optional [fixed] table)
    #[arg(value_name = "GRID.toml")]
    grid: std::path::PathBuf,
    /// Parquet file of the rows; points already in it are skipped
    #[arg(long, value_name = "FILE.parquet")]
    out: std::path::PathBuf,
    /// Also write the rows as CSV
    #[arg(long, value_name = "FILE.csv")]
    csv: Option<std::path::PathBuf>,
    /// Points run at once [default: the number of CPU cores]
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Print the points (key, index, values) and stop
    #[arg(long)]
    list: bool,
}

#[derive(Args)]
struct CompareArgs {
    #[command(flatten)]
    stack: run::StackArgs,
    /// Comma-separated schedulers to compare
    #[arg(long, value_name = "LIST", default_value = "fcfs,sstf,clook,greedy")]
    schedulers: String,
    /// Draw the response-time CDFs to an SVG file
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<std::path::PathBuf>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

fn parse_scheduler(s: &str) -> anyhow::Result<spindle::sched::SchedulerKind> {
    s.trim().parse().map_err(|e: String| anyhow::anyhow!(e))
}

#[derive(Args)]
struct DisksArgs {
    /// List only the flash (SSD) presets
    #[arg(long)]
    flash: bool,
    /// Print JSON instead of tables: the disks, or with --flash the flash presets
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct TraceArgs {
    /// The trace: a file, FORMAT:PATH or sample:hplajw; several files are merged into one
    /// trace by arrival
    #[arg(value_name = "TRACE", required = true)]
    trace: Vec<String>,
    /// How merged files' devices are numbered: per-file (file k is device k) or
    /// as-recorded; needed when two files hold the same device number
    #[arg(long, value_name = "NUMBERING")]
    trace_devices: Option<spindle::trace::DeviceNumbering>,
    /// The format, when detection should not guess
    #[arg(long, value_name = "FORMAT")]
    format: Option<String>,
    /// Keep only this trace device's requests
    #[arg(long, value_name = "N")]
    device: Option<u32>,
    /// Stop after this many requests (after --device)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    limit: Option<u64>,
    /// Also write the requests read as spindle CSV to this file (`-`: standard output, and
    /// the summary then goes to standard error)
    #[arg(long, value_name = "FILE")]
    csv: Option<std::path::PathBuf>,
    /// Print JSON instead of text (times in ns, sizes in sectors)
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct DiskInfoArgs {
    /// A preset name (see `spindle disks`) or a DiskSim .parv file
    #[arg(value_name = "DISK")]
    disk: String,
    /// Print JSON instead of text (times in ms, sizes in sectors)
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct CalibrateArgs {
    /// A built-in DiskSim drive name or a DiskSim .parv file (with FILE.trace beside it);
    /// with --probe-table, any drive (a preset, .parv or drive file)
    #[arg(value_name = "DISK")]
    disk: String,
    /// Calibrate to a Disk Mimic table (`spindle mimic probe`, of a device or a model)
    /// instead of a validation trace
    #[arg(long, value_name = "TABLE")]
    probe_table: Option<std::path::PathBuf>,
    /// With --probe-table: the seed placing the model's probes [default: 1]
    #[arg(long)]
    seed: Option<u64>,
    /// Write the calibrated drive file (TOML) here
    #[arg(long, value_name = "FILE")]
    out: Option<std::path::PathBuf>,
    /// Fit on every request of the trace (no held-out half to judge on)
    #[arg(long)]
    all_requests: bool,
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct ValidateArgs {
    /// DiskSim .parv files (each with FILE.trace beside it) or built-in drive names
    /// [default: the four built-in DiskSim drives]
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    /// Print a JSON array (disk, requests, rms_ms, mean_measured_ms, mean_simulated_ms, ...)
    #[arg(long)]
    json: bool,
    /// Calibrate each drive on the first half of its trace and judge it on the second
    #[arg(long)]
    calibrated: bool,
}

#[derive(Args)]
struct BenchArgs {
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
    /// Measure briefly (noisy numbers; for smoke tests)
    #[arg(long, hide = true)]
    quick: bool,
    /// Also rewrite the block of benchmark figures in this README (between its
    /// `spindle bench` markers)
    #[arg(long, value_name = "FILE")]
    readme: Option<std::path::PathBuf>,
}

fn run(cli: Cli) -> anyhow::Result<String> {
    match cli.command {
        Command::Run(a) if a.disksim.is_some() => {
            // The .parv file is the whole configuration: a stack flag beside it would be
            // silently ignored, so it is refused.
            const WITH_DISKSIM: [&str; 5] = [
                "--disksim",
                "--disksim-seeds",
                "--json",
                "--print-stack",
                "--help",
            ];
            if let Some(flag) = std::env::args().skip(2).find(|a| {
                a.starts_with("--")
                    && !WITH_DISKSIM.contains(&a.split('=').next().unwrap_or(a.as_str()))
            }) {
                anyhow::bail!(
                    "{flag} does not apply with --disksim: the .parv file sets the whole run \
                     (give seeds with --disksim-seeds N,N,..)"
                );
            }
            let path = a.disksim.as_deref().unwrap_or(std::path::Path::new(""));
            disksim_run::run(path, a.disksim_seeds.as_deref(), a.json, a.print_stack)
        }
        Command::Run(mut a) => {
            let sched = a.opts.scheduler_kind()?;
            // `--format json|fio-json|text` is the output format (the trace formats
            // have other names).
            let named = a
                .opts
                .stack
                .format
                .as_deref()
                .and_then(run::OutputFormat::from_name);
            if named.is_some() {
                a.opts.stack.format = None;
            }
            let format = match (a.json, a.output_format, named) {
                (_, Some(f), Some(g)) if f != g => anyhow::bail!(
                    "--output-format {f:?} and --format {g:?} disagree; give one of them"
                ),
                (true, Some(f), _) | (true, _, Some(f)) if f != run::OutputFormat::Json => {
                    anyhow::bail!("--json and an output format other than json were both given")
                }
                (true, _, _) => run::OutputFormat::Json,
                (false, f, g) => f.or(g).unwrap_or_default(),
            };
            run::run_with_format(
                &a.opts.stack,
                sched,
                format,
                a.requests_csv.as_deref(),
                a.print_stack,
            )
        }
        Command::Compare(a) => {
            let list = a
                .schedulers
                .split(',')
                .map(parse_scheduler)
                .collect::<anyhow::Result<Vec<_>>>()?;
            // Each scheduler runs once: a repeat would print the same row twice.
            if let Some((i, k)) = list
                .iter()
                .enumerate()
                .find(|(i, k)| list[..*i].contains(k))
            {
                anyhow::bail!(
                    "--schedulers: `{}` is given twice (item {}); each is compared once",
                    k.name(),
                    i + 1
                );
            }
            run::compare(&a.stack, &list, a.json, a.plot.as_deref())
        }
        Command::Sweep(a) => {
            // Both are written beside and renamed into place.
            outputs::check_output("--out", &a.out, &[&a.grid])?;
            outputs::check_replaceable("--out", &a.out)?;
            if let Some(csv) = &a.csv {
                outputs::check_output("--csv", csv, &[&a.grid, &a.out])?;
                outputs::check_replaceable("--csv", csv)?;
                if outputs::same_place(csv, &a.out) {
                    anyhow::bail!(
                        "--csv {} is the --out file: give the CSV another name",
                        csv.display()
                    );
                }
            }
            sweep::sweep(&sweep::SweepArgs {
                grid: &a.grid,
                out: &a.out,
                csv: a.csv.as_deref(),
                jobs: a.jobs,
                list: a.list,
            })
        }
        Command::Reproduce(a) => {
            let opts = spindle::experiments::registry::RunOpts {
                quick: a.quick,
                seed: a.seed,
                full_scale: a.full_scale,
                durability: a.durability,
            };
            reproduce::reproduce(&a.ids, &opts, a.jobs, &a.out, a.json, a.readme.as_deref())
        }
        Command::Mimic(MimicCommand::Probe {
            disk,
            device,
            allow_writes,
            distances,
            samples,
            interpolate,
            seed,
            out,
        }) => {
            let inputs: Vec<&std::path::Path> = std::iter::once(std::path::Path::new(&disk))
                .chain(device.as_deref())
                .collect();
            outputs::check_output("--out", &out, &inputs)?;
            if allow_writes && device.is_none() {
                anyhow::bail!("--allow-writes times writes on a real --device; a simulated disk's probes include writes already");
            }
            match device {
                Some(dev) => mimic::probe_device(
                    &dev,
                    distances,
                    samples,
                    interpolate,
                    allow_writes,
                    seed,
                    &out,
                ),
                None => mimic::probe(&disk, distances, samples, interpolate, seed, &out),
            }
        }
        Command::Probe(ProbeCommand::Rotation {
            device,
            disk,
            at,
            span,
            samples,
            seed,
            json,
        }) => mimic::rotation(
            device.as_deref(),
            disk.as_deref(),
            at,
            span,
            samples,
            seed,
            json,
        ),
        Command::Mimic(MimicCommand::Skips {
            disk,
            quick,
            samples,
            log_mib,
            seed,
            out,
        }) => {
            outputs::check_output("--out", &out, &[std::path::Path::new(&disk)])?;
            minimimic::skips(&disk, quick, samples, log_mib, seed, &out)
        }
        Command::Mimic(MimicCommand::Show { table }) => mimic::show(&table),
        Command::Disks(a) => disks::disks(a.json, a.flash),
        Command::DiskInfo(a) => disks::disk_info(&a.disk, a.json),
        Command::Trace(a) => trace_cmd::trace(
            &spindle::trace::TraceFiles::new(a.trace).map_err(|e| anyhow::anyhow!("{e}"))?,
            a.trace_devices,
            a.format.as_deref(),
            a.device,
            a.limit,
            a.csv.as_deref(),
            a.json,
        ),
        Command::Validate(a) if a.calibrated => validate::validate_calibrated_cmd(&a.files, a.json),
        Command::Validate(a) => validate::validate_cmd(&a.files, a.json),
        Command::Calibrate(a) => {
            if let Some(out) = &a.out {
                let disk = std::path::Path::new(&a.disk);
                // Without a probe table, a drive file's measurements are the trace
                // beside it.
                let beside = (a.probe_table.is_none()
                    && disk.extension().is_some_and(|e| e == "toml"))
                .then(|| disk.with_extension("trace"));
                let inputs: Vec<&std::path::Path> = std::iter::once(disk)
                    .chain(beside.as_deref())
                    .chain(a.probe_table.as_deref())
                    .collect();
                outputs::check_output("--out", out, &inputs)?;
            }
            match &a.probe_table {
                Some(t) => validate::calibrate_probe_cmd(
                    &a.disk,
                    t,
                    a.seed.unwrap_or(1),
                    a.out.as_deref(),
                    a.all_requests,
                    a.json,
                ),
                None if a.seed.is_some() => Err(anyhow::anyhow!(
                    "--seed places the probes of --probe-table; a validation trace's fit draws nothing"
                )),
                None => validate::calibrate_cmd(&a.disk, a.out.as_deref(), a.all_requests, a.json),
            }
        }
        Command::Bench(a) => bench::bench(a.json, a.quick, a.readme.as_deref()),
        Command::Strands(a) => experiments::strands(&a.disk, a.trials, a.seed, a.blocks, a.json),
        Command::RandomIo(a) => {
            experiments::random(&a.disk, a.requests, a.blocks, a.write, a.seed, a.json)
        }
        Command::SeedChecks(a) => experiments::seed_checks(a.requests, a.seed, a.json),
        Command::Raid4(Raid4Command::Baseline {
            array,
            updates,
            sync,
            write_through,
            seed,
            json,
        }) => {
            let cfg = raid::config(array.data_disks, array.stripe_unit_kib, array.outstanding)?;
            let cfg = spindle::array::Raid4Config {
                sync_writes: sync,
                ..cfg
            };
            raid::baseline(&array.disk, cfg, write_through, updates, seed, json)
        }
        Command::Torture(t) => {
            let (args, rates) = t.resolve();
            torture::torture(&args, &rates)
        }
        Command::Raid4(Raid4Command::Faults {
            disk,
            ops,
            span,
            lost,
            misdirected,
            flips,
            scrub_every,
            seed,
            json,
        }) => {
            let c = spindle::array::FaultCampaign {
                seed,
                ops,
                span_blocks: span,
                lost_write: lost,
                misdirected_write: misdirected,
                bit_flip: flips,
                scrub_every,
                ..Default::default()
            };
            raid::faults(&disk, &c, json)
        }
    }
}

/// Writes `spindle: error: MSG` to standard error; a closed standard error (`2>&1 |
/// head -c 10`) loses the message but never turns the exit status into a panic's.
fn say_error(msg: &str) {
    let _ = writeln!(std::io::stderr().lock(), "spindle: error: {msg}");
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                // The reader went away (`spindle disks | head`): not our error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    say_error(&format!("cannot write output: {e}"));
                    ExitCode::from(EXIT_ERROR)
                }
            }
        }
        Err(e) if e.downcast_ref::<raid::WrongData>().is_some() => {
            let w = e.downcast_ref::<raid::WrongData>().expect("checked");
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(w.report.as_bytes()).and_then(|_| out.flush());
            say_error(&w.to_string());
            ExitCode::from(EXIT_WRONG_DATA)
        }
        Err(e) => {
            // `{:#}` joins the context chain on one line.
            say_error(&format!("{e:#}"));
            ExitCode::from(EXIT_ERROR)
        }
    }
}
