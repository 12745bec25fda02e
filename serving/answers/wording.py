"""Fixed texts built in code, in the question's language (Portuguese unless the question is English)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from models.analysis import query_languages, written_out
from serving.texts import NOT_FOUND  # noqa: F401 - wording's texts, the refusal among them

SUGGEST = {
    "pt": "Documentos mais próximos e seus responsáveis:",
    "en": "Closest documents and who owns them:",
}
FILTERS = {"pt": "Filtros aplicados", "en": "Filters applied"}
FILTER_NAMES = {
    "pt": {"doc_types": "tipo", "departments": "departamento", "path_prefix": "pasta", "issued_from": "emitido desde",
           "issued_to": "emitido até", "review_from": "revisão desde", "review_to": "revisão até"},
    "en": {"doc_types": "type", "departments": "department", "path_prefix": "folder", "issued_from": "issued from",
           "issued_to": "issued to", "review_from": "review from", "review_to": "review to"},
}
META = {
    "pt": {"version": "versão", "department": "departamento", "responsible": "responsável", "approver": "aprovador",
           "issue_date": "emissão", "last_review_date": "última revisão", "next_review_date": "próxima revisão",
           "doc_type": "tipo", "section": "seção", "pages": "páginas"},
    "en": {"version": "version", "department": "department", "responsible": "responsible", "approver": "approver",
           "issue_date": "issued", "last_review_date": "last review", "next_review_date": "next review",
           "doc_type": "type", "section": "section", "pages": "pages"},
}

INJECTION = {  # a flagged source listed with the answer is named; the others, not in its sources, are counted
    "pt": {"listed": "a fonte [{n}] ({title}) contém instruções dirigidas a um assistente; elas foram ignoradas",
           "one": "um trecho consultado e não listado nas fontes continha instruções dirigidas a um assistente; "
                  "elas foram ignoradas",
           "many": "{count} trechos consultados e não listados nas fontes continham instruções dirigidas a um "
                   "assistente; elas foram ignoradas"},
    "en": {"listed": "source [{n}] ({title}) contains instructions addressed to an assistant; they were ignored",
           "one": "a passage read but not listed among the sources contained instructions addressed to an "
                  "assistant; they were ignored",
           "many": "{count} passages read but not listed among the sources contained instructions addressed to an "
                   "assistant; they were ignored"},
}


def injection_warnings(listed: list[tuple[int, str]], unlisted: int, language: str) -> list[str]:
    """Warnings for flagged sources: ``listed`` (number, title) as cited with the answer, ``unlisted`` counted."""
    texts = INJECTION.get(language, INJECTION["pt"])
    out = [texts["listed"].format(n=n, title=title) for n, title in listed]
    if unlisted:
        out.append(texts["one"] if unlisted == 1 else texts["many"].format(count=unlisted))
    return out


def language_of(question: str, shares: Mapping[str, float] | None = None) -> str:
    """The question's language: its own words decide when they can ("pra", "vc" and "qto" are Portuguese); a
    short question nothing decides ("DHA", "fava beans") is read in the language most of the index holds
    (``shares``, the index's language shares; ``models.analysis.query_languages``)."""
    language = written_out(question)[1]
    if not shares:
        return language
    if language == "pt" and written_out(question, "pt")[0].casefold().split() != question.casefold().split():
        return "pt"  # a Portuguese abbreviation was written out ("qto custa?"): its words decided
    candidates = query_languages(question, shares)
    return candidates[0] if len(candidates) > 1 or candidates[0] != language else language


def fmt_date(value: date | None, language: str) -> str:
    if value is None:
        return "-"
    return value.strftime("%d/%m/%Y") if language == "pt" else value.isoformat()


def not_found(language: str) -> str:
    return NOT_FOUND.get(language, NOT_FOUND["pt"])


def is_refusal(text: str) -> bool:
    """The model answered with (or around) the fixed not-found message."""
    folded = " ".join(text.lower().split())
    return any(message.lower().rstrip(".") in folded for message in NOT_FOUND.values())


REVIEW = {
    "pt": {"ok": "em dia", "due_soon": "vence em breve", "overdue": "vencida", "unknown": "sem data"},
    "en": {"ok": "up to date", "due_soon": "due soon", "overdue": "overdue", "unknown": "no date"},
}


def describe_review(status: str, language: str) -> str:
    return REVIEW.get(language, REVIEW["pt"]).get(status, status)
