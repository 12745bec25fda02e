"""A maintenance run: after gc or erasure has rewritten the committed tables, run every index stage again (they
rebuild the contexts, vectors, BM25 postings and graph from the tables, reusing cached work), write a run
record, freeze a new snapshot and publish it. Its plan is empty, so its commit changes nothing."""

from __future__ import annotations

import logging
import shutil
from datetime import UTC, datetime

from lakehouse import schemas as s
from lakehouse.mirror import synced
from lakehouse.paths import LakePaths
from lakehouse.runs import new_run_id, unfinished_run
from lakehouse.settings import Settings
from lakehouse.snapshots import current_id, read_manifest, snapshot_dir
from lakehouse.storage import read_json, remove_strays, write_json, write_table
from transforms import lifecycle, pipeline, registry
from transforms.stages import snapshot
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)


def busy_run(paths: LakePaths) -> str | None:
    """The run in progress (started and not committed, or committed and not yet indexed), if any."""
    return unfinished_run(paths) or lifecycle.pending_index_run(paths)


@synced
def busy(settings: Settings) -> str | None:
    """``busy_run`` of the settings' home, after a pull (the maintenance DAG's `idle` sensor): with
    ``LAKERAG_STORE``, a worker that ran none of the chain's tasks sees the runs other workers started."""
    return busy_run(LakePaths(settings.home))


def discard_interrupted_maintenance(paths: LakePaths) -> int:
    """Remove the folder of a maintenance run that a crash interrupted (its gc or erasure was killed while it
    indexed): its plan was empty and the tables are as that command left them, so the command's rerun starts a
    new one instead of refusing to run until `lakerag index` resumes it. Returns how many were removed."""
    removed = 0
    while (busy := busy_run(paths)) is not None and _maintenance(paths, busy):
        shutil.rmtree(paths.run_dir(busy))
        removed += 1
    return removed


def remove_interrupted_writes(paths: LakePaths) -> int:
    """Temporary files and staging folders that a killed writer left in the index side's folders (tables, run
    records, snapshots, raw bytes; the API writes none of them). The caller holds the home lock and has checked
    that no run is in progress."""
    return sum(remove_strays(root) for root in (paths.tables, paths.runs, paths.snapshots, paths.raw))


def _maintenance(paths: LakePaths, run_id: str) -> bool:
    started = paths.run_dir(run_id) / "started.json"
    return started.exists() and bool(read_json(started).get("maintenance"))


def refuse_if_busy(paths: LakePaths) -> None:
    """A run in progress (interrupted, or committed and not yet indexed) must finish first; one of gc's or
    erasure's own maintenance runs that was interrupted is discarded (``discard_interrupted_maintenance``)."""
    discard_interrupted_maintenance(paths)
    if (busy := busy_run(paths)) is not None:
        raise lifecycle.RunPending(f"run {busy} is not finished; run `lakerag index` (or let the DAGs finish) "
                                   "before gc or erasure")


def _as_published(settings: Settings) -> Settings:
    """Maintenance keeps the published embedding model and dbt marts: it removes content, it does not
    reconfigure."""
    paths = LakePaths(settings.home)
    current = current_id(paths)
    model = read_manifest(paths, current).get("models", {}).get("embedding") if current else None
    if model and model != settings.index.embedding_model:
        log.info("maintenance run keeps the published embedding model %s (configured: %s)", model,
                 settings.index.embedding_model)
        settings = settings.replace(embedding_model=model)
    if current and (snapshot_dir(paths, current) / "serving.duckdb").exists():
        settings = settings.replace(dbt_on_index=True)  # the new snapshot gets the marts the API reads
    return settings


def republish(settings: Settings) -> tuple[str, str]:
    """Index the current tables again and publish the result; returns (run id, snapshot id). The caller holds
    the home lock."""
    settings = _as_published(settings)
    ctx = RunContext(settings=settings, run_id=new_run_id())
    paths = ctx.paths
    write_json({"run_id": ctx.run_id, "source": str(settings.source), "started_at": datetime.now(UTC).isoformat(),
                "maintenance": True}, paths.run_dir(ctx.run_id) / "started.json")
    write_table(s.PLAN.empty_table(), paths.plan(ctx.run_id))
    pipeline.finish_run(ctx)
    registry.stage("snapshot").run(ctx, None)
    published = snapshot.publish_run(ctx)
    log.info("maintenance run %s published snapshot %s", ctx.run_id, published)
    return ctx.run_id, published
