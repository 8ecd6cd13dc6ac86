"""``spindle.torture``: a seeded fault campaign over a byte-exact stack, from Python."""

from __future__ import annotations

import json
from typing import Any, Dict

from . import _core
from ._run import _config, _pairs

# The report's fields that are not counts.
_NOT_COUNTS = ("stack", "seed", "ops", "kinds", "array", "simulated_s")


class TortureResult:
    """What a campaign found, as ``spindle torture --json`` reports it.

    Attributes:
        stack: the stack the campaign ran (e.g. "4+1 RAID-4 of wd-re3, …").
        seed, ops: the campaign's seed and operations.
        simulated_s: simulated time the campaign took, seconds.
        ok: True when no read ever returned wrong bytes (the command line exits 0;
            a read refused as unrecoverable is not wrong).
        wrong_reads, wrong_bytes: reads that returned wrong bytes, and those bytes.
        faults: a DataFrame indexed by fault kind (lost writes, misdirected writes,
            torn writes, bit flips, drive failures, power cuts) with columns
            ``injected``, ``detected``, ``repaired``, ``overwritten`` (arrays and
            mirrors; empty for the journal and the layout engine, whose counts are in
            ``counts``).
        counts: a pandas Series of every other count of the report (reads right,
            reads refused, scrubs, …), named as in the JSON.
        array: for a journal over an array, the array's own counts (a dict).
        json: the whole report as a dict.
    """

    def __init__(self, report: Dict[str, Any]):
        import pandas as pd

        self.json = report
        self.stack: str = report["stack"]
        self.seed: int = report["seed"]
        self.ops: int = report["ops"]
        self.simulated_s: float = report["simulated_s"]
        self.wrong_reads: int = report["wrong_reads"]
        self.wrong_bytes: int = report["wrong_bytes"]
        self.ok: bool = self.wrong_reads == 0 and self.wrong_bytes == 0
        cols = ["injected", "detected", "repaired", "overwritten"]
        kinds = report.get("kinds", [])
        self.faults = pd.DataFrame(
            [{c: k[c] for c in cols} for k in kinds],
            index=pd.Index([k["kind"] for k in kinds], name="kind"),
            columns=cols,
            dtype="int64",
        )
        self.counts = pd.Series(
            {k: v for k, v in report.items() if k not in _NOT_COUNTS}, name="count"
        )
        self.array: Dict[str, Any] = report.get("array", {})

    def __repr__(self) -> str:
        verdict = "no wrong read" if self.ok else f"{self.wrong_reads} WRONG READS"
        return (
            f"<spindle.TortureResult {self.ops} operations on {self.stack} (seed {self.seed}), "
            f"{self.simulated_s:.1f} s simulated: {verdict}>"
        )


def torture(stack=None, **options) -> TortureResult:
    """Runs a seeded fault campaign as ``spindle torture`` does, in-process, and returns
    a :class:`TortureResult`. Faults are injected into the members' writes and stored
    blocks, drives fail and the power is cut; every read is checked against the bytes
    written.

    Keywords are the command's flags (``spindle torture --help``), with ``_`` for
    ``-``: ``array`` (``raid4`` by default, ``raid5``, ``mirror``, ``journal``,
    ``dle``), ``members``, ``disk``, ``ops``, ``span``, ``rate`` (every fault kind)
    or ``lost`` / ``misdirected`` / ``torn`` / ``flips`` / ``fail`` / ``crash``,
    ``seed``, ``below``, ``parity_layout``, ``log_checksum=True``, ….

    Example::

        r = spindle.torture(array="raid5", rate=0.01, ops=20_000, seed=3)
        assert r.ok
        r.faults          # injected / detected / repaired per fault kind

    Args:
        stack: a stack, as TOML text or a path (``--stack``): its ``[device]`` tree
            (raid4, raid5, raid1/mirror, an intra array with ``reliable = true``),
            with a journal ``[[layer]]`` or a ``[layout]`` above it if wanted.

    A campaign that reads back wrong bytes still returns its result, with ``ok``
    False (the command line exits 1). ValueError for bad options, with the command
    line's message; FileNotFoundError for a missing stack file.
    """
    text, path = _config(stack, "stack")
    if path is not None:
        options = {"stack": path, **options}
    if "json" in options:
        raise ValueError("json= is not an option here: the result is the report")
    out = _core.torture(_pairs(options), text)
    return TortureResult(json.loads(out))
