"""Result.summary(): the run as fio's JSON, the same document `spindle run --format
fio-json` prints, whether the rows were kept or not."""

import json
import subprocess

import pytest

import spindle

from test_sweep import spindle_bin

OPTIONS = dict(synthetic="open", count=3000, scheduler="sstf", queue_depth=4, seed=3)


def cli_fio():
    args = [spindle_bin(), "run", "--format", "fio-json"]
    for k, v in OPTIONS.items():
        args += ["--" + k.replace("_", "-"), str(v)]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("requests", [True, False])
def test_summary_is_the_cli_fio_document(requests):
    s = spindle.run(requests=requests, **OPTIONS).summary()
    assert s == cli_fio()
    read = s["jobs"][0]["read"]
    assert read["total_ios"] > 0
    assert set(read["lat_ns"]["percentile"]) >= {"50.000000", "99.000000", "99.990000"}


def test_summary_counts_and_latencies_match_the_rows():
    r = spindle.run(**OPTIONS)
    s = r.summary()["jobs"][0]
    df = r.requests
    for direction, kind in (("read", "Read"), ("write", "Write")):
        rows = df[df["Type"] == kind]
        d = s[direction]
        assert d["total_ios"] == len(rows)
        assert d["io_bytes"] == int(rows["Size"].sum())
        assert d["lat_ns"]["min"] == int(rows["ResponseTime"].min())
        assert d["lat_ns"]["max"] == int(rows["ResponseTime"].max())
        assert d["lat_ns"]["mean"] == pytest.approx(rows["ResponseTime"].mean(), rel=1e-9)
