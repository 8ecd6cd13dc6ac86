"""The Python examples run (small)."""

import subprocess
import sys


def test_compare_schedulers_writes_its_plot(root, tmp_path):
    out = tmp_path / "s.png"
    script = root / "examples" / "python" / "compare_schedulers.py"
    p = subprocess.run(
        [sys.executable, str(script), "--out", str(out), "--limit", "1500"],
        capture_output=True, text=True, check=True,
    )
    assert out.stat().st_size > 10_000
    for s in ["fcfs", "sstf", "clook", "greedy"]:
        assert s in p.stdout
