"""spindle.Disk's pure queries and Disk Mimic tables as numpy arrays."""

import numpy as np
import pytest

import spindle


@pytest.fixture(scope="module")
def disk():
    return spindle.Disk("hp-c2249a")


def test_properties_match_disk_info(disk):
    info = disk.info()
    assert disk.capacity == info["capacity_sectors"] == 2687632
    assert disk.cylinders == info["cylinders"] and disk.surfaces == info["surfaces"]
    assert disk.rpm == info["rpm"]
    assert disk.revolution_ms == pytest.approx(info["revolution_ms"])
    assert disk.average_seek_ms == pytest.approx(info["average_seek_ms"])
    z = disk.zones()
    assert z["lbn_count"].sum() == disk.capacity
    assert (z["first_lbn"].diff().dropna() > 0).all()


def test_lbn_to_physical_scalar_array_and_back(disk):
    rng = np.random.default_rng(4)
    lbns = rng.integers(0, disk.capacity, 500)
    df = disk.lbn_to_physical(lbns)
    assert len(df) == 500
    one = disk.lbn_to_physical(int(lbns[7]))
    assert one == {k: int(df[k].iloc[7]) for k in df.columns}
    for i in range(0, 500, 50):
        row = df.iloc[i]
        assert disk.physical_to_lbn(row["cylinder"], row["head"], row["sector"]) == lbns[i]
    assert disk.lbn_to_physical(0)["cylinder"] <= disk.lbn_to_physical(disk.capacity - 1)["cylinder"]
    with pytest.raises(ValueError, match="beyond disk"):
        disk.lbn_to_physical(disk.capacity)
    with pytest.raises(ValueError, match="negative"):
        disk.lbn_to_physical(-1)
    with pytest.raises(ValueError, match="integers"):
        disk.lbn_to_physical("12")


def test_seek_curve_and_positioning(disk):
    d, s = disk.seek_curve()
    assert len(d) == disk.cylinders and d[0] == 0 and s[0] == 0
    # The preset's seek table is measured: it rises overall, not at every step.
    assert s[-1] > s[len(s) // 2] > s[1] > 0
    assert disk.seek_time(100) == s[100]
    assert (disk.seek_time(np.array([1, 5, 100])) == s[[1, 5, 100]]).all()
    assert s[-1] / 1e6 == pytest.approx(disk.full_stroke_ms, rel=0.01)
    seek, rot = disk.positioning_time(0, 1_000_000)
    assert seek > 0 and 0 <= rot < disk.revolution_ms * 1e6
    # Same track: no seek; rotation depends on when the head arrives.
    assert disk.positioning_time(0, 10)[0] == 0
    rots = {disk.positioning_time(0, 10, now_ns=t)[1] for t in range(0, 10_000_000, 1_000_000)}
    assert len(rots) > 1
    f = np.array([0, 5000, 2_000_000])
    seeks, rots = disk.positioning_time(f, 1_000_000, write=True)
    assert len(seeks) == 3 and seeks[0] == disk.positioning_time(0, 1_000_000, write=True)[0]


def test_unknown_disk_is_a_value_error():
    with pytest.raises(ValueError, match="unknown disk preset `nope`"):
        spindle.Disk("nope")


def test_mimic_table_probe_arrays_and_round_trip(tmp_path, disk):
    t = disk.mimic(distances=60, samples=4, seed=3)
    a = t.arrays()
    n = len(t)
    assert 0 < n <= 60
    assert a["samples_ns"].shape == (n, 4) and (a["sample_count"] == 4).all()
    assert a["distance"].dtype == np.int64 and a["prev_write"].dtype == bool
    # An entry's mean is its samples' (integer) mean.
    assert np.allclose(a["samples_ns"].mean(axis=1), a["mean_ns"], atol=1)
    assert list(t.entries.columns) == ["prev", "cur", "distance", "mean_ns", "sample_count"]
    p = tmp_path / "t.json"
    t.save(p)
    u = spindle.MimicTable.load(p)
    assert u.to_json() == t.to_json()
    assert (u.arrays()["distance"] == a["distance"]).all()
    # The same probe, same seed, same table.
    assert spindle.MimicTable.probe("hp-c2249a", 60, 4, seed=3).to_json() == t.to_json()


def test_mimic_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        spindle.MimicTable.load(tmp_path / "missing.json")
    p = tmp_path / "bad.json"
    p.write_text('{"metric": "mean"}')
    with pytest.raises(ValueError, match="not a Disk Mimic table"):
        spindle.MimicTable.load(p)
    with pytest.raises(ValueError, match=r"samples must be an integer within 1\.\.=10000, got 0"):
        spindle.MimicTable.probe("hp-c2249a", 10, 0)


def test_the_presets_as_a_dataframe_each_one_a_disk():
    d = spindle.disks()
    assert {"st34502lw", "cheetah15k5", "wd-re3", "hp-c2249a"} <= set(d.index)
    assert d.loc["st34502lw", "surfaces"] == 6
    assert d.loc["st34502lw", "cylinders"] == 6962
    # Every listed name builds a Disk of the listed size.
    for name in d.index:
        assert spindle.Disk(name).capacity == d.loc[name, "capacity_sectors"]
    f = spindle.disks(flash=True)
    assert "x25m-g2" in f.index
    assert (f["read_latency_us"] > 0).all()
