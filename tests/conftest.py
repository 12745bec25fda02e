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


def pytest_collection_modifyitems(config, items) -> None:
    """Tests marked ``llm`` start the real llama.cpp server: they run only under ``-m llm`` (make llm-test), and
    only once ``make llm`` has installed it; tests marked ``cluster`` start PostgreSQL, Redis and Celery workers:
    they run only under ``-m cluster`` (make cluster-test), and only once its packages are installed. Otherwise
    each skips with one line saying which."""
    _skip_unless_selected(config, items, "llm", _llm_missing)
    _skip_unless_selected(config, items, "cluster", _cluster_missing)


def _skip_unless_selected(config, items, marker: str, missing) -> None:
    marked = [item for item in items if item.get_closest_marker(marker)]
    if not marked:
        return
    reason = missing(selected=marker in (config.getoption("markexpr") or ""))
    if reason:
        for item in marked:
            item.add_marker(pytest.mark.skip(reason=reason))


def _llm_missing(selected: bool) -> str | None:
    from tests.fixtures.llama_server import NOT_INSTALLED, NOT_SELECTED

    if not selected:
        return NOT_SELECTED
    from models.llm_server import installed

    return None if installed() else NOT_INSTALLED


def _cluster_missing(selected: bool) -> str | None:
    from tests.fixtures import cluster

    return cluster.missing() if selected else cluster.NOT_SELECTED


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    """The real llama.cpp server with the default shipped model, for the session (stopped by its PID)."""
    from models.llm_server import DEFAULT_MODEL
    from tests.fixtures.llama_server import start, stop

    server, proc = start(DEFAULT_MODEL, tmp_path_factory.mktemp("llama") / "server.log")
    try:
        yield server
    finally:
        stop(proc)


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


_LEAKABLE = ("LAKERAG_STORE", "AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION")


@pytest.fixture(autouse=True)
def _no_bucket_leaks_into_the_next_test():
    """A test that points this process at a bucket (``LAKERAG_STORE`` and the AWS variables) and forgets to
    restore the environment fails here, and the next test starts from the local lakehouse again: every later
    run would otherwise pull the bucket's tables into its fresh home."""
    before = {key: os.environ.get(key) for key in _LEAKABLE}
    yield
    after = {key: os.environ.get(key) for key in _LEAKABLE}
    for key, value in before.items():
        os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)
    assert after == before, f"the test left the environment pointing at a bucket: {after}"
