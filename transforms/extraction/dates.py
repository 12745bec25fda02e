"""Dates in Brazilian and English documents: 12/03/2026, 12.03.2026, 2026-03-12, 12 de março de 2026."""

from __future__ import annotations

import re
from datetime import date

_MONTHS = {
    "janeiro": 1, "jan": 1, "january": 1, "fevereiro": 2, "fev": 2, "february": 2, "feb": 2, "marco": 3,
    "mar": 3, "march": 3, "abril": 4, "abr": 4, "april": 4, "apr": 4, "maio": 5, "mai": 5, "may": 5,
    "junho": 6, "jun": 6, "june": 6, "julho": 7, "jul": 7, "july": 7, "agosto": 8, "ago": 8, "august": 8,
    "aug": 8, "setembro": 9, "set": 9, "september": 9, "sep": 9, "sept": 9, "outubro": 10, "out": 10,
    "october": 10, "oct": 10, "novembro": 11, "nov": 11, "november": 11, "dezembro": 12, "dez": 12,
    "december": 12, "dec": 12,
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
# Patterns run on accent-folded, lower-case text (see metadata.fold).
DATE = re.compile(
    rf"(?P<dmy>\b(?P<d>\d{{1,2}})[/.\-](?P<m>\d{{1,2}})[/.\-](?P<y>\d{{4}}|\d{{2}})\b)"
    rf"|(?P<iso>\b(?P<iy>\d{{4}})-(?P<im>\d{{2}})-(?P<id>\d{{2}})\b)"
    rf"|(?P<long>\b(?P<ld>\d{{1,2}})(?:º|o)?\s+(?:de\s+)?(?P<lm>{_MONTH})\.?\s+(?:de\s+)?(?P<ly>\d{{4}})\b)"
    rf"|(?P<us>\b(?P<um>{_MONTH})\.?\s+(?P<ud>\d{{1,2}}),?\s+(?P<uy>\d{{4}})\b)"
)


def parse_date(match: re.Match[str]) -> date | None:
    """The date a ``DATE`` match denotes, or None when it is not a calendar date."""
    try:
        if match.group("dmy"):
            year = int(match.group("y"))
            year += 2000 if year < 70 else (1900 if year < 100 else 0)
            return date(year, int(match.group("m")), int(match.group("d")))
        if match.group("iso"):
            return date(int(match.group("iy")), int(match.group("im")), int(match.group("id")))
        if match.group("long"):
            return date(int(match.group("ly")), _MONTHS[match.group("lm")], int(match.group("ld")))
        return date(int(match.group("uy")), _MONTHS[match.group("um")], int(match.group("ud")))
    except ValueError:
        return None


def first_date(folded: str) -> date | None:
    """The first valid date in accent-folded, lower-case text."""
    for match in DATE.finditer(folded):
        parsed = parse_date(match)
        if parsed is not None:
            return parsed
    return None
