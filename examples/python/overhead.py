"""Python overhead of spindle: one 1 M-request synthetic open run from Python against
the same run by the command line, and the time to turn 1 M request rows into a
DataFrame.

    python examples/python/overhead.py [--spindle target/release/spindle] [--count N]

Each figure is the best (and the median) of --repeat interleaved runs (wall time).
"""

import argparse
import resource
import shutil
import statistics
import subprocess
import time

import spindle

OPTIONS = dict(synthetic="open", scheduler="sstf", queue_depth=4, seed=1, rate=50)


def timed(f):
    """Wall time, CPU time (this process's threads and its children) and f's result."""
    t, c = time.perf_counter(), cpu()
    out = f()
    return time.perf_counter() - t, cpu() - c, out


def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spindle", default=shutil.which("spindle") or "target/release/spindle")
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    opts = dict(OPTIONS, count=a.count)
    argv = [a.spindle, "run", "--json"]
    for k, v in opts.items():
        argv += ["--" + k.replace("_", "-"), str(v)]
    # Interleaved, so that the three see the same load on a shared machine.
    cli, bare, online, full, conv = [], [], [], [], []
    for _ in range(a.repeat):
        cli.append(timed(lambda: subprocess.run(argv, check=True, capture_output=True))[:2])
        bare.append(timed(lambda: spindle.run(**opts, requests=False))[:2])
        online.append(timed(lambda: spindle.run(**opts, requests=False, summary=True))[:2])
        t, c, r = timed(lambda: spindle.run(**opts))
        full.append((t, c))
        t, c, df = timed(lambda: r.requests)
        conv.append((t, c))
        kept = r._rows.nbytes
        del r
    print(f"best (median) of {a.repeat}, s; wall time, then CPU time")
    print(f"{' '.join(argv)}")
    def show(name, ts, vs=None):
        line = f"{name:32}"
        for i in (0, 1):
            t = [x[i] for x in ts]
            best, med = min(t), statistics.median(t)
            line += f"  {best:6.3f} ({med:6.3f})"
            if vs is not None:
                v = [x[i] for x in vs]
                line += f" {(best / min(v) - 1) * 100:+5.1f} %"
        print(line)

    show("CLI", cli)
    show("spindle.run(requests=False)", bare, cli)
    show("  ... summary=True", online, cli)
    show("spindle.run() keeping the rows", full, cli)
    show(f"result.requests ({len(df)} rows)", conv)
    print(f"rows kept by the run: {kept / 1e6:.0f} MB; DataFrame: {df.memory_usage(deep=True).sum() / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
