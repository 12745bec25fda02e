"""Progress of long stages: items done of a total, per stage.

A stage calls ``report(stage, done, total, unit)`` as it goes; whoever runs the stages chooses what that does
with ``reporting(reporter)``: the CLI draws a rich bar per stage in a terminal; everywhere else (output to a
file, Airflow tasks, tests) the default ``LogProgress`` writes one log line per stage every ``EVERY_ITEMS``
items or ``EVERY_SECONDS`` seconds, whichever comes first, and when the stage finishes:
``embed: 512/1,204 chunks (43%), 7.9/s, ETA 1m28s``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

log = logging.getLogger(__name__)

EVERY_ITEMS = 500  # a log line at least this often, in items
EVERY_SECONDS = 10.0  # and at least this often, in seconds, while items come in

STEP = "step"  # the unit of a stage reported as a whole (started: 0 of 1, finished: 1 of 1)
Reporter = Callable[[str, int, int, str], None]  # stage, done, total, unit


@dataclass
class _Stage:
    started: float
    logged_at: float
    logged_done: int
    unit: str


def describe(done: int, total: int, unit: str, elapsed: float) -> str:
    """``512/1,204 chunks (43%), 7.9/s, ETA 1m28s``."""
    rate = done / elapsed if elapsed > 0 else 0.0
    share = f" ({100 * done // total}%)" if total else ""
    text = f"{done:,}/{total:,} {unit}{share}, {rate:.1f}/s"
    if 0 < done < total and rate > 0:
        text += f", ETA {_duration((total - done) / rate)}"
    return text


def _duration(seconds: float) -> str:
    if seconds < 10:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class LogProgress:
    """One log line per stage every ``every_items`` items or ``every_seconds`` seconds, and at the end."""

    def __init__(self, every_items: int = EVERY_ITEMS, every_seconds: float = EVERY_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.every_items, self.every_seconds, self.clock = every_items, every_seconds, clock
        self.stages: dict[str, _Stage] = {}
        self.starts: dict[str, float] = {}  # when each stage started, as a step
        self.itemised: set[str] = set()  # stages whose items were reported since they started

    def __call__(self, stage: str, done: int, total: int, unit: str) -> None:
        now = self.clock()
        if unit == STEP:
            self._step(stage, done, now)
            return
        state = self.stages.get(stage)
        if state is None or state.unit != unit or done < state.logged_done:  # a new stage, or run again
            state = self.stages[stage] = _Stage(self.starts.get(stage, now), now, 0, unit)
            if done == 0:
                log.info("%s: %s %s to do", stage, f"{total:,}", unit)
                return
        finished = done >= total
        if (finished or done - state.logged_done >= self.every_items
                or now - state.logged_at >= self.every_seconds):
            log.info("%s: %s", stage, describe(done, total, unit, now - state.started))
            state.logged_at, state.logged_done = now, done
        if finished:
            del self.stages[stage]
            self.itemised.add(stage)

    def _step(self, stage: str, done: int, now: float) -> None:
        """A whole stage as one step: a line when it starts and one when it ends (unless it reported its
        items, whose last line already said so)."""
        if done == 0:
            self.starts[stage] = now
            self.itemised.discard(stage)
            self.stages.pop(stage, None)
            log.info("%s: started", stage)
        elif stage in self.itemised:
            self.itemised.discard(stage)
        else:
            log.info("%s: done in %s", stage, _duration(now - self.starts.get(stage, now)))


_current: ContextVar[Reporter | None] = ContextVar("lakerag_progress", default=None)
_default = LogProgress()


def report(stage: str, done: int, total: int, unit: str = "items") -> None:
    """Tell whoever runs this stage how far it is (``done`` of ``total`` ``unit``)."""
    (_current.get() or _default)(stage, done, total, unit)


def active() -> Reporter:
    """The reporter stages report to now."""
    return _current.get() or _default


def offset(reporter: Reporter, stage: str, before: int, total: int) -> Reporter:
    """A reporter for one batch of a batched stage: the batch's own (done, of its size) become the run's
    (``before`` + done, of ``total``)."""
    def shifted(name: str, done: int, _: int, unit: str) -> None:
        if name == stage:
            reporter(name, before + done, total, unit)

    return shifted


@contextmanager
def reporting(reporter: Reporter) -> Iterator[None]:
    """Send the progress of stages run inside the block to ``reporter``."""
    token = _current.set(reporter)
    try:
        yield
    finally:
        _current.reset(token)
