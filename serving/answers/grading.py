"""Grading the evidence before composing (corrective retrieval): each retrieved chunk gets ``correct``,
``ambiguous`` or ``incorrect`` for this question, a score and a one-line reason.

Without an LLM the score is a logistic function of six measurements, its weights fitted on the dev split of
the sample corpus's labelled questions and their rewordings (``benchmarks/grading_fit.py``; ``WEIGHTS``):

- coverage: the IDF-weighted share of the question's analysed terms (``models.analysis.analyze_query``: its
  abbreviations written out, its filler words dropped) the chunk (with its title and section) holds;
- strip: the best single strip's coverage (a sentence, list item or table row, read with the title and
  section), so terms spread over unrelated sentences count less;
- dense: the cosine of the question's and the chunk's embeddings (0 without vectors);
- kind: 1 when the question asks for a kind of fact (``asking``: an amount, a deadline, a share, a count, any
  quantity, a slot of a document) and a strip that addresses it holds one, 0 when none does, 0.5 when the
  question asks for no such kind;
- semantic: the best unit's similarity to the question through the multilingual encoder (``semantic``; the
  chunk vector's where its units were not encoded), and contrast: how far it stands above the question's
  median unit. With no word of the question in a chunk, its units that mean it most are its strips.

A code in the question ("CT-2024-0817") that the chunk does not hold makes it ``incorrect`` whatever the
score; a reranker's score, when the snapshot has one, is averaged in. ``correct`` at or above ``correct_at``,
``ambiguous`` at or above ``ambiguous_at``, else ``incorrect``. Sentences flagged as instructions to an
assistant are never strips.
"""

from __future__ import annotations

import math
import re
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from models.analysis import LANGUAGES, analyze, analyze_query, detect_language
from models.injection import overlaps
from models.lexicon import lexicon
from serving.answers import focus
from serving.answers.asking import COVERS, STATES, ask_of, resolve
from serving.answers.engine import Engine
from serving.answers.modes import Retrieved
from serving.answers.prompt import Source
from serving.answers.relevance import respelled_words, terms
from serving.answers.semantic import FITTED as semantic_fitted_models
from serving.answers.semantic import level, median_cosine, unit_similarities
from serving.answers.sentences import clause_leads, split_units
from serving.answers.slots import CONTEXT
from serving.answers.types import EvidenceItem
from serving.answers.versions import VERSION

CORRECT, AMBIGUOUS, INCORRECT = "correct", "ambiguous", "incorrect"
CORRECT_AT = 0.52
AMBIGUOUS_AT = 0.52  # the API's ``min_relevance``: no item at or above it means the refusal
# fitted on the dev split (100 questions, 272 rewordings; 2,512 retrieved chunks, e5-small): benchmarks/grading_fit.py
# for encoders other than the fitted one: the earlier fit, on wordllama vectors and without the sentence feature
# (commit 17f198d, benchmarks/grading_fit.py then); the semantic and contrast features weigh nothing there
LEXICAL_WEIGHTS = {"coverage": 1.091, "strip": 1.312, "dense": 0.559, "kind": -0.069, "bias": -1.214}
WEIGHTS = {"coverage": 1.133, "strip": 1.046, "dense": 0.325, "kind": 0.216, "semantic": 0.963, "contrast": 0.485,
           "bias": -1.891}
PREFIX_MIN = 5
HEADING_SHARE = 0.5  # a term only the title or section holds counts half for a strip
CONTRAST_SPAN = 0.05  # a best unit this far above the median unit of the question's evidence has contrast 1
SEMANTIC_NEAR = 0.02  # with no word of the question, the units this close to the best unit's cosine are strips
STRIP_SHARE = 0.7  # a strip addresses the question when it covers this share of the best strip's coverage

_CODE = re.compile(r"(?=.*[a-z])(?=.*\d)[a-z0-9]+(?:-[a-z0-9]+)+")
_WORD = re.compile(r"[\w][\w-]*")
# one asking word for two things: "para presentes e para a diligência prévia", "for gifts and for suppliers"
_BOTH = re.compile(r"\b(para|for|sobre|about|quanto a|as to)\s[^?,;]{2,50}?\s(?:e|and)\s\1\b", re.IGNORECASE)


@dataclass(frozen=True)
class Strip:
    """A unit of a chunk's text that addresses the question, in document order (``position``)."""

    text: str
    position: int
    score: float
    held: frozenset[str] = frozenset()  # the question's terms it covers (with its title and section)
    values: int = 0  # facts of the asked kind it states (fewer is more precise)


@dataclass
class Grade:
    """One evidence item's grade for this question."""

    grade: str
    score: float
    reason: str
    strips: list[Strip] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # question words the item does not cover
    flagged: int = 0  # sentences of the item addressed to an assistant (never strips)


@dataclass(frozen=True)
class Question:
    """What grading needs of a question, computed once per request."""

    text: str
    language: str
    weights: dict[str, float]  # idf of each analysed term
    surface: dict[str, str]  # analysed term -> the word of the question
    codes: tuple[str, ...]
    kind: str | None  # the kind of fact asked for, if any
    vector: np.ndarray | None = None
    kind_terms: frozenset[str] = frozenset()  # terms of the words asking for it ("prazo"): a fact of it covers them
    parts: bool = False  # it asks more than one thing ("qual empresa ... e qual o valor")
    absent: tuple[str, ...] = ()  # question words no chunk of the corpus holds (set by the caller)
    context: frozenset[str] = frozenset()  # terms only the situation around the ask holds (``focus``)
    covers: tuple[tuple[frozenset[str], re.Pattern], ...] = ()  # terms a strip stating the pattern covers (``COVERS``)
    resolved: dict[str, str | None] = field(default_factory=dict, compare=False)  # "kind": the quantity asked
    synonyms: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)  # a term -> the terms that
    # cover it too ("tir", from "tirar", -> revog, remov: ``Relevance.synonyms``)

    @property
    def asked(self) -> str | None:
        """The kind of fact asked, a ``quantity`` read from the evidence once it was (``resolve_kind``)."""
        return self.resolved.get("kind", self.kind)

    def resolve_kind(self, items: list[EvidenceItem]) -> None:
        """Read which quantity a "valor" asks from the units about the question's rarest term."""
        if self.kind != "quantity" or "kind" in self.resolved:
            return
        content = {t: w for t, w in self.weights.items() if t not in self.kind_terms}
        if not content:
            self.resolved["kind"] = resolve(self.kind, [])
            return
        top = max(content, key=lambda t: content[t])
        units = [u for i in items if i.kind == "chunk"
                 for around in [terms(f"{i.title or ''} {i.section or ''}", self.language)]
                 for u in split_units(i.text) if top in held_terms(self, terms(u, self.language) | around)]
        self.resolved["kind"] = resolve(self.kind, units)

    @classmethod
    def of(cls, text: str, language: str, weights: dict[str, float], vector: np.ndarray | None = None,
           spell: Callable[[str], str] | None = None) -> Question:
        """``weights``: the IDF of each term as the index reads it; ``spell``: how a term of the question was
        respelled to reach it (``Relevance.spelled``: "sanitária" read as a term of the index one edit away)."""
        spell = spell or (lambda t: t)
        # "na versão 2" selects a document (``versions``); it is not something a passage must contain
        named = {t for m in VERSION.finditer(text) for t in analyze(m.group(0), language)}
        weights = {t: w for t, w in weights.items() if t not in named} or weights
        # the words that open an ask ("quanto", "quais") ask; no passage needs to hold them
        asking = {t for w in lexicon(language).asking for t in analyze(w, language)} if language in LANGUAGES else set()
        weights = {t: w for t, w in weights.items() if t not in asking} or weights
        # the words of the situation around the ask weigh less than the ask's own (``focus``)
        share = focus.factors(text, language, spell)
        weights = {t: w * share.get(t, 1.0) for t, w in weights.items()}
        asked = " ".join(s for s, asks in focus.asking_segments(text, language) if asks) or text
        surface: dict[str, str] = {}
        for word in _WORD.findall(text):
            for term in analyze_query(word, language):
                surface.setdefault(spell(term), word)
        # "Qual o forncedor": the kind or slot asked is read through a typo the index reads one edit away
        ask = ask_of(respelled_words(asked, language, spell), language)
        covers = tuple((said, states) for asks, states in COVERS
                       if (said := frozenset(spell(t) for m in asks.finditer(asked)
                                             for t in analyze(m.group(0), language) if spell(t) in weights)))
        return cls(text, language, weights, surface, tuple(t for t in weights if _CODE.fullmatch(t)), ask.kind,
                   vector, ask.terms, ask.asks > 1 or _BOTH.search(asked) is not None, covers=covers,
                   context=frozenset(t for t in weights if t in share))


def _logistic(features: dict[str, float], weights: dict[str, float] | None = None) -> float:
    weights = weights or WEIGHTS
    z = weights["bias"] + math.fsum(weights.get(k, 0.0) * v for k, v in features.items())
    return 1 / (1 + math.exp(-z))


def weights_for(engine: Engine) -> dict[str, float]:
    """The grade's weights for the snapshot's encoder: ``WEIGHTS`` for the encoder they were fitted with (its
    sentence similarities on the scale ``semantic.BASE`` reads), ``LEXICAL_WEIGHTS`` for any other."""
    embedder = getattr(engine, "embedder", None)  # an engine without an encoder (BM25 only, a test's stand-in)
    return WEIGHTS if embedder is not None and embedder.model_id.startswith(semantic_fitted_models) else LEXICAL_WEIGHTS


@lru_cache(maxsize=50_000)
def _prefixes(present: frozenset[str]) -> frozenset[str]:
    """Every prefix of ``PREFIX_MIN`` or more characters of the terms (cached: texts recur across requests)."""
    return frozenset(p[:k] for p in present for k in range(PREFIX_MIN, len(p) + 1))


def held_terms(q: Question, present: frozenset[str]) -> frozenset[str]:
    """The question's terms among ``present``; a term of 5 or more characters also matches the terms it starts
    or that start it (the stemmer reads "prestar" as prest, "prestação" as prestaca)."""
    out = {t for t in q.weights if t in present or any(a in present for a in q.synonyms.get(t, ()))}
    missing = [t for t in q.weights if t not in out and len(t) >= PREFIX_MIN]
    short = [t for t in q.weights if t not in out and len(t) < PREFIX_MIN]
    if missing or short:
        starts = _prefixes(present)
        out.update(t for t in missing if t in starts or any(t[:k] in present for k in range(PREFIX_MIN, len(t))))
        # a short stem of a plural ("fiscais" -> fisc) matches its singular ("fiscal") by the question's word
        out.update(t for t in short if (word := _folded(q.surface.get(t, t)))[:PREFIX_MIN] in starts
                   and word.startswith(t))
    return frozenset(out)


@lru_cache(maxsize=20_000)
def _language(text: str) -> str:
    return detect_language(text)


@lru_cache(maxsize=5_000)
def _folded(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word.casefold()) if not unicodedata.combining(c))


def features(q: Question, text: str, context: str, dense: float | None, flagged: tuple[str, ...] = (),
             sims: dict[str, float] | None = None,
             median: float | None = None) -> tuple[dict[str, float], list[Strip], list[str], int]:
    """(measurements, strips that address the question, missing question words, flagged units); ``sims``: the
    question's cosine to each unit (``semantic``), when they were encoded; ``median``: the median cosine of all
    the units encoded for the question."""
    total = math.fsum(q.weights.values()) or 1.0
    written = _language(text[:2000])

    def read(x: str) -> frozenset[str]:  # a text in the other language is read in its own too: the question's
        # translations (``Question.synonyms``, from the pt-en glossary) are its terms as that language analyses them
        own_terms = terms(x, q.language)
        return own_terms | terms(x, written) if written != q.language and written in LANGUAGES else own_terms
    around = read(context)
    held = held_terms(q, read(text) | around)
    coverage = math.fsum(q.weights[t] for t in held) / total
    units = list(split_units(text))
    leads = clause_leads(text)
    dropped = sum(1 for u in units if overlaps(u, flagged))
    scored = []
    heading = held_terms(q, around)
    holds = STATES[q.asked] if q.asked is not None else None
    section = holds is not None and q.asked in CONTEXT and holds.search(context) is not None

    coded = set(q.codes) | {t for c in q.codes for t in c.split("-") if t in q.weights}  # "ct-2024-0187", "0187"

    def fills(unit: str) -> bool:  # it states the kind of fact asked for ("20 a 30 segundos"), or sits in the
        return holds is not None and (section or holds.search(unit) is not None)  # section that does

    for i, u in enumerate(units):
        own = held_terms(q, read(u))
        if fills(u):
            own |= q.kind_terms & q.weights.keys()
        for said, states in q.covers:
            if states.search(u) and not overlaps(u, flagged):
                own |= said
                held |= said
        said = own - coded
        if said and not (said <= heading and own & set(q.codes)) and not overlaps(u, flagged):  # it says
            # something of the question itself, not only a code and words of its heading (a running header
            # "Contrato CT-2024-0178 - Confidencial Página 1" is not an answer; a date's year "01/04/2024" is
            # no code)
            # the heading's terms, and those of the clause's first sentence, count part (``HEADING_SHARE``)
            above = heading | held_terms(q, read(leads[i])) if leads[i] else heading
            score = (math.fsum(q.weights[t] for t in own)
                     + HEADING_SHARE * math.fsum(q.weights[t] for t in above - own))
            scored.append(Strip(u, i, score / total, own | above))
    best = max((s.score for s in scored), default=0.0)
    strips = [s for s in scored if s.score > 0 and s.score >= STRIP_SHARE * best]
    said_units = {u: c for u, c in (sims or {}).items() if not overlaps(u, flagged)}
    top = max(said_units.values(), default=None)
    # without an encoder (no unit nor chunk vector) the sentence similarity is read as its lexical counterpart
    semantic = level(top) if top is not None else level(dense) if dense is not None else best
    across = top is not None and written != q.language  # words meet only through translations: the encoder too
    lexical = best
    if across:
        coverage, best = max(coverage, level(top)), max(best, level(top))
    # no word of the question, or across languages no strip whose words cover it as much as the sentence that
    # means it most does ("how long do I have to submit expenses?" -> "6.1 A prestação de contas ... 10 dias"):
    # the units nearest the question through the encoder are the strips
    if (not strips or across and lexical < level(top)) and top is not None and level(top) > 0:
        strips = [Strip(u, i, level(said_units[u]), held_terms(q, read(u)) | heading)
                  for i, u in enumerate(units) if said_units.get(u, -1.0) >= top - SEMANTIC_NEAR]
    kind = 0.5
    if q.asked is not None:
        typed = [Strip(s.text, s.position, s.score, s.held, len(holds.findall(s.text)))
                 for s in strips if fills(s.text)]
        kind = 1.0 if typed else 0.0
        strips = strips if q.parts else typed or strips  # a question of several parts keeps the others
    if kind == 1.0:
        held |= q.kind_terms
    # across languages a word the text lacks says nothing of what it states: the encoder has judged it
    # a word the question wrote is missing when none of its terms is held ("alcohol-based" is held by "alcoólica")
    said_words = {q.surface.get(t, t) for t in held}
    missing = [] if across else [q.surface.get(t, t) for t, _ in sorted(q.weights.items(), key=lambda kv: -kv[1])
                                 if t not in held and q.surface.get(t, t) not in said_words]
    # how far this chunk's best unit stands above the question's other units (a cosine ranks, it does not measure)
    contrast = min(max((top - median) / CONTRAST_SPAN, 0.0), 2.0) if top is not None and median is not None else 0.0
    return ({"coverage": coverage, "strip": best, "dense": max(dense or 0.0, 0.0), "kind": kind,
             "semantic": semantic, "contrast": contrast}, strips, missing, dropped)


def grade(q: Question, text: str, context: str, dense: float | None, rerank: float | None = None,
          flagged: tuple[str, ...] = (), correct_at: float = CORRECT_AT,
          ambiguous_at: float = AMBIGUOUS_AT, sims: dict[str, float] | None = None,
          median: float | None = None, weights: dict[str, float] | None = None) -> Grade:
    """The grade of one chunk (``text`` read with its title and section, ``context``; ``sims``: the question's
    cosine to its units; ``weights``: ``WEIGHTS`` unless given)."""
    measured, strips, missing, dropped = features(q, text, context, dense, flagged, sims, median)
    score = _logistic(measured, weights)
    if rerank is not None and rerank == rerank:
        score = (score + 1 / (1 + math.exp(-rerank))) / 2
    absent = [c for c in q.codes if c not in terms(f"{text} {context}", q.language)]
    covered = len(q.weights) - len(missing)
    facts = f"covers {covered}/{len(q.weights)} key terms"
    if missing:
        facts += f" (missing: {', '.join(missing[:4])})"
    if q.asked is not None and measured["kind"] == 0.0:
        facts += f"; no {q.asked} stated"
    if dense is not None:
        facts += f"; similarity {max(dense, 0.0):.2f}"
    if sims:
        facts += f"; best sentence {max(sims.values()):.2f}"
    if absent:
        return Grade(INCORRECT, round(min(score, ambiguous_at / 2), 4),
                     f"does not mention {', '.join(c.upper() for c in absent)}", [], missing, dropped)
    if q.asked is not None and measured["kind"] == 0.0:
        if not q.parts:  # it cannot answer the one thing asked
            return Grade(INCORRECT, round(min(score, ambiguous_at / 2), 4),
                         f"states no {q.asked}; {facts.replace(f'; no {q.asked} stated', '')}", [], missing, dropped)
        score = min(score, (ambiguous_at + correct_at) / 2)  # it may answer another part of the question
    if not strips:
        return Grade(INCORRECT, round(min(score, ambiguous_at / 2), 4), f"no passage addresses the question; {facts}",
                     [], missing, dropped)
    label = CORRECT if score >= correct_at else AMBIGUOUS if score >= ambiguous_at else INCORRECT
    return Grade(label, round(score, 4), facts, strips, missing, dropped)


def grade_item(engine: Engine, q: Question, item: EvidenceItem, source: Source | None = None,
               correct_at: float = CORRECT_AT, ambiguous_at: float = AMBIGUOUS_AT,
               sims: dict[str, float] | None = None, median: float | None = None) -> Grade:
    """Grade one evidence item; the grade is written into the item (and its source, for the prompt)."""
    row = engine.rows.get(item.id) if item.kind == "chunk" else None
    flagged = engine.injection[row] if row is not None and engine.injection else ()
    dense = float(engine.index.vectors[row] @ q.vector) \
        if row is not None and q.vector is not None and engine.index.vectors.size else None
    scores = item.extra.get("scores")
    rerank = scores.get("rerank") if isinstance(scores, dict) else None
    g = grade(q, item.text, f"{item.title or ''} {item.section or ''}", dense, rerank, flagged, correct_at,
              ambiguous_at, sims, median, weights_for(engine))
    item.grade, item.grade_reason = g.grade, g.reason  # type: ignore[assignment]
    if source is not None:
        source.grade, source.flagged = g.grade, tuple(flagged)
    return g


def grade_evidence(engine: Engine, q: Question, retrieved: Retrieved, correct_at: float = CORRECT_AT,
                   ambiguous_at: float = AMBIGUOUS_AT) -> dict[int, Grade]:
    """Grades of the citable evidence (chunks and reports), by source number; the units of the first chunks
    are compared with the question through the encoder (``semantic``; its time is ``semantic_ms``)."""
    by_n = {s.n: s for s in retrieved.sources}
    citable = [item for item in retrieved.evidence if item.n is not None and item.kind in ("chunk", "report")]
    q.resolve_kind(citable)
    started = time.perf_counter()
    sims = unit_similarities(engine.embedder, q.vector, citable)
    retrieved.timings["semantic_ms"] = round((time.perf_counter() - started) * 1000, 1)
    median = median_cosine(sims)
    return {item.n: grade_item(engine, q, item, by_n.get(item.n), correct_at, ambiguous_at, sims.get(item.id),
                               median) for item in citable}
