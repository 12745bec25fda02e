"""Cosmos and dbt settings for the DAG tests, set before Cosmos is first imported (it reads them at import):
no telemetry calls, no version checks (the machines have no network)."""

from __future__ import annotations

import os

os.environ.setdefault("AIRFLOW__COSMOS__ENABLE_TELEMETRY", "False")
os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "False")
os.environ.setdefault("DBT_VERSION_CHECK", "False")
