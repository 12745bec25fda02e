"""The index side: the stage registry, one module per stage, the runner, extraction and chunking. No Airflow."""
