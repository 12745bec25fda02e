"""The in-process runner. ``lakerag index`` and the Airflow DAGs run the same registered stages
(``transforms.registry``): ``discover``, every batched stage over the planned batches, ``commit``, every index
stage, the run record, then ``snapshot``."""

from __future__ import annotations

import json
import logging
from collections import Counter
from datetime import UTC, datetime

from lakehouse import mirror
from lakehouse.erasures import refuse_if_erasing
from lakehouse.objectstore import store_of
from lakehouse.paths import LakePaths
from lakehouse.runs import RunRecord, append_run, home_lock, load_stage_records, new_run_id, unfinished_run
from lakehouse.settings import Settings
from lakehouse.storage import read_json
from transforms import registry
from transforms.progress import STEP, LogProgress, Reporter, active, offset, report, reporting
from transforms.stages import commit, snapshot
from transforms.stages.base import Stage
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)



def start_run(settings: Settings, run_id: str | None = None) -> RunContext:
    """A run context; an interrupted run is resumed under its own id so the tables converge. Refused while an
    interrupted erasure waits (its documents could be ingested again before their hashes are blocked)."""
    refuse_if_erasing(LakePaths(settings.home))
    resumed = run_id or unfinished_run(LakePaths(settings.home))
    if resumed:
        log.info("resuming interrupted run %s", resumed)
    return RunContext(settings=settings, run_id=resumed or new_run_id())


def finish_run(ctx: RunContext) -> RunRecord:
    """Commit, run the index stages, write the run record; returns it."""
    _run_whole(ctx, registry.stage("commit"))
    for stage in registry.index_stages():
        _run_whole(ctx, stage)
    return record_run(ctx)


def _run_whole(ctx: RunContext, stage: Stage) -> None:
    """A stage that is not batched, reported as one step (stages with many items also report those)."""
    report(stage.name, 0, 1, STEP)
    stage.run(ctx, None)
    _push(ctx)
    report(stage.name, 1, 1, STEP)


def _push(ctx: RunContext) -> None:
    """With ``LAKERAG_STORE``: what the stage committed goes to the bucket (``lakehouse.mirror``)."""
    if (store := store_of(ctx.settings)) is not None:
        mirror.push(store, ctx.paths)


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
        stage_seconds={k: round(stage_seconds[k], 3) for k in _run_order(stage_seconds)}, errors=errors)
    append_run(ctx.paths, record)
    log.info("run %s committed: %s", ctx.run_id, json.dumps(record.as_dict(), default=str))
    return record


def _run_order(stage_seconds: Counter[str]) -> list[str]:
    """Stage names in the order the registry runs them (then any unknown name, alphabetically)."""
    order = [stage.name for stage in registry.STAGES]
    return sorted(stage_seconds, key=lambda name: (order.index(name) if name in order else len(order), name))


def run_index(settings: Settings, progress: Reporter | None = None) -> RunRecord:
    """Run every registered stage in-process, then publish the run's snapshot; returns the run record.
    ``progress`` receives (stage, done, total, unit) as stages advance (default: log lines, see
    ``transforms.progress``)."""
    with home_lock(LakePaths(settings.home)), reporting(progress or LogProgress()):
        if (store := store_of(settings)) is not None:  # start from the bucket's committed state
            mirror.pull(store, LakePaths(settings.home))
        ctx = start_run(settings)
        if not commit.committed(ctx):  # a resumed run that already committed keeps its plan (and its counts)
            _run_whole(ctx, registry.stage("discover"))
            _run_batches(ctx)
        record = finish_run(ctx)
        _run_whole(ctx, registry.stage("snapshot"))
        record.snapshot_id = snapshot.publish_run(ctx)
        return record


def _run_batches(ctx: RunContext) -> None:
    """Every batched stage over the planned batches, reported in documents."""
    sizes = {batch: len(ctx.batch_rows(batch)) for batch in ctx.batches()}
    total = sum(sizes.values())
    for stage in registry.batch_stages():
        done = 0
        report(stage.name, done, total, "documents")
        for batch, size in sizes.items():
            with reporting(offset(active(), stage.name, done, total)):  # documents within the batch
                stage.run(ctx, batch)
            done += size
            report(stage.name, done, total, "documents")
        _push(ctx)
