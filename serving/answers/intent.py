"""What a question asks for: a catalog listing (the metadata fast path), a corpus-wide question, a compound one
or a plain lookup. ``route`` is the ``auto`` mode's choice, made by the fitted router (``serving.answers.router``);
this module reads the catalog filters a listing asks for.

A listing's filters are governance predicates: review due within N days or by the end of this week, month or
year (the lexicons' ``periods``), review overdue, a department, an
approver, a person responsible, or a document type (``serving.answers.doctypes``). Names are matched against the
catalog's own values, accent- and case-insensitively.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache

import numpy as np

from lakehouse.text import fold as base_fold
from models.lexicon import lexicon
from serving.answers import router
from serving.answers.catalog import CatalogQuery
from serving.answers.doctypes import DocTypes

_EXIST = re.compile(r"\b(existem|existe|ha|temos|tem|exist|are there|do we have)\b")
_ANY = re.compile(r"\b(algum|alguma|algum deles|any|some of them)\b")
_DUE = re.compile(r"(?:proxim[oa]s|nos|em|next|within|in the next)\s+(\d{1,4})\s+(?:dias|days)")
_OUTDATED = re.compile(r"revisao vencida|revisoes vencidas|vencid[oa]s|desatualizad|atrasad|overdue|outdated|"
                       r"past due|out of date|expired")


@cache
def _periods() -> tuple[re.Pattern, dict[str, str]]:
    """The lexicons' current-period phrases ("este mês", "by the end of the year") as one pattern, and each
    period word's period."""
    this, units = set(), {}
    for language in ("pt", "en"):
        lex = lexicon(language)
        this.update(lex.period_words)
        units.update(lex.periods)
    alternatives = "|".join(sorted(map(re.escape, this), key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\s+({'|'.join(map(re.escape, units))})\b"), units


_DUE_WORD = re.compile(r"\b(vencem|vence|vencer|vencimento|revis\w*|due|expir\w*|review\w*)\b")
_APPROVER = re.compile(r"\b(aprov\w*|approv\w*)\b")
_RESPONSIBLE = re.compile(r"\b(elabor\w*|respons\w*|prepar\w*|owner\w*|autor\w*|author\w*|dono)\b")
_DEPARTMENT = re.compile(r"\b(departamento|setor|area|department|team)\b")
_CODE = re.compile(r"\b[a-z]{2,5}(?:-[a-z]{2,4})?-\d{2,4}(?:-\d{2,4})?\b")
_HONORIFIC = re.compile(r"^(?:dr|dra|enf|farm|nutr|prof|sr|sra)\.?\s+")


def fold(text: str) -> str:
    """``lakehouse.text.fold`` with runs of whitespace collapsed."""
    return " ".join(base_fold(text).split())


def doc_types_in(question: str, known: list[str]) -> tuple[str, ...]:
    """Document types named in the question (longest name wins: "protocolo gerenciado" over "protocolo")."""
    return _doc_types(tuple(known)).named(question)


@cache
def _doc_types(known: tuple[str, ...]) -> DocTypes:
    return DocTypes.of(known)


def doc_types_of(known: list[str]) -> DocTypes:
    """The catalog's document types and the words naming each (cached per list of types)."""
    return _doc_types(tuple(known))


def names_in(question: str, values: list[str]) -> list[str]:
    """Catalog values (people, departments) named in the question, with or without an honorific."""
    text = " " + re.sub(r"[^\w\s.]", " ", fold(question)) + " "
    found = []
    for value in values:
        folded = fold(value)
        bare = _HONORIFIC.sub("", folded)
        if any(len(v) > 3 and f" {v} " in text.replace("?", " ") for v in {folded, bare}):
            found.append(value)
    return found


def catalog_query(question: str, departments: list[str], people: dict[str, list[str]],
                  doc_types: list[str]) -> CatalogQuery | None:
    """The catalog query a listing question asks, or None when it names no governance predicate."""
    text = fold(question)
    q = CatalogQuery(doc_types=doc_types_in(question, doc_types))
    predicate = False
    if (m := _DUE.search(text)) and _DUE_WORD.search(text):
        q, predicate = replace(q, due_within_days=int(m.group(1))), True
    elif (m := _periods()[0].search(text)) and _DUE_WORD.search(text):  # "vencem este mês": up to its end
        q, predicate = replace(q, due_by=_periods()[1][m.group(1)]), True
    if _OUTDATED.search(text):
        predicate = True
        if not (_ANY.search(text) and q.doc_types):  # "which X exist, and is any overdue?": show, do not filter
            q = replace(q, outdated=True)
    if _APPROVER.search(text) and (found := names_in(question, people.get("approver", []))):
        q, predicate = replace(q, approver=found[0]), True
    if _RESPONSIBLE.search(text) and (found := names_in(question, people.get("responsible", []))):
        q, predicate = replace(q, responsible=found[0]), True
    found = names_in(question, departments)
    if found and (_DEPARTMENT.search(text) or len(found[0]) > 12):  # a long name needs no "departamento"
        q, predicate = replace(q, departments=tuple(found)), True
    if q.doc_types and _EXIST.search(text):
        predicate = True
    if not predicate:
        return None
    shown = [c for c, rx in (("approver", _APPROVER), ("responsible", _RESPONSIBLE)) if rx.search(text)]
    return replace(q, show=tuple(shown))


def route(question: str, has_graph: bool, departments: list[str], people: dict[str, list[str]],
          doc_types: list[str], vector: np.ndarray | None = None,
          model_id: str | None = None, language: str | None = None) -> tuple[str, CatalogQuery | None]:
    """The mode ``auto`` picks, from the router's ranking: catalog (when the listing names a predicate; the
    next route otherwise), global (corpus-wide; basic without a graph index), agentic (compound), else hybrid
    when several codes are named and a graph exists, else basic. ``vector`` (the question's embedding by the
    snapshot's encoder ``model_id``) selects the router's dense head; ``language``: the question's, read with
    the index's language shares (a short question no word decides is read in the index's main language)."""
    names = router.Names(_doc_types(tuple(doc_types)), tuple(departments),
                         tuple(v for values in people.values() for v in values))
    for name, _ in router.load().ranked(question, names, vector, model_id, language):
        if name == "catalog":
            if (query := catalog_query(question, departments, people, doc_types)) is not None:
                return "catalog", query
            continue
        if name == "corpus" and has_graph:
            return "global", None
        if name == "compound":
            return "agentic", None
        break
    if has_graph and len(set(_CODE.findall(fold(question)))) >= 2:
        return "hybrid", None
    return "basic", None
