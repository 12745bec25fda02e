"""Run ids, per-stage records and run records."""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from lakehouse import schemas as s
from lakehouse.errors import LakeragError
from lakehouse.paths import LakePaths
from lakehouse.storage import read_json, read_table, write_json, write_table


def new_run_id(now: datetime | None = None) -> str:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return f"run_{stamp}_{secrets.token_hex(3)}"


def unfinished_run(paths: LakePaths) -> str | None:
    """The id of the latest run that planned work but never committed (a crash), to resume under."""
    if not paths.runs.exists():
        return None
    started = sorted(d for d in paths.runs.iterdir() if d.is_dir() and (d / "started.json").exists())
    if started and not (started[-1] / "run.json").exists():
        return started[-1].name
    return None


@dataclass
class StageRecord:
    """What one stage did on one batch; several records of a stage are summed in the run record."""

    stage: str
    part: str = "all"
    processed: int = 0
    skipped: int = 0
    failed: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)  # LLM calls and tokens, when the stage used one

    def save(self, paths: LakePaths, run_id: str) -> None:
        write_json(asdict(self), paths.stage_record(run_id, self.stage, self.part))

    def finish(self, paths: LakePaths, run_id: str, started: float, usage: dict[str, int] | None = None,
               ) -> StageRecord:
        """Record the seconds since `started` (a `time.perf_counter()` value) and the LLM usage, save, return self."""
        if usage is not None:
            self.usage = dict(usage)
        self.seconds = time.perf_counter() - started
        self.save(paths, run_id)
        return self


def keep_earlier_attempt(paths: LakePaths, run_id: str, stage: str, part: str) -> int:
    """Before a part runs again under the same run (an Airflow retry, a cleared task), move its earlier record
    aside to ``<stage>-<part>-attempt-<k>.json``, so that the run's totals add both executions' work instead of
    the later one replacing it. Returns the attempt number the coming execution is (1 when it is the first)."""
    target = paths.stage_record(run_id, stage, part)
    earlier = sorted(target.parent.glob(f"{stage}-{part}-attempt-*.json")) if target.parent.exists() else []
    if not target.exists():
        return len(earlier) + 1
    target.replace(paths.stage_record(run_id, stage, f"{part}-attempt-{len(earlier) + 1}"))
    return len(earlier) + 2


def load_stage_records(paths: LakePaths, run_id: str) -> list[StageRecord]:
    folder = paths.run_dir(run_id) / "stages"
    if not folder.exists():
        return []
    return [StageRecord(**read_json(p)) for p in sorted(folder.glob("*.json"))]


@dataclass
class RunRecord:
    """What a run did: document actions, per-stage counts and seconds, LLM usage, table counts, errors; the
    ``runs`` table holds one row of it per finished run, ``runs/<id>/run.json`` the whole record."""

    run_id: str
    started_at: datetime
    finished_at: datetime
    seconds: float
    source: str
    new: int = 0
    changed: int = 0
    moved: int = 0
    deleted: int = 0
    unchanged: int = 0
    extracted: int = 0
    chunked: int = 0
    enriched: int = 0
    embedded: int = 0
    analysed: int = 0
    llm_calls: int = 0
    llm_prompt_tokens: int = 0
    llm_completion_tokens: int = 0
    quarantined: int = 0
    documents_active: int = 0
    chunks: int = 0
    documents_deleted: int = 0
    stage_seconds: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    snapshot_id: str | None = None  # set once the run's snapshot is published in-process

    def as_dict(self) -> dict:
        return asdict(self)


def append_run(paths: LakePaths, record: RunRecord) -> None:
    """Write ``runs/<id>/run.json`` and add the run to the ``runs`` table (replacing a row with the same id)."""
    data = record.as_dict()
    write_json(data, paths.run_record(record.run_id))
    runs = read_table(paths.table("runs"), s.RUNS)
    runs = runs.filter(pc.not_equal(runs[s.RUN_ID], record.run_id))
    row = {**data, "stage_seconds": json.dumps(record.stage_seconds, sort_keys=True)}
    new = pa.Table.from_pylist([{k: row[k] for k in s.RUNS.names}], schema=s.RUNS)
    write_table(pa.concat_tables([runs, new]).sort_by(s.RUN_ID), paths.table("runs"))


def last_run(paths: LakePaths) -> dict | None:
    runs = read_table(paths.table("runs"), s.RUNS)
    if runs.num_rows == 0:
        return None
    return runs.sort_by([("finished_at", "descending")]).slice(0, 1).to_pylist()[0]


@contextmanager
def home_lock(paths: LakePaths) -> Iterator[None]:
    """One writer per lakehouse: a second concurrent run fails fast with a clear message."""
    paths.home.mkdir(parents=True, exist_ok=True)
    lock_file: Path = paths.lock
    fd = os.open(lock_file, os.O_CREAT | os.O_RDWR, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise LakeragError(f"another lakerag run holds {lock_file}; wait for it to finish") from exc
        yield
    finally:
        os.close(fd)
