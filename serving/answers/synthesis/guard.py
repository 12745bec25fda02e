"""A synthesizer behind the near-miss check (``synthesis.refusal``): the refusal with where to look when the
graded evidence covers the topic but not the asked fact, else the synthesizer's own draft."""

from __future__ import annotations

from dataclasses import dataclass, field

from serving.answers.compose import Draft
from serving.answers.synthesis import refusal
from serving.answers.synthesis.base import Graded, Synthesizer


@dataclass
class Guarded:
    inner: Synthesizer
    near_miss: refusal.NearMiss = field(default_factory=refusal.NearMiss)
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.name or self.inner.name

    def draft(self, evidence: Graded) -> Draft | None:
        req = evidence.request
        if req is not None:
            pool = refusal.pool_of(req)
            if self.near_miss.applies(req, pool):
                return refusal.where_to_look(req, pool, evidence.language)
        return self.inner.draft(evidence)
