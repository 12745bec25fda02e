"""The top floor: the ``lakerag`` command and what the Airflow DAGs share. The only package that imports all."""
