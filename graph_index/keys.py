"""Normalised entity keys: the same thing written differently gets the same key.

Words are lower-cased and accent-folded, punctuation and stopwords (articles, "de", "the"...) dropped, a
company suffix ("S.A.", "Ltda.") dropped, and plurals made singular by simple Portuguese or English rules
("controles" -> "controle", "ações" -> "acao", "policies" -> "policy"), in the language of the name itself,
so a name gets one key in Portuguese and English chunks. Codes keep their shape ("ct-2024-0187"); norms lose
"nº", thousands dots and "/IEC" ("Lei nº 13.709/2018" -> "lei 13709/2018", "ISO/IEC 27001" -> "iso 27001")."""

from __future__ import annotations

import re
from functools import lru_cache

from graph_index.patterns import ORG_SUFFIX, fold
from models.stopwords import ENGLISH, ENGLISH_MARKERS, NEGATIONS, PORTUGUESE, PORTUGUESE_MARKERS

_STOP = (PORTUGUESE | ENGLISH) - NEGATIONS
_WORD = re.compile(r"[a-z0-9]+(?:/[a-z0-9]+)*")
_LIGHT = re.compile(r"[^\w]+|_")
_THOUSANDS = re.compile(r"(?<=\d)\.(?=\d{3}\b)")
_NUMBER_SIGN = re.compile(r"\bn(?:o|[úu]mero)?\s*[.º°]\s*(?=\d)|\bn[úu]mero\s+(?=\d)|[º°ª]")
_DIACRITIC = re.compile(r"[ãõçâêôáéíóúàü]", re.IGNORECASE)


def light(surface: str) -> str:
    """Folded surface form, words separated by single spaces: what an alias row stores."""
    return " ".join(_LIGHT.sub(" ", fold(surface)).split())


def name_language(surface: str) -> str:
    """The language of a name from its own words: stopwords, then accents; Portuguese when undecided."""
    words = light(surface).split()
    pt = sum(w in PORTUGUESE_MARKERS for w in words)
    en = sum(w in ENGLISH_MARKERS for w in words)
    if pt != en:
        return "pt" if pt > en else "en"
    return "pt" if _DIACRITIC.search(surface) or not any(w.endswith(("ies", "tion", "ness")) for w in words) \
        else "en"


@lru_cache(maxsize=200_000)
def entity_key(surface: str, kind: str) -> str:
    """The normalised key of one surface form of an entity of type ``kind``."""
    if kind == "CODE":
        return "".join(fold(surface).split())
    if kind == "NORM" and any(c.isdigit() for c in surface):
        text = fold(_NUMBER_SIGN.sub(" ", _THOUSANDS.sub("", surface.lower())))
        text = text.replace("iso/iec", "iso").replace("abnt nbr", "nbr")
        words = [w for w in _WORD.findall(text) if w not in _STOP]
        return " ".join(words) or light(surface)
    if surface.isupper() and " " not in surface.strip():
        return light(surface)  # an acronym: "SUS" is not a plural
    surface = ORG_SUFFIX.sub("", surface) if kind == "ORGANIZATION" else surface
    words = [w for w in light(surface).split() if w not in _STOP or w in NEGATIONS]
    if not words:
        return light(surface)
    language = name_language(surface)
    return " ".join(singular(w, language) for w in words)


def singular(word: str, language: str) -> str:
    """A plural folded word made singular (simple rules; names and short words are left alone)."""
    if len(word) <= 3 or not word.isalpha() or not word.endswith("s"):
        return word
    if language == "en":
        if word.endswith("ies"):
            return word[:-3] + "y"
        if word.endswith(("sses", "ches", "shes", "xes")):
            return word[:-2]
        return word if word.endswith(("ss", "us", "is")) else word[:-1]
    for plural, single in (("oes", "ao"), ("aes", "ao"), ("ais", "al"), ("eis", "el"), ("ois", "ol"),
                           ("uis", "ul"), ("ns", "m")):
        if word.endswith(plural) and len(word) > len(plural) + 1:
            return word[: -len(plural)] + single
    if word.endswith(("res", "zes")) and len(word) > 4:
        return word[:-2]
    return word if word.endswith(("ss", "us", "is")) else word[:-1]
