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


@pytest.mark.parametrize("requests,summary", [(True, None), (False, None), (False, True), (True, False)])
def test_summary_is_the_cli_fio_document(requests, summary):
    # From the rows; made by running again; kept as the run went; from the rows.
    s = spindle.run(requests=requests, summary=summary, **OPTIONS).summary()
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


def test_summary_after_the_requests_frame_and_twice():
    r = spindle.run(**OPTIONS)
    assert len(r.requests) == OPTIONS["count"]
    assert r.summary() == cli_fio()
    assert r.summary() is r.summary()


def test_summary_false_has_none_and_says_so():
    r = spindle.run(requests=False, summary=False, **OPTIONS)
    assert r.metrics["requests"] == OPTIONS["count"]
    with pytest.raises(RuntimeError, match="summary=False"):
        r.summary()
    with pytest.raises(ValueError, match="summary="):
        spindle.run(summary="yes", **OPTIONS)


def test_a_summary_made_again_refuses_changed_inputs(tmp_path, root):
    text = (root / "examples" / "raid5-clook.toml").read_text()
    path = tmp_path / "run.toml"
    path.write_text(text)
    r = spindle.run(config=path, requests=False)
    path.write_text(text.replace("seed = 1", "seed = 2"))
    with pytest.raises(RuntimeError, match="changed since the run"):
        r.summary()
    path.write_text(text)
    jobs = r.summary()["jobs"][0]
    assert jobs["read"]["total_ios"] + jobs["write"]["total_ios"] == r.metrics["requests"]


def test_kept_rows_are_compact():
    # About 35 bytes a request while kept (a RequestLog is 104), every value exact.
    r = spindle.run(synthetic="open", count=20000, rate=50, queue_depth=4, seed=1)
    assert 0 < r._rows.nbytes < 48 * 20000
