"""
### lakerag_index

Scheduled on the `lakerag_chunks` asset. Runs every index stage of the registry (`transforms.registry`) in
order (contexts, dense vectors, BM25, and any stage registered there, such as the graph) over the committed
chunks of the pending run, writes the run record, and freezes the tables into an unpublished candidate
snapshot: the `lakerag_candidate` asset, which schedules `lakerag_transform`.

* Every stage is cached by content: a run after a 1% change does about 1% of the work.
* GPU-bound stages (declared `gpu=True` in the registry) run in the `lakerag_gpu` pool: size it to your accelerators.
* Each stage task updates its own asset (`lakerag_<stage>`) for lineage.
* Idempotent: rerunning a stage rewrites the same tables; `freeze` returns the same snapshot when retried.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import dag, task
from airflow.sdk.exceptions import AirflowSkipException

from lakerag.orchestration import CANDIDATE, CHUNKS, GPU_POOL, default_args, notify_failure, stage_asset
from transforms.registry import index_stages

DEFAULT_ARGS = default_args()


@dag(dag_id="lakerag_index", schedule=[CHUNKS], start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
     catchup=False, max_active_runs=1, default_args=DEFAULT_ARGS, on_failure_callback=notify_failure,
     tags=["lakerag", "index"], doc_md=__doc__)
def lakerag_index() -> None:
    @task
    def resolve() -> str:
        """The committed run waiting to be indexed (skips when there is none)."""
        from lakehouse.paths import LakePaths
        from lakehouse.settings import get_settings
        from transforms.lifecycle import pending_index_run

        run_id = pending_index_run(LakePaths(get_settings().home))
        if run_id is None:
            raise AirflowSkipException("no committed run is waiting to be indexed")
        return run_id

    @task
    def index_stage(run: str, stage: str) -> int:
        """One index stage over the committed chunks (cached by content); returns how many it computed."""
        from lakehouse.settings import get_settings
        from transforms.lifecycle import run_index_stage

        return run_index_stage(get_settings(), run, stage)

    @task
    def record(run: str) -> dict:
        """Write the run record: counts per stage, durations, errors, LLM tokens."""
        from lakehouse.settings import get_settings
        from transforms.lifecycle import record as record_run

        return record_run(get_settings(), run)

    @task(outlets=[CANDIDATE])
    def freeze(run: str, **context) -> str:
        """Freeze the tables into an unpublished candidate snapshot (manifest: runs, model ids, counts)."""
        from lakehouse.settings import get_settings
        from transforms.lifecycle import freeze as freeze_run

        snapshot_id = freeze_run(get_settings(), run)
        context["outlet_events"][CANDIDATE].extra = {"run_id": run, "snapshot_id": snapshot_id}
        return snapshot_id

    run = resolve()
    previous = run
    for stage in index_stages():
        step = index_stage.override(task_id=stage.name, pool=GPU_POOL if stage.gpu else "default_pool",
                                    outlets=[stage_asset(stage.name)])(run, stage.name)
        previous >> step
        previous = step
    previous >> record(run) >> freeze(run)


lakerag_index()
