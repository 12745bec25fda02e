"""The corrective extractive answer: the strips of the evidence graded ``correct`` (``ambiguous`` when none
is, then the answer is ``partial``), recomposed in document order, each cited.

Before composing, the two substitutions of ``serving.answers.evidence``: a passage restating another document
gives way to that document's own, and of several versions of one document the current one (or the one the
question names) answers while each other is named as superseded, both cited.

No sentence flagged as an instruction to an assistant is ever a strip (``grading``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from math import fsum

from lakehouse.text import fold
from models.analysis import LANGUAGES, detect_language
from models.injection import overlaps
from models.lexicon import lexicon
from serving.answers import constraints, prompt
from serving.answers.agentic.parts import split
from serving.answers.asking import STATES, ask_of, resolve
from serving.answers.bridges import bridged, with_reason
from serving.answers.compose import Draft, refusal
from serving.answers.evidence import (  # noqa: F401 - the composers' request and substitutions, re-exported
    FORM_TYPES,
    MAX_ROWS,
    Request,
    _form,
    add_coded,
    coded_documents,
    primaries,
    principal_first,
    split_versions,
    version_name,
)
from serving.answers.grading import AMBIGUOUS, CORRECT, Strip, grade_item, held_terms
from serving.answers.modes.base import add_chunk
from serving.answers.relevance import terms
from serving.answers.sentences import antecedents, clause_leads, names_back, paragraphs, split_units, table_rows
from serving.answers.slots import SLOTS
from serving.answers.types import Filters
from serving.answers.versions import asked_version, family

MAX_SOURCES = 3
MAX_STRIPS = 4
MAX_FOLLOW = 12  # units quoted after a strip that introduces them with a colon
KEEP_SHARE = 0.75  # strips kept: at least this share of the best strip's coverage
SAME_SHARE = 0.9  # a question asking no kind of fact also keeps strips this close that cover no new term
PARTS_SHARE = 0.7  # a question asking several things keeps strips covering a new term from this share of the best
NEXT_SHARE = 0.75  # the next numbered clause of a quoted one is quoted when it weighs this share of it
_DIGIT = re.compile(r"\d")  # (and state no number)
_CLAUSE = re.compile(r"\d+(?:\.\d+)+\s")  # a numbered clause ("3.2 ")
LABELS = {
    "pt": {"current": "Versão vigente ({title}):", "superseded": "Versão substituída ({title}), não mais válida:"},
    "en": {"current": "Current version ({title}):", "superseded": "Superseded version ({title}), no longer in force:"},
}
# the rule families of the composer, each switchable for the ablation on the test split and its rewordings
# (``benchmarks/synthesis_fit.py --what ablate``); a family stays only where it helps there (docs/adr/0013)
FAMILIES = ("one_value", "next_clauses", "primaries", "versions", "bridges", "reason", "pinned", "valued",
            "sections", "exceptions", "completing", "local_parts", "kind_parts", "tables")
ENABLED: set[str] = set(FAMILIES)


def _strips(req: Request, sources: list[int]) -> list[tuple[int, Strip]]:
    """The best strip, then each strip that covers question terms the kept ones do not (within ``KEEP_SHARE``
    of the best), and, when the question asks for no kind of fact (a deadline, an amount), each strip within
    ``SAME_SHARE`` of the best that states no number even if it covers no new term ("o que deve ser anexado ao
    requerimento?": two passages hold the same words, only one answers); in source order then document order."""
    pool = [(n, s) for n in sources for s in req.grades[n].strips]
    if not pool:
        return []
    best = max(s.score for _, s in pool)
    floor = (PARTS_SHARE if req.q.parts else KEEP_SHARE) * best
    kept: list[tuple[int, Strip]] = []
    covered: set[str] = set()
    # a word of the situation around the ask ("os valores me pareceram altos") is no part of the question a
    # strip could answer: a strip holding only such words beside the kept ones' competes with them
    situation = req.q.context
    order = sorted(pool, key=lambda p: (-p[1].score, p[1].values, sources.index(p[0]), p[1].position))
    if req.q.parts and "local_parts" in ENABLED:
        # the parts of a question about one subject are read first in the best graded passage ("a dose de
        # alteplase ... e até quando": 5.2 states the dose, 5.1 the 4,5 hours), then in the others
        first = sources[0]
        order = [p for p in order if p[0] == first] + [p for p in order if p[0] != first]
    for n, s in order:
        if len(kept) >= MAX_STRIPS:
            break
        if s.score < floor:
            continue
        new = s.held - covered - situation
        if s.score < KEEP_SHARE * best and not new:
            continue  # below the usual share, only another part of the question is worth quoting
        if kept and not new and (req.q.kind is not None or s.score < SAME_SHARE * best
                                              or _DIGIT.search(s.text)) \
                and not ("sections" in ENABLED and _same_section(req, kept, n, s)) \
                and not ("exceptions" in ENABLED and _exception(req, kept, n, s)):
            continue  # a second value (a number, another table row) would compete; else a close second may answer
        if len({m for m, _ in kept} | {n}) <= MAX_SOURCES:
            kept.append((n, s))
            covered |= s.held
    if "one_value" in ENABLED:
        kept = _one_value(req, kept)
    if "next_clauses" in ENABLED:
        kept += [p for p in _next_clauses(req, kept) if p not in kept]
    return sorted(kept, key=lambda p: (sources.index(p[0]), p[1].position))






def _whole_tables(req: Request, picked: list[tuple[int, Strip]]) -> list[tuple[int, Strip]]:
    """For a question asking no kind of value (no amount, no deadline: "qual a ordem de coleta dos tubos?"), a
    quoted table row that holds a word of the question by its table's column labels and none in its cells
    ("Ordem: 1; Tubo (cor da tampa): Frascos de hemocultura; ...") stands for its table: the question asks what
    the table lists, so the table's rows are quoted in its place, in order (a table of at most ``MAX_FOLLOW`` rows,
    no row flagged, at least half of its other rows graded as addressing the question as well: grading's strips).
    A row holding a word of the question in its cells ("o tubo de tampa azul", "a refeição do colaborador") answers
    alone, and so does a row stating the one value a question asks for, or one the grade singles out."""
    if req.q.asked is not None:
        return picked
    q = req.q
    out: list[tuple[int, Strip]] = []
    for n, s in picked:
        item = req.item(n)
        tables = table_rows(item.text)
        if s.position >= len(tables) or tables[s.position] is None or any(m == n and t.position != s.position
                                                                          and t.position in members_of(tables, s)
                                                                          for m, t in out):
            out.append((n, s))
            continue
        members = members_of(tables, s)
        units = split_units(item.text)
        row = req.engine.rows.get(item.id) if item.kind == "chunk" else None
        flagged = req.engine.injection[row] if row is not None and req.engine.injection else ()
        labels = held_terms(q, _either(q, " ".join(tables[s.position][1]), item.text))
        cells = " ".join(c.split(": ", 1)[-1] for c in units[s.position].split("; "))
        if not 2 <= len(members) <= MAX_FOLLOW or any(overlaps(units[i], flagged) for i in members) \
                or not s.held & labels or held_terms(q, _either(q, cells, item.text)) - labels \
                or 2 * len(set(members) & {t.position for t in req.grades[n].strips} - {s.position}) < len(members) - 1:
            out.append((n, s))
            continue
        out += [(n, s if i == s.position else Strip(units[i], i, s.score, s.held)) for i in members
                if not any(m == n and t.position == i for m, t in out)]
    return out


def members_of(tables: tuple, strip: Strip) -> list[int]:
    """The positions of the rows of ``strip``'s table (``sentences.table_rows``)."""
    start = tables[strip.position][0]
    return [i for i, t in enumerate(tables) if t is not None and t[0] == start]


def _clause(req: Request, n: int, strip: Strip) -> str | None:
    """The numbered clause a strip belongs to ("5.1"), from its own text or its clause's first sentence."""
    head = _CLAUSE.match(strip.text)
    if head is None:
        lead = clause_leads(req.item(n).text)
        lead_text = lead[strip.position] if strip.position < len(lead) else None
        head = _CLAUSE.match(lead_text) if lead_text else None
    return head.group(0).strip() if head else None


# a clause opening with its condition ("Em desligamentos por justa causa, ...", "Se o fornecedor ..., ", "In case of
# ..., "): an exception to the section's rule
_CONDITION = re.compile(r"^(?:\d+(?:\.\d+)*\.?\s+)?(?:em|no|na|nos|nas|se|quando|caso|exceto|salvo|in|if|when|unless|"
                        r"except)\b[^,.;:]{3,80},", re.IGNORECASE)


def _conditioned(text: str) -> bool:
    return _CONDITION.match(text.strip()) is not None


def _same_section(req: Request, kept: list[tuple[int, Strip]], n: int, strip: Strip) -> bool:
    """Is ``strip`` another numbered clause of the section of a kept strip of the same passage (5.1 beside 5.2):
    a rule and its exception ("todos os acessos revogados em até 4 horas"; "por justa causa, imediatamente")
    answer together when the question names neither's condition."""
    for m, other in kept:
        # the same thing (one holds at most one word more), one of them under a condition
        if m != n or len(strip.held ^ other.held) > 1 or not (_conditioned(strip.text) or _conditioned(other.text)):
            continue
        mine, theirs = _clause(req, n, strip), _clause(req, m, other)
        if mine is not None and theirs is not None and mine != theirs and \
                mine.rsplit(".", 1)[0] == theirs.rsplit(".", 1)[0]:
            return True
    return False


def _exception(req: Request, kept: list[tuple[int, Strip]], n: int, strip: Strip) -> bool:
    """Does ``strip`` state an exception (the lexicon's ``exceptions``: "exceto", "unless") to a kept strip of the
    same document about the same thing (one holds at most one question word more)? A rule read without its
    exception misleads: "Armazenado somente na farmácia central" and "não podem ser mantidos em estoque nas
    unidades, exceto nas unidades de terapia intensiva e no centro cirúrgico" answer together."""
    words = [w for language in LANGUAGES for w in lexicon(language).exceptions]  # the passage's language is either
    text = f" {fold(strip.text.lower())} "
    if not any(f" {w} " in text for w in words):
        return False
    document = req.item(n).document_id
    return any(req.item(m).document_id == document and len(strip.held ^ other.held) <= 1 for m, other in kept)


def _one_value(req: Request, kept: list[tuple[int, Strip]]) -> list[tuple[int, Strip]]:
    """Of strips of different documents that each state a value of the one kind of fact asked (two deadlines),
    the one whose terms weigh more of the question (its passage's heading included): "em quanto tempo o hospital
    paga as notas fiscais dos fornecedores?" is the suppliers' 30 days, not the travel expenses' 10 days that
    also name "nota fiscal"."""
    q = req.q
    valued = [(n, s) for n, s in kept if s.values]
    if len(valued) < 2 or q.kind is None or q.parts or len({req.item(n).document_id for n, _ in valued}) < 2:
        return kept
    weight = {p: fsum(q.weights.get(t, 0.0) for t in p[1].held) for p in valued}
    top = max(valued, key=lambda p: weight[p])
    doc = req.item(top[0]).document_id
    return [p for p in kept if not p[1].values or req.item(p[0]).document_id == doc]




def _pinned(req: Request, sources: list[int], kept: list[tuple[int, Strip]]) -> list[tuple[int, Strip]]:
    """The month or level the question names ("nível I", "em agosto de 2025"; ``constraints``): strips stating
    only another one give way to those stating it, the best of the sources' strips that do when none kept does
    (the row of level III ranked first, the row of level I beside it)."""
    if not constraints.pinned(req.q.text):
        return kept
    other = [p for p in kept if constraints.mismatched(req.q.text, [p[1].text])]
    if not other:
        return kept
    stating = [p for p in kept if p not in other and constraints.states(req.q.text, p[1].text)]
    if stating:
        return [p for p in kept if p not in other]
    found = sorted(((n, s) for n in sources for s in req.grades[n].strips
                    if constraints.states(req.q.text, s.text)), key=lambda p: -p[1].score)
    return found[:1] or kept


def _next_clauses(req: Request, kept: list[tuple[int, Strip]]) -> list[tuple[int, Strip]]:
    """When the question asks for no kind of fact, the strip right after a quoted numbered clause that opens the
    next clause of the same section ("7.1 ... aviso prévio de 90 dias." then "7.2 A rescisão sem justa causa antes
    de 12 meses implicará multa de 20%...") and weighs at least ``NEXT_SHARE`` of it: the clauses of one section
    state one rule, its conditions and exceptions, and the second is no competing value. A question asking for a
    kind of fact (a deadline) gets only the clause that states it ("6.3 Os registros são mantidos por 5 anos"
    would compete with the frequency asked)."""
    if req.q.kind is not None:
        return []
    out = []
    for n, s in kept:
        head = _CLAUSE.match(s.text)
        after = next((t for t in req.grades[n].strips if t.position == s.position + 1), None)
        if head is None or after is None or after.score < NEXT_SHARE * s.score:
            continue
        nxt = _CLAUSE.match(after.text)
        if nxt is not None and nxt.group(0).rsplit(".", 1)[0] == head.group(0).rsplit(".", 1)[0]:
            out.append((n, after))
    return out




def introduced(req: Request, n: int, strip: Strip) -> str:
    """What a strip ending in a colon introduces ("A ordem abaixo evita...:" and the table rows after it): the
    next units of its passage (at most ``MAX_FOLLOW``, none flagged), one a line. Not a selection rule: it
    completes a quoted unit that would otherwise end in a colon (neutral on the test split's labels)."""
    if not strip.text.rstrip().endswith(":"):
        return ""
    item = req.item(n)
    row = req.engine.rows.get(item.id) if item.kind == "chunk" else None
    flagged = req.engine.injection[row] if row is not None and req.engine.injection else ()
    follow = [u for u in split_units(item.text)[strip.position + 1:strip.position + 1 + MAX_FOLLOW]
              if not overlaps(u, flagged)]
    return "".join(f"\n- {u}" for u in follow)


def antecedent(req: Request, n: int, strip: Strip, picked: list[tuple[int, Strip]]) -> str:
    """The sentence a strip points back to ("Essa tese define ..." after "... chama-se Tese de Church-Turing,
    ..."; ``sentences.antecedents``), followed by a space, when it is not quoted itself: a strip that opens with
    "Essa tese" or "He" names its subject only through the sentence before. Not a selection rule: it completes
    a quoted unit."""
    before = antecedents(req.item(n).text)
    j = before[strip.position] if strip.position < len(before) else None
    if j is None or any(m == n and other.position == j for m, other in picked):
        return ""
    unit = _unflagged_unit(req, n, j)
    return f"{unit} " if unit else ""


def continued(req: Request, n: int, strip: Strip, picked: list[tuple[int, Strip]]) -> str:
    """The next sentence of a strip's paragraph when it names again what the strip named ("... chama-se Tese de
    Church-Turing, uma hipótese ..." then "Essa tese define que ..."; "... uma triagem" then "Trata-se de uma
    leitura atenta ..."), preceded by a space, for a question that asks no kind of fact (what something says or
    is): the sentence about what the strip named is what it says. Not a selection rule: it completes a quoted
    unit (FaQuAD-pt questions 31-300: 5 answers partly or wrong -> correct, none lost; the sample, HotpotQA-100
    and FaQuAD-pt's first 30 unchanged)."""
    if req.q.asked is not None:  # a deadline or an amount asked: the strip states it, or another strip does
        return ""
    before = antecedents(req.item(n).text)
    j = strip.position + 1
    if j >= len(before) or before[j] != strip.position or any(m == n and o.position == j for m, o in picked):
        return ""
    unit = _unflagged_unit(req, n, j)
    return f" {unit}" if unit and names_back(unit) else ""


def completing(req: Request, n: int, strip: Strip, picked: list[tuple[int, Strip]]) -> str:
    """The next sentence of a strip's paragraph when it holds words of the question's ask that no quoted strip
    holds, preceded by a space: the strip names the question's subject, the sentence after it states the rest of what
    is asked ("Existem diversas vantagens na realização de atividades complementares." then "A principal delas é
    incentivar o aluno ..." for "Qual a principal vantagem das atividades complementares?"; "Assim os velhos CPDs
    começaram a se transformar ..." then "Os profissionais de informática eram os que mais resistiam às
    mudanças." for "Quem mais resistiu às transformações dos CPDs?"). Never a sentence already quoted or flagged.
    Only the sentence after: on FaQuAD-pt's questions 31-600 the sentence before held the answer the strip lacked
    in none of 20 cases, the sentence after in 10 of 31. Not a selection rule: it completes a quoted unit."""
    q = req.q
    ask = {t for t in q.weights if t not in q.context and t not in q.codes and t not in q.kind_terms}
    lacking = ask - {t for _, other in picked for t in other.held}  # what no quoted strip holds
    para = paragraphs(req.item(n).text)
    i, j = strip.position, strip.position + 1
    if not lacking or j >= len(para) or para[i] is None or para[j] != para[i] \
            or any(m == n and other.position == j for m, other in picked):
        return ""
    unit = _unflagged_unit(req, n, j)
    # a word, not a number: a year or a count shared with the question is no sign the sentence continues the answer
    # ("... 3 casos ... em agosto." then "A próxima reunião ocorre em 15 de setembro de 2025.")
    gain = {t for t in held_terms(q, terms(unit, q.language)) & lacking if any(c.isalpha() for c in t)} if unit else ()
    return f" {unit}" if gain else ""


def _unflagged_unit(req: Request, n: int, position: int) -> str | None:
    """Unit ``position`` of item ``n``, unless the index flags it as addressing an assistant."""
    item = req.item(n)
    row = req.engine.rows.get(item.id) if item.kind == "chunk" else None
    flagged = req.engine.injection[row] if row is not None and req.engine.injection else ()
    unit = split_units(item.text)[position]
    return None if overlaps(unit, flagged) else unit


_TOKEN = re.compile(r"[^\W_][\w,./%-]*")
_LEAD = re.compile(r"\s*(?:[-*]\s*)?\d+(?:\.\d+)*\.?\s")  # a clause or item number ("4.2 ")


@lru_cache(maxsize=20_000)
def _written(text: str) -> str:
    return detect_language(text[:2000])


def _either(q, text: str, passage: str | None = None) -> frozenset[str]:
    """The terms of ``text`` as the question's language analyses them and, when its passage (``text`` itself
    unless given) is written in the other language, as that language does: an English question's translations
    are terms of the Portuguese analysis (as grading reads a passage in the other language)."""
    written = _written(passage if passage is not None else text)
    languages = {q.language} | ({written} if written in LANGUAGES else set())
    return frozenset().union(*(terms(text, language) for language in languages))


def valued_terms(req: Request, text: str) -> frozenset[str]:
    """The question's terms that a number of ``text`` states a value of: each number (codes and the clause
    number aside) goes to the nearest word holding a term of the question ("desconto de 2%" -> desconto;
    "Disponibilidade do ambiente; Nível de serviço: 99,9%" -> disponibilidade). Only the nearest: "disponibilidade
    mínima por 3 meses" gives the 3 months to "mínima", not to the availability whose level is asked."""
    q = req.q
    coded = set(q.codes) | {t for c in q.codes for t in c.split("-")}
    lead = _LEAD.match(text)
    words = _TOKEN.findall(text[lead.end():] if lead else text)
    held = [held_terms(q, _either(q, w, text)) - coded for w in words]  # a passage in the other language: its own
    out: set[str] = set()
    for i, w in enumerate(words):
        if not _DIGIT.search(w) or terms(w, q.language) & coded:
            continue
        near = [(abs(j - i), j) for j, h in enumerate(held) if h and j != i]
        if near:
            out |= held[min(near)[1]]
    return frozenset(out)


def _valued(req: Request, sources: list[int], picked: list[tuple[int, Strip]]) -> list[tuple[int, Strip]]:
    """For a question of several parts, a unit of the quoted passages that states the value of an asked term
    the quoted strips name but state no value of ("qual a disponibilidade mínima ... e qto de desconto ...?":
    the discount clause names the availability; the row "Disponibilidade mensal ...: 99,9%" states it). Added
    beside the picked strips, never in place of one; at most one."""
    q = req.q
    pieces = [p.text for p in split(q.text)]
    if len(pieces) < 2:
        return []
    asked = {t for t in q.weights if t not in q.context and t not in q.codes and t not in q.kind_terms}
    named = {t for _, s in picked for t in s.held} & asked
    stated = {t for _, s in picked for t in valued_terms(req, s.text)}
    # a part is answered when a quoted number states the value of its subject, its first word of the question's
    # own terms ("qual a disponibilidade mínima ...": disponibilidade)
    subjects = [next((h for w in _TOKEN.findall(piece) if (h := held_terms(q, terms(w, q.language)) & asked)),
                     frozenset()) for piece in pieces]
    wanted = {t for subject in subjects if not subject & stated for t in subject & named}
    if not wanted:
        return []
    quoted = {(n, s.position) for n, s in picked}
    options = []
    for n in dict.fromkeys(n for n, _ in picked if n in sources):
        for i, unit in enumerate(split_units(req.item(n).text)):
            if (n, i) in quoted:
                continue
            gain = valued_terms(req, unit) & wanted
            if gain:
                own = held_terms(q, _either(q, unit, req.item(n).text))
                options.append((fsum(q.weights[t] for t in gain), fsum(q.weights.get(t, 0.0) for t in own), -i, n,
                                Strip(unit, i, 0.0, own)))
    if not options:
        return []
    *_, n, strip = max(options, key=lambda o: o[:3])
    return [(n, strip)]


def _kind_parts(req: Request, picked: list[tuple[int, Strip]]) -> list[tuple[int, Strip]]:
    """For a question of several parts, each part asking a kind of fact that no quoted strip states (who the
    supplier is, beside the monthly value asked first; the monthly value, beside the supplier): the unit of a quoted
    document that states that kind, added beside the picked strips, cited. A slot of the document (its supplier,
    its term: ``slots``) is stated once, so its first unit that states it answers; another kind of fact (a
    deadline, a share) must also hold a word of its part. At most one unit per part, from at most ``MAX_ROWS``
    chunks of each quoted document the caller may read."""
    q, engine = req.q, req.engine
    pieces = split(q.text)
    if len(pieces) < 2 or not picked:
        return []
    documents = list(dict.fromkeys(d for n, _ in picked if (d := req.item(n).document_id)))
    quoted = [s.text for _, s in picked]
    out: list[tuple[int, Strip]] = []
    for piece in pieces:
        kind = ask_of(piece.text, q.language).kind
        if kind is None or kind not in STATES:
            continue
        states = STATES[resolve(kind, quoted)]
        if any(states.search(t) for t in quoted):
            continue
        own = {t: q.weights[t] for t in held_terms(q, terms(piece.text, q.language))
               if t not in q.kind_terms and t not in q.context and t not in q.codes}
        best: tuple[tuple[float, int, int, int], int, int, str] | None = None  # (rank, row, unit, text)
        for d, document in enumerate(documents):
            rows = [r for r in engine.documents.get(document, [])[:MAX_ROWS] if engine.row_readable(r, req.groups)]
            for k, row in enumerate(rows):
                flagged = engine.injection[row] if engine.injection else ()
                for i, unit in enumerate(split_units(engine.index.texts[row])):
                    if not states.search(unit) or overlaps(unit, flagged):
                        continue
                    said = held_terms(q, _either(q, unit, engine.index.texts[row]))
                    weight = fsum(own[t] for t in said & own.keys())
                    rank = (weight, -d, -k, -i)  # the most of its part, then the first quoted document, in order
                    if (weight > 0 or kind in SLOTS) and (best is None or rank > best[0]):
                        best = (rank, row, i, unit)
        if best is None:
            continue
        _, row, i, unit = best
        n = req.retrieved.ids.get(engine.index.chunk_ids[row])
        if n is None:
            add_chunk(engine, req.retrieved, row, 0.0, {"added": "states a part of the question"})
            n = len(req.retrieved.sources)
            req.grades[n] = grade_item(engine, q, req.item(n), req.retrieved.sources[-1], req.correct_at,
                                       req.ambiguous_at)
        if not any(m == n and s.position == i for m, s in picked + out):
            out.append((n, Strip(unit, i, 0.0, held_terms(q, _either(q, unit, engine.index.texts[row])))))
            quoted.append(unit)
    return out


def _other_part(req: Request, ranked: list[int], picked: list[tuple[int, Strip]]) -> list[tuple[int, Strip]]:
    """For a question of several parts, the best strip of an ``ambiguous`` item that covers a term of the
    question none of the ``picked`` strips holds (codes aside): a part answered by an item of its own that
    covers only that part ("qual o valor mensal do CT-X e qual a empresa?" and "... mantidos pela empresa Imagem
    Med ..."). It is added, never in place of a picked strip."""
    covered = {t for _, s in picked for t in s.held}
    coded = set(req.q.codes) | {t for c in req.q.codes for t in c.split("-")}
    best = max(s.score for _, s in picked)
    taken = {n for n, _ in picked}
    options = [(n, s) for n in ranked if req.grades[n].grade == AMBIGUOUS and n not in taken
               for s in req.grades[n].strips if s.score >= PARTS_SHARE * best and (s.held - covered) - coded]
    return [max(options, key=lambda p: p[1].score)] if options else []


def corrective(req: Request, language: str, filters: Filters | None) -> Draft:
    labels = LABELS.get(language, LABELS["pt"])
    coded = coded_documents(req.engine, req.q, req.groups)
    ranked = sorted(req.grades, key=lambda n: -req.grades[n].score)
    chosen = [n for n in ranked if req.grades[n].grade == CORRECT] or \
        [n for n in ranked if req.grades[n].grade == AMBIGUOUS]
    if coded and not req.q.parts:  # a document the question names by its code answers, not one that cites it
        chosen = principal_first(req, [n for n in chosen if req.item(n).document_id in coded] or chosen, coded)
    if not chosen:
        return refusal(language)
    status = "answered" if req.grades[chosen[0]].grade == CORRECT else "partial"
    primaries_ = primaries(req, chosen) if "primaries" in ENABLED else chosen
    main, older, currents = split_versions(req, primaries_) if "versions" in ENABLED else (primaries_, [], set())
    picked = _strips(req, main)
    if not picked:
        return refusal(language)
    if "tables" in ENABLED:
        picked = _whole_tables(req, picked)
    if req.q.parts:
        picked += _other_part(req, ranked, picked)
        if "valued" in ENABLED:
            picked += _valued(req, main, picked)
        if "kind_parts" in ENABLED:
            picked += _kind_parts(req, picked)
    if "pinned" in ENABLED:
        picked = _pinned(req, main, picked)
    older_docs = {req.item(n).document_id or "" for n in older}
    if "bridges" in ENABLED:
        picked += bridged(req, picked, older_docs, _form)  # documents the quoted strips name hold the next hop
    if "reason" in ENABLED:
        picked = with_reason(req, picked)  # why: the reason after the strip that restates the question
    lines = [line for line in [prompt.describe_filters(filters, language)] if line]

    def label(n: int) -> str:
        item = req.item(n)
        key = "current" if item.document_id in currents else "superseded"
        return labels[key].format(title=version_name(item)) + " "

    # a line is labelled with its version when its document has other versions in the evidence (its first line)
    versioned, seen = {family(req.item(n).title or "") for n in older}, set()
    shown = {s.text for _, s in picked}
    for n, s in picked:
        doc = req.item(n).document_id
        head = label(n) if family(req.item(n).title or "") in versioned and doc not in seen else ""
        seen.add(doc)
        before = antecedent(req, n, s, picked)
        after = continued(req, n, s, picked) or ("completing" in ENABLED and completing(req, n, s, picked)) or ""
        # a sentence added to complete one strip is not added again beside another (each is quoted once)
        before, after = ("" if u.strip() in shown else u for u in (before, after))
        shown.update(u.strip() for u in (before, after) if u)
        lines.append(f"{head}{before}{s.text}{after}{introduced(req, n, s)} [{n}]")
    quoted = {family(req.item(n).title or "") for n, _ in picked}
    best_of: dict[str, tuple[int, Strip]] = {}
    for n in [n for n in older if family(req.item(n).title or "") in quoted]:  # the version it supersedes is quoted
        for s in req.grades[n].strips:
            doc = req.item(n).document_id or req.item(n).id
            if doc not in best_of or (-s.score, s.values) < (-best_of[doc][1].score, best_of[doc][1].values):
                best_of[doc] = (n, s)
    for n, s in best_of.values():  # named and cited; its own rule quoted only when the question names a version
        lines.append(f"{label(n)}{s.text} [{n}]" if asked_version(req.q.text) is not None
                     else f"{label(n).rstrip().rstrip(':')}. [{n}]")
    cited = list(dict.fromkeys([n for n, _ in picked] + [n for n, _ in best_of.values()]))
    return Draft("\n".join(lines), cited, status, "extractive")
