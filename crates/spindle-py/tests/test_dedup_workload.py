"""I/O Deduplication's generated stand-in as a workload from Python: the same run as
the CLI's `--synthetic web-vm`, with the dedup layers' figures in ``nodes``."""

import json
import subprocess

import spindle

from test_sweep import spindle_bin

OPTS = dict(synthetic="web-vm", scale=0.002, days=1, layer=["content-cache:arc:500", "drr"])


def test_stand_in_runs_under_the_dedup_layers_like_the_cli():
    r = spindle.run(**OPTS, seed=3)
    assert list(r.nodes["kind"][:2]) == ["content-cache", "drr"]
    assert int(r.nodes["redirected"][1]) > 0
    assert len(r.requests) == r.metrics["requests"]
    cli = subprocess.run(
        [spindle_bin(), "run", "--synthetic", "web-vm", "--scale", "0.002", "--days", "1",
         "--layer", "content-cache:arc:500", "--layer", "drr", "--seed", "3", "--json"],
        check=True, capture_output=True, text=True,
    )
    assert json.loads(cli.stdout)["metrics"] == r.metrics


def test_a_bad_scale_is_a_clear_error():
    import pytest

    with pytest.raises(ValueError, match=r"scale must be within \(0, 1\]"):
        spindle.run(synthetic="mail", scale=1.5)
