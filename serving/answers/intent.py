"""What a question asks for, by rules: a catalog listing (the metadata fast path), a corpus-wide question, a
multi-hop one, or a plain lookup. ``route`` is the ``auto`` mode's rule.

Catalog questions ask for a list of documents ("quais documentos...", "which documents...") with a governance
predicate: review due within N days, review overdue, a department, an approver, a person responsible, or a
document type. Names are matched against the catalog's own values, accent- and case-insensitively.
"""

from __future__ import annotations

import re
from dataclasses import replace

from lakehouse.text import fold as base_fold
from serving.answers.catalog import CatalogQuery
from serving.answers.routing import compound

_LIST = re.compile(r"\b(quais|qual e a lista|liste|listar|lista de|which|list|show me)\b")
_EXIST = re.compile(r"\b(existem|existe|ha|temos|exist|are there|do we have)\b")
_ANY = re.compile(r"\b(algum|alguma|algum deles|any|some of them)\b")
_DUE = re.compile(r"(?:proxim[oa]s|nos|em|next|within|in the next)\s+(\d{1,4})\s+(?:dias|days)")
_OUTDATED = re.compile(r"revisao vencida|revisoes vencidas|vencid[oa]s|desatualizad|atrasad|overdue|outdated|"
                       r"past due|out of date|expired")
_DUE_WORD = re.compile(r"\b(vencem|vence|vencer|vencimento|revis\w*|due|expir\w*|review\w*)\b")
_APPROVER = re.compile(r"\b(aprov\w*|approv\w*)\b")
_RESPONSIBLE = re.compile(r"\b(elabor\w*|respons\w*|prepar\w*|owner\w*|autor\w*|author\w*|dono)\b")
_DEPARTMENT = re.compile(r"\b(departamento|setor|area|department|team)\b")
_CORPUS_WIDE = re.compile(r"se repete|repetem|recorrente|em comum|\b[nd]?os documentos d[aoe]\b|em todos os|"
                          r"em todas as|across|recur|in common|throughout|organisation's documents|"
                          r"organization's documents")
_CODE = re.compile(r"\b[a-z]{2,5}(?:-[a-z]{2,4})?-\d{2,4}(?:-\d{2,4})?\b")
_HONORIFIC = re.compile(r"^(?:dr|dra|enf|farm|nutr|prof|sr|sra)\.?\s+")
# English and common names of the sample taxonomy's document types (folded, singular).
DOC_TYPE_ALIASES = {
    "pop": "pop", "sop": "pop", "procedimento operacional padrao": "pop", "politica": "politica",
    "policy": "politica", "policie": "politica", "manual": "manual", "contrato": "contrato", "contract": "contrato",
    "protocolo gerenciado": "protocolo_gerenciado", "managed protocol": "protocolo_gerenciado",
    "protocolo clinico": "protocolo", "protocolo": "protocolo", "protocol": "protocolo",
    "instrucao de trabalho": "instrucao_trabalho", "work instruction": "instrucao_trabalho", "ata": "ata",
    "minute": "ata", "formulario": "formulario", "form": "formulario", "anexo": "anexo_contratual", "rh": "rh",
}


def fold(text: str) -> str:
    """``lakehouse.text.fold`` with runs of whitespace collapsed."""
    return " ".join(base_fold(text).split())


def _singular(words: str) -> str:
    out = []
    for w in words.split():
        if len(w) > 3 and w.endswith("oes"):
            w = w[:-3] + "ao"
        elif len(w) > 4 and w.endswith(("ies",)):
            w = w[:-3] + "y"
        elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return " ".join(out)


def _phrase_in(phrase: str, text: str) -> bool:
    return bool(phrase) and f" {phrase} " in f" {text} "


def doc_types_in(question: str, known: list[str]) -> tuple[str, ...]:
    """Document types named in the question (longest phrase wins: "protocolo gerenciado" over "protocolo")."""
    text = _singular(re.sub(r"[^\w\s]", " ", fold(question)))
    phrases = {**DOC_TYPE_ALIASES, **{_singular(fold(k).replace("_", " ")): k for k in known}}
    found: list[str] = []
    for phrase in sorted(phrases, key=len, reverse=True):
        target = phrases[phrase]
        if target in known and _phrase_in(phrase, text):
            text = text.replace(phrase, " ")
            found.append(target)
    return tuple(dict.fromkeys(found))


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
    """The catalog query a listing question asks, or None when it is not one."""
    text = fold(question)
    if not _LIST.search(text):
        return None
    q = CatalogQuery(doc_types=doc_types_in(question, doc_types))
    predicate = False
    if (m := _DUE.search(text)) and _DUE_WORD.search(text):
        q, predicate = replace(q, due_within_days=int(m.group(1))), True
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


def corpus_wide(question: str, doc_types: list[str]) -> bool:
    """A question about a whole class of documents or the whole collection."""
    text = fold(question)
    if _CORPUS_WIDE.search(text):
        return True
    plural_type = any(re.search(rf"\b(os|as|nos|nas|dos|das|the)\s+{re.escape(fold(w))}s\b", text)
                      for w in {*DOC_TYPE_ALIASES, *(t.replace("_", " ") for t in doc_types)} if " " not in w)
    return plural_type or bool(re.search(r"\b(os|nos|dos) protocolos (gerenciados|clinicos)\b", text))


def route(question: str, has_graph: bool, departments: list[str], people: dict[str, list[str]],
          doc_types: list[str]) -> tuple[str, CatalogQuery | None]:
    """The mode ``auto`` picks: catalog, global (corpus-wide), agentic (a compound question: a comparison or
    compliance check, two named documents; see ``routing``), hybrid (several codes named) or basic.
    Without a graph index, global and hybrid fall back to basic."""
    query = catalog_query(question, departments, people, doc_types)
    if query is not None:
        return "catalog", query
    if has_graph and corpus_wide(question, doc_types):
        return "global", None
    if compound(question):
        return "agentic", None
    if has_graph and len(set(_CODE.findall(fold(question)))) >= 2:
        return "hybrid", None
    return "basic", None
