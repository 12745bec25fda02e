"""The ingest DAG: it imports cleanly, follows the house rules, and runs end to end with dag.test()."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakehouse.paths import LakePaths

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dagbag():
    from airflow.dag_processing.dagbag import DagBag

    return DagBag(dag_folder=str(REPO / "dags"))


def test_dags_import_without_errors_and_follow_the_rules(dagbag):
    assert dagbag.import_errors == {}
    for dag_id, dag in dagbag.dags.items():
        assert Path(dag.fileloc).stem == dag_id
        assert dag.tags and "lakerag" in dag.tags
        assert dag.doc_md
        assert all(t.retries >= 1 for t in dag.tasks), dag_id
    ingest = dagbag.dags["lakerag_ingest"]
    assert ingest.max_active_runs == 1


def test_dag_files_read_no_settings_at_parse_time():
    for path in (REPO / "dags").glob("*.py"):
        head = path.read_text(encoding="utf-8").split("@dag(")[0]
        assert "get_settings" not in head and "os.environ" not in head, path.name


@pytest.mark.integration
def test_dag_run_ingests_the_sample_corpus_then_an_incremental_run(airflow_db, corpus, tmp_path, monkeypatch):

    from lakehouse.settings import get_settings

    home = tmp_path / "home"
    monkeypatch.setenv("LAKERAG_HOME", str(home))
    monkeypatch.setenv("LAKERAG_SOURCE", str(corpus))
    monkeypatch.setenv("LAKERAG_BATCH_SIZE", "10")
    get_settings.cache_clear()
    from airflow.dag_processing.dagbag import DagBag

    dag = DagBag(dag_folder=str(REPO / "dags")).dags["lakerag_ingest"]
    run = dag.test()
    assert run.state == "success"
    ti_states = {ti.task_id: ti.state for ti in run.get_task_instances()}
    assert ti_states["commit"] == ti_states["record"] == ti_states["embed"] == "success"
    paths = LakePaths(home)
    record = json.loads(next(paths.runs.glob("*/run.json")).read_text())
    documents = [d for d in pq.read_table(paths.table("documents")).to_pylist() if d["is_current"]]
    assert record["new"] >= 40 and len(documents) >= record["new"]
    assert record["extracted"] > 30 and record["chunks"] > 100
    assert {d["status"] for d in documents} == {"active", "quarantined"}

    # Edit one document, then run again: exactly one extraction.
    target = next(p for p in sorted(corpus.rglob("*.md")) if p.is_file())
    target.write_text(target.read_text(encoding="utf-8") + "\n\nParágrafo acrescentado.\n", encoding="utf-8")
    second = dag.test()
    assert second.state == "success"
    records = sorted(paths.runs.glob("*/run.json"))
    latest = max((json.loads(p.read_text()) for p in records), key=lambda r: r["finished_at"])
    assert (latest["changed"], latest["extracted"]) == (1, 1)
    get_settings.cache_clear()
