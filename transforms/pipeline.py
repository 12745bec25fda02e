"""The in-process runner. ``lakerag index`` and the Airflow DAGs run the same registered stages
(``transforms.registry``): ``discover``, every batched stage over the planned batches, ``commit``, every index
stage, the run record, then ``snapshot``."""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime

from lakehouse.paths import LakePaths
from lakehouse.runs import RunRecord, append_run, home_lock, load_stage_records, new_run_id, unfinished_run
from lakehouse.settings import Settings
from lakehouse.storage import read_json
from transforms import registry
from transforms.stages import commit, snapshot
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)

ProgressHook = Callable[[str, int, int], None]


def start_run(settings: Settings, run_id: str | None = None) -> RunContext:
    """A run context; an interrupted run is resumed under its own id so the tables converge."""
    resumed = run_id or unfinished_run(LakePaths(settings.home))
    if resumed:
        log.info("resuming interrupted run %s", resumed)
    return RunContext(settings=settings, run_id=resumed or new_run_id())


def finish_run(ctx: RunContext) -> RunRecord:
    """Commit, run the index stages, write the run record; returns it."""
    registry.stage("commit").run(ctx, None)
    for stage in registry.index_stages():
        stage.run(ctx, None)
    return record_run(ctx)


def record_run(ctx: RunContext) -> RunRecord:
    """Write the run record from the stage records (the run's end marker); returns it."""
    counts = commit.counts(ctx)
    stage_seconds: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    errors: list[str] = []
    llm: Counter[str] = Counter()
    for rec in load_stage_records(ctx.paths, ctx.run_id):
        stage_seconds[rec.stage] += rec.seconds
        totals[rec.stage] += rec.processed
        errors.extend(rec.errors)
        llm.update(rec.usage)
    actions = Counter(ctx.plan()["action"].to_pylist())
    started_at = datetime.fromisoformat(read_json(ctx.paths.run_dir(ctx.run_id) / "started.json")["started_at"])
    finished_at = datetime.now(UTC)
    record = RunRecord(
        run_id=ctx.run_id, started_at=started_at, finished_at=finished_at,
        seconds=round((finished_at - started_at).total_seconds(), 3), source=str(ctx.settings.source),
        new=actions["new"], changed=actions["changed"], moved=actions["moved"], deleted=actions["deleted"],
        unchanged=actions["unchanged"],
        extracted=totals["extract"], chunked=totals["chunk"], enriched=totals["enrich"],
        embedded=totals["embed"], analysed=totals["sparse"],
        llm_calls=llm["calls"], llm_prompt_tokens=llm["prompt_tokens"],
        llm_completion_tokens=llm["completion_tokens"],
        quarantined=counts["documents_quarantined"], documents_active=counts["documents_active"],
        chunks=counts["chunks"], documents_deleted=counts["documents_deleted"],
        stage_seconds={k: round(v, 3) for k, v in sorted(stage_seconds.items())}, errors=errors)
    append_run(ctx.paths, record)
    log.info("run %s committed: %s", ctx.run_id, json.dumps(record.as_dict(), default=str))
    return record


def run_index(settings: Settings, progress: ProgressHook | None = None) -> RunRecord:
    """Run every registered stage in-process, then publish the run's snapshot; returns the run record."""
    with home_lock(LakePaths(settings.home)):
        ctx = start_run(settings)
        if not commit.committed(ctx):  # a resumed run that already committed keeps its plan (and its counts)
            registry.stage("discover").run(ctx, None)
            batches = ctx.batches()
            batched = registry.batch_stages()
            total, done = len(batches) * len(batched), 0
            for stage in batched:
                for batch in batches:
                    stage.run(ctx, batch)
                    done += 1
                    if progress:
                        progress(stage.name, done, total)
        record = finish_run(ctx)
        registry.stage("snapshot").run(ctx, None)
        record.snapshot_id = snapshot.publish_run(ctx)
        return record
