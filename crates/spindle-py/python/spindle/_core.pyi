"""Type stubs of the extension module ``spindle._core`` (the Rust side). Columns cross
as lists of ``(name, numpy dtype, bytes)``; see ``spindle._columns``."""

from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

Columns = List[Tuple[str, str, bytes]]

__version__: str
MAX_REQUEST_ROWS: int
REQUEST_INT_COLUMNS: List[str]
REQUEST_BOOL_COLUMNS: List[str]
MAX_WORKLOAD_ROWS: int
MAX_CHUNK: int
MAX_QUERY: int
MAX_DISTANCES: int
MAX_MIMIC_SAMPLES: int
MAX_JOBS: int

def run(
    options: Sequence[Tuple[str, Optional[str]]],
    config_text: Optional[str] = None,
    workload: Optional[Tuple[int, bytes, bytes, bytes, bytes, bytes]] = None,
    collect: bool = True,
    fio: bool = True,
    progress: Optional[Callable[[int, int], object]] = None,
) -> Tuple[str, Optional["RequestRows"]]:
    """Runs a stack: ``options`` are ``spindle run`` flags as (name, value) pairs;
    ``workload`` is (n, arrival ns int64, device uint32, lbn uint64, sectors uint32,
    write uint8) as little-endian bytes. Returns the run's JSON text (config, metrics,
    nodes, node_reports, notes, and ``fio`` when not ``collect`` but ``fio``) and, if
    ``collect``, the request rows. ``progress`` is called with (done, total) about
    twice a second and once at the end."""

def torture(
    options: Sequence[Tuple[str, Optional[str]]],
    stack_text: Optional[str] = None,
) -> str:
    """Runs a fault campaign: ``options`` are ``spindle torture`` flags as (name, value)
    pairs; ``stack_text`` a stack TOML instead of ``--stack FILE``. Returns the
    ``--json`` report, wrong reads or not."""

def validate(files: Sequence[str], calibrated: bool = False) -> str:
    """``spindle validate --json`` (``--calibrated`` if asked) of ``files`` (.parv, drive
    files or built-in names; empty: the four built-in drives), as JSON text."""

def presets(flash: bool = False) -> str:
    """``spindle disks --json`` (``--flash`` if asked) as JSON text."""

class RequestRows:
    """A run's request logs, kept compactly until asked for as columns."""

    def blocks(self) -> Tuple[int, bytearray, bytearray]:
        """(n, int64 block of REQUEST_INT_COLUMNS, bool block of REQUEST_BOOL_COLUMNS),
        each block one column of n values after another, in request-id order."""
    def __len__(self) -> int: ...
    @property
    def nbytes(self) -> int:
        """Bytes the kept rows take (about 35 a row; at most 104)."""
    def fio_json(self) -> str:
        """The run as fio's JSON summarises a job, made from the kept rows."""

def mimic_probe(disk: str, distances: int, samples: int, interpolate: bool, seed: int) -> str:
    """``spindle mimic probe`` in-process: the table's JSON text."""

def mimic_read(path: str) -> str:
    """A table file, checked: its text."""

def mimic_columns(
    text: str, name: str
) -> Tuple[Tuple[str, int, int, int, int, int], int, Columns, Columns]:
    """A table's (metric, samples per distance, probe sectors, interpolated distances,
    memory bytes, probe requests), sample width, entry columns and interval columns."""

def reproduce(
    ids: Sequence[str],
    quick: bool = True,
    seed: int = 1,
    full_scale: bool = False,
    durability: str = "write-through",
    jobs: Optional[int] = None,
    progress: Optional[Callable[[int, int, str], object]] = None,
) -> str:
    """Runs experiments; JSON list of {experiment, title, seconds, checks}.
    ``progress`` is called with (finished, total, last id) about twice a second and
    once at the end."""

class TraceCursor:
    """A trace opened for reading in chunks of columns."""

    format: str
    file: str
    native_unit: Tuple[str, int]
    def __init__(
        self,
        specs: List[str],
        format: Optional[str] = None,
        num: int = 1,
        den: int = 1,
        device: Optional[int] = None,
        trace_devices: Optional[str] = None,
    ) -> None: ...
    def skip(self, n: int) -> int:
        """Skips up to ``n`` records; returns how many were skipped."""
    def read(self, n: int) -> Columns:
        """Up to ``n`` records as columns time, device, lbn, sectors, write; [] at the end."""
    def summary(self, limit: Optional[int] = None) -> str:
        """The remaining records (at most ``limit``) summarized in one pass, as JSON."""

class DiskModel:
    """A drive model (preset or DiskSim ``.parv``)."""

    name: str
    source: str
    capacity: int
    cylinders: int
    surfaces: int
    rpm: float
    revolution_ns: float
    average_seek_ms: float
    full_stroke_ms: float
    def __init__(self, disk: str) -> None: ...
    @staticmethod
    def info_json(disk: str) -> str: ...
    def zones(self) -> Columns: ...
    def locate_many(self, lbn: bytes) -> Columns: ...
    def lbn_of(self, cylinder: int, head: int, sector: int) -> Optional[int]: ...
    def positioning_many(self, from_: bytes, to: bytes, write: bool, now_ns: int) -> Columns: ...
    def seek_curve(self, max_distance: int) -> Columns: ...

# Sweeps (python/spindle/sweep.py wraps these).
Scalar = Union[str, int, float, bool]
#: A grid value: a scalar, or (for a repeatable flag such as ``layer``) a list of them.
GridValue = Union[Scalar, List[Union[str, int, float]]]

def sweep_plan(
    axes: List[Tuple[str, List[GridValue]]], fixed: List[Tuple[str, Any]]
) -> Tuple[List[Tuple[str, str]], List[Tuple[int, str, Tuple[Scalar, ...]]]]:
    """Checks a grid and returns (columns and their kinds, points as (index, key, values))."""

def sweep_run(
    axes: List[Tuple[str, List[GridValue]]],
    fixed: List[Tuple[str, Any]],
    indices: List[int],
    jobs: int = 1,
    on_row: Optional[Callable[[Tuple[Any, ...]], None]] = None,
) -> List[Tuple[Any, ...]]:
    """Runs the grid's points ``indices`` on ``jobs`` threads (GIL released); one row each."""

def sweep_grid_toml(
    text: str, file: str
) -> Tuple[List[Tuple[str, List[GridValue]]], List[Tuple[str, Any]]]:
    """Reads a ``spindle sweep`` grid file's text with the CLI's parser: (axes, fixed)."""
