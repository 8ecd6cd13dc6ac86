"""spindle: a fast, faithful, disk-aware storage stack, from Python.

The simulator is spindle's Rust engine; this package drives it in-process.
"""

from __future__ import annotations

import json

from . import _core

__version__ = _core.__version__


def run_json(*args: str) -> dict:
    """Runs ``spindle run ARGS --json`` in-process and returns its JSON as a dict."""
    return json.loads(_core.run_json(list(args)))
