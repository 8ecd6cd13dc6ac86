"""spindle.sweep on Ray: the same rows as the local backend. Skipped only when Ray
cannot be imported (CI installs it: `pip install 'spindle[ray]'`)."""

import pandas as pd
import pytest

import spindle

from test_sweep import GRID_TOML

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'spindle[ray]' to run the Ray backend tests")

GRID = {"scheduler": ["fcfs", "sstf"], "queue_depth": [1, 4], "seed": [1, 2]}
FIXED = {"synthetic": "open", "count": 400}


def same(a, b):
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_ray_starts_its_own_cluster_and_gives_the_local_rows(tmp_path):
    assert not ray.is_initialized()
    local = spindle.sweep(GRID, **FIXED)
    out = tmp_path / "ray.parquet"
    on_ray = spindle.sweep(GRID, backend="ray", jobs=2, batch=3, out=out, progress=False, **FIXED)
    same(on_ray, local)
    same(pd.read_parquet(out), local)
    # The cluster it started is gone.
    assert not ray.is_initialized()


@pytest.fixture
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_on_a_connected_cluster_resumes_one_task_per_point(tmp_path, cluster):
    out = tmp_path / "r.parquet"
    spindle.sweep({"scheduler": ["sstf"], "queue_depth": [1, 4], "seed": [1, 2]}, out=out, **FIXED)
    resumed = spindle.sweep(GRID, backend="ray", batch=1, out=out, progress=False, **FIXED)
    same(resumed, spindle.sweep(GRID, **FIXED))
    same(pd.read_parquet(out), resumed)
    # It used the cluster that was there and left it running.
    assert ray.is_initialized()
    # The CLI's grid file on Ray (python -m spindle.sweep_cli): the CLI's rows.
    from spindle import sweep_cli

    grid_file = tmp_path / "grid.toml"
    grid_file.write_text(GRID_TOML)
    assert sweep_cli.main([str(grid_file), "--out", str(tmp_path / "f.parquet"), "--backend", "ray"]) == 0
    same(pd.read_parquet(tmp_path / "f.parquet"), resumed)
    # An error inside a task is the local error, raised here.
    with pytest.raises(ValueError, match="no-such-trace"):
        spindle.sweep({"seed": [1, 2]}, backend="ray", trace="/no-such-trace.csv", progress=False)
    with pytest.raises(ValueError, match="no-such-trace"):
        spindle.sweep({"seed": [1, 2]}, trace="/no-such-trace.csv")


def test_a_list_valued_axis_on_ray_gives_the_local_rows():
    from test_sweep import LAYER_FIXED, LAYERS

    grid = {"layer": LAYERS, "seed": [1, 2]}
    same(spindle.sweep(grid, backend="ray", jobs=2, progress=False, **LAYER_FIXED), spindle.sweep(grid, **LAYER_FIXED))
