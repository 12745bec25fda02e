"""Questions with several parts ("Quem faz X, com que periodicidade, e em quanto tempo Y?", "Which supplier
hosts X, and what deadline does its annex set?", "X? Qual é o seu valor?"): each part is searched on its own by
the workflow, and the answer without an LLM gives one cited sentence per part.

A part starts at a question word (qual, quem, quando, quanto, com que, em quanto, what, which, who, how, ...)
after ", e", " e", ", and", ";", "," or a question mark. A statement before the first question word ("A política
exige X. Quais controles ...?") is context and goes with the first part. A part that points back ("o seu
valor", "contrato dela", "its annex") or is short carries the first part's words as context. A thing named by
what it does ("o fornecedor que hospeda o prontuário") is a part of its own ("Qual fornecedor hospeda o
prontuário"), answered first.

The answer unit for a part is the sentence of the read evidence that covers most of the part's IDF-weighted
terms (the rest of the question counts a little), with a bonus when it holds a value of the kind the part asks
for (a duration for "em quantos dias", money for "valor", a date for "quando", a percentage, a name for
"quem", an organisation's legal name, "X Ltda." or "Y S.A.", for "qual empresa" or "which supplier", in any
language), and a penalty when it holds none. A sentence holds a word by the lexicon's synonyms too ("apagar" by
"eliminados"). A sentence two parts want goes to the part whose own words it holds more of; the other takes its
next sentence when one covers its own words as well (the other part's words, counted as context, would otherwise
win it both parts). A sentence in another language than the question's shares no words
with it: when no sentence in the question's language states the kind of value a part asks for, those in
another language that state one are ranked by their dense similarity to the part (``agentic.dense``; an English
question over Portuguese documents)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from math import fsum

from lakehouse.text import fold
from models.analysis import detect_language, written_out
from serving.answers.agentic import bridge
from serving.answers.agentic.references import CODE
from serving.answers.asking import ask_of
from serving.answers.relevance import terms
from serving.answers.sentences import split_units
from serving.answers.wording import language_of

_STRONG = (r"qual|quais|quem|quant[oa]s?|com que|em quant[oa]s?|de quant[oa]s?|para quem|a quem|em que data|"
           r"what|which|who|whom|whose|how many|how long|how often|how much|within how")
_ASK = rf"{_STRONG}|quando|onde|como|por que|when|where|how"
# a preposition before a question word keeps it asking ("e até quando", "and up to when", "e em que reunião")
_PREP = r"at[eé]|desde|a partir de|em|de|para|por|com|up to|until|since|from|by|in|for|at|on|to"
# after "?", ";", ". ", " e ", " and ": any question word, or one after a preposition; after a bare comma only the
# unambiguous ones
_SPLIT = re.compile(rf"(?:(?:\?|;|\.|,?\s+e|,?\s+and)\s+(?=(?:{_ASK})\b|(?:{_PREP})\s+(?:{_ASK}|que)\b)"
                    rf"|,\s+(?=(?:{_STRONG})\b))", re.IGNORECASE)
_START = re.compile(rf"^\W*(?:{_ASK}|que|o que|a que)\b", re.IGNORECASE)
_BACK = re.compile(r"\b(seu|sua|seus|suas|dele|dela|deles|delas|desse|dessa|deste|desta|esse|essa|este|esta|"
                   r"nele|nela|its|their|that|this|it|they|them)\b", re.IGNORECASE)
SCOPE_SHARE = 1.0  # a named document answers a part when its sentences cover this share of the best cover
MIN_WORDS = 5  # a part with fewer words carries the first part as context
CONTEXT_WEIGHT = 0.3  # weight of the other parts' terms when scoring a part's sentence
MIN_COVER = 0.25  # a sentence must cover this share of the part's own weighted terms
NUMBER_BONUS = 0.1  # a part that asks for no kind of value: an answer usually states one (a value, a term)
KIND_BONUS = 0.3  # a sentence that holds a value of the kind asked for (and the penalty when it holds none)
MIN_SIMILAR = 0.6  # a sentence in another language is a candidate when this similar to the part (scaled)
# the rule families of the parts answer, each switchable for the ablation on the test split and its rewordings
# (``benchmarks/synthesis_fit.py --what ablate``); a family stays only where it helps there (docs/adr/0013)
FAMILIES = ("part_kinds", "across", "trim")
ENABLED: set[str] = set(FAMILIES)

_NAME = re.compile(r"\b[A-ZÁÉÍÓÚÂÊÔÃÕ][a-záéíóúâêôãõç]+(?:\s+(?:d[aeo]s?\s+)?[A-ZÁÉÍÓÚÂÊÔÃÕ][a-záéíóúâêôãõç]+)+|"
                   r"\b[\w&]+(?:\s+[\w&]+){0,5}\s+(?:Ltda|S\.A\.|Inc|Ltd)\b")
# an organisation by its legal form ("Higiplus Serviços Ltda.", "NuvemSul Tecnologia e Dados S.A."): what a part
# asking for a company or supplier wants, where any capitalised name would do for "quem"
_ORG = re.compile(r"\b[A-ZÁÉÍÓÚÂÊÔÃÕ][\w&-]*(?:\s+[\w&-]+){0,6}\s+(?:Ltda|S\.\s?A\.|S/A|Inc|Ltd|LLC|EIRELI)(?!\w)")
_FIRM = re.compile(r"\b(empresa|fornecedor|prestador|contratada|provedor|supplier|company|vendor|provider|"
                   r"contractor)\b")
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*[.)]?|[IVX]+[.)-])\s+")  # "4.1 ", "III - "
_CLAUSE = re.compile(r",\s+(?![^()]*\))")  # a comma outside parentheses
_OF_ASK = {"amount": "money", "deadline": "duration", "percent": "percent"}  # the lexicon's kinds, as parts name them
# What a part asks for, by its question words (folded), and how a sentence shows it.
_KINDS = (
    ("money", re.compile(r"\b(valor\w*|acrescimo\w*|custo\w*|custa\w*|preco\w*|quanto custa|cost\w*|price\w*|"
                         r"values?|amounts?|fees?)\b"),
     re.compile(r"R\$\s*\d|US\$\s*\d|\d\s*(?:reais|dolares)", re.IGNORECASE)),
    ("duration", re.compile(r"\b(quant[oa]s? (?:dias|horas|meses|anos|minutos)|em quanto tempo|prazo\w*|"
                            r"periodicidade|frequencia|how (?:many|long|often)|deadline|within|rto|rpo)\b"),
     re.compile(r"\d+\s*(?:\([^)]{1,30}\)\s*)?(?:minutos?|horas?|h\b|dias|dia|meses|m[êe]s|anos?|minutes?|hours?|"
                r"days?|months?|years?)|\b(?:anual|mensal|semanal|trimestral|semestral|diari)\w*|"
                r"\b(?:annual|monthly|weekly|quarterly|daily)\w*", re.IGNORECASE)),
    ("percent", re.compile(r"\b(percent\w*|meta\w*|taxa\w*|indice\w*|target\w*|rate)\b"),
     re.compile(r"\d\s*%")),
    ("date", re.compile(r"\b(quando|em que data|when|what date)\b"),
     re.compile(r"\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{1,2} de [a-zç]+ de \d{4}\b|\b\d{4}-\d{2}-\d{2}\b",
                re.IGNORECASE)),
    ("who", re.compile(r"\b(quem|qual empresa|que empresa|qual fornecedor|que fornecedor|who|which (?:supplier|"
                       r"company|vendor)|what (?:supplier|company))\b"),
     _NAME),
    ("number", re.compile(r"\b(ramal|telefone|numero|extension|phone)\b"), re.compile(r"\b\d{3,}\b")),
)


@dataclass(frozen=True)
class Part:
    text: str  # the part as written
    query: str  # what is searched for it (the part, with context when it points back or is short)


def split(question: str) -> list[Part]:
    """The parts of a question; one part (the question itself) when it has a single one. Something named by
    what it does ("o fornecedor que hospeda X") adds the question of who that is first (``agentic.bridge``)."""
    text = " ".join(question.split())
    # the parts are found, and read, with the question's abbreviations written out (the lexicon's data): "qto
    # caiu X? e qual Y?" and "quanto caiu X? e qual Y?" have the same parts
    spelled = " ".join(written_out(text)[0].split())
    pieces = [p.strip(" ,;.?") for p in _SPLIT.split(spelled)]
    pieces = [p for p in pieces if p]
    asked = spelled[len(pieces[0]):].lstrip().startswith("?") if pieces else False
    if len(pieces) > 1 and not _START.match(pieces[0]) and not asked:  # a statement first: context
        pieces = [f"{pieces[0]}; {pieces[1]}", *pieces[2:]]
    hidden = bridge.implied(text)
    bridged = [Part(hidden, hidden)] if hidden else []
    if len(pieces) < 2:
        return [*bridged, Part(text, text)]
    first = pieces[0]
    out = [Part(first, first)]
    for piece in pieces[1:]:
        needs = len(piece.split()) < MIN_WORDS or bool(_BACK.search(piece))
        out.append(Part(piece, f"{piece} ({first})" if needs else piece))
    return [*bridged, *out]


def asks(part: str) -> list[str]:
    """The kinds of value a part asks for ("money", "duration", "percent", "date", "who", "number"), with the
    kind the lexicon's ``asks`` data reads in it ("quanto tempo", "how soon": a duration; ``asking.ask_of``)."""
    folded = fold(part)
    kinds = [kind for kind, question, _ in _KINDS if question.search(folded)]
    read = _OF_ASK.get(ask_of(part, detect_language(part)).kind or "")
    return kinds + [read] if read and read not in kinds else kinds


def _shows(kind: str, text: str, part: str = "") -> bool:
    """``text`` holds a value of ``kind``; a name counts only when none of its words is the part's own."""
    if kind == "who":
        if firm(part):
            return bool(_ORG.search(text))
        asked = set(fold(part).split())
        return any(not set(fold(m.group(0)).split()) & asked for m in _NAME.finditer(text))
    return any(k == kind and rx.search(text) for k, _, rx in _KINDS)


def firm(part: str) -> bool:
    """The part asks which company or supplier ("Qual empresa executa X", "Which supplier hosts Y")."""
    return "who" in asks(part) and bool(_FIRM.search(fold(part)))


def trim(unit: str, own: frozenset[str], kinds: list[str], part: str, language: str) -> str:
    """``unit`` without the clauses that state another number and none of the part's terms, when the part asks
    for a kind of value ("O valor mensal é
    R$ 86.400,00, totalizando R$ 2.073.600,00 em 24 meses" -> its first clause for "qual o valor mensal"); the
    first clause that holds the value asked for always stays."""
    clauses = _CLAUSE.split(unit)
    if len(clauses) < 2 or not kinds:  # a part that asks for no kind of value keeps its sentence whole
        return unit
    answer = next((i for i, c in enumerate(clauses) if any(_shows(k, c, part) for k in kinds)), None)
    keep = [c for i, c in enumerate(clauses)  # a document code names something: it is no other value
            if i == 0 or i == answer or not re.search(r"\d", c) or terms(c, language) & own or CODE.search(c)
            or _qualifier(c)]
    if len(keep) == len(clauses):
        return unit
    text = ", ".join(keep)
    return text if text.rstrip().endswith((".", ";", ":", "!", "?")) else text.rstrip(" ,") + "."


def _qualifier(clause: str) -> bool:
    """A clause with no word and no value of any kind qualifies the value before it ("até 4 horas, 24x7")."""
    return not re.search(r"[^\W\d_]{3,}", clause) and not any(rx.search(clause) for _, _, rx in _KINDS)


@dataclass(frozen=True)
class Pick:
    part: str
    unit: str | None
    source: int | None  # source number (1-based)
    score: float = 0.0
    answered: bool = False  # False: nothing found; True with no unit: a line for an earlier part answers it


def pick(parts: list[Part], sources: list[tuple[str, str]], language: str,
         weigh: Callable[[str], dict[str, float]], scopes: list[set[int] | None] | None = None,
         similar: Callable[[int, list[tuple[int, str]]], dict[tuple[int, str], float]] | None = None,
         kinds_of: list[set[int] | None] | None = None,
         synonyms: dict[str, tuple[str, ...]] | None = None) -> list[Pick]:
    """For each part, the evidence sentence that answers it best (``sources``: (title, text) of each source,
    numbered from 1; ``weigh``: a text's analysed terms with their IDF). A part's words that are the source's
    title ("... listed in the incident response playbook") say where to look, not what: they do not count as
    coverage in that source's sentences. ``scopes``: per part, the sources it is answered from when one of them
    covers it (the documents the question names, for a part that names none itself). ``similar(part,
    candidates)``: the scaled dense similarity (0 to 1) of the candidate (source number, sentence) pairs it
    measures, asked only for a part whose kind of value no sentence in the question's language states, with
    the sentences in another language that state one. ``kinds_of``: per part, the sources of the kind of
    document it names ("its security annex"): a value stated in another kind does not stop that search."""
    units = [(n, u, terms(title, language)) for n, (title, text) in enumerate(sources, start=1)
             for u in split_units(text)]
    # a sentence holds a part's word by the word documents write for it too ("apagar" by "eliminados": the
    # lexicon's synonyms, ``synonyms``: a question term -> the terms that cover it)
    unit_terms = [_with_synonyms(terms(u, language), synonyms or {}) for _, u, _ in units]
    written = [language_of(text) for _, text in sources]  # a whole chunk tells its language; a table row may not
    foreign = [written[n - 1] != language for n, _, _ in units]
    out = []
    everything = weigh(" ".join(p.query for p in parts))
    ranked: list[tuple[int, dict[str, float], list[str], list[tuple[float, int, str, float]]]] = []
    for i, part in enumerate(parts):
        scope = scopes[i] if scopes else None
        own = weigh(part.text)
        rest = {t: w * CONTEXT_WEIGHT for t, w in everything.items() if t not in own}
        rest_total = fsum(rest.values()) or 1.0
        kinds = asks(part.text) if "part_kinds" in ENABLED else []
        scored: list[tuple[float, int, str, float]] = []  # (score, source, sentence, share of the part covered)
        across: list[tuple[int, str]] = []  # sentences in another language that state a value asked for
        for (n, unit, title), present, other in zip(units, unit_terms, foreign, strict=True):
            shows = any(_shows(k, unit, part.text) for k in kinds)
            if other:
                if shows:
                    across.append((n, unit))
                continue
            what = {t: w for t, w in own.items() if t not in title} or own
            cover = fsum(what[t] for t in present & what.keys()) / (fsum(what.values()) or 1.0)
            if cover < MIN_COVER:
                continue
            score = cover + CONTEXT_WEIGHT * fsum(rest[t] for t in present & rest.keys()) / rest_total
            if kinds:
                score += KIND_BONUS if shows else -KIND_BONUS
            elif re.search(r"\d", _NUMBERING.sub("", unit)):
                score += NUMBER_BONUS
            scored.append((score, n, unit, cover))
        # a value asked for that no sentence in the question's language states (in the kind of document the part
        # names, when one in another language is of that kind) is looked for in the others
        kind_of = kinds_of[i] if kinds_of else None
        if kind_of and any(n in kind_of for n, _ in across):  # the kind of document the part names
            across = [a for a in across if a[0] in kind_of]
            mine = [s for s in scored if s[1] in kind_of]
        else:
            mine = scored
        # a name in another language is any capitalised word; an organisation's legal name is one in any language
        if "across" in ENABLED and similar and across and (set(kinds) - {"who"} or firm(part.text)) \
                and not any(any(_shows(k, s[2], part.text) for k in kinds) for s in mine):
            scored += [(near + KIND_BONUS, n, unit, near) for (n, unit), near in similar(i, across).items()
                       if near >= MIN_SIMILAR]
        if not scored:
            out.append(Pick(part.text, None, None))
            continue
        scored.sort(key=lambda s: -s[0])
        # the named documents answer a part when their best sentence covers its own words as well as any other
        # does (the minutes of the meeting that approved a policy answer "em que reunião ... foi aprovada")
        if scope and any(s[1] in scope for s in scored) \
                and max(s[3] for s in scored if s[1] in scope) >= SCOPE_SHARE * max(s[3] for s in scored):
            scored = [s for s in scored if s[1] in scope]
        ranked.append((i, own, kinds, scored))
        out.append(Pick(part.text, None, None))  # chosen below
    # the parts whose best sentence holds more of their own words choose first: a sentence two parts want goes
    # to the one it answers by its own words, the other taking its next sentence that covers its own words as
    # well (the first part's words, counted as context, would otherwise win it the second part's sentence too)
    chosen: set[str] = set()
    for i, own, kinds, scored in sorted(ranked, key=lambda r: (-r[3][0][3], r[0])):
        part, best = parts[i], scored[0]
        if best[2] in chosen:
            best = next((s for s in scored if s[2] not in chosen and s[3] >= best[3] and (
                not kinds or any(_shows(k, s[2], part.text) for k in kinds))), best)
        text = trim(best[2], frozenset(own), kinds, part.text, language) if "trim" in ENABLED else best[2]
        out[i] = Pick(part.text, None if best[2] in chosen else text, best[1], round(best[0], 3), answered=True)
        chosen.add(best[2])
    return out


def _with_synonyms(present: frozenset[str], synonyms: dict[str, tuple[str, ...]]) -> frozenset[str]:
    return present | {t for t, others in synonyms.items() if not present.isdisjoint(others)}


def render(picks: list[Pick], language: str) -> str | None:
    """One line per part ("unit [n]"), and the parts with nothing found; None when no part was answered."""
    if not any(p.unit for p in picks):
        return None
    lines = [f"{p.unit} [{p.source}]" for p in picks if p.unit]
    missing = [p.part for p in picks if not p.answered]
    if missing:
        lead = "Não encontrado nos documentos lidos: " if language == "pt" else "Not found in the documents read: "
        lines.append(lead + "; ".join(f"\"{m}\"" for m in missing))
    return "\n".join(lines)
