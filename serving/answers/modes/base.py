"""The one mode interface: a ``ModeRequest`` in, a ``Retrieved`` out (numbered sources ready for an answer).

Chunks and reports are the citable sources, numbered in rank order; entities and relationships go to the prompt
as notes that point to those numbers. Every mode builds its evidence with ``add_chunk`` and ``add_graph_result``,
so a citation means the same thing whichever mode found it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from serving.answers.engine import Engine
from serving.answers.errors import InvalidRequest
from serving.answers.prompt import Source
from serving.answers.types import EvidenceItem, Filters
from serving.graph import GraphSearcher, SearchResult
from serving.search.retriever import Filters as RetrievalFilters

MAX_NOTES = 12


@dataclass
class Retrieved:
    """What a mode found: evidence items (citable ones numbered), the sources an answer may cite, notes."""

    mode_used: str
    evidence: list[EvidenceItem] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)  # citable id -> source number
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    partial: bool = False
    graph_answer: str | None = None  # global search's own answer (LLM reduce), citing ids
    mode_answer: str | None = None  # a mode's own answer without an LLM, citing source numbers [n]
    trace: list[dict[str, Any]] = field(default_factory=list)  # agentic: the steps of the loop


@dataclass(frozen=True)
class ModeRequest:
    """One question as every mode receives it; ``groups`` are the caller's, applied before any ranking."""

    engine: Engine
    question: str
    groups: frozenset[str]
    filters: Filters | None = None
    top_k: int = 8
    level: int | None = None  # community level (global)
    vector: np.ndarray | None = None  # the question's embedding, computed once per request


class Mode(Protocol):
    name: str
    needs_graph: bool  # without the snapshot's graph index the mode falls back to basic, marked partial

    def retrieve(self, request: ModeRequest) -> Retrieved: ...


class GraphMode:
    """A mode answered by the snapshot's graph searcher; a subclass says which search it runs (``search``) and
    may add to the result (``finish``)."""

    name: str
    needs_graph = True

    def search(self, searcher: GraphSearcher, request: ModeRequest) -> SearchResult:
        raise NotImplementedError

    def finish(self, out: Retrieved, request: ModeRequest, result: SearchResult) -> None:
        """Called once the evidence is added."""

    def retrieve(self, request: ModeRequest) -> Retrieved:
        engine = request.engine
        searcher = engine.graph_searcher(engine.retriever(pages=False))  # graph evidence is chunks only
        started = time.perf_counter()
        result = self.search(searcher, request)
        out = Retrieved(self.name, timings={k: round(float(v), 3) for k, v in result.timings.items()})
        out.timings["graph_search_ms"] = round((time.perf_counter() - started) * 1000, 3)
        add_graph_result(engine, out, result, request.top_k)
        self.finish(out, request, result)
        return out


def retrieval_filters(filters: Filters | None) -> RetrievalFilters | None:
    if filters is None or filters.is_empty():
        return None
    for low, high, name in ((filters.issued_from, filters.issued_to, "issued"),
                            (filters.review_from, filters.review_to, "review")):
        if low and high and low > high:
            raise InvalidRequest(f"filters.{name}_from ({low}) is after filters.{name}_to ({high})",
                                 f"filters.{name}_from")
    return RetrievalFilters(doc_types=tuple(filters.doc_types), departments=tuple(filters.departments),
                            path_prefix=filters.path_prefix, issued_from=filters.issued_from,
                            issued_to=filters.issued_to, review_from=filters.review_from,
                            review_to=filters.review_to)


def section_of(heading_path: list[str]) -> str:
    return " > ".join(heading_path[1:] if len(heading_path) > 1 else heading_path)


def _plain(extra: dict[str, Any]) -> dict[str, Any]:
    """JSON-safe scalars and lists of scalars only."""
    out = {}
    for key, value in extra.items():
        if isinstance(value, str | int | float | bool) or value is None:
            out[key] = value
        elif isinstance(value, list | tuple) and all(isinstance(v, str | int | float) for v in value):
            out[key] = list(value)
        elif isinstance(value, dict) and all(isinstance(v, int | float) for v in value.values()):
            out[key] = {str(k): v for k, v in value.items()}
    return out


def add_chunk(engine: Engine, out: Retrieved, row: int, score: float, extra: dict | None = None) -> None:
    ix = engine.index
    n = len(out.sources) + 1
    chunk_id, document_id = ix.chunk_ids[row], ix.document_ids[row]
    meta = engine.catalog.meta(document_id)
    section = section_of(list(ix.heading_paths[row]))
    out.evidence.append(EvidenceItem(kind="chunk", id=chunk_id, score=round(float(score), 6),
                                     text=ix.texts[row],
                                     n=n, document_id=document_id, title=ix.titles[row], section=section,
                                     pages=list(ix.pages[row]), path=ix.paths[row], doc_type=str(ix.doc_types[row]),
                                     chunk_ids=[chunk_id], metadata=meta, extra=_plain(extra or {})))
    out.sources.append(Source(n, "chunk", ix.titles[row], section, ix.texts[row], str(ix.doc_types[row]),
                              list(ix.pages[row]), meta))
    out.ids[chunk_id] = n


def add_graph_result(engine: Engine, out: Retrieved, result: SearchResult, top_k: int) -> None:
    """A graph search's evidence as numbered sources: its chunks (at most ``top_k``), then its reports; entities
    and relationships become notes citing those numbers."""
    if engine.graph is None:
        raise ValueError("a graph result needs the engine's graph")
    row_of = engine.graph.store.row_of
    chunks = [e for e in result.evidence if e.kind == "chunk"][:top_k]
    for item in chunks:
        add_chunk(engine, out, row_of[item.id], item.score, item.extra)
    for item in (e for e in result.evidence if e.kind == "report"):
        n = len(out.sources) + 1
        title = str(item.extra.get("title") or item.id)
        out.evidence.append(EvidenceItem(kind="report", id=item.id, score=round(float(item.score), 6),
                                         text=item.text, n=n, title=title, chunk_ids=list(item.chunk_ids),
                                         extra=_plain(item.extra)))
        out.sources.append(Source(n, "report", title, "", item.text))
        out.ids.setdefault(item.id, n)
    for item in (e for e in result.evidence if e.kind in ("entity", "relationship")):
        out.evidence.append(EvidenceItem(kind=item.kind, id=item.id, score=round(float(item.score), 6),
                                         text=item.text, chunk_ids=list(item.chunk_ids), extra=_plain(item.extra)))
        if len(out.notes) < MAX_NOTES and item.text.strip():
            refs = "".join(f"[{out.ids[c]}]" for c in item.chunk_ids if c in out.ids)
            label = item.extra.get("name") or f"{item.extra.get('source')} — {item.extra.get('target')}"
            out.notes.append(f"{label}: {' '.join(item.text.split())[:300]} {refs}".strip())


def page_text(engine: Engine, document_id: str, page: int) -> str:
    """The extracted text on a page (from the chunks that cover it), or a note that it is an image only."""
    ix = engine.index
    texts = [ix.texts[r] for r in engine.documents.get(document_id, []) if page in ix.pages[r]]
    return "\n\n".join(texts)[:4000] or f"(imagem da página {page}, sem texto extraído)"


def add_page(engine: Engine, out: Retrieved, hit) -> None:
    """A page the page-image signal found and no text hit covers: a source cited as its document and page."""
    n, page = len(out.sources) + 1, hit.pages[0]
    meta = engine.catalog.meta(hit.document_id)
    text, section = page_text(engine, hit.document_id, page), f"página {page}"
    out.evidence.append(EvidenceItem(kind="page", id=hit.chunk_id, score=round(float(hit.score), 6), text=text,
                                     n=n, document_id=hit.document_id, title=hit.title, section=section,
                                     pages=[page], path=hit.path, metadata=meta,
                                     extra=_plain({"scores": {k: round(v, 6) for k, v in hit.scores.items()}})))
    out.sources.append(Source(n, "page", hit.title, section, text, None, [page], meta))
    out.ids[hit.chunk_id] = n
