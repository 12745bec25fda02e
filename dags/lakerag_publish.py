"""
### lakerag_publish

Scheduled on the `lakerag_serving` asset. Evaluates the candidate snapshot on the labelled question set
(`LAKERAG_EVAL_QUESTIONS`, default `sample_corpus/questions.jsonl`: document hit@5 and MRR@10, each question
asked with its own access groups), compares it with the published snapshot, and switches the `CURRENT` pointer
only if no gated metric is worse by more than `LAKERAG_PUBLISH_TOLERANCE` (default 0.02).

* A refused candidate fails this run without retries, with the comparison in the log and in the candidate's
  manifest; the previous snapshot keeps serving. To publish it anyway: `lakerag snapshots rollback ID`.
* Scores are stored in each snapshot's manifest and reused while the question set is unchanged.
* Publishing is one atomic rename; the last `LAKERAG_SNAPSHOT_KEEP` snapshots stay on disk for rollbacks.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import dag, task
from airflow.sdk.exceptions import AirflowFailException, AirflowSkipException

from lakerag.orchestration import PUBLISHED, SERVING, default_args, notify_failure

DEFAULT_ARGS = default_args(retries=2)


@dag(dag_id="lakerag_publish", schedule=[SERVING], start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
     catchup=False, max_active_runs=1, default_args=DEFAULT_ARGS, on_failure_callback=notify_failure,
     tags=["lakerag", "publish"], doc_md=__doc__)
def lakerag_publish() -> None:
    @task
    def candidate() -> str:
        """The newest snapshot with built marts that is not published yet (skips when there is none)."""
        from lakehouse.settings import get_settings
        from serving.evaluation.publish import candidate_of

        snapshot_id = candidate_of(get_settings())
        if snapshot_id is None:
            raise AirflowSkipException("no built candidate snapshot newer than the published one")
        return snapshot_id

    @task
    def evaluate(snapshot_id: str) -> dict:
        """Score the candidate (and the published snapshot, unless its stored scores are current)."""
        from lakehouse.settings import get_settings
        from serving.evaluation.publish import evaluate_candidate

        return evaluate_candidate(get_settings(), snapshot_id)

    @task(outlets=[PUBLISHED])
    def gate(snapshot_id: str, **context) -> dict:
        """Publish the candidate unless it is worse than the published one beyond the tolerance."""
        from lakehouse.settings import get_settings
        from serving.evaluation.gate import GateRefused
        from serving.evaluation.publish import publish_candidate

        try:
            result = publish_candidate(get_settings(), snapshot_id)
        except GateRefused as exc:
            raise AirflowFailException(f"{exc}\nThe published snapshot keeps serving.") from exc
        context["outlet_events"][PUBLISHED].extra = {"snapshot_id": snapshot_id}
        return result

    snapshot_id = candidate()
    evaluate(snapshot_id) >> gate(snapshot_id)


lakerag_publish()
