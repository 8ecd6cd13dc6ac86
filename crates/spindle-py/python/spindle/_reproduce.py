"""``spindle.reproduce``: the registered experiments' checks as a DataFrame."""

from __future__ import annotations

import json
from typing import Iterable, Optional, Union

from . import _core
from ._args import U64_MAX, flag, integer, optional_integer


def reproduce(
    ids: Union[str, Iterable[str]] = "all",
    quick: bool = True,
    seed: int = 1,
    full_scale: bool = False,
    durability: str = "write-through",
    jobs: Optional[int] = None,
    progress=None,
):
    """Runs experiments as ``spindle reproduce IDS [--quick] --seed SEED`` does (no
    report is written) and returns their checks as a pandas DataFrame, one row per
    check: ``id``, ``metric``, ``paper`` (the paper's number, or the bound),
    ``ours``, ``tolerance`` (as written, e.g. "±10 %"), ``pass`` (bool), ``kind``
    (``reproduction``: a simulated number that can fail; ``consistency``: a check
    that is not a reproduction, see ``why``), ``why``, ``reference`` and
    ``experiment`` (the registered experiment that made it). ``df.attrs["seconds"]``
    maps each experiment to its wall time.

    Args:
        ids: catalog ids or prefixes (``"PROX"`` selects a family), or ``"all"``.
        quick: the quick mode (tests and CI use it); experiments that take only seconds
            at full size run at full size in it, as ``reproduce --help`` lists.
        seed: the seed of every experiment (an integer within 0..=2^64-1).
        full_scale: the paper's full scale where an experiment supports it (PROX-T2;
            refused when none selected does).
        durability: ``"write-through"`` (default), ``"flush"`` or ``"cache"`` (when an
            array's write counts as done; PROX-T2, PROX-T3, PROX-COST: another value is
            refused when none of them is selected).
        jobs: experiments run at once, within 1..=1024 (default: the machine's cores).
        progress: a function called with ``(finished, total, last_id)`` (experiments
            finished, selected, and the id of the last to finish, ``""`` before the
            first) about twice a second and once at the end, on the calling thread; an
            exception it raises stops the run (no further experiment starts) and is
            raised.

    ValueError for an unknown id or a bad argument (naming it); RuntimeError if an
    experiment fails.
    """
    import pandas as pd

    if isinstance(ids, str):
        ids = [ids]
    try:
        ids = list(ids)
    except TypeError:
        raise ValueError(
            f"ids: expected an id or a list of ids (strings), got {type(ids).__name__} {ids!r}"
        ) from None
    bad = next((i for i in ids if not isinstance(i, str)), None)
    if bad is not None:
        raise ValueError(f"ids: expected strings, got {type(bad).__name__} {bad!r}")
    quick = flag(quick, "quick")
    full_scale = flag(full_scale, "full_scale")
    if not ids:
        # An empty list would reach the core as "no ids given": every experiment.
        raise ValueError('ids: an empty list; give "all" for every experiment')
    if progress is not None and not callable(progress):
        raise ValueError(
            f"progress: expected a function of (finished, total, last_id), got {type(progress).__name__} {progress!r}"
        )
    seed = integer(seed, "seed", 0, U64_MAX)
    jobs = optional_integer(jobs, "jobs", 1, _core.MAX_JOBS)
    out = json.loads(_core.reproduce(ids, quick, seed, full_scale, durability, jobs, progress))
    rows = []
    for e in out:
        for c in e["checks"]:
            rows.append(
                {
                    "id": c["id"],
                    "metric": c["metric"],
                    "paper": c["paper"],
                    "ours": c["ours"],
                    "tolerance": c["tolerance"],
                    "pass": bool(c["pass"]),
                    "kind": c["kind"],
                    "why": c.get("why", ""),
                    "reference": c.get("reference", ""),
                    "experiment": e["experiment"],
                }
            )
    cols = ["id", "metric", "paper", "ours", "tolerance", "pass", "kind", "why", "reference", "experiment"]
    df = pd.DataFrame(rows, columns=cols)
    df.attrs["seconds"] = {e["experiment"]: e["seconds"] for e in out}
    return df
