"""`LAKERAG_GPU_QUEUE` routes the GPU-bound index stages and their shards to a Celery queue (docker-compose.yml,
scripts/cluster.sh); unset, every task stays on Airflow's default queue, as the embedded default needs."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _index_dag():
    from airflow.dag_processing.dagbag import DagBag

    bag = DagBag(dag_folder=str(REPO / "dags" / "lakerag_index.py"))
    assert bag.import_errors == {}
    return bag.dags["lakerag_index"]


@pytest.mark.parametrize("queue", [None, "gpu"])
def test_gpu_stages_and_their_shards_go_to_the_configured_queue(monkeypatch, queue):
    from airflow.configuration import conf

    from transforms.registry import index_stages

    if queue:
        monkeypatch.setenv("LAKERAG_GPU_QUEUE", queue)
    else:
        monkeypatch.delenv("LAKERAG_GPU_QUEUE", raising=False)
    index = _index_dag()
    default = conf.get("operators", "default_queue")
    for stage in index_stages():
        expected = queue if stage.gpu and queue else default
        tasks = [index.get_task(stage.name)] + ([index.get_task(f"{stage.name}_shards")] if stage.shardable else [])
        assert {task.queue for task in tasks} == {expected}, stage.name
    assert index.get_task("resolve").queue == index.get_task("freeze").queue == default


def test_workers_on_one_machine_report_their_own_names(monkeypatch):
    import socket

    from lakerag.orchestration import worker_hostname

    monkeypatch.setenv("LAKERAG_WORKER_NAME", "gpu")
    assert worker_hostname() == "gpu"
    monkeypatch.delenv("LAKERAG_WORKER_NAME")
    assert worker_hostname() == socket.getfqdn()
