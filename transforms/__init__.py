"""Ingestion stages: discover, land, extract, chunk, commit. Plain functions, no Airflow."""
