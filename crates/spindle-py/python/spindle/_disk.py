"""The disk model's pure queries and Disk Mimic tables, as numpy arrays."""

from __future__ import annotations

import json
import os
from typing import Dict, Optional, Tuple, Union

import numpy as np

from . import _core
from ._args import I64_MAX, U32_MAX, U64_MAX, flag, integer, integers
from ._columns import arrays

#: Most values one query takes.
MAX_QUERY: int = _core.MAX_QUERY
#: Most random distances one Disk Mimic probe asks for (``spindle mimic probe --distances``).
MAX_DISTANCES: int = _core.MAX_DISTANCES
#: Most samples per distance of a Disk Mimic probe (``--samples``).
MAX_MIMIC_SAMPLES: int = _core.MAX_MIMIC_SAMPLES


def _lbns(values, what: str) -> Tuple[np.ndarray, bool]:
    """LBNs as uint64 and whether a scalar was given."""
    return integers(values, what, 0, U64_MAX)


class Disk:
    """A drive model: a preset (``spindle disks`` lists them) or the first disk of a
    DiskSim ``.parv`` file, loaded as ``spindle disk-info`` loads it.

    Its queries are pure (nothing is simulated, the model's state is not changed) and
    take a number or an array. Times are **int64 nanoseconds** unless a name ends in
    ``_ms`` (float milliseconds); addresses are 512-byte sectors (LBNs).

    Integer arguments (LBNs, cylinders, distances, times) take ints, numpy integers
    and whole-number floats (``10.0``); a fraction (``10.7``), NaN, a bool, a string or
    a value out of range is a ValueError naming the argument: nothing is truncated.
    """

    def __init__(self, name: str = "hp-c2249a"):
        if not isinstance(name, (str, os.PathLike)):
            raise ValueError(
                f"name: expected a preset name or a drive file's path, got {type(name).__name__} {name!r}"
            )
        self._m = _core.DiskModel(os.fspath(name))
        self.name: str = self._m.name
        #: ``"preset"`` or the path of the imported DiskSim file.
        self.source: str = self._m.source
        self._arg = os.fspath(name)

    @property
    def capacity(self) -> int:
        """Capacity in 512-byte sectors."""
        return self._m.capacity

    @property
    def capacity_bytes(self) -> int:
        return self._m.capacity * 512

    @property
    def cylinders(self) -> int:
        return self._m.cylinders

    @property
    def surfaces(self) -> int:
        return self._m.surfaces

    @property
    def rpm(self) -> float:
        return self._m.rpm

    @property
    def revolution_ms(self) -> float:
        """One revolution of the platters, ms."""
        return self._m.revolution_ns / 1e6

    @property
    def average_seek_ms(self) -> float:
        """Mean seek between two uniformly random sectors (the spec sheet's), ms."""
        return self._m.average_seek_ms

    @property
    def full_stroke_ms(self) -> float:
        """Seek across the full stroke, ms."""
        return self._m.full_stroke_ms

    def info(self) -> dict:
        """Everything ``spindle disk-info NAME --json`` reports (seek figures, cache,
        overheads, zones, provenance)."""
        return json.loads(_core.DiskModel.info_json(self._arg))

    def zones(self):
        """The zones as a DataFrame: ``zone``, ``first_cylinder``, ``last_cylinder``,
        ``sectors_per_track``, ``first_lbn``, ``lbn_count``."""
        import pandas as pd

        return pd.DataFrame(arrays(self._m.zones()))

    def lbn_to_physical(self, lbn):
        """Where LBNs lie: ``cylinder``, ``head`` (surface), ``sector`` (index on its
        track in LBN order), ``zone``, ``track`` (zone-relative), ``angle_sectors``
        (angular position in sectors from the index) and ``sectors_per_track``.

        A number gives a dict of ints; an array gives a DataFrame, one row per LBN.
        ValueError for an LBN beyond the capacity."""
        a, scalar = _lbns(lbn, "lbn")
        cols = arrays(self._m.locate_many(a.tobytes()))
        if scalar:
            return {k: int(v[0]) for k, v in cols.items()}
        import pandas as pd

        return pd.DataFrame(cols)

    def physical_to_lbn(self, cylinder: int, head: int, sector: int) -> Optional[int]:
        """The LBN at (cylinder, head, sector), or None for a spare or unmapped sector
        (or a position beyond the disk). Each is an integer within 0..=2^32-1."""
        return self._m.lbn_of(
            integer(cylinder, "cylinder", 0, U32_MAX),
            integer(head, "head", 0, U32_MAX),
            integer(sector, "sector", 0, U32_MAX),
        )

    def positioning_time(self, from_lbn, to_lbn, write: bool = False, now_ns: int = 0):
        """Seek and rotational latency, int ns, from the track holding ``from_lbn`` to
        the first sector of ``to_lbn``, the head arriving over ``from_lbn``'s track at
        time ``now_ns`` (the platters' angle is the one at that time; angle 0 at time
        0). Seek includes a head switch and, for a write, the write settle.

        Numbers give ``(seek_ns, rotation_ns)`` ints; arrays (broadcast together) give
        a pair of int64 arrays."""
        f, fs = _lbns(from_lbn, "from_lbn")
        t, ts = _lbns(to_lbn, "to_lbn")
        f, t = np.broadcast_arrays(f, t)
        now_ns = integer(now_ns, "now_ns", 0, I64_MAX)
        cols = arrays(
            self._m.positioning_many(
                np.ascontiguousarray(f).tobytes(), np.ascontiguousarray(t).tobytes(), flag(write, "write"), now_ns
            )
        )
        if fs and ts:
            return int(cols["seek_ns"][0]), int(cols["rotation_ns"][0])
        return cols["seek_ns"], cols["rotation_ns"]

    def seek_time(self, distance):
        """Seek time (int ns) of a move of ``distance`` cylinders (a number or an
        array, each within 0..=cylinders - 1: no move is longer than the full stroke)."""
        d, scalar = integers(distance, "distance", 0, self._longest_seek())
        if scalar:
            return int(self.seek_curve(int(d[0]))[1][-1])
        shape = np.shape(distance)
        _, s = self.seek_curve(int(d.max()) if len(d) else 0)
        return s[d.astype(np.int64)].reshape(shape)

    def seek_curve(self, max_distance: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
        """The seek curve: ``(distance, seek_ns)`` int64 arrays for every distance 0 ..
        ``max_distance`` cylinders (default: the full stroke, cylinders - 1)."""
        longest = self._longest_seek()
        if max_distance is None:
            max_distance = longest
        c = arrays(self._m.seek_curve(integer(max_distance, "max_distance", 0, longest)))
        return c["distance"], c["seek_ns"]

    def _longest_seek(self) -> int:
        """The full stroke in cylinders: the curve stays flat beyond it, so a longer
        distance is a mistake, not a seek."""
        return min(max(self.cylinders - 1, 0), MAX_QUERY)

    def mimic(self, distances: int = 1000, samples: int = 10, interpolate: bool = False, seed: int = 1):
        """Probes this disk with the Disk Mimic (:meth:`MimicTable.probe`)."""
        return MimicTable.probe(self._arg, distances, samples, interpolate, seed)

    def __repr__(self) -> str:
        return f"<spindle.Disk {self.name!r}: {self.capacity} sectors, {self.rpm:.0f} rpm>"


class MimicTable:
    """A Disk Mimic table: the service times the Disk Mimic measured per (previous
    operation, current operation, inter-request distance in sectors), the file
    ``spindle mimic probe`` writes and ``spindle mimic show`` reads.

    Attributes:
        metric: how an entry's samples become one prediction (mean, median, …).
        samples_per_distance, probe_sectors, interpolated_distances, memory_bytes,
        probe_requests: as in the file.
    """

    def __init__(self, text: str, name: str = "table"):
        meta, width, entries, intervals = _core.mimic_columns(text, name)
        (
            self.metric,
            self.samples_per_distance,
            self.probe_sectors,
            self.interpolated_distances,
            self.memory_bytes,
            self.probe_requests,
        ) = meta
        self._text = text
        e = arrays(entries)
        n = len(e["distance"])
        self._entries = {k: v for k, v in e.items() if k != "samples_ns"}
        self._samples = e["samples_ns"].reshape(n, width) if width else np.zeros((n, 0))
        self._intervals = arrays(intervals)

    @classmethod
    def probe(
        cls, disk: str = "hp-c2249a", distances: int = 1000, samples: int = 10,
        interpolate: bool = False, seed: int = 1,
    ) -> "MimicTable":
        """Probes a simulated drive off-line, as ``spindle mimic probe --disk DISK
        --distances N --samples S [--interpolate] --seed SEED`` does: ``distances``
        random inter-request distances over the whole disk, ``samples`` timed probes
        each (the CLI's limits: ``distances`` within 1..=:data:`MAX_DISTANCES`,
        ``samples`` within 1..=:data:`MAX_MIMIC_SAMPLES`, their product at most the
        CLI's; ``seed`` within 0..=2^64-1; ValueError naming the argument otherwise)."""
        return cls(
            _core.mimic_probe(
                os.fspath(disk),
                integer(distances, "distances", 1, MAX_DISTANCES),
                integer(samples, "samples", 1, MAX_MIMIC_SAMPLES),
                flag(interpolate, "interpolate"),
                integer(seed, "seed", 0, U64_MAX),
            ),
            disk,
        )

    @classmethod
    def load(cls, path: Union[str, os.PathLike]) -> "MimicTable":
        """Reads and checks a table file (FileNotFoundError if missing; ValueError
        naming the field if it is not a valid table)."""
        p = os.fspath(path)
        return cls(_core.mimic_read(p), p)

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes the table as ``spindle mimic probe --out`` does."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self._text)

    def to_json(self) -> str:
        """The table file's text."""
        return self._text

    def arrays(self) -> Dict[str, np.ndarray]:
        """The entries as numpy arrays: ``prev_write``, ``cur_write`` (bool),
        ``distance`` (int64 sectors), ``mean_ns``, ``sample_count`` (int64) and
        ``samples_ns``: a 2-D float64 array, one row per entry, NaN-padded to the
        widest entry."""
        out = dict(self._entries)
        out["samples_ns"] = self._samples
        return out

    @property
    def entries(self):
        """The entries as a DataFrame: ``prev``, ``cur`` (R/W), ``distance``
        (sectors), ``mean_ns``, ``sample_count``."""
        import pandas as pd

        e = self._entries
        return pd.DataFrame(
            {
                "prev": np.where(e["prev_write"], "W", "R"),
                "cur": np.where(e["cur_write"], "W", "R"),
                "distance": e["distance"],
                "mean_ns": e["mean_ns"],
                "sample_count": e["sample_count"],
            }
        )

    @property
    def intervals(self):
        """Accepted interpolation intervals: ``prev``, ``cur``, ``from``, ``to``."""
        import pandas as pd

        i = self._intervals
        return pd.DataFrame(
            {
                "prev": np.where(i["prev_write"], "W", "R"),
                "cur": np.where(i["cur_write"], "W", "R"),
                "from": i["from"],
                "to": i["to"],
            }
        )

    def __len__(self) -> int:
        return len(self._entries["distance"])

    def __repr__(self) -> str:
        return f"<spindle.MimicTable {len(self)} entries, metric {self.metric}>"


def disks(flash: bool = False):
    """The built-in presets as a DataFrame indexed by ``name``, as ``spindle disks
    --json`` lists them: capacity (``capacity_gb``, ``capacity_sectors``), ``surfaces``,
    ``cylinders``, ``zones``, ``rpm``, ``revolution_ms``, the drive's command queue
    (``queue_depth``, ``policy``) and ``provenance``. With ``flash=True``, the flash
    (SSD) presets with every model parameter (latencies, channels, bandwidths) and the
    datasheet figures they were fitted to (``datasheet.*`` columns).

    Any name in the disks' index is what ``spindle.run(disk=...)`` and :class:`Disk`
    take; the flash presets are staging devices, named by a run configuration's
    ``[layout] flash``, not disks."""
    import json

    import pandas as pd

    return pd.json_normalize(json.loads(_core.presets(flash))).set_index("name")

