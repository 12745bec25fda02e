"""The watchdog's worker process: ``python -m transforms.watchdog_worker READ_FD WRITE_FD PARENT_PID``.

A clean interpreter started by its own entry point, so it never re-runs the main module of the process that
started it (multiprocessing's spawn and forkserver re-import it: under Airflow that is the `airflow` command,
whose start-up fails in a task's environment). It reads pickled calls from one pipe and writes each outcome to
the other, and ends when its parent does: at the end of its input, or within about a second of the parent's
death while a call is running."""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
import threading
import time
import traceback
from typing import Any, BinaryIO

HEADER = struct.Struct("!Q")  # frame length, then that many bytes of pickle


def write_frame(stream: BinaryIO, value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(data)) + data)
    stream.flush()


def read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    """``size`` bytes, or None at the end of the stream."""
    chunks, left = [], size
    while left:
        chunk = stream.read(left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(stream: BinaryIO) -> tuple[bool, Any]:
    """(False, None) at the end of the stream, else (True, the value)."""
    header = read_exactly(stream, HEADER.size)
    data = None if header is None else read_exactly(stream, HEADER.unpack(header)[0])
    return (False, None) if data is None else (True, pickle.loads(data))  # noqa: S301 - our own parent's pipe


def _exit_with_parent(parent: int) -> None:
    """A parent killed outright (SIGKILL, the OOM killer) runs no clean-up; a call may be running for minutes."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="lakerag-parent-watch", daemon=True).start()


def _outcome(fn: Any, args: tuple) -> tuple[str, Any]:
    try:
        return "ok", fn(*args)
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the caller
        return "error", (exc, traceback.format_exc())


def serve(calls: BinaryIO, results: BinaryIO) -> None:
    ok, sys_path = read_frame(calls)  # the parent's import path: the calls' functions import from it
    if not ok:
        return
    sys.path[:] = [p for p in sys_path if p not in sys.path] + sys.path
    write_frame(results, ("ready", os.getpid()))
    while True:
        ok, call = read_frame(calls)
        if not ok:
            return
        status, value = _outcome(*call)
        try:
            write_frame(results, (status, value))
        except Exception as exc:  # noqa: BLE001 - an outcome that does not pickle is reported as text
            write_frame(results, ("error", (RuntimeError(f"{type(value).__name__} could not be sent back: {exc}"),
                                            "")))


def main(argv: list[str]) -> int:
    read_fd, write_fd, parent = (int(a) for a in argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; the worker ends with it
    _exit_with_parent(parent)
    with os.fdopen(read_fd, "rb") as calls, os.fdopen(write_fd, "wb") as results:
        serve(calls, results)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
