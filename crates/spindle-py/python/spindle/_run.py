"""``spindle.run``: any stack the command line can build, run in-process."""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _core
from ._args import flag
from ._columns import op_type
from ._units import implausible, stacklevel, to_ns

#: Most request rows a :class:`Result` holds (checked against the workload's request
#: count before the run starts; ``requests=False`` runs without them).
MAX_REQUEST_ROWS: int = _core.MAX_REQUEST_ROWS
#: Most requests of a workload given as a DataFrame or arrays.
MAX_WORKLOAD_ROWS: int = _core.MAX_WORKLOAD_ROWS

SECTOR_BYTES = 512


def _pairs(options: dict) -> list:
    """Keywords as (flag name, value) pairs: True is a switch, False or None is left
    out, a list repeats the flag."""
    pairs = []
    for name, value in options.items():
        if value is None or value is False:
            continue
        if value is True:
            pairs.append((name, None))
        elif isinstance(value, (list, tuple)):
            pairs.extend((name, str(v)) for v in value)
        else:
            pairs.append((name, str(value)))
    return pairs


def _config(config, name: str = "config") -> Tuple[Optional[str], Optional[str]]:
    """``config=`` (or the keyword ``name``) as (TOML text, path): a string holding a
    newline, or an ``=`` and naming no existing file, is TOML text; anything else (a
    string or a path-like) names a file."""
    if config is None:
        return None, None
    if isinstance(config, str) and (
        "\n" in config or ("=" in config and not os.path.isfile(config))
    ):
        return config, None
    if isinstance(config, (str, os.PathLike)):
        return None, os.fspath(config)
    raise ValueError(f"{name}= must be TOML text or a path, got {type(config).__name__}")


# --- a workload given as a DataFrame or arrays ------------------------------------------

_TIME_COLUMNS = {
    "time_ns": "ns",
    "time_us": "us",
    "time_ms": "ms",
    "time_s": "s",
    "arrival_ns": "ns",
    "arrival_ms": "ms",
    "time": None,
    "Timestamp": None,
}
_OPS = {"r": False, "read": False, "w": True, "write": True}


def _pick(cols, names, what):
    """The one column of ``names`` that ``cols`` has (two would disagree unseen)."""
    present = [n for n in names if n in cols]
    if len(present) > 1:
        raise ValueError(
            f"workload: columns {' and '.join(repr(n) for n in present)} both give the {what}; "
            "keep one"
        )
    if present:
        return present[0]
    raise ValueError(
        f"workload: no {what} column; expected one of {', '.join(repr(n) for n in names)}"
        f" (columns: {', '.join(repr(str(c)) for c in cols)})"
    )


def _integers(values, what: str, lo: int, hi: int) -> np.ndarray:
    a = np.asarray(values)
    if a.dtype.kind == "f":
        if not np.isfinite(a).all() or np.any(a != np.floor(a)):
            raise ValueError(f"workload: {what} must be whole numbers")
    elif a.dtype.kind not in "iu":
        # Booleans too: True as an address or a size is a mistake, not 1.
        raise ValueError(f"workload: {what} must be integers, got dtype {a.dtype}")
    if len(a) and (a.min() < lo or a.max() > hi):
        bad = a[(a < lo) | (a > hi)][0]
        raise ValueError(f"workload: {what} must be within {lo}..={hi}, got {bad}")
    return a.astype(np.int64)


def _bytes_to_sectors(values, what: str) -> np.ndarray:
    b = _integers(values, f"{what} (bytes)", 0, 2**63 - 1)
    if len(b) and np.any(b % SECTOR_BYTES):
        i = int(np.argmax(b % SECTOR_BYTES != 0))
        raise ValueError(
            f"workload: {what} (bytes) must be a multiple of {SECTOR_BYTES}, got {b[i]} at row {i}"
        )
    return b // SECTOR_BYTES


def _ops(values) -> np.ndarray:
    import pandas as pd

    a = values.to_numpy() if isinstance(values, pd.Series) else np.asarray(values)
    if a.dtype.kind == "b":
        return a
    codes, uniques = pd.factorize(a)
    table = []
    for u in uniques:
        w = _OPS.get(str(u).strip().lower())
        if w is None:
            raise ValueError(f"workload: op must be R, W, Read or Write, got {u!r}")
        table.append(w)
    if (codes < 0).any():
        raise ValueError("workload: op has missing values")
    return np.asarray(table, dtype=bool)[codes]


def _workload(workload, time_unit: Optional[str], check_time_unit: bool):
    """The extension's workload columns: (n, time ns, device, lbn, sectors, write)."""
    import pandas as pd

    from ._trace import TraceReader

    if isinstance(workload, TraceReader):
        workload = workload.to_pandas()
    attrs_unit = None
    if isinstance(workload, pd.DataFrame):
        cols = workload
        attrs_unit = workload.attrs.get("time_unit")
    elif isinstance(workload, dict):
        cols = workload
    elif isinstance(workload, (tuple, list)) and len(workload) in (4, 5):
        names = ["time", "lbn", "sectors", "op", "device"]
        cols = dict(zip(names, workload))
    else:
        raise ValueError(
            "workload= must be a pandas DataFrame, a dict of arrays, a tuple of arrays "
            "(time, lbn, sectors, op[, device]) or a spindle.TraceReader"
        )
    tcol = _pick(cols, list(_TIME_COLUMNS), "time")
    unit = _TIME_COLUMNS[tcol]
    if unit is not None and time_unit is not None and time_unit != unit:
        raise ValueError(f"workload: column {tcol!r} is in {unit}, but time_unit={time_unit!r}")
    unit = unit or time_unit or attrs_unit
    t = to_ns(cols[tcol], unit, f"workload column {tcol!r}")
    n = len(t)
    if n == 0:
        raise ValueError("workload: no requests")
    if n > MAX_WORKLOAD_ROWS:
        raise ValueError(
            f"workload: {n} requests, more than the {MAX_WORKLOAD_ROWS} a workload given as arrays may have"
        )
    if check_time_unit:
        why = implausible(t)
        if why is not None:
            raise ValueError(
                f"workload column {tcol!r} read in {unit or 'its timedelta unit'}: {why}. "
                "Are the times in another unit? Say so with time_unit=, or pass "
                "check_time_unit=False to run them as they are."
            )
    acol = _pick(cols, ["lbn", "LBN", "Offset"], "address")
    if acol == "Offset":
        lbn = _bytes_to_sectors(cols[acol], "Offset")
    else:
        lbn = _integers(cols[acol], "lbn", 0, 2**63 - 1)
    scol = _pick(cols, ["sectors", "blocks", "Size"], "size")
    if scol == "Size":
        sectors = _bytes_to_sectors(cols[scol], "Size")
        # The extension takes u32 sectors: a larger request would wrap, not fail.
        if len(sectors) and sectors.max() > 2**32 - 1:
            i = int(np.argmax(sectors > 2**32 - 1))
            raise ValueError(
                f"workload: Size (bytes) must be at most {(2**32 - 1) * SECTOR_BYTES} "
                f"({2**32 - 1} sectors), got {int(sectors[i]) * SECTOR_BYTES} at row {i}"
            )
    else:
        sectors = _integers(cols[scol], scol, 1, 2**32 - 1)
    if len(sectors) and sectors.min() < 1:
        raise ValueError(f"workload: {scol} must be at least one sector")
    write = _ops(cols[_pick(cols, ["write", "op", "Type"], "operation")])
    if "device" in cols or "DiskNumber" in cols:
        dcol = _pick(cols, ["device", "DiskNumber"], "device")
        device = _integers(cols[dcol], "device", 0, 2**32 - 1)
    else:
        device = np.zeros(n, dtype=np.int64)
    for name, a in (("lbn", lbn), ("sectors", sectors), ("op", write), ("device", device)):
        if len(a) != n:
            raise ValueError(f"workload: {name} has {len(a)} values, time has {n}")
    return (
        n,
        t.astype("<i8").tobytes(),
        device.astype("<u4").tobytes(),
        lbn.astype("<u8").tobytes(),
        sectors.astype("<u4").tobytes(),
        write.astype(np.uint8).tobytes(),
    )


# --- the result -----------------------------------------------------------------------


class LongQueueWarning(UserWarning):
    """A scanning scheduler (greedy, smtf, the on-line Mimics) compared over 25 M waiting
    requests in a run, 1,000 or more in some decision: each decision compares every
    waiting request (or a window's N oldest), so a run's time grows with the queue's
    length times its requests. ``window=N`` bounds it."""


class Result:
    """What a run measured.

    Attributes:
        metrics: the run's summary, as ``spindle run --json`` reports it (times in ms,
            keys ending in ``_ms``; ``utilization`` per drive as a fraction; ``cdf`` the
            response-time distribution as (ms, fraction) points).
        config: the run configuration as ``spindle run --json`` reports it (the TOML's
            structure).
        nodes: per node of the stack (top first): ``path``, ``kind``, ``is_drive``,
            ``reads``, ``writes``, ``busy_ns`` (int64 ns), ``busy_fraction`` (of the
            makespan) and the node's further figures, one column each: numeric where
            every value is a number (``member reads``, ``mean read seek cylinders``),
            else text.
        drives: the drive rows of :attr:`nodes`, numbered from 0 as
            ``metrics["utilization"]`` lists them.
        requests: one row per request (see :attr:`requests`).
        notes: what ``spindle run`` says on standard error beside its summary (a
            scanning scheduler that compared a long queue); :func:`run` also raises each
            as a :class:`LongQueueWarning`.
    """

    def __init__(self, text: str, request_rows, rerun=None):
        import pandas as pd

        out = json.loads(text)
        self.metrics: Dict[str, Any] = out["metrics"]
        self.notes: List[str] = out.get("notes", [])
        self.config: Dict[str, Any] = out["config"]
        rows = []
        makespan_ns = self.metrics.get("makespan_ms", 0.0) * 1e6
        for n in out["node_reports"]:
            row = {k: n[k] for k in ("path", "kind", "is_drive", "reads", "writes", "busy_ns")}
            row["busy_fraction"] = n["busy_ns"] / makespan_ns if makespan_ns > 0 else 0.0
            row.update(n["extra"])
            rows.append(row)
        self.nodes = pd.DataFrame(rows)
        # The nodes' further figures cross as text; a column all of whose values are
        # numbers becomes numeric ("member reads"), the rest stay text ("12 3 40").
        fixed = {"path", "kind", "is_drive", "reads", "writes", "busy_ns", "busy_fraction"}
        for col in [c for c in self.nodes.columns if c not in fixed]:
            try:
                self.nodes[col] = pd.to_numeric(self.nodes[col])
            except (ValueError, TypeError):
                pass
        drives = self.nodes[self.nodes["is_drive"]].reset_index(drop=True) if rows else self.nodes
        drives.index.name = "drive"
        self.drives = drives
        self._rows = request_rows
        self._requests = None
        self._fio = out.get("fio")
        # Without rows and without a summary kept as it ran: the run again, made with
        # the summary, when summary() is asked (a run is the same for the same inputs).
        self._rerun = rerun

    def summary(self) -> Dict[str, Any]:
        """The run as fio's JSON output summarises a job (``spindle run --format
        fio-json``): ``{"fio version", "jobs": [{"jobname", "job options", "read",
        "write", ...}]}``, per direction ``iops``, ``bw_bytes``, ``total_ios``,
        ``io_bytes``, ``runtime`` (ms) and ``slat_ns``, ``clat_ns``, ``lat_ns`` with
        ``min``, ``max``, ``mean``, ``stddev``, ``N`` and ``percentile`` keyed as fio keys
        it (``"99.000000"``). Here ``lat`` is the response time (arrival to completion),
        ``slat`` the wait in the host queue and ``clat`` issue to completion.

        Made from the request rows when they were kept; for a run made with
        ``requests=False`` it was kept as the run went with ``summary=True``, and is made
        by running the same inputs again (once) with the default ``summary=None``.
        """
        if self._fio is None:
            if self._rows is not None:
                self._fio = json.loads(self._rows.fio_json())
            elif self._rerun is not None:
                out = json.loads(self._rerun())
                if out["metrics"] != self.metrics or out["config"] != self.config:
                    raise RuntimeError(
                        "summary(): running the inputs again gave other metrics (a trace or "
                        "configuration file changed since the run?); pass summary=True to "
                        "spindle.run to keep the summary as the run goes"
                    )
                self._fio = out["fio"]
                self._rerun = None
            else:
                raise RuntimeError(
                    "this run was made with requests=False and summary=False: no fio "
                    "summary; pass summary=True (or keep the rows) to have one"
                )
        return self._fio

    @property
    def requests(self):
        """One row per request, in issue (request-id) order, as a pandas DataFrame.

        Columns named as in the MSR Cambridge block traces where they mean the same
        thing, but **times are int64 nanoseconds** (not MSR's 100-ns FILETIME ticks),
        counted from the start of the run:

        - ``Timestamp``: arrival at the host (ns)
        - ``DiskNumber``: the device (trace device or unit) it was addressed to
        - ``Type``: ``"Read"`` or ``"Write"`` (categorical)
        - ``Offset``, ``Size``: first byte and length, in bytes (512-byte sectors)
        - ``ResponseTime``: completion minus arrival (ns)

        and spindle's own, all int64 ns unless said otherwise:

        - ``RequestId``
        - ``QueueTime``: arrival to the start of service at the drive
        - ``ServiceTime``: start of service to completion (time at the disk)
        - ``DispatchTime``, ``StartTime``, ``DoneTime``: when it left the host queue,
          when the drive started on it, when it completed (absolute)
        - ``OverheadTime``, ``SeekTime``, ``RotationTime``, ``TransferTime``: the
          drive's breakdown of ``ServiceTime`` (0 where the request never reached a
          single drive, e.g. a cache hit above the drives)
        - ``CacheHit``, ``Background`` (bool): served from the drive's cache; a
          freeblock scheduler's background read
        - ``Process`` (int64): the closed-loop process that issued it, -1 for open
          workloads

        ``df.attrs["time_unit"]`` is ``"ns"``, so the frame can be given back to
        :func:`spindle.run` as a ``workload=``.
        """
        if self._requests is None:
            if self._rows is None:
                raise RuntimeError("this run was made with requests=False: no per-request rows")
            self._requests = _requests_frame(self._rows.blocks())
            # The compact rows stay (about a quarter of the frame): summary() is made
            # from them, in the order the run completed the requests.
        return self._requests

    def __repr__(self) -> str:
        m = self.metrics
        return (
            f"<spindle.Result {m.get('requests')} requests, mean response "
            f"{m.get('mean_response_ms', 0):.3f} ms, p99 {m.get('p99_response_ms', 0):.3f} ms>"
        )


def _requests_frame(blocks):
    """The request rows as a DataFrame over the extension's blocks, without copying:
    the int64 block (one column after another) becomes one pandas block as it is."""
    import pandas as pd

    n, ints, bools = blocks
    i = np.frombuffer(ints, dtype="<i8").reshape(len(_core.REQUEST_INT_COLUMNS), n)
    b = np.frombuffer(bools, dtype="?").reshape(len(_core.REQUEST_BOOL_COLUMNS), n)
    df = pd.DataFrame(i.T, columns=list(_core.REQUEST_INT_COLUMNS), copy=False)
    df.insert(2, "Type", op_type(b[0]))
    df.insert(len(df.columns) - 1, "CacheHit", b[1])
    df.insert(len(df.columns) - 1, "Background", b[2])
    df.attrs["time_unit"] = "ns"
    return df


def run(
    *,
    config=None,
    workload=None,
    time_unit: Optional[str] = None,
    check_time_unit: bool = True,
    requests: bool = True,
    summary: Optional[bool] = None,
    progress=None,
    **options,
) -> Result:
    """Runs a workload through a stack, in-process, and returns a :class:`Result`.

    Every ``spindle run`` flag is a keyword (``queue_depth=4`` is ``--queue-depth 4``;
    ``True`` is a switch such as ``spread=True``; a list repeats a flag, as
    ``layer=["content-cache:arc:50000"]``); the command line's parser reads them, so
    bad values raise ValueError with its messages. Examples::

        spindle.run(synthetic="open", count=20000, scheduler="sstf", queue_depth=4, seed=1)
        spindle.run(trace="sample:hplajw", scheduler="clook", limit=5000)
        spindle.run(trace=["hm_0.csv.gz", "hm_1.csv.gz"], trace_devices="per-file")
        spindle.run(config="examples/raid5-clook.toml")

    Args:
        config: a TOML run configuration, as text or a path (``--config``, also named
            ``stack=``; text and a ``stack=`` file together are refused); keywords
            override it.
        workload: requests instead of a trace or synthetic workload: a pandas DataFrame
            (or a dict of arrays) with a time column (``time_ns``, ``time_us``,
            ``time_ms``, ``time_s``, or ``time``/``Timestamp`` with ``time_unit=``, or
            timedeltas), an address (``lbn`` in 512-byte sectors or ``Offset`` in
            bytes), a size (``sectors``/``blocks``, or ``Size`` in bytes), an operation
            (``op``/``Type``: R, W, Read, Write; or a bool ``write``) and optionally
            ``device``/``DiskNumber`` (default 0); or a tuple of arrays ``(time, lbn,
            sectors, op[, device])`` with ``time_unit=``; or a :class:`TraceReader`
            (a trace read with its ``time_unit=``, sliced or not). Replayed in arrival order
            (sorted stably). ``device=``, ``limit=`` and ``compress=`` apply to it as to
            a trace.
        time_unit: the unit of the workload's time column: ``"ns"``, ``"us"``,
            ``"ms"``, ``"s"`` or ``"filetime"`` (100 ns). Taken from
            ``workload.attrs["time_unit"]`` when not given (frames spindle returns
            carry ``"ns"``).
        check_time_unit: refuse workload times that look read in the wrong unit
            (more than 10 M requests/s, or a median gap over an hour); see
            :func:`spindle.implausible_times`.
        requests: keep one row per request (:attr:`Result.requests`); at most
            :data:`MAX_REQUEST_ROWS`, checked before the run. ``False`` keeps only the
            metrics, for runs of any size.
        summary: with ``requests=False``, how :meth:`Result.summary` (fio's JSON) is
            made: ``True`` keeps it as the run goes (a few % of the run's time);
            ``None`` (the default) keeps nothing and makes it, when asked, by running
            the same inputs again, checked to give the same metrics; ``False`` has no
            summary. With the rows kept it is always made from them, when asked.
        progress: a function called with ``(done, total)``, the workload's requests
            completed and in all, about twice a second while the run goes and once at
            its end, on the calling thread; an exception it raises stops the run and is
            raised. A tqdm bar, say::

                bar = tqdm.auto.tqdm(unit="req")
                def show(done, total):
                    bar.total, bar.n = total, done
                    bar.refresh()
                spindle.run(trace="big.csv", requests=False, progress=show)

    The GIL is released while the stack simulates; Ctrl-C stops the run
    (``KeyboardInterrupt``).
    """
    if progress is not None and not callable(progress):
        raise ValueError(
            f"progress: expected a function of (done, total), got {type(progress).__name__} {progress!r}"
        )
    text, path = _config(config)
    if path is not None:
        options = {"config": path, **options}
    from ._trace import TraceReader

    if workload is not None and options.get("format") not in (None, False):
        raise ValueError(
            "format= applies to a trace file (trace=); workload= is given as data"
        )
    if isinstance(workload, TraceReader) and time_unit is not None:
        raise ValueError(
            "time_unit= applies to a workload given as a DataFrame or arrays; a TraceReader's "
            "times are read in its own time_unit= (give it there)"
        )
    w = (
        _workload(workload, time_unit, flag(check_time_unit, "check_time_unit"))
        if workload is not None
        else None
    )
    if workload is None and time_unit is not None:
        raise ValueError("time_unit= applies to a workload= given as a DataFrame or arrays")
    if summary not in (None, True, False):
        raise ValueError(f"summary= must be None, True or False, got {summary!r}")
    pairs = _pairs(options)
    keep = flag(requests, "requests")
    out, rows = _core.run(pairs, text, w, keep, bool(summary) and not keep, progress)
    rerun = None
    if not keep and summary is None:
        rerun = lambda: _core.run(pairs, text, w, False, True)[0]  # noqa: E731
    result = Result(out, rows, rerun)
    for note in result.notes:
        warnings.warn(note, LongQueueWarning, stacklevel=stacklevel())
    return result


def run_json(config=None, **options) -> dict:
    """Runs ``spindle run`` with these options (CLI flags as keywords) and returns its
    ``--json`` output as a dict: exactly what the command line prints (config,
    metrics, nodes). ``config=`` is TOML text or a path, as for :func:`run`."""
    text, path = _config(config)
    if path is not None:
        options = {"config": path, **options}
    out, _ = _core.run(_pairs(options), text, None, False, False)
    full = json.loads(out)
    for note in full.get("notes", []):
        warnings.warn(note, LongQueueWarning, stacklevel=stacklevel())
    return {k: full[k] for k in ("config", "metrics", "nodes")}
