"""A wall-time bound around work that may hang or blow up (a hostile document in a parser): the call runs in a
separate worker process; when it overruns or kills its process, the worker is killed, the call is reported,
and the next call gets a fresh worker. The worker is started once and reused while calls behave."""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from lakehouse.errors import LakeragError

log = logging.getLogger(__name__)

T = TypeVar("T")


class Overrun(LakeragError):
    """The call took longer than its bound and was stopped."""


class WorkerDied(LakeragError):
    """The call killed its worker process (out of memory, a crash in native code)."""


def _ready() -> bool:
    return True


def _exit_with_parent(parent: int) -> None:
    """Worker initializer: the worker ends within a second or two of the process that started it. A parent
    killed outright (SIGKILL, the OOM killer, a crashed scheduler task) runs no clean-up, and the worker holds
    both ends of its own work queue, so it would otherwise wait for work for ever."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="lakerag-parent-watch", daemon=True).start()


class Watchdog:
    """``run(fn, *args)`` with ``seconds`` of wall time at most (0: in this process, unbounded). ``fn`` and its
    arguments must pickle (spawned workers, never forked: the caller may hold threads and locks)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> Watchdog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        if self.seconds <= 0:
            return fn(*args)
        future = self._worker().submit(fn, *args)
        try:
            return future.result(timeout=self.seconds)
        except FutureTimeout:
            self._kill()
            raise Overrun(f"took longer than {self.seconds:g} s and was stopped") from None
        except BrokenProcessPool as exc:
            self._kill()
            raise WorkerDied(f"killed its worker process (out of memory, or a crash in a native library: {exc})"
                             ) from None

    def _worker(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_exit_with_parent, initargs=(os.getpid(),))
            self._pool.submit(_ready).result()  # start-up (imports) is not counted against a call's bound
        return self._pool

    def _kill(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        for process in list(getattr(pool, "_processes", {}).values()):  # the executor has no public kill
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


_SHARED: dict[float, Watchdog] = {}


def shared(seconds: float) -> Watchdog:
    """The process's watchdog for a bound, reused across batches and runs (a worker costs a second or two to
    start: spawned, it imports the extraction libraries again); closed when the process exits."""
    if not _SHARED:
        atexit.register(_close_shared)
    return _SHARED.setdefault(seconds, Watchdog(seconds))


def _close_shared() -> None:
    for watchdog in _SHARED.values():
        watchdog.close()
    _SHARED.clear()
