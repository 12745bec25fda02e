"""Progress reports: one log line per stage every N items or every 10 seconds, with rate and time left."""

from __future__ import annotations

import logging

import pytest

from transforms.progress import LogProgress, report, reporting


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_line_every_n_items_or_ten_seconds_with_rate_and_eta(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    progress = LogProgress(every_items=100, every_seconds=10, clock=clock)
    with caplog.at_level(logging.INFO, logger="transforms.progress"):
        progress("embed", 0, 400, "chunks")
        for done in range(1, 401):
            clock.now = done * 0.05  # 20 chunks a second
            progress("embed", done, 400, "chunks")
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == "embed: 400 chunks to do"
    assert lines[1] == "embed: 100/400 chunks (25%), 20.0/s, ETA 15s"
    assert lines[-1] == "embed: 400/400 chunks (100%), 20.0/s"
    assert len(lines) == 5
    with caplog.at_level(logging.INFO, logger="transforms.progress"):
        progress("commit", 0, 1, "step")
        clock.now += 2.5
        progress("commit", 1, 1, "step")
    assert [r.getMessage() for r in caplog.records][-2:] == ["commit: started", "commit: done in 2.5s"]
    caplog.clear()
    slow = LogProgress(every_items=1000, every_seconds=10, clock=clock)
    with caplog.at_level(logging.INFO, logger="transforms.progress"):
        clock.now = 0.0
        slow("enrich", 0, 50, "chunks")
        for done in range(1, 50):
            clock.now = done * 3.0  # an LLM call every 3 s: a line every 10 s, not every 1000 items
            slow("enrich", done, 50, "chunks")
    assert [r.getMessage() for r in caplog.records][1:3] == ["enrich: 4/50 chunks (8%), 0.3/s, ETA 2m18s",
                                                             "enrich: 8/50 chunks (16%), 0.3/s, ETA 2m06s"]


def test_reports_go_to_the_reporter_of_the_run() -> None:
    seen: list[tuple[str, int, int, str]] = []
    with reporting(lambda *args: seen.append(args)):
        report("sparse", 3, 9, "chunks")
    report("sparse", 4, 9, "chunks")  # outside: the default log reporter
    assert seen == [("sparse", 3, 9, "chunks")]
