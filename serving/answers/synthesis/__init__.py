"""Synthesis, the one pluggable stage after grading: graded evidence and the question in (``Graded``), a
``Draft`` with citations out (``Synthesizer``). ``build(name)`` is what ``LAKERAG_ANSWERS_SYNTHESIZER`` picks:

- ``selector``: units ranked by the fitted grading score, redundancy removed, each part covered;
- ``rules``: the corrective composer and the modes' own answers (agentic parts, comparison, bridge; global
  themes);
- ``context``: no text, the usable evidence cited.

A version the question names that the title it asks about does not have is refused first (``versions``); a
yes-or-no question that compares names gets its verdict before the extractive answer (``polar``). The
extractive ones sit behind the near-miss refusal (``guard``), a mode's own answer (which says which part it
found nothing for) does not; with an LLM configured and asked for, ``Generated`` writes
the answer from the prompt, checks its citations and falls back to the configured synthesizer."""

from __future__ import annotations

from serving.answers.synthesis.base import Graded, Synthesizer
from serving.answers.synthesis.context import ContextOnly
from serving.answers.synthesis.generated import Generated
from serving.answers.synthesis.guard import Guarded
from serving.answers.synthesis.polar import Polar
from serving.answers.synthesis.refusal import NearMiss
from serving.answers.synthesis.rules import Chain, Corrective, ModeAnswer, rules
from serving.answers.synthesis.selector import Selector
from serving.answers.synthesis.versions import AbsentVersion

NAMES = ("selector", "rules", "context")
DEFAULT = "rules"  # the one that wins on the test split and its rewordings

__all__ = ["DEFAULT", "NAMES", "AbsentVersion", "Chain", "ContextOnly", "Corrective", "Generated", "Graded", "Guarded",
           "ModeAnswer", "NearMiss", "Polar", "Selector", "Synthesizer", "build", "rules"]


def build(name: str, near_miss: bool = True) -> Synthesizer:
    """The synthesizer a setting names (``NAMES``); ``near_miss``: behind the near-miss refusal."""
    if name == "selector":  # a mode's own answer checks each part itself; the near-miss check guards the rest
        selector = Selector()
        return Chain((AbsentVersion(), ModeAnswer(selector), Polar(Guarded(selector) if near_miss else selector)),
                     "selector")
    if name == "rules":
        corrective = Corrective()
        return Chain((AbsentVersion(), ModeAnswer(corrective),
                      Polar(Guarded(corrective) if near_miss else corrective)), "rules")
    if name == "context":
        return ContextOnly()
    raise ValueError(f"unknown synthesizer {name!r}; one of {', '.join(NAMES)}")
