"""``agentic``: bounded multi-step retrieval (``serving.answers.agentic``). Without an LLM the deterministic workflow
follows the references the evidence reveals; with one, the model drives the same tools through function
calling. Sources are the chunks read in the loop, in reading order; a comparison question gets the
requirement-by-requirement answer. The trace of every step goes to the response and the request log."""

from __future__ import annotations

import json
import logging
from math import fsum

from models.injection import overlaps
from serving.answers.agentic import compare_read, comparison, dense, parts, references
from serving.answers.agentic.agent import run_agent
from serving.answers.agentic.references import ITEM
from serving.answers.agentic.tools import Toolbox
from serving.answers.agentic.workflow import Outcome, Workflow
from serving.answers.doctypes import DocTypes
from serving.answers.modes.base import ModeRequest, Retrieved, add_chunk
from serving.answers.relevance import terms
from serving.answers.routing import comparison as is_comparison
from serving.answers.sentences import split_units
from serving.answers.wording import language_of

log = logging.getLogger(__name__)

MAX_SOURCES = 24
_NAMING = ("code", "title", "annex", "policy")  # references that name a document


class Agentic:
    name = "agentic"
    needs_graph = False

    def retrieve(self, request: ModeRequest) -> Retrieved:
        engine = request.engine
        box = Toolbox(engine, request.groups, request.vector, request.question)
        notes: list[str] = []
        if engine.generator is not None:
            with_llm = self._with_llm(request, box)
            if with_llm.sources or with_llm.trace:
                return with_llm
            # A model that called no tool at all (llama.cpp's server ignores tools under most chat templates) or
            # failed at once would answer from nothing: the deterministic workflow answers instead.
            notes = [*with_llm.warnings, "the language model called no tool; the deterministic workflow "
                     "answered"]
            box = Toolbox(engine, request.groups, request.vector, request.question)
        flow = Workflow(box, request.question, engine.agent_budget, request.filters, request.top_k)
        outcome = flow.run()
        pair = compare_read.sides(flow) if is_comparison(request.question) else None
        if pair is not None:
            compare_read.read_sides(flow, *pair)
        out = self._retrieved(request, outcome)
        if pair is not None:
            out.mode_answer = _comparison_answer(request, out, box, outcome, *pair)
        if out.mode_answer is None and len(split := parts.split(request.question)) > 1:
            out.mode_answer = _parts_answer(request, out, split, box, outcome.named)
        if out.mode_answer is None and pair is None and outcome.bridged:
            out.mode_answer = _bridge_answer(request, out, outcome.bridged)
        out.warnings = notes + out.warnings
        log.info("agentic trace %s", json.dumps({"question": request.question[:200], "steps": out.trace,
                                                 "stopped": outcome.stopped}, ensure_ascii=False))
        return out

    def _with_llm(self, request: ModeRequest, box: Toolbox) -> Retrieved:
        engine = request.engine
        result = run_agent(box, request.question, engine.agent_budget, engine.generator.client)
        out = self._retrieved(request, result.outcome)
        out.warnings += result.warnings
        out.graph_answer = result.answer or None  # its [chunk id] citations map to the read sources
        log.info("agentic trace %s", json.dumps({"question": request.question[:200], "steps": out.trace,
                                                 "stopped": result.outcome.stopped}, ensure_ascii=False))
        return out

    def _retrieved(self, request: ModeRequest, outcome: Outcome) -> Retrieved:
        engine = request.engine
        out = Retrieved(self.name, trace=outcome.trace.as_list())
        for i, row in enumerate(outcome.read[:MAX_SOURCES]):
            add_chunk(engine, out, row, 1.0 / (1 + i), {"read_at_step": _step_of(outcome, engine.index.chunk_ids[row])})
        out.timings["agent_ms"] = round(outcome.trace.seconds() * 1000, 3)
        out.timings["agent_steps"] = float(len(outcome.trace.steps))
        out.timings["agent_tokens"] = float(outcome.trace.tokens)
        if outcome.stopped.startswith("budget"):
            out.partial = True
            out.warnings.append(f"stopped at the {outcome.stopped.split(': ')[1]} budget after "
                                f"{len(outcome.trace.steps)} steps; not followed: "
                                f"{'; '.join(outcome.missing) or 'nothing pending'}")
        elif outcome.missing:
            out.warnings.append(f"references not found: {'; '.join(outcome.missing)}")
        return out


def _step_of(outcome: Outcome, chunk_id: str) -> int:
    return next((s.n for s in outcome.trace.steps if s.tool == "read_document" and chunk_id in s.ids), 0)


def _comparison_answer(request: ModeRequest, out: Retrieved, box: Toolbox, outcome: Outcome, required: str,
                       others: list[str]) -> str | None:
    engine = request.engine
    language = language_of(request.question)
    by_doc: dict[str, list[tuple[int, str]]] = {}
    for item in out.evidence:
        if item.n is not None and item.document_id:
            by_doc.setdefault(item.document_id, []).append((item.n, item.text))
    if required not in by_doc or not any(d in by_doc for d in others):
        return None
    weights = engine.relevance.weights(request.question, language)
    idf = _idf(engine)
    question_terms = set(weights)

    def focus(text: str) -> float:
        return fsum(weights[t] for t in terms(text, language) & question_terms)

    offered = [pair for d in others for pair in by_doc.get(d, [])]
    items = frozenset(m.group(1) for m in ITEM.finditer(request.question))
    rows = comparison.compare(by_doc[required], offered, language, idf, focus, items)
    if not rows:
        return None
    docs = box.directory.docs
    text, _ = comparison.render(rows, docs[required].title, " / ".join(docs[d].title for d in others if d in by_doc),
                                language)
    return text


def _parts_answer(request: ModeRequest, out: Retrieved, split: list[parts.Part], box: Toolbox,
                  named: list[str]) -> str | None:
    """One cited sentence of the read evidence per part of the question (sentences flagged as addressing an
    assistant are never quoted), chosen by shared words and by dense similarity (``agentic.dense``). A part
    that names no document of its own is answered from the documents the question names, when they cover it
    ("qual a disponibilidade do CT-X e qual o desconto se ela ...")."""
    engine = request.engine
    language = language_of(request.question)
    relevance = engine.relevance
    by_n = {e.n: engine.rows.get(e.id) for e in out.evidence if e.n is not None and e.kind == "chunk"}
    rows = [by_n.get(s.n) for s in out.sources]
    texts = _unflagged(request, out)
    titles = box.directory.title_map()
    in_named = {e.n for e in out.evidence if e.n is not None and e.document_id in set(named)}
    scopes = [None if any(r.kind in _NAMING for r in references.find(p.text, titles)) else in_named or None
              for p in split]
    similar = dense.Measure(engine, split, rows, texts)
    picks = parts.pick(split, texts, language, lambda text: relevance.weights(text, language), scopes, similar,
                       [_of_type(p.text, out) for p in split], relevance.synonyms(request.question, language))
    return parts.render(picks, language)


def _unflagged(request: ModeRequest, out: Retrieved) -> list[tuple[str, str]]:
    """(title, text) of each source without the sentences flagged as addressing an assistant (the sources are
    graded, and their flags set, after the mode: the flags come from the index here)."""
    engine = request.engine
    by_n = {e.n: engine.rows.get(e.id) for e in out.evidence if e.n is not None and e.kind == "chunk"}
    rows = [by_n.get(s.n) for s in out.sources]
    flags = [engine.injection[r] if r is not None and engine.injection else s.flagged
             for s, r in zip(out.sources, rows, strict=True)]
    return [(s.title, s.text if not f else "\n".join(u for u in split_units(s.text) if not overlaps(u, f)))
            for s, f in zip(out.sources, flags, strict=True)]


def _bridge_answer(request: ModeRequest, out: Retrieved, bridged: list[str]) -> str | None:
    """A question whose answer lies in a document named by the first one ("the singer of album X was born
    where?"): the sentence of the other documents that best covers the question, then the sentence of a document
    reached through its title, and named in that first sentence, that best covers the question's terms the first
    sentence leaves out."""
    language = language_of(request.question)
    weights = request.engine.relevance.weights(request.question, language)
    doc_of = {e.n: e.document_id for e in out.evidence if e.n is not None}
    texts = _unflagged(request, out)
    units = [(s.n, u, terms(u, language) & weights.keys())
             for s, (_, text) in zip(out.sources, texts, strict=True) for u in split_units(text)]
    first = max(((fsum(weights[t] for t in ts), -i) for i, (n, _, ts) in enumerate(units)
                 if doc_of.get(n) not in bridged), default=None)
    if first is None or first[0] <= 0:
        return None
    n1, u1, covered = units[-first[1]]
    # the bridge is a document the first sentence names; else the question had no bridge to cross (one passage
    # of many under one title names another in passing) and the graded composition answers it
    named = {doc_of.get(s.n) for s in out.sources if doc_of.get(s.n) in bridged
             and references.names(u1, s.title)}
    left = {t: w for t, w in weights.items() if t not in covered}
    second = max(((fsum(left[t] for t in ts & left.keys()), fsum(weights[t] for t in ts), -i)
                  for i, (n, _, ts) in enumerate(units) if doc_of.get(n) in named), default=None)
    if second is None or second[1] <= 0:
        return None
    n2, u2, _ = units[-second[2]]
    return f"{u1} [{n1}]\n{u2} [{n2}]"


def _of_type(part: str, out: Retrieved) -> set[int] | None:
    """The sources of the one kind of document a part names ("its security annex", "a política"), if read."""
    kinds = set(DocTypes.of({s.doc_type for s in out.sources if s.doc_type}).named(part))
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    return {s.n for s in out.sources if s.doc_type == kind} or None


def _idf(engine):
    relevance = engine.relevance

    def weight(term: str) -> float:
        import math

        df = relevance._df(term)
        return math.log(1 + (relevance.n - df + 0.5) / (df + 0.5))

    return weight
