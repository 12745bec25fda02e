"""A run's life across the Airflow DAGs, as plain functions over the lakehouse (no Airflow here).

    ingest:  begin_ingest -> (land, extract, chunk per batch) -> finish_ingest   commit; close if unchanged
    index:   pending_index_run -> every index stage of the registry -> record -> freeze (the snapshot stage);
             a shardable stage first fans out: plan_shards -> run_index_shard per shard -> run_index_stage
    then dbt (transforms.dbt_build) and the gate (serving.evaluation.publish) use that snapshot, never tables/.

With ``LAKERAG_STORE`` set, each of these functions (each an Airflow task) pulls the bucket into the local home
before it starts and pushes what it committed after (``lakehouse.mirror.synced``), so any worker can run it.

Between a commit and its candidate snapshot the run is *pending*: a new ingest (or rebuild) must not commit
then, or the snapshot would mix two runs' tables. State lives on disk: every step can be retried or rerun."""

from __future__ import annotations

import logging
import math
import os
import time

from lakehouse import schemas as s
from lakehouse.errors import LakeragError
from lakehouse.mirror import synced
from lakehouse.part_cache import shard_of
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord, keep_earlier_attempt
from lakehouse.settings import Settings
from lakehouse.snapshots import list_snapshots
from lakehouse.storage import read_json, read_table, write_json
from transforms import pipeline, registry
from transforms.stages import commit, extract, snapshot
from transforms.stages.base import Stage, shard_part
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)

CLOSED = "closed.json"        # a run with nothing to index
CHANGES = "changes.json"      # how many documents the run changes, counted before its commit


DEFAULT_SCHEDULE = "@hourly"


def ingest_schedule() -> str | None:
    """The ingest DAG's schedule: ``LAKERAG_INGEST_SCHEDULE`` (cron or preset; ``none`` for manual runs only).
    The one value Airflow needs at parse time, so it is read from the environment alone: no Settings object,
    no I/O. (``Settings.orchestration.ingest_schedule`` documents the same variable.)"""
    value = os.environ.get("LAKERAG_INGEST_SCHEDULE", DEFAULT_SCHEDULE).strip()
    return None if value.lower() in ("", "none", "manual") else value


class RunPending(LakeragError):
    """A committed run has no candidate snapshot yet; committing another now would race with its indexing."""


def _run_dirs(paths: LakePaths) -> list:
    """Started runs, oldest first (by start time: two run ids of the same second do not sort by time)."""
    if not paths.runs.exists():
        return []
    started = [d for d in paths.runs.glob("run_*") if (d / "started.json").exists()]
    return sorted(started, key=lambda d: (read_json(d / "started.json")["started_at"], d.name))


def pending_index_run(paths: LakePaths) -> str | None:
    """The latest committed run that is neither closed nor frozen into a snapshot (the index DAG's work)."""
    committed = [d for d in _run_dirs(paths) if (d / "commit.json").exists()]
    if not committed:
        return None
    latest = committed[-1]
    if (latest / CLOSED).exists() or (latest / snapshot.MARKER).exists():
        return None
    if (latest / "run.json").exists() and any(latest.name in m.get("source_run_ids", [])
                                              for m in list_snapshots(paths)):
        return None  # finished and snapshotted by the in-process path (`lakerag index`)
    return latest.name


@synced
def resolve_index_run(settings: Settings) -> str | None:
    """``pending_index_run`` of the settings' home, after a pull (the index DAG's first task)."""
    return pending_index_run(LakePaths(settings.home))


@synced
def begin_ingest(settings: Settings, run_id: str | None = None) -> dict:
    """Start (or resume an uncommitted) run and plan it; returns the run id, its batches and how many
    documents changed (noted before the commit, so a retried commit still knows)."""
    paths = LakePaths(settings.home)
    if (pending := pending_index_run(paths)) and pending != run_id:
        raise RunPending(f"run {pending} is committed but not indexed yet (lakerag_index); retry after it")
    ctx = pipeline.start_run(settings, run_id)
    registry.stage("discover").run(ctx, None)
    batches = ctx.batches()
    changes = _count_changes(ctx)
    write_json({"changes": changes}, paths.run_dir(ctx.run_id) / CHANGES)
    return {"run_id": ctx.run_id, "batches": batches, "changes": changes}


def _count_changes(ctx: RunContext) -> int:
    """Documents whose serving state this run changes: new, changed, moved, deleted, newly quarantined, or
    with work to redo (a rebuild, a new extraction capability)."""
    documents = read_table(ctx.paths.table("documents"), s.DOCUMENTS)
    current = documents.filter(documents["is_current"])
    status = dict(zip(current[s.DOCUMENT_ID].to_pylist(), current[s.STATUS].to_pylist(), strict=True))
    plan = ctx.plan().select([s.DOCUMENT_ID, "action", "batch"]).to_pylist()
    touched = ("new", "changed", "moved", "deleted")
    return sum(1 for row in plan if row["batch"] >= 0 or row["action"] in touched
               or (row["action"] == "quarantined" and status.get(row[s.DOCUMENT_ID]) != s.STATUS_QUARANTINED))


@synced
def run_batch_stage(settings: Settings, run_id: str, stage: str, batch: int) -> int:
    chosen = registry.stage(stage)
    if not chosen.batched:
        raise ValueError(f"stage {stage!r} is not mapped over batches")
    return chosen.run(pipeline.start_run(settings, run_id), batch).processed


@synced
def check_extraction(settings: Settings, run_id: str) -> dict:
    """After every batch's extraction: the run's extracted and failed counts; raises
    ``extract.TooManyFailures`` when none could be extracted or too large a share failed."""
    return extract.check_failures(pipeline.start_run(settings, run_id))


def has_changes(ctx: RunContext) -> bool:
    return read_json(ctx.paths.run_dir(ctx.run_id) / CHANGES)["changes"] > 0


@synced
def finish_ingest(settings: Settings, run_id: str, force: bool = False) -> dict:
    """Commit the run; with nothing changed (and no ``force``, as a rebuild has), record and close it: there
    is nothing to index. Idempotent."""
    ctx = pipeline.start_run(settings, run_id)
    registry.stage("commit").run(ctx, None)
    counts = commit.counts(ctx)
    changed = force or has_changes(ctx)
    if not changed and not _closed(ctx):
        pipeline.record_run(ctx)
        write_json({"reason": "no changes"}, ctx.paths.run_dir(run_id) / CLOSED)
    return {"run_id": run_id, "changed": changed, **counts}


def _closed(ctx: RunContext) -> bool:
    return (ctx.paths.run_dir(ctx.run_id) / CLOSED).exists()


def _index_stage(stage: str) -> Stage:
    chosen = registry.stage(stage)
    if chosen.phase != "index":
        raise ValueError(f"stage {stage!r} is not an index stage")
    return chosen


@synced
def run_index_stage(settings: Settings, run_id: str, stage: str) -> int:
    """The whole stage; after its shards, the merge: it finds their work cached, writes the tables, compacts."""
    return _index_stage(stage).run(pipeline.start_run(settings, run_id), None).processed


@synced
def plan_shards(settings: Settings, run_id: str, stage: str) -> int:
    """How many shards a shardable index stage's missing work splits into for this run: one per
    ``LAKERAG_INDEX_SHARD_SIZE`` missing cache entries, at most ``LAKERAG_INDEX_MAX_SHARDS``; 0 when nothing is
    missing (or the stage does not shard). Shard ``i`` of ``n`` computes the keys ``shard_of(key, n) == i``."""
    chosen = _index_stage(stage)
    if chosen.sharding is None:
        return 0
    todo = len(chosen.sharding.missing(pipeline.start_run(settings, run_id)))
    orchestration = settings.orchestration
    return min(orchestration.index_max_shards, math.ceil(todo / orchestration.index_shard_size))


@synced
def run_index_shard(settings: Settings, run_id: str, stage: str, shard: int, shards: int) -> int:
    """One shard of a stage: its missing cache entries computed and appended, no table written, nothing
    compacted (``run_index_stage`` is the merge that follows every shard); returns how many it computed."""
    chosen = _index_stage(stage)
    if chosen.sharding is None:
        raise ValueError(f"stage {stage!r} does not shard")
    if not 0 <= shard < shards:
        raise ValueError(f"shard {shard} is not one of 0..{shards - 1}")
    ctx, part = pipeline.start_run(settings, run_id), shard_part(shard, shards)
    attempt = keep_earlier_attempt(ctx.paths, run_id, stage, part)
    sharding = chosen.sharding
    mine = {k for k in sharding.missing(ctx) if shard_of(k, shards) == shard} if sharding.counts else set()
    started = time.perf_counter()
    try:
        return sharding.run(ctx, shard, shards).processed
    except Exception as exc:
        # what the attempt flushed before it failed stays cached and its retry skips it: count it here, or the
        # run's totals would never hold it
        left = {k for k in sharding.missing(ctx) if shard_of(k, shards) == shard} if sharding.counts else set()
        error = f"{stage} {part}, attempt {attempt} (retried): {type(exc).__name__}: {exc}"
        failed = StageRecord(stage, part=f"{part}-attempt-{attempt}", processed=len(mine - left), failed=1,
                             errors=[error[:1000]])
        failed.finish(ctx.paths, run_id, started)
        raise


@synced
def record(settings: Settings, run_id: str) -> dict:
    """The run record (idempotent: rewriting it replaces the same row of the runs table)."""
    rec = pipeline.record_run(pipeline.start_run(settings, run_id)).as_dict()
    return {k: rec[k] for k in ("run_id", "new", "changed", "moved", "deleted", "documents_active", "chunks")}


@synced
def freeze(settings: Settings, run_id: str) -> str:
    """Freeze the tables into an unpublished candidate snapshot with model ids and counts; returns its id.
    A retry after success returns the same snapshot."""
    ctx = pipeline.start_run(settings, run_id)
    registry.stage("snapshot").run(ctx, None)
    frozen = snapshot.snapshot_id(ctx)
    if frozen is None:  # the stage has just written it; a missing marker means the disk lost it
        raise RuntimeError(f"run {run_id}: the snapshot stage left no marker")
    return frozen
