"""The watchdog bounds a call's wall time in a worker process and recovers from calls that hang or crash."""

from __future__ import annotations

import operator
import os
import signal
import time

import pytest

from transforms.watchdog import Overrun, Watchdog, WorkerDied


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


def test_zero_means_in_process():
    assert Watchdog(0).run(os.getpid) == os.getpid()
