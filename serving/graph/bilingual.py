"""Portuguese <-> English term bridges (cross-language retrieval and grading by a glossary).

The glossary is data (``models/lexicon/pt-en.yaml``): pairs of common words of organisational documents
(governance, contracts, security, privacy, finance, HR, clinical quality, time and quantities, common verbs),
written from a dictionary's common senses, not read off questions. BM25 and the grade compare analysed terms,
so "prazo de pagamento" never meets "payment terms", and the multilingual encoder (e5-small) alone ranks the
wrong clause of a passage in the other language about half the time. Three readers:

- the global themes: a corpus-wide question in one language also reaches the documents written in the other
  (``translate`` writes a question's translations as a query in the other language);
- ``basic`` retrieval: the translated query's BM25 hits in the other language, ordered by the encoder, join the
  ranked chunks (``serving.answers.modes.basic``);
- grading: a passage in the other language holds a question's term by one of its translations (``bridge``;
  ``serving.answers.service``), and document cards name a title through them.

``bridge`` maps each analysed term of a question to the analysed terms of its translations. Terms that are the
same in both languages (codes, acronyms such as ANPD or MFA) need no entry: they match as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from lakehouse.text import fold
from models.analysis import analyze
from models.lexicon import glossary

OTHER = {"pt": "en", "en": "pt"}
PAIRS: tuple[tuple[str, str], ...] = glossary()  # (Portuguese words, English words), from models/lexicon/pt-en.yaml


@cache
def _bridges(words: bool = False) -> dict[str, dict[str, frozenset[str]]]:
    """language -> analysed term -> the analysed terms (``words``: the words) of its translations."""
    out: dict[str, dict[str, set[str]]] = {"pt": {}, "en": {}}
    for pt, en in PAIRS:
        sides = {"pt": pt, "en": en}
        for language, other in OTHER.items():
            targets = set(sides[other].split()) if words else set(analyze(sides[other], other))
            for term in analyze(sides[language], language):
                out[language].setdefault(term, set()).update(targets)
    return {lang: {t: frozenset(v) for t, v in terms.items()} for lang, terms in out.items()}


@cache
def _by_word() -> dict[str, dict[str, frozenset[str]]]:
    """language -> folded word of the glossary -> the analysed terms of its translations."""
    out: dict[str, dict[str, set[str]]] = {"pt": {}, "en": {}}
    for pt, en in PAIRS:
        sides = {"pt": pt, "en": en}
        for language, other in OTHER.items():
            targets = set(analyze(sides[other], other))
            for word in sides[language].split():
                out[language].setdefault(fold(word.lower()), set()).update(targets)
    return {lang: {w: frozenset(v) for w, v in words.items()} for lang, words in out.items()}


def bridge(terms: list[str] | set[str], language: str,
           surface: Mapping[str, str] | None = None) -> dict[str, frozenset[str]]:
    """Each analysed term of ``language`` -> its analysed translations (itself included: codes and acronyms
    are written alike in both languages). ``surface``: the word each term was read from; a word the glossary
    holds is translated as that word, not as every word sharing its stem ("nurse" is enfermeiro, not also
    enfermagem as "nursing" is)."""
    table, words = _bridges().get(language, {}), _by_word().get(language, {})
    surface = surface or {}
    return {t: frozenset({t} | (words.get(fold(surface[t].lower())) if t in surface and fold(surface[t].lower())
                                in words else table.get(t, frozenset()))) for t in terms}


def known(term: str) -> bool:
    """Is ``term`` an analysed word of the glossary, in either language (a word the documents may write in the
    other language, not a typo: "uptime" is "disponibilidade", not "último" one letter away)?"""
    return any(term in table for table in _bridges().values())


def listed(word: str) -> bool:
    """Is ``word``, as written (case and accents aside), a word of the glossary, in either language ("crianças",
    "kilometre"; "verifica" is not, though its stem is "verificar"'s)?"""
    folded = fold(word.lower())
    return any(folded in table for table in _by_word().values())


def translate(question: str, language: str) -> str:
    """The question's translatable terms as a query in the other language ("" when none translates)."""
    table = _bridges(words=True).get(language, {})
    return " ".join(sorted({w for t in analyze(question, language) for w in table.get(t, ())}))
