"""Splitting chunk text into answerable units, and the extractive answer: the units that best cover the
question, each followed by the citation of its source.

A unit is a sentence of a paragraph, a list item, or a table row rendered with its header ("Risco: alto;
Escore: 10 a 12"). The chunk's leading "[Title — Section]" line and Markdown headings are not units.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from lakehouse.text import fold
from models.analysis import LANGUAGES
from models.lexicon import lexicon

_ABBREVIATIONS = {"dr", "dra", "sr", "sra", "enf", "farm", "nutr", "prof", "art", "arts", "n", "nº", "no", "fl",
                  "p", "pág", "pag", "ltda", "inc", "co", "cf", "vol", "min", "máx", "max", "aprox", "e.g", "i.e",
                  "etc", "obs", "tel", "av", "s.a", "jr"}
_BOUNDARY = re.compile(r"(?<=[.!?])[\"”)]?\s+(?=[\"“(]?[A-ZÀ-ÖØ-Þ0-9])")
# in a paragraph written in lower case a sentence opens with a small letter too
_LOWER_BOUNDARY = re.compile(r"(?<=[.!?])[\"”)]?\s+(?=[\"“(]?[^\W_])")
LOWER_SHARE = 0.01  # at most this share of a paragraph's letters in upper case: it was written in lower case
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}")
_CLAUSE = re.compile(r"^\d{1,3}(?:\.\d{1,3})+\.?\s")  # "5.1 ", "3.2.1. ": a numbered clause of a policy or contract
_FIRST = re.compile(r"[\"“(]*([^\W\d_]+(?:-[^\W\d_]+)*)")  # a sentence's first word ("Trata-se")
MAX_UNIT = 400


@dataclass(frozen=True)
class Unit:
    text: str
    source: int  # source number (1-based) the unit came from
    position: int  # order within the source


def _lowercased(paragraph: str) -> bool:
    """A paragraph written in lower case throughout (a text lowercased by the tool that exported it): its
    sentences open with a small letter."""
    letters = [c for c in paragraph if c.isalpha()]
    return len(letters) >= 40 and sum(c.isupper() for c in letters) <= LOWER_SHARE * len(letters)


def _sentences(paragraph: str) -> list[str]:
    out, start = [], 0
    boundary = _LOWER_BOUNDARY if _lowercased(paragraph) else _BOUNDARY
    for match in boundary.finditer(paragraph):
        before = paragraph[start:match.start()].rstrip("\"”)")
        last_word = before.rsplit(None, 1)[-1].rstrip(".").lower() if before.split() else ""
        if last_word in _ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha()):
            continue
        out.append(paragraph[start:match.start()].strip())
        start = match.end()
    out.append(paragraph[start:].strip())
    return [s for s in out if s]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def split_units(text: str) -> tuple[str, ...]:
    """Answerable units of one chunk's text, in order (cached: the same chunks come back)."""
    return _split(text)[0]


def clause_leads(text: str) -> tuple[str | None, ...]:
    """For each unit of ``split_units(text)``, the first sentence of its numbered clause when the unit continues
    one ("5.1 No desligamento, o RH registra a data. Todos os acessos são revogados em até 4 horas.": the second
    sentence's lead is the first), else None. A clause's lead says what its other sentences are about."""
    return _split(text)[1]


def antecedents(text: str) -> tuple[int | None, ...]:
    """For each unit of ``split_units(text)``, the position of the sentence before it when the unit is a later
    sentence of the same paragraph that opens with a word pointing back to it (the lexicons' ``points_back``:
    "... chama-se Tese de Church-Turing. Essa tese define que ...", "X is an American singer. He was born in
    ..."), else None. Such a sentence is about what the one before named, and is quoted after it
    (``refine.antecedent``)."""
    return _split(text)[2]


def paragraphs(text: str) -> tuple[int | None, ...]:
    """For each unit of ``split_units(text)``, the number of the prose paragraph it is a sentence of (None for a
    list item, a table row or a line of cells): two units with the same number are sentences of one paragraph."""
    return _split(text)[3]


@lru_cache(maxsize=2)
def _openers(naming: bool = False) -> frozenset[str]:
    return frozenset(w for language in LANGUAGES
                     for w in (lexicon(language).names_back if naming else lexicon(language).points_back))


def _points_back(sentence: str, naming: bool = False) -> bool:
    first = _FIRST.match(sentence)
    return first is not None and fold(first.group(1).lower()) in _openers(naming)


def names_back(sentence: str) -> bool:
    """Does ``sentence`` open by naming again what the sentence before named (the lexicons' ``names_back``: "Essa
    tese ...", "Trata-se de ...", "This policy ..."), not with a pronoun for its paragraph's subject ("Ele ...")?"""
    return _points_back(sentence, naming=True)


@lru_cache(maxsize=5_000)
def table_rows(text: str) -> tuple[tuple[int, tuple[str, ...]] | None, ...]:
    """For each unit of ``split_units(text)``, when it is a row of a table with a header ("Ordem: 1; Tubo (cor da
    tampa): Azul-claro; ..."), the position of its table's first row and the table's column labels, else None."""
    return _split(text)[4]


def _split(text: str) -> tuple[tuple[str, ...], tuple[str | None, ...], tuple[int | None, ...],
                              tuple[int | None, ...], tuple[tuple[int, tuple[str, ...]] | None, ...]]:
    lines = text.splitlines()
    if lines and lines[0].startswith("[") and lines[0].rstrip().endswith("]"):
        lines = lines[1:]
    units: list[str] = []
    leads: list[str | None] = []
    before: list[int | None] = []
    para: list[int | None] = []
    rows: list[tuple[int, tuple[str, ...]] | None] = []
    paragraph: list[str] = []
    header: list[str] | None = None
    table: tuple[int, tuple[str, ...]] | None = None  # the table being read: its first row's unit, its labels

    def add(sentences: list[str], prose: bool = False, row: tuple[int, tuple[str, ...]] | None = None) -> None:
        lead = sentences[0] if sentences and _CLAUSE.match(sentences[0]) else None
        start = len(units)
        units.extend(sentences)
        leads.extend([None] + [lead] * (len(sentences) - 1) if sentences else [])
        before.extend(start + j - 1 if prose and j and _points_back(u) else None for j, u in enumerate(sentences))
        para.extend([start if prose else None] * len(sentences))  # a paragraph is numbered by its first unit
        rows.extend([row] * len(sentences))

    def flush() -> None:
        if paragraph:
            add(_sentences(" ".join(paragraph)), prose=True)
            paragraph.clear()

    for i, raw in enumerate(lines):
        line = raw.strip()
        if line.startswith("|"):
            flush()
            following = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if _TABLE_RULE.match(line):
                continue
            if header is None and _TABLE_RULE.match(following):
                header = _cells(line)
                table = (len(units), tuple(header))
                continue
            cells = _cells(line)
            if header and len(header) == len(cells):
                add(["; ".join(f"{h}: {c}" for h, c in zip(header, cells, strict=True) if c)], row=table)
            else:
                add([" | ".join(c for c in cells if c)])
            continue
        header = None
        if not line or line.startswith("#"):
            flush()
            continue
        if _LIST_ITEM.match(line):
            flush()
            add(_sentences(_LIST_ITEM.sub("", line)))
            continue
        paragraph.append(line)
    flush()
    short = tuple(u if len(u) <= MAX_UNIT else u[: MAX_UNIT - 1].rstrip() + "…" for u in units)
    return (short, tuple(lead if lead is None or len(lead) <= MAX_UNIT else lead[:MAX_UNIT] for lead in leads),
            tuple(before), tuple(para), tuple(rows))


def best_units(units: list[Unit], scores: list[float], limit: int = 3, floor: float = 0.5) -> list[Unit]:
    """Up to ``limit`` distinct units scoring at least ``floor`` x the best score (and above 0), best first;
    ties go to the better-ranked source, then to the earlier unit."""
    if not units:
        return []
    order = sorted(range(len(units)), key=lambda i: (-scores[i], units[i].source, units[i].position))
    best = scores[order[0]]
    picked: list[Unit] = []
    seen: set[str] = set()
    for i in order:
        if scores[i] <= 0 or scores[i] < floor * best or len(picked) >= limit:
            break
        key = " ".join(units[i].text.lower().split())
        if key in seen:
            continue
        seen.add(key)
        picked.append(units[i])
    return picked
