"""Today's rules behind the protocol: the corrective composer (``refine.corrective``: graded strips, version
notes, primaries, bridges) and the answers the modes compose themselves (agentic parts, comparison and bridge
answers, global themes), checked against the evidence; ``Chain`` tries synthesizers in order."""

from __future__ import annotations

from dataclasses import dataclass

from serving.answers import compose, refine
from serving.answers.compose import Draft
from serving.answers.synthesis.base import Graded, Synthesizer


class Extractive:
    """The ungraded extractive answer (the units covering most of the question's term weights)."""

    name = "extractive"

    def draft(self, evidence: Graded) -> Draft:
        return compose.extractive(evidence.weights, evidence.language, evidence.retrieved, evidence.filters)


class Corrective:
    """``refine.corrective`` over the graded evidence (the extractive answer when nothing was graded)."""

    name = "corrective"

    def draft(self, evidence: Graded) -> Draft:
        if evidence.request is None:
            return Extractive().draft(evidence)
        return refine.corrective(evidence.request, evidence.language, evidence.filters)


@dataclass
class ModeAnswer:
    """The answer a mode composed from what it read (agentic parts, comparison and bridge answers; global
    themes), its citations checked; ``fallback`` answers when a citation is invalid, and when there is none."""

    fallback: Synthesizer
    name: str = "mode"

    def draft(self, evidence: Graded) -> Draft | None:
        text = evidence.retrieved.mode_answer
        if not text:
            return None
        fallback = self.fallback.draft(evidence) or compose.refusal(evidence.language)
        return compose.checked(text, evidence.retrieved, f"{evidence.mode}-rules", fallback, evidence.language)


@dataclass
class Chain:
    """The first draft of ``members`` that is not ``None`` (the refusal when none writes one)."""

    members: tuple[Synthesizer, ...]
    name: str = "chain"

    def draft(self, evidence: Graded) -> Draft:
        for member in self.members:
            if (out := member.draft(evidence)) is not None:
                return out
        return compose.refusal(evidence.language)


def rules() -> Chain:
    """Today's behaviour: the mode's own answer when it wrote one, else the corrective composer."""
    corrective = Corrective()
    return Chain((ModeAnswer(corrective), corrective), "rules")
