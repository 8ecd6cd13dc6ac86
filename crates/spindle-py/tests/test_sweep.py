"""spindle.sweep on the local backend, and `spindle sweep` (the CLI) on the same grids."""

import os
import pathlib
import shutil
import subprocess

import pandas as pd
import pytest

import spindle

GRID = {"scheduler": ["fcfs", "sstf"], "queue_depth": [1, 4], "seed": [1, 2]}
FIXED = {"synthetic": "open", "count": 400}
METRICS = ["requests", "reads", "writes", "mean_response_ms", "p99_response_ms", "throughput_per_s"]


def same(a, b):
    """Identical frames: same columns, types and values, bit for bit."""
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_the_acceptance_call_gives_one_row_per_point_in_product_order():
    df = spindle.sweep(
        {"scheduler": ["fcfs", "sstf"], "queue_depth": [1, 4], "seed": [1, 2]},
        backend="local",
        synthetic="open",
        count=5000,
    )
    assert len(df) == 8
    assert list(df.columns[:5]) == ["point", "key", "scheduler", "queue_depth", "seed"]
    assert set(METRICS) <= set(df.columns)
    assert list(df.point) == list(range(8))
    # The first key varies slowest, the last fastest.
    assert list(df.scheduler) == ["fcfs"] * 4 + ["sstf"] * 4
    assert list(df.queue_depth) == [1, 1, 4, 4] * 2
    assert list(df.seed) == [1, 2] * 4
    assert (df.requests == 5000).all()
    assert (df.reads + df.writes == df.requests).all()
    assert df.key.is_unique
    assert df.queue_depth.dtype == "int64" and df.mean_response_ms.dtype == "float64"
    # SSTF beats FCFS on every seed and depth of this random workload.
    fcfs = df[df.scheduler == "fcfs"].mean_response_ms.to_numpy()
    sstf = df[df.scheduler == "sstf"].mean_response_ms.to_numpy()
    assert (sstf < fcfs).all()


def test_rows_do_not_depend_on_threads_or_on_which_points_run_together():
    one = spindle.sweep(GRID, jobs=1, progress=False, **FIXED)
    three = spindle.sweep(GRID, jobs=3, progress=False, **FIXED)
    same(one, three)
    # A point alone gives its row of the whole grid.
    alone = spindle.sweep({"scheduler": ["sstf"], "queue_depth": [4], "seed": [2]}, **FIXED)
    row = one[(one.scheduler == "sstf") & (one.queue_depth == 4) & (one.seed == 2)]
    same(alone.drop(columns="point"), row.drop(columns="point").reset_index(drop=True))


def test_keys_name_the_options_so_a_grown_grid_keeps_them():
    small = spindle.sweep({"seed": [1, 2]}, queue_depth=2, **FIXED)
    grown = spindle.sweep({"queue_depth": [2], "seed": [3, 1, 2]}, **FIXED)
    assert dict(zip(small.seed, small.key)) == {
        s: k for s, k in zip(grown.seed, grown.key) if s in (1, 2)
    }
    # A different fixed option is a different run, so a different key.
    other = spindle.sweep({"seed": [1, 2]}, queue_depth=2, synthetic="open", count=401)
    assert not set(other.key) & set(small.key)


def test_switches_numbers_and_numpy_values():
    import numpy as np

    df = spindle.sweep(
        {"rate": np.array([50.0, 80.0]), "spread": [False, True]},
        disks=2,
        **FIXED,
    )
    assert df.rate.dtype == "float64" and df.spread.dtype == "bool"
    assert list(df.spread) == [False, True, False, True]
    # An integer and a float make a float column.
    df = spindle.sweep({"rate": [50, 80.5]}, **FIXED)
    assert list(df.rate) == [50.0, 80.5]


def test_out_resumes_skipping_points_already_there(tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "r.parquet"
    first = spindle.sweep({"scheduler": ["fcfs", "sstf"], "seed": [1]}, out=out, **FIXED)
    same(pd.read_parquet(out), first)
    # Mark a stored row: a resumed sweep must take it from the file, not run it again.
    t = pq.read_table(out).to_pandas()
    t.loc[1, "mean_response_ms"] = -1.0
    t.to_parquet(out, index=False)
    grown = spindle.sweep({"scheduler": ["fcfs", "sstf"], "seed": [1, 2]}, out=out, csv=tmp_path / "r.csv", **FIXED)
    assert len(grown) == 4
    marked = grown[(grown.scheduler == "sstf") & (grown.seed == 1)]
    assert list(marked.mean_response_ms) == [-1.0]
    fresh = spindle.sweep({"scheduler": ["fcfs", "sstf"], "seed": [1, 2]}, **FIXED)
    unmarked = grown.mean_response_ms != -1.0
    same(grown[unmarked], fresh[unmarked])
    # The file holds old and new rows in point order, and so does the CSV.
    same(pd.read_parquet(out), grown)
    csv = pd.read_csv(tmp_path / "r.csv")
    assert list(csv.point) == [0, 1, 2, 3] and list(csv.key) == list(grown.key)


def test_out_of_another_sweep_is_refused(tmp_path):
    out = tmp_path / "r.parquet"
    spindle.sweep({"seed": [1, 2]}, out=out, **FIXED)
    with pytest.raises(ValueError, match="not a point of this grid"):
        spindle.sweep({"seed": [1, 2]}, out=out, synthetic="open", count=401)
    pd.DataFrame({"x": [1]}).to_parquet(tmp_path / "other.parquet")
    with pytest.raises(ValueError, match="no column 'key'"):
        spindle.sweep({"seed": [1]}, out=tmp_path / "other.parquet", **FIXED)


@pytest.mark.parametrize(
    "grid, fixed, message",
    [
        ({"scheduler": ["sstf", "fastest"]}, {}, r'point 1 \(scheduler="fastest"\).*fastest'),
        ({"queue_depth": [1, "many"]}, {}, r'grid\["queue_depth"\]: values of one type'),
        ({"queue_depth": ["many"]}, {}, "--queue-depth"),
        ({"no_such_option": [1]}, {}, "--no-such-option"),
        ({"seed": []}, {}, "an empty list"),
        ({"seed": 1}, {}, r"grid\['seed'\]: expected a list"),
        ({"scheduler": "sstf"}, {}, "expected a list"),
        ({"seed": [1, 1]}, {}, "value 1 is given twice"),
        ({"queue_depth": [1], "queue-depth": [2]}, {}, "given twice"),
        ({"seed": [1]}, {"seed": 2}, "keyword seed: option `seed` is given twice"),
        ({"requests": [1]}, {}, "names a result column"),
        ({"seed": [{"a": 1}]}, {}, r"expected a str, int, float, bool or .* a list of them, got dict"),
        ({"seed": list(range(1000)), "count": list(range(1, 1001))}, {}, "more than 100000 points"),
    ],
)
def test_bad_grids_are_value_errors_before_anything_runs(grid, fixed, message):
    with pytest.raises(ValueError, match=message):
        spindle.sweep(grid, **{**FIXED, **fixed})


def test_bad_sweep_arguments():
    with pytest.raises(ValueError, match="backend must be"):
        spindle.sweep({"seed": [1]}, backend="spark", **FIXED)
    with pytest.raises(ValueError, match="grid must be a dict"):
        spindle.sweep([("seed", [1])], **FIXED)
    with pytest.raises(ValueError, match="jobs must be"):
        spindle.sweep({"seed": [1]}, jobs=0, **FIXED)
    with pytest.raises(ValueError, match="jobs must be an integer within 1..=1024"):
        spindle.sweep({"seed": [1]}, jobs=10**6, **FIXED)
    with pytest.raises(ValueError, match="name the same file"):
        spindle.sweep({"seed": [1]}, out="x.parquet", csv="./x.parquet", **FIXED)


def test_where_the_rows_go_is_checked_before_any_point_runs(tmp_path):
    with pytest.raises(ValueError, match="csv=.* is a folder"):
        spindle.sweep({"seed": [1]}, csv=tmp_path, **FIXED)
    with pytest.raises(ValueError, match="out=.*: no folder"):
        spindle.sweep({"seed": [1]}, out=tmp_path / "no" / "x.parquet", **FIXED)
    assert list(tmp_path.iterdir()) == []


def spindle_bin():
    """The CLI built from this checkout (`cargo build --release` or the test run)."""
    root = pathlib.Path(__file__).resolve().parents[3]
    for p in [os.environ.get("SPINDLE_BIN"), root / "target" / "release" / "spindle", shutil.which("spindle")]:
        if p and os.path.exists(p):
            return str(p)
    pytest.skip("the spindle CLI is not built: cargo build --release (or set SPINDLE_BIN)")


GRID_TOML = """\
# two schedulers x two depths x two seeds
[grid]
scheduler = ["fcfs", "sstf"]
queue-depth = [1, 4]
seed = [1, 2]
[fixed]
synthetic = "open"
count = 400
"""


def test_cli_sweep_round_trip_and_resume_across_fronts(tmp_path):
    exe = spindle_bin()
    grid_file = tmp_path / "grid.toml"
    grid_file.write_text(GRID_TOML)
    out, csv = tmp_path / "cli.parquet", tmp_path / "cli.csv"
    r = subprocess.run([exe, "sweep", str(grid_file), "--out", str(out), "--csv", str(csv), "--jobs", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "8 points: 8 run" in r.stdout
    py = spindle.sweep(GRID, **FIXED)
    same(pd.read_parquet(out), py)
    # pandas 3 reads floats back exactly by default; older pandas when asked.
    exact = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
    text = pd.read_csv(csv, dtype={"key": "str", "scheduler": "str"}, **exact)
    same(text, py)
    # The same grid again: nothing runs, the file is the same byte for byte.
    before = out.read_bytes()
    r = subprocess.run([exe, "sweep", str(grid_file), "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0 and "8 already in" in r.stdout, r.stdout + r.stderr
    assert out.read_bytes() == before
    # Python resumes from the CLI's file, and the CLI from Python's (pyarrow's) file.
    same(spindle.sweep(GRID, out=out, **FIXED), py)
    half = tmp_path / "py.parquet"
    spindle.sweep({"scheduler": ["sstf"], "queue_depth": [1, 4], "seed": [1, 2]}, out=half, **FIXED)
    r = subprocess.run([exe, "sweep", str(grid_file), "--out", str(half)], capture_output=True, text=True)
    assert r.returncode == 0 and "8 points: 4 run" in r.stdout and "4 already in" in r.stdout, r.stdout + r.stderr
    same(pd.read_parquet(half), py)
    assert half.read_bytes() == before


def test_cli_bad_grid_is_exit_2_naming_file_line_and_key(tmp_path):
    exe = spindle_bin()
    bad = tmp_path / "bad.toml"
    bad.write_text('[grid]\nscheduler = ["sstf"]\nseed = 3\n')
    r = subprocess.run([exe, "sweep", str(bad), "--out", str(tmp_path / "o.parquet")], capture_output=True, text=True)
    assert r.returncode == 2
    assert f"{bad}:3: grid.seed: expected a list" in r.stderr
    assert not (tmp_path / "o.parquet").exists()


def test_a_failing_point_raises_and_the_rows_done_are_kept(tmp_path):
    out = tmp_path / "r.parquet"
    grid = {"trace": ["sample:hplajw", str(tmp_path / "missing.trace")], "seed": [1, 2]}
    with pytest.raises(ValueError, match=r"point 2 .*missing\.trace"):
        spindle.sweep(grid, out=out, jobs=1, limit=200)
    assert list(pd.read_parquet(out).point) == [0, 1]
    # The good half resumes from them without running anything new.
    good = spindle.sweep({"trace": ["sample:hplajw"], "seed": [1, 2]}, out=out, limit=200)
    same(good, spindle.sweep({"trace": ["sample:hplajw"], "seed": [1, 2]}, limit=200))


def test_the_grid_file_from_python_is_the_cli_grid(tmp_path, capsys):
    from spindle import sweep_cli

    grid_file = tmp_path / "grid.toml"
    grid_file.write_text(GRID_TOML)
    out = tmp_path / "r.parquet"
    assert sweep_cli.main([str(grid_file), "--out", str(out), "--jobs", "2"]) == 0
    same(pd.read_parquet(out), spindle.sweep(GRID, **FIXED))
    grid_file.write_text("[grid]\nseed = 3\n")
    assert sweep_cli.main([str(grid_file), "--out", str(out)]) == 2
    assert f"{grid_file}:2: grid.seed: expected a list" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["", "# later\n", "[grid]\n", '[fixed]\nsynthetic = "open"\ncount = 5\n'])
def test_a_grid_file_without_grid_keys_is_refused_not_run_as_one_default_point(tmp_path, capsys, text):
    from spindle import _core, sweep_cli

    grid_file = tmp_path / "empty.toml"
    grid_file.write_text(text)
    out = tmp_path / "r.parquet"
    assert sweep_cli.main([str(grid_file), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{grid_file}: no points: the file has no [grid] keys; expected a [grid] table of lists" in err
    assert not out.exists()
    with pytest.raises(ValueError, match=r"g\.toml: no points"):
        _core.sweep_grid_toml(text, "g.toml")
    # The CLI says the same, with exit status 2 and nothing written.
    exe = spindle_bin()
    r = subprocess.run([exe, "sweep", str(grid_file), "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 2 and f"{grid_file}: no points" in r.stderr, r.stdout + r.stderr
    assert not out.exists()


# A repeatable flag's axis: each value a list, one point's `--layer` flags (top first).
LAYERS = [["content-cache:arc:500"], ["journal", "content-cache:arc:500"], ["journal"]]
LAYER_FIXED = {"trace": "sample:hplajw", "limit": 300, "disks": 2, "array": "raid1"}
LAYER_TOML = """\
[grid]
layer = [["content-cache:arc:500"], ["journal", "content-cache:arc:500"], ["journal"]]
seed = [1, 2]
[fixed]
trace = "sample:hplajw"
limit = 300
disks = 2
array = "raid1"
"""


def test_a_list_valued_axis_gives_the_same_rows_from_the_cli_python_and_the_grid_file(tmp_path):
    import json

    from spindle import sweep_cli

    py = spindle.sweep({"layer": LAYERS, "seed": [1, 2]}, **LAYER_FIXED)
    assert len(py) == 6
    # The column holds each list as JSON text, in the grid's order.
    assert [json.loads(v) for v in py.layer[::2]] == LAYERS
    assert py.layer[0] == '["content-cache:arc:500"]'
    # Each row is the run with those flags, in that order.
    for _, row in py.iterrows():
        run = spindle.run(layer=json.loads(row.layer), seed=int(row.seed), **LAYER_FIXED)
        assert run.metrics["mean_response_ms"] == row.mean_response_ms
        assert run.metrics["requests"] == row.requests == 300
    # The layers matter (each list is a different stack).
    assert py.mean_response_ms[py.seed == 1].nunique() == 3
    # Tuples and numpy arrays are lists too.
    import numpy as np

    same(spindle.sweep({"layer": [tuple(l) for l in LAYERS[:2]] + [np.array(LAYERS[2])], "seed": [1, 2]},
                       **LAYER_FIXED), py)
    # The CLI on the same grid file: the same rows, bit for bit, in Parquet and CSV.
    grid_file = tmp_path / "layers.toml"
    grid_file.write_text(LAYER_TOML)
    out, csv = tmp_path / "cli.parquet", tmp_path / "cli.csv"
    r = subprocess.run([spindle_bin(), "sweep", str(grid_file), "--out", str(out), "--csv", str(csv)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    same(pd.read_parquet(out), py)
    exact = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
    same(pd.read_csv(csv, dtype={"key": "str", "layer": "str"}, **exact), py)
    # Python resumes from the CLI's file without running anything; the grid file from
    # Python (python -m spindle.sweep_cli) gives the same rows.
    same(spindle.sweep({"layer": LAYERS, "seed": [1, 2]}, out=out, **LAYER_FIXED), py)
    assert sweep_cli.main([str(grid_file), "--out", str(tmp_path / "py.parquet")]) == 0
    same(pd.read_parquet(tmp_path / "py.parquet"), py)
    # A list on an axis is the same run (the same key) as that list given as a keyword.
    fixed = spindle.sweep({"seed": [1]}, layer=LAYERS[1], **LAYER_FIXED)
    assert list(fixed.key) == list(py.key[(py.seed == 1) & (py.layer == json.dumps(LAYERS[1]).replace('","', '", "'))])


@pytest.mark.parametrize(
    "values, message",
    [
        ([["journal"], "journal"], r'grid\["layer"\]: value "journal" is a single value but \["journal"\] is a list'),
        ([["journal"], []], r'grid\["layer"\]: value \[\] is an empty list'),
        ([[["journal"]]], r'grid\["layer"\]: value \[\["journal"\]\] is nested too deep'),
        ([[[["journal"]]]], r"grid\[\"layer\"\]: value \[\[\['journal'\]\]\] is nested too deep"),
        ([[True]], r'grid\["layer"\]: value \[true\] holds true'),
        ([["journal"], ("journal",)], r'value \["journal"\] is given twice'),
        ([["bogus"]], r'point 0 \(layer=\["bogus"\]\).*--layer `bogus`'),
    ],
)
def test_bad_list_values_name_the_axis_and_the_value(values, message):
    with pytest.raises(ValueError, match=message):
        spindle.sweep({"layer": values}, **LAYER_FIXED)


def test_a_list_for_an_option_that_takes_one_value_is_refused():
    with pytest.raises(ValueError, match=r'grid\["seed"\]: value \[1\] is a list, but --seed takes one value'):
        spindle.sweep({"seed": [[1], [2]]}, **FIXED)
    with pytest.raises(ValueError, match="keyword queue_depth: a list of values, but --queue-depth takes one value"):
        spindle.sweep({"seed": [1]}, queue_depth=[1, 2], **FIXED)


@pytest.mark.parametrize(
    "axis, message",
    [
        ('layer = [["journal"], []]', r"grid\.layer: value \[\] is an empty list"),
        ('layer = [[["journal"]]]', r'grid\.layer: value \[\["journal"\]\] is nested too deep'),
        ('layer = [["journal"], "journal"]', r'grid\.layer: value "journal" is a single value'),
        ("seed = [[1], [2]]", r"grid\.seed: value \[1\] is a list, but --seed takes one value"),
    ],
)
def test_bad_list_values_in_a_grid_file_are_exit_2_from_both_fronts(tmp_path, capsys, axis, message):
    import re

    from spindle import sweep_cli

    grid_file = tmp_path / "bad.toml"
    grid_file.write_text(f"[grid]\n{axis}\n[fixed]\nlimit = 10\n")
    want = re.compile(re.escape(f"{grid_file}:2: ") + message)
    r = subprocess.run([spindle_bin(), "sweep", str(grid_file), "--out", str(tmp_path / "o.parquet")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and want.search(r.stderr), r.stderr
    assert sweep_cli.main([str(grid_file), "--out", str(tmp_path / "o.parquet")]) == 2
    assert want.search(capsys.readouterr().err)
    assert not (tmp_path / "o.parquet").exists()
