"""``GraphSearcher``: the query modes over one index and its graph, each returning a ``SearchResult``.

Every mode first computes the caller's mask (groups and filters) and builds the caller's view of the graph
from it, so ranking only ever sees what the caller may read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from models.llm import LLMClient
from serving.graph.context import DEFAULT_BUDGET, pack
from serving.graph.errors import GraphSearchError
from serving.graph.evidence import chunk
from serving.graph.global_search import ThemeAnswer, search_global, search_themes
from serving.graph.graph_store import GraphStore
from serving.graph.hybrid import hybrid_evidence
from serving.graph.local import local_evidence
from serving.graph.map_cache import MapCache
from serving.graph.types import NOT_FOUND, SearchResult
from serving.graph.visibility import View
from serving.search.retriever import Filters, RetrievalConfig, Retriever

Groups = frozenset[str] | set[str] | None


class GraphSearcher:
    def __init__(self, store: GraphStore, retriever: Retriever, llm: LLMClient | None = None,
                 cache_dir: Path | None = None, config: RetrievalConfig | None = None) -> None:
        if store.index is not retriever.index:
            raise GraphSearchError("the graph store and the retriever must share one SearchIndex")
        self.store = store
        self.retriever = retriever
        self.llm = llm
        self.config = config or RetrievalConfig()
        self.map_cache = MapCache(cache_dir)

    def with_retriever(self, retriever: Retriever) -> GraphSearcher:
        """The same searcher (store, LLM, map cache, configuration) over another retriever of the same index,
        e.g. one per request so that its timings are the request's own."""
        twin = GraphSearcher(self.store, retriever, self.llm, config=self.config)
        twin.map_cache = self.map_cache
        return twin

    @property
    def snapshot_id(self) -> str:
        return f"{self.store.index.snapshot_id}+{self.store.snapshot_id}"

    def _embed(self, question: str, vector: np.ndarray | None,
               timings: dict[str, float]) -> np.ndarray | None:
        if vector is None and self.retriever.embedder is not None:
            started = time.perf_counter()
            vector = self.retriever.embedder.embed_queries([question])[0]
            timings["embed_ms"] = (time.perf_counter() - started) * 1000
        return vector

    def _similarity(self, vector: np.ndarray | None) -> np.ndarray:
        """The question's exact dense score of every chunk (0 without a vector): one product per request,
        shared by the chunk retrieval and the graph view."""
        index = self.store.index
        if vector is not None and index.vectors.size:
            return index.dense.scores(vector)
        return np.zeros(len(index), dtype=np.float32)

    def _view(self, question: str, groups: Groups, filters: Filters | None, vector: np.ndarray | None,
              timings: dict[str, float], similarity: np.ndarray | None = None) -> View:
        if not question or not question.strip():
            raise GraphSearchError("question must not be empty")
        started = time.perf_counter()
        caller = frozenset(groups or ())
        mask = self.retriever.mask(caller, filters)
        readable = self.store.index.readable_by(caller) if filters else mask
        if similarity is None:
            similarity = self._similarity(vector)
        view = View.of(self.store, caller, mask, readable, similarity)
        timings["view_ms"] = (time.perf_counter() - started) * 1000
        return view

    def _result(self, mode: str, question: str, evidence, budget: int, timings: dict[str, float],
                started: float) -> SearchResult:
        context = pack(evidence, budget)
        timings["total_ms"] = (time.perf_counter() - started) * 1000
        return SearchResult(mode, question, evidence, context, timings, self.snapshot_id,
                            answer=None if evidence else NOT_FOUND)

    def basic(self, question: str, groups: Groups = None, filters: Filters | None = None, top_k: int = 10,
              budget_chars: int = DEFAULT_BUDGET, query_vector: np.ndarray | None = None) -> SearchResult:
        """Hybrid chunk retrieval only, as a SearchResult."""
        started, timings = time.perf_counter(), {}
        vector = self._embed(question, query_vector, timings)
        hits = self.retriever.search(question, groups, filters, top_k, self.config, query_vector=vector)
        timings.update(self.retriever.timings)
        evidence = [chunk(self.store.index, h.row, h.score, scores=h.scores) for h in hits]
        return self._result("basic", question, evidence, budget_chars, timings, started)

    def local(self, question: str, groups: Groups = None, filters: Filters | None = None, top_k: int = 10,
              budget_chars: int = DEFAULT_BUDGET, query_vector: np.ndarray | None = None) -> SearchResult:
        """Entities named in (or closest to) the question, their neighbourhood, relations, reports and
        chunks."""
        started, timings = time.perf_counter(), {}
        view = self._view(question, groups, filters, self._embed(question, query_vector, timings), timings)
        t = time.perf_counter()
        evidence = local_evidence(view, question, top_k)
        timings["graph_ms"] = (time.perf_counter() - t) * 1000
        return self._result("local", question, evidence, budget_chars, timings, started)

    def hybrid(self, question: str, groups: Groups = None, filters: Filters | None = None, top_k: int = 10,
               budget_chars: int = DEFAULT_BUDGET, query_vector: np.ndarray | None = None) -> SearchResult:
        """Chunk retrieval fused with the graph's local and bridge (second-hop) chunks."""
        started, timings = time.perf_counter(), {}
        vector = self._embed(question, query_vector, timings)
        candidates = max(top_k, self.config.candidates)
        t = time.perf_counter()
        similarity = self._similarity(vector)
        timings["dense_ms"] = (time.perf_counter() - t) * 1000
        hits = self.retriever.search(question, groups, filters, candidates, self.config, query_vector=vector,
                                     dense_scores=similarity if vector is not None else None)
        timings.update({f"retrieval_{k}": v for k, v in self.retriever.timings.items()})
        view = self._view(question, groups, filters, vector, timings, similarity)
        t = time.perf_counter()
        evidence = hybrid_evidence(view, question, hits, top_k)
        timings["graph_ms"] = (time.perf_counter() - t) * 1000
        return self._result("hybrid", question, evidence, budget_chars, timings, started)

    def _level(self, level: int | None) -> int:
        levels = self.store.levels or sorted({lvl for lvl, _ in self.store.communities.values()})
        if level is None:
            return levels[0] if levels else 0
        if level not in levels:
            raise GraphSearchError(f"level must be one of {levels or 'the graph levels (none built)'}, "
                                   f"got {level}")
        return level

    def global_themes(self, question: str, groups: Groups = None, level: int | None = None,
                      query_vector: np.ndarray | None = None, doc_types: tuple[str, ...] = (),
                      answers: Callable[[str], bool] | None = None) -> ThemeAnswer:
        """Query-time global search over the caller's readable chunks of the level's best communities (of
        ``doc_types`` only, when given and the caller has some); ``answers``: see ``themes.build_themes``."""
        started, timings = time.perf_counter(), {}
        level = self._level(level)
        view = self._view(question, groups, None, self._embed(question, query_vector, timings), timings)
        answer = search_themes(view, question, level, self.llm, doc_types, answers)
        answer.timings.update(timings)
        answer.timings["total_ms"] = (time.perf_counter() - started) * 1000
        return answer

    def global_search(self, question: str, groups: Groups = None, level: int | None = None,
                      budget: int = DEFAULT_BUDGET, query_vector: np.ndarray | None = None) -> SearchResult:
        """Map-reduce over the caller's fully readable community reports of ``level`` (default: the top)."""
        started, timings = time.perf_counter(), {}
        levels = self.store.levels
        if level is None:
            level = levels[0] if levels else 0
        elif level not in levels:
            raise GraphSearchError(f"level must be one of {levels or 'the graph levels (none built)'}, "
                                   f"got {level}")
        view = self._view(question, groups, None, self._embed(question, query_vector, timings), timings)
        answer = search_global(view, question, level, budget, self.llm, self.map_cache, self.snapshot_id)
        timings.update(answer.timings)
        timings["total_ms"] = (time.perf_counter() - started) * 1000
        return SearchResult("global", question, answer.evidence, answer.context_text, timings,
                            self.snapshot_id, answer=answer.answer)
