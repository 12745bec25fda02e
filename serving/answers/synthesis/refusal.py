"""Refusal on near misses: evidence that covers the question's topic but not the fact it asks for (a
paediatric dose when only the adult one is written) is the fixed refusal with where to look, the documents
that cover the topic, cited, never a partial quote of a neighbouring rule.

The measure is how much of the question none of the usable evidence covers: the IDF-weighted share of the
question's terms missing from every item of the pool (its ``correct`` items, else its ``ambiguous`` ones),
counting only the terms of the ask itself (``focus``). The
thresholds are fitted on the dev split and its rewordings, near misses included (``benchmarks/synthesis_fit.py
--what fit-refusal``, 441 dev questions, key-fact judge: at 0.4 for both pools wrong 0.200 -> 0.104,
unanswerable declined 0.646 -> 0.818, correct 0.379 -> 0.311, answerable declined 0.246 -> 0.436; a second
trigger on the rarest term being uncovered lost on dev and was removed). A second measure needs no threshold:
a month or a level the question pins its fact to ("em setembro de 2025", "nível III") that what an answer would
quote (the pool's strips within ``KEEP_SHARE`` of the best) states only with other values (``constraints``; read
over whole passages, a next meeting's date in September let August's count answer a question about September),
or that the strips stating it hold less of the question's other words than one stating another value does
(``pinned_elsewhere``: the asked job's rows are levels I and II, level III is another job's row; dev: two
unanswerable questions wrong -> declined, nothing lost; test unchanged).
A third needs none either: a word of the ask that is a word of its language (the pt-en glossary lists it as
written) and that no chunk of the corpus holds, in either language (``unheard``: "crianças" asked of a corpus
that states only the adult dose).
A near miss that pins no value and whose every word some document holds is beyond these measures: grading must
see it."""

from __future__ import annotations

from dataclasses import dataclass
from math import fsum

from lakehouse.text import fold
from models.analysis import LANGUAGES
from serving.answers import constraints
from serving.answers.agentic.parts import split
from serving.answers.asking import ask_of
from serving.answers.bridges import names, title_name
from serving.answers.compose import Draft
from serving.answers.grading import AMBIGUOUS, CORRECT, Strip, held_terms
from serving.answers.refine import KEEP_SHARE, Request
from serving.answers.relevance import terms
from serving.answers.wording import not_found
from serving.graph import bilingual

# fitted on dev: the uncovered share at which a pool of correct / of ambiguous items is a near miss
CORRECT_UNCOVERED = 0.4
PARTIAL_UNCOVERED = 0.4
MAX_PLACES = 3
WHERE = {"pt": "Documentos que tratam do assunto:", "en": "Documents on this topic:"}


def uncovered(req: Request, pool: list[int]) -> float:
    """The IDF-weighted share of the question's terms (codes aside) that no item of ``pool`` covers."""
    q = req.q
    if not pool or not q.weights:
        return 0.0
    missing = set.intersection(*(set(req.grades[n].missing) for n in pool))
    # the ask's own terms (``focus``); leaving out the words no document holds (typos, slang) was measured on dev
    # and lost (correct +0.015, wrong +0.018 over the rewordings)
    asked = {t: w for t, w in q.weights.items() if t not in q.context}
    total = fsum(asked.values()) or 1.0
    # a number the question gives with a unit the evidence states another number of ("if a vendor reports within
    # 72 hours, does it pass?" over "Within 24 hours") is compared with it, not looked for
    units = {u for n in pool for _, u in constraints.measured(req.item(n).text)}
    compared = {n for n, u in constraints.measured(q.text) if u in units}
    lost = [t for t in asked if q.surface.get(t, t) in missing and t not in q.codes and t not in compared]
    return fsum(asked[t] for t in lost) / total


@dataclass(frozen=True)
class NearMiss:
    correct_at: float = CORRECT_UNCOVERED
    partial_at: float = PARTIAL_UNCOVERED

    pinned: bool = True  # a month or level the question names that the evidence states only otherwise
    unheard: bool = True  # a word of the language that the ask holds and no document does (``unheard``)

    def applies(self, req: Request, pool: list[int]) -> bool:
        if not pool:
            return False
        if self.pinned and (constraints.mismatched(req.q.text, quoted(req, pool)) or pinned_elsewhere(req, pool)):
            return True
        if self.unheard and unheard(req, pool):
            return True
        limit = self.correct_at if req.grades[pool[0]].grade == CORRECT else self.partial_at
        return uncovered(req, pool) >= limit


def unheard(req: Request, pool: list[int]) -> list[str]:
    """The words of the ask (not of the situation around it, ``focus``) written as the pt-en glossary
    (``serving.graph.bilingual``) lists them, so words of their language, not typos nor slang, that no chunk of
    the corpus holds, neither as written nor by a synonym or a translation: "a dose de alteplase para crianças"
    over a corpus that never writes "criança" nor "child" is asked of documents that hold only the adult dose;
    a passage on the topic cannot state it. A word matched by its stem alone (an inflected verb: "verifica",
    "recorre") names an action the documents may word otherwise, and a word asking the kind of fact
    ("porcentagem": a share) is held by a strip stating one; neither counts. Fitted on dev and FaQuAD-pt 31-600:
    on dev every answered question holding such a word was a near miss (3 wrong -> declined, none answerable); on
    FaQuAD-pt 31-600 a stem match would decline 3 answered questions, the words as listed 1."""
    q, df = req.q, req.engine.relevance.df
    # the words asking each part's kind of fact ("e quem é o fornecedor": a supplier) are held by stating one
    asking = q.kind_terms | {t for part in split(q.text) for t in ask_of(part.text, q.language).terms}
    words = [t for t in q.weights
             if t not in q.context and t not in q.codes and t not in asking and df(t) == 0
             and bilingual.listed(q.surface.get(t, t)) and all(df(a) == 0 for a in q.synonyms.get(t, ()))]
    if not words:
        return []
    # a word the index holds only inside a longer one ("total" in "totalizando") is held as grading holds it
    held: set[str] = set()
    for n in pool:
        item = req.item(n)
        text = f"{item.title or ''} {item.section or ''} {item.text}"
        held |= held_terms(q, frozenset().union(*(terms(text, lang) for lang in LANGUAGES)))
    return [q.surface.get(t, t) for t in words if t not in held]


def pinned_elsewhere(req: Request, pool: list[int]) -> bool:
    """The question pins a month or a level, and the strips that state it hold less of the question's other
    words than a strip stating another value does: the asked thing exists, but not with that value ("faixa
    salarial de Técnico de Enfermagem nível III" over a table whose Técnico de Enfermagem rows are levels I and
    II, and whose level III rows are other jobs)."""
    q = req.q
    if not constraints.pinned(q.text):
        return False
    pins = constraints.pin_words(q.text)
    strips = [s for n in pool for s in req.grades[n].strips]
    best = max((s.score for s in strips), default=0.0)

    def other_words(strip: Strip) -> float:
        return fsum(q.weights.get(t, 0.0) for t in strip.held
                   if fold(q.surface.get(t, t).lower()) not in pins and t not in q.context)
    stating, other = [], []
    for s in strips:
        if s.score < KEEP_SHARE * best:
            continue
        if constraints.states(q.text, s.text):
            stating.append(other_words(s))
        elif constraints.mismatched(q.text, [s.text]):
            other.append(other_words(s))
    return bool(stating and other) and max(other) > max(stating)


def quoted(req: Request, pool: list[int]) -> list[str]:
    """What an answer from ``pool`` would quote: its strips within ``KEEP_SHARE`` of the best (the composer's
    floor), else its passages. A table that lists level III for another job does not state the asked job's."""
    strips = [s for n in pool for s in req.grades[n].strips]
    best = max((s.score for s in strips), default=0.0)
    return [s.text for s in strips if s.score >= KEEP_SHARE * best] or [req.item(n).text for n in pool]


def pool_of(req: Request) -> list[int]:
    """The items an answer would be composed from: the ``correct`` ones, else the ``ambiguous`` ones; for a
    question of several parts, both (each part may be answered by an item of its own). A question that names
    two or more documents of the evidence by their titles (a comparison: "which was founded first, X or Y?")
    is answered from each: the best usable item of each named document joins the pool."""
    ranked = sorted(req.grades, key=lambda n: -req.grades[n].score)
    correct = [n for n in ranked if req.grades[n].grade == CORRECT]
    ambiguous = [n for n in ranked if req.grades[n].grade == AMBIGUOUS]
    pool = correct + ambiguous if req.q.parts else correct or ambiguous
    named: dict[str, int] = {}
    for n in ranked:
        item = req.item(n)
        if item.kind == "chunk" and req.grades[n].grade in (CORRECT, AMBIGUOUS) \
                and (name := title_name(item.title or "")) and names(req.q.text, name):
            named.setdefault(item.document_id or item.id, n)
    if len(named) >= 2 and set(named.values()) & set(pool):
        pool += [n for n in named.values() if n not in pool]
    return pool


def where_to_look(req: Request, pool: list[int], language: str) -> Draft:
    """The fixed refusal, then the documents of ``pool`` (the topic's), each cited once."""
    places: dict[str, int] = {}
    for n in pool:
        item = req.item(n)
        places.setdefault(item.title or item.document_id or item.id, n)
        if len(places) >= MAX_PLACES:
            break
    text = not_found(language)
    if places:
        where = WHERE.get(language, WHERE["pt"])
        text += f"\n{where} " + "; ".join(f"{title} [{n}]" for title, n in places.items())
    return Draft(text, list(places.values()), "not_found", "rules")
