"""Airflow beyond one machine, on this machine (`make cluster-test`; issue 25): real PostgreSQL and redis-server,
the CeleryExecutor and two Celery workers as separate processes, `gpu` serving the queues `default,gpu` and
`cpu` serving `default`, with `LAKERAG_GPU_QUEUE=gpu` routing embedding to the first. The unpaused hourly ingest
starts the DAG chain on the sample corpus (ingest -> index -> transform -> publish). The metadata database must
show tasks run by both workers and every `gpu`-queue task run by the `gpu` worker, and the published snapshot's
tables must equal those of a one-machine `lakerag index` of the same corpus (contents, not run ids or clocks).

Opt-in (marker ``cluster``): `make test` and CI skip it with one line (tests/conftest.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakehouse.paths import LakePaths
from lakehouse.snapshots import current_id, snapshot_tables
from tests.fixtures import cluster

SAMPLE = cluster.REPO / "sample_corpus" / "documents"
# A bound for a hung chain, not a target.
CHAIN_TIMEOUT = int(os.environ.get("LAKERAG_TEST_CHAIN_TIMEOUT", "3600"))
# Settings of both runs: small batches and shards, so that the mapped tasks have something to spread.
SETTINGS = {"LAKERAG_EMBEDDING_MODEL": "wordllama", "LAKERAG_CALIBRATE": "False", "LAKERAG_BATCH_SIZE": "10",
            "LAKERAG_INDEX_SHARD_SIZE": "100"}
# Columns holding run ids, clock times or durations; everything else must match row for row.
VARYING = {"first_seen_run", "last_seen_run", "run_id", "extract_seconds"}
SKIPPED_TABLES = {"runs", "manifest"}  # run records: ids, clocks and durations only

pytestmark = [pytest.mark.cluster, pytest.mark.integration, pytest.mark.slow]


def _tables(folder: Path) -> dict[str, list[dict]]:
    """Every table by its path (run-named folders, ``graph-<run>/`` and ``sparse-<run>/``, by their kind), rows
    without the varying columns, in a stable order."""
    tables = {}
    for path in sorted(folder.rglob("*.parquet")):
        if path.stem in SKIPPED_TABLES:
            continue
        table = pq.read_table(path)
        rows = table.drop_columns([c for c in table.column_names if c in VARYING]).to_pylist()
        name = re.sub(r"^(graph|sparse)-[^/]+/", r"\1/", str(path.relative_to(folder)))
        tables[name] = sorted(rows, key=repr)
    return tables


def _one_machine(root: Path, source: Path) -> Path:
    """The embedded default: `lakerag index` in one process, same corpus and settings."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("LAKERAG_")}, **SETTINGS,
           "LAKERAG_HOME": str(root / "one"), "LAKERAG_SOURCE": str(source)}
    subprocess.run([str(cluster.BIN / "lakerag"), "index"], env=env, check=True, capture_output=True, timeout=1800)
    return snapshot_tables(LakePaths(root / "one"))


def test_two_celery_workers_run_the_chain_and_publish_the_one_machine_snapshot(tmp_path: Path) -> None:
    source = tmp_path / "source"
    shutil.copytree(SAMPLE, source, symlinks=True)
    env = cluster.environment(tmp_path, source, **SETTINGS, LAKERAG_GPU_QUEUE="gpu", LAKERAG_INGEST_SCHEDULE="@hourly",
                              CLUSTER_WORKERS="gpu=default,gpu cpu=default")
    started = time.monotonic()
    with cluster.running(tmp_path, env) as airflow:
        runs = airflow.wait(cluster.CHAIN, time.monotonic() + CHAIN_TIMEOUT)
        done = {dag_id: runs.get(dag_id, ("missing",))[0] for dag_id in cluster.CHAIN}
        tasks = airflow.query("select dag_id, task_id, map_index, hostname, queue from task_instance "
                              "where state = 'success'") if runs else []
    chain_s = time.monotonic() - started
    assert done == dict.fromkeys(cluster.CHAIN, "success"), f"{done}\n{airflow.tail()}"
    assert airflow.left == [], "processes the cluster started outlived its stop"

    by_host: dict[str, int] = {}
    for _dag, _task, _index, host, _queue in tasks:
        by_host[host] = by_host.get(host, 0) + 1
    assert set(by_host) == {"gpu", "cpu"}, by_host  # tasks ran on both workers, and nowhere else
    on_gpu_queue = [(task, index, host) for _dag, task, index, host, queue in tasks if queue == "gpu"]
    assert {task for task, _index, _host in on_gpu_queue} >= {"embed", "embed_shards"}, on_gpu_queue
    assert {host for _task, _index, host in on_gpu_queue} == {"gpu"}, on_gpu_queue
    print(f"\nchain on two Celery workers: {chain_s:.0f} s; successful tasks per worker: {by_host}")

    published = snapshot_tables(LakePaths(tmp_path / "home"), current_id(LakePaths(tmp_path / "home")))
    expected = _tables(_one_machine(tmp_path, source))
    got = _tables(published)
    assert set(got) == set(expected)
    assert {name for name in expected if got[name] != expected[name]} == set()
    assert len(expected["chunks.parquet"]) > 100
