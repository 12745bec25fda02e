"""``global``: themes built at query time from the chunks the caller may read in the communities most relevant
to the question (``serving.graph.themes``): each theme quotes its documents, each quote cites its chunk. With
an LLM, the map-reduce (0-100 ratings) over the same material writes the answer, citing chunk ids.

A question that names a document type ("os protocolos clínicos", "the contracts") is answered from the chunks
of that type when the caller has some (``themes.restrict``); a question that asks for a kind of value ("quais
valores mensais") quotes each sentence without its clauses that state another value and none of the question's
words (``agentic.parts.trim``)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from serving.answers.agentic.parts import _shows, asks, trim
from serving.answers.intent import doc_types_in
from serving.answers.modes.base import ModeRequest, Retrieved, add_chunk
from serving.answers.relevance import terms
from serving.answers.wording import language_of
from serving.graph.global_search import ThemeAnswer

OTHER = {"pt": "Outros documentos", "en": "Other documents"}
HEAD = {"pt": "Temas encontrados em {d} documento(s) que você pode ler:",
        "en": "Themes found in {d} document(s) you may read:"}


class Global:
    name = "global"
    needs_graph = True

    def retrieve(self, request: ModeRequest) -> Retrieved:
        engine = request.engine
        searcher = engine.graph_searcher(engine.retriever())
        started = time.perf_counter()
        result = searcher.global_themes(request.question, request.groups, level=request.level,
                                        query_vector=request.vector,
                                        doc_types=doc_types_in(request.question, engine.catalog.values("doc_type")),
                                        answers=states_asked_value(request.question))
        out = Retrieved(self.name, timings={k: round(float(v), 3) for k, v in result.timings.items()})
        out.timings["graph_search_ms"] = round((time.perf_counter() - started) * 1000, 3)
        if request.filters is not None and not request.filters.is_empty():
            out.warnings.append("filters do not apply to global search (themes span documents)")
        for number, theme in enumerate(result.themes, start=1):
            for quote in theme.quotes:  # the theme's number, not its community id: a community may hold
                if engine.index.chunk_ids[quote.row] not in out.ids:  # members the caller cannot read
                    add_chunk(engine, out, quote.row, round(100 * min(quote.score, 1.0), 3),
                              {"theme_number": number, "theme": theme.title})
        if out.sources:
            out.mode_answer = render(result, out, language_of(request.question), engine, request.question)
        if result.answer:
            out.graph_answer = result.answer
        return out


_BUSINESS_DAYS = re.compile(r"\d+\s+(?:business|working|calendar)\s+days?\b", re.IGNORECASE)  # "3 business days"


def states_asked_value(question: str) -> Callable[[str], bool] | None:
    """Whether a sentence states a value of the kind the question asks for (None: it asks for none)."""
    kinds = asks(question)
    if not kinds:
        return None
    return lambda unit: (any(_shows(k, unit, question) for k in kinds)
                         or ("duration" in kinds and _BUSINESS_DAYS.search(unit) is not None))


def render(result: ThemeAnswer, out: Retrieved, language: str, engine, question: str = "") -> str:
    ix = engine.index
    documents = {e.document_id for e in out.evidence}
    lines = [HEAD["pt" if language == "pt" else "en"].format(d=len(documents))]
    kinds, own = asks(question), terms(question, language)
    for i, theme in enumerate(result.themes, start=1):
        quotes = "; ".join(f"\"{_short(trim(q.text, own, kinds, question, language))}\" ({ix.titles[q.row]}) "
                           f"[{out.ids[ix.chunk_ids[q.row]]}]" for q in theme.quotes)
        lines.append(f"{i}. {theme.title or OTHER['pt' if language == 'pt' else 'en']}: {quotes}")
    return "\n".join(lines)


def _short(text: str, limit: int = 220) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "…"
