"""
### lakerag_maintenance

Daily, and after every publish (`lakerag_published`). Three tasks, in order:

* `idle`: waits (a sensor in reschedule mode: it holds no worker slot) while a lakerag run is in progress: a run of
  `lakerag_ingest`, `lakerag_rebuild`, `lakerag_index`, `lakerag_transform` or `lakerag_publish`, or a lakehouse
  run that is started and not committed, or committed and not yet indexed. After six hours of waiting it skips,
  and the next schedule or publish tries again;
* `erase_pending`: carry out the erasures queued through `POST /v1/admin/erasures` (the same as
  `lakerag erase --pending`): each removes its target from every table, cache, run record and snapshot,
  publishes a new snapshot and appends a receipt to `erasures/receipts.jsonl`;
* `gc`: purge what was retired more than `LAKERAG_RETENTION_DAYS` ago (the same as `lakerag gc`).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import AssetOrTimeSchedule, PokeReturnValue, dag, task
from airflow.timetables.trigger import CronTriggerTimetable

from lakerag.orchestration import PUBLISHED, default_args, notify_failure, running_chain_dags

DEFAULT_ARGS = default_args(retries=6, retry_delay=timedelta(minutes=5), max_retry_delay=timedelta(hours=1))
SCHEDULE = AssetOrTimeSchedule(timetable=CronTriggerTimetable("0 3 * * *", timezone="UTC"), assets=[PUBLISHED])


@dag(dag_id="lakerag_maintenance", schedule=SCHEDULE, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
     catchup=False, max_active_runs=1, default_args=DEFAULT_ARGS, on_failure_callback=notify_failure,
     tags=["lakerag", "maintenance"],
     doc_md=__doc__)
def lakerag_maintenance() -> None:
    @task.sensor(poke_interval=30, timeout=timedelta(hours=6).total_seconds(), mode="reschedule", soft_fail=True)
    def idle(**context) -> PokeReturnValue:
        """Done when no lakerag DAG run and no lakehouse run is in progress."""
        from lakehouse.settings import get_settings
        from transforms.purge.maintenance import busy

        running = running_chain_dags(context["ti"]) + [busy(get_settings())]
        return PokeReturnValue(is_done=not any(running), xcom_value=None)

    @task
    def erase_pending() -> int:
        """Carry out the queued erasure requests; returns how many."""
        from lakehouse.settings import get_settings
        from transforms.purge import run_pending

        return len(run_pending(get_settings()))

    @task
    def gc() -> dict:
        """Purge retired content past retention; returns the receipt (counts only)."""
        from lakehouse.settings import get_settings
        from transforms.purge import collect_garbage

        return collect_garbage(get_settings(), requested_by="lakerag_maintenance")

    idle() >> erase_pending() >> gc()


lakerag_maintenance()
