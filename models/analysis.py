"""Text analysis for BM25 over Portuguese and English documents.

``analyze`` lower-cases, folds accents ("Ação" -> "acao"), drops stopwords but keeps negations, and stems with
Snowball in the text's language. Identifiers such as "CT-2024-0187", "13.709/2018", "7.3" or "AX4410" are
kept whole and unstemmed, followed by their parts ("ct", "2024", "0187"), so an exact code outranks a code
that only shares parts with it while a partial query still matches. "art. 5º" becomes "art.5" and "§ 2º"
"par.2"; "R$" is a token; a Brazilian thousands number ("13.709", "5.000,00") also yields its plain integer
("13709", "5000").

``analyze_query`` reads a question the same way after writing out its colloquial and abbreviated forms and
dropping its filler words, both from the per-language lexicons (``models/lexicon/*.yaml``); documents are
never read through them.
"""

from __future__ import annotations

import re
from functools import cache

import Stemmer

from lakehouse.text import fold
from models.lexicon import lexicon
from models.stopwords import ENGLISH, ENGLISH_MARKERS, NEGATIONS, PORTUGUESE, PORTUGUESE_MARKERS

__all__ = ["LANGUAGES", "analyze", "analyze_query", "detect_language", "written_out"]

LANGUAGES = ("pt", "en")
_STOPWORDS = {"pt": PORTUGUESE, "en": ENGLISH}
_SNOWBALL = {"pt": "portuguese", "en": "english"}

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-")
# "5º" -> "5", "nº 13" -> " 13"; "25°C" keeps its number.
_ORDINAL = re.compile(r"(?<=\d)\.?\s?(?:[ºª]|°(?![cf]))|\bn\.?\s?[º°]")
_COMBINING = re.compile(r"[\u0300-\u036f]+")
_DIACRITIC = re.compile(r"[ãõçâêôáéíóú]", re.IGNORECASE)
_ARTICLE = re.compile(r"\b(?:art|arts|artigo|artigos)\b\.?\s*(?=\d)")
_PARAGRAPH = re.compile(r"§\s*(?=\d)")
_TOKEN = re.compile(r"(?:r|us)\$|[^\W_]+(?:(?:[-/._]|(?<=\d)[,:](?=\d))[^\W_]+)*")
_PART = re.compile(r"\d+|[^\W\d_]+")
_THOUSANDS = re.compile(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?")
_ENGLISH_SHAPE = re.compile(r"th|wh|sh|ck|[wky]|(?:tion|ing|ies|ness|ment)$")
_PORTUGUESE_SHAPE = re.compile(r"lh|nh|(?:ao|oes|dade|mente)$")
# Unaccented spellings put back before Portuguese Snowball, whose suffix rules need the accents.
# Plural "-ões" becomes "-ão" so that "ações" and "ação" share a stem.
_PT_SUFFIXES = (("coes", "ção"), ("cao", "ção"), ("oes", "ão"), ("ao", "ão"), ("encias", "ências"),
                ("encia", "ência"), ("ancias", "âncias"), ("ancia", "ância"), ("aveis", "áveis"),
                ("avel", "ável"), ("iveis", "íveis"), ("ivel", "ível"))
# a whole word of a question: not part of a code ("CT-2024", "n.º", "13.709/2018")
_QUESTION_WORD = re.compile(r"(?<![\w\-./º°§$])[^\W\d_]+(?!\w|[-/º°]|\.\w)")
_WORD_CACHE_LIMIT = 500_000
_word_cache: dict[str, dict[str, str | None]] = {"pt": {}, "en": {}}


def _fold(text: str) -> str:
    """``lakehouse.text.fold`` after dropping ordinal indicators and unifying dashes."""
    text = text.lower()
    return text if text.isascii() else fold(_ORDINAL.sub("", text.translate(_DASHES)))


@cache
def _stemmer(language: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(_SNOWBALL[language])


def _detect(words: list[str], diacritics: bool) -> str:
    pt = sum(w in PORTUGUESE_MARKERS for w in words)
    en = sum(w in ENGLISH_MARKERS for w in words)
    if pt != en:
        return "pt" if pt > en else "en"
    if diacritics:
        return "pt"
    # No function words either way (short queries): fall back on spelling, "policies" vs "contratos".
    en = sum(_ENGLISH_SHAPE.search(w) is not None for w in words)
    pt = sum(_PORTUGUESE_SHAPE.search(w) is not None for w in words)
    return "en" if en > pt else "pt"


def detect_language(text: str) -> str:
    """``"pt"`` or ``"en"``: more language-specific stopwords wins, then diacritics, then spelling; else
    pt."""
    words = [t for t in _TOKEN.findall(_fold(text)) if t.isalpha()]
    return _detect(words, _DIACRITIC.search(text) is not None)


def _word(word: str, language: str) -> str | None:
    """The index term for one alphabetic, folded word, or None when it is dropped."""
    cache_ = _word_cache[language]
    if word in cache_:
        return cache_[word]
    if word in NEGATIONS:
        term: str | None = word
    elif len(word) < 2 or word in _STOPWORDS[language]:
        term = None
    else:
        stem = word
        if language == "pt":
            for suffix, accented in _PT_SUFFIXES:
                if stem.endswith(suffix) and len(stem) > len(suffix) + 1:
                    stem = stem[: -len(suffix)] + accented
                    break
        term = _fold(_stemmer(language).stemWord(stem))
    if len(cache_) >= _WORD_CACHE_LIMIT:
        cache_.clear()
    cache_[word] = term
    return term


def _identifier(token: str, language: str, out: list[str]) -> None:
    """Append a code's whole form (when it has a digit or a non-hyphen joint) and then its parts."""
    if not token.replace("-", "").isalpha():
        out.append(token)
        for piece in token.replace("/", "-").split("-"):
            if _THOUSANDS.fullmatch(piece):
                out.append(piece.split(",")[0].replace(".", ""))
    for part in _PART.findall(token):
        if part.isdigit():
            out.append(part)
        elif (term := _word(part, language)) is not None:
            out.append(term)


def analyze(text: str, language: str | None = None) -> list[str]:
    """Index terms of ``text`` in order; ``language`` is "pt" or "en", detected from the text when None."""
    if language is not None and language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, not {language!r}")
    folded = _ARTICLE.sub("art.", _fold(text))
    if "§" in folded:
        folded = _PARAGRAPH.sub("par.", folded)
    tokens = _TOKEN.findall(folded)
    if language is None:
        language = _detect([t for t in tokens if t.isalpha()], _DIACRITIC.search(text) is not None)
    out: list[str] = []
    for token in tokens:
        if token.isalpha():
            if (term := _word(token, language)) is not None:
                out.append(term)
        elif token.isdigit() or token[-1] == "$":
            out.append(token)
        else:
            _identifier(token, language, out)
    return out


def _written_out(text: str, language: str, fillers: bool = True) -> str:
    table = lexicon(language)

    def one(m: re.Match[str]) -> str:
        word = m.group(0)
        key = fold(word.lower())
        if fillers and key in table.fillers:
            return " "
        # an abbreviation as typed (lower case, or capitalised at the start); "C" or "PRA" stay themselves
        if key in table.abbreviations and (word.islower() or (len(word) > 1 and word[1:].islower())):
            return " ".join(w for w in table.abbreviations[key].split()
                            if not fillers or w not in table.fillers) or " "
        return word
    return _QUESTION_WORD.sub(one, text)


def written_out(question: str, language: str | None = None, fillers: bool = False) -> tuple[str, str]:
    """(the question with its abbreviations written out and, with ``fillers``, its filler words dropped, its
    language): "qto tempo leva pra aprovar?" -> ("quanto tempo   para aprovar?", "pt")."""
    if language is None:
        language = detect_language(_written_out(question, "pt"))
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, not {language!r}")
    return _written_out(question, language, fillers), language


def analyze_query(question: str, language: str | None = None) -> list[str]:
    """Index terms of a question (``analyze`` of ``written_out``)."""
    text, language = written_out(question, language, fillers=True)
    return analyze(text, language)
