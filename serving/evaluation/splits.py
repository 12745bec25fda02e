"""The dev / test split of a labelled question set: rules, weights and thresholds are fitted on ``dev``; ``test`` is
frozen and only measured (the publish gate and the README report it)."""

from __future__ import annotations

from pathlib import Path

from lakehouse.errors import ConfigError

SPLITS = ("dev", "test", "all")
FIT, MEASURE = "dev", "test"


def select_split(questions: list[dict], split: str, source: Path | str = "questions") -> list[dict]:
    """The questions of one split (``all``: every question); a question without a ``split`` field cannot be
    placed, so asking for ``dev`` or ``test`` over it is an error that names it."""
    if split not in SPLITS:
        raise ConfigError(f"--split {split!r}: one of {', '.join(SPLITS)}")
    if split == "all":
        return questions
    unplaced = [str(q.get("id", n)) for n, q in enumerate(questions, start=1) if q.get("split") not in SPLITS[:2]]
    if unplaced:
        more = f" and {len(unplaced) - 5} more" if len(unplaced) > 5 else ""
        raise ConfigError(f"{source}: --split {split} needs a 'split' (dev or test) on every question; missing on "
                          f"{', '.join(unplaced[:5])}{more}")
    return [q for q in questions if q["split"] == split]


def split_or_all(questions: list[dict], split: str, source: Path | str) -> tuple[list[dict], str]:
    """``split``'s questions when the set is split; a set with no ``split`` field at all (an organisation's own
    questions, never split) is used whole, under the name ``all``."""
    if not any("split" in q for q in questions):
        return questions, "all"
    return select_split(questions, split, source), split
