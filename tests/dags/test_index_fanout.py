"""lakerag_index under dag.test() with its stages fanned out: the embed and graph shards run as mapped tasks,
each merge then computes nothing, and the candidate snapshot holds the same tables as an unsharded run's; with
nothing missing, the shard tasks map over nothing and the merges still run."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakehouse.paths import LakePaths
from lakehouse.runs import load_stage_records
from lakehouse.snapshots import latest_id, snapshot_tables
from tests.fixtures.corpora import write_corpus

REPO = Path(__file__).resolve().parents[2]
# Tables whose rows carry run ids or clock times; everything else must match row for row.
TIMED = {"runs", "documents", "quarantine", "extracted", "manifest"}

pytestmark = pytest.mark.integration


def _unsharded_snapshot(root: Path, source: Path) -> Path:
    """The same corpus indexed in-process, stage after stage, with no shards."""
    from lakehouse.settings import Settings
    from transforms import lifecycle
    from transforms.registry import index_stages

    settings = Settings(home=root / "plain", source=source, embedding_model="wordllama")
    plan = lifecycle.begin_ingest(settings)
    for batch in plan["batches"]:
        for stage in ("land", "extract", "chunk"):
            lifecycle.run_batch_stage(settings, plan["run_id"], stage, batch)
    lifecycle.finish_ingest(settings, plan["run_id"])
    for stage in index_stages():
        lifecycle.run_index_stage(settings, plan["run_id"], stage.name)
    lifecycle.record(settings, plan["run_id"])
    return snapshot_tables(LakePaths(settings.home), lifecycle.freeze(settings, plan["run_id"]))


def _tables(folder: Path) -> dict[str, list[dict]]:
    """Every table by its path, versioned folders (named after the run) by their set: ``graph/``, ``sparse/``."""
    return {re.sub(r"^(graph|sparse)-[^/]+/", r"\1/", str(p.relative_to(folder))): pq.read_table(p).to_pylist()
            for p in sorted(folder.rglob("*.parquet")) if p.stem not in TIMED}


def test_index_maps_shards_then_merges_into_the_same_snapshot_tables(tmp_path, airflow_db, monkeypatch):
    from airflow.dag_processing.dagbag import DagBag

    from lakehouse.settings import get_settings

    source = write_corpus(tmp_path / "source")
    paths = LakePaths(tmp_path / "home")
    monkeypatch.setenv("LAKERAG_HOME", str(paths.home))
    monkeypatch.setenv("LAKERAG_SOURCE", str(source))
    monkeypatch.setenv("LAKERAG_INDEX_SHARD_SIZE", "3")
    monkeypatch.setenv("LAKERAG_INDEX_MAX_SHARDS", "3")
    get_settings.cache_clear()
    try:
        dags = DagBag(dag_folder=str(REPO / "dags")).dags
        assert dags["lakerag_ingest"].test().state == "success"
        run = dags["lakerag_index"].test()
        run_id, snapshot_id = next(p.name for p in paths.runs.glob("run_*")), latest_id(paths)
        # A rebuild from `sparse` drops the caches from it on (the graph's too); embed's are all there.
        assert dags["lakerag_rebuild"].test(run_conf={"full": False, "path_prefix": "", "from_stage": "sparse"}
                                            ).state == "success"
        again = {ti.task_id: ti.state for ti in dags["lakerag_index"].test().get_task_instances()}
    finally:
        get_settings.cache_clear()
    instances = run.get_task_instances()
    assert run.state == "success", {(ti.task_id, ti.map_index): ti.state for ti in instances}
    for stage in ("embed", "graph"):
        shards = [ti for ti in instances if ti.task_id == f"{stage}_shards"]
        assert sorted(ti.map_index for ti in shards) == [0, 1, 2] and {ti.state for ti in shards} == {"success"}
    assert {ti.state for ti in instances if ti.task_id == "enrich_shards"} == {"skipped"}  # no LLM: no calls to spread
    merges = {r.stage: r.processed for r in load_stage_records(paths, run_id) if r.part == "all"}
    assert merges["embed"] == merges["graph"] == 0  # the shards computed everything
    shards_done = sum(r.processed for r in load_stage_records(paths, run_id) if r.stage == "embed")
    assert shards_done > 3
    assert snapshot_id is not None
    sharded, plain = _tables(snapshot_tables(paths, snapshot_id)), _tables(_unsharded_snapshot(tmp_path, source))
    assert {"vectors.parquet", "contexts.parquet", "chunks.parquet"} <= set(sharded)
    assert {"graph/entities.parquet", "graph/relationships.parquet", "graph/communities.parquet"} <= set(sharded)
    assert sharded == plain
    assert again["embed_shards"] == "skipped" and again["graph_shards"] == "success"  # nothing to map for embed
    assert again["embed"] == again["graph"] == again["freeze"] == "success"
