"""spindle: a fast, faithful, disk-aware storage stack, from Python.

The simulator is spindle's Rust engine; this package drives it in-process, with the
command line's options, stacks and error messages:

- :func:`run` runs any stack ``spindle run`` can (keywords are its flags, or
  ``config=`` a TOML text or file) on a trace, a synthetic workload or a DataFrame, and
  returns a :class:`Result` whose ``.requests`` is a DataFrame, one row per request;
- :class:`TraceReader` reads block traces with their time unit explicit and checked;
- :class:`Disk` answers a drive model's pure queries (:func:`disks` lists the
  presets); :class:`MimicTable` holds Disk Mimic tables as numpy arrays;
- :func:`reproduce` runs the registered experiments and returns their checks;
- :func:`torture` runs a seeded fault campaign over a byte-exact stack;
- :func:`validate` replays DiskSim's real-drive validation traces (calibrated or not).

Units: times are int64 **nanoseconds** unless a name ends in ``_ms`` (float
milliseconds); addresses are 512-byte sectors (``lbn``) or bytes (``Offset``, ``Size``).
Bad input raises ValueError (FileNotFoundError / PermissionError / OSError for files)
with the command line's message.
"""

from __future__ import annotations

from . import _core
from ._disk import Disk, MimicTable, disks
from ._reproduce import reproduce
from ._run import (
    MAX_REQUEST_ROWS,
    MAX_WORKLOAD_ROWS,
    LongQueueWarning,
    Result,
    _pairs,
    run,
    run_json,
)
from ._torture import TortureResult, torture
from ._trace import Record, TraceReader
from ._validate import validate
from ._units import UNITS as TIME_UNITS
from ._units import TimeUnitWarning
from ._units import implausible as implausible_times
from .sweep import sweep

__version__ = _core.__version__

__all__ = [
    "Disk",
    "LongQueueWarning",
    "MAX_REQUEST_ROWS",
    "MAX_WORKLOAD_ROWS",
    "MimicTable",
    "Record",
    "Result",
    "TIME_UNITS",
    "TimeUnitWarning",
    "TortureResult",
    "TraceReader",
    "disks",
    "implausible_times",
    "reproduce",
    "run",
    "run_json",
    "sweep",
    "torture",
    "validate",
]
