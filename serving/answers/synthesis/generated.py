"""The LLM path behind the protocol: the prompt over the numbered sources, the model's citations checked in
code, and ``fallback``'s extractive draft when the model fails or cites nothing valid (``compose.generated``)."""

from __future__ import annotations

from dataclasses import dataclass

from serving.answers import compose
from serving.answers.compose import Draft
from serving.answers.generation import Generator
from serving.answers.synthesis.base import Graded, Synthesizer


@dataclass
class Generated:
    generator: Generator
    fallback: Synthesizer
    name: str = "llm"

    def draft(self, evidence: Graded) -> Draft:
        fallback = self.fallback.draft(evidence) or compose.refusal(evidence.language)
        if fallback.status == "not_found":
            return fallback
        return compose.generated(self.generator, evidence.question, evidence.language, evidence.retrieved,
                                 evidence.filters, fallback)
