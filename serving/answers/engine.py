"""One loaded snapshot: its search index, embedder, optional graph searcher, catalog and document map.

``load_engine`` refuses a broken snapshot (missing or inconsistent tables, vectors from another model, a
graph pointer whose tables do not load, a failing smoke query) by raising; the holder then keeps the old one.
An engine is immutable once built, so requests that started on it finish on it after a switch.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from lakehouse import paths as lp
from lakehouse.graph_schemas import graph_dir
from lakehouse.paths import LakePaths
from lakehouse.schemas import INJECTION
from lakehouse.settings import Settings
from lakehouse.snapshots import snapshot_tables
from lakehouse.storage import read_json
from models.analysis import analyze
from models.embedding import Embedder
from models.injection import find_injections
from models.rerank import Reranker, load_reranker
from serving.answers.agentic.trace import Budget
from serving.answers.catalog import Catalog
from serving.answers.generation import Generator
from serving.answers.relevance import CODE, Relevance
from serving.answers.versions import family
from serving.graph import GraphSearcher, GraphStore
from serving.search.encoder_service import EncoderService
from serving.search.index import PUBLIC, SearchIndex
from serving.search.pages import PageSearcher, load_page_searcher
from serving.search.retriever import RetrievalConfig, Retriever
from serving.search.service import SnapshotRefused, checked_embedder, config_from

log = logging.getLogger(__name__)


@dataclass
class Engine:
    snapshot_id: str
    tables: Path
    index: SearchIndex
    embedder: Embedder
    reranker: Reranker | None
    config: RetrievalConfig
    catalog: Catalog
    relevance: Relevance
    documents: dict[str, list[int]]  # document id -> chunk rows in reading order
    ordinals: list[int]
    graph: GraphSearcher | None = None  # None with ``graph_reason`` saying why
    graph_reason: str | None = None
    generator: Generator | None = None
    min_relevance: float | None = None  # the snapshot's fitted refusal threshold (None: the API's setting)
    loaded_at: float = field(default_factory=time.time)
    pages: PageSearcher | None = None  # the page-image signal, when a vision model is configured
    agent_budget: Budget = field(default_factory=Budget)  # the agentic mode's limits (settings.api.agent_*)
    injection: list[tuple[str, ...]] = field(default_factory=list)  # per row: sentences addressing an assistant
    rows: dict[str, int] = field(default_factory=dict)  # chunk id -> row
    families: dict[str, list[str]] = field(default_factory=dict)  # title without version markers -> documents
    coded: dict[str, list[str]] = field(default_factory=dict)  # a code its title or file name holds -> documents

    def retriever(self, pages: bool = True) -> Retriever:
        """A retriever for one request (its timings are per request); the index is shared. ``pages``: with the
        page-image signal, when the snapshot has one."""
        searcher = PageSearcher(self.pages.index, self.pages.model) if pages and self.pages is not None else None
        return Retriever(self.index, self.embedder, self.reranker, searcher)

    def graph_searcher(self, retriever: Retriever) -> GraphSearcher:
        """The snapshot's graph searcher bound to this request's retriever (store and map cache shared)."""
        if self.graph is None:
            raise SnapshotRefused(self.graph_reason or "this snapshot has no graph index")
        return self.graph.with_retriever(retriever)

    def readable(self, groups: frozenset[str]) -> np.ndarray:
        return self.index.readable_by(groups)

    def row_readable(self, row: int, groups: frozenset[str]) -> bool:
        return bool(self.index.group_sets[self.index.group_codes[row]] & (groups | {PUBLIC}))

    def embed(self, question: str) -> np.ndarray | None:
        if self.embedder is None or not self.index.vectors.size:
            return None
        return self.embedder.embed_queries([question])[0]


def _graph(tables: Path, index: SearchIndex, retriever: Retriever, generator: Generator | None,
           cache_dir: Path, config: RetrievalConfig) -> tuple[GraphSearcher | None, str | None]:
    if graph_dir(tables) is None:
        return None, "this snapshot has no graph index (run the graph index stage and publish)"
    store = GraphStore.load(tables, index)
    llm = generator.client if generator is not None else None
    return GraphSearcher(store, retriever, llm, cache_dir=cache_dir, config=config), None


def _coded(index: SearchIndex, documents: dict[str, list[int]]) -> dict[str, list[str]]:
    """Documents by the codes of their title or file name ("IT-TI-021 - Concessão..." -> ``it-ti-021``), as the
    BM25 analyser writes them (the question's codes are read the same way)."""
    out: dict[str, list[str]] = {}
    for document_id, rows in documents.items():
        name = (index.paths[rows[0]] or "").rsplit("/", 1)[-1]
        for code in {t for t in analyze(f"{index.titles[rows[0]]} {name}", "pt") if CODE.fullmatch(t)}:
            out.setdefault(code, []).append(document_id)
    return out


def _families(index: SearchIndex, documents: dict[str, list[int]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for document_id, rows in documents.items():
        out.setdefault(family(index.titles[rows[0]]), []).append(document_id)
    return out


def calibrated(config: RetrievalConfig, manifest: dict) -> tuple[RetrievalConfig, float | None]:
    """The retrieval config and refusal threshold with the values fitted at publish (``calibration`` in the
    snapshot manifest, ``serving.evaluation.calibrate``); unfitted values keep the settings'."""
    fitted = manifest.get("calibration") or {}
    weight = fitted.get("fusion_dense_weight")
    if weight is not None and config.fusion == "weighted":
        config = replace(config, dense_weight=float(weight))
    threshold = fitted.get("min_relevance")
    return config, None if threshold is None else float(threshold)


def load_engine(settings: Settings, snapshot_id: str, generator: Generator | None = None,
                catalog_table: str = "catalog", encoder: EncoderService | None = None,
                mode: str = "auto") -> Engine:
    """Load and check one published snapshot; raises ``SnapshotRefused`` (or the loader's error) if broken.
    With ``encoder``, query vectors go through that shared, batching and caching service. ``mode`` (the CLI's
    one question) loads only what it needs: ``catalog`` no vectors, encoder or graph, ``basic`` no graph."""
    paths = LakePaths(settings.home)
    started = time.perf_counter()
    tables = snapshot_tables(paths, snapshot_id)
    manifest = read_json(tables.parent / "manifest.json")
    dense, with_graph = mode != "catalog", mode not in ("catalog", "basic")
    index = SearchIndex.load(tables, settings.index.dense_precision, with_vectors=dense)
    if not len(index):
        raise SnapshotRefused(f"snapshot {snapshot_id} has no chunks")
    embedder = checked_embedder(settings, index, (manifest.get("models") or {}).get("embedding")) if dense else None
    if encoder is not None and embedder is not None:
        embedder = encoder.bind(embedder)
    reranker = load_reranker(settings.index.reranker_model) if settings.index.reranker_model else None
    config, min_relevance = calibrated(config_from(settings), manifest)
    has_flags = INJECTION in pq.read_schema(tables / "chunks.parquet").names
    chunks = pq.read_table(tables / "chunks.parquet",
                           columns=["chunk_id", "ordinal", *([INJECTION] if has_flags else [])])
    if chunks["chunk_id"].to_pylist() != index.chunk_ids:
        raise SnapshotRefused(f"snapshot {snapshot_id}: chunks.parquet and the index disagree")
    ordinals = chunks["ordinal"].to_pylist()
    # snapshots from before the column: the same detector, run here
    injection = [tuple(f or ()) for f in chunks[INJECTION].to_pylist()] if has_flags else \
        [tuple(find_injections(t)) for t in index.texts]
    documents: dict[str, list[int]] = {}
    for row, document_id in enumerate(index.document_ids):
        documents.setdefault(document_id, []).append(row)
    for rows in documents.values():
        rows.sort(key=lambda r: ordinals[r])
    catalog = Catalog.open(tables, catalog_table)
    retriever = Retriever(index, embedder, reranker)
    graph, reason = _graph(tables, index, retriever, generator, paths.cache_dir(lp.GRAPH_SEARCH), config) \
        if with_graph else (None, f"the graph index is not loaded for mode {mode!r}")
    engine = Engine(snapshot_id, tables, index, embedder, reranker, config, catalog, Relevance(index),
                    documents,
                    ordinals, graph, reason, generator, min_relevance=min_relevance,
                    pages=load_page_searcher(settings, tables) if dense else None, injection=injection,
                    rows={c: r for r, c in enumerate(index.chunk_ids)}, families=_families(index, documents),
                    coded=_coded(index, documents))
    probe = config if dense else RetrievalConfig(**{**config.__dict__, "method": "bm25"})
    engine.retriever().search("probe", frozenset({PUBLIC}), top_k=1, config=probe)  # smoke query
    engine.agent_budget = Budget(settings.api.agent_max_steps, settings.api.agent_max_tokens,
                                 settings.api.agent_max_seconds)  # set before the engine is served
    log.info("loaded snapshot %s in %.2fs: %d chunks, %d documents, graph %s, catalog from %s", snapshot_id,
             time.perf_counter() - started, len(index), len(documents), "yes" if graph else "no", catalog.source)
    return engine
