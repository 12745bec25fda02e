"""The DAGs import cleanly, follow the house rules, and are wired to each other through assets."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DAG_IDS = {"lakerag_ingest", "lakerag_index", "lakerag_transform", "lakerag_publish", "lakerag_rebuild",
           "lakerag_maintenance"}


@pytest.fixture(scope="module")
def dagbag():
    from airflow.dag_processing.dagbag import DagBag

    return DagBag(dag_folder=str(REPO / "dags"))


def _schedule_assets(dag) -> set[str]:
    return {asset.name for asset in dag.schedule} if isinstance(dag.schedule, list) else set()


def _outlets(dag, task_id: str) -> set[str]:
    return {asset.name for asset in dag.get_task(task_id).outlets}


def test_dags_import_without_errors_and_follow_the_rules(dagbag):
    assert dagbag.import_errors == {}
    assert set(dagbag.dags) == DAG_IDS
    for dag_id, dag in dagbag.dags.items():
        assert Path(dag.fileloc).stem == dag_id
        assert dag.tags and "lakerag" in dag.tags, dag_id
        assert dag.doc_md and dag.max_active_runs == 1, dag_id
        assert not dag.catchup, dag_id
        for task in dag.tasks:
            assert task.retries >= 1, f"{dag_id}.{task.task_id}"
            assert task.retry_exponential_backoff or task.retry_policy, f"{dag_id}.{task.task_id}"


def test_dag_files_are_thin_and_read_no_settings_at_parse_time():
    for path in (REPO / "dags").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) < 100, path.name
        head = text.split("@dag(")[0]
        assert "get_settings" not in head and "os.environ" not in head, path.name
        assert "from airflow.sdk" in text and "airflow.decorators" not in text, path.name


def test_assets_chain_ingest_index_transform_publish(dagbag):
    ingest, index, transform, publish, rebuild = (dagbag.dags[d] for d in (
        "lakerag_ingest", "lakerag_index", "lakerag_transform", "lakerag_publish", "lakerag_rebuild"))
    assert ingest.schedule == "@hourly" and rebuild.schedule is None
    assert _schedule_assets(index) == _outlets(ingest, "chunks_ready") == _outlets(rebuild, "commit")
    assert _schedule_assets(transform) == _outlets(index, "freeze")
    assert _schedule_assets(publish) == _outlets(transform, "seal")


def test_maintenance_erases_queued_requests_then_collects_garbage_after_each_publish(dagbag):
    maintenance = dagbag.dags["lakerag_maintenance"]
    assert maintenance.get_task("erase_pending").downstream_task_ids == {"gc"}
    idle = maintenance.get_task("idle")  # waits for a running chain without holding a worker slot
    assert idle.downstream_task_ids == {"erase_pending"} and idle.mode == "reschedule" and idle.soft_fail
    assert "lakerag_published" in str(maintenance.timetable.asset_condition)


def test_index_runs_every_registered_stage_in_order_with_gpu_stages_in_their_pool(dagbag):
    from transforms.registry import index_stages

    stages = index_stages()
    index = dagbag.dags["lakerag_index"]
    chain = [t.task_id for t in index.topological_sort() if t.task_id in {s.name for s in stages}]
    assert chain == [s.name for s in stages] == ["enrich", "embed", "ann", "sparse", "graph", "describe", "pages"]
    for stage in stages:
        assert (index.get_task(stage.name).pool == "lakerag_gpu") == stage.gpu
    assert [s.name for s in stages if s.gpu] == ["embed", "pages"]


def test_index_fans_shardable_stages_out_before_their_merge_in_the_same_pool(dagbag):
    from transforms.registry import index_stages

    index = dagbag.dags["lakerag_index"]
    shardable = [s for s in index_stages() if s.shardable]
    assert [s.name for s in shardable] == ["enrich", "embed", "graph"]
    for stage in shardable:
        plan, shards, merge = (index.get_task(f"{stage.name}{suffix}") for suffix in ("_plan", "_shards", ""))
        assert plan.downstream_task_ids == {shards.task_id} and merge.task_id in shards.downstream_task_ids
        assert shards.pool == merge.pool == ("lakerag_gpu" if stage.gpu else "default_pool")
        assert merge.trigger_rule == "none_failed_min_one_success"  # no shards (all cached): still merges
        assert type(shards).__name__.endswith("MappedOperator")


def test_transform_renders_every_dbt_model_from_the_committed_manifest_one_task_at_a_time(dagbag):
    import json

    from transforms.dbt_build import MANIFEST

    transform = dagbag.dags["lakerag_transform"]
    assert transform.max_active_tasks == 1
    nodes = json.loads(MANIFEST.read_text())["nodes"].values()
    models = {n["name"] for n in nodes if n["resource_type"] == "model"}
    rendered = {t.task_id.removeprefix("marts.").removesuffix("_run") for t in transform.tasks}
    assert models <= rendered and "marts.dbt_project_test" in {t.task_id for t in transform.tasks}


def test_rebuild_offers_full_prefix_and_stage_params(dagbag):
    from transforms.rebuild import stage_order

    params = dagbag.dags["lakerag_rebuild"].params
    assert params["full"] is False and params["path_prefix"] == ""
    assert params.get_param("from_stage").schema["enum"] == ["", *stage_order()]


def test_ingest_schedule_comes_from_the_environment(monkeypatch):
    from transforms.lifecycle import ingest_schedule

    monkeypatch.delenv("LAKERAG_INGEST_SCHEDULE", raising=False)
    assert ingest_schedule() == "@hourly"
    monkeypatch.setenv("LAKERAG_INGEST_SCHEDULE", "*/15 * * * *")
    assert ingest_schedule() == "*/15 * * * *"
    monkeypatch.setenv("LAKERAG_INGEST_SCHEDULE", "none")
    assert ingest_schedule() is None


def test_every_dag_and_task_has_the_failure_callback(dagbag, monkeypatch, caplog):
    import http.server
    import json
    import logging
    import threading
    from types import SimpleNamespace

    from lakehouse.settings import get_settings
    from lakerag.orchestration import notify_failure

    def listed(callback) -> list:
        return callback if isinstance(callback, list) else [callback]

    for dag in dagbag.dags.values():
        assert notify_failure in listed(dag.on_failure_callback), dag.dag_id
        for task in dag.tasks:
            assert notify_failure in listed(task.on_failure_callback), (dag.dag_id, task.task_id)
    received: list[dict] = []

    class Hook(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            received.append(json.loads(self.rfile.read(int(self.headers["content-length"]))))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("LAKERAG_ALERT_WEBHOOK_URL", f"http://127.0.0.1:{server.server_port}/hook")
    get_settings.cache_clear()
    ti = SimpleNamespace(dag_id="lakerag_index", run_id="manual__1", task_id="embed", map_index=-1, try_number=2)
    try:
        with caplog.at_level(logging.ERROR, logger="lakerag.orchestration"):
            notify_failure({"ti": ti, "exception": MemoryError("Unable to allocate 39.1 GiB")})
    finally:
        server.shutdown()
        get_settings.cache_clear()
    line = next(r.getMessage() for r in caplog.records if r.getMessage().startswith("lakerag_failure "))
    event = json.loads(line.removeprefix("lakerag_failure "))
    assert event == {"event": "lakerag_failure", "dag_id": "lakerag_index", "run_id": "manual__1", "task_id": "embed",
                     "map_index": -1, "try_number": 2, "error": "MemoryError: Unable to allocate 39.1 GiB"}
    assert received == [event]


def test_ingest_and_rebuild_verify_the_extraction_before_chunking(dagbag):
    for dag_id in ("lakerag_ingest", "lakerag_rebuild"):
        dag = dagbag.dags[dag_id]
        assert dag.get_task("extract").downstream_task_ids == {"verify"}
        assert dag.get_task("verify").downstream_task_ids == {"chunk"}
