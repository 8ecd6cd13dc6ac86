"""spindle: a fast, faithful, disk-aware storage stack, from Python.

The simulator is spindle's Rust engine; this package drives it in-process.
"""

from __future__ import annotations

import json

from . import _core
from .sweep import sweep

__version__ = _core.__version__


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


def run_json(**options) -> dict:
    """Runs ``spindle run`` with these options (CLI flags as keywords) and returns its
    ``--json`` summary as a dict."""
    return json.loads(_core.run_json(_pairs(options)))
