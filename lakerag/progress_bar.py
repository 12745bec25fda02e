"""The terminal's progress display for ``lakerag index``: one rich bar per stage, in run order, each with
items done of total, rate and time left (the embedding stage included)."""

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
        TaskID,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Any) -> Text:
            return Text(f"{task.speed:,.1f}/s" if task.speed else "", style="progress.data.speed")

    tasks: dict[str, TaskID] = {}
    with Progress(TextColumn("{task.description:<9}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[unit]:<9}"), RateColumn(), TimeElapsedColumn(), TextColumn("ETA"),
                  TimeRemainingColumn()) as bar:

        def hook(stage: str, done: int, total: int, unit: str) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total, unit=unit)
            bar.update(tasks[stage], completed=done, total=total, unit=unit)

        yield hook
