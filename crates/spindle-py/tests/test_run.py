"""spindle.run: options as the CLI's flags, results as DataFrames, same seed same rows."""

import json
import subprocess
import threading

import numpy as np
import pandas as pd
import pytest

import spindle

from test_sweep import spindle_bin

ACCEPT = dict(synthetic="open", count=20000, scheduler="sstf", queue_depth=4)


def test_acceptance_call_gives_one_row_per_request_and_is_deterministic():
    a = spindle.run(**ACCEPT, seed=1)
    b = spindle.run(**ACCEPT, seed=1)
    assert len(a.requests) == 20000
    assert a.metrics["requests"] == 20000
    pd.testing.assert_frame_equal(a.requests, b.requests)
    assert a.metrics == b.metrics
    c = spindle.run(**ACCEPT, seed=2)
    assert not a.requests["Offset"].equals(c.requests["Offset"])


@pytest.mark.parametrize("seed", [1, 7, 123])
def test_request_columns_are_consistent_with_the_metrics(seed):
    r = spindle.run(synthetic="open", count=3000, rate=60, queue_depth=2, seed=seed)
    df = r.requests
    assert list(df.columns[:6]) == ["Timestamp", "DiskNumber", "Type", "Offset", "Size", "ResponseTime"]
    for c in ["Timestamp", "ResponseTime", "QueueTime", "ServiceTime", "SeekTime", "Offset", "Size"]:
        assert df[c].dtype == np.int64, c
    assert (df["RequestId"].diff().dropna() > 0).all()
    assert (df["ResponseTime"] == df["QueueTime"] + df["ServiceTime"]).all()
    assert (df["ResponseTime"] == df["DoneTime"] - df["Timestamp"]).all()
    breakdown = df[["OverheadTime", "SeekTime", "RotationTime", "TransferTime"]].sum(axis=1)
    assert (breakdown == df["ServiceTime"]).all()
    assert (df["Timestamp"] <= df["DispatchTime"]).all() and (df["DispatchTime"] <= df["StartTime"]).all()
    assert (df["Size"] == 8 * 512).all() and (df["Offset"] % 512 == 0).all()
    m = r.metrics
    assert (df["Type"] == "Read").sum() == m["reads"] and (df["Type"] == "Write").sum() == m["writes"]
    # Times are ns: the mean response in ms is the metric's.
    assert df["ResponseTime"].mean() / 1e6 == pytest.approx(m["mean_response_ms"], rel=1e-9)
    assert df["ServiceTime"].mean() / 1e6 == pytest.approx(m["mean_service_ms"], rel=1e-9)
    assert (df["Process"] == -1).all()
    assert df.attrs["time_unit"] == "ns"


def cli_json(**opts):
    """`spindle run --json` of the built CLI, as a dict."""
    args = [spindle_bin(), "run", "--json"]
    for k, v in opts.items():
        args += ["--" + k.replace("_", "-"), str(v)]
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def test_metrics_and_config_are_the_clis_json():
    opts = dict(trace="sample:hplajw", scheduler="clook", queue_depth=2, limit=3000)
    cli = cli_json(**opts)
    assert spindle.run_json(**opts) == cli
    r = spindle.run(**opts)
    assert r.metrics == cli["metrics"]
    assert r.config == cli["config"]
    assert len(r.nodes) == len(cli["nodes"])
    assert list(r.nodes["path"]) == [n["path"] for n in cli["nodes"]]
    assert len(r.drives) == len(r.metrics["utilization"]) == 2
    assert r.drives["busy_fraction"].tolist() == pytest.approx(r.metrics["utilization"])


def test_requests_false_keeps_only_the_metrics():
    r = spindle.run(synthetic="open", count=500, requests=False)
    assert r.metrics["requests"] == 500
    with pytest.raises(RuntimeError, match="requests=False"):
        r.requests


def test_row_limit_is_checked_before_the_run():
    n = spindle.MAX_REQUEST_ROWS + 1
    with pytest.raises(ValueError, match="requests=False"):
        spindle.run(synthetic="open", count=n)


def test_switches_and_repeated_flags():
    r = spindle.run(synthetic="open", count=2000, disks=2, spread=True, seed=3)
    assert set(r.requests["DiskNumber"]) == {0, 1}
    assert r.metrics["requests"] == 2000
    r = spindle.run(trace="sample:hplajw", limit=500, layer=["content-cache:lru:1000:sector"])
    assert r.nodes["kind"].iloc[0].startswith("content-cache")


def test_closed_loop_names_its_processes():
    r = spindle.run(synthetic="closed", processes=3, count=600, seed=2)
    assert set(r.requests["Process"]) == {0, 1, 2}


def test_config_as_text_or_path_and_keywords_override(root):
    path = root / "examples" / "raid5-clook.toml"
    a = spindle.run(config=path, count=400, synthetic="open")
    b = spindle.run(config=path.read_text(), count=400, synthetic="open")
    c = spindle.run(config=str(path), count=400, synthetic="open")
    pd.testing.assert_frame_equal(a.requests, b.requests)
    pd.testing.assert_frame_equal(a.requests, c.requests)
    assert a.config["scheduler"]["kind"] == "clook"
    assert len(a.drives) == 5
    d = spindle.run(config=path, count=400, synthetic="open", scheduler="fcfs")
    assert d.config["scheduler"]["kind"] == "fcfs"


def test_a_config_file_whose_name_holds_an_equals_sign_is_a_path(root, tmp_path):
    path = tmp_path / "qd=4.toml"
    path.write_text((root / "examples" / "raid5-clook.toml").read_text())
    a = spindle.run(config=str(path), count=200, synthetic="open")
    assert a.config["scheduler"]["kind"] == "clook"


def test_bad_options_are_value_errors_with_the_cli_message():
    with pytest.raises(ValueError, match="--queue-depth"):
        spindle.run(queue_depth="many")
    with pytest.raises(ValueError, match="--no-such-option"):
        spindle.run(no_such_option=1)
    with pytest.raises(ValueError, match="unknown scheduler `fastest`"):
        spindle.run(scheduler="fastest")
    with pytest.raises(ValueError, match="--synthetic must be open, closed"):
        spindle.run(synthetic="half-open")
    with pytest.raises(ValueError, match="config: TOML parse error"):
        spindle.run(config="seed = \n")


def test_missing_files_are_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="no-such.csv"):
        spindle.run(trace=str(tmp_path / "no-such.csv"))
    with pytest.raises(FileNotFoundError, match="no-such.toml"):
        spindle.run(config=tmp_path / "no-such.toml")


def test_the_gil_is_released_while_simulating():
    done = threading.Event()
    ticks = 0

    def work():
        spindle.run(synthetic="open", count=150_000, requests=False)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    # With the GIL held by the run this loop would not advance until it ended.
    while not done.is_set():
        ticks += 1
        done.wait(0.0001)
    t.join()
    assert ticks > 100


def test_node_figures_that_are_numbers_are_numeric_columns():
    r = spindle.run(array="intra:2x2", synthetic="open", count=300, read_fraction=1, seed=2)
    top = r.nodes.iloc[0]
    assert r.nodes["member reads"].dtype.kind in "if"
    assert top["member reads"] >= 300
    assert r.nodes["mean read seek cylinders"].dtype.kind == "f"
    # A list of numbers stays text, one per replica.
    assert len(top["reads per replica"].split()) == 4
    assert r.nodes["replica choice"].iloc[0] == "positioning"


def test_a_long_greedy_queue_warns_as_the_cli_notes():
    import warnings

    flood = dict(
        synthetic="open", rate=100000, count=7500, disks=1, scheduler="greedy", requests=False
    )
    with pytest.warns(spindle.LongQueueWarning, match="compared .* window=N") as caught:
        r = spindle.run(**flood)
    assert caught[0].filename == __file__
    assert len(r.notes) == 1 and r.nodes.loc[0, "compared"] >= 25_000_000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = spindle.run(window=64, **flood)
    assert r.notes == [] and r.nodes.loc[0, "most compared"] == 64
