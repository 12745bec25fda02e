"""``basic``: hybrid chunk retrieval (BM25 + dense, fused, optionally reranked) over what the caller may read,
then, in a mixed corpus, up to ``EXTRA`` chunks in the other language that the question's translated words find
(``_across``): BM25 of an English question meets only English chunks, and the fused ranking loses the Portuguese
passage the encoder alone would have found ("which gloves are worn for chemotherapy?" and "luvas nitrílicas
duplas na manipulação de quimioterápicos"). A question in the larger language gets only those that hold more of
it than its own language's passages do (``_holds_more``)."""

from __future__ import annotations

import time
from dataclasses import replace
from math import fsum

import numpy as np

from models.analysis import analyze, detect_language
from models.lexicon import lexicon
from serving.answers import focus
from serving.answers.modes.base import ModeRequest, Retrieved, add_chunk, add_page, retrieval_filters
from serving.answers.relevance import terms
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
            native = [h.row for h in hits if h.row >= 0]
            for row, score in _across(request, retriever, native)[:EXTRA]:
                if engine.index.chunk_ids[row] not in out.ids:
                    add_chunk(engine, out, row, score, {"scores": {"translated": round(score, 6)}})
        return out


def _across(request: ModeRequest, retriever, native: list[int] | None = None) -> list[tuple[int, float]]:
    """The chunks of the other language that the question's words, translated (``bilingual.translate``),
    find by BM25, ordered by the share of the question they hold through the translations, then by the encoder's
    similarity (weak across languages). For a question in the corpus's larger language, only those that hold
    more of it than every chunk found in its own language (``_holds_more``)."""
    engine = request.engine
    language = detect_language(request.question)
    other = bilingual.OTHER.get(language)
    vectors = engine.index.vectors
    shares = engine.index.language_shares
    if other is None or request.vector is None or not vectors.size or not shares.get(other, 0.0):
        return []
    larger = shares.get(other, 0.0) <= shares.get(language, 0.0)
    if larger and native is None:
        return []
    query = bilingual.translate(request.question, language)
    if not query:
        return []
    hits = retriever.search(query, request.groups, retrieval_filters(request.filters), CANDIDATES,
                            replace(engine.config, method="bm25", rerank=False, pages_weight=0.0))
    rows = [h.row for h in hits if h.row >= 0]
    held = _holds_more(request, rows, native or [], language, other, filtered=larger)
    if not held:
        return []
    rows = list(held)
    cosines = vectors[np.asarray(rows)] @ np.asarray(request.vector, dtype=vectors.dtype)
    # the share of the question a passage holds first, the encoder's similarity (weak across languages) after
    return sorted(zip(rows, map(float, cosines), strict=True), key=lambda p: (-held[p[0]], -p[1]))


def _holds_more(request: ModeRequest, rows: list[int], native: list[int], language: str,
                other: str, filtered: bool = True) -> dict[int, float]:
    """The ``rows`` (other language) whose text holds, through the question's translations, a larger share of
    its IDF-weighted terms than any ``native`` chunk holds of them in its own words, and every word of it the
    glossary does not translate ("nuvemsul": an English remote-work allowance does not answer what NuvemSul is
    paid). Before, BM25 and the encoder of a question in the larger language never met the other language's
    passage that answers a colloquial question ("roubaram meu celular corporativo" and "lost or stolen
    devices")."""
    engine, ix = request.engine, request.engine.index
    # the words of the situation around the ask weigh less, as grading weighs them (``focus``): a long question
    # telling its story in the corpus's words must not outweigh the other language's passage that answers it
    around = focus.factors(request.question, language, engine.relevance.spelled)
    weights = {t: w * around.get(t, 1.0) for t, w in engine.relevance.weights(request.question, language).items()}
    total = fsum(weights.values())
    if not total:
        return {}
    translations = bilingual.bridge(list(weights), language)
    # a word with no translation is a name, a code or a word both languages write ("service desk"); the words
    # that open an ask ("quantas") aside, the passage must hold it as written
    asking = {t for w in lexicon(language).asking for t in analyze(w, language)}
    untranslated = [t for t in weights if translations.get(t, frozenset({t})) == {t} and t not in asking
                    and t not in around]  # (the ask's own words: the story around it names nothing the passage holds)

    def share(held: set[str]) -> float:
        return fsum(weights[t] for t in held) / total
    best = max((share({t for t in weights if t in terms(ix.texts[r], language)}) for r in native), default=0.0)
    out: dict[int, float] = {}
    for r in rows:
        text = ix.texts[r]
        found = terms(text, other) | terms(text, language)
        held = share({t for t in weights if translations.get(t, frozenset({t})) & found})
        if not filtered or held > best and all(t in found for t in untranslated):
            out[r] = round(held, 6)
    return out
