"""Cross-references in a text: what a reader would look up next.

Kinds: ``code`` (a document code: CT-2024-0187, POL-SI-004), ``annex`` ("Anexo III" of the document the text
belongs to or names), ``annex_generic`` ("anexo contratual", "anexo específico"), ``policy`` ("conforme a
Política de ..."), ``item`` ("item 7.2", "cláusula 5.2", "seção 3"), ``title`` (the title of another catalog
document the caller may read) and ``law`` ("Lei nº 13.709/2018"). Each comes with the sentence it was found
in, whose other words are the terms of the follow-up search."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lakehouse.text import fold
from serving.answers.doctypes import normative_pattern

CODE = re.compile(r"\b[A-Z]{2,5}(?:-[A-Z]{2,4})?-\d{2,4}(?:-\d{2,4})?\b")
ANNEX = re.compile(r"\bAnexo\s+([IVX]{1,5}|\d{1,2})\b", re.IGNORECASE)
ANNEX_GENERIC = re.compile(r"\banexos?\s+(?:contratua(?:l|is)|espec[ií]fico|de\s+seguran[çc]a)", re.IGNORECASE)
POLICY = re.compile(r"\b(?:conforme|segundo|de acordo com|nos termos d[ao]|previst[ao]s? n[ao]|exigid[ao]s? "
                    r"pel[ao]|required by|according to|as set out in)\s+(?:[ao]s?\s+|the\s+)?"
                    rf"({normative_pattern()}"
                    r"[^.;:()?!\n]{3,90})", re.IGNORECASE)
ITEM = re.compile(r"\b(?:item|itens|cl[áa]usula|se[çc][ãa]o|subitem|section|clause)\s+(\d{1,2}(?:\.\d{1,2}){0,2})"
                  r"(?!\d)", re.IGNORECASE)
LAW = re.compile(r"\bLei\s+(?:Federal\s+)?(?:n[º°o.]*\s*)?(\d{1,2}\.?\d{3}/\d{2,4})", re.IGNORECASE)
# Common names of federal laws that organisations' documents carry in their titles instead of the number.
LAW_NAMES = {"13.709/2018": ("LGPD", "Lei Geral de Proteção de Dados"), "12.846/2013": ("Lei Anticorrupção",),
             "14.133/2021": ("Lei de Licitações",), "8.666/1993": ("Lei de Licitações",),
             "8.078/1990": ("Código de Defesa do Consumidor",)}
_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)\s*$")
_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\n+")


@dataclass(frozen=True)
class Reference:
    kind: str  # code | annex | annex_generic | policy | item | title | law
    key: str  # normalised: "CT-2024-0187", "III", "7.2", a folded title, "13.709/2018"
    text: str  # as written
    sentence: str  # the sentence it was found in

    @property
    def ident(self) -> tuple[str, str]:
        return self.kind, self.key


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def find(text: str, titles: dict[str, str] | None = None) -> list[Reference]:
    """References in ``text``, in order of appearance, one per (kind, key). ``titles``: folded title -> title of
    the catalog documents the caller may read (only those can be matched as ``title``)."""
    found: dict[tuple[str, str], Reference] = {}
    for sentence in sentences(text):
        if sentence.startswith("[") and sentence.endswith("]"):  # the chunk's own "[Title — Section]" line
            continue
        for kind, pattern in (("code", CODE), ("annex", ANNEX), ("annex_generic", ANNEX_GENERIC),
                              ("policy", POLICY), ("item", ITEM), ("law", LAW)):
            for match in pattern.finditer(sentence):
                key = _key(kind, match)
                found.setdefault((kind, key), Reference(kind, key, match.group(0).strip(), sentence))
        if titles:
            folded = f" {title_key(sentence)} "
            for key, title in titles.items():
                if names(sentence, title, key, folded):
                    long = _long(key)
                    found.setdefault(("title", key), Reference("title", key, title if long else plain_title(title),
                                                               sentence))
    return list(found.values())


def _long(key: str) -> bool:
    return len(key) >= 12 or (" " in key and len(key) >= 8)


def names(text: str, title: str, key: str | None = None, folded: str | None = None) -> bool:
    """Does ``text`` name the document titled ``title``: a long title folded, a short one only as written,
    capitalised ("M. Ward", "Charmed")? Without ``key``, the title without its disambiguation counts too."""
    if key is None:
        plain = plain_title(title)
        return names(text, title, title_key(title), folded) or (plain != title and names(text, plain, None, folded))
    if _long(key):
        return f" {key} " in (folded if folded is not None else f" {title_key(text)} ")
    return _named(title, text)


def plain_title(title: str) -> str:
    """A title without its trailing disambiguation: "Bethel University (Minnesota)" -> "Bethel University"."""
    return _DISAMBIGUATION.sub("", title).strip()


def _named(title: str, sentence: str) -> bool:
    """A short title written as is in the sentence: capitalised, whole words, case kept (a common word that is
    also a title, "may" or "charmed", is no reference)."""
    name = plain_title(title)
    if len(name) < 4 or not name[0].isupper() or name not in sentence:
        return False
    for match in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", sentence):
        # the whole name, not a part of a longer one ("United" of "United States")
        if not re.match(r"\s+[A-Z]", sentence[match.end():]) and not re.search(r"[A-Z][\w.]*\s+$",
                                                                                  sentence[:match.start()]):
            return True
    return False


def _key(kind: str, match: re.Match) -> str:
    if kind == "code":
        return match.group(0).upper()
    if kind == "annex":
        return match.group(1).upper()
    if kind == "annex_generic":
        return "anexo"
    if kind == "policy":
        return " ".join(fold(match.group(1)).split())
    if kind == "law":
        return _law_key(match)
    return match.group(1)


def law_pattern(key: str) -> re.Pattern[str]:
    """A law's number as documents write it: "13.709/2018", "13709/2018", "13.709/18"."""
    number, year = key.split("/")
    digits = number.replace(".", "")
    return re.compile(rf"\b{digits[:-3]}\.?{digits[-3:]}/(?:{year[:2]})?{year[-2:]}\b")


def _law_key(match: re.Match) -> str:
    number, year = match.group(1).split("/")
    digits = number.replace(".", "")
    return f"{digits[:-3]}.{digits[-3:]}/{year if len(year) == 4 else '20' + year}"


def title_key(title: str) -> str:
    """How a catalog title is matched inside a text (folded, punctuation as spaces)."""
    words = (w.strip("./-") for w in re.sub(r"[^\w./-]", " ", fold(title)).split())
    return " ".join(w for w in words if w)
