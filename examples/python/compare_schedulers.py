"""Compare host schedulers on the HP hplajw trace and plot their response-time CDFs.

    python examples/python/compare_schedulers.py [--out schedulers.png] [--html report.html]
        [--queue-depth 1] [--compress 2]

Each scheduler replays the same trace (DiskSim's hplajw setup: the trace on two HP
C2249A disks) through spindle in-process; the per-request DataFrame gives each
request's response time (int64 ns), plotted as an empirical CDF with matplotlib.
"""

import argparse
import base64
import html

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import spindle  # noqa: E402

SCHEDULERS = ["fcfs", "sstf", "clook", "greedy"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="schedulers.png")
    ap.add_argument("--html", default=None, help="also write the table and the plot as one HTML page")
    ap.add_argument("--trace", default="sample:hplajw")
    ap.add_argument("--queue-depth", type=int, default=1, help="requests outstanding at each drive (1: the host scheduler orders everything)")
    ap.add_argument("--limit", type=int, default=None, help="replay only the first N requests")
    ap.add_argument("--compress", type=float, default=2.0, help="time compression, to load the disks")
    a = ap.parse_args()

    rows = []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for s in SCHEDULERS:
        r = spindle.run(trace=a.trace, scheduler=s, queue_depth=a.queue_depth, compress=a.compress, limit=a.limit)
        ms = np.sort(r.requests["ResponseTime"].to_numpy()) / 1e6
        ax.step(ms, np.arange(1, len(ms) + 1) / len(ms), where="post", label=s)
        m = r.metrics
        rows.append(
            {
                "scheduler": s,
                "requests": m["requests"],
                "mean_ms": m["mean_response_ms"],
                "p90_ms": m["p90_response_ms"],
                "p99_ms": m["p99_response_ms"],
                "mean_seek_ms": r.requests["SeekTime"].mean() / 1e6,
                "mean_queue_ms": r.requests["QueueTime"].mean() / 1e6,
            }
        )
    ax.set_xscale("log")
    ax.set_xlabel("response time (ms)")
    ax.set_ylabel("fraction of requests")
    ax.set_title(f"{a.trace}, compressed ×{a.compress:g}, {a.queue_depth} outstanding per drive")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    table = pd.DataFrame(rows)
    print(table.to_string(index=False, float_format="%.3f"))
    print(f"plot written to {a.out}")
    if a.html:
        with open(a.out, "rb") as f:
            png = base64.b64encode(f.read()).decode()
        title = html.escape(ax.get_title())
        page = (
            f"<!doctype html><meta charset=utf-8><title>Schedulers: {title}</title>"
            f"<h1>Schedulers on {title}</h1>"
            f"{table.to_html(index=False, float_format='%.3f')}"
            f"<p><img alt='response-time CDFs' src='data:image/png;base64,{png}'>"
        )
        with open(a.html, "w", encoding="utf-8") as f:
            f.write(page)
        print(f"page written to {a.html}")


if __name__ == "__main__":
    main()
