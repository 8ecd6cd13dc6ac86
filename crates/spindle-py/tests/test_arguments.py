"""Integer arguments across the Python API: a fraction is never truncated, and a value
of the wrong type or out of range is a ValueError naming the parameter and its range
(not an unnamed OverflowError or TypeError from the extension). Integers, numpy
integers and whole-number floats (10.0) are taken alike."""

import numpy as np
import pytest

import spindle

U32 = 2**32 - 1
U64 = 2**64 - 1
I64 = 2**63 - 1


@pytest.fixture(scope="module")
def disk():
    return spindle.Disk("hp-c2249a")


def test_disk_helpers_refuse_a_fraction_instead_of_truncating_it(disk):
    cases = [
        (lambda: disk.seek_time(10.7), r"distance must be whole numbers, got 10\.7"),
        (lambda: disk.seek_time(np.array([1.0, 10.7])), r"distance must be whole numbers, got 10\.7"),
        (lambda: disk.seek_curve(10.7), r"max_distance must be an integer within 0\.\.=\d+, got 10\.7"),
        (lambda: disk.seek_time(disk.cylinders), rf"distance must be within 0\.\.={disk.cylinders - 1}"),
        (lambda: disk.seek_curve(disk.cylinders), rf"max_distance must be an integer within 0\.\.={disk.cylinders - 1}"),
        (lambda: disk.positioning_time(0, 10, now_ns=1.5), r"now_ns must be an integer within 0\.\.=\d+, got 1\.5"),
        (lambda: disk.physical_to_lbn(10.7, 0, 0), r"cylinder must be an integer within 0\.\.=4294967295, got 10\.7"),
        (lambda: disk.physical_to_lbn(0, 0.5, 0), r"head must be an integer"),
        (lambda: disk.physical_to_lbn(0, 0, np.float64(3.5)), r"sector must be an integer"),
        (lambda: disk.lbn_to_physical(10.7), r"lbn must be whole numbers"),
        (lambda: disk.mimic(distances=2, samples=1, seed=1.5), r"seed must be an integer within 0\.\.=\d+, got 1\.5"),
        (lambda: spindle.MimicTable.probe(distances=2.5, samples=1), r"distances must be an integer within 1\.\.=1000000, got 2\.5"),
        (lambda: disk.seek_time(float("nan")), r"distance must be whole numbers, got nan"),
        (lambda: disk.seek_curve(float("inf")), r"max_distance must be an integer"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            call()


def test_integral_floats_and_numpy_integers_are_taken_as_their_integers(disk):
    assert disk.seek_time(10.0) == disk.seek_time(np.int64(10)) == disk.seek_time(np.uint32(10)) == disk.seek_time(10)
    assert (disk.seek_time(np.array([1.0, 5.0])) == disk.seek_time(np.array([1, 5]))).all()
    # An array's shape is kept.
    assert disk.seek_time(np.array([[1, 5], [5, 1]])).shape == (2, 2)
    d, s = disk.seek_curve(np.int16(5))
    assert len(d) == 6 and (s == disk.seek_curve(5.0)[1]).all()
    loc = disk.lbn_to_physical(1234)
    args = (loc["cylinder"], loc["head"], loc["sector"])
    assert disk.physical_to_lbn(*args) == 1234
    assert disk.physical_to_lbn(*(np.uint32(a) for a in args)) == 1234
    assert disk.physical_to_lbn(*(float(a) for a in args)) == 1234
    assert disk.positioning_time(0, 10, now_ns=np.int64(3_000_000)) == disk.positioning_time(0, 10, now_ns=3e6)
    a = spindle.MimicTable.probe(distances=np.int64(3), samples=2.0, seed=np.uint64(5))
    assert a.to_json() == spindle.MimicTable.probe(distances=3, samples=2, seed=5).to_json()


IDS = [
    "physical_to_lbn-cylinder-negative",
    "physical_to_lbn-head-huge",
    "physical_to_lbn-sector-u32+1",
    "physical_to_lbn-sector-str",
    "physical_to_lbn-cylinder-None",
    "physical_to_lbn-cylinder-bool",
    "positioning-now_ns-huge",
    "positioning-now_ns-negative",
    "positioning-now_ns-str",
    "lbn_to_physical-huge",
    "lbn_to_physical-huge-in-list",
    "lbn_to_physical-None-in-list",
    "positioning-from_lbn-2^64",
    "seek_time-huge",
    "seek_time-str",
    "seek_curve-str",
    "mimic-seed-negative",
    "mimic-seed-huge",
    "mimic-distances-huge",
    "mimic-samples-huge",
    "mimic-samples-negative",
    "reproduce-seed-negative",
    "reproduce-seed-huge",
    "reproduce-seed-fraction",
    "reproduce-jobs-negative",
    "reproduce-jobs-huge",
    "TraceReader-max_requests-fraction",
    "TraceReader-summary-max_requests-huge",
    "TraceReader-device-fraction",
    "TraceReader-device-str",
    "TraceReader-slice-start-huge",
    "TraceReader-slice-stop-fraction",
    "TraceReader-head-fraction",
    "sweep-jobs-bool",
    "sweep-batch-fraction",
]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda d: d.physical_to_lbn(-1, 0, 0), rf"cylinder must be an integer within 0\.\.={U32}, got -1"),
        (lambda d: d.physical_to_lbn(0, 2**70, 0), rf"head must be an integer within 0\.\.={U32}, got {2**70}"),
        (lambda d: d.physical_to_lbn(0, 0, 2**32), rf"sector must be an integer within 0\.\.={U32}, got {2**32}"),
        (lambda d: d.physical_to_lbn(0, 0, "3"), r"sector must be an integer within .*, got '3'"),
        (lambda d: d.physical_to_lbn(None, 0, 0), r"cylinder must be an integer within .*, got None"),
        (lambda d: d.physical_to_lbn(True, 0, 0), r"cylinder must be an integer within .*, got True"),
        (lambda d: d.positioning_time(0, 10, now_ns=2**70), rf"now_ns must be an integer within 0\.\.={I64}, got {2**70}"),
        (lambda d: d.positioning_time(0, 10, now_ns=-1), rf"now_ns must be an integer within 0\.\.={I64}, got -1"),
        (lambda d: d.positioning_time(0, 10, now_ns="0"), r"now_ns must be an integer"),
        (lambda d: d.lbn_to_physical(2**70), rf"lbn must be within 0\.\.={U64}, got {2**70}"),
        (lambda d: d.lbn_to_physical([1, 2**70]), rf"lbn must be within 0\.\.={U64}, got {2**70}"),
        (lambda d: d.lbn_to_physical([1, None]), r"lbn must be integers within .*, got None"),
        (lambda d: d.positioning_time(2**64, 0), rf"from_lbn must be within 0\.\.={U64}, got {2**64}"),
        (lambda d: d.seek_time(2**70), rf"distance must be within 0\.\.=\d+, got {2**70}"),
        (lambda d: d.seek_time("3"), r"distance must be integers, got dtype <U1"),
        (lambda d: d.seek_curve("3"), r"max_distance must be an integer within 0\.\.=\d+, got '3'"),
        (lambda d: d.mimic(distances=2, samples=1, seed=-1), rf"seed must be an integer within 0\.\.={U64}, got -1"),
        (lambda d: d.mimic(distances=2, samples=1, seed=2**70), rf"seed must be an integer within 0\.\.={U64}"),
        (lambda d: d.mimic(distances=2**70, samples=1), r"distances must be an integer within 1\.\.=1000000"),
        (lambda d: d.mimic(distances=2, samples=2**70), r"samples must be an integer within 1\.\.=10000"),
        (lambda d: d.mimic(distances=2, samples=-1), r"samples must be an integer within 1\.\.=10000, got -1"),
        (lambda d: spindle.reproduce("DISK-SEEDS", seed=-1), rf"seed must be an integer within 0\.\.={U64}, got -1"),
        (lambda d: spindle.reproduce("DISK-SEEDS", seed=2**70), rf"seed must be an integer within 0\.\.={U64}"),
        (lambda d: spindle.reproduce("DISK-SEEDS", seed=1.5), r"seed must be an integer"),
        (lambda d: spindle.reproduce("DISK-SEEDS", jobs=-1), r"jobs must be an integer within 1\.\.=1024, got -1"),
        (lambda d: spindle.reproduce("DISK-SEEDS", jobs=2**70), r"jobs must be an integer within 1\.\.=1024"),
        (lambda d: spindle.TraceReader("sample:hplajw", max_requests=10.7), r"max_requests must be an integer within 0\.\.="),
        (lambda d: spindle.TraceReader("sample:hplajw", max_requests=2**70).summary(), r"max_requests must be an integer within 0\.\.="),
        (lambda d: spindle.TraceReader("sample:hplajw", device=1.5), rf"device must be an integer within 0\.\.={U32}, got 1\.5"),
        (lambda d: spindle.TraceReader("sample:hplajw", device="1"), rf"device must be an integer within 0\.\.={U32}, got '1'"),
        (lambda d: spindle.TraceReader("sample:hplajw")[2**70:], r"slice start must be an integer within 0\.\.="),
        (lambda d: spindle.TraceReader("sample:hplajw")[:2.5], r"slice stop must be an integer within 0\.\.="),
        (lambda d: spindle.TraceReader("sample:hplajw").head(2.5), r"n must be an integer within 0\.\.="),
        (lambda d: spindle.sweep({"seed": [1]}, jobs=True, synthetic="open", count=5), r"jobs must be an integer within 1\.\.=1024, got True"),
        (lambda d: spindle.sweep({"seed": [1]}, batch=0.5, synthetic="open", count=5), r"batch must be an integer within 1\.\.="),
    ],
    ids=IDS,
)
def test_a_bad_integer_is_a_value_error_naming_the_parameter_and_range(disk, call, message):
    with pytest.raises(ValueError, match=message):
        call(disk)


def test_the_edges_of_the_ranges_are_answers_not_crashes(disk):
    # A position beyond the disk has no LBN.
    assert disk.physical_to_lbn(U32, U32, U32) is None
    assert disk.physical_to_lbn(disk.cylinders, 0, 0) is None
    seek, rot = disk.positioning_time(0, 10, now_ns=I64)
    assert seek == 0 and 0 <= rot < disk.revolution_ms * 1e6
    r = spindle.TraceReader("sample:hplajw")
    assert r[U64 - 1 :].count() == 0
    with pytest.raises(IndexError, match="beyond the end"):
        r[2**70]
    assert spindle.TraceReader("sample:hplajw", max_requests=U64, device=U32).count() == 0
    # numpy integers are integers for the sweep's own arguments too.
    df = spindle.sweep({"seed": [1]}, jobs=np.int64(1), batch=np.int32(1), synthetic="open", count=5, progress=False)
    assert len(df) == 1
