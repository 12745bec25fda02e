"""Airflow beyond one machine, on this machine (`make cluster-test`; issue 25): real PostgreSQL and redis-server,
the CeleryExecutor and two Celery workers as separate processes, `gpu` serving the queues `default,gpu` and
`cpu` serving `default`, with `LAKERAG_GPU_QUEUE=gpu` routing embedding to the first. The unpaused hourly ingest
starts the DAG chain on the sample corpus (ingest -> index -> transform -> publish). The metadata database must
show tasks run by both workers and every `gpu`-queue task run by the `gpu` worker, and the published snapshot's
tables must equal those of a one-machine `lakerag index` of the same corpus (contents, not run ids or clocks).

The second test is "a second machine": each worker gets a LAKERAG_HOME of its own (CLUSTER_WORKER_HOMES) and
the same LAKERAG_STORE, a moto S3 server the test starts on 127.0.0.1, so the workers share nothing but the
bucket; `LAKERAG_DBT_QUEUE` keeps lakerag_transform on one worker (its dbt tasks build one local DuckDB file).
The chain and the maintenance DAG after it must succeed on both workers, and the snapshot the bucket's pointer
names, copied into a fresh home (a pull, and the API's follower), must equal the one-machine run's.

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

from lakehouse.mirror import pull
from lakehouse.objectstore import ObjectStore
from lakehouse.paths import LakePaths
from lakehouse.snapshots import current_id, snapshot_tables
from tests.fixtures import cluster, s3_server

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


def _run_chain(tmp_path: Path, dags: tuple[str, ...], **extra: str) -> tuple[list[tuple], float, Path]:
    """The cluster on a copy of the sample corpus until every DAG of ``dags`` succeeded (asserted); returns the
    successful task instances (dag, task, map index, hostname, queue), the wall time and the source copy."""
    source = tmp_path / "source"
    shutil.copytree(SAMPLE, source, symlinks=True)
    env = cluster.environment(tmp_path, source, **SETTINGS, LAKERAG_GPU_QUEUE="gpu", LAKERAG_INGEST_SCHEDULE="@hourly",
                              **{"CLUSTER_WORKERS": "gpu=default,gpu cpu=default", **extra})
    started = time.monotonic()
    with cluster.running(tmp_path, env) as airflow:
        runs = airflow.wait(dags, time.monotonic() + CHAIN_TIMEOUT)
        done = {dag_id: runs.get(dag_id, ("missing",))[0] for dag_id in dags}
        tasks = airflow.query("select dag_id, task_id, map_index, hostname, queue from task_instance "
                              "where state = 'success'") if runs else []
        retried = airflow.query("select dag_id, task_id, map_index, try_number from task_instance "
                                "where try_number > 1") if runs else []
        print(airflow.query("select dag_id, run_type, state, start_date, end_date from dag_run order by id"))
    chain_s = time.monotonic() - started
    assert done == dict.fromkeys(dags, "success"), f"{done}\n{airflow.tail()}"
    assert airflow.left == [], "processes the cluster started outlived its stop"
    print(f"\n{len(tasks)} tasks succeeded in {chain_s:.0f} s (load {os.getloadavg()}); retried: {retried}")
    return tasks, chain_s, source


def _by_host(tasks: list[tuple]) -> dict[str, int]:
    by_host: dict[str, int] = {}
    for _dag, _task, _index, host, _queue in tasks:
        by_host[host] = by_host.get(host, 0) + 1
    return by_host


def test_two_celery_workers_run_the_chain_and_publish_the_one_machine_snapshot(tmp_path: Path) -> None:
    tasks, chain_s, source = _run_chain(tmp_path, cluster.CHAIN)

    by_host = _by_host(tasks)
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


def test_chain_through_the_bucket(tmp_path: Path) -> None:
    """Two workers with a home each and one bucket: the chain, then maintenance, publish the one-machine snapshot
    to the bucket, and a fresh home (a pull; the API's follower) sees it."""
    from serving.api.bucket import BucketFollower

    endpoint, moto = s3_server.start(tmp_path / "moto.log")
    try:
        s3_server.make_bucket(endpoint, s3_server.BUCKET)
        url = f"s3://{s3_server.BUCKET}/lakehouse"
        homes = tmp_path / "workers"
        tasks, chain_s, source = _run_chain(
            tmp_path, (*cluster.CHAIN, "lakerag_maintenance"), **s3_server.environment(endpoint),
            LAKERAG_STORE=url, CLUSTER_WORKER_HOMES=str(homes), LAKERAG_DBT_QUEUE="dbt",
            CLUSTER_WORKERS="gpu=default,gpu cpu=default,dbt")
        store = ObjectStore(url, client=s3_server.client(endpoint))
        pointer = store.read_pointer().data
        assert pointer is not None, "the bucket has no published snapshot"
        pulled = LakePaths(tmp_path / "pulled")
        pull(store, pulled)  # a third machine's first pull
        follower = BucketFollower(store, LakePaths(tmp_path / "api"))
        followed = follower.sync()
    finally:
        s3_server.stop(moto)

    by_host = _by_host(tasks)
    assert set(by_host) == {"gpu", "cpu"}, by_host
    assert {(host, queue) for _dag, _task, _index, host, queue in tasks if queue == "gpu"} == {("gpu", "gpu")}
    transform_hosts = {host for dag, _task, _index, host, _queue in tasks if dag == "lakerag_transform"}
    assert transform_hosts == {"cpu"}, transform_hosts  # the one worker serving LAKERAG_DBT_QUEUE
    for name in ("gpu", "cpu"):  # each worker worked in its own home, synced with the bucket
        assert (homes / name / ".objectstore.json").exists(), name
    assert not (tmp_path / "home" / "tables").exists()  # the scheduler's home: no task ran there
    print(f"chain through the bucket on two Celery workers: {chain_s:.0f} s; successful tasks per worker: {by_host}")

    assert current_id(pulled) == followed == pointer["id"]
    assert (LakePaths(tmp_path / "api").snapshots / pointer["id"] / "serving.duckdb").exists()
    expected = _tables(_one_machine(tmp_path, source))
    for got in (_tables(snapshot_tables(pulled)), _tables(snapshot_tables(LakePaths(tmp_path / "api")))):
        assert set(got) == set(expected)
        assert {name for name in expected if got[name] != expected[name]} == set()
    assert len(expected["chunks.parquet"]) > 100
