"""``basic``: hybrid chunk retrieval (BM25 + dense, fused, optionally reranked) over what the caller may read,
then, for a question in the smaller language of a mixed corpus, up to ``EXTRA`` chunks in the larger one that
the question's translated words find (``_across``): BM25 of an English question meets only English chunks, and
the fused ranking loses the Portuguese passage the encoder alone would have found ("which gloves are worn for
chemotherapy?" and "luvas nitrílicas duplas na manipulação de quimioterápicos")."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from models.analysis import detect_language
from serving.answers.modes.base import ModeRequest, Retrieved, add_chunk, add_page, retrieval_filters
from serving.graph import bilingual

EXTRA = 3  # chunks of the other language added after the ranked ones (``_across``)
CANDIDATES = 30  # the translated query's BM25 hits the encoder orders


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
        if EXTRA:
            for row, score in _across(request, retriever)[:EXTRA]:
                if engine.index.chunk_ids[row] not in out.ids:
                    add_chunk(engine, out, row, score, {"scores": {"translated": round(score, 6)}})
        return out


def _across(request: ModeRequest, retriever) -> list[tuple[int, float]]:
    """The chunks of the other language that the question's words, translated (``bilingual.translate``),
    find by BM25, ordered by the encoder's similarity to the question."""
    engine = request.engine
    language = detect_language(request.question)
    other = bilingual.OTHER.get(language)
    vectors = engine.index.vectors
    shares = engine.index.language_shares
    # only a question in the corpus's smaller language: in the larger one, its BM25 already reads most of the
    # corpus and the encoder reaches the rest (dev: the translated chunks of the larger language's questions
    # answered two unanswerable ones and no other)
    if other is None or request.vector is None or not vectors.size or \
            shares.get(other, 0.0) <= shares.get(language, 0.0):
        return []
    query = bilingual.translate(request.question, language)
    if not query:
        return []
    hits = retriever.search(query, request.groups, retrieval_filters(request.filters), CANDIDATES,
                            replace(engine.config, method="bm25", rerank=False, pages_weight=0.0))
    rows = [h.row for h in hits if h.row >= 0]
    if not rows:
        return []
    cosines = vectors[np.asarray(rows)] @ np.asarray(request.vector, dtype=vectors.dtype)
    return sorted(zip(rows, map(float, cosines), strict=True), key=lambda p: -p[1])
