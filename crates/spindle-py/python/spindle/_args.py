"""Integer arguments, checked before they reach the extension.

A count, an address or a seed is an integer: a Python ``int``, a numpy integer, or a
float holding a whole number (``10.0``, as a pandas column with a missing value gives
it). Anything else (``10.7``, NaN, ``True``, a string) and anything outside the
parameter's range is a ValueError naming the parameter, the range and the value:
never silently truncated, never an unnamed OverflowError or TypeError.
"""

from __future__ import annotations

import math
import operator
from typing import Optional, Tuple

import numpy as np

#: The largest value of the extension's unsigned integer types.
U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1
#: The largest int64 (times are int64 ns).
I64_MAX = 2**63 - 1


def _whole(value) -> Optional[int]:
    """``value`` as an int if it is an integer or a whole-number float, else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return int(f) if math.isfinite(f) and f.is_integer() else None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return _whole(value[()])
    try:
        return operator.index(value)
    except TypeError:
        return None


def integer(value, name: str, lo: int = 0, hi: int = U64_MAX) -> int:
    """``value`` as an int within ``lo..=hi``; ValueError naming ``name`` otherwise."""
    v = _whole(value)
    if v is None or not lo <= v <= hi:
        shown = value.item() if isinstance(value, np.generic) else value
        raise ValueError(f"{name} must be an integer within {lo}..={hi}, got {shown!r}")
    return v


def optional_integer(value, name: str, lo: int = 0, hi: int = U64_MAX) -> Optional[int]:
    """None, or :func:`integer`."""
    return None if value is None else integer(value, name, lo, hi)


def integers(values, name: str, lo: int = 0, hi: int = U64_MAX) -> Tuple[np.ndarray, bool]:
    """A number or an array of them as a flat int array (uint64 when ``lo >= 0``,
    else int64), and whether a scalar was given. Whole-number floats are taken;
    fractions, NaN, booleans, strings and values outside ``lo..=hi`` are a ValueError
    naming ``name`` and the first offending value."""
    a = np.asarray(values)
    scalar = a.ndim == 0
    a = a.reshape(-1)
    out = "<u8" if lo >= 0 else "<i8"
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a) | (a != np.floor(a))
        if bad.any():
            raise ValueError(f"{name} must be whole numbers, got {a[bad][0].item()!r}")
    elif a.dtype.kind == "O":
        # Python ints too large for int64 (or a mixed list): one at a time.
        checked = []
        for x in a:
            v = _whole(x)
            if v is None:
                raise ValueError(f"{name} must be integers within {lo}..={hi}, got {x!r}")
            checked.append(v)
        a = np.asarray(checked, dtype=object)
    elif a.dtype.kind not in "iu":
        raise ValueError(f"{name} must be integers, got dtype {a.dtype}")
    if len(a):
        # Compared as Python numbers: exact for any int, and for floats beyond 2^63.
        least, most = a.min(), a.max()
        least = int(least) if a.dtype.kind != "f" else float(least)
        most = int(most) if a.dtype.kind != "f" else float(most)
        if least < lo:
            if lo == 0:
                raise ValueError(f"{name} must not be negative, got {least}")
            raise ValueError(f"{name} must be within {lo}..={hi}, got {least}")
        if most > hi:
            raise ValueError(f"{name} must be within {lo}..={hi}, got {most}")
    return a.astype(out), scalar


def flag(value, name: str) -> bool:
    """A switch: ``True`` or ``False`` (a numpy bool too). Anything else, ``"no"`` or
    ``0`` among them, is a ValueError naming the parameter: truthiness would read
    ``"no"`` as true."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {value!r}")
