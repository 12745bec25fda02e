"""Values a question pins its fact to, and whether the evidence states the same one: "em setembro de 2025",
"nível III", "in August 2025". A passage about the same topic that states the fact for another month or level
("agosto de 2025"; "Nível: I", "Nível: II") answers a neighbouring question, not this one: the question is a near
miss and gets the refusal with where to look (``synthesis.refusal``).

Each kind of value is read in both languages and compared as a number, so an English question meets a Portuguese
document ("August" and "agosto" are month 8; "level 3" and "Nível: III" are level 3). Month names and the words
that introduce a level come from the lexicons (``months``, ``levels``). A kind the evidence never states is no
mismatch: the passage may state the fact without it.

A third kind is a bound on a quantity ("viagens com mais de 5 dias", "up to 72 hours"): the side of a number
("above", "below") with its unit, from the lexicons' ``bounds``. It is compared only with the bounds the evidence
puts on the same number and unit: "lavanderia em viagens de até 5 dias" does not answer a question about trips
of more than 5 days, and a deadline "em até 10 dias" says nothing about them (dev: three unanswerable questions
wrong -> declined, nothing lost; test unchanged).
"""

from __future__ import annotations

import re
from functools import cache

from lakehouse.text import fold
from models.lexicon import lexicon

__all__ = ["mismatched", "pin_words", "pinned", "states"]

_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10}
_WORDS = frozenset({"may"})  # month names that are common words of their language
_MONTH_NUMBER = re.compile(r"(?<![\d/])(0?[1-9]|1[0-2])/(20\d\d)(?![\d/])")  # "08/2025" (not a day's date)


@cache
def _patterns() -> tuple[dict[str, int], re.Pattern, re.Pattern, frozenset[str]]:
    months: dict[str, int] = {}
    levels: set[str] = set()
    for language in ("pt", "en"):
        lex = lexicon(language)
        months.update(lex.months)
        levels.update(lex.levels)
    names = "|".join(sorted(map(re.escape, months), key=len, reverse=True))
    # a month name, with the year when one follows ("setembro de 2025", "August 2025", "maio/25")
    month = re.compile(r"\b(" + names + r")\b((?:\s+(?:de|of)\s+|\s*/\s*|,?\s+)(?:20)?\d\d\b)?")
    level = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, levels), key=len, reverse=True)) +
                       r")\s*:?\s*(\d{1,2}|[ivx]{1,4}|[a-z]\d{1,2})\b")
    return months, month, level, frozenset(levels)


@cache
def _bounds() -> tuple[re.Pattern, dict[str, str], dict[str, str]]:
    """A bound on a quantity ("mais de 5 dias", "up to 72 hours"), its words' sides and its unit words' names."""
    sides: dict[str, str] = {}
    units: dict[str, str] = {}
    for language in ("pt", "en"):
        lex = lexicon(language)
        units.update(lex.units)
        for side, words in lex.bounds.items():
            sides.update(dict.fromkeys(words, side))
    def alternatives(words) -> str:
        return "|".join(sorted(map(re.escape, words), key=len, reverse=True))
    pattern = re.compile(r"\b(" + alternatives(sides) + r")\s+(\d+(?:[.,]\d+)?)\s*(" + alternatives(units) + r")\b")
    return pattern, sides, units


def _level(value: str) -> int | None:
    """A level's number; a level code with a letter ("L1", "N2": another career track's level 1 or 2) its own
    negative number, so that it never equals "nível 1"."""
    value = value.strip()
    if len(value) in (2, 3) and value[0].isalpha() and value[0] not in "ivx" and value[1:].isdigit():
        return -(100 * (ord(value[0]) - ord("a") + 1) + int(value[1:]))
    return int(value) if value.isdigit() and len(value) <= 2 else _ROMAN.get(value)


def _values(text: str) -> dict[str, set]:
    months, month, level, level_words = _patterns()
    folded = fold(text.lower())
    out: dict[str, set] = {"month": set(), "level": set()}
    bound, sides, units = _bounds()
    out["bound"] = {(sides[w], n.replace(",", "."), units[u]) for w, n, u in bound.findall(folded)}
    # a month name that is also a word ("may") counts only with its year
    out["month"] = {months[m] for m, year in month.findall(folded) if year or m not in _WORDS}
    out["month"] |= {int(m) for m, _ in _MONTH_NUMBER.findall(folded)}
    out["level"] = {n for v in level.findall(folded) if (n := _level(v)) is not None}
    # a table with a level column ("| Cargo | Nível | ..." then "| Técnico | I | ..."): its cells are levels
    column = None
    for line in folded.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else []
        if not cells:
            column = None
        elif column is None:
            column = next((i for i, c in enumerate(cells) if c in level_words), None)
        elif column < len(cells) and (n := _level(cells[column])) is not None:
            out["level"].add(n)
    return out


def measured(text: str) -> set[tuple[str, str]]:
    """The (number, unit) pairs ``text`` writes ("72 horas" -> ("72", "hour"), "within 24 hours" -> ("24", "hour"))
    with the lexicons' unit words."""
    _, _, units = _bounds()
    return {(n.replace(",", "."), units[u]) for n, u in _measure(tuple(units)).findall(fold(text.lower()))}


@cache
def _measure(units: tuple[str, ...]) -> re.Pattern:
    words = "|".join(sorted(map(re.escape, units), key=len, reverse=True))
    return re.compile(r"(?<![\d.,])(\d+(?:[.,]\d+)?)\s*(" + words + r")\b")


def pinned(question: str) -> dict[str, set]:
    """The values of each kind the question names (empty kinds left out)."""
    return {k: v for k, v in _values(question).items() if v}


def mismatched(question: str, texts: list[str]) -> list[str]:
    """The kinds whose value the question names while the ``texts`` state only other values of that kind."""
    asked = pinned(question)
    if not asked:
        return []
    stated: dict[str, set] = {}
    for text in texts:
        for kind, values in _values(text).items():
            stated.setdefault(kind, set()).update(values)
    # a bound is compared with the bounds of the same number and unit only ("até 5 dias" with "mais de 5 dias")
    if "bound" in asked:
        same = {(n, u) for _, n, u in asked["bound"]}
        stated["bound"] = {v for v in stated.get("bound", set()) if (v[1], v[2]) in same}
    return [kind for kind, values in asked.items() if stated.get(kind) and not values & stated[kind]]


def states(question: str, text: str) -> bool:
    """Whether ``text`` states a value the question names of some kind (the month or level asked)."""
    asked = pinned(question)
    stated = _values(text)
    return any(values & stated.get(kind, set()) for kind, values in asked.items())


def pin_words(question: str) -> frozenset[str]:
    """The folded words that pin the question's values ("nivel", "iii"; "setembro", "2025")."""
    months, month, level, _ = _patterns()
    folded = fold(question.lower())
    spans = [m.group(0) for pattern in (month, level, _bounds()[0]) for m in pattern.finditer(folded)]
    return frozenset(w for span in spans for w in re.findall(r"\w+", span))
