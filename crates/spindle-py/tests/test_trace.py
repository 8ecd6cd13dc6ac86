"""spindle.TraceReader: lazy reading, slicing, explicit and checked time units."""

import warnings

import numpy as np
import pytest

import spindle


def test_sample_trace_reads_and_slices():
    r = spindle.TraceReader("sample:hplajw")
    assert r.format == "hp-srt" and r.time_unit == "ns"
    df = r.to_pandas()
    assert len(df) == r.count() == 44519
    assert list(df.columns) == ["Timestamp", "DiskNumber", "Type", "Offset", "Size"]
    assert df.attrs["time_unit"] == "ns"
    part = r[1000:1010].to_pandas()
    assert part.reset_index(drop=True).equals(df.iloc[1000:1010].reset_index(drop=True))
    assert r[1000:1010][2:4].to_pandas().reset_index(drop=True).equals(df.iloc[1002:1004].reset_index(drop=True))
    rec = r[1005]
    assert rec.time_ns == df["Timestamp"].iloc[1005] and rec.lbn * 512 == df["Offset"].iloc[1005]
    assert rec.write == (df["Type"].iloc[1005] == "Write")
    assert len(r.head(3)) == 3
    assert r[44519:].count() == 0
    with pytest.raises(IndexError):
        r[44519]


def test_iteration_max_requests_and_device():
    r = spindle.TraceReader("sample:hplajw", max_requests=100)
    recs = list(r)
    assert len(recs) == 100 and isinstance(recs[0], spindle.Record)
    arr = r.to_numpy()
    assert arr["time_ns"].tolist() == [x.time_ns for x in recs]
    d1 = spindle.TraceReader("sample:hplajw", device=1, max_requests=50).to_numpy()
    assert (d1["device"] == 1).all() and len(d1["device"]) == 50


def write_ascii(path, times, unit_factor=1.0):
    with open(path, "w") as f:
        for i, t in enumerate(times):
            f.write(f"{t * unit_factor:.6f} 0 {1000 + 8 * i} 8 {i % 2}\n")


def test_time_unit_rescales_the_formats_own(tmp_path):
    p = tmp_path / "s.trace"
    times_s = np.arange(200) * 0.015  # 15 ms apart, written in seconds
    write_ascii(p, times_s)
    # DiskSim ASCII times are ms: read as such the gaps are 15 µs; told "s", 15 ms.
    as_ms = spindle.TraceReader(p, format="disksim-ascii").to_numpy()["time_ns"]
    as_s = spindle.TraceReader(p, format="disksim-ascii", time_unit="s").to_numpy()["time_ns"]
    assert np.diff(as_ms)[0] == 15_000 and np.diff(as_s)[0] == 15_000_000
    assert (as_s == as_ms * 1000).all()
    with pytest.raises(ValueError, match="unknown time unit"):
        spindle.TraceReader(p, time_unit="minutes")
    with pytest.raises(ValueError, match="own clock"):
        spindle.TraceReader("sample:hplajw", time_unit="ms")


def test_implausible_time_stamps_warn_and_say_so(tmp_path):
    p = tmp_path / "ns.trace"
    times_ns = np.arange(300) * 20_000_000  # 20 ms apart, written in ns
    write_ascii(p, times_ns)
    with pytest.warns(spindle.TimeUnitWarning, match="more than an hour.*time_unit"):
        spindle.TraceReader(p, format="disksim-ascii").to_pandas()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = spindle.TraceReader(p, format="disksim-ascii", time_unit="ns").to_pandas()
        assert df["Timestamp"].iloc[1] == 20_000_000
        spindle.TraceReader(p, format="disksim-ascii", check_time_unit=False).to_pandas()
    q = tmp_path / "tiny.trace"
    write_ascii(q, np.arange(300) * 1e-5)  # 10 ns apart read as ms
    with pytest.warns(spindle.TimeUnitWarning, match="requests/s"):
        list(spindle.TraceReader(q, format="disksim-ascii"))


def test_implausible_times_judges_gaps():
    assert spindle.implausible_times(np.arange(1000) * 10_000_000) is None
    assert spindle.implausible_times(np.zeros(1000, dtype=np.int64)) is None
    assert spindle.implausible_times(np.arange(10)) is None  # too few to judge
    assert "requests/s" in spindle.implausible_times(np.arange(1000))
    assert "hour" in spindle.implausible_times(np.arange(1000) * 7200 * 10**9)


def test_implausible_times_refuses_missing_times_whatever_their_number():
    # All NaN, long or short, is not "plausible": nothing can be judged.
    for n in (1000, 10, 1):
        with pytest.raises(ValueError, match=r"t_ns has a non-finite time \(nan\) at row 0"):
            spindle.implausible_times(np.full(n, np.nan))
    t = (np.arange(1000) * 10_000_000).astype(float)
    t[500] = np.inf
    with pytest.raises(ValueError, match="non-finite time .* at row 500"):
        spindle.implausible_times(t)
    with pytest.raises(ValueError, match="NaT"):
        spindle.implausible_times(np.array([1, "NaT"], dtype="timedelta64[ms]"))
    with pytest.raises(ValueError, match="t_ns: expected numbers or timedeltas"):
        spindle.implausible_times(["a"] * 200)
    # Floats are judged as they are, timedeltas in ns; no input gives None (too few).
    assert spindle.implausible_times(np.arange(1000) * 1e7) is None
    assert "requests/s" in spindle.implausible_times(np.arange(1000) * 0.5)
    assert spindle.implausible_times(np.arange(1000).astype("timedelta64[ms]") * 10) is None
    assert spindle.implausible_times(np.array([], dtype=float)) is None


def test_msr_timestamps_become_ns_from_the_first(tmp_path):
    p = tmp_path / "hm_0.csv"
    base = 128166372003061629
    lines = [f"{base + i * 150_000},hm,1,{'Read' if i % 3 else 'Write'},{4096 * i},4096,100" for i in range(150)]
    p.write_text("\n".join(lines) + "\n")
    r = spindle.TraceReader(p, format="msr")
    assert r.native_time_unit == "filetime"
    df = r.to_pandas()
    assert df["Timestamp"].iloc[1] == 15_000_000  # 150,000 ticks of 100 ns
    assert (df["Offset"] == np.arange(150) * 4096).all() and (df["DiskNumber"] == 1).all()
    r2 = spindle.TraceReader(p)  # detected
    assert r2.format == "msr"


def test_errors_name_the_file_and_line(tmp_path):
    with pytest.raises(FileNotFoundError):
        spindle.TraceReader(tmp_path / "missing.trace")
    p = tmp_path / "bad.trace"
    p.write_text("0.0 0 100 8 1\n1.0 0 abc 8 1\n")
    with pytest.raises(ValueError, match=r"bad.trace:2"):
        spindle.TraceReader(p, format="disksim-ascii").to_pandas()
    with pytest.raises(ValueError, match="unknown trace format"):
        spindle.TraceReader(p, format="ascii")
    with pytest.raises(ValueError, match="max_requests"):
        spindle.TraceReader(p, max_requests=-1)


def test_blktrace_binary_reads_as_its_blkparse_text(root):
    traces = root / "crates/spindle/tests/fixtures/traces"
    binary = spindle.TraceReader(traces / "blktrace-sdx.bin")
    assert binary.format == "blktrace" and binary.native_time_unit == "ns"
    text = spindle.TraceReader(traces / "blktrace-sdx.blkparse.txt")
    assert text.format == "blkparse"
    # The binary file holds two CPUs' stretches one after the other (file order);
    # blkparse prints in time order.
    by_time = binary.to_pandas().sort_values("Timestamp", kind="stable").reset_index(drop=True)
    assert by_time.equals(text.to_pandas())
    assert len(binary.to_pandas()) == 7
    with pytest.raises(ValueError, match="own clock"):
        spindle.TraceReader(traces / "blktrace-sdx.bin", time_unit="us")


def test_cloud_traces_are_detected_and_timed(root):
    traces = root / "crates/spindle/tests/fixtures/traces"
    a = spindle.TraceReader(traces / "alibaba-io_traces.csv")
    assert a.format == "alibaba" and a.native_time_unit == "us"
    t = spindle.TraceReader(traces / "tencent-cbs.csv")
    assert t.format == "tencent" and t.native_time_unit == "s"
    df = t.to_pandas()
    assert sorted(df["DiskNumber"].unique().tolist()) == [7, 1063]
    assert df["Timestamp"].max() == 2_000_000_000


def test_compressed_traces_read_as_the_plain_files(root, tmp_path):
    import gzip

    traces = root / "crates/spindle/tests/fixtures/traces"
    plain = traces / "msr-hm.csv"
    packed = tmp_path / "msr-hm.csv.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    r = spindle.TraceReader(packed)
    assert r.format == "msr"
    assert r.to_pandas().equals(spindle.TraceReader(plain).to_pandas())
    cut = tmp_path / "cut.csv.gz"
    cut.write_bytes(packed.read_bytes()[:-12])
    with pytest.raises(ValueError, match="gzip data"):
        spindle.TraceReader(cut).to_pandas()


def test_summary_streams_what_the_cli_prints(root):
    r = spindle.TraceReader("sample:hplajw")
    s = r.summary()
    df = r.to_pandas()
    assert s["requests"] == len(df) == 44519
    assert s["reads"] == (df["Type"] == "Read").sum() and s["writes"] == 31479
    assert s["bytes_read"] == df.loc[df["Type"] == "Read", "Size"].sum()
    assert s["last_arrival_ns"] == df["Timestamp"].max() and s["in_arrival_order"]
    assert s["sizes_sectors"]["p50"] == int((df["Size"] // 512).quantile(0.5, interpolation="higher"))
    dev = s["devices"]
    assert dev.index.tolist() == [0, 1] and dev["requests"].sum() == 44519
    assert dev.loc[1, "requests"] == (df["DiskNumber"] == 1).sum()
    # device, max_requests and slicing narrow it as they narrow the records.
    one = spindle.TraceReader("sample:hplajw", device=1, max_requests=100).summary()
    assert one["requests"] == 100 and one["devices"].index.tolist() == [1]
    assert r[1000:1010].summary()["requests"] == 10
    # A time unit scales the arrivals the summary reports.
    traces = root / "crates/spindle/tests/fixtures/traces"
    t = spindle.TraceReader(traces / "tencent-cbs.csv")
    assert t.summary()["last_arrival_ns"] == t.to_pandas()["Timestamp"].max()
    empty = spindle.TraceReader("sample:hplajw")[44519:].summary()
    assert empty["requests"] == 0 and empty["sizes_sectors"] is None and empty["devices"].empty


def test_several_files_read_and_replay_as_one_trace(tmp_path):
    a, b = tmp_path / "hm_0.csv", tmp_path / "src1_0.csv"
    a.write_text(
        "128166372003061629,hm,0,Read,383496192,32768,10387\n"
        "128166372046382405,hm,0,Write,3221221376,65536,67624\n"
    )
    b.write_text("128166372000000000,src1,0,Write,0,4096,10\n128166372026382245,src1,0,Read,4096,4096,10\n")
    r = spindle.TraceReader([a, b], trace_devices="per-file")
    assert r.format == "msr" and r.path == [str(a), str(b)]
    df = r.to_pandas()
    # One clock, from the earliest record of either file; file k is device k.
    assert df["Timestamp"].tolist() == [0, 306162900, 2638224500, 4638240500]
    assert df["DiskNumber"].tolist() == [1, 0, 1, 0]
    assert r[1:3].to_pandas()["DiskNumber"].tolist() == [0, 1]
    assert r.summary()["requests"] == 4
    with pytest.raises(ValueError, match="device 0 is in"):
        spindle.TraceReader([a, b]).count()
    with pytest.raises(ValueError, match="as-recorded or per-file"):
        spindle.TraceReader([a, b], trace_devices="each")
    merged = spindle.run(trace=[str(a), str(b)], trace_devices="per-file", disk="cheetah9lp")
    given = spindle.run(workload=df, disk="cheetah9lp")
    assert merged.metrics == given.metrics
    with pytest.raises(ValueError, match="trace_devices= applies"):
        spindle.run(workload=df, trace_devices="per-file")
