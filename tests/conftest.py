"""Shared fixtures. Airflow's environment is set before anything imports Airflow."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.fixtures.paths import REPO, SAMPLE

_AIRFLOW_HOME = Path(tempfile.mkdtemp(prefix="lakerag-airflow-"))
os.environ.setdefault("AIRFLOW_HOME", str(_AIRFLOW_HOME))
os.environ.setdefault("AIRFLOW__CORE__DAGS_FOLDER", str(REPO / "dags"))
os.environ.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")
os.environ.setdefault("AIRFLOW__CORE__UNIT_TEST_MODE", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Pipeline mechanics are tested with fast static embeddings; the shipped default model is exercised by the
# tests marked `model` and measured by `lakerag eval`.
os.environ.setdefault("LAKERAG_EMBEDDING_MODEL", "wordllama")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A writable copy of the bundled sample corpus (symlinks kept as links)."""
    target = tmp_path / "source"
    shutil.copytree(SAMPLE, target, symlinks=True)
    return target


@pytest.fixture
def settings_for(tmp_path: Path):
    """Build Settings for a source folder with a fresh data root under tmp_path."""
    from lakehouse.settings import Settings

    def make(source: Path, **extra) -> Settings:
        return Settings(home=tmp_path / "home", source=source, **extra)

    return make


@pytest.fixture(scope="session")
def airflow_db() -> Path:
    """An initialised SQLite metadata database for dag.test()."""
    from airflow.utils import db

    db.initdb()
    return _AIRFLOW_HOME


@pytest.fixture(scope="session")
def tiny_colpali(tmp_path_factory) -> Path:
    """A tiny randomly initialised ColPali saved to a folder (what LAKERAG_PAGES_MODEL names in tests)."""
    from tests.fixtures.colpali import build_tiny_colpali

    return build_tiny_colpali(tmp_path_factory.mktemp("colpali") / "tiny-colpali")
