"""The one text fold: how names, prefixes, codes and questions compare case- and accent-insensitively."""

from __future__ import annotations

import re
import unicodedata

_COMBINING = re.compile(r"[\u0300-\u036f]+")


def fold(text: str) -> str:
    """Casefolded, accents removed ("Políticas/" -> "politicas/"); ASCII text takes a fast path."""
    text = text.casefold()
    return text if text.isascii() else _COMBINING.sub("", unicodedata.normalize("NFKD", text))


def fold_aligned(text: str) -> str:
    """``fold`` one character per character, so offsets found in the result apply to ``text``."""
    return "".join((fold(c) or c)[0] for c in text)
