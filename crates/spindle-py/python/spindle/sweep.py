"""Parameter sweeps: a grid of ``spindle run`` options, one row of metrics per point,
run in this process (``backend="local"``) or on a Ray cluster (``backend="ray"``).

The grid is expanded, checked and run by the same Rust code as ``spindle sweep``, so
the points, their order, their keys and their rows are the same on either backend and
from the CLI.
"""

from __future__ import annotations

import math
import os
import sys
import time
from typing import Any, Callable, Iterable, Mapping, Optional

from . import _core
from ._args import U64_MAX, optional_integer

__all__ = ["sweep"]

#: A sweep with ``out=`` rewrites the file at most this often while it runs (seconds),
#: so an interrupted sweep resumes from where it was.
CHECKPOINT_S = 30.0

#: With ``batch=None`` Ray gets about this many tasks per CPU: enough to balance the
#: load, few enough that each task's overhead (about a millisecond) stays small next to
#: its points.
TASKS_PER_CPU = 4

#: Most threads (or Ray CPUs) one sweep asks for, as ``spindle sweep --jobs``.
MAX_JOBS = 1024


def sweep(
    grid: Mapping[str, Iterable[Any]],
    backend: str = "local",
    *,
    out: Optional[str | os.PathLike] = None,
    csv: Optional[str | os.PathLike] = None,
    address: Optional[str] = None,
    batch: Optional[int] = None,
    jobs: Optional[int] = None,
    progress: bool = True,
    **fixed: Any,
):
    """Runs every point of a grid of ``spindle run`` options and returns a pandas
    DataFrame with one row per point, in point order.

    ``grid`` maps option names (``queue_depth`` or ``"queue-depth"``, any ``spindle
    run`` flag) to lists of values (str, int, float or bool; ``True`` is a switch such
    as ``spread``). Points are the cartesian product, the first key varying slowest
    (like ``itertools.product``). Keywords are options every point shares
    (``trace="sample:hplajw"``, ``synthetic="open"``, ``count=5000``; a list repeats
    a flag such as ``layer``).

    A repeatable flag (``layer``) takes a list as one value: ``{"layer":
    [["drr"], ["content-cache:arc:50000", "drr"]]}`` runs each point once with
    ``--layer drr`` and once with ``--layer content-cache:arc:50000 --layer drr``
    (top first). Every value of such an axis is a non-empty list of str or int; its
    column holds each list as JSON text (``'["drr"]'``, ``json.loads`` gives the list
    back), as ``spindle sweep`` writes it.

    Columns: ``point`` (the index), ``key`` (a hash of all the point's options), the
    grid's keys, then the metrics (requests, reads, writes, mean/p50/p90/p99/max
    response ms, mean service, queue, overhead, seek, rotation and transfer ms,
    cache_hit_fraction, throughput_per_s, makespan_ms, total_disk_time_ms, drives,
    utilization_mean, utilization_max).

    ``backend="local"`` runs points on ``jobs`` threads in this process (default: the
    CPU count) with the GIL released. ``backend="ray"`` starts a local Ray cluster of
    ``jobs`` CPUs for the run (or uses ``address=``, or the cluster ``ray.init`` already
    connected to), one task per ``batch`` points (default: about four tasks per CPU);
    every worker must have this package installed. Both give the same rows.

    ``out=`` writes the rows to a Parquet file (pyarrow) and resumes from it: points
    whose key is already there are not run again, and the file is rewritten with old
    and new rows (also every 30 s while running). ``csv=`` also writes CSV. Bad options
    raise ValueError with the CLI's message before any point runs.
    """
    if not isinstance(grid, Mapping):
        raise ValueError(f"grid must be a dict of option name -> list of values, got {type(grid).__name__}")
    axes = [(str(name), _values(name, values)) for name, values in grid.items()]
    fixed_items = [(str(name), _fixed(value)) for name, value in fixed.items()]
    config = fixed.get("config")
    if isinstance(config, str) and "\n" in config:
        # A point is keyed by its options; TOML text would be taken for a file's name.
        raise ValueError(
            "sweep's config= names a TOML file; this looks like TOML text: write it to a file"
        )
    return _sweep(axes, fixed_items, backend, out, csv, address, batch, jobs, progress)


def _sweep(axes, fixed_items, backend, out, csv, address, batch, jobs, progress):
    """`sweep` of a grid given as (name, values) axes and (name, value) options."""
    if backend not in ("local", "ray"):
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    jobs = optional_integer(jobs, "jobs", 1, MAX_JOBS)
    batch = optional_integer(batch, "batch", 1, U64_MAX)
    if address is not None and backend != "ray":
        raise ValueError("address= applies to backend='ray'")
    if out is not None and csv is not None and os.path.realpath(out) == os.path.realpath(csv):
        raise ValueError(f"out= and csv= name the same file ({out!r}): give two files")
    # Where the rows go is checked before any point runs, not after the last.
    for name, path in (("out", out), ("csv", csv)):
        if path is not None:
            _check_output(name, path)
    columns, points = _core.sweep_plan(axes, fixed_items)
    names = [c for c, _ in columns]

    rows: dict[int, tuple] = {}
    if out is not None:
        rows.update(_read_rows(out, points, columns))
    todo = [index for index, _, _ in points if index not in rows]

    bar = _Progress(len(todo), enabled=progress)
    last_write = time.monotonic()

    def on_row(row: tuple) -> None:
        nonlocal last_write
        rows[row[0]] = row
        bar.update(1)
        if out is not None and time.monotonic() - last_write >= CHECKPOINT_S:
            _write(_frame(rows, columns), out, None)
            last_write = time.monotonic()

    jobs = jobs or os.cpu_count() or 1
    try:
        if todo and backend == "local":
            _core.sweep_run(axes, fixed_items, todo, jobs, on_row)
        elif todo:
            _ray_run(axes, fixed_items, todo, jobs, address, batch, on_row)
    except BaseException:
        # Keep what was done: the next call resumes from it.
        if out is not None and len(rows) > len(points) - len(todo):
            _write(_frame(rows, columns), out, None)
        raise
    finally:
        bar.close()
    df = _frame(rows, columns)
    if out is not None or csv is not None:
        _write(df, out, csv)
    assert list(df.columns) == names
    return df


def _scalar(v: Any) -> Any:
    """A numpy scalar as the Python value it holds."""
    item = getattr(v, "item", None)
    if item is not None and type(v).__module__ == "numpy":
        return item()
    return v


def _values(name: Any, values: Any) -> list:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ValueError(
            f"grid[{name!r}]: expected a list of values, got {type(values).__name__} {values!r}; "
            "give a single value as a keyword"
        )
    return [_value(v) for v in values]


def _value(v: Any, depth: int = 0) -> Any:
    """A grid value: a scalar, or a list (one point's values of a repeatable flag). Lists
    deeper than the extension accepts are passed on for it to refuse."""
    if isinstance(v, (list, tuple)) and depth < 2:
        return [_value(x, depth + 1) for x in v]
    if type(v).__module__ == "numpy" and getattr(v, "ndim", 0) > 0:
        return v.tolist()
    return _scalar(v)


def _fixed(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_scalar(v) for v in value]
    return _scalar(value)


def _frame(rows: dict, columns: list):
    """Rows (by point) as a DataFrame with the columns' types."""
    import pandas as pd

    names = [c for c, _ in columns]
    df = pd.DataFrame.from_records([rows[i] for i in sorted(rows)], columns=names)
    types = {"int": "int64", "float": "float64", "bool": "bool"}
    return df.astype({c: types[k] for c, k in columns if k in types})


def _arrow_schema(columns: list):
    import pyarrow as pa

    types = {"int": pa.int64(), "float": pa.float64(), "bool": pa.bool_(), "str": pa.string()}
    return pa.schema([pa.field(c, types[k], nullable=False) for c, k in columns])


def _check_output(name: str, path) -> None:
    """A file the sweep can write: not a folder, in a folder that exists."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise ValueError(f"{name}={path!r} is a folder; give a file")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{name}={path!r}: no folder {folder!r} to write it in")


def _read_rows(out, points: list, columns: list) -> dict:
    """The rows already in ``out`` for this grid's points, by point index."""
    if not os.path.exists(out):
        return {}
    try:
        import pyarrow.parquet as pq
    except ImportError as e:  # pragma: no cover - pyarrow comes with the test extra
        raise ImportError("out= needs pyarrow: pip install pyarrow") from e
    names = [c for c, _ in columns]
    metrics = names[2 + len(points[0][2]) :]
    try:
        table = pq.read_table(out)
    except ValueError as e:  # pyarrow's ArrowInvalid
        raise ValueError(
            f"{out}: not a Parquet file spindle can read ({e}); write to another file or remove it"
        ) from None
    missing = [c for c in ["key", *metrics] if c not in table.column_names]
    if missing:
        raise ValueError(
            f"{out}: no column {missing[0]!r}; not the output of a sweep of this grid "
            "(write to another file or remove it)"
        )
    by_key = {key: (index, params) for index, key, params in points}
    old = table.select(["key", *metrics]).to_pylist()
    rows = {}
    for n, r in enumerate(old):
        key = r["key"]
        if key not in by_key:
            raise ValueError(
                f"{out}: row {n} (key {key}) is not a point of this grid: the file holds another "
                "sweep's results (write to another file or remove it)"
            )
        index, params = by_key[key]
        if index in rows:
            raise ValueError(f"{out}: key {key} appears in two rows")
        rows[index] = (index, key, *params, *(r[m] for m in metrics))
    return rows


def _write(df, out, csv) -> None:
    """Writes ``df`` to Parquet (through a temporary file renamed into place, so an
    interrupted write leaves the old file whole) and CSV."""
    if out is not None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        columns = [(c, _kind(df[c].dtype)) for c in df.columns]
        table = pa.Table.from_pandas(df, schema=_arrow_schema(columns), preserve_index=False)
        tmp = os.fspath(out) + ".tmp"
        pq.write_table(table, tmp)
        os.replace(tmp, out)
    if csv is not None:
        tmp = os.fspath(csv) + ".tmp"
        df.to_csv(tmp, index=False)
        os.replace(tmp, csv)


def _kind(dtype) -> str:
    if dtype == "int64":
        return "int"
    if dtype == "float64":
        return "float"
    if dtype == "bool":
        return "bool"
    return "str"


def _run_batch(spec, indices: list) -> list:
    """A Ray task: runs some points of a grid on one thread, returns their rows."""
    from spindle import _core as core

    axes, fixed = spec
    return core.sweep_run(axes, fixed, indices, 1)


def _ray_run(axes, fixed, todo, jobs, address, batch, on_row: Callable) -> None:
    try:
        import ray
    except ImportError as e:
        raise ImportError(
            "backend='ray' needs Ray: pip install 'spindle[ray]' (or pip install ray)"
        ) from e
    started = False
    if not ray.is_initialized():
        quiet = dict(include_dashboard=False, logging_level="ERROR", log_to_driver=False)
        if address is not None:
            ray.init(address=address, **quiet)
        else:
            ray.init(num_cpus=jobs, **quiet)
        started = True
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = batch or max(1, math.ceil(len(todo) / (TASKS_PER_CPU * cpus)))
        task = ray.remote(num_cpus=1)(_run_batch)
        spec = ray.put((axes, fixed))
        pending = [task.remote(spec, todo[i : i + size]) for i in range(0, len(todo), size)]
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                for row in ray.get(ready[0]):
                    on_row(row)
        finally:
            for ref in pending:
                ray.cancel(ref)
    finally:
        if started:
            ray.shutdown()


class _Progress:
    """tqdm when it is installed, else a one-line counter on a terminal's stderr."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.done, self.shown = total, 0, 0.0
        self.tqdm = None
        self.enabled = enabled and total > 0
        if not self.enabled:
            return
        try:
            from tqdm.auto import tqdm

            self.tqdm = tqdm(total=total, desc="sweep", unit="point")
        except ImportError:
            self.enabled = sys.stderr.isatty()

    def update(self, n: int) -> None:
        self.done += n
        if self.tqdm is not None:
            self.tqdm.update(n)
        elif self.enabled and (time.monotonic() - self.shown > 0.25 or self.done == self.total):
            self.shown = time.monotonic()
            sys.stderr.write(f"\rsweep {self.done}/{self.total} points")
            sys.stderr.flush()

    def close(self) -> None:
        if self.tqdm is not None:
            self.tqdm.close()
        elif self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()
