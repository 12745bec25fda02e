"""Context only: no answer text, the graded evidence cited (for a caller that writes its own answer from
``evidence``); the refusal when no item is usable."""

from __future__ import annotations

from serving.answers import compose
from serving.answers.compose import Draft
from serving.answers.grading import INCORRECT
from serving.answers.synthesis.base import Graded


class ContextOnly:
    name = "context"

    def draft(self, evidence: Graded) -> Draft:
        if evidence.request is None:
            cited = [s.n for s in evidence.retrieved.sources]
        else:
            grades = evidence.request.grades
            cited = sorted((n for n, g in grades.items() if g.grade != INCORRECT), key=lambda n: -grades[n].score)
        if not cited:
            return compose.refusal(evidence.language)
        return Draft("", cited, "answered", "context")
