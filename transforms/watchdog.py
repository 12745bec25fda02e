"""A wall-time bound around work that may hang or blow up (a hostile document in a parser): the call runs in a
separate worker process; when it overruns or kills its process, the worker is killed, the call is reported,
and the next call gets a fresh worker. The worker is started once and reused while calls behave.

The worker is a clean interpreter with its own entry point (``python -m transforms.watchdog_worker``), not a
multiprocessing child: spawn and forkserver children re-import the parent's main module, which under a scheduler
is the `airflow` command (it dies in a task's environment) and elsewhere may be any script. It works the same
under Airflow's scheduler, a Celery worker, the CLI and the API, and it ends with the process that started it."""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from lakehouse.errors import LakeragError
from transforms.watchdog_worker import read_frame, write_frame

log = logging.getLogger(__name__)

T = TypeVar("T")
START_TIMEOUT = 120.0  # seconds for a fresh worker to import and answer (not counted against a call's bound)
POLL = 0.2  # seconds between two looks at a running call's memory
ENTRY = "transforms.watchdog_worker"
ROOT = str(Path(__file__).resolve().parents[1])  # the folder holding the `transforms` package


class Overrun(LakeragError):
    """The call took longer than its bound and was stopped."""


class WorkerDied(LakeragError):
    """The call killed its worker process (out of memory, a crash in native code)."""


class MemoryExceeded(LakeragError):
    """The call's worker grew past its memory bound (resident set) and was stopped."""


class WorkerUnavailable(LakeragError):
    """The worker process could not be started: a problem of this machine or environment, not of a document."""


class RemoteTraceback(Exception):
    """The worker's traceback of a call that raised, attached as the re-raised error's cause."""


class _Worker:
    def __init__(self) -> None:
        parent_read, child_write = os.pipe()
        child_read, parent_write = os.pipe()
        # -P and PYTHONPATH: the entry point is imported from where this module was, never from the working folder
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (ROOT, os.environ.get("PYTHONPATH"))))}
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-P", "-m", ENTRY, str(child_read), str(child_write), str(os.getpid())],
                pass_fds=(child_read, child_write), stdin=subprocess.DEVNULL, close_fds=True, env=env)
        except OSError as exc:
            for fd in (parent_read, child_write, child_read, parent_write):
                os.close(fd)
            raise WorkerUnavailable(f"could not start `{sys.executable} -m {ENTRY}`: {exc}") from None
        os.close(child_read)
        os.close(child_write)
        self.results: BinaryIO = os.fdopen(parent_read, "rb", buffering=0)
        self.calls: BinaryIO = os.fdopen(parent_write, "wb")
        try:
            write_frame(self.calls, list(sys.path))
            ready = self.receive(START_TIMEOUT)
        except (BrokenPipeError, TimeoutError, EOFError):
            ready = None
        if ready is None or ready[0] != "ready":
            code = self.kill()
            raise WorkerUnavailable(f"the worker process `{sys.executable} -m {ENTRY}` did not start (exit "
                                    f"code {code}; its error is in the log above)")
        self.pid: int = ready[1]

    def receive(self, timeout: float) -> Any:
        """The next frame from the worker; TimeoutError when none within ``timeout``, EOFError if it died."""
        readable, _, _ = select.select([self.results], [], [], timeout)
        if not readable:
            raise TimeoutError
        ok, value = read_frame(self.results)
        if not ok:
            raise EOFError
        return value

    def kill(self) -> int | None:
        self.process.kill()
        code = self.process.wait()
        self._close_pipes()
        return code

    def stop(self, timeout: float = 10.0) -> None:
        """End of input: the worker finishes and exits; killed if it does not within ``timeout``."""
        self._close_pipes()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def _close_pipes(self) -> None:
        for stream in (self.calls, self.results):
            with contextlib.suppress(OSError):
                stream.close()


def resident_mb(pid: int) -> float:
    """A process's resident set (VmRSS) in MiB, with its children's (a parser's subprocess, Tesseract); 0 when
    it cannot be read (the process is gone, or no /proc)."""
    total = 0.0
    for one in (pid, *_children(pid)):
        try:
            status = Path(f"/proc/{one}/status").read_text()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0) / 1024
    return total


def _children(pid: int) -> list[int]:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    kids = [int(k) for k in found]
    return kids + [g for k in kids for g in _children(k)]


class Watchdog:
    """``run(fn, *args)`` with ``seconds`` of wall time at most (0: in this process, unbounded) and, when
    ``memory_mb`` is set, the worker's resident memory (its children's included) below ``memory_mb``: a
    document that makes a parser grab gigabytes is stopped like one that hangs. ``fn`` must be importable by name
    and its arguments must pickle (the worker is a separate interpreter). One caller at a time."""

    def __init__(self, seconds: float, memory_mb: float = 0) -> None:
        self.seconds, self.memory_mb = seconds, memory_mb
        self._current: _Worker | None = None

    def __enter__(self) -> Watchdog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        if self.seconds <= 0:
            return fn(*args)
        worker = self._worker()
        started = time.monotonic()
        try:
            write_frame(worker.calls, (fn, args))
            status, value = self._wait(worker, started)
        except TimeoutError:
            self._kill()
            raise Overrun(f"took longer than {self.seconds:g} s and was stopped") from None
        except MemoryError:
            self._kill()
            raise MemoryExceeded(f"used more than {self.memory_mb:g} MiB of memory and was stopped "
                                 "(LAKERAG_EXTRACT_MAX_MEMORY_MB)") from None
        except (EOFError, BrokenPipeError):
            code = self._kill()
            raise WorkerDied(f"killed its worker process after {time.monotonic() - started:.1f} s (out of memory, "
                             f"or a crash in a native library; exit code {code})") from None
        if status == "ok":
            return value
        exc, remote = value
        raise exc from (RemoteTraceback(remote) if remote else None)

    def _wait(self, worker: _Worker, started: float) -> Any:
        """The call's result; TimeoutError past the bound, MemoryError past the memory bound."""
        if not self.memory_mb:
            return worker.receive(self.seconds)
        while True:
            left = self.seconds - (time.monotonic() - started)
            if left <= 0:
                raise TimeoutError
            try:
                return worker.receive(min(POLL, left))
            except TimeoutError:
                if resident_mb(worker.process.pid) > self.memory_mb:
                    raise MemoryError from None

    def _worker(self) -> _Worker:
        if self._current is None:
            self._current = _Worker()
            log.debug("watchdog worker %s started", self._current.pid)
        return self._current

    def _kill(self) -> int | None:
        worker, self._current = self._current, None
        return None if worker is None else worker.kill()

    def close(self) -> None:
        worker, self._current = self._current, None
        if worker is not None:
            worker.stop()


_SHARED: dict[tuple[float, float], Watchdog] = {}


def shared(seconds: float, memory_mb: float = 0) -> Watchdog:
    """The process's watchdog for a bound, reused across batches and runs (a worker costs a second or two to
    start: it imports the extraction libraries again); closed when the process exits."""
    if not _SHARED:
        atexit.register(_close_shared)
    return _SHARED.setdefault((seconds, memory_mb), Watchdog(seconds, memory_mb))


def _close_shared() -> None:
    for watchdog in _SHARED.values():
        watchdog.close()
    _SHARED.clear()
