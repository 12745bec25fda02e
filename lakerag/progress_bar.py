"""The terminal's progress display for ``lakerag index``: one rich bar per stage, in run order, each with
items done of total, rate and time left (the embedding stage included). A spinner turns while a stage runs and
its rate reads "starting" until its first items are done, so a stage that loads a model before its first batch
visibly works."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from transforms.progress import Reporter


@contextmanager
def stage_bars() -> Iterator[Reporter]:
    """A reporter that draws a bar per stage while the block runs."""
    from rich.progress import (  # deferred: rich is only needed in a terminal
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        SpinnerColumn,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Any) -> Text:
            return Text(rate_text(task.completed, task.finished, task.speed), style="progress.data.speed")

    tasks: dict[str, TaskID] = {}
    with Progress(SpinnerColumn(finished_text="✓"), TextColumn("{task.description:<9}"), BarColumn(),
                  MofNCompleteColumn(), TextColumn("{task.fields[unit]:<9}"), RateColumn(), TimeElapsedColumn(),
                  TextColumn("ETA"), TimeRemainingColumn()) as bar:

        def hook(stage: str, done: int, total: int, unit: str) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total, unit=unit)
            bar.update(tasks[stage], completed=done, total=total, unit=unit)

        yield hook


def rate_text(done: float, finished: bool, speed: float | None) -> str:
    """``12.3/s`` once items are done; ``starting…`` while a stage has done nothing yet (loading a model, say)."""
    if speed:
        return f"{speed:,.1f}/s"
    return "" if finished or done else "starting…"
