"""Workloads given as DataFrames or numpy arrays: columns and units checked."""

import numpy as np
import pandas as pd
import pytest

import spindle


def arrays(n=800, seed=1):
    rng = np.random.default_rng(seed)
    t_ms = np.cumsum(rng.exponential(15.0, n))
    lbn = rng.integers(0, 2_000_000, n)
    op = np.where(rng.random(n) < 0.6, "R", "W")
    return t_ms, lbn, np.full(n, 8), op


def test_a_trace_as_a_dataframe_replays_as_the_trace():
    df = spindle.TraceReader("sample:hplajw", max_requests=4000).to_pandas()
    a = spindle.run(workload=df, scheduler="sstf")
    b = spindle.run(trace="sample:hplajw", limit=4000, scheduler="sstf")
    assert a.metrics == b.metrics
    pd.testing.assert_frame_equal(a.requests, b.requests)


def test_a_trace_reader_is_a_workload(tmp_path):
    p = tmp_path / "s.trace"
    with open(p, "w") as f:
        for i in range(300):
            f.write(f"{i * 0.02:.6f} 0 {1000 + 64 * i} 8 {i % 2}\n")  # seconds, not ms
    reader = spindle.TraceReader(p, format="disksim-ascii", time_unit="s")
    r = spindle.run(workload=reader[100:200])
    assert len(r.requests) == 100
    assert r.requests["Timestamp"].iloc[1] - r.requests["Timestamp"].iloc[0] == 20_000_000


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_results_requests_replay_as_a_workload(seed):
    a = spindle.run(synthetic="open", count=1500, rate=50, seed=seed)
    b = spindle.run(workload=a.requests)
    pd.testing.assert_frame_equal(a.requests, b.requests)


def test_tuple_of_arrays_with_a_time_unit():
    t_ms, lbn, sectors, op = arrays()
    r = spindle.run(workload=(t_ms, lbn, sectors, op), time_unit="ms")
    df = r.requests
    assert len(df) == len(t_ms)
    expect = np.rint((t_ms - 0) * 1e6).astype(np.int64)
    assert (df["Timestamp"].to_numpy() == expect).all()
    assert (df["Offset"].to_numpy() == lbn * 512).all()
    assert ((df["Type"] == "Write").to_numpy() == (op == "W")).all()
    # The same times named by their column's unit, in seconds, or as timedeltas.
    same = [
        pd.DataFrame({"time_ms": t_ms, "lbn": lbn, "sectors": sectors, "op": op}),
        pd.DataFrame({"time_s": t_ms / 1e3, "lbn": lbn, "blocks": sectors, "write": op == "W"}),
        pd.DataFrame({"time": pd.to_timedelta(t_ms, unit="ms"), "Offset": lbn * 512, "Size": 4096, "Type": np.where(op == "W", "Write", "Read")}),
        {"time_ns": np.rint(t_ms * 1e6).astype(np.int64), "lbn": lbn, "sectors": sectors, "op": op},
    ]
    for w in same:
        s = spindle.run(workload=w).requests
        assert (abs(s["Timestamp"] - df["Timestamp"]) <= 1).all()
        assert (s["Offset"] == df["Offset"]).all()


def test_unsorted_times_are_replayed_in_arrival_order():
    t_ms, lbn, sectors, op = arrays(300)
    perm = np.random.default_rng(5).permutation(len(t_ms))
    r = spindle.run(workload=(t_ms[perm], lbn[perm], sectors, op[perm]), time_unit="ms")
    assert r.requests["Timestamp"].is_monotonic_increasing


def test_trace_options_apply_to_a_workload():
    t_ms, lbn, sectors, op = arrays(600)
    dev = np.arange(600) % 2
    r = spindle.run(workload=(t_ms, lbn, sectors, op, dev), time_unit="ms", device=1, limit=100)
    assert len(r.requests) == 100 and (r.requests["DiskNumber"] == 1).all()
    r = spindle.run(workload=(t_ms, lbn, sectors, op), time_unit="ms", compress=2.0)
    assert r.requests["Timestamp"].iloc[-1] == pytest.approx(t_ms[-1] * 1e6 / 2, abs=2)


def test_times_without_a_unit_are_refused():
    t_ms, lbn, sectors, op = arrays()
    with pytest.raises(ValueError, match="no time unit"):
        spindle.run(workload=(t_ms, lbn, sectors, op))
    with pytest.raises(ValueError, match="time_unit"):
        spindle.run(workload=pd.DataFrame({"Timestamp": t_ms, "lbn": lbn, "sectors": 8, "op": op}))
    with pytest.raises(ValueError, match="is in ms, but time_unit='s'"):
        spindle.run(workload=pd.DataFrame({"time_ms": t_ms, "lbn": lbn, "sectors": 8, "op": op}), time_unit="s")
    with pytest.raises(ValueError, match="unknown time unit 'msec'"):
        spindle.run(workload=(t_ms, lbn, sectors, op), time_unit="msec")


def test_seconds_read_as_nanoseconds_is_refused():
    t_ms, lbn, sectors, op = arrays()
    t_s = t_ms / 1e3
    # Fractional nanoseconds: the values are in a larger unit.
    with pytest.raises(ValueError, match="fractional nanoseconds"):
        spindle.run(workload=(t_s, lbn, sectors, op), time_unit="ns")
    # Whole numbers of milliseconds read as ns: 800 requests within 12 µs.
    t_int = np.rint(t_ms).astype(np.int64)
    with pytest.raises(ValueError, match="requests/s"):
        spindle.run(workload=(t_int, lbn, sectors, op), time_unit="ns")
    # The check can be turned off, and then the run takes the times as given.
    r = spindle.run(workload=(t_int, lbn, sectors, op), time_unit="ns", check_time_unit=False)
    assert r.requests["Timestamp"].max() == t_int.max() - 0
    # Nanoseconds read as seconds: a median gap of hours, or beyond 2^63 ns.
    t_ns = np.rint(t_ms * 1e6).astype(np.int64)
    with pytest.raises(ValueError, match="2\\^63 ns"):
        spindle.run(workload=(t_ns, lbn, sectors, op), time_unit="s")
    with pytest.raises(ValueError, match="more than an hour"):
        spindle.run(workload=(t_ns // 1000, lbn, sectors, op), time_unit="s")


def test_bad_columns_are_value_errors():
    t_ms, lbn, sectors, op = arrays(200)
    base = {"time_ms": t_ms, "lbn": lbn, "sectors": sectors, "op": op}

    def bad(match, **change):
        w = dict(base)
        for k, v in change.items():
            if v is None:
                del w[k]
            else:
                w[k] = v
        with pytest.raises(ValueError, match=match):
            spindle.run(workload=pd.DataFrame(w))

    bad("op must be R, W, Read or Write, got 'X'", op=np.full(200, "X"))
    bad("sectors must be within 1", sectors=np.zeros(200, dtype=int))
    bad("no size column", sectors=None)
    bad("no address column", lbn=None)
    bad("lbn must be whole numbers", lbn=lbn + 0.5)
    bad("negative time", time_ms=t_ms - 100)
    # Two columns for one thing would disagree unseen: refused, naming both.
    bad("'time_ns' and 'time_ms' both give the time", time_ns=t_ms * 10**6)
    bad("'lbn' and 'Offset' both give the address", Offset=lbn * 512)
    bad("'write' and 'op' both give the operation", write=np.ones(200, dtype=bool))
    bad("'device' and 'DiskNumber' both give the device", device=0, DiskNumber=1)
    bad("non-finite", time_ms=np.where(np.arange(200) == 3, np.nan, t_ms))
    w = pd.DataFrame({"time_ms": t_ms, "Offset": lbn * 512 + 1, "Size": 4096, "op": op})
    with pytest.raises(ValueError, match="multiple of 512"):
        spindle.run(workload=w)
    with pytest.raises(ValueError, match="not several"):
        spindle.run(workload=pd.DataFrame(base), synthetic="open")
    with pytest.raises(ValueError, match="must be a pandas DataFrame"):
        spindle.run(workload=[1, 2])
    with pytest.raises(ValueError, match="no requests"):
        spindle.run(workload=pd.DataFrame(base).iloc[:0])
    with pytest.raises(ValueError, match="lies beyond the 2687632-sector disk"):
        spindle.run(workload=pd.DataFrame({**base, "lbn": lbn + 10**9}))
