"""docker-compose.yml: the services the deployment needs, each with a health check, validated by
docker-compose itself when the binary is installed (no engine needed)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "docker-compose.yml"
SERVICES = {"postgres", "redis", "minio", "minio-init", "airflow-init", "airflow-apiserver", "airflow-scheduler",
            "airflow-dag-processor", "airflow-triggerer", "airflow-worker", "airflow-worker-gpu", "api"}
ONE_SHOT = {"airflow-init", "minio-init"}
SECRETS = ("AIRFLOW_FERNET_KEY", "POSTGRES_PASSWORD", "AIRFLOW_JWT_SECRET", "MINIO_ROOT_PASSWORD")


def test_compose_runs_airflow_on_celery_with_two_workers_one_serving_the_gpu_queue():
    spec = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    services = spec["services"]
    assert set(services) == SERVICES
    assert all("healthcheck" in services[name] for name in SERVICES - ONE_SHOT)
    assert services["api"]["command"] == ["lakerag", "serve", "--host", "0.0.0.0"]
    airflow = {name for name in SERVICES if name.startswith("airflow-")}
    for name in airflow:
        env = services[name]["environment"]
        assert env["AIRFLOW__CORE__EXECUTOR"] == "CeleryExecutor", name
        assert env["AIRFLOW__CELERY__BROKER_URL"] == "redis://redis:6379/0", name
        assert env["LAKERAG_GPU_QUEUE"] == "gpu", name
        assert env["LAKERAG_DBT_QUEUE"] == "dbt", name  # one worker builds the marts (a local DuckDB file)
    queues = {name: services[name]["command"][services[name]["command"].index("--queues") + 1]
              for name in airflow if "worker" in name}
    assert queues == {"airflow-worker": "default", "airflow-worker-gpu": "default,gpu,dbt"}
    assert "lakerag_gpu" in " ".join(services["airflow-init"]["command"])


def test_the_lakehouse_lives_in_the_minio_bucket_that_every_worker_and_the_api_share():
    spec = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    services = spec["services"]
    for name in {n for n in SERVICES if n.startswith("airflow-")} | {"api"}:
        env = services[name]["environment"]
        assert env["LAKERAG_STORE"] == "s3://lakerag/lakehouse", name
        assert env["AWS_ENDPOINT_URL"] == "http://minio:9000", name
        assert "minio-init" in services[name]["depends_on"], name
    assert "lakerag" in " ".join(services["minio-init"]["entrypoint"])  # creates the bucket


@pytest.mark.skipif(shutil.which("docker-compose") is None,
                    reason="docker-compose is not installed (Debian's docker-compose validates offline)")
def test_docker_compose_config_accepts_the_file_and_refuses_missing_secrets():
    secrets = {"AIRFLOW_FERNET_KEY": "k", "POSTGRES_PASSWORD": "p", "AIRFLOW_JWT_SECRET": "j",
               "MINIO_ROOT_PASSWORD": "m" * 8}
    clean = {k: v for k, v in os.environ.items() if k not in secrets}

    def config(env: dict) -> subprocess.CompletedProcess:
        return subprocess.run(["docker-compose", "-f", str(COMPOSE), "config", "-q"], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=60)

    result = config({**clean, **secrets})
    assert result.returncode == 0, result.stderr
    for name in secrets:
        refused = config({**clean, **{k: v for k, v in secrets.items() if k != name}})
        assert refused.returncode != 0 and f"set {name}" in refused.stderr, name


def test_compose_has_no_default_secrets_and_api_replicas_do_not_share_a_port():
    text = COMPOSE.read_text(encoding="utf-8")
    for name in SECRETS:
        assert f"${{{name}:?" in text and f"${{{name}:-" not in text, name
    ports = yaml.safe_load(text)["services"]["api"]["ports"]
    assert ports == ["127.0.0.1:8000-8009:8000"]  # `--scale api=3`: one host port each, all on loopback
