"""A run's life across the Airflow DAGs, as plain functions over the lakehouse (no Airflow here).

    ingest:  begin_ingest -> (land, extract, chunk per batch) -> finish_ingest   commit; close if unchanged
    index:   pending_index_run -> every INDEX_STAGES stage -> record -> freeze  a candidate snapshot
    then dbt (transforms.dbt_build) and the gate (transforms.publishing) use that snapshot, never tables/.

Between a commit and its candidate snapshot the run is *pending*: a new ingest (or rebuild) must not commit
then, or the snapshot would mix two runs' tables. State lives on disk: every step can be retried or rerun."""

from __future__ import annotations

import logging
import os

import pyarrow.parquet as pq

from lakehouse import schemas as s
from lakehouse.errors import LakeragError
from lakehouse.paths import LakePaths
from lakehouse.runs import load_stage_records
from lakehouse.settings import Settings
from lakehouse.snapshots import create_snapshot, list_snapshots
from lakehouse.storage import read_json, read_table, write_json
from transforms import pipeline, stages
from transforms.stages import RunContext

log = logging.getLogger(__name__)

CLOSED = "closed.json"        # a run with nothing to index
SNAPSHOT = "snapshot.json"    # the candidate snapshot frozen from a run
CHANGES = "changes.json"      # how many documents the run changes, counted before its commit


DEFAULT_SCHEDULE = "@hourly"


def ingest_schedule() -> str | None:
    """The ingest DAG's schedule: ``LAKERAG_INGEST_SCHEDULE`` (cron or preset; ``none`` for manual runs only).
    The one value Airflow needs at parse time, so it is read from the environment alone: no Settings object,
    no I/O. (Settings.ingest_schedule documents the same variable.)"""
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
    if (latest / CLOSED).exists() or (latest / SNAPSHOT).exists():
        return None
    if (latest / "run.json").exists() and any(latest.name in m.get("source_run_ids", [])
                                              for m in list_snapshots(paths)):
        return None  # finished and snapshotted by the in-process path (`lakerag index`)
    return latest.name


def begin_ingest(settings: Settings, run_id: str | None = None) -> dict:
    """Start (or resume an uncommitted) run and plan it; returns the run id, its batches and how many
    documents changed (noted before the commit, so a retried commit still knows)."""
    paths = LakePaths(settings.home)
    if (pending := pending_index_run(paths)) and pending != run_id:
        raise RunPending(f"run {pending} is committed but not indexed yet (lakerag_index); retry after it")
    ctx = pipeline.start_run(settings, run_id)
    batches = stages.discover(ctx)
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


def run_batch_stage(settings: Settings, run_id: str, stage: str, batch: int) -> int:
    return pipeline.BATCH_STAGES[stage](pipeline.start_run(settings, run_id), batch).processed


def has_changes(ctx: RunContext) -> bool:
    return read_json(ctx.paths.run_dir(ctx.run_id) / CHANGES)["changes"] > 0


def finish_ingest(settings: Settings, run_id: str, force: bool = False) -> dict:
    """Commit the run; with nothing changed (and no ``force``, as a rebuild has), record and close it: there
    is nothing to index. Idempotent."""
    ctx = pipeline.start_run(settings, run_id)
    counts = pipeline.commit_run(ctx)
    changed = force or has_changes(ctx)
    if not changed and not _closed(ctx):
        pipeline.record_run(ctx)
        write_json({"reason": "no changes"}, ctx.paths.run_dir(run_id) / CLOSED)
    return {"run_id": run_id, "changed": changed, **counts}


def _closed(ctx: RunContext) -> bool:
    return (ctx.paths.run_dir(ctx.run_id) / CLOSED).exists()


def run_index_stage(settings: Settings, run_id: str, stage: str) -> int:
    return pipeline.INDEX_STAGES[stage](pipeline.start_run(settings, run_id)).processed


def record(settings: Settings, run_id: str) -> dict:
    """The run record (idempotent: rewriting it replaces the same row of the runs table)."""
    rec = pipeline.record_run(pipeline.start_run(settings, run_id))
    return {k: rec[k] for k in ("run_id", "new", "changed", "moved", "deleted", "documents_active", "chunks")}


def freeze(settings: Settings, run_id: str) -> str:
    """Freeze the tables into an unpublished candidate snapshot with model ids and counts; returns its id.
    A retry after success returns the same snapshot."""
    ctx = pipeline.start_run(settings, run_id)
    marker = ctx.paths.run_dir(run_id) / SNAPSHOT
    if marker.exists():
        return read_json(marker)["snapshot_id"]
    snapshot_id = create_snapshot(ctx.paths, run_id, {"counts": _counts(ctx), "models": _models(ctx)})
    write_json({"snapshot_id": snapshot_id}, marker)
    log.info("run %s frozen into candidate snapshot %s", run_id, snapshot_id)
    return snapshot_id


def _counts(ctx: RunContext) -> dict[str, int]:
    run = read_json(ctx.paths.run_record(ctx.run_id))
    counts = {k: run[k] for k in ("documents_active", "chunks", "quarantined")}
    for name in ("contexts", "vectors"):
        if ctx.paths.table(name).exists():
            counts[name] = pq.read_metadata(ctx.paths.table(name)).num_rows
    pointer = ctx.paths.tables / "graph.json"
    if pointer.exists():
        graph = ctx.paths.tables / read_json(pointer)["dir"]
        for part in sorted(graph.glob("*.parquet")):
            counts[f"graph_{part.stem}"] = pq.read_metadata(part).num_rows
    counts.update({f"stage_{r.stage}": r.processed for r in load_stage_records(ctx.paths, ctx.run_id)
                   if r.stage in pipeline.INDEX_STAGES})
    return counts


def _models(ctx: RunContext) -> dict:
    st = ctx.settings
    models = {"embedding": st.embedding_model, "llm": st.llm_model, "reranker": st.reranker_model}
    if ctx.paths.table("vectors").exists():
        meta = pq.read_schema(ctx.paths.table("vectors")).metadata or {}
        models["embedding_id"] = meta.get(b"model_id", b"").decode()
        models["embedding_dim"] = int(meta.get(b"dim", b"0"))
    if ctx.paths.table("contexts").exists():
        contexts = pq.read_table(ctx.paths.table("contexts"), columns=["model", "prompt_version"])
        models["enrichment"] = sorted({f"{m}/{p}" for m, p in zip(contexts["model"].to_pylist(),
                                                                    contexts["prompt_version"].to_pylist(),
                                                                    strict=True)})
    return models
