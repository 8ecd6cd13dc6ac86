"""Arguments that were once dropped, bent or wrapped without a word are refused, each
with a ValueError naming the argument and what it applies to."""

import pandas as pd
import pytest

import spindle


def one(**cols):
    """A one-request workload with these columns changed."""
    d = {"time_ms": [1.0], "lbn": [0], "sectors": [8], "op": ["R"]}
    d.update(cols)
    return pd.DataFrame(d)


def test_a_size_beyond_u32_sectors_is_refused_not_wrapped():
    df = pd.DataFrame({"time_ms": [1.0], "lbn": [0], "Size": [(2**32 + 1) * 512], "op": ["R"]})
    with pytest.raises(ValueError, match=r"Size \(bytes\) must be at most .* at row 0"):
        spindle.run(workload=df)


def test_booleans_are_not_addresses_or_sizes():
    with pytest.raises(ValueError, match="lbn must be integers, got dtype bool"):
        spindle.run(workload=one(lbn=[True]))
    with pytest.raises(ValueError, match="sectors must be integers, got dtype bool"):
        spindle.run(workload=one(sectors=[True]))


def test_times_are_numbers_not_text_or_booleans():
    with pytest.raises(ValueError, match="workload column 'time_ms': expected numbers or timedeltas, got 'a'"):
        spindle.run(workload=one(time_ms=["a"]))
    with pytest.raises(ValueError, match="got '1.5'"):
        spindle.run(workload=one(time_ms=["1.5"]))
    with pytest.raises(ValueError, match="expected numbers or timedeltas, got dtype bool"):
        spindle.run(workload=pd.DataFrame({"time_ms": [True, False], "lbn": [0, 8], "sectors": [8, 8], "op": ["R", "R"]}))


def test_switches_must_be_true_or_false():
    disk = spindle.Disk("hp-c2249a")
    with pytest.raises(ValueError, match="write must be True or False, got 'no'"):
        disk.positioning_time(1, 5, write="no")
    with pytest.raises(ValueError, match="requests must be True or False, got 'no'"):
        spindle.run(workload=one(), requests="no")
    with pytest.raises(ValueError, match="check_time_unit must be True or False"):
        spindle.TraceReader("sample:hplajw", check_time_unit="no")


def test_a_seek_is_at_most_the_full_stroke():
    disk = spindle.Disk("hp-c2249a")
    assert disk.seek_time(disk.cylinders - 1) > 0
    with pytest.raises(ValueError, match=rf"distance must be within 0\.\.={disk.cylinders - 1}"):
        disk.seek_time(10**6)


def test_format_and_time_unit_are_refused_where_nothing_reads_them():
    with pytest.raises(ValueError, match="format= applies to a trace file"):
        spindle.run(workload=one(), format="spc")
    # An option left unset (None) is no option: still runs.
    assert spindle.run(workload=one(), format=None).metrics["requests"] == 1
    with pytest.raises(ValueError, match="built-in sample in its own format"):
        spindle.run(trace="sample:hplajw", limit=5, format="spc")
    with pytest.raises(ValueError, match="built-in sample in its own format"):
        spindle.TraceReader("sample:hplajw", format="msr")
    with pytest.raises(ValueError, match="give the format once"):
        spindle.TraceReader("msr:t.csv", format="msr")
    with pytest.raises(ValueError, match="its own time_unit="):
        spindle.run(workload=spindle.TraceReader("sample:hplajw"), time_unit="s")


def test_the_configuration_is_given_once(root):
    with pytest.raises(ValueError, match="the configuration is given twice"):
        spindle.run(config="seed = 1\n", stack=str(root / "examples" / "raid5-clook.toml"))
    with pytest.raises(ValueError, match="names a TOML file; this looks like TOML text"):
        spindle.sweep({"queue_depth": [1, 2]}, config="seed = 1\n")


def test_run_json_takes_toml_text_as_run_does():
    text = "seed = 1\n[workload]\ntrace = 'sample:hplajw'\nlimit = 10\n"
    assert spindle.run_json(config=text)["metrics"]["requests"] == 10


def test_wrong_types_name_the_argument():
    with pytest.raises(ValueError, match="name: expected a preset name"):
        spindle.Disk(5)
    with pytest.raises(ValueError, match="ids: expected an id or a list of ids"):
        spindle.reproduce(5)
    with pytest.raises(ValueError, match="ids: expected strings, got int 3"):
        spindle.reproduce(["MIMD-T1", 3])
    with pytest.raises(ValueError, match="quick must be True or False"):
        spindle.reproduce("MIMD-T1", quick="no")
    with pytest.raises(ValueError, match="full_scale must be True or False"):
        spindle.reproduce("PROX-T2", full_scale=1)


def test_a_sweep_output_that_is_not_parquet_is_named(tmp_path):
    out = tmp_path / "results.parquet"
    out.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="not a Parquet file spindle can read"):
        spindle.sweep({"seed": [1, 2]}, synthetic="open", count=100, out=str(out))
