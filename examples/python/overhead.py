"""Python overhead of spindle: one 1 M-request synthetic open run from Python against
the same run by the command line, and the time to turn 1 M request rows into a
DataFrame.

    python examples/python/overhead.py [--spindle target/release/spindle] [--count N]

Each figure is the median of --repeat runs (wall time).
"""

import argparse
import shutil
import statistics
import subprocess
import time

import spindle

OPTIONS = dict(synthetic="open", scheduler="sstf", queue_depth=4, seed=1, rate=50)


def median_time(f, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


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
    cli, _ = median_time(lambda: subprocess.run(argv, check=True, capture_output=True), a.repeat)
    bare, _ = median_time(lambda: spindle.run(**opts, requests=False), a.repeat)
    full, _ = median_time(lambda: spindle.run(**opts), a.repeat)
    convs = []
    for _ in range(a.repeat):
        r = spindle.run(**opts)
        t = time.perf_counter()
        df = r.requests
        convs.append(time.perf_counter() - t)
        del r
    conv = statistics.median(convs)
    print(f"{' '.join(argv)}")
    print(f"CLI                               {cli:7.3f} s")
    print(f"spindle.run(requests=False)       {bare:7.3f} s  ({(bare / cli - 1) * 100:+.1f} % of the CLI)")
    print(f"spindle.run() with request rows   {full:7.3f} s  ({(full / cli - 1) * 100:+.1f} % of the CLI)")
    print(f"  rows kept by the run            {full - bare:7.3f} s  (run with rows minus run without)")
    print(f"result.requests (DataFrame)       {conv:7.3f} s  ({len(df)} rows, {df.memory_usage(deep=True).sum() / 1e6:.0f} MB)")


if __name__ == "__main__":
    main()
