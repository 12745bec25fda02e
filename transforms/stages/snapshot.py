"""``snapshot``: freeze the committed and indexed tables into an immutable, unpublished candidate snapshot
(hard links; manifest with the run, model ids and counts). Publishing it is the gate's decision
(``serving.evaluation.publish``) or, for ``lakerag index`` without a gate, ``publish_run``."""

from __future__ import annotations

import logging
import time
from collections import Counter

import pyarrow.parquet as pq

from lakehouse.graph_schemas import graph_dir
from lakehouse.objectstore import store_of
from lakehouse.runs import StageRecord, load_stage_records
from lakehouse.snapshots import create_snapshot, publish
from lakehouse.storage import read_json, write_json
from transforms.stages.base import Stage
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)

MARKER = "snapshot.json"  # in the run folder: the candidate frozen from this run


def snapshot_id(ctx: RunContext) -> str | None:
    """The candidate snapshot frozen from the run, if it has been."""
    marker = ctx.paths.run_dir(ctx.run_id) / MARKER
    return read_json(marker)["snapshot_id"] if marker.exists() else None


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    """Freeze once: a retry after success keeps the same snapshot. Needs the run record (written first)."""
    started = time.perf_counter()
    record = StageRecord("snapshot")
    if snapshot_id(ctx) is None:
        frozen = create_snapshot(ctx.paths, ctx.run_id, {"counts": _counts(ctx), "models": _models(ctx)})
        write_json({"snapshot_id": frozen}, ctx.paths.run_dir(ctx.run_id) / MARKER)
        log.info("run %s frozen into candidate snapshot %s", ctx.run_id, frozen)
        record.processed = 1
    else:
        record.skipped = 1
    record.seconds = time.perf_counter() - started
    record.save(ctx.paths, ctx.run_id)
    return record


def publish_run(ctx: RunContext) -> str:
    """Publish the run's snapshot without a gate (``lakerag index``), its dbt marts first when configured."""
    frozen = snapshot_id(ctx)
    if frozen is None:
        raise ValueError(f"run {ctx.run_id} has no snapshot yet")
    if ctx.settings.orchestration.dbt_on_index:  # the serving marts, before anything can read them
        from transforms.dbt_build import build_marts  # deferred: dbt is heavy and optional on this path

        build_marts(ctx.settings, frozen)
    publish(ctx.paths, frozen, keep=ctx.settings.orchestration.snapshot_keep, store=store_of(ctx.settings))
    return frozen


def _counts(ctx: RunContext) -> dict[str, int]:
    run_record = read_json(ctx.paths.run_record(ctx.run_id))
    counts = {k: run_record[k] for k in ("documents_active", "chunks", "quarantined")}
    for name in ("contexts", "vectors"):
        if ctx.paths.table(name).exists():
            counts[name] = pq.read_metadata(ctx.paths.table(name)).num_rows
    graph = graph_dir(ctx.paths.tables)
    for part in sorted(graph.glob("*.parquet")) if graph is not None else []:
        counts[f"graph_{part.stem}"] = pq.read_metadata(part).num_rows
    processed: Counter[str] = Counter()
    for rec in load_stage_records(ctx.paths, ctx.run_id):
        processed[f"stage_{rec.stage}"] += rec.processed
    counts.update(processed)
    return counts


def _models(ctx: RunContext) -> dict:
    st = ctx.settings
    models = {"embedding": st.index.embedding_model, "llm": st.llm.model, "reranker": st.index.reranker_model}
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


STAGE = Stage("snapshot", "snapshot", run)
