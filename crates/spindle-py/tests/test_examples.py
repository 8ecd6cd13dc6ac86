"""The Python examples run (small)."""

import subprocess
import sys


def test_compare_schedulers_writes_its_plot(root, tmp_path):
    out, page = tmp_path / "s.png", tmp_path / "s.html"
    script = root / "examples" / "python" / "compare_schedulers.py"
    p = subprocess.run(
        [sys.executable, str(script), "--out", str(out), "--html", str(page), "--limit", "1500"],
        capture_output=True, text=True, check=True,
    )
    assert out.stat().st_size > 10_000
    text = page.read_text()
    assert "<table" in text and "data:image/png;base64," in text
    for s in ["fcfs", "sstf", "clook", "greedy"]:
        assert s in p.stdout
