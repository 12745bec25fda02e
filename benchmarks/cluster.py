"""The demo's indexing on Airflow's CeleryExecutor: one Celery worker against two (issue 25, "Airflow beyond one
machine"), on the cluster `make cluster-test` starts (scripts/cluster.sh: PostgreSQL, redis-server, the Airflow
services and the workers, all on this machine).

For each configuration a fresh cluster indexes the sample corpus from nothing with the demo's settings (the
default embedding model unless ``--model``), in small batches and shards so that the mapped tasks have something
to spread (``LAKERAG_BATCH_SIZE=10``, ``LAKERAG_INDEX_SHARD_SIZE=100``): the unpaused hourly `lakerag_ingest`
starts at once, `lakerag_index` follows on its asset, and the cluster is stopped when that succeeds. Every worker
has one task slot (``--concurrency``), so one worker is one task at a time and two workers two. No `gpu` queue
(there is no GPU here: a queue only one worker serves would keep embedding on it) and two `lakerag_gpu` pool
slots, so that embed shards may run side by side.

``index_s`` is the time from the ingest run's start to the index run's end, from the metadata database (cluster
start-up excluded); ``ingest_s`` and ``index_dag_s`` are the two runs; ``task_s`` sums the tasks' own durations
and ``busy`` is ``task_s / index_s`` (how many tasks ran at once, on average); ``load`` is `uptime`'s one-minute
load before and after. ``two-omp1`` gives each task one OpenMP thread (the embedding engine otherwise starts one
per core in each of the two processes).

    .venv/bin/python benchmarks/cluster.py [--configs one,two,two-omp1] [--model e5-small]   (make cluster-bench)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _common import print_table, save  # noqa: E402

from tests.fixtures import cluster  # noqa: E402

SAMPLE = ROOT / "sample_corpus" / "documents"
CONFIGS = {"one": ("1 worker", "w1=default", {}), "two": ("2 workers", "w1=default w2=default", {}),
           "two-omp1": ("2 workers, omp=1", "w1=default w2=default", {"OMP_NUM_THREADS": "1"})}
TIMEOUT = 3600


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def _measure(key: str, model: str, scratch: Path) -> dict:
    label, workers, extra = CONFIGS[key]
    root = scratch / key
    env = cluster.environment(root, SAMPLE, LAKERAG_EMBEDDING_MODEL=model, LAKERAG_CALIBRATE="False",
                              LAKERAG_BATCH_SIZE="10", LAKERAG_INDEX_SHARD_SIZE="100",
                              LAKERAG_INGEST_SCHEDULE="@hourly", CLUSTER_WORKERS=workers,
                              AIRFLOW_GPU_POOL_SLOTS="2", **extra)
    root.mkdir(parents=True)
    before, load_before = _uptime(), os.getloadavg()[0]
    with cluster.running(root, env) as airflow:
        runs = airflow.wait(("lakerag_ingest", "lakerag_index"), time.monotonic() + TIMEOUT)
        tasks = airflow.query("select dag_id, hostname, extract(epoch from end_date - start_date) from task_instance "
                              "where state = 'success' and dag_id in ('lakerag_ingest', 'lakerag_index')")
        load_after = os.getloadavg()[0]
        after = _uptime()
    states = {d: runs.get(d, ("missing",))[0] for d in ("lakerag_ingest", "lakerag_index")}
    if set(states.values()) != {"success"}:
        raise SystemExit(f"{label}: {states}\n{airflow.tail()}")
    ingest, index = runs["lakerag_ingest"], runs["lakerag_index"]
    index_s = (index[2] - ingest[1]).total_seconds()
    task_s = sum(float(seconds) for _dag, _host, seconds in tasks)
    per_worker: dict[str, int] = {}
    for _dag, host, _seconds in tasks:
        per_worker[host] = per_worker.get(host, 0) + 1
    return {"config": label, "workers": workers, "index_s": round(index_s, 1),
            "ingest_s": round((ingest[2] - ingest[1]).total_seconds(), 1),
            "index_dag_s": round((index[2] - index[1]).total_seconds(), 1), "task_s": round(task_s, 1),
            "busy": round(task_s / index_s, 2), "tasks_per_worker": per_worker,
            "load": f"{load_before:.1f} -> {load_after:.1f}", "uptime_before": before, "uptime_after": after,
            "left_running": airflow.left}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default="one,two,two-omp1")
    parser.add_argument("--model", default="e5-small", help="LAKERAG_EMBEDDING_MODEL (default: the demo's)")
    args = parser.parse_args()
    if reason := cluster.missing():
        raise SystemExit(reason)
    scratch = Path(tempfile.mkdtemp(prefix="lakerag-cluster-bench-"))
    try:
        rows = [_measure(key, args.model, scratch) for key in args.configs.split(",")]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print_table(rows, ["config", "index_s", "ingest_s", "index_dag_s", "task_s", "busy", "tasks_per_worker", "load"])
    by_label = {row["config"]: row for row in rows}
    ratios = {row["config"]: round(by_label["1 worker"]["index_s"] / row["index_s"], 2)
              for row in rows if "1 worker" in by_label}
    print(f"speed-up over one worker: {ratios}")
    path = save(f"cluster-{args.model}", {"model": args.model, "cpus": os.cpu_count(), "rows": rows,
                                          "speedup_over_one_worker": ratios})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
