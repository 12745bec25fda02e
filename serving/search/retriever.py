"""Hybrid retrieval: permission and metadata masks first, then dense and BM25 candidates, fusion, reranking."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from datetime import date

import numpy as np

from lakehouse.errors import LakeragError
from models import sparse_search
from models.analysis import detect_language
from serving.search import languages
from serving.search.fusion import fuse
from serving.search.index import PUBLIC, SearchIndex
from serving.search.masks import Visible

log = logging.getLogger(__name__)

METHODS = ("hybrid", "dense", "bm25")


class SearchError(LakeragError):
    """A search request is invalid; the message names the parameter."""


@dataclass(frozen=True)
class Filters:
    """Metadata filters, applied before ranking together with the caller's groups."""

    doc_types: tuple[str, ...] = ()
    departments: tuple[str, ...] = ()
    path_prefix: str | None = None
    issued_from: date | None = None
    issued_to: date | None = None
    review_from: date | None = None
    review_to: date | None = None


@dataclass(frozen=True)
class RetrievalConfig:
    method: str = "hybrid"
    fusion: str = "weighted"  # weighted | rrf
    dense_weight: float = 0.5
    rrf_k: int = 60
    candidates: int = 100
    rerank: bool = False
    rerank_top: int = 30
    pages_weight: float = 0.0  # share of the page signal (serving.search.pages), fused when a searcher is set
    pages_top: int = 20
    # BM25's fused weight from the share of the index in the query's language (``languages``); off by default:
    # it lifts retrieval but not the answers (serving/search/languages.py)
    by_language: bool = False

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise SearchError(f"method must be one of {', '.join(METHODS)}, got {self.method!r}")
        if self.fusion not in ("weighted", "rrf"):
            raise SearchError(f"fusion must be 'weighted' or 'rrf', got {self.fusion!r}")


@dataclass(frozen=True)
class SearchTrace:
    """What a search decided beside its timings: the languages its BM25 side read the query in (empty when
    it ran no BM25), "en" alone for "fava beans" over an English index, ("pt", "en") over a mixed one."""

    analysis_languages: tuple[str, ...] = ()


@dataclass
class Hit:
    row: int
    chunk_id: str
    document_id: str
    title: str
    heading_path: list[str]
    path: str
    pages: list[int]
    doc_type: str
    text: str
    score: float
    scores: dict[str, float] = field(default_factory=dict)
    snapshot_id: str = ""


class Retriever:
    """Searches one SearchIndex. ``embedder`` embeds queries; ``reranker`` (optional) is a cross-encoder."""

    def __init__(self, index: SearchIndex, embedder=None, reranker=None, pages=None) -> None:
        self.index = index
        self.embedder = embedder
        self.reranker = reranker
        self.pages = pages  # a serving.search.pages.PageSearcher, or None: text-only
        self.timings: dict[str, float] = {}
        self.trace = SearchTrace()  # the last search's

    def mask(self, groups: frozenset[str] | set[str] | None, filters: Filters | None) -> np.ndarray:
        """Rows the caller may read and that pass the filters (a read-only array, cached per index)."""
        return self.visible(groups, filters).mask

    def visible(self, groups: frozenset[str] | set[str] | None, filters: Filters | None) -> Visible:
        """The mask and its rows for these groups and filters, built once per distinct pair and snapshot."""
        effective = frozenset(groups or ()) | {PUBLIC}
        key = ("visible", effective, filters or None)
        return self.index.masks.get(key, lambda: self._build_mask(effective, filters))

    def _build_mask(self, effective: frozenset[str], filters: Filters | None) -> np.ndarray:
        ix = self.index
        allowed = ix.readable_by(effective).copy()
        if not filters:
            return allowed
        if filters.doc_types:
            allowed &= np.isin(ix.doc_types, np.array(filters.doc_types, dtype=object))
        if filters.departments:
            wanted = np.array([d.casefold() for d in filters.departments], dtype=object)
            allowed &= np.isin(np.array([d.casefold() for d in ix.departments], dtype=object), wanted)
        if filters.path_prefix:
            prefix = filters.path_prefix
            allowed &= np.fromiter((p.startswith(prefix) for p in ix.paths), bool, len(ix.paths))
        for values, low, high in ((ix.issue_dates, filters.issued_from, filters.issued_to),
                                  (ix.review_dates, filters.review_from, filters.review_to)):
            if low:
                allowed &= values >= np.datetime64(low, "D")
            if high:
                allowed &= values <= np.datetime64(high, "D")
        return allowed

    def search(self, query: str, groups: frozenset[str] | set[str] | None = None, filters: Filters | None = None,
               top_k: int = 10, config: RetrievalConfig | None = None,
               query_vector: np.ndarray | None = None, dense_scores: np.ndarray | None = None) -> list[Hit]:
        """The ``top_k`` best chunks the caller may read. ``dense_scores``: the exact dense score of every row
        for ``query_vector``, when the caller already computed them (the graph modes do), so that the dense
        product is not computed twice."""
        if not query or not query.strip():
            raise SearchError("query must not be empty")
        if not 1 <= top_k <= 1000:
            raise SearchError(f"top_k must be between 1 and 1000, got {top_k}")
        config = config or RetrievalConfig()
        timings: dict[str, float] = {}
        self.trace = SearchTrace()
        started = time.perf_counter()
        visible = self.visible(groups, filters)
        timings["filter_ms"] = (time.perf_counter() - started) * 1000
        if not visible.rows.size:
            self.timings = timings
            return []
        k = config.candidates
        dense = sparse = None
        if config.method in ("hybrid", "dense"):
            t = time.perf_counter()
            if query_vector is None and dense_scores is None:
                query_vector = self.embedder.embed_queries([query])[0]
            timings["embed_ms"] = (time.perf_counter() - t) * 1000
            t = time.perf_counter()
            dense = self.index.dense.top(query_vector, visible, k, dense_scores)
            timings["dense_ms"] = (time.perf_counter() - t) * 1000
        if config.method in ("hybrid", "bm25"):
            t = time.perf_counter()
            bm25 = self.index.sparse
            language, terms = bm25.analysed(query)
            columns = sparse_search.query_columns(bm25.vocabulary, terms)
            self.trace = SearchTrace((language,))
            rows, values = sparse_search.top_k(bm25.matrix, columns, k,
                                               None if visible.everything else visible.mask)
            sparse = (rows, values, lambda at, c=columns: sparse_search.scores_at(bm25.matrix, c, at))
            timings["bm25_ms"] = (time.perf_counter() - t) * 1000
        if dense is not None and sparse is not None and config.fusion == "weighted" and config.by_language:
            # BM25 reads only the chunks in the question's language (``languages``)
            share = self.index.language_shares.get(detect_language(query), 0.0)
            config = replace(config, dense_weight=languages.dense_weight(config.dense_weight, share, query))
            timings["dense_weight"] = config.dense_weight
        t = time.perf_counter()
        rows, fused, parts = self._combine(dense, sparse, query_vector, config)
        timings["fusion_ms"] = (time.perf_counter() - t) * 1000
        if config.rerank and self.reranker is not None and len(rows):
            t = time.perf_counter()
            rows, fused, parts = self._rerank(query, rows, fused, parts, config.rerank_top)
            timings["rerank_ms"] = (time.perf_counter() - t) * 1000
        self.timings = timings
        hits = [self._hit(int(r), float(fused[i]), {k: float(v[i]) for k, v in parts.items()})
                for i, r in enumerate(rows[:top_k])]
        if self.pages is not None and config.pages_weight > 0:  # the third signal: page images (MaxSim)
            documents = {self.index.document_ids[r] for r in visible.rows} if filters else None
            hits = self.pages.fuse(query, groups, hits, config.pages_weight, config.pages_top, documents)[:top_k]
            timings.update(self.pages.timings)
        return hits

    def _combine(self, dense, sparse, query_vector, config):
        """Fusion over the candidates only: each retriever's top ``candidates`` rows (with exact scores), and
        for their union the other retriever's exact score (looked up, or computed for those rows alone)."""
        if dense is None:
            rows, values, _ = sparse
            return rows, values, {"bm25": values}
        if sparse is None:
            rows, values, _ = dense
            return rows, values, {"dense": values}
        dense_rows, _, dense_all = dense
        sparse_rows, _, sparse_at = sparse

        def dense_at(rows: np.ndarray) -> np.ndarray:
            if dense_all is not None:
                return dense_all[rows]
            return self.index.dense.scores_at(rows, query_vector)

        return fuse(dense_rows, sparse_rows, dense_at, sparse_at, config)

    def _rerank(self, query, rows, fused, parts, top):
        head = rows[:top]
        scores = np.asarray(self.reranker.predict([(query, self.index.texts[r]) for r in head]), dtype=np.float32)
        order = np.argsort(-scores, kind="stable")
        new_rows = np.concatenate([head[order], rows[top:]])
        new_fused = np.concatenate([scores[order], fused[top:] - 1e6])  # reranked rows stay first
        keep = np.concatenate([order, np.arange(len(head), len(rows))])
        new_parts = {name: values[keep] for name, values in parts.items()}
        new_parts["rerank"] = np.concatenate([scores[order], np.full(len(rows) - len(head), np.nan)])
        return new_rows, new_fused, new_parts

    def _hit(self, row: int, score: float, scores: dict[str, float]) -> Hit:
        ix = self.index
        return Hit(row=row, chunk_id=ix.chunk_ids[row], document_id=ix.document_ids[row], title=ix.titles[row],
                   heading_path=list(ix.heading_paths[row]), path=ix.paths[row], pages=list(ix.pages[row]),
                   doc_type=str(ix.doc_types[row]), text=ix.texts[row], score=score, scores=scores,
                   snapshot_id=ix.snapshot_id)
