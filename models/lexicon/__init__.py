"""Per-language question lexicons, as data (``pt.yaml``, ``en.yaml``): the abbreviations employees type
("pra", "qto", "vc"; "u", "pls") written out, and the filler words a question carries without content
("leva", "tenho", "me diz"; "tell", "need"), the words that ask a kind of fact ("prazo", "how much"), ask
for a procedure ("o que devo") or open an ask ("qual", "which"), the words the language capitalises that are
no proper names ("August", "Monday"), the month names, the words that introduce a level ("nível") and the
words documents write for a colloquial one ("tirar" -> revogar, remover; ``synonyms``) and the words that name
the current week, month or year ("este mês"; ``periods``) and the words that ask a governance field of one
document ("quem aprovou", "when is it due for review"; ``fields``) and the words of a yes-or-no question that
compares ("both", "o mesmo"; ``polar``) and the words of a question that only asks for a list of documents
(``listing``), and the departments' names in English (``departments``). Only questions are
read through them, and documents are analysed as written, but for three reading aids: the words that open an
exception to a rule (``exceptions``), that bound a quantity (``bounds``) and that open a sentence about what the
sentence before named (``points_back``: "Essa tese define ...").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from importlib import resources

import yaml

from lakehouse.text import fold

__all__ = ["Lexicon", "glossary", "lexicon"]

_FIELDS = frozenset({"responsible", "approver", "version", "issue_date", "last_review_date", "next_review_date",
                     "summary", "document"})  # "document": words naming any document, asking nothing


@dataclass(frozen=True)
class Lexicon:
    abbreviations: dict[str, str]  # folded, lower-case form -> folded written-out words
    fillers: frozenset[str]  # folded words
    asks: dict[str, tuple[str, ...]]  # kind of fact -> folded phrases asking it, in the order kinds are tried
    procedure: tuple[str, ...]  # folded phrases asking what to do
    asking: tuple[str, ...]  # folded words opening an ask
    capitals: frozenset[str] = frozenset()  # folded words the language capitalises that name nothing (months)
    months: dict[str, int] = field(default_factory=dict)  # folded month name -> its number
    levels: tuple[str, ...] = ()  # folded words that introduce a level or grade ("nível III")
    # folded colloquial word -> folded words the documents write for it ("tirar" -> retirar, remover, revogar)
    synonyms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # folded words naming the current period ("este", "até o fim do") and folded period words -> week/month/year
    period_words: tuple[str, ...] = ()
    periods: dict[str, str] = field(default_factory=dict)
    # catalog column -> folded phrases asking it of one document ("quem aprovou" -> approver; ``fields``)
    fields: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # the words of a yes-or-no question that compares ("both", "same", "also"; ``polar`` in the file) -> phrases
    polar: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # folded words of a question that only asks for a list of documents ("lista de todos os POPs"; ``listing``)
    listing: frozenset[str] = frozenset()
    # folded department name in this language -> its folded Portuguese name ("nursing" -> "enfermagem")
    departments: dict[str, str] = field(default_factory=dict)
    # "above" / "below" -> folded words that bound a quantity ("mais de", "até"); folded unit word -> its name
    bounds: dict[str, tuple[str, ...]] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    exceptions: tuple[str, ...] = ()  # folded words that open an exception to a rule ("exceto", "unless")
    # folded words that open a sentence about what the sentence before named ("Essa tese", "This policy")
    points_back: frozenset[str] = frozenset()
    # of those, the ones that name again what the sentence before named ("Essa tese", "Trata-se de", "This policy"),
    # not a pronoun for the paragraph's subject ("Ele", "It")
    names_back: frozenset[str] = frozenset()
    # folded phrases that make a statement ask ("preciso saber", "gostaria de saber", "I need to know"): a request
    # told without a question mark or a question word
    requests: tuple[str, ...] = ()


_POLAR = frozenset({"opens", "both", "same", "also", "and", "connectors", "pronouns", "verbs"})


@cache
def lexicon(language: str) -> Lexicon:
    """The lexicon of ``language`` ("pt" or "en"); a missing or malformed file is an error naming it."""
    name = f"{language}.yaml"
    try:
        raw = yaml.safe_load(resources.files(__package__).joinpath(name).read_text(encoding="utf-8")) or {}
    except FileNotFoundError as exc:
        raise ValueError(f"no question lexicon for language {language!r} ({name})") from exc
    abbreviations = raw.get("abbreviations") or {}
    fillers = raw.get("fillers") or ""
    asks = raw.get("asks") or {}
    if not isinstance(abbreviations, dict) or not isinstance(fillers, str):
        raise ValueError(f"{name}: 'abbreviations' must map forms to words and 'fillers' be a string of words")
    if not isinstance(asks, dict) or not all(isinstance(v, list) for v in asks.values()):
        raise ValueError(f"{name}: 'asks' must map each kind of fact to a list of phrases")
    synonyms = raw.get("synonyms") or {}
    if not isinstance(synonyms, dict) or not all(isinstance(v, list) and v for v in synonyms.values()) or any(
            len(str(w).split()) != 1 for k, v in synonyms.items() for w in [k, *v]):
        raise ValueError(f"{name}: 'synonyms' must map each single word to a list of single words")
    periods = raw.get("periods") or {}
    if not isinstance(periods, dict) or not isinstance(periods.get("this", []), list) or not isinstance(
            periods.get("units", {}), dict) or not set((periods.get("units") or {}).values()) <= {"week", "month",
                                                                                                  "year"}:
        raise ValueError(f"{name}: 'periods' must hold a list 'this' and 'units' mapping words to week, month "
                         "or year")
    fields = raw.get("fields") or {}
    if not isinstance(fields, dict) or not all(isinstance(v, list) for v in fields.values()) or not set(
            fields) <= _FIELDS:
        raise ValueError(f"{name}: 'fields' must map catalog columns ({', '.join(sorted(_FIELDS))}) to lists of "
                         "phrases")

    polar = raw.get("polar") or {}
    if not isinstance(polar, dict) or not set(polar) <= _POLAR or not all(isinstance(v, list) for v in polar.values()):
        raise ValueError(f"{name}: 'polar' must map {', '.join(sorted(_POLAR))} to lists of words")

    bounds = raw.get("bounds") or {}
    if not isinstance(bounds, dict) or not set(bounds) <= {"above", "below", "units"} or not all(
            isinstance(bounds.get(k, []), list) for k in ("above", "below")) or not isinstance(
            bounds.get("units", {}), dict):
        raise ValueError(f"{name}: 'bounds' must hold lists 'above' and 'below' and a map 'units'")

    def phrases(values: list) -> tuple[str, ...]:
        return tuple(fold(str(v).lower()) for v in values)
    return Lexicon({fold(str(k).lower()): fold(str(v).lower()) for k, v in abbreviations.items()},
                   frozenset(fold(fillers.lower()).split()), {str(k): phrases(v) for k, v in asks.items()},
                   phrases(raw.get("procedure") or []), phrases(raw.get("asking") or []),
                   frozenset(fold(str(raw.get("capitals") or "").lower()).split()),
                   {fold(str(k).lower()): int(v) for k, v in (raw.get("months") or {}).items()},
                   phrases(raw.get("levels") or []),
                   {fold(str(k).lower()): phrases(v) for k, v in synonyms.items()},
                   phrases(periods.get("this") or []),
                   {fold(str(k).lower()): str(v) for k, v in (periods.get("units") or {}).items()},
                   {str(k): phrases(v) for k, v in fields.items()},
                   {str(k): phrases(v) for k, v in polar.items()},
                   frozenset(phrases(raw.get("listing") or [])),
                   {fold(str(k).lower()): fold(str(v).lower()) for k, v in (raw.get("departments") or {}).items()},
                   {side: phrases(bounds.get(side) or []) for side in ("above", "below")},
                   {fold(str(k).lower()): str(v) for k, v in (bounds.get("units") or {}).items()},
                   phrases(raw.get("exceptions") or []),
                   frozenset(phrases(raw.get("points_back") or [])),
                   frozenset(phrases(raw.get("names_back") or [])),
                   phrases(raw.get("requests") or []))


@cache
def glossary() -> tuple[tuple[str, str], ...]:
    """The Portuguese <-> English glossary (``pt-en.yaml``): (Portuguese words, English words) pairs."""
    raw = yaml.safe_load(resources.files(__package__).joinpath("pt-en.yaml").read_text(encoding="utf-8")) or {}
    pairs = raw.get("pairs") or []
    if not all(isinstance(p, list) and len(p) == 2 and all(isinstance(w, str) for w in p) for p in pairs):
        raise ValueError("pt-en.yaml: 'pairs' must be a list of [Portuguese words, English words]")
    return tuple((pt, en) for pt, en in pairs)
