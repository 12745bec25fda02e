"""Search over a home's current tables, with the embedder and reranker the settings name."""

from __future__ import annotations

from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from serving.search.index import SearchIndex
from serving.search.retriever import Hit, RetrievalConfig, Retriever


def serving_tables(settings: Settings):
    """The published snapshot's tables, or the working tables when nothing is published (eval homes)."""
    from lakehouse.snapshots import current_id, snapshot_tables

    paths = LakePaths(settings.home)
    return snapshot_tables(paths) if current_id(paths) else paths.tables


def build_retriever(settings: Settings, index: SearchIndex | None = None) -> Retriever:
    from transforms.embedding import load_embedder

    index = index or SearchIndex.load(serving_tables(settings))
    reranker = None
    if settings.reranker_model:
        from serving.search.rerank import load_reranker

        reranker = load_reranker(settings.reranker_model)
    embedder = load_embedder(settings.embedding_model, settings.embedding_device, settings.embedding_batch_size)
    return Retriever(index, embedder, reranker)


def config_from(settings: Settings, method: str = "hybrid") -> RetrievalConfig:
    return RetrievalConfig(method=method, fusion=settings.fusion, dense_weight=settings.fusion_dense_weight,
                           rrf_k=settings.rrf_k, candidates=settings.candidates,
                           rerank=settings.reranker_model is not None, rerank_top=settings.rerank_top)


def search_home(settings: Settings, question: str, groups: set[str], top_k: int = 10,
                method: str = "hybrid") -> tuple[list[Hit], dict[str, float]]:
    retriever = build_retriever(settings)
    hits = retriever.search(question, groups, top_k=top_k, config=config_from(settings, method))
    return hits, {k: round(v, 2) for k, v in retriever.timings.items()}
