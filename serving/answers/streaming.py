"""An answer as server-sent events, citations inside the stream:

    meta      {request_id, mode, mode_used, snapshot_id, language, evidence}   once, first
    token     {"text": ...}                                                    answer text, in order
    citation  {n, kind, id, document_id, title, section, pages, path}          when [n] is first streamed
    warning   {"message": ...}                                                 e.g. a citation removed
    done      the full ``Answer``                                              once, last

Citations are checked while streaming: a marker is held back until it is complete, then emitted if it points
to a source, dropped otherwise. ``done`` carries the final, checked answer: when the generated text ends
uncited (downgraded) or refuses, ``done.answer`` replaces what was streamed.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from models.llm import LLMError
from serving.answers import compose, prompt
from serving.answers.citations import StreamChecker
from serving.answers.prepared import Prepared
from serving.answers.types import CITABLE, Answer, Citation

log = logging.getLogger(__name__)
_PIECES = re.compile(r"\S+\s*|\s+")


def _citation(retrieved: Any, n: int) -> dict:
    e = next(x for x in retrieved.evidence if x.n == n)
    return msgspec.to_builtins(Citation(n=n, kind=e.kind if e.kind in CITABLE else "chunk",
                                        id=e.id, document_id=e.document_id, title=e.title, section=e.section,
                                        pages=e.pages, path=e.path, doc_type=e.doc_type, metadata=e.metadata))


def _replay(text: str, retrieved: Any, n_sources: int) -> Iterator[tuple[str, Any]]:
    """A ready answer as word-sized tokens, with its citations as they appear."""
    checker = StreamChecker(n_sources, retrieved.ids)
    for piece in _PIECES.findall(text):
        yield from _emit(checker.feed(piece), retrieved)
    yield from _emit(checker.close(), retrieved)


def stream_answer(state: Prepared, fallback_of: Callable[[Prepared], compose.Draft],
                  finish: Callable[[Prepared, compose.Draft, str], Answer], request_id: str,
                  generate: bool = True) -> Iterator[tuple[str, Any]]:
    """The events of one answer; ``fallback_of`` and ``finish`` are the service's own steps; ``generate``: the
    LLM may write the answer (``LAKERAG_API_GENERATE_WITH_LLM``)."""
    retrieved = state.retrieved
    engine = state.engine
    req = state.req
    yield "meta", {"request_id": request_id, "mode": req.mode, "mode_used": state.mode_used,
                   "snapshot_id": engine.snapshot_id, "language": state.language,
                   "evidence": msgspec.to_builtins(retrieved.evidence)}
    draft = state.draft
    gen = engine.generator
    if draft is None:
        fallback = fallback_of(state)
        use_llm = gen is not None and req.generate and generate and fallback.status != "not_found"
        if use_llm and not retrieved.graph_answer:
            draft = yield from _generate(gen, state, fallback)
        elif use_llm:
            draft = compose.generated(gen, state.question, state.language, retrieved, req.filters,
                                      fallback)
        else:
            draft = fallback
    if not draft.streamed:
        yield from _replay(draft.text, retrieved, len(retrieved.evidence))
    for message in draft.warnings:
        yield "warning", {"message": message}
    yield "done", msgspec.to_builtins(finish(state, draft, request_id))


def _generate(gen: Any, state: Prepared, fallback: compose.Draft):
    """Stream the model's answer with citations checked on the fly; returns the final draft."""
    retrieved = state.retrieved
    messages = prompt.messages(state.question, state.language, retrieved.sources, retrieved.notes,
                               state.req.filters)
    checker = StreamChecker(len(retrieved.sources), retrieved.ids)
    parts: list[str] = []
    started = time.perf_counter()
    try:
        for piece in gen.stream(messages):
            parts.append(piece)
            yield from _emit(checker.feed(piece), retrieved)
        yield from _emit(checker.close(), retrieved)
    except LLMError as exc:
        log.warning("streamed generation failed: %s", exc)
        warning = f"the language model failed ({exc.reason}); the extractive answer is returned"
        draft = compose.Draft(fallback.text, fallback.cited, fallback.status, fallback.generator, [warning])
        draft.streamed = bool(parts)
        if parts:
            draft.warnings.append("the streamed text was replaced; use the answer in the done event")
        return draft
    finally:
        retrieved.timings["generation_ms"] = round((time.perf_counter() - started) * 1000, 3)
    draft = compose.checked("".join(parts), retrieved, f"llm:{gen.model}", fallback, state.language)
    if not draft.generator.startswith("llm:") or draft.status != "answered":
        draft.warnings.append("the streamed text was replaced; use the answer in the done event")
    draft.streamed = True
    return draft


def _emit(released: tuple[str, list[int]], retrieved: Any) -> Iterator[tuple[str, Any]]:
    text, new = released
    if text:
        yield "token", {"text": text}
    for n in new:
        yield "citation", _citation(retrieved, n)
