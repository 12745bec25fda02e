"""A GraphSearcher over a home's current tables, with the embedder, reranker and LLM the settings name."""

from __future__ import annotations

from graph_index.search.graph_store import GraphStore
from graph_index.search.searcher import GraphSearcher
from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from serving.search.retriever import Retriever
from serving.search.service import build_retriever, config_from, serving_tables
from transforms.llm import client_from_settings


def build_graph_searcher(settings: Settings, retriever: Retriever | None = None,
                         missing_ok: bool = False) -> GraphSearcher:
    """``missing_ok``: without graph tables, graph modes degrade to chunk retrieval instead of failing."""
    paths = LakePaths(settings.home)
    retriever = retriever or build_retriever(settings)
    store = GraphStore.load(serving_tables(settings), retriever.index, missing_ok=missing_ok)
    return GraphSearcher(store, retriever, client_from_settings(settings, paths.cache / "llm"),
                         cache_dir=paths.cache / "graph-search", config=config_from(settings))
