"""The composition root of retrieval: a SearchIndex with the embedder (checked against the index's model and
dimension) and the reranker the settings name. The API's engine, ``lakerag search``, evaluation and the publish
gate all build their retrievers here, so they all refuse the same mismatches."""

from __future__ import annotations

from pathlib import Path

from lakehouse.errors import LakeragError
from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from lakehouse.snapshots import current_id, snapshot_tables
from models.embedding import Embedder, load_embedder
from models.rerank import load_reranker
from serving.search.index import SearchIndex
from serving.search.pages import load_page_searcher
from serving.search.retriever import Hit, RetrievalConfig, Retriever, SearchTrace


class SnapshotRefused(LakeragError):
    """An index cannot be served with these models; the message says why."""


def serving_tables(settings: Settings) -> Path:
    """The published snapshot's tables, or the working tables when nothing is published (eval homes)."""
    paths = LakePaths(settings.home)
    return snapshot_tables(paths) if current_id(paths) else paths.tables


def checked_embedder(settings: Settings, index: SearchIndex, model: str | None = None) -> Embedder:
    """The query embedder for ``index`` (``model``: the one its manifest names, else the settings'), refused
    when its model id or its dimension differs from the index's vectors."""
    embedder = load_embedder(model or settings.index.embedding_model, settings.index.embedding_device,
                             settings.index.embedding_batch_size)
    if index.model_id and embedder.model_id != index.model_id:
        raise SnapshotRefused(f"vectors were made with {index.model_id!r} but the embedder is {embedder.model_id!r}")
    probe = embedder.embed_queries(["probe"])
    if index.vectors.size and probe.shape[1] != index.vectors.shape[1]:
        raise SnapshotRefused(f"query vectors have {probe.shape[1]} dims, the index {index.vectors.shape[1]}")
    return embedder


def build_retriever(settings: Settings, index: SearchIndex | None = None, method: str = "hybrid") -> Retriever:
    """A retriever for ``method``: a BM25-only one loads neither the vectors, the query encoder nor the pages."""
    dense = method != "bm25"
    tables = serving_tables(settings)
    index = index or SearchIndex.load(tables, settings.index.dense_precision, with_vectors=dense)
    reranker = load_reranker(settings.index.reranker_model) if settings.index.reranker_model else None
    return Retriever(index, checked_embedder(settings, index) if dense else None, reranker,
                     load_page_searcher(settings, tables) if dense else None)


def config_from(settings: Settings, method: str = "hybrid") -> RetrievalConfig:
    return RetrievalConfig(method=method, fusion=settings.index.fusion, dense_weight=settings.index.fusion_dense_weight,
                           rrf_k=settings.index.rrf_k, candidates=settings.index.candidates,
                           rerank=settings.index.reranker_model is not None, rerank_top=settings.index.rerank_top,
                           pages_weight=settings.index.pages_weight if settings.index.pages_model else 0.0,
                           pages_top=settings.index.pages_top)


def search_home(settings: Settings, question: str, groups: set[str], top_k: int = 10,
                method: str = "hybrid") -> tuple[list[Hit], dict[str, float], SearchTrace]:
    """The hits, the timings (ms) and the trace of one search of the home's served index."""
    retriever = build_retriever(settings, method=method)
    hits = retriever.search(question, groups, top_k=top_k, config=config_from(settings, method))
    return hits, {k: round(v, 2) for k, v in retriever.timings.items()}, retriever.trace
