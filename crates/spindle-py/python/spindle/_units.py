"""Time units, explicit and checked.

Every time spindle hands out is an integer number of **nanoseconds** (``int64``) unless
its name ends in ``_ms`` (then a float of milliseconds). Times coming in (a DataFrame
workload, a trace read with ``time_unit=``) name their unit; the values are then checked
for plausibility, because a trace in seconds read as nanoseconds (or the reverse)
replays without any error and gives meaningless results.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

#: Known time units and their length in nanoseconds (``filetime`` is the 100-ns tick of
#: Windows FILETIME, the MSR Cambridge traces' clock).
UNITS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "filetime": 100,
}

#: A mean gap between arrivals below this (ns) is implausible: more than a million
#: requests per second, beyond the block traces of disks and arrays spindle models.
#: Catches seconds or milliseconds read as nanoseconds (errors of 10^6 and more);
#: smaller errors (ms read as s, µs as ns) stay plausible and are not caught.
MIN_MEAN_GAP_NS = 1_000
#: A median gap between distinct arrivals above this (ns) is implausible: an hour.
MAX_MEDIAN_GAP_NS = 3600 * 10**9
#: Fewer requests than this are not judged.
MIN_JUDGED = 100
#: At most this many arrivals are looked at.
MAX_JUDGED = 1_000_000


class TimeUnitWarning(UserWarning):
    """Time stamps look as if read in the wrong unit (see :func:`implausible`)."""


def stacklevel() -> int:
    """The ``warnings.warn`` stack level of the first caller outside this package."""
    import inspect
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    level = 1
    frame = inspect.currentframe()
    # Skip this function's own frame, then every frame of the package.
    frame = frame.f_back if frame is not None else None
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == here:
        level += 1
        frame = frame.f_back
    return level


def unit_ns(unit: str) -> int:
    """The length of ``unit`` in ns; ValueError for an unknown unit."""
    try:
        return UNITS[unit]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown time unit {unit!r}: expected one of {', '.join(repr(u) for u in UNITS)}"
        ) from None


def implausible(t_ns) -> Optional[str]:
    """Why these arrival times (ns) look read in the wrong unit, or None.

    ``t_ns`` is a sequence or array of numbers (ints or floats, fractions kept) or of
    ``timedelta64`` values. Judged on the first :data:`MAX_JUDGED` arrivals of at
    least :data:`MIN_JUDGED` (fewer, including none, give None: too few to judge):
    implausible when they arrive faster than one per :data:`MIN_MEAN_GAP_NS` ns on
    average (a million requests per second: seconds or milliseconds read as
    nanoseconds), or when the median gap
    between distinct arrivals exceeds an hour (nanoseconds read as seconds). Arrivals
    all at the same instant (a batch, DiskSim's validate traces) are plausible.

    Missing or non-finite times (NaN, infinity, NaT) cannot be judged, whatever their
    number: ValueError naming the first one's row, as for non-numeric values.
    """
    a = np.asarray(t_ns)
    if a.ndim != 1:
        raise ValueError(f"t_ns: expected a 1-D sequence of times, got shape {a.shape}")
    if a.dtype.kind == "m":
        if np.isnat(a).any():
            raise ValueError(f"t_ns has a missing time (NaT) at row {int(np.argmax(np.isnat(a)))}")
        a = a.astype("timedelta64[ns]").astype(np.int64)
    elif a.dtype.kind == "f":
        bad = ~np.isfinite(a)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(
                f"t_ns has a non-finite time ({a[i].item()!r}) at row {i}: missing or non-finite "
                "arrival times cannot be judged; drop or fill them first"
            )
    elif a.dtype.kind not in "iu":
        raise ValueError(f"t_ns: expected numbers or timedeltas, got dtype {a.dtype}")
    # Integers stay exact; floats are judged as they are (nothing truncated); the span
    # is a Python number, so it cannot overflow.
    t = a[:MAX_JUDGED]
    if t.dtype.kind == "f":
        t = t.astype(np.float64)
    n = len(t)
    if n < MIN_JUDGED:
        return None
    span = t.max().item() - t.min().item()
    if span == 0:
        return None
    mean_gap = span / (n - 1)
    if mean_gap < MIN_MEAN_GAP_NS:
        return (
            f"{n} requests arrive within {span} ns, a mean gap of {mean_gap:.3g} ns "
            f"({1e9 / mean_gap:.3g} requests/s, more than the {1e9 / MIN_MEAN_GAP_NS:.0e} "
            "a disk trace can plausibly have)"
        )
    gaps = np.diff(np.sort(t))
    gaps = gaps[gaps > 0]
    median = float(np.median(gaps))
    if median > MAX_MEDIAN_GAP_NS:
        return f"the median gap between arrivals is {median / 1e9:.3g} s, more than an hour"
    return None


def to_ns(values, unit: Optional[str], what: str) -> np.ndarray:
    """Times as int64 ns. ``timedelta64``/``datetime64`` values carry their unit (a
    datetime is taken from the earliest); numbers need ``unit``. Refuses negative,
    non-finite and fractional-nanosecond values (fractions of a nanosecond mean the
    values are in a larger unit)."""
    import pandas as pd

    a = values.to_numpy() if isinstance(values, (pd.Series, pd.Index)) else np.asarray(values)
    if a.dtype.kind == "M":
        a = a - a.min()
    if a.dtype.kind == "m":
        if unit is not None:
            raise ValueError(f"{what} is a timedelta, which carries its unit: give no time_unit")
        if np.isnat(a).any():
            raise ValueError(f"{what} has missing values (NaT)")
        ns = a.astype("timedelta64[ns]").astype(np.int64)
    else:
        if unit is None:
            raise ValueError(
                f"{what} has no time unit: pass time_unit= one of "
                f"{', '.join(repr(u) for u in UNITS)} (or name the column time_ns, time_us, "
                "time_ms or time_s, or give timedeltas)"
            )
        per = unit_ns(unit)
        if a.dtype.kind in "iu":
            if len(a) and int(a.max()) > (2**63 - 1) // per:
                raise ValueError(
                    f"{what} read in {unit} exceeds 2^63 ns (292 years): are the times in "
                    "a smaller unit? say so with time_unit="
                )
            ns = a.astype(np.int64) * per
        elif a.dtype.kind == "f" or a.dtype == object:
            # Text and booleans are not times, though numpy would convert "1.5" and True.
            odd = (
                next((x for x in a if isinstance(x, (str, bytes, bool, np.bool_))), None)
                if a.dtype == object
                else None
            )
            if odd is not None:
                raise ValueError(f"{what}: expected numbers or timedeltas, got {odd!r}")
            try:
                f = a.astype(np.float64)
            except (TypeError, ValueError) as e:
                raise ValueError(f"{what}: expected numbers or timedeltas ({e})") from None
            if not np.isfinite(f).all():
                raise ValueError(f"{what} has non-finite values (NaN or infinity)")
            scaled = f * per
            if unit == "ns" and len(f) and np.any(scaled != np.floor(scaled)):
                i = int(np.argmax(scaled != np.floor(scaled)))
                raise ValueError(
                    f"{what} read as ns has fractional nanoseconds (row {i}: {f[i]!r}): "
                    "are the times in seconds or milliseconds? say so with time_unit="
                )
            if len(f) and scaled.max() >= 2.0**63:
                raise ValueError(
                    f"{what} read in {unit} exceeds 2^63 ns (292 years): are the times in "
                    "a smaller unit? say so with time_unit="
                )
            ns = np.rint(scaled).astype(np.int64)
        else:
            raise ValueError(f"{what}: expected numbers or timedeltas, got dtype {a.dtype}")
    if len(ns) and ns.min() < 0:
        i = int(np.argmin(ns))
        raise ValueError(f"{what} has a negative time (row {i})")
    return ns
