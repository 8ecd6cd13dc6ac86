"""``python -m spindle.sweep_cli GRID.toml --out results.parquet --backend ray``: the
grid file of ``spindle sweep`` run by ``spindle.sweep``, so on Ray as well (a local
cluster started for the run, or ``--address`` of an existing one)."""

from __future__ import annotations

import argparse
import sys
import time

from . import _core
from .sweep import _sweep

#: The grid file's limit (as `spindle sweep`'s, 1 MiB).
MAX_GRID_CHARS = 1 << 20


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m spindle.sweep_cli",
        description="Run a `spindle sweep` grid file (a [grid] table of lists, an optional "
        "[fixed] table; a repeatable flag's axis may be a list of lists, each inner list one "
        'point\'s values: layer = [["drr"], ["content-cache:arc:50000", "drr"]]; see '
        "`spindle sweep --help`) locally or on Ray; the rows are those of `spindle sweep`.",
    )
    p.add_argument("grid", metavar="GRID.toml")
    p.add_argument("--out", required=True, metavar="FILE.parquet", help="Parquet file of the rows; points already in it are skipped")
    p.add_argument("--csv", metavar="FILE.csv", help="also write the rows as CSV")
    p.add_argument("--backend", choices=["local", "ray"], default="local")
    p.add_argument("--address", help="Ray: an existing cluster's address (default: start a local one)")
    p.add_argument("--jobs", type=int, help="threads (local) or CPUs of the local Ray cluster [default: CPU count]")
    p.add_argument("--batch", type=int, help="Ray: points per task [default: about four tasks per CPU]")
    a = p.parse_args(argv)
    try:
        with open(a.grid, encoding="utf-8") as f:
            text = f.read(MAX_GRID_CHARS + 1)
        if len(text) > MAX_GRID_CHARS:
            raise ValueError(f"{a.grid}: larger than {MAX_GRID_CHARS} characters, the limit of a grid file")
        axes, fixed = _core.sweep_grid_toml(text, a.grid)
        started = time.perf_counter()
        df = _sweep(axes, fixed, a.backend, a.out, a.csv, a.address, a.batch, a.jobs, True)
    except (OSError, ValueError, ImportError) as e:
        print(f"spindle: error: {e}", file=sys.stderr)
        return 2
    print(f"{len(df)} points on {a.backend} in {time.perf_counter() - started:.1f} s; wrote {a.out}"
          + (f" and {a.csv}" if a.csv else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
