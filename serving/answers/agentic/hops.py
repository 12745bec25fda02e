"""Two hops of the deterministic workflow beyond its references: each part of a question with several parts
searched on its own (its best hits, and the closest chunk in meaning written in another language), and a law
cited in the evidence followed to the documents named after it or citing it."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from models.analysis import detect_language
from serving.answers.agentic import parts, references
from serving.answers.agentic.references import Reference
from serving.answers.modes.base import retrieval_filters

if TYPE_CHECKING:  # the workflow imports this module
    from serving.answers.agentic.workflow import Workflow

PART_READ = 2  # best new hits of each part's own search read in full
ACROSS_POOL = 50  # a part's closest chunks (in meaning) among which those in another language are looked for
ACROSS_READ = 2  # of those, read in full


def part_searches(flow: Workflow) -> None:
    """A question with several parts: each part searched on its own, its best new hits read (a part the whole
    question's search ranks low, say the second document of "who X, and when Y?", is read too)."""
    split = parts.split(flow.question)
    if len(split) < 2:
        return
    box, ix = flow.box, flow.box.engine.index
    retriever = box.engine.retriever()
    filters = retrieval_filters(flow.filters)
    language = detect_language(flow.question)
    for part in split:
        if flow.out.trace.exhausted() is not None:
            return
        if part.query == flow.question:  # the first search was this one
            continue
        started = time.perf_counter()
        vector = box.engine.embed(part.query)
        scores = ix.vectors @ vector if vector is not None else None
        hits = retriever.search(part.query, box.groups, filters, flow.top_k, box.engine.config,
                                query_vector=vector, dense_scores=scores)
        flow.out.trace.record("search", {"query": part.query, "top_k": flow.top_k}, [h.chunk_id for h in hits], 0,
                              started)
        rows = [h.row for h in hits if h.row not in flow.depth][:PART_READ]
        if scores is not None:
            rows += _across(flow, scores, retriever.mask(box.groups, filters), language, set(rows))
        flow._read_rows(rows, 0)


def _across(flow: Workflow, scores: np.ndarray, mask: np.ndarray, language: str, taken: set[int]) -> list[int]:
    """The chunks closest in meaning to a part among those written in another language than the question: words
    do not cross languages, and the dense model prefers its query's language, so the best hits of a part are
    in the question's language even when the answer is not ("within how many days ..." over a Portuguese
    policy)."""
    ix = flow.box.engine.index
    visible = np.flatnonzero(mask)
    if not visible.size:
        return []
    order = visible[np.argsort(-scores[visible], kind="stable")[:ACROSS_POOL]]
    rows = [int(r) for r in order if int(r) not in flow.depth and int(r) not in taken]
    return [r for r in rows if detect_language(ix.texts[r]) != language][:ACROSS_READ]


def follow_law(flow: Workflow, ref: Reference, terms: str, origin: str, depth: int) -> bool:
    """A law ("Lei nº 13.709/2018"): the documents whose title names it (its number or its common name, e.g. a
    "(LGPD)" policy), else the other documents that cite it, searched with the words of the sentence."""
    box, ix = flow.box, flow.box.engine.index
    read = flow._read_docs() | {origin}
    names = [ref.key, *references.LAW_NAMES.get(ref.key, ())]
    titled = [d.document_id for d in box.directory.docs.values() if d.document_id not in read
              and any(f" {references.title_key(n)} " in f" {references.title_key(d.title + ' ' + d.path)} "
                      for n in names)]
    if titled:
        flow._run("lookup_catalog", {"query": " / ".join(names)}, lambda: box.lookup_catalog(names[-1]))
        return any([flow._best_in(d, terms, depth) for d in titled[:2]])
    number = references.law_pattern(ref.key)
    citing = sorted({ix.document_ids[r] for d in box.directory.docs.values() if d.document_id not in read
                     for r in d.rows if number.search(ix.texts[r])})
    if not citing:
        flow.out.missing.append(f"{ref.text}: no other document you may read cites it")
        return False
    obs = flow._run("search", {"query": terms, "document_ids": citing},
                    lambda: box.search(terms, None, citing, None, 2, "search"))
    return bool(obs and obs.hits and flow._read_rows(obs.hits[:1], depth))
