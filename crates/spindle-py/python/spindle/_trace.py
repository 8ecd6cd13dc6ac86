"""``spindle.TraceReader``: a trace file as an object, read in chunks, with its time
unit explicit and checked."""

from __future__ import annotations

import os
import warnings
from typing import Iterator, NamedTuple, Optional, Union

import numpy as np

from . import _core
from ._args import U32_MAX, U64_MAX, flag, integer, optional_integer
from ._columns import arrays, op_type
from ._units import TimeUnitWarning, implausible, stacklevel, unit_ns

#: Records read from the extension at a time.
CHUNK = 65_536
#: Most records :meth:`TraceReader.to_pandas` holds (checked as it reads).
MAX_ROWS: int = _core.MAX_REQUEST_ROWS


class Record(NamedTuple):
    """One request of a trace: arrival (int ns from the trace's start, in the unit the
    reader was told), device, first 512-byte sector, size in sectors, read or write."""

    time_ns: int
    device: int
    lbn: int
    sectors: int
    write: bool


class TraceReader:
    """A block trace, read lazily as :class:`Record` s or columns.

    Args:
        path: a file, ``FORMAT:PATH``, or a built-in trace such as ``"sample:hplajw"``;
            or a list (or tuple) of files, merged into one trace by arrival on one clock (the
            earliest record of any file, for formats with an absolute clock), which
            must share a format: an MSR server's volumes, an FIU trace's days.
        format: the format, when detection should not guess: ``disksim-ascii``,
            ``disksim-validate``, ``hp-srt``, ``msr``, ``fiu``, ``spc``, ``blkparse``,
            ``blktrace`` (the binary stream), ``alibaba``, ``tencent``, ``spindle-csv``.
        time_unit: the unit the file's time stamps are **really** in, when it differs
            from the format's own (:attr:`native_time_unit`: ms for the DiskSim and
            spindle CSV formats, 100-ns FILETIME ticks for MSR, s for SPC, blkparse and
            Tencent, µs for Alibaba, ns for FIU; ``hp-srt`` and ``blktrace`` keep their own binary clocks and
            take none):
            ``"ns"``, ``"us"``, ``"ms"``, ``"s"`` or ``"filetime"``. Times are
            rescaled so that every time handed out is ns.
        max_requests: read at most this many records (an integer within
            0..=2^64-1).
        device: keep only this trace device's records (an integer within
            0..=2^32-1).
        trace_devices: how merged files' devices are numbered: ``"per-file"`` (file k
            is device k, in the order given) or ``"as-recorded"`` (each record's own
            number); needed when two files hold the same device number.
        check_time_unit: warn (:class:`TimeUnitWarning`) when the first records'
            arrival gaps are implausible in the unit used (see
            :func:`spindle.implausible_times`).

    Records come in **file order** (as the file lists them); ``spindle.run`` replays a
    trace sorted by arrival (stably), which is the same order for a trace written in
    time order. Formats with an absolute clock (``msr``, ``fiu``, ``hp-srt``, ``alibaba``,
    ``tencent``) are timed from their earliest record, ``blktrace`` from its earliest
    event (as ``blkparse``).

    Slicing gives a reader over part of the trace (``reader[1000:2000]``); an index
    gives one record. Errors name the file, the line and the field, as the CLI's do;
    a missing file is FileNotFoundError.
    """

    def __init__(
        self,
        path: Union[str, os.PathLike, list, tuple],
        format: Optional[str] = None,
        time_unit: Optional[str] = None,
        max_requests: Optional[int] = None,
        device: Optional[int] = None,
        *,
        trace_devices: Optional[str] = None,
        check_time_unit: bool = True,
        _start: int = 0,
    ):
        if isinstance(path, (list, tuple)):
            self.path: Union[str, list] = [os.fspath(p) for p in path]
            self._specs = list(self.path)
        else:
            self.path = os.fspath(path)
            self._specs = [self.path]
        self.trace_devices = trace_devices
        max_requests = optional_integer(max_requests, "max_requests", 0, U64_MAX)
        device = optional_integer(device, "device", 0, U32_MAX)
        self.max_requests = max_requests
        self.device = device
        self.check_time_unit = flag(check_time_unit, "check_time_unit")
        self._start = _start
        probe = _core.TraceCursor(self._specs, format, trace_devices=trace_devices)
        self._name: str = probe.file
        self.format: str = probe.format
        native, native_ns = probe.native_unit
        self.native_time_unit: str = native
        if time_unit is not None:
            given_ns = unit_ns(time_unit)
            if self.format in ("hp-srt", "blktrace") and given_ns != native_ns:
                raise ValueError(
                    f"{self.format} traces keep their own clock: give no time_unit"
                )
        else:
            given_ns = native_ns
        self.time_unit: str = time_unit if time_unit is not None else native
        self._scale = (given_ns, native_ns)
        self._format_arg = format
        self._checked = False

    def _cursor(self):
        c = _core.TraceCursor(
            self._specs, self._format_arg, self._scale[0], self._scale[1], self.device, self.trace_devices
        )
        if self._start:
            c.skip(self._start)
        return c

    def _chunks(self) -> Iterator[dict]:
        """The records as chunks of numpy columns (time, device, lbn, sectors, write)."""
        cursor = self._cursor()
        left = self.max_requests
        while left is None or left > 0:
            n = CHUNK if left is None else min(CHUNK, left)
            cols = cursor.read(n)
            if not cols:
                return
            chunk = arrays(cols)
            if not self._checked:
                self._checked = True
                self._check(chunk["time"])
            if left is not None:
                left -= len(chunk["time"])
            yield chunk

    def _check(self, t: np.ndarray) -> None:
        if not self.check_time_unit:
            return
        why = implausible(t)
        if why is not None:
            warnings.warn(
                f"{self._name}: time stamps read in {self.time_unit}: {why}. Are they in "
                f"another unit? Give time_unit= (the format's own is {self.native_time_unit}).",
                TimeUnitWarning,
                stacklevel=stacklevel(),
            )

    def __iter__(self) -> Iterator[Record]:
        for c in self._chunks():
            for row in zip(
                c["time"].tolist(),
                c["device"].tolist(),
                c["lbn"].tolist(),
                c["sectors"].tolist(),
                c["write"].tolist(),
            ):
                yield Record(*row)

    def __getitem__(self, key):
        if isinstance(key, slice):
            if key.step not in (None, 1):
                raise ValueError("a TraceReader slice takes no step")
            for b in (key.start, key.stop):
                if isinstance(b, (int, float, np.number)) and not isinstance(b, bool) and b < 0:
                    raise ValueError("a TraceReader slice counts from the start: no negative bounds")
            # Records skipped in all (this reader's start and the slice's) fit in a u64.
            start = integer(0 if key.start is None else key.start, "slice start", 0, U64_MAX - self._start)
            stop = optional_integer(key.stop, "slice stop", 0, U64_MAX)
            avail = self.max_requests
            n = None if stop is None else max(0, stop - start)
            if avail is not None:
                n = max(0, avail - start) if n is None else min(n, max(0, avail - start))
            return TraceReader(
                self.path,
                self._format_arg,
                self.time_unit if self.time_unit != self.native_time_unit else None,
                n,
                self.device,
                trace_devices=self.trace_devices,
                check_time_unit=self.check_time_unit,
                _start=self._start + start,
            )
        if isinstance(key, (int, np.integer)):
            if key < 0:
                raise IndexError("a TraceReader index counts from the start: no negative index")
            if key >= U64_MAX - self._start:
                raise IndexError(f"record {key} is beyond the end of {self._name}")
            for r in self[int(key) : int(key) + 1]:
                return r
            raise IndexError(f"record {key} is beyond the end of {self._name}")
        raise TypeError(f"TraceReader indices are ints or slices, not {type(key).__name__}")

    def count(self) -> int:
        """The number of records (one pass over the file)."""
        return sum(len(c["time"]) for c in self._chunks())

    def to_numpy(self) -> dict:
        """Every record as numpy columns: ``time_ns`` (int64 ns), ``device``, ``lbn``,
        ``sectors`` (int64) and ``write`` (bool). At most :data:`MAX_ROWS` records
        (give ``max_requests`` or slice for more of a large trace)."""
        parts = []
        rows = 0
        for c in self._chunks():
            rows += len(c["time"])
            if rows > MAX_ROWS:
                raise ValueError(
                    f"{self._name}: more than {MAX_ROWS} records, the most read at once; "
                    "give max_requests= or slice the reader"
                )
            parts.append(c)
        names = ["time", "device", "lbn", "sectors", "write"]
        if not parts:
            out = {n: np.zeros(0, dtype=bool if n == "write" else np.int64) for n in names}
        else:
            out = {n: np.concatenate([p[n] for p in parts]) for n in names}
        out["time_ns"] = out.pop("time")
        return {k: out[k] for k in ("time_ns", "device", "lbn", "sectors", "write")}

    def to_pandas(self):
        """Every record as a pandas DataFrame with the MSR Cambridge trace's column
        names (``Timestamp`` in **int64 ns** from the trace's start, not FILETIME
        ticks; ``DiskNumber``; ``Type`` Read/Write; ``Offset`` and ``Size`` in bytes).
        ``df.attrs["time_unit"] == "ns"``, so it can be passed to
        ``spindle.run(workload=...)`` as it is."""
        import pandas as pd

        c = self.to_numpy()
        df = pd.DataFrame(
            {
                "Timestamp": c["time_ns"],
                "DiskNumber": c["device"],
                "Type": op_type(c["write"]),
                "Offset": c["lbn"] * 512,
                "Size": c["sectors"] * 512,
            }
        )
        df.attrs["time_unit"] = "ns"
        return df

    def summary(self) -> dict:
        """What the trace holds, in one streaming pass (memory grows with the number of
        devices and distinct request sizes, not with the trace), as ``spindle trace``
        prints it: ``requests``, ``reads``, ``writes``, ``read_fraction``,
        ``bytes_read``, ``bytes_written``, ``first_arrival_ns`` / ``last_arrival_ns`` (in
        the reader's time unit, as ns), ``span_s``, ``requests_per_s``,
        ``in_arrival_order`` (no record arrives before the one before it in the file),
        ``sequential_fraction`` (requests that start where their device's previous one,
        in file order, ended), ``sizes_sectors`` (``mean``, ``p50``, ``p90``, ``p99``,
        ``max``; None without records) and ``devices``, a DataFrame indexed by device
        with ``requests``, ``reads``, ``read_fraction``, ``extent_bytes`` (the end of
        the highest range its requests touch) and ``sequential_fraction``. Honours
        ``device``, ``max_requests`` and slicing."""
        import json

        import pandas as pd

        raw = json.loads(self._cursor().summary(self.max_requests))
        s = raw["summary"]
        n = s["requests"]

        def share(part: int, whole: int) -> float:
            return part / whole if whole else 0.0

        rows = {int(d): v for d, v in s["devices"].items()}
        devices = pd.DataFrame(
            {
                "requests": [v["requests"] for v in rows.values()],
                "reads": [v["reads"] for v in rows.values()],
                "read_fraction": [share(v["reads"], v["requests"]) for v in rows.values()],
                "extent_bytes": [v["max_end_lbn"] * 512 for v in rows.values()],
                "sequential_fraction": [
                    share(v["sequential"], v["requests"]) for v in rows.values()
                ],
            },
            index=pd.Index(list(rows.keys()), name="device", dtype="int64"),
        )
        return {
            "format": self.format,
            "requests": n,
            "reads": s["reads"],
            "writes": s["writes"],
            "read_fraction": share(s["reads"], n),
            "bytes_read": s["sectors_read"] * 512,
            "bytes_written": s["sectors_written"] * 512,
            "first_arrival_ns": s["first_arrival_ns"],
            "last_arrival_ns": s["last_arrival_ns"],
            "span_s": raw["span_s"],
            "requests_per_s": raw["requests_per_s"],
            "in_arrival_order": s["in_arrival_order"],
            "sequential_fraction": share(s["sequential"], n),
            "sizes_sectors": raw["sizes_sectors"],
            "devices": devices,
        }

    def head(self, n: int = 5):
        """The first ``n`` records as a DataFrame (see :meth:`to_pandas`)."""
        return self[: integer(n, "n", 0, U64_MAX)].to_pandas()

    def __repr__(self) -> str:
        return (
            f"<spindle.TraceReader {self.path!r} format={self.format} "
            f"time_unit={self.time_unit}>"
        )
