"""The registered stages and the in-process runner. ``lakerag index`` and the Airflow DAGs run the same
sequence: ``discover``, then every batched stage over the planned batches, then ``finish``."""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime

from lakehouse import schemas as s
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord, append_run, home_lock, load_stage_records, new_run_id, unfinished_run
from lakehouse.settings import Settings
from lakehouse.storage import read_json, write_json
from graph_index import workflow as graph_workflow
from transforms import indexing, stages
from transforms.commit import commit
from transforms.stages import RunContext

log = logging.getLogger(__name__)

BatchStage = Callable[[RunContext, int], StageRecord]

# Stages that run per batch of changed documents, in order, before the commit.
BATCH_STAGES: dict[str, BatchStage] = {
    "land": stages.land,
    "extract": stages.extract,
    "chunk": stages.chunk,
}

# Stages over the committed chunks, in order, after the commit. Each is cached by content.
INDEX_STAGES: dict[str, Callable[[RunContext], StageRecord]] = {
    "enrich": indexing.enrich,
    "embed": indexing.embed,
    "sparse": indexing.sparse,
    "graph": graph_workflow.graph,
}

# Index stages that want an accelerator: the Airflow DAG runs them in the GPU pool.
GPU_STAGES = frozenset({"embed"})


def start_run(settings: Settings, run_id: str | None = None) -> RunContext:
    """A run context; an interrupted run is resumed under its own id so the tables converge."""
    resumed = run_id or unfinished_run(LakePaths(settings.home))
    if resumed:
        log.info("resuming interrupted run %s", resumed)
    return RunContext(settings=settings, run_id=resumed or new_run_id())


def commit_run(ctx: RunContext) -> dict[str, int]:
    """Fold the run's plan and work products into the tables (idempotent)."""
    started = time.perf_counter()
    counts = commit(ctx)
    write_json(counts, ctx.paths.run_dir(ctx.run_id) / "commit.json")
    StageRecord("commit", seconds=time.perf_counter() - started).save(ctx.paths, ctx.run_id)
    return counts


def finish_run(ctx: RunContext) -> dict:
    """Commit, run the index stages, write the run record; returns it."""
    commit_run(ctx)
    for stage in INDEX_STAGES.values():
        stage(ctx)
    return record_run(ctx)


def record_run(ctx: RunContext) -> dict:
    """Write the run record from the stage records (the run's end marker); returns it."""
    counts = read_json(ctx.paths.run_dir(ctx.run_id) / "commit.json")
    records = load_stage_records(ctx.paths, ctx.run_id)
    stage_seconds: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    errors: list[str] = []
    llm: Counter[str] = Counter()
    for rec in records:
        stage_seconds[rec.stage] += rec.seconds
        totals[rec.stage] += rec.processed
        errors.extend(rec.errors)
        llm.update(rec.usage)
    actions = Counter(ctx.plan()["action"].to_pylist())
    start_info = read_json(ctx.paths.run_dir(ctx.run_id) / "started.json")
    started_at = datetime.fromisoformat(start_info["started_at"])
    finished_at = datetime.now(UTC)
    record = {
        s.RUN_ID: ctx.run_id, "started_at": started_at, "finished_at": finished_at,
        "seconds": round((finished_at - started_at).total_seconds(), 3),
        "source": str(ctx.settings.source),
        **{a: actions[a] for a in ("new", "changed", "moved", "deleted", "unchanged")},
        "extracted": totals["extract"], "chunked": totals["chunk"], "enriched": totals["enrich"],
        "embedded": totals["embed"], "analysed": totals["sparse"],
        "llm_calls": llm["calls"], "llm_prompt_tokens": llm["prompt_tokens"],
        "llm_completion_tokens": llm["completion_tokens"],
        "quarantined": counts["documents_quarantined"],
        "documents_active": counts["documents_active"], "chunks": counts["chunks"],
        "documents_deleted": counts["documents_deleted"],
        "stage_seconds": {k: round(v, 3) for k, v in sorted(stage_seconds.items())},
        "errors": errors,
    }
    append_run(ctx.paths, record)
    log.info("run %s committed: %s", ctx.run_id, json.dumps(record, default=str))
    return record


ProgressHook = Callable[[str, int, int], None]


def publish_snapshot(ctx: RunContext, record: dict) -> str:
    """Freeze the committed tables into a snapshot and publish it (the in-process path has no gate)."""
    from lakehouse.snapshots import create_snapshot, publish

    counts = {k: record[k] for k in ("documents_active", "chunks", "quarantined")}
    snapshot_id = create_snapshot(ctx.paths, ctx.run_id, {"counts": counts, "models": {
        "embedding": ctx.settings.embedding_model, "llm": ctx.settings.llm_model}})
    if getattr(ctx.settings, "dbt_on_index", False):  # the serving marts, before anything can read them
        from transforms.dbt_build import build_marts

        build_marts(ctx.settings, snapshot_id)
    publish(ctx.paths, snapshot_id, keep=ctx.settings.snapshot_keep)
    return snapshot_id


def run_index(settings: Settings, progress: ProgressHook | None = None) -> dict:
    """Run every registered stage in-process, then publish a snapshot; returns the run record."""
    with home_lock(LakePaths(settings.home)):
        ctx = start_run(settings)
        batches = stages.discover(ctx)
        total = len(batches) * len(BATCH_STAGES)
        done = 0
        for name, stage in BATCH_STAGES.items():
            for batch in batches:
                stage(ctx, batch)
                done += 1
                if progress:
                    progress(name, done, total)
        record = finish_run(ctx)
        record["snapshot_id"] = publish_snapshot(ctx, record)
        return record
