"""``global``: the caller's fully readable community reports of one level, ranked against the question and
summarised (map-reduce with 0-100 ratings when an LLM is configured)."""

from __future__ import annotations

import time

from serving.answers.modes.base import ModeRequest, Retrieved, add_graph_result


class Global:
    name = "global"
    needs_graph = True

    def retrieve(self, request: ModeRequest) -> Retrieved:
        engine = request.engine
        searcher = engine.graph_searcher(engine.retriever())
        started = time.perf_counter()
        result = searcher.global_search(request.question, request.groups, level=request.level,
                                        query_vector=request.vector)
        out = Retrieved(self.name, timings={k: round(float(v), 3) for k, v in result.timings.items()})
        out.timings["graph_search_ms"] = round((time.perf_counter() - started) * 1000, 3)
        if request.filters is not None and not request.filters.is_empty():
            out.warnings.append("filters do not apply to global search (community reports span documents)")
        add_graph_result(engine, out, result, request.top_k)
        if result.answer and result.evidence:
            out.graph_answer = result.answer
        return out
