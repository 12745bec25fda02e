"""Text analysis for BM25 over Portuguese and English documents.

``analyze`` lower-cases, folds accents ("Ação" -> "acao"), drops stopwords but keeps negations, and stems with
Snowball in the text's language. Identifiers such as "CT-2024-0187", "13.709/2018", "7.3" or "AX4410" are
kept whole and unstemmed, followed by their parts ("ct", "2024", "0187"), so an exact code outranks a code
that only shares parts with it while a partial query still matches. "art. 5º" becomes "art.5" and "§ 2º"
"par.2"; "R$" is a token; a Brazilian thousands number ("13.709", "5.000,00") also yields its plain integer
("13709", "5000").

``analyze_query`` reads a question the same way after writing out its colloquial and abbreviated forms and
dropping its filler words, both from the per-language lexicons (``models/lexicon/*.yaml``); documents are
never read through them. A question's language does not rest on the detector alone when nothing decides it (no
marker word, no diacritic: "DHA", "fava beans"): given the index's language shares, ``query_languages`` names
every language the index holds and ``analyze_query`` merges the question's terms in each.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache

import Stemmer

from lakehouse.text import fold
from models.lexicon import lexicon
from models.stopwords import ENGLISH, ENGLISH_MARKERS, NEGATIONS_OF, PORTUGUESE, PORTUGUESE_MARKERS

__all__ = ["LANGUAGES", "MIN_SHARE", "analyze", "analyze_query", "detect_language", "language_shares",
           "query_languages", "synonyms", "written_out"]

LANGUAGES = ("pt", "en")
_STOPWORDS = {"pt": PORTUGUESE, "en": ENGLISH}
_SNOWBALL = {"pt": "portuguese", "en": "english"}
# A language holding less of the index than this is not a candidate for an undecided question: one stray
# Portuguese abstract among 3,600 English ones should not add Portuguese stems to "fava beans", while 249
# Portuguese passages beside 5,183 English ones (4.6%) should (benchmarks/query_language.py).
MIN_SHARE = 0.01

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
# a word as typed, with its contraction ("who's", "don't": the lexicon lists them without the apostrophe)
_QUESTION_WORD = re.compile(r"(?<![\w\-./º°§$])[^\W\d_]+(?:['’][^\W\d_]+)?(?!\w|[-/º°]|\.\w)")
_WORD_CACHE_LIMIT = 500_000
_word_cache: dict[str, dict[str, str | None]] = {"pt": {}, "en": {}}


def _fold(text: str) -> str:
    """``lakehouse.text.fold`` after dropping ordinal indicators and unifying dashes."""
    text = text.lower()
    return text if text.isascii() else fold(_ORDINAL.sub("", text.translate(_DASHES)))


@cache
def _stemmer(language: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(_SNOWBALL[language])


def _detection(words: list[str], diacritics: bool) -> tuple[str, bool]:
    """(language, decided): decided when marker words or diacritics settle it, not the spelling fallback."""
    pt = sum(w in PORTUGUESE_MARKERS for w in words)
    en = sum(w in ENGLISH_MARKERS for w in words)
    if pt != en:
        return ("pt" if pt > en else "en"), True
    if diacritics:
        return "pt", True
    # No function words either way (short queries): fall back on spelling, "policies" vs "contratos".
    en = sum(_ENGLISH_SHAPE.search(w) is not None for w in words)
    pt = sum(_PORTUGUESE_SHAPE.search(w) is not None for w in words)
    return ("en" if en > pt else "pt"), False


def _detect(words: list[str], diacritics: bool) -> str:
    return _detection(words, diacritics)[0]


def _words(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(_fold(text)) if t.isalpha()]


def detect_language(text: str) -> str:
    """``"pt"`` or ``"en"``: more language-specific stopwords wins, then diacritics, then spelling; else
    pt."""
    return _detect(_words(text), _DIACRITIC.search(text) is not None)


def language_shares(languages: list[str]) -> dict[str, float]:
    """Each language's share of ``languages`` (one per chunk), most held first: ``{"en": 0.98, "pt": 0.02}``."""
    counts: dict[str, int] = {}
    for language in languages:
        counts[language] = counts.get(language, 0) + 1
    total = sum(counts.values()) or 1
    return {k: round(v / total, 6) for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))}


def query_languages(text: str, shares: Mapping[str, float] | None = None,
                    min_share: float = MIN_SHARE) -> tuple[str, ...]:
    """The languages to analyse a question in. The detected one when marker words or diacritics decide it, or
    when ``shares`` (the index's language shares, :func:`language_shares`) is empty; otherwise every language
    holding at least ``min_share`` of the index, most held first, or the detected one when none does.
    "fava beans" over an English index: ``("en",)``; over a 60/40 Portuguese/English one: ``("pt", "en")``."""
    if shares:
        unknown = sorted(set(shares) - set(LANGUAGES))
        if unknown:
            raise ValueError(f"shares: languages must be among {LANGUAGES}, not {unknown}")
    written = _written_out(text, "pt")
    detected, decided = _detection(_words(written), _DIACRITIC.search(written) is not None)
    if decided or not shares:
        return (detected,)
    held = tuple(k for k, v in sorted(shares.items(), key=lambda kv: (-kv[1], kv[0])) if v >= min_share and v > 0)
    return held or (detected,)


def _word(word: str, language: str) -> str | None:
    """The index term for one alphabetic, folded word, or None when it is dropped."""
    cache_ = _word_cache[language]
    if word in cache_:
        return cache_[word]
    if word in NEGATIONS_OF[language]:
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
        key = fold(word.lower()).replace("'", "").replace("’", "")
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


@cache
def _synonym_stems(language: str) -> dict[str, tuple[str, ...]]:
    """The lexicon's ``synonyms`` as index terms: a colloquial word's stem -> its synonyms' stems."""
    out: dict[str, dict[str, None]] = {}
    for word, others in lexicon(language).synonyms.items():
        for stem in analyze(word, language):
            out.setdefault(stem, {}).update(dict.fromkeys(t for w in others for t in analyze(w, language) if t != stem))
    return {stem: tuple(alts) for stem, alts in out.items() if alts}


def synonyms(terms: list[str] | tuple[str, ...], language: str) -> dict[str, tuple[str, ...]]:
    """Of a question's index terms (``analyze_query``), those the lexicon gives synonyms for, with the
    synonyms' index terms ("tir" -> retir, remov, revog, exclu); documents are never read through them."""
    if language not in LANGUAGES:
        return {}
    known = _synonym_stems(language)
    return {t: known[t] for t in terms if t in known}


def analyze_query(question: str, language: str | None = None,
                  shares: Mapping[str, float] | None = None) -> list[str]:
    """Index terms of a question (``analyze`` of ``written_out``). With no ``language`` and the index's
    language ``shares``, the question is read in each of :func:`query_languages` and the terms merged (first
    occurrence kept, in that order)."""
    if language is None and shares:
        languages = query_languages(question, shares)
        if len(languages) > 1:
            merged: dict[str, None] = {}
            for one in languages:
                merged.update(dict.fromkeys(analyze(written_out(question, one, fillers=True)[0], one)))
            return list(merged)
        language = languages[0]
    text, language = written_out(question, language, fillers=True)
    return analyze(text, language)
