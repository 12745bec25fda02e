"""What the lakerag DAGs share: the assets that chain them, the GPU pool's name and their default task
arguments. Top floor, beside the CLI: only the DAGs import it (it imports Airflow)."""

from __future__ import annotations

from datetime import timedelta

from airflow.sdk import Asset

CHUNKS = Asset("lakerag_chunks")          # ingest/rebuild committed a run -> lakerag_index
CANDIDATE = Asset("lakerag_candidate")    # index froze a candidate snapshot -> lakerag_transform
SERVING = Asset("lakerag_serving")        # dbt built the candidate's marts -> lakerag_publish
PUBLISHED = Asset("lakerag_published")    # the gate published a snapshot
GPU_POOL = "lakerag_gpu"


def stage_asset(stage: str) -> Asset:
    """The lineage asset one index stage updates."""
    return Asset(f"lakerag_{stage}")


def default_args(retries: int = 3, retry_delay: timedelta = timedelta(seconds=30),
                 max_retry_delay: timedelta = timedelta(minutes=10)) -> dict:
    """Retries with exponential backoff: every task is a transaction that can be rerun."""
    return {"owner": "lakerag", "retries": retries, "retry_delay": retry_delay,
            "retry_exponential_backoff": True, "max_retry_delay": max_retry_delay}
