"""``spindle.validate``: DiskSim's real-drive validation traces, as a DataFrame."""

from __future__ import annotations

import json
import os
from typing import Iterable, Optional, Union

from . import _core

Drive = Union[str, "os.PathLike[str]"]


def validate(drives: Optional[Union[Drive, Iterable[Drive]]] = None, calibrated: bool = False):
    """Replays validation traces as ``spindle validate --json`` does and returns one row
    per drive, indexed by ``disk``.

    Each drive's trace is replayed closed-loop with one request outstanding, and its
    simulated response times are compared with those the real drive measured by the
    rms demerit (Ruemmler-Wilkes; ms, lower is better).

    Columns: ``requests``, ``rms_ms``, ``mean_measured_ms``, ``mean_simulated_ms`` and,
    for DiskSim's own validation drives, ``disksim_rms_ms``, ``disksim_mean_ms`` and
    ``rms_ratio_vs_disksim``. With ``calibrated=True`` each drive is calibrated on the
    first half of its trace and judged on the second only: ``test_rms_replay_ms`` (the
    drive file, one replay), ``test_rms_uncalibrated_ms`` and ``test_rms_calibrated_ms``
    (under the calibration's prediction, ``calibration.prediction``: ``"replay"``, or
    ``"phase-averaged"`` where the trace does not pin the platter's phase,
    ``calibration.phase_alignment``), ``test_rms_calibrated_replay_ms``,
    ``test_replay_noise_ms`` (phase-averaged drives), ``disksim_test_rms_ms``,
    ``calibrated_vs_disksim``, the fitted adjustments as ``calibration.adjustments.*``
    columns, the read residual as ``calibration.residual.*`` where one is kept, and
    ``note`` where calibration does not help.

    Args:
        drives: DiskSim ``.parv`` files (each with ``FILE.trace`` beside it), spindle
            drive files (``.toml``), or built-in drive names (``"cheetah9LP"``,
            ``"ibm18es"``, ``"atlas10k"``, ``"hp_c2247a"``); one or a list. Default:
            the four built-in drives.
        calibrated: calibrate on the first half of each trace, judge on the second.

    ValueError for a file that cannot be imported (with its line), FileNotFoundError
    for a missing one.
    """
    import pandas as pd

    if drives is None:
        names = []
    elif isinstance(drives, (str, os.PathLike)):
        names = [os.fspath(drives)]
    else:
        names = [os.fspath(d) for d in drives]
        if not names:
            # An empty list would reach the core as "no drives given": all four.
            raise ValueError("drives: an empty list; give None for the four built-in drives")
    rows = json.loads(_core.validate(names, calibrated))
    return pd.json_normalize(rows).set_index("disk")
