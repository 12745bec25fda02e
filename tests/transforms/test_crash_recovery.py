"""A run killed mid-way (a real subprocess, SIGKILL) and run again converges to the tables of a clean run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakehouse.paths import LakePaths

pytestmark = [pytest.mark.integration, pytest.mark.slow]

# Columns that name the run or time it: they legitimately differ between two homes.
_VOLATILE = {"first_seen_run", "last_seen_run", "run_id", "extract_seconds"}


def _index(home: Path, source: Path, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "LAKERAG_HOME": str(home), "LAKERAG_SOURCE": str(source), "LAKERAG_BATCH_SIZE": "1"}
    return subprocess.Popen([sys.executable, "-m", "lakerag.cli", "index", "--quiet"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


def _snapshot(home: Path) -> dict[str, list[dict]]:
    out = {}
    for name in ("documents", "extracted", "chunks", "quarantine"):
        rows = pq.read_table(LakePaths(home).table(name)).to_pylist()
        out[name] = sorted(tuple(sorted((k, repr(v)) for k, v in r.items() if k not in _VOLATILE))
                            for r in rows)
    return out


def _kill_when(proc: subprocess.Popen, home: Path, pattern: str, timeout: float = 120) -> bool:
    """SIGKILL the process as soon as a stage record matching ``pattern`` appears; False if it finished first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if list((home / "runs").glob(f"*/stages/{pattern}")):
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.005)
    proc.kill()
    raise AssertionError("the run neither finished nor reached the kill point")


@pytest.mark.parametrize("kill_at", ["extract-2.json", "chunk-1.json"])
def test_killed_run_then_rerun_matches_an_uninterrupted_run(corpus, tmp_path, kill_at):
    clean_home, crash_home = tmp_path / "clean", tmp_path / "crash"
    clean = _index(clean_home, corpus)
    assert clean.wait(timeout=600) == 0, clean.stderr.read().decode()

    proc = _index(crash_home, corpus)
    if not _kill_when(proc, crash_home, kill_at):
        pytest.fail("the run finished before it could be killed; the corpus is too small for this test")
    assert not LakePaths(crash_home).table("documents").exists()  # nothing was committed
    stray = list(crash_home.rglob("*.tmp"))
    assert all(p.name.startswith(".") for p in stray), stray  # hidden: no reader's glob can pick one up

    rerun = _index(crash_home, corpus)
    assert rerun.wait(timeout=600) == 0, rerun.stderr.read().decode()
    assert _snapshot(crash_home) == _snapshot(clean_home)
    runs = pq.read_table(LakePaths(crash_home).table("runs")).to_pylist()
    assert len(runs) == 1  # the interrupted run was resumed under its own id, not duplicated
