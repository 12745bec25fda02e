"""
### lakerag_ingest

Discovers what changed in the source folder (new, changed, moved, deleted files), then lands, extracts and chunks
only the changed content, mapped over batches of documents, commits the lakehouse tables, and refreshes the
retrieval index over the committed chunks: contexts (`enrich`), dense vectors (`embed`) and BM25 (`sparse`), each
cached by content so only new or changed chunks cost anything. `record` writes the run record that ends the run.

* Every task is idempotent: work is keyed by content hash and written atomically, so a retry or a rerun after a
  crash converges to the same tables (an interrupted run is resumed under its own run id).
* Bad files are quarantined with a reason (see `lakerag status`); they never fail the run.
* Settings come from `LAKERAG_*` environment variables, read when a task runs, never at parse time.
* Only small values cross XCom: the run id and batch numbers.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import dag, task

DEFAULT_ARGS = {
    "owner": "lakerag",
    "retries": 2,
    "retry_delay": timedelta(seconds=30),
    "retry_exponential_backoff": True,
}


@dag(
    dag_id="lakerag_ingest",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    default_args=DEFAULT_ARGS,
    tags=["lakerag", "ingest"],
    doc_md=__doc__,
)
def lakerag_ingest() -> None:
    @task
    def discover() -> dict:
        """Scan the source and write this run's plan; returns the run id and the batches to process."""
        from lakehouse.settings import get_settings
        from transforms import pipeline, stages

        ctx = pipeline.start_run(get_settings())
        return {"run_id": ctx.run_id, "batches": stages.discover(ctx)}

    @task
    def batches(plan: dict) -> list[int]:
        return plan["batches"]

    @task
    def extract(plan: dict, batch: int) -> int:
        """Land the raw bytes of one batch and extract Markdown and metadata (skipping cached hashes)."""
        from lakehouse.settings import get_settings
        from transforms import pipeline

        ctx = pipeline.start_run(get_settings(), plan["run_id"])
        pipeline.BATCH_STAGES["land"](ctx, batch)
        return pipeline.BATCH_STAGES["extract"](ctx, batch).processed

    @task
    def chunk(plan: dict, batch: int) -> int:
        """Split one batch's extracted documents into structure-aware chunks."""
        from lakehouse.settings import get_settings
        from transforms import pipeline

        ctx = pipeline.start_run(get_settings(), plan["run_id"])
        return pipeline.BATCH_STAGES["chunk"](ctx, batch).processed

    @task(trigger_rule="none_failed")
    def commit(plan: dict) -> dict:
        """Fold the run into the documents, extracted, chunks and quarantine tables."""
        from lakehouse.settings import get_settings
        from transforms import pipeline

        return pipeline.commit_run(pipeline.start_run(get_settings(), plan["run_id"]))

    @task
    def index_stage(plan: dict, stage: str) -> int:
        """One index stage (enrich, embed or sparse) over the committed chunks."""
        from lakehouse.settings import get_settings
        from transforms import pipeline

        return pipeline.INDEX_STAGES[stage](pipeline.start_run(get_settings(), plan["run_id"])).processed

    @task
    def record(plan: dict) -> dict:
        """Write the run record (counts per stage, durations, errors, LLM tokens)."""
        from lakehouse.settings import get_settings
        from transforms import pipeline

        result = pipeline.record_run(pipeline.start_run(get_settings(), plan["run_id"]))
        return {k: result[k] for k in ("run_id", "new", "changed", "deleted", "extracted", "embedded")}

    plan = discover()
    todo = batches(plan)
    extracted = extract.partial(plan=plan).expand(batch=todo)
    chunked = chunk.partial(plan=plan).expand(batch=todo)
    committed = commit(plan)
    enriched = index_stage.override(task_id="enrich")(plan, "enrich")
    embedded = index_stage.override(task_id="embed")(plan, "embed")
    analysed = index_stage.override(task_id="sparse")(plan, "sparse")
    extracted >> chunked >> committed >> enriched >> [embedded, analysed] >> record(plan)


lakerag_ingest()
