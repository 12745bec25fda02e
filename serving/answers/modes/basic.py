"""``basic``: hybrid chunk retrieval (BM25 + dense, fused, optionally reranked) over what the caller may read."""

from __future__ import annotations

import time

from serving.answers.modes.base import ModeRequest, Retrieved, add_chunk, add_page, retrieval_filters


class Basic:
    name = "basic"
    needs_graph = False

    def retrieve(self, request: ModeRequest) -> Retrieved:
        engine = request.engine
        out = Retrieved(self.name)
        retriever = engine.retriever()
        started = time.perf_counter()
        hits = retriever.search(request.question, request.groups, retrieval_filters(request.filters),
                                request.top_k, engine.config, query_vector=request.vector)
        out.timings.update({k: round(v, 3) for k, v in retriever.timings.items()})
        out.timings["retrieval_ms"] = round((time.perf_counter() - started) * 1000, 3)
        for hit in hits:
            if hit.row < 0:  # a page found by the page-image signal alone
                add_page(engine, out, hit)
                continue
            add_chunk(engine, out, hit.row, hit.score, {"scores": {k: round(v, 6) for k, v in hit.scores.items()}})
        return out
