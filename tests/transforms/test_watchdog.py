"""The watchdog bounds a call's wall time in a worker process and recovers from calls that hang or crash."""

from __future__ import annotations

import operator
import os
import signal
import time

import pytest

from transforms.watchdog import MemoryExceeded, Overrun, Watchdog, WorkerDied


def _kill_self() -> None:
    os.kill(os.getpid(), signal.SIGKILL)  # what the OOM killer does to a parser that ate the memory


def test_a_hung_call_is_stopped_and_the_next_call_gets_a_fresh_worker():
    with Watchdog(1.0) as watchdog:
        started = time.monotonic()
        with pytest.raises(Overrun, match="longer than 1 s"):
            watchdog.run(time.sleep, 30)
        assert time.monotonic() - started < 10
        assert watchdog.run(operator.add, 2, 3) == 5


def test_a_call_that_kills_its_worker_is_reported_and_survived():
    with Watchdog(30.0) as watchdog:
        with pytest.raises(WorkerDied):
            watchdog.run(_kill_self)
        assert watchdog.run(operator.mul, 6, 7) == 42


def _hog(megabytes: int) -> int:
    held = b"x" * (megabytes * 2**20)  # written, so resident (a bomb a parser inflates within the size limits)
    time.sleep(30)
    return len(held)


def test_a_call_past_the_memory_bound_is_stopped_and_the_next_call_works():
    with Watchdog(60.0, memory_mb=400) as watchdog:
        started = time.monotonic()
        with pytest.raises(MemoryExceeded, match="more than 400 MiB"):
            watchdog.run(_hog, 900)
        assert time.monotonic() - started < 25  # stopped on the way, not at the 30 s sleep's end
        assert watchdog.run(operator.add, 2, 3) == 5
    with Watchdog(60.0, memory_mb=2000) as roomy:  # under the bound: the call completes
        assert roomy.run(_hog_briefly, 100) == 100 * 2**20


def _hog_briefly(megabytes: int) -> int:
    return len(b"x" * (megabytes * 2**20))


def test_zero_means_in_process():
    assert Watchdog(0).run(os.getpid) == os.getpid()


_PARENT = """
import os, sys, time
sys.path.insert(0, {root!r})
from transforms.watchdog import Watchdog
watchdog = Watchdog(30.0)
print(watchdog.run(os.getpid), flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie awaiting its reaper counts as gone
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[-1][:1] != "Z"
    except FileNotFoundError:
        return False


def test_a_parent_killed_outright_leaves_no_worker_behind():
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    parent = subprocess.Popen([sys.executable, "-c", _PARENT.format(root=root)], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(parent.stdout.readline())
        assert worker != parent.pid and _alive(worker)
    finally:
        parent.kill()  # SIGKILL: no atexit, no executor shutdown
        parent.wait()
    deadline = time.monotonic() + 30
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(worker), "the watchdog's worker outlived the process that started it"


# A main module that dies when imported again, as `airflow` does in a task's environment ("Could not parse
# SQLAlchemy URL"): a worker that re-runs its parent's main module (multiprocessing's spawn) never starts.
_REIMPORT_FAILS = """
import os, sys
if __name__ != "__main__":
    raise SystemExit("the main module ran again in the worker (as " + __name__ + ")")
sys.path.insert(0, {root!r})
from transforms.watchdog import Watchdog
with Watchdog(30.0) as watchdog:
    print(watchdog.run(os.getpid) != os.getpid(), watchdog.run(divmod, 7, 2), flush=True)
"""


def test_the_worker_never_runs_its_parents_main_module(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "entry_point.py"
    script.write_text(_REIMPORT_FAILS.format(root=str(Path(__file__).resolve().parents[2])))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "(3,", "1)"]


def test_a_call_that_raises_raises_the_same_error_in_the_caller():
    from lakehouse.errors import DocumentError

    with Watchdog(30.0) as watchdog:
        with pytest.raises(ValueError, match="invalid literal"):
            watchdog.run(int, "x")
        with pytest.raises(DocumentError) as caught:
            watchdog.run(_refuse)
        assert caught.value.stage == "chunk" and watchdog.run(len, "abc") == 3


def _refuse() -> None:
    from lakehouse.errors import DocumentError

    raise DocumentError("not a document", stage="chunk")


def test_a_worker_that_cannot_start_is_reported_as_such(monkeypatch):
    from transforms import watchdog as module

    monkeypatch.setattr(module, "ENTRY", "transforms.no_such_worker")
    with pytest.raises(module.WorkerUnavailable, match="did not start"):
        Watchdog(30.0).run(os.getpid)


def _in_a_daemon(results) -> None:
    with Watchdog(30.0) as watchdog:
        results.put(watchdog.run(operator.add, 20, 22))


def test_a_daemonic_worker_process_can_use_the_watchdog():
    """A Celery prefork pool process is daemonic, and multiprocessing refuses children to daemonic processes."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")  # how a prefork pool starts its processes
    results = ctx.Queue()
    daemon = ctx.Process(target=_in_a_daemon, args=(results,), daemon=True)
    daemon.start()
    try:
        assert results.get(timeout=60) == 42
    finally:
        daemon.join(timeout=30)
    assert daemon.exitcode == 0
