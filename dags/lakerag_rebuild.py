"""
### lakerag_rebuild

Manual. Recomputes part of the lakehouse, then runs like `lakerag_ingest` and updates the `lakerag_chunks`
asset (even if no file changed), so `lakerag_index`, `lakerag_transform` and `lakerag_publish` follow as usual
and the gate still guards what gets published. Choose exactly one param:

* `full`: every stage for every document (raw blobs and the LLM response cache are kept);
* `path_prefix`: re-extract and re-chunk the documents under this path (e.g. after installing OCR);
* `from_stage`: that stage and every later one (e.g. `embed` after changing `LAKERAG_EMBEDDING_MODEL`).

Invalid params fail at once, unretried; while an ingest run is still being indexed, `prepare` retries later.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import Param, dag, task
from airflow.sdk.exceptions import AirflowFailException

from lakerag.orchestration import CHUNKS, default_args, notify_failure, verify_extraction
from transforms.rebuild import stage_order

DEFAULT_ARGS = default_args(retry_delay=timedelta(minutes=1), max_retry_delay=timedelta(minutes=15))
PARAMS = {
    "full": Param(False, type="boolean", description="Recompute every stage for every document."),
    "path_prefix": Param("", type="string", description="Re-extract the documents under this path."),
    "from_stage": Param("", type="string", enum=["", *stage_order()],
                        description="Recompute from this stage."),
}


@dag(dag_id="lakerag_rebuild", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
     catchup=False, max_active_runs=1, default_args=DEFAULT_ARGS, on_failure_callback=notify_failure,
     params=PARAMS, tags=["lakerag", "rebuild"],
     doc_md=__doc__)
def lakerag_rebuild() -> None:
    @task
    def prepare(**context) -> dict:
        """Drop the cached work the params cover, then start and plan a run."""
        from lakehouse.errors import ConfigError
        from lakehouse.settings import get_settings
        from transforms.rebuild import RebuildScope, begin_rebuild

        params = context["params"]
        try:
            scope = RebuildScope(full=bool(params["full"]), path_prefix=params["path_prefix"] or None,
                                 from_stage=params["from_stage"] or None)
        except ConfigError as exc:
            raise AirflowFailException(str(exc)) from exc
        return begin_rebuild(get_settings(), scope)

    @task
    def batches(plan: dict) -> list[int]:
        return plan["batches"]

    @task(doc_md="Land and extract one batch (only what the rebuild invalidated is recomputed).")
    def extract(plan: dict, batch: int) -> int:
        from lakehouse.settings import get_settings
        from transforms.lifecycle import run_batch_stage

        run_batch_stage(get_settings(), plan["run_id"], "land", batch)
        return run_batch_stage(get_settings(), plan["run_id"], "extract", batch)

    @task
    def verify(plan: dict) -> dict:
        """Fail, unretried, when no document could be extracted or too many failed (as lakerag_ingest)."""
        return verify_extraction(plan["run_id"])

    @task(doc_md="Chunk one batch.")
    def chunk(plan: dict, batch: int) -> int:
        from lakehouse.settings import get_settings
        from transforms.lifecycle import run_batch_stage

        return run_batch_stage(get_settings(), plan["run_id"], "chunk", batch)

    @task(trigger_rule="none_failed_min_one_success", outlets=[CHUNKS])
    def commit(plan: dict, **context) -> dict:
        """Commit the run and update `lakerag_chunks`: the index stages run next, whatever changed."""
        from lakehouse.settings import get_settings
        from transforms.lifecycle import finish_ingest

        context["outlet_events"][CHUNKS].extra = {"run_id": plan["run_id"], "rebuild": True}
        return finish_ingest(get_settings(), plan["run_id"], force=True)

    plan = prepare()
    todo = batches(plan)
    extracted = extract.partial(plan=plan).expand(batch=todo)
    extracted >> verify(plan) >> chunk.partial(plan=plan).expand(batch=todo) >> commit(plan)


lakerag_rebuild()
