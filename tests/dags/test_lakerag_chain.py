"""The DAG chain end to end with dag.test() on the sample corpus: ingest -> index -> transform (dbt through
Cosmos) -> publish, then an incremental chain after an edit, an addition and a deletion, then a worse index
that the gate refuses while the published snapshot keeps serving, then a rollback."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from lakehouse.paths import LakePaths
from lakehouse.snapshots import current_id, read_manifest, snapshot_dir, snapshot_tables

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_corpus" / "documents"
CHAIN = ("lakerag_ingest", "lakerag_index", "lakerag_transform", "lakerag_publish")
UNCITED = "Diversos/FAQ Financeiro - Dúvidas Frequentes.md"  # labelled questions cite it only beside another document
ADDED = "Diversos/Comunicado Estacionamento.md"

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def lake(tmp_path_factory, airflow_db):
    """A lakehouse over a writable copy of the sample corpus, with the four DAGs parsed once."""
    from airflow.dag_processing.dagbag import DagBag

    from lakehouse.settings import get_settings

    root = tmp_path_factory.mktemp("chain")
    source = root / "source"
    shutil.copytree(SAMPLE, source, symlinks=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LAKERAG_HOME", str(root / "home"))
        mp.setenv("LAKERAG_SOURCE", str(source))
        mp.setenv("LAKERAG_BATCH_SIZE", "20")
        get_settings.cache_clear()
        dags = DagBag(dag_folder=str(REPO / "dags")).dags
        yield {"paths": LakePaths(root / "home"), "source": source, "dags": dags, "timings": {}}
    get_settings.cache_clear()


def run_chain(lake: dict, label: str, dag_ids: tuple[str, ...] = CHAIN) -> dict[str, object]:
    started = time.perf_counter()
    runs = {}
    for dag_id in dag_ids:
        runs[dag_id] = lake["dags"][dag_id].test() if dag_id in lake["dags"] else build_marts_in_process()
    lake["timings"][label] = round(time.perf_counter() - started, 1)
    return runs


def build_marts_in_process():
    """The transform step without Cosmos (same dbt project, one `dbt build`): cheaper where the DAG is not the
    subject of the test."""
    from lakehouse.settings import get_settings
    from transforms.dbt_build import build_marts

    build_marts(get_settings())


def states(run) -> dict[str, str]:
    return {ti.task_id: ti.state for ti in run.get_task_instances()}


def serving(paths: LakePaths, snapshot_id: str | None = None) -> duckdb.DuckDBPyConnection:
    snapshot_id = snapshot_id or current_id(paths)
    return duckdb.connect(str(snapshot_dir(paths, snapshot_id) / "serving.duckdb"), read_only=True)


def test_full_chain_publishes_a_snapshot_with_marts_and_scores(lake):
    runs = run_chain(lake, "full")
    assert {dag_id: run.state for dag_id, run in runs.items()} == dict.fromkeys(CHAIN, "success"), {
        dag_id: states(run) for dag_id, run in runs.items()}
    paths = lake["paths"]
    snapshot_id = current_id(paths)
    assert snapshot_id is not None
    manifest = read_manifest(paths, snapshot_id)
    assert manifest["gate"]["passed"] and manifest["gate"]["current_id"] is None
    assert manifest["evaluation"]["metrics"]["hit@5"] > 0.5
    assert manifest["models"]["embedding"] == "wordllama" and manifest["models"]["embedding_dim"] > 0
    assert manifest["counts"]["chunks"] == manifest["marts"]["counts"]["chunks"] > 100
    with serving(paths) as con:
        statuses = dict(con.execute("select status, count(*) from catalog group by all").fetchall())
        assert statuses["active"] >= 40 and statuses["quarantined"] >= 5
        assert con.execute("select count(*) from catalog where status = 'active' and chunk_count = 0"
                           ).fetchone()[0] == 0
        assert con.execute("select active_documents_without_chunks from quality_summary").fetchone()[0] == 0
    lake["first"] = snapshot_id


def test_incremental_chain_reflects_an_edit_an_addition_and_a_deletion(lake):
    source, paths = lake["source"], lake["paths"]
    edited = next(p for p in sorted(source.rglob("*.md")) if p.is_file() and "Diversos" not in p.parts)
    edited.write_text(edited.read_text(encoding="utf-8") + "\n\nParágrafo acrescentado: zebra-azul-7.\n",
                      encoding="utf-8")
    (source / ADDED).write_text("# Comunicado do Estacionamento\n\nO estacionamento do bloco B fecha às 22h "
                                "a partir de janeiro; crachá obrigatório.\n", encoding="utf-8")
    (source / UNCITED).unlink()

    runs = run_chain(lake, "incremental")
    assert all(run.state == "success" for run in runs.values()), {d: states(r) for d, r in runs.items()}
    snapshot_id = current_id(paths)
    assert snapshot_id != lake["first"]
    record = read_manifest(paths, snapshot_id)["source_run_ids"][0]
    run = json.loads(paths.run_record(record).read_text())
    assert (run["new"], run["changed"], run["deleted"], run["extracted"]) == (1, 1, 1, 2)
    with serving(paths) as con:
        catalog = {p: s for p, s in con.execute("select path, status from catalog").fetchall()}
        assert catalog[ADDED] == "active" and UNCITED not in catalog
        texts = " ".join(t for (t,) in con.execute("select text from chunks").fetchall())
        assert "zebra-azul-7" in texts and "bloco B fecha" in texts
    chunks = pq.read_table(snapshot_tables(paths) / "chunks.parquet").to_pylist()
    assert {c["path"] for c in chunks} >= {ADDED} and UNCITED not in {c["path"] for c in chunks}
    # The first snapshot is untouched: it still holds the deleted document.
    with serving(paths, lake["first"]) as con:
        assert con.execute("select count(*) from catalog where path = ?", [UNCITED]).fetchone()[0] == 1
    lake["second"] = snapshot_id


def test_gate_refuses_a_worse_snapshot_and_the_published_one_keeps_serving(lake):
    from serving.search.index import SearchIndex

    paths = lake["paths"]
    shutil.rmtree(lake["source"] / "Contratos")  # a third of the labelled questions cite these contracts
    runs = run_chain(lake, "refused", ("lakerag_ingest", "lakerag_index", "dbt build", "lakerag_publish"))
    assert [runs[d].state for d in CHAIN[:2]] == ["success"] * 2
    assert runs["lakerag_publish"].state == "failed"
    assert states(runs["lakerag_publish"])["gate"] == "failed"
    assert current_id(paths) == lake["second"]
    candidate = max(p.name for p in (paths.home / "snapshots").glob("snap_*"))
    gate = read_manifest(paths, candidate)["gate"]
    assert not gate["passed"] and any(row["worse"] for row in gate["rows"])
    assert any(p.startswith("Contratos/") for p in SearchIndex.load(snapshot_tables(paths)).paths)


def test_nothing_changed_closes_the_run_and_index_has_nothing_to_do(lake):
    ingest, index = lake["dags"]["lakerag_ingest"].test(), lake["dags"]["lakerag_index"].test()
    assert ingest.state == index.state == "success"
    assert states(ingest)["chunks_ready"] == "skipped" and states(index)["resolve"] == "skipped"


def test_rollback_publishes_an_older_snapshot(lake):
    from lakerag.cli import main

    paths = lake["paths"]
    assert main(["snapshots", "rollback", lake["first"], "--home", str(paths.home)]) == 0
    assert current_id(paths) == lake["first"]
    with serving(paths) as con:
        assert con.execute("select count(*) from catalog where path = ?", [UNCITED]).fetchone()[0] == 1
    print(f"\nchain wall times (s): {lake['timings']}")


def test_rebuild_from_a_stage_recomputes_it_and_bad_params_fail_without_retries(lake):
    from transforms.lifecycle import pending_index_run

    paths, rebuild = lake["paths"], lake["dags"]["lakerag_rebuild"]
    bad = rebuild.test(run_conf={"full": True, "from_stage": "embed"})
    assert bad.state == "failed" and states(bad)["prepare"] == "failed"
    assert pending_index_run(paths) is None
    # Every param explicitly: dag.test() keeps the previous run's conf in the DAG object's params.
    run = rebuild.test(run_conf={"full": False, "path_prefix": "", "from_stage": "sparse"})
    assert run.state == "success" and not (paths.cache / "tokens").exists()
    pending = pending_index_run(paths)
    assert pending is not None
    index = lake["dags"]["lakerag_index"].test()
    assert index.state == "success" and (paths.cache / "tokens").exists()
    assert read_manifest(paths, max(p.name for p in (paths.home / "snapshots").glob("snap_*")))[
        "source_run_ids"] == [pending]
