"""Hybrid retrieval: permission and metadata masks first, then dense and BM25 candidates, fusion, reranking."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import date

import numpy as np

from lakehouse.errors import LakeragError
from serving.search.fusion import fuse
from serving.search.index import SearchIndex

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

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise SearchError(f"method must be one of {', '.join(METHODS)}, got {self.method!r}")
        if self.fusion not in ("weighted", "rrf"):
            raise SearchError(f"fusion must be 'weighted' or 'rrf', got {self.fusion!r}")


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


def _top(scores: np.ndarray, mask: np.ndarray, k: int) -> np.ndarray:
    """Rows of the k best scores among masked-in rows, best first (ties by row)."""
    rows = np.flatnonzero(mask)
    if rows.size == 0:
        return rows
    values = scores[rows]
    if rows.size > k:
        keep = np.argpartition(-values, k - 1)[:k]
        rows, values = rows[keep], values[keep]
    order = np.lexsort((rows, -values))
    return rows[order]


class Retriever:
    """Searches one SearchIndex. ``embedder`` embeds queries; ``reranker`` (optional) is a cross-encoder."""

    def __init__(self, index: SearchIndex, embedder=None, reranker=None, pages=None) -> None:
        self.index = index
        self.embedder = embedder
        self.reranker = reranker
        self.pages = pages  # a serving.search.pages.PageSearcher, or None: text-only
        self.timings: dict[str, float] = {}

    def mask(self, groups: frozenset[str] | set[str] | None, filters: Filters | None) -> np.ndarray:
        """Rows the caller may read and that pass the filters."""
        ix = self.index
        allowed = ix.readable_by(frozenset(groups or ()))
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
               query_vector: np.ndarray | None = None) -> list[Hit]:
        if not query or not query.strip():
            raise SearchError("query must not be empty")
        if not 1 <= top_k <= 1000:
            raise SearchError(f"top_k must be between 1 and 1000, got {top_k}")
        config = config or RetrievalConfig()
        timings: dict[str, float] = {}
        started = time.perf_counter()
        mask = self.mask(groups, filters)
        timings["filter_ms"] = (time.perf_counter() - started) * 1000
        if not mask.any():
            self.timings = timings
            return []
        dense = sparse = None
        if config.method in ("hybrid", "dense"):
            t = time.perf_counter()
            if query_vector is None:
                query_vector = self.embedder.embed_queries([query])[0]
            timings["embed_ms"] = (time.perf_counter() - t) * 1000
            t = time.perf_counter()
            dense = self.index.vectors @ query_vector
            timings["dense_ms"] = (time.perf_counter() - t) * 1000
        if config.method in ("hybrid", "bm25"):
            t = time.perf_counter()
            sparse = self.index.sparse.scores(query)
            timings["bm25_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        rows, fused, parts = self._combine(dense, sparse, mask, config)
        timings["fusion_ms"] = (time.perf_counter() - t) * 1000
        if config.rerank and self.reranker is not None and len(rows):
            t = time.perf_counter()
            rows, fused, parts = self._rerank(query, rows, fused, parts, config.rerank_top)
            timings["rerank_ms"] = (time.perf_counter() - t) * 1000
        self.timings = timings
        hits = [self._hit(int(r), float(fused[i]), {k: float(v[i]) for k, v in parts.items()})
                for i, r in enumerate(rows[:top_k])]
        if self.pages is not None and config.pages_weight > 0:  # the third signal: page images (MaxSim)
            documents = {self.index.document_ids[r] for r in np.flatnonzero(mask)} if filters else None
            hits = self.pages.fuse(query, groups, hits, config.pages_weight, config.pages_top, documents)[:top_k]
            timings.update(self.pages.timings)
        return hits

    def _combine(self, dense, sparse, mask, config):
        k = config.candidates
        if sparse is not None:
            sparse_mask = mask & (sparse > 0)
        if dense is None:
            rows = _top(sparse, sparse_mask, k)
            return rows, sparse[rows], {"bm25": sparse[rows]}
        if sparse is None:
            rows = _top(dense, mask, k)
            return rows, dense[rows], {"dense": dense[rows]}
        dense_rows = _top(dense, mask, k)
        sparse_rows = _top(sparse, sparse_mask, k)
        return fuse(dense, sparse, dense_rows, sparse_rows, config)

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
