"""What the lakerag DAGs share: the assets that chain them, where GPU-bound tasks run (pool and Celery queue),
their default task arguments, and the hostname Celery workers report. Top floor, beside the CLI: only the DAGs
import it (it imports Airflow)."""

from __future__ import annotations

import json
import logging
import os
import socket
import urllib.request
from datetime import timedelta
from typing import Any

from airflow.sdk import Asset

log = logging.getLogger(__name__)

CHUNKS = Asset("lakerag_chunks")          # ingest/rebuild committed a run -> lakerag_index
CANDIDATE = Asset("lakerag_candidate")    # index froze a candidate snapshot -> lakerag_transform
SERVING = Asset("lakerag_serving")        # dbt built the candidate's marts -> lakerag_publish
PUBLISHED = Asset("lakerag_published")    # the gate published a snapshot
GPU_POOL = "lakerag_gpu"
# The DAGs whose runs write the lakehouse: maintenance waits while any of them has a run queued or running.
CHAIN_DAGS = ("lakerag_ingest", "lakerag_rebuild", "lakerag_index", "lakerag_transform", "lakerag_publish")


def stage_asset(stage: str) -> Asset:
    """The lineage asset one index stage updates."""
    return Asset(f"lakerag_{stage}")


def placement(gpu: bool) -> dict[str, str]:
    """Where a stage's tasks run: GPU-bound stages in the `lakerag_gpu` pool and, when ``LAKERAG_GPU_QUEUE`` is
    set (the CeleryExecutor: docker-compose.yml, scripts/cluster.sh), on that queue, which only the workers with
    an accelerator serve. Read from the environment at parse time, as the ingest schedule is; unset keeps every
    task on Airflow's default queue (the embedded default and `make airflow`)."""
    if not gpu:
        return {"pool": "default_pool"}
    queue = os.environ.get("LAKERAG_GPU_QUEUE", "").strip()
    return {"pool": GPU_POOL, **({"queue": queue} if queue else {})}


def dbt_placement() -> dict[str, str]:
    """Where `lakerag_transform` runs: when ``LAKERAG_DBT_QUEUE`` is set, every one of its tasks (locate, the dbt
    models and tests, seal) goes to that Celery queue, which exactly one worker serves. The dbt tasks build one
    local DuckDB file under that worker's home, from paths `locate` resolved there; with a LAKERAG_HOME per
    machine (LAKERAG_STORE) they must all run where it is. Read at parse time, as ``LAKERAG_GPU_QUEUE`` is;
    unset: Airflow's default queue (one machine, or workers sharing one home)."""
    queue = os.environ.get("LAKERAG_DBT_QUEUE", "").strip()
    return {"queue": queue} if queue else {}


def worker_hostname() -> str:
    """Airflow's ``[core] hostname_callable`` for several Celery workers on one machine (scripts/cluster.sh):
    ``LAKERAG_WORKER_NAME`` when set, so each worker's task instances record which worker ran them; otherwise
    the fully qualified domain name, Airflow's own default."""
    return os.environ.get("LAKERAG_WORKER_NAME", "").strip() or socket.getfqdn()


def default_args(retries: int = 3, retry_delay: timedelta = timedelta(seconds=30),
                 max_retry_delay: timedelta = timedelta(minutes=10)) -> dict:
    """Retries with exponential backoff: every task is a transaction that can be rerun."""
    return {"owner": "lakerag", "retries": retries, "retry_delay": retry_delay,
            "retry_exponential_backoff": True, "max_retry_delay": max_retry_delay,
            "on_failure_callback": notify_failure}


def verify_extraction(run_id: str) -> dict:
    """The ingest and rebuild DAGs' `verify` task: the run's extracted and failed counts, or a failed task,
    unretried (a retry extracts nothing more), when no document could be extracted or more than
    ``LAKERAG_MAX_EXTRACT_FAILED_SHARE`` of them failed."""
    from airflow.sdk.exceptions import AirflowFailException

    from lakehouse.settings import get_settings
    from transforms.lifecycle import check_extraction
    from transforms.stages.extract import TooManyFailures

    try:
        return check_extraction(get_settings(), run_id)
    except TooManyFailures as exc:
        raise AirflowFailException(str(exc)) from exc


def running_chain_dags(ti: Any) -> list[str]:
    """The DAGs of ``CHAIN_DAGS`` with a run queued or running, asked through a running task's instance."""
    return [dag_id for dag_id in CHAIN_DAGS if ti.get_dr_count(dag_id=dag_id, states=["queued", "running"])]


def failure_event(context: Any) -> dict:
    """What failed, from an Airflow callback context (a task's, or a DAG run's)."""
    ti = context.get("ti") or context.get("task_instance")
    run = context.get("dag_run")
    dag = context.get("dag")
    exception = context.get("exception") or context.get("reason")
    return {
        "event": "lakerag_failure",
        "dag_id": getattr(dag, "dag_id", None) or getattr(ti, "dag_id", None) or getattr(run, "dag_id", None),
        "run_id": getattr(run, "run_id", None) or getattr(ti, "run_id", None),
        "task_id": getattr(ti, "task_id", None),
        "map_index": getattr(ti, "map_index", None),
        "try_number": getattr(ti, "try_number", None),
        "error": None if exception is None else f"{type(exception).__name__}: {exception}"[:1000]
        if isinstance(exception, BaseException) else str(exception)[:1000],
    }


def notify_failure(context: Any) -> None:
    """The failure callback of every lakerag DAG and task: one structured log line (``lakerag_failure {...}``)
    and, when ``LAKERAG_ALERT_WEBHOOK_URL`` is set, the same JSON POSTed there. Never raises."""
    from lakehouse.settings import get_settings  # read when a task fails, not at parse time

    event = failure_event(context)
    line = json.dumps(event, ensure_ascii=False, default=str)
    log.error("lakerag_failure %s", line)
    url = get_settings().orchestration.alert_webhook_url
    if not url:
        return
    request = urllib.request.Request(url, data=line.encode("utf-8"), method="POST",
                                     headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10):  # noqa: S310 - the operator's own URL
            pass
    except Exception as exc:  # noqa: BLE001 - an alert that cannot be sent must not fail the callback
        log.warning("lakerag_failure webhook %s failed: %s", url, exc)
