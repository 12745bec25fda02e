"""Answer texts: the refusal, the extractive answer, the checked LLM answer, and the catalog listing."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date
from math import fsum

from models.llm import LLMError
from serving.answers import citations, prompt
from serving.answers.catalog import CatalogQuery, period_end
from serving.answers.engine import Engine
from serving.answers.generation import Generator
from serving.answers.modes import Retrieved
from serving.answers.relevance import terms
from serving.answers.sentences import Unit, best_units, split_units
from serving.answers.types import CatalogItem, EvidenceItem, Filters, Suggestion
from serving.answers.wording import META, describe_review, fmt_date, is_refusal, not_found

log = logging.getLogger(__name__)

MAX_SUGGESTIONS = 3
MAX_LISTED = 50


@dataclass
class Draft:
    """An answer text with the source numbers it cites, its status and how it was made."""

    text: str
    cited: list[int]
    status: str
    generator: str
    warnings: list[str] = field(default_factory=list)
    streamed: bool = False  # its text already went out as stream tokens


def suggestions(engine: Engine, retrieved: Retrieved) -> list[Suggestion]:
    """Owners of the closest documents (all readable by the caller: they come from its own evidence)."""
    out: list[Suggestion] = []
    for item in retrieved.evidence:
        if item.kind != "chunk" or not item.document_id or any(s.document_id == item.document_id for s in out):
            continue
        row = engine.catalog.rows.get(item.document_id) or {}
        out.append(Suggestion(document_id=item.document_id, title=item.title or "", path=item.path or "",
                              department=row.get("department"), responsible=row.get("responsible"),
                              approver=row.get("approver")))
        if len(out) >= MAX_SUGGESTIONS:
            break
    return out


def refusal(language: str) -> Draft:
    return Draft(not_found(language), [], "not_found", "rules")


def extractive(weights: dict[str, float], language: str, retrieved: Retrieved, filters: Filters | None,
               limit: int = 3) -> Draft:
    """The units of the sources that best cover the question's term ``weights``, each followed by its
    citation."""
    units = [Unit(text, s.n, i) for s in retrieved.sources for i, text in enumerate(split_units(s.text))]
    # a unit is read in its section: the section title's terms count for it
    context = {s.n: terms(f"{s.title} {s.section}", language) for s in retrieved.sources}
    rank = {s.n: max(1.0 - 0.02 * (s.n - 1), 0.5) for s in retrieved.sources}
    total = fsum(weights.values()) or 1.0
    scores = [fsum(weights[t] for t in (terms(u.text, language) | context[u.source]) & weights.keys()) / total
              * rank[u.source] for u in units]
    picked = best_units(units, scores, limit)
    if not picked:
        return refusal(language)
    lines = [f"{u.text} [{u.source}]" for u in picked]
    header = prompt.describe_filters(filters, language)
    text = "\n".join([header, *lines] if header else lines)
    return Draft(text, list(dict.fromkeys(u.source for u in picked)), "answered", "extractive")


def checked(text: str, retrieved: Retrieved, generator: str, fallback: Draft, language: str) -> Draft:
    """A model's answer with its citations checked; repaired, or downgraded to ``fallback`` when nothing valid
    is cited."""
    if is_refusal(text):
        return Draft(not_found(language), [], "not_found", generator)
    result = citations.check(text, len(retrieved.sources), retrieved.ids)
    warnings = [f"removed citations to unknown sources: {', '.join(result.invalid)}"] if result.invalid else []
    if not result.valid:
        warnings.append("the generated answer cited no valid source; the extractive answer is returned instead")
        return Draft(fallback.text, fallback.cited,
                     "partial" if fallback.status == "answered" else fallback.status,
                     fallback.generator, warnings)
    return Draft(result.text, result.cited, "answered", generator, warnings)


def generated(gen: Generator, question: str, language: str, retrieved: Retrieved, filters: Filters | None,
              fallback: Draft) -> Draft:
    if retrieved.graph_answer:  # global search wrote it already (its ids are mapped to source numbers)
        return checked(retrieved.graph_answer, retrieved, f"llm:{gen.model}", fallback, language)
    messages = prompt.messages(question, language, retrieved.sources, retrieved.notes, filters)
    try:
        text = gen.complete(messages)
    except LLMError as exc:
        log.warning("generation failed, extractive answer returned: %s", exc)
        return Draft(fallback.text, fallback.cited, fallback.status, fallback.generator,
                     [f"the language model failed ({exc.reason}); the extractive answer is returned"])
    return checked(text, retrieved, f"llm:{gen.model}", fallback, language)


def catalog_evidence(items: list[CatalogItem], engine: Engine) -> list[EvidenceItem]:
    return [EvidenceItem(kind="document", id=i.document_id, score=1.0, text=i.title, n=n,
                         document_id=i.document_id,
                         title=i.title, path=i.path, doc_type=i.doc_type, metadata=engine.catalog.meta(i.document_id))
            for n, i in enumerate(items[:MAX_LISTED], start=1)]


def card_text(item: CatalogItem, fields: tuple[str, ...], language: str) -> Draft:
    """One document's governance fields (``serving.answers.cards``), as its catalog row holds them, cited."""
    names, parts = META[language], []
    for key in fields or ("responsible", "approver", "next_review_date"):
        value = getattr(item, key)
        if value in (None, ""):
            continue
        if key == "summary":  # what it is about: the summary the describe stage made, as it is
            parts.append(str(value))
        elif key == "next_review_date":
            parts.append(f"{names[key]}: {fmt_date(value, language)} ({describe_review(item.review_status, language)})")
        elif isinstance(value, date):
            parts.append(f"{names[key]}: {fmt_date(value, language)}")
        else:
            parts.append(f"{names[key]}: {value}")
    if not parts:
        return refusal(language)
    return Draft(f"{item.title} — {'; '.join(parts)} [1]", [1], "answered", "catalog")


def _none_listed(query: CatalogQuery, language: str) -> Draft:
    """The refusal for a listing no row the caller may read meets, saying which condition none meets: "tem algum
    protocolo vencido?" is answered "none", not left at "not found"."""
    pt, as_of = language == "pt", fmt_date(query.as_of or date.today(), language)
    if query.outdated:
        said = f"com a revisão vencida em {as_of}" if pt else f"overdue for review as of {as_of}"
    elif query.due_year is not None:
        said = f"com revisão prevista em {query.due_year}" if pt else f"due for review in {query.due_year}"
    elif query.due_within_days is not None:
        said = (f"com revisão prevista nos próximos {query.due_within_days} dias" if pt else
                f"due for review in the next {query.due_within_days} days")
    elif query.due_by is not None:
        until = fmt_date(period_end(query.as_of or date.today(), query.due_by), language)
        said = f"com revisão prevista até {until}" if pt else f"due for review by {until}"
    else:
        said = "que atenda aos filtros" if pt else "meets the filters"
    line = f"Nenhum documento que você pode ler {said}." if pt else f"No document you may read is {said}."
    if not pt and said == "meets the filters":
        line = "No document you may read meets the filters."
    return Draft(f"{not_found(language)}\n{line}", [], "not_found", "catalog")


def catalog_text(items: list[CatalogItem], total: int, query: CatalogQuery, language: str) -> Draft:
    """A listing of catalog rows, each with its owners and review date, each cited."""
    if not items:
        return refusal(language) if query.document_id is not None else _none_listed(query, language)
    names, pt = META[language], language == "pt"
    if query.document_id is not None:  # a card: the fields asked of one document, in the order asked
        return card_text(items[0], query.show, language)
    as_of = fmt_date(query.as_of, language)
    if query.due_within_days is not None:
        head = (f"{total} documento(s) com revisão prevista nos próximos {query.due_within_days} dias (a partir de "
                f"{as_of}):" if pt else
                f"{total} document(s) due for review in the next {query.due_within_days} days (as of {as_of}):")
    elif query.due_by is not None:
        until = fmt_date(period_end(query.as_of or date.today(), query.due_by), language)
        this = ({"week": "desta semana", "month": "deste mês", "year": "deste ano"} if pt else
                {"week": "this week", "month": "this month", "year": "this year"})[query.due_by]
        head = (f"{total} documento(s) com revisão prevista até o fim {this} ({as_of} a {until}):" if pt else
                f"{total} document(s) due for review by the end of {this} ({as_of} to {until}):")
    elif query.due_year is not None:
        head = (f"{total} documento(s) com revisão prevista em {query.due_year}:" if pt else
                f"{total} document(s) due for review in {query.due_year}:")
    elif query.outdated:
        head = (f"{total} documento(s) com a revisão vencida em {as_of}:" if pt else
                f"{total} document(s) overdue for review as of {as_of}:")
    else:
        head = f"{total} documento(s) encontrados:" if pt else f"{total} document(s) found:"
    lines = [head]
    for n, item in enumerate(items[:MAX_LISTED], start=1):
        parts = [f"{names['next_review_date']}: {fmt_date(item.next_review_date, language)} "
                 f"({describe_review(item.review_status, language)})"]
        for key in ("responsible", "approver", "department", "version"):
            if value := getattr(item, key):
                parts.append(f"{names[key]}: {value}")
        lines.append(f"- {item.title} — {'; '.join(parts)} [{n}]")
    if total > len(items[:MAX_LISTED]):
        more = total - len(items[:MAX_LISTED])
        lines.append(f"(+{more} documento(s) não listados)" if pt else f"(+{more} more document(s) not listed)")
    return Draft("\n".join(lines), list(range(1, len(items[:MAX_LISTED]) + 1)), "answered", "catalog")
