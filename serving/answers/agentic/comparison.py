"""The comparison answer without an LLM: each requirement of the normative document (a policy, a POP) beside
the best matching evidence of the other document, numeric conflicts flagged (24 h required, 72 h offered), and
what was not found said plainly.

A requirement is a sentence with an obligation ("deve", "é proibido", "depende de", "must") or a term or
frequency ("em até 24 horas", "anualmente", "no mínimo 12 meses"), or one that states a quantity of what the
question asks about ("o RPO do sistema X é de 15 minutos", for "o RPO ... é compatível com o contrato?"; of
those, the ones about what the question names most). Its evidence is the other side's sentence
covering the largest IDF-weighted share of its terms (at least ``MIN_MATCH``; when both state quantities,
the words just before them count again, so "notificar ... incidente em até 72 horas" beats "relatório final em
até 15 dias"). Quantities are compared by
unit (minutes, hours, days, months, years; business days count 7/5): "em até"/"no máximo" is an upper bound,
"no mínimo"/"ao menos" a lower one, anything else must be equal."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from models.analysis import analyze
from serving.answers.sentences import split_units

MIN_MATCH = 0.18  # share of a requirement's weighted terms its evidence must cover (and 2 terms at least)
SAME_QUANTITY = 0.34  # share of the larger "what it measures" sentence two quantities must share to be compared
MAX_REQUIREMENTS = 10
_OBLIGATION = re.compile(r"\b(dev[ea]m?|dever[áã]o?|obrigat[óo]ri\w*|proibid\w*|vedad\w*|exig\w*|depende de|"
                         r"must|shall|required|prohibited|anualmente|por ano|ao menos|no m[íi]nimo|em at[ée]|"
                         r"no m[áa]ximo|annually|at least|within)\b", re.IGNORECASE)
_QUANTITY = re.compile(r"(?P<bound>em at[ée]|at[ée]|no m[áa]ximo|no m[íi]nimo|ao menos|pelo menos|m[íi]nimo de|"
                       r"within|at least|at most|up to)?,?\s*(?:de\s+)?\**(?P<n>\d{1,4}(?:,\d+)?)\**\s*"
                       r"(?:\([^)]{1,40}\)\s*)?"
                       r"\**\s*(?P<unit>minutos?|horas?|h\b|dias\s+[úu]teis|dias?|meses|m[êe]s|anos?|minutes?|hours?|"
                       r"business days|days?|months?|years?)", re.IGNORECASE)
HOURS = {"min": 1 / 60, "h": 1.0, "dia útil": 24 * 7 / 5, "dia": 24.0, "mês": 24 * 30.0, "ano": 24 * 365.0}


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str  # min | h | dia útil | dia | mês | ano
    bound: str  # max | min | eq
    text: str

    @property
    def hours(self) -> float:
        return self.value * HOURS[self.unit]


@dataclass(frozen=True)
class Row:
    requirement: str
    source: int  # source number of the requirement
    evidence: str | None
    evidence_source: int | None
    verdict: str  # meets | conflict | not_found
    detail: str = ""


def _unit(raw: str) -> str:
    raw = raw.lower()
    if raw.startswith(("min",)):
        return "min"
    if raw.startswith(("h",)):
        return "h"
    if "úteis" in raw or "uteis" in raw or raw.startswith("business"):
        return "dia útil"
    if raw.startswith(("dia", "day")):
        return "dia"
    if raw.startswith(("mes", "mês", "month")):
        return "mês"
    return "ano"


def quantities(text: str) -> list[Quantity]:
    out = []
    for m in _QUANTITY.finditer(text):
        bound = (m.group("bound") or "").lower()
        kind = ("max" if bound.startswith(("em at", "at", "no m\u00e1", "no ma", "within", "up to"))
                else "min" if bound else "eq")
        if bound.startswith(("no m\u00ed", "no mi", "ao menos", "pelo menos", "m\u00edn", "min", "at least")):
            kind = "min"
        out.append(Quantity(float(m.group("n").replace(",", ".")), _unit(m.group("unit")), kind,
                            " ".join(m.group(0).replace("*", "").split())))
    return out


_ITEM = re.compile(r"^(\d{1,2}(?:\.\d{1,2})+)\b")


def numbered(text: str) -> list[tuple[str, str]]:
    """(item number, unit) for the units of a text; a unit without a number belongs to the last one."""
    out, item = [], ""
    for unit in split_units(text):
        if match := _ITEM.match(unit):
            item = match.group(1)
        out.append((item, unit))
    return out


def requirements(text: str, asked: Callable[[str], float] | None = None) -> list[str]:
    return [u for _, u in numbered(text) if is_requirement(u, asked)]


def is_requirement(unit: str, asked: Callable[[str], float] | None = None) -> bool:
    """A sentence with an obligation or a term, or one that states a quantity of what the question asks
    (``asked``: the weight of the question's terms in a text): "o RPO é de 15 minutos" when asked whether the
    RPO is compatible."""
    if len(unit) <= 25:
        return False
    return bool(_OBLIGATION.search(unit) or (asked is not None and _QUANTITY.search(unit) and asked(unit) > 0))


def _window(text: str, quantity: Quantity, words: int = 14) -> str:
    """The words just before a quantity: what it measures ("notificar ... incidente ... em até")."""
    head = text.replace("*", "").split(quantity.text, 1)[0]
    return " ".join(head.split()[-words:])


def _measured(text: str, quantity: Quantity, words: int = 40) -> str:
    """What a quantity measures: its sentence up to it ("O terceiro deve notificar ... incidente ... em até")."""
    head = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9])|\n", text.replace("*", "").split(quantity.text, 1)[0])[-1]
    return " ".join(head.split()[-words:])


def _terms(text: str, language: str) -> set[str]:
    return {t for t in analyze(text, language) if not t.replace(".", "").isdigit()}


def _share(need: set[str], have: set[str], weight: Callable[[str], float]) -> float:
    total = math.fsum(weight(t) for t in need)
    return math.fsum(weight(t) for t in need & have) / total if total else 0.0


def _check(requirement: str, evidence: str, language: str, weight: Callable[[str], float]) -> tuple[str, str]:
    """(verdict, detail): each quantity of the requirement against the evidence's quantity that measures the
    same thing (the most similar words before it); when the evidence states fewer, each of its quantities
    against the requirement's that measures the same thing (the others are not in this evidence)."""
    offered, needs = quantities(evidence), quantities(requirement)
    if not offered:
        return "meets", ""
    if len(offered) < len(needs):  # evidence of one of them ("RPO: 15 minutos" for "RPO de 15 min e RTO de 4 h")
        pairs = []
        for got in offered:
            context = _terms(_window(evidence, got), language)
            pairs.append((max(needs, key=lambda q: _share(context, _terms(_window(requirement, q), language),
                                                          weight)), got))
    else:
        pairs = []
        for need in needs:
            context = _terms(_window(requirement, need), language)
            pairs.append((need, max(offered, key=lambda q: _share(context, _terms(_window(evidence, q), language),
                                                                   weight))))
    for need, got in pairs:
        ok = (got.hours <= need.hours + 1e-9 if need.bound == "max" else
              got.hours >= need.hours - 1e-9 if need.bound == "min" else math.isclose(got.hours, need.hours))
        if not ok:
            return "conflict", f"exigido: {need.text}; encontrado: {got.text}"
    return "meets", ""


def about_same(requirement: str, evidence: str, language: str, weight: Callable[[str], float]) -> bool:
    """Whether ``evidence`` states a quantity of what ``requirement``'s quantities measure: the sentences up to
    the two quantities share at least ``SAME_QUANTITY`` of the larger one's weight ("notificar ... incidente" and
    "notificará ... incidente" do; "notificar ... incidente" and "tempo de solução de incidente" do not). A
    requirement without a quantity is about no quantity; evidence without one states none."""
    needs, offers = quantities(requirement), quantities(evidence)
    for need in needs:
        a = _terms(_measured(requirement, need), language)
        for got in offers:
            b = _terms(_measured(evidence, got), language)
            larger = max(math.fsum(weight(t) for t in a), math.fsum(weight(t) for t in b))
            if larger and math.fsum(weight(t) for t in a & b) / larger >= SAME_QUANTITY:
                return True
    return False


def _score(req: str, unit: str, terms: set[str], have: set[str], language: str,
           weight: Callable[[str], float]) -> float:
    """Term share, plus, when both state quantities, how alike the words before them are."""
    score = _share(terms, have, weight)
    needs, offers = quantities(req), quantities(unit)
    if needs and offers:
        score += max(_share(_terms(_window(req, n), language), _terms(_window(unit, o), language), weight)
                     for n in needs for o in offers)
    return score


def compare(required: list[tuple[int, str]], offered: list[tuple[int, str]], language: str,
            weight: Callable[[str], float], focus: Callable[[str], float] | None = None,
            items: frozenset[str] = frozenset()) -> list[Row]:
    """Rows for each requirement unit of ``required`` ((source number, text) pairs): those of the ``items``
    the question names first ("item 7.2"), then by ``focus`` (the question's terms)."""
    units = [(n, u) for n, text in offered for u in split_units(text)]
    unit_terms = [_terms(u, language) for _, u in units]
    numbered_reqs = [(n, item, u) for n, text in required for item, u in numbered(text) if is_requirement(u, focus)]
    # of the sentences that only state a quantity, those about what the question names most ("o RPO do PEP Vita",
    # not "para os demais sistemas, RPO de 24 horas")
    stated = [focus(u) for _, _, u in numbered_reqs if focus and not _OBLIGATION.search(u)]
    numbered_reqs = [r for r in numbered_reqs if _OBLIGATION.search(r[2]) or (focus and focus(r[2]) >= max(stated))]
    numbered_reqs.sort(key=lambda r: (r[1] not in items, -(focus(r[2]) if focus else 0.0)))
    reqs = list(dict.fromkeys((n, u) for n, _, u in numbered_reqs))
    rows = []
    for n, req in reqs[:MAX_REQUIREMENTS]:
        terms = _terms(req, language)
        scored = sorted(((_score(req, units[i][1], terms, have, language, weight), i)
                         for i, have in enumerate(unit_terms)), key=lambda pair: (-pair[0], pair[1]))
        # a requirement with a term or amount is met or broken only by evidence about the same quantity
        measured = bool(quantities(req))
        best_i = next((i for score, i in scored if score >= MIN_MATCH and len(terms & unit_terms[i]) >= 2
                       and (not measured or about_same(req, units[i][1], language, weight))), -1)
        if best_i < 0:
            rows.append(Row(req, n, None, None, "not_found"))
            continue
        evidence_n, evidence = units[best_i]
        verdict, detail = _check(req, evidence, language, weight)
        rows.append(Row(req, n, evidence, evidence_n, verdict, detail))
    return rows


LABELS = {"pt": {"meets": "atende", "conflict": "NÃO atende", "not_found": "não encontrado",
                 "head": "Comparação de {a} com {b}:", "req": "Requisito", "ev": "evidência",
                 "none": "nenhuma evidência em {b}",
                 "no": "Conclusão: não está de acordo: {k} requisito(s) em conflito.",
                 "partial": "Conclusão: não há conflito nas evidências lidas, mas {k} requisito(s) sem evidência.",
                 "yes": "Conclusão: de acordo em todos os requisitos encontrados."},
          "en": {"meets": "meets", "conflict": "does NOT meet", "not_found": "not found",
                 "head": "Comparison of {a} with {b}:", "req": "Requirement", "ev": "evidence",
                 "none": "no evidence in {b}",
                 "no": "Conclusion: not compliant: {k} requirement(s) in conflict.",
                 "partial": "Conclusion: no conflict in what was read, but {k} requirement(s) without evidence.",
                 "yes": "Conclusion: compliant on every requirement found."}}


def render(rows: list[Row], required_title: str, offered_title: str, language: str) -> tuple[str, list[int]]:
    """The comparison as text with ``[n]`` citations, and the source numbers it cites."""
    words = LABELS["pt" if language == "pt" else "en"]
    lines = [words["head"].format(a=offered_title, b=required_title)]
    cited: list[int] = []
    for i, row in enumerate(rows, start=1):
        line = f"{i}. {words['req']}: {_short(row.requirement)} [{row.source}] — {words[row.verdict]}"
        if row.detail:
            line += f" ({row.detail})"
        if row.evidence is not None:
            line += f"; {words['ev']}: \"{_short(row.evidence)}\" [{row.evidence_source}]"
            cited.append(row.evidence_source)
        else:
            line += f"; {words['none'].format(b=offered_title)}"
        cited.append(row.source)
        lines.append(line)
    conflicts = sum(r.verdict == "conflict" for r in rows)
    missing = sum(r.verdict == "not_found" for r in rows)
    lines.append(words["no"].format(k=conflicts) if conflicts else
                 words["partial"].format(k=missing) if missing else words["yes"])
    return "\n".join(lines), list(dict.fromkeys(cited))


def _short(text: str, limit: int = 260) -> str:
    text = " ".join(text.replace("**", "").split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "…"
