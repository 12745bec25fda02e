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
SERVICES = {"postgres", "airflow-init", "airflow-apiserver", "airflow-scheduler", "airflow-dag-processor",
            "airflow-triggerer", "api"}


def test_compose_declares_airflow_postgres_the_api_and_a_shared_lakehouse():
    spec = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    services = spec["services"]
    assert set(services) == SERVICES
    assert all("healthcheck" in services[name] for name in SERVICES - {"airflow-init"})
    assert services["api"]["command"] == ["lakerag", "serve", "--host", "0.0.0.0"]
    for name in SERVICES - {"postgres"}:
        assert any(str(v).startswith("lakehouse:/data/lakehouse") for v in services[name]["volumes"]), name
    assert "lakerag_gpu" in " ".join(services["airflow-init"]["command"])


@pytest.mark.skipif(shutil.which("docker-compose") is None,
                    reason="docker-compose is not installed (Debian's docker-compose validates offline)")
def test_docker_compose_config_accepts_the_file_and_refuses_missing_secrets():
    secrets = {"AIRFLOW_FERNET_KEY": "k", "POSTGRES_PASSWORD": "p", "AIRFLOW_JWT_SECRET": "j"}
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
    for name in ("AIRFLOW_FERNET_KEY", "POSTGRES_PASSWORD", "AIRFLOW_JWT_SECRET"):
        assert f"${{{name}:?" in text and f"${{{name}:-" not in text, name
    ports = yaml.safe_load(text)["services"]["api"]["ports"]
    assert ports == ["127.0.0.1:8000-8009:8000"]  # `--scale api=3`: one host port each, all on loopback
