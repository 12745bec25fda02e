"""benchmarks/gpu_check.py runs on a CPU at its smallest sizes (what CI can check): every step measured, a
table printed, JSON written."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.fixtures.paths import REPO

pytestmark = pytest.mark.slow  # a subprocess loading torch and transformers again; CI runs it


def test_gpu_check_runs_every_step_at_the_smallest_sizes(tmp_path):
    out = tmp_path / "gpu_check.json"
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "gpu_check.py"), "--size", "smallest",
                           "--out", str(out)], cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    checks = [row["check"] for row in result["rows"]]
    assert len(checks) == 6 and any("BGE-M3" in c for c in checks) and any("MaxSim" in c for c in checks)
    assert all(row["seconds"] > 0 and row["rate"] for row in result["rows"])
    assert result["sizes"] == "smallest" and "dense search" in done.stdout
