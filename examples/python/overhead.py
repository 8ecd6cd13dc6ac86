"""Python overhead of spindle: one 1 M-request synthetic open run from Python against
the same run by the command line, and the time to turn 1 M request rows into a
DataFrame.

    python examples/python/overhead.py [--spindle target/release/spindle] [--count N]

Each figure is the best (and the median) of --repeat interleaved runs (wall time).
"""

import argparse
import shutil
import statistics
import subprocess
import time

import spindle

OPTIONS = dict(synthetic="open", scheduler="sstf", queue_depth=4, seed=1, rate=50)


def timed(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


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
    cli, bare, full, conv = [], [], [], []
    for _ in range(a.repeat):
        cli.append(timed(lambda: subprocess.run(argv, check=True, capture_output=True))[0])
        bare.append(timed(lambda: spindle.run(**opts, requests=False))[0])
        t, r = timed(lambda: spindle.run(**opts))
        full.append(t)
        t, df = timed(lambda: r.requests)
        conv.append(t)
        del r
    print("wall times, s: best (median) of", a.repeat)
    print(f"{' '.join(argv)}")
    def show(name, ts, vs=None):
        best, med = min(ts), statistics.median(ts)
        rel = ""
        if vs is not None:
            rel = f"  {(best / min(vs) - 1) * 100:+5.1f} % ({(med / statistics.median(vs) - 1) * 100:+5.1f} %) vs the CLI"
        print(f"{name:34}{best:7.3f} ({med:.3f}){rel}")

    show("CLI", cli)
    show("spindle.run(requests=False)", bare, cli)
    show("spindle.run() keeping the rows", full, cli)
    show(f"result.requests ({len(df)} rows)", conv)
    print(f"DataFrame: {df.memory_usage(deep=True).sum() / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
