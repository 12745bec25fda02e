"""The typed state of one question between retrieval and the answer text."""

from __future__ import annotations

from dataclasses import dataclass, field

from serving.answers import compose, modes
from serving.answers.access import Caller
from serving.answers.catalog import CatalogQuery
from serving.answers.engine import Engine
from serving.answers.grading import Grade, Question
from serving.answers.rewrite import FollowUp
from serving.answers.types import QueryRequest


@dataclass
class Prepared:
    """What ``prepare`` decided before any answer text: the engine in service for the whole request, the
    normalised question and its language, the mode used, the evidence, its relevance and, when the answer is
    already fixed (a catalog listing or a refusal), the draft."""

    engine: Engine
    question: str
    language: str
    mode_used: str
    req: QueryRequest
    caller: Caller
    started: float
    retrieved: modes.Retrieved
    relevance: float | None = None
    weights: dict[str, float] = field(default_factory=dict)  # idf of each question term
    catalog: tuple[CatalogQuery, list, int] | None = None
    draft: compose.Draft | None = None
    followup: FollowUp | None = None  # the follow-up as rewritten from the conversation's earlier turns
    q: Question | None = None  # the question as grading reads it (None for catalog listings)
    grades: dict[int, Grade] = field(default_factory=dict)  # source number -> grade of that evidence
