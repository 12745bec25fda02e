"""The synthesis stage's one interface: graded evidence and the question in (``Graded``), a ``Draft`` with
citations out. Modes retrieve; a synthesizer writes the answer text from what they found."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from serving.answers.compose import Draft
from serving.answers.modes import Retrieved
from serving.answers.prepared import Prepared
from serving.answers.refine import Request
from serving.answers.types import Filters


@dataclass
class Graded:
    """One question's evidence after grading: what every synthesizer reads."""

    question: str
    language: str
    mode: str
    retrieved: Retrieved
    weights: dict[str, float]  # idf of each question term
    filters: Filters | None
    request: Request | None  # the graded evidence (grades, thresholds, engine); None when it was not graded

    @classmethod
    def of(cls, state: Prepared, correct_at: float, ambiguous_at: float) -> Graded:
        graded = state.q is not None and bool(state.grades) and state.mode_used != "global"
        request = Request(state.engine, state.q, state.retrieved, state.grades, state.caller.effective,
                          correct_at, ambiguous_at) if graded and state.q is not None else None
        return cls(state.question, state.language, state.mode_used, state.retrieved, state.weights,
                   state.req.filters, request)


class Synthesizer(Protocol):
    """Writes one answer from graded evidence; ``None`` means it has nothing to say (a chain tries the next)."""

    name: str

    def draft(self, evidence: Graded) -> Draft | None: ...
