"""
### lakerag_ingest

Finds what changed in the source folder (new, changed, moved, deleted files), then lands, extracts and chunks
only that, mapped over batches of documents, and commits the lakehouse tables. When anything changed,
`chunks_ready` updates the `lakerag_chunks` asset, which schedules `lakerag_index`; otherwise the run is
recorded and closed.

* Schedule: `LAKERAG_INGEST_SCHEDULE` (cron or preset, default `@hourly`, `none` for manual runs), the only
  value read at parse time. Every other setting is read when a task runs.
* Idempotent tasks: work is keyed by content hash and written atomically; an interrupted run resumes.
* While an earlier run is committed but not yet indexed, `discover` skips: committing now would race with it.
* Bad files are quarantined (`lakerag status`); a bad folder configuration fails, unretried, as does `verify`
  when no file could be extracted or more than `LAKERAG_MAX_EXTRACT_FAILED_SHARE` (0.5) failed. XCom: ids only.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import dag, task
from airflow.sdk.exceptions import AirflowFailException, AirflowSkipException

from lakerag.orchestration import CHUNKS, default_args, notify_failure, verify_extraction
from transforms.lifecycle import ingest_schedule

DEFAULT_ARGS = default_args()


@dag(dag_id="lakerag_ingest", schedule=ingest_schedule(), start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
     catchup=False, max_active_runs=1, default_args=DEFAULT_ARGS, on_failure_callback=notify_failure,
     tags=["lakerag", "ingest"], doc_md=__doc__)
def lakerag_ingest() -> None:
    @task
    def discover() -> dict:
        """Scan the source and write this run's plan; returns the run id and the batches to process."""
        from lakehouse.errors import ConfigError
        from lakehouse.settings import get_settings
        from transforms import lifecycle

        try:
            return lifecycle.begin_ingest(get_settings())
        except lifecycle.RunPending as exc:
            raise AirflowSkipException(str(exc)) from exc
        except ConfigError as exc:
            raise AirflowFailException(str(exc)) from exc

    @task
    def batches(plan: dict) -> list[int]:
        return plan["batches"]

    @task(doc_md="Land one batch's raw bytes and extract Markdown and metadata (cached by content hash).")
    def extract(plan: dict, batch: int) -> int:
        from lakehouse.settings import get_settings
        from transforms.lifecycle import run_batch_stage

        run_batch_stage(get_settings(), plan["run_id"], "land", batch)
        return run_batch_stage(get_settings(), plan["run_id"], "extract", batch)

    @task
    def verify(plan: dict) -> dict:
        """Fail, unretried, when no file could be extracted or too many failed (a broken environment)."""
        return verify_extraction(plan["run_id"])

    @task(doc_md="Split one batch's extracted documents into structure-aware chunks.")
    def chunk(plan: dict, batch: int) -> int:
        from lakehouse.settings import get_settings
        from transforms.lifecycle import run_batch_stage

        return run_batch_stage(get_settings(), plan["run_id"], "chunk", batch)

    @task(trigger_rule="none_failed_min_one_success")
    def commit(plan: dict) -> dict:
        """Fold the run into the documents, extracted, chunks and quarantine tables; close it if unchanged."""
        from lakehouse.settings import get_settings
        from transforms.lifecycle import finish_ingest

        return finish_ingest(get_settings(), plan["run_id"])

    @task.short_circuit
    def changed(result: dict) -> bool:
        """Stop here when the run changed nothing: there is nothing to index."""
        return bool(result["changed"])

    @task(outlets=[CHUNKS])
    def chunks_ready(result: dict, **context) -> str:
        """Mark the `lakerag_chunks` asset updated (extra: the run id), which schedules `lakerag_index`."""
        context["outlet_events"][CHUNKS].extra = {"run_id": result["run_id"]}
        return result["run_id"]

    plan = discover()
    todo = batches(plan)
    extracted = extract.partial(plan=plan).expand(batch=todo)
    chunked = chunk.partial(plan=plan).expand(batch=todo)
    committed = commit(plan)
    extracted >> verify(plan) >> chunked >> committed
    changed(committed) >> chunks_ready(committed)


lakerag_ingest()
