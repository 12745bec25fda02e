"""Catalog search: BM25 over each document's title, summary and tags, within the catalog's filters.

``search_catalog`` is what ``GET /v1/catalog?q=...`` and the multi-step mode's catalog tool call. The query
text is read first for metadata: people (responsible or approver), departments and document types named in it
become filters when the caller gave none, and those words, with the listing words ("quais documentos",
"responsável", "which documents"), are taken out. BM25 then ranks the filtered documents by what is left. A
question with no content words left ("quais documentos a Helena aprova?") is a metadata-only question: the
filtered list comes back in the catalog's stable order (next review date, title, id) with no scores, never
BM25 scores of an empty query. Term statistics come from the documents the caller may read, only.

``item_text`` is the text an answer is composed from for one catalog row: every metadata field a filter can
use (type, department, responsible, approver, review date) is in it, so an answer found by the owner says who
the owner is.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import msgspec

from models.analysis import analyze, detect_language
from serving.answers.catalog import Catalog, CatalogQuery
from serving.answers.intent import doc_types_in, names_in
from serving.answers.types import CatalogItem
from serving.search.index import PUBLIC

K1, B = 1.2, 0.75
MAX_CANDIDATES = 100_000
_LISTING = ("quais qual quem lista liste listar mostre mostrar documento documentos arquivo arquivos existem existe "
            "ha temos todos todas responsavel responsaveis elaborado elaborados elaborou aprovado aprovados aprovou "
            "aprovador aprova aprovacao dono donos sob cuida tipo tipos departamento setor area "
            "which what who list show document documents file files are there all owner owners owned "
            "responsible approved approver approves type department team about sobre "
            "dr dra enf farm nutr prof sr sra")
LISTING_TERMS = frozenset(analyze(_LISTING, "pt")) | frozenset(analyze(_LISTING, "en"))


def _fields(row: dict) -> str:
    return " ".join([str(row.get("title") or ""), str(row.get("summary") or ""), *(row.get("tags") or [])])


def read_filters(text: str, catalog: Catalog, query: CatalogQuery) -> tuple[CatalogQuery, str]:
    """Filters named in ``text`` (kept where ``query`` already has its own), and the text without them."""
    rest = text
    if not query.doc_types and (types := doc_types_in(text, catalog.values("doc_type"))):
        query = replace(query, doc_types=types)
    if not query.departments and (found := names_in(text, catalog.values("department"))):
        query = replace(query, departments=tuple(found))
    named = []
    if not (query.responsible or query.approver):
        if found := names_in(text, catalog.values("responsible")):
            query, named = replace(query, responsible=found[0]), found
        elif found := names_in(text, catalog.values("approver")):
            query, named = replace(query, approver=found[0]), found
    for value in [*named, *query.departments, *query.doc_types]:
        rest = " ".join(w for w in rest.split() if not (set(analyze(w)) & set(analyze(value.replace("_", " ")))))
    return query, rest


def content_terms(text: str) -> list[str]:
    language = detect_language(text)
    return [t for t in analyze(text, language) if t not in LISTING_TERMS and not t.isdigit()]


def search_catalog(catalog: Catalog, text: str, groups: frozenset[str],
                   query: CatalogQuery | None = None) -> tuple[list[CatalogItem], int, CatalogQuery]:
    """Documents matching ``text`` within the filters, best first (see the module docstring); their count and
    the filters applied."""
    query, rest = read_filters(text or "", catalog, query or CatalogQuery())
    wanted = content_terms(rest)
    matched, _ = catalog.query(replace(query, limit=MAX_CANDIDATES, offset=0), groups)
    if not wanted:  # metadata only: the filtered list in the catalog's own order
        return matched[query.offset:query.offset + query.limit], len(matched), query
    readable = [r for r in catalog.rows.values() if set(r.get("access_groups") or ()) & (groups | {PUBLIC})]
    docs = {r["document_id"]: Counter(analyze(_fields(r))) for r in readable}
    n = max(len(docs), 1)
    avg = sum(sum(c.values()) for c in docs.values()) / n or 1.0
    df = Counter(t for c in docs.values() for t in set(c))
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in set(wanted)}
    scored = []
    for item in matched:
        tf = docs.get(item.document_id, Counter())
        length = sum(tf.values())
        score = math.fsum(idf[t] * tf[t] * (K1 + 1) / (tf[t] + K1 * (1 - B + B * length / avg)) for t in idf if tf[t])
        if score > 0:
            scored.append((round(score, 6), item))
    scored.sort(key=lambda pair: (-pair[0], pair[1].title, pair[1].document_id))
    page = scored[query.offset:query.offset + query.limit]
    return [replace_score(item, score) for score, item in page], len(scored), query


def replace_score(item: CatalogItem, score: float) -> CatalogItem:
    return msgspec.structs.replace(item, score=score)


def item_text(item: CatalogItem, language: str = "pt") -> str:
    """One catalog row as answer text: title, type, department, owners, review date, summary."""
    pt = language == "pt"
    labels = (("tipo", "departamento", "responsável", "aprovador", "próxima revisão") if pt
              else ("type", "department", "responsible", "approver", "next review"))
    values = (item.doc_type, item.department, item.responsible, item.approver,
              item.next_review_date.isoformat() if item.next_review_date else None)
    parts = [f"{label}: {value}" for label, value in zip(labels, values, strict=True) if value]
    text = f"{item.title} — {'; '.join(parts)}"
    return f"{text}. {item.summary}" if item.summary else text


def mention_filters(text: str, query: CatalogQuery, language: str = "pt") -> str:
    """``text`` with a closing line naming each filter value it does not already say (a listing filtered by type
    or owner must say which type or owner it is about)."""
    labels = {"doc_types": ("tipo", "type"), "departments": ("departamento", "department"),
              "responsible": ("responsável", "responsible"), "approver": ("aprovador", "approver")}
    folded, missing = " ".join(text.casefold().replace("_", " ").split()), []
    for key, (pt, en) in labels.items():
        value = getattr(query, key)
        values = list(value) if isinstance(value, tuple) else [value] if value else []
        absent = [v for v in values if v.casefold().replace("_", " ") not in folded]
        if absent:
            missing.append(f"{pt if language == 'pt' else en}: {', '.join(absent)}")
    if not missing:
        return text
    return f"{text}\n({'Filtros' if language == 'pt' else 'Filters'}: {'; '.join(missing)})"
