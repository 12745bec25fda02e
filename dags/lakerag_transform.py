"""
### lakerag_transform

Scheduled on the `lakerag_candidate` asset. Builds the dbt project (`dbt_project/`) over the newest candidate
snapshot through astronomer-cosmos: staging views over the snapshot's Parquet tables, then the serving marts
(catalog, expiring documents, chunks, graph tables, run and quality summaries), then every dbt test.

* The task list comes from the committed manifest (`dbt_project/manifest/manifest.json`, `make dbt-manifest`),
  never from `dbt ls` at parse time; dbt runs in-process (Cosmos LOCAL, dbtRunner), with no `dbt deps`.
* dbt writes a new DuckDB file; `seal` moves it into the snapshot as `serving.duckdb` only after every test
  passed, so the API never opens a file being written. One dbt task at a time (`max_active_tasks=1`): DuckDB
  allows one writer per file.
* With `LAKERAG_DBT_QUEUE` set, every task runs on that Celery queue (one worker: the DuckDB file is local).
* A failing data test fails the run without retries (the data would break serving); `seal` then updates the
  `lakerag_serving` asset, which schedules `lakerag_publish`.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import ExceptionRetryPolicy, RetryAction, RetryRule, dag, task
from airflow.sdk.exceptions import AirflowSkipException
from cosmos import DbtTaskGroup, ExecutionConfig, ProfileConfig, ProjectConfig, RenderConfig
from cosmos.constants import ExecutionMode, InvocationMode, LoadMode, TestBehavior

from lakerag.orchestration import CANDIDATE, SERVING, dbt_placement, default_args, notify_failure
from transforms.dbt_build import MANIFEST, PROJECT_DIR

DEFAULT_ARGS = default_args(retries=2) | dbt_placement()
# A dbt task that ran and failed (a data test, a SQL error) fails the same way again: no retries for those.
DBT_FAILURES_ARE_FINAL = ExceptionRetryPolicy(rules=[RetryRule(
    exception="cosmos.exceptions.CosmosDbtRunError", action=RetryAction.FAIL, reason="dbt test or SQL")])
FROM_LOCATE = "{{{{ ti.xcom_pull(task_ids='locate')['{}'] }}}}"


@dag(dag_id="lakerag_transform", schedule=[CANDIDATE], start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
     catchup=False, max_active_runs=1, max_active_tasks=1, render_template_as_native_obj=True,
     on_failure_callback=notify_failure,
     default_args=DEFAULT_ARGS, tags=["lakerag", "dbt"], doc_md=__doc__)
def lakerag_transform() -> None:
    @task
    def locate() -> dict:
        """The newest snapshot without marts, with the dbt vars and environment that point dbt at it."""
        from lakehouse.settings import get_settings
        from transforms.dbt_build import prepare

        context = prepare(get_settings())
        if context is None:
            raise AirflowSkipException("no snapshot without marts: nothing to build")
        return context

    marts = DbtTaskGroup(
        group_id="marts",
        project_config=ProjectConfig(dbt_project_path=PROJECT_DIR, manifest_path=MANIFEST,
                                     install_dbt_deps=False),
        profile_config=ProfileConfig(profile_name="lakerag", target_name="serving",
                                     profiles_yml_filepath=PROJECT_DIR / "profiles.yml"),
        execution_config=ExecutionConfig(execution_mode=ExecutionMode.LOCAL,
                                         invocation_mode=InvocationMode.DBT_RUNNER),
        render_config=RenderConfig(load_method=LoadMode.DBT_MANIFEST, test_behavior=TestBehavior.AFTER_ALL,
                                   emit_datasets=False),
        operator_args={"vars": FROM_LOCATE.format("vars"), "env": FROM_LOCATE.format("env"),
                       "append_env": True, "install_deps": False, "should_store_compiled_sql": False,
                       "retry_policy": DBT_FAILURES_ARE_FINAL},
    )

    @task(outlets=[SERVING])
    def seal(context: dict, **airflow_context) -> dict:
        """Rename the built DuckDB file to `serving.duckdb` and note the mart counts in the manifest."""
        from lakehouse.settings import get_settings
        from transforms.dbt_build import seal as seal_marts

        result = seal_marts(get_settings(), context["snapshot_id"])
        airflow_context["outlet_events"][SERVING].extra = {"snapshot_id": context["snapshot_id"]}
        return result

    located = locate()
    located >> marts >> seal(located)


lakerag_transform()
