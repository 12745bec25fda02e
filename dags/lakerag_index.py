"""
### lakerag_index

Scheduled on the `lakerag_chunks` asset. Runs every index stage of the registry (`transforms.registry`: contexts,
dense vectors, BM25, the graph...) in order over the committed chunks of the pending run, writes the run record,
and freezes the tables into an unpublished candidate snapshot: the `lakerag_candidate` asset (`lakerag_transform`).

* Every stage is cached by content: a run after a 1% change does about 1% of the work.
* Fan-out: embed, the graph and LLM contexts plan shards (`<stage>_plan`: one per `LAKERAG_INDEX_SHARD_SIZE`
  missing cache entries, at most `LAKERAG_INDEX_MAX_SHARDS`); `<stage>_shards` fill disjoint shares of its cache;
  the stage task then merges (writes the table, compacts). A failed shard is retried alone; reruns redo nothing.
* GPU stages and shards: pool `lakerag_gpu`, queue `LAKERAG_GPU_QUEUE` if set; a stage updates `lakerag_<stage>`.
* Idempotent: rerunning a stage rewrites the same tables; `freeze` returns the same snapshot when retried.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import dag, task
from airflow.sdk.exceptions import AirflowSkipException

from lakerag.orchestration import CANDIDATE, CHUNKS, default_args, notify_failure, placement, stage_asset
from transforms.registry import index_stages

DEFAULT_ARGS = default_args()


@dag(dag_id="lakerag_index", schedule=[CHUNKS], start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
     catchup=False, max_active_runs=1, default_args=DEFAULT_ARGS, on_failure_callback=notify_failure,
     tags=["lakerag", "index"], doc_md=__doc__)
def lakerag_index() -> None:
    @task
    def resolve() -> str:
        """The committed run waiting to be indexed (skips when there is none)."""
        from lakehouse.settings import get_settings
        from transforms.lifecycle import resolve_index_run

        run_id = resolve_index_run(get_settings())
        if run_id is None:
            raise AirflowSkipException("no committed run is waiting to be indexed")
        return run_id

    @task
    def index_stage(run: str, stage: str) -> int:
        """One index stage over the committed chunks (cached by content; after shards, the merge)."""
        from lakehouse.settings import get_settings
        from transforms.lifecycle import run_index_stage

        return run_index_stage(get_settings(), run, stage)

    @task
    def plan(run: str, stage: str) -> list[int]:
        """The shards the stage's missing work splits into, 0..n-1 (none when everything is cached)."""
        from lakehouse.settings import get_settings
        from transforms.lifecycle import plan_shards

        return list(range(plan_shards(get_settings(), run, stage)))

    @task
    def shard(run: str, stage: str, planned: list[int], shard: int) -> int:
        """One shard of ``planned``: the stage's missing cache entries that hash to it (no table, no compaction)."""
        from lakehouse.settings import get_settings
        from transforms.lifecycle import run_index_shard

        return run_index_shard(get_settings(), run, stage, shard, len(planned))

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

    previous = run = resolve()
    for stage in index_stages():
        where = placement(stage.gpu)
        if stage.shardable:  # no shards (all cached) skips the mapped task, not the merge
            planned = plan.override(task_id=f"{stage.name}_plan")(run, stage.name)
            previous = previous >> planned >> shard.override(task_id=f"{stage.name}_shards", **where).partial(
                run=run, stage=stage.name, planned=planned).expand(shard=planned)
        previous = previous >> index_stage.override(
            task_id=stage.name, **where, outlets=[stage_asset(stage.name)],
            trigger_rule="none_failed_min_one_success" if stage.shardable else "all_success")(run, stage.name)
    previous >> record(run) >> freeze(run)


lakerag_index()
