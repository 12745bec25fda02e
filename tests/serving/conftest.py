"""A small indexed corpus for retrieval tests (fast static embeddings; quality is measured by `lakerag eval`)."""

from __future__ import annotations

import pytest

from tests.fixtures.corpora import write_corpus


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """(settings, retriever) over the small corpus, indexed once per module."""
    from lakehouse.settings import Settings
    from serving.search.service import build_retriever
    from transforms.pipeline import run_index

    root = tmp_path_factory.mktemp("retrieval")
    settings = Settings(home=root / "home", source=write_corpus(root / "source"), embedding_model="wordllama")
    run_index(settings)
    return settings, build_retriever(settings)
