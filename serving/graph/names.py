"""Name keys for matching entities in questions: a folded surface form and analysed (stemmed) forms."""

from __future__ import annotations

import re

from lakehouse.text import fold as base_fold
from models.analysis import LANGUAGES, analyze

_COMBINING = re.compile(r"[\u0300-\u036f]+")
_NON_WORD = re.compile(r"[^\w]+|_")

MAX_NGRAM = 6


def fold(text: str) -> str:
    """Casefold, strip accents, keep letters and digits separated by single spaces
    ("São-Paulo" -> "sao paulo")."""
    return " ".join(_NON_WORD.sub(" ", base_fold(text)).split())


def analysed_key(text: str, language: str) -> str:
    return " ".join(analyze(text, language))


def surface_ngrams(text: str, longest: int = MAX_NGRAM) -> list[tuple[str, int, int]]:
    """(key, first token, end token) for every n-gram of the folded text, longest first."""
    tokens = fold(text).split()
    return [(" ".join(tokens[i:i + n]), i, i + n)
            for n in range(min(longest, len(tokens)), 0, -1) for i in range(len(tokens) - n + 1)]


def analysed_ngrams(text: str, language: str, longest: int = MAX_NGRAM) -> list[tuple[str, int, int]]:
    terms = analyze(text, language)
    return [(" ".join(terms[i:i + n]), i, i + n)
            for n in range(min(longest, len(terms)), 0, -1) for i in range(len(terms) - n + 1)]


def name_keys(surface: str) -> tuple[str, dict[str, str]]:
    """The folded key and one analysed key per language of an entity name or alias."""
    return fold(surface), {lang: analysed_key(surface, lang) for lang in LANGUAGES}
