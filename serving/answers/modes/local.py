"""``local``: the entities named in (or closest to) the question, their neighbourhood, relations and source chunks."""

from __future__ import annotations

import time

from serving.answers.modes.base import ModeRequest, Retrieved, add_graph_result, retrieval_filters


class Local:
    name = "local"
    needs_graph = True

    def retrieve(self, request: ModeRequest) -> Retrieved:
        engine = request.engine
        searcher = engine.graph_searcher(engine.retriever())
        started = time.perf_counter()
        result = searcher.local(request.question, request.groups, retrieval_filters(request.filters),
                                 request.top_k, query_vector=request.vector)
        out = Retrieved(self.name, timings={k: round(float(v), 3) for k, v in result.timings.items()})
        out.timings["graph_search_ms"] = round((time.perf_counter() - started) * 1000, 3)
        add_graph_result(engine, out, result, request.top_k)
        return out
