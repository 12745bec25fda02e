"""``lakerag query``: one question answered in-process (no server), printed for a terminal or as JSON."""

from __future__ import annotations

import msgspec

from lakehouse.settings import Settings
from serving.answers.access import Caller
from serving.answers.reloader import SnapshotHolder
from serving.answers.service import DEFAULT_MIN_RELEVANCE, AnswerService
from serving.answers.types import Answer, QueryRequest


def ask(settings: Settings, question: str, mode: str = "auto", groups: set[str] | None = None, top_k: int = 8,
        min_relevance: float = DEFAULT_MIN_RELEVANCE) -> Answer:
    from lakehouse.paths import LakePaths
    from serving.answers.engine import load_engine
    from serving.answers.generation import Generator

    # only what the mode needs: no encoder or vectors for catalog questions, no graph for basic ones
    holder = SnapshotHolder(settings, lambda snapshot_id: load_engine(settings, snapshot_id, holder.generator,
                                                                     mode=mode))
    holder.generator = Generator.from_settings(settings, LakePaths(settings.home).cache / "llm-answers")
    holder.refresh()
    request = msgspec.convert({"question": question, "mode": mode, "top_k": top_k}, QueryRequest)
    return AnswerService(holder, min_relevance).query(request, Caller("cli", frozenset(groups or ())), "cli")


def to_json(answer: Answer) -> str:
    return msgspec.json.encode(answer).decode()


def print_answer(answer: Answer) -> None:
    from rich.console import Console

    console = Console()
    colour = {"answered": "green", "not_found": "yellow", "partial": "magenta"}[answer.status]
    console.print(f"[{colour}]{answer.status}[/] · mode {answer.mode_used} · {answer.generator} · "
                  f"snapshot {answer.snapshot_id} · {answer.timings.get('total_ms', 0):.0f} ms")
    console.print(answer.answer, markup=False, highlight=False)
    for c in answer.citations:
        pages = f"p. {', '.join(map(str, c.pages))}" if c.pages else ""
        where = " — ".join(x for x in (c.section, pages) if x)
        console.print(f"  [{c.n}] {c.title} ({c.path}) {where}", markup=False, highlight=False)
    for s in answer.suggestions:
        owners = ", ".join(x for x in (s.department, s.responsible) if x)
        console.print(f"  → {s.title} ({owners})", markup=False, highlight=False)
    for w in answer.warnings:
        console.print(f"[dim]warning: {w}[/]")
