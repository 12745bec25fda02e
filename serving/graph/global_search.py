"""Global search. ``search_themes`` (what the ``global`` mode runs) is built at query time from the caller's
readable chunks (``themes``; see ADR 0010); ``search_global`` is the earlier map-reduce over the visible
community reports of one level, kept for callers of ``GraphSearcher.global_search``.

Map: reports in batches (by characters) each give rated points (0-100) through the LLM or, without one, the
extractive rating of their findings. Points rated 0 are dropped. Reduce: the best points, packed into the
budget, cite their reports and chunks; with an LLM they are also written up as an answer whose citations are
checked in code. The map step is cached per (question, snapshot, caller groups, level, mapper).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from models.llm import LLMClient, LLMError
from serving.graph import llm_steps
from serving.graph.graph_store import Report
from serving.graph.map_cache import MapCache, map_key
from serving.graph.rating import extractive_points
from serving.graph.themes import Theme, build_themes, theme_reports
from serving.graph.types import NOT_FOUND, Evidence
from serving.graph.visibility import View

log = logging.getLogger(__name__)

BATCH_CHARS = 8000


@dataclass
class GlobalAnswer:
    evidence: list[Evidence]
    context_text: str
    answer: str | None
    timings: dict[str, float]


def visible_reports(view: View, level: int) -> list[Report]:
    """The level's reports the caller can read in full, most important first."""
    reports = [r for r in view.store.reports.values()
               if r.level == level and view.report_visible(r.community_id)]
    return sorted(reports, key=lambda r: (-r.rating, r.community_id))


def batches(reports: list[Report], limit: int = BATCH_CHARS) -> list[list[Report]]:
    out: list[list[Report]] = [[]]
    used = 0
    for report in reports:
        size = len(llm_steps.render_reports([report]))
        if out[-1] and used + size > limit:
            out.append([])
            used = 0
        out[-1].append(report)
        used += size
    return [b for b in out if b]


def map_points(view: View, question: str, reports: list[Report], llm: LLMClient | None) -> list[dict]:
    points: list[dict] = []
    for batch in batches(reports):
        if llm is not None:
            try:
                answer = llm.chat(llm_steps.map_messages(question, batch), max_tokens=800,
                                  response_format={"type": "json_object"})
                points += llm_steps.parse_points(answer.text, batch)
                continue
            except (LLMError, ValueError) as exc:
                log.warning("map step fell back to extractive rating for %d reports: %s", len(batch), exc)
        points += extractive_points(view, question, batch)
    return [p for p in points if p["score"] > 0]


def _merge(points: list[dict]) -> list[dict]:
    """Points best first; a description repeated (the same finding in two reports) becomes one point citing
    all its reports and chunks."""
    merged: dict[str, dict] = {}
    for p in sorted(points, key=lambda p: (-p["score"], p["report_ids"][0])):
        key = " ".join(p["description"].split()).casefold()
        if key in merged:
            kept = merged[key]
            kept["report_ids"] = list(dict.fromkeys([*kept["report_ids"], *p["report_ids"]]))
            kept["chunk_ids"] = list(dict.fromkeys([*kept["chunk_ids"], *p["chunk_ids"]]))
        else:
            merged[key] = {**p, "report_ids": list(p["report_ids"]), "chunk_ids": list(p["chunk_ids"])}
    return list(merged.values())


def _point_evidence(view: View, point: dict, mapper: str) -> Evidence:
    report = view.store.reports[point["report_ids"][0]]
    return Evidence("report", report.community_id, float(point["score"]), point["description"],
                    list(point["chunk_ids"]), extra={"title": report.title, "level": report.level,
                                                     "report_ids": point["report_ids"], "mapper": mapper})


def _context(evidence: list[Evidence], budget: int) -> str:
    blocks, used = [], 0
    for n, item in enumerate(evidence, start=1):
        reports, sources = ", ".join(item.extra["report_ids"]), ", ".join(item.chunk_ids)
        block = (f"----Analyst {n}----\nImportance Score: {item.score:g}\n{item.text}\n"
                 f"[Data: Reports ({reports}); Sources ({sources})]")
        if used + len(block) + 2 > budget:
            break
        blocks.append(block)
        item.extra["in_context"] = True
        used += len(block) + 2
    return "\n\n".join(blocks)


def search_global(view: View, question: str, level: int, budget: int, llm: LLMClient | None, cache: MapCache,
                  snapshot_id: str) -> GlobalAnswer:
    timings: dict[str, float] = {}
    started = time.perf_counter()
    mapper = f"llm:{llm.model}" if llm is not None else "extractive"
    key = map_key(question, snapshot_id, view.groups, level, mapper)
    points = cache.get(key)
    timings["map_cached"] = float(points is not None)
    if points is None:
        points = map_points(view, question, visible_reports(view, level), llm)
        cache.put(key, points)
    timings["map_ms"] = (time.perf_counter() - started) * 1000
    evidence = [_point_evidence(view, p, mapper) for p in _merge(points)]
    context = _context(evidence, budget)
    evidence = [e for e in evidence if e.extra.get("in_context")]
    if not evidence:
        return GlobalAnswer([], "", NOT_FOUND, timings)
    answer = None
    if llm is not None:
        started = time.perf_counter()
        try:
            text = llm.chat(llm_steps.reduce_messages(question, context), max_tokens=800).text
            allowed = {i for e in evidence for i in [*e.extra["report_ids"], *e.chunk_ids]}
            answer, dropped = llm_steps.keep_valid_citations(text, allowed)
            if dropped:
                log.warning("reduce answer cited unknown ids, removed: %s", dropped)
        except LLMError as exc:
            log.warning("reduce step failed, returning the points only: %s", exc)
        timings["reduce_ms"] = (time.perf_counter() - started) * 1000
    return GlobalAnswer(evidence, context, answer, timings)


@dataclass
class ThemeAnswer:
    """Query-time global search: themes built from the caller's readable chunks, and (with an LLM) the
    map-reduce answer over the same material, citing chunk ids only."""

    themes: list[Theme]
    answer: str | None
    timings: dict[str, float]


def search_themes(view: View, question: str, level: int, llm: LLMClient | None,
                  doc_types: tuple[str, ...] = (), answers: Callable[[str], bool] | None = None) -> ThemeAnswer:
    themes, timings = build_themes(view, question, level, doc_types, answers)
    answer = None
    if llm is not None and themes:
        started = time.perf_counter()
        reports = theme_reports(view, themes)
        points = map_points(view, question, reports, llm)
        evidence = [_point_evidence_of(reports, p) for p in _merge(points)]
        context = _context(evidence, BATCH_CHARS)
        allowed = {c for e in evidence if e.extra.get("in_context") for c in e.chunk_ids}
        if allowed:
            try:
                text = llm.chat(llm_steps.reduce_messages(question, context), max_tokens=800).text
                answer, dropped = llm_steps.keep_valid_citations(text, allowed)  # chunk ids only: no "(None)"
                if dropped:
                    log.warning("reduce answer cited ids outside its material, removed: %s", dropped)
            except LLMError as exc:
                log.warning("reduce step failed, returning the themes only: %s", exc)
        timings["map_reduce_ms"] = (time.perf_counter() - started) * 1000
    return ThemeAnswer(themes, answer, timings)


def _point_evidence_of(reports: list[Report], point: dict) -> Evidence:
    report = next(r for r in reports if r.community_id == point["report_ids"][0])
    return Evidence("report", report.community_id, float(point["score"]), point["description"],
                    list(point["chunk_ids"]), extra={"title": report.title, "report_ids": point["report_ids"]})
