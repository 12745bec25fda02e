"""Recognising structure in a line of text: legal divisions, list items, numbered and capitalised headings.

Shared by the PDF, OCR and plain-text paths, which all start from lines without markup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ROMAN = r"(?=[IVXLC])C{0,3}(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})"
_WORD = "[A-ZÇÃÉÍÓÚÊÔ]+"  # an ordinal in words: PRIMEIRA, DÉCIMA SEGUNDA
_REST = r"(?:\s*[-–—]\s*(?P<rest>.+))?$"  # a title on the same line: "CAPÍTULO I - DISPOSIÇÕES GERAIS"
# Legal divisions of Brazilian acts: LIVRO/TÍTULO > CAPÍTULO > Seção > Subseção > Art.
_DIVISIONS: list[tuple[re.Pattern[str], int]] = [
    (re.compile(rf"^(?:(?:LIVRO|T[ÍI]TULO)\s+(?:{_ROMAN}|ÚNICO)|PARTE\s+(?:GERAL|ESPECIAL))\b\.?{_REST}"), 1),
    (re.compile(rf"^CAP[ÍI]TULO\s+(?:{_ROMAN}(?:-[A-Z])?|ÚNICO)\b\.?{_REST}", re.I), 2),
    (re.compile(rf"^CL[ÁA]USULA\s+(?:\d{{1,3}}\s?[ªºa°]?|{_WORD}(?:\s+{_WORD})?)\.?{_REST}"), 2),
    (re.compile(rf"^SUBSE[ÇC][ÃA]O\s+(?:{_ROMAN}(?:-[A-Z])?|ÚNICA)\b\.?{_REST}", re.I), 4),
    (re.compile(rf"^SE[ÇC][ÃA]O\s+(?:{_ROMAN}(?:-[A-Z])?|ÚNICA)\b\.?{_REST}", re.I), 3),
]
_ARTICLE = re.compile(
    r"^(?P<word>Art\.|Artigo)\s*(?P<num>\d{1,4})(?:\s(?P<num2>\d{1,3})(?=[º°.]))?\s*(?P<ord>[º°ª]|o\b)?"
    r"(?P<suffix>-[A-Z]{1,2}\b)?\s*\.?\s*(?:[-–—]\s*)?(?P<rest>.*)$"
)
# Act titles: "LEI Nº 13.709, DE 14 DE AGOSTO DE 2018", "DECRETO Nº 56 DE ...", "PORTARIA DP Nº. 074, ..."
ACT_TITLE = re.compile(
    r"^(?:LEI(?: COMPLEMENTAR| ORDIN[ÁA]RIA)?|DECRETO(?:-LEI)?|PORTARIA|RESOLU[ÇC][ÃA]O|"
    r"INSTRU[ÇC][ÃA]O NORMATIVA|MEDIDA PROVIS[ÓO]RIA|EMENDA CONSTITUCIONAL|DELIBERA[ÇC][ÃA]O|ATO NORMATIVO)"
    r"\b[^a-z]{0,20}\bN[º°o.]*\.?\s*\d",
)
_BULLET = re.compile(r"^(?P<marker>[•●◦▪▫■□►▶➢➤✓✔·\-–—*\uf0a7\uf0b7\uf0d8\uf0fc\uf076])\s+(?P<rest>\S.*)$")
_ROMAN_ITEM = re.compile(rf"^(?P<marker>{_ROMAN}(?:-[A-Z])?)\s*[-–—]\s+(?P<rest>\S.*)$")
_ALPHA_ITEM = re.compile(r"^(?P<marker>[a-z])\)\s+(?P<rest>\S.*)$")
_NUMBER_ITEM = re.compile(r"^(?P<marker>\d{1,2})[.)]\s+(?P<rest>\S.*)$")
_NUMBERED_HEADING = re.compile(r"^(?P<num>\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+(?P<rest>[A-ZÀ-Ý][^\n]{1,78})$")
_TERMINAL = re.compile(r"[.,;:!?]$")


@dataclass(frozen=True)
class Division:
    """A legal division heading: its Markdown level, its label and any title on the same line."""

    level: int
    label: str
    rest: str = ""


@dataclass(frozen=True)
class ListItem:
    """A list item: ``ordered`` items render as ``N.``, others as ``-`` with their marker kept."""

    text: str
    depth: int = 0
    number: int | None = None


def legal_division(line: str) -> Division | None:
    """``CAPÍTULO I`` -> level 2, ``Seção II`` -> 3, ``Subseção I`` -> 4, ``Art. 5º ...`` -> 4 (label
    ``Art. 5º``), ``CLÁUSULA 1ª`` -> 2."""
    text = line.strip()
    for pattern, level in _DIVISIONS:
        m = pattern.match(text)
        if m:
            rest = (m.group("rest") or "").strip()
            label = text[: m.start("rest")].rstrip(" -–—") if m.group("rest") else text.rstrip(".")
            return Division(level, label, rest)
    m = _ARTICLE.match(text)
    if m:
        num = m.group("num") + (m.group("num2") or "")
        ordinal = "º" if m.group("ord") else ""
        label = f"{m.group('word')} {num}{ordinal}{m.group('suffix') or ''}"
        return Division(4, label, m.group("rest").strip())
    return None


def list_item(line: str, after_item: bool = False) -> ListItem | None:
    """A bullet, roman inciso (``I - ``), alínea (``a) ``) or number (``1. ``) at the start of ``line``."""
    text = line.strip()
    m = _BULLET.match(text)
    if m:
        return ListItem(m.group("rest"))
    m = _ROMAN_ITEM.match(text)
    if m:
        return ListItem(f"{m.group('marker')} - {m.group('rest')}")
    m = _ALPHA_ITEM.match(text)
    if m:
        return ListItem(f"{m.group('marker')}) {m.group('rest')}", depth=1 if after_item else 0)
    m = _NUMBER_ITEM.match(text)
    if m:
        return ListItem(m.group("rest"), number=int(m.group("marker")))
    return None


def numbered_heading_level(line: str) -> int | None:
    """``7. Requisitos`` -> 2, ``7.1 Escopo`` -> 3, ``7.1.2 ...`` -> 4, when the line reads like a title."""
    text = line.strip()
    m = _NUMBERED_HEADING.match(text)
    if not m or _TERMINAL.search(text) or len(m.group("rest").split()) > 10:
        return None
    return min(2 + m.group("num").count("."), 4)


def is_upper(text: str) -> bool:
    """Mostly capital letters (at least four letters)."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 4 and sum(c.isupper() for c in letters) / len(letters) > 0.9


def looks_like_caps_heading(line: str) -> bool:
    """A short line in capitals without final punctuation (``POLÍTICA DE SEGURANÇA``)."""
    text = line.strip()
    return len(text) <= 80 and not _TERMINAL.search(text) and is_upper(text)


def ends_sentence(text: str) -> bool:
    return bool(re.search(r"[.;:!?…)”\"]$", text.rstrip()))
