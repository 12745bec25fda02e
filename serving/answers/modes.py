"""Evidence for a question in each retrieval mode, as numbered sources ready for an answer.

``basic`` is hybrid chunk retrieval. ``local``, ``global`` and ``hybrid`` run the snapshot's graph searcher;
without a graph index they fall back to ``basic`` and say so (status ``partial``). Chunks and reports are the
citable sources, numbered in rank order; entities and relationships go to the prompt as notes that point to
those numbers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from serving.answers.engine import Engine
from serving.answers.errors import InvalidRequest
from serving.answers.prompt import Source
from serving.answers.types import EvidenceItem, Filters
from serving.search.retriever import Filters as RetrievalFilters
from serving.search.retriever import Hit

GRAPH_MODES = ("local", "global", "hybrid")
MAX_NOTES = 12


@dataclass
class Retrieved:
    mode_used: str
    evidence: list[EvidenceItem] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)  # citable id -> source number
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    partial: bool = False
    graph_answer: str | None = None  # global search's own answer (LLM reduce), citing ids


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


def _section(heading_path: list[str]) -> str:
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


def _add_chunk(engine: Engine, out: Retrieved, row: int, score: float, extra: dict | None = None) -> None:
    ix = engine.index
    n = len(out.sources) + 1
    chunk_id, document_id = ix.chunk_ids[row], ix.document_ids[row]
    meta = engine.catalog.meta(document_id)
    section = _section(list(ix.heading_paths[row]))
    out.evidence.append(EvidenceItem(kind="chunk", id=chunk_id, score=round(float(score), 6),
                                     text=ix.texts[row],
                                     n=n, document_id=document_id, title=ix.titles[row], section=section,
                                     pages=list(ix.pages[row]), path=ix.paths[row], doc_type=str(ix.doc_types[row]),
                                     chunk_ids=[chunk_id], metadata=meta, extra=_plain(extra or {})))
    out.sources.append(Source(n, "chunk", ix.titles[row], section, ix.texts[row], str(ix.doc_types[row]),
                              list(ix.pages[row]), meta))
    out.ids[chunk_id] = n


def basic(engine: Engine, question: str, groups: frozenset[str], filters: Filters | None, top_k: int,
          vector: Any) -> Retrieved:
    out = Retrieved("basic")
    retriever = engine.retriever()
    started = time.perf_counter()
    hits: list[Hit] = retriever.search(question, groups, retrieval_filters(filters), top_k, engine.config,
                                       query_vector=vector)
    out.timings.update({k: round(v, 3) for k, v in retriever.timings.items()})
    out.timings["retrieval_ms"] = round((time.perf_counter() - started) * 1000, 3)
    for hit in hits:
        _add_chunk(engine, out, hit.row, hit.score,
                   {"scores": {k: round(v, 6) for k, v in hit.scores.items()}})
    return out


def graph(engine: Engine, mode: str, question: str, groups: frozenset[str],
          filters: Filters | None, top_k: int,
          level: int | None, vector: Any) -> Retrieved:
    """A graph mode, or ``basic`` marked partial when the snapshot has no graph index."""
    if engine.graph is None:
        out = basic(engine, question, groups, filters, top_k, vector)
        out.partial = True
        out.warnings.append(f"mode {mode!r} needs the graph index: {engine.graph_reason}; answered with basic "
                            f"retrieval instead")
        return out
    searcher = engine.graph_searcher(engine.retriever())
    started = time.perf_counter()
    if mode == "global":
        result = searcher.global_search(question, groups, level=level, query_vector=vector)
    else:
        run = searcher.local if mode == "local" else searcher.hybrid
        result = run(question, groups, retrieval_filters(filters), top_k, query_vector=vector)
    out = Retrieved(mode, timings={k: round(float(v), 3) for k, v in result.timings.items()})
    out.timings["graph_search_ms"] = round((time.perf_counter() - started) * 1000, 3)
    if mode == "global" and filters is not None and not filters.is_empty():
        out.warnings.append("filters do not apply to global search (community reports span documents)")
    _from_result(engine, out, result, top_k)
    if mode == "global" and result.answer and result.evidence:
        out.graph_answer = result.answer
    return out


def _from_result(engine: Engine, out: Retrieved, result: Any, top_k: int) -> None:
    row_of = engine.graph.store.row_of
    chunks = [e for e in result.evidence if e.kind == "chunk"][:top_k]
    for item in chunks:
        _add_chunk(engine, out, row_of[item.id], item.score, item.extra)
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

