"""Reading for a comparison: which document states the requirements, which one must meet them, and the
sections of each that the comparison needs (read through the workflow, so they are in the trace)."""

from __future__ import annotations

import re

from serving.answers.agentic.comparison import requirements
from serving.answers.agentic.workflow import Workflow
from serving.answers.doctypes import DocTypes
from serving.answers.relevance import terms
from serving.answers.wording import language_of

_REQUIREMENT_HEADING = re.compile(r"requisit|responsabilidad|obriga|diretriz|regras|requirement|responsibilit|"
                                  r"obligation|rules", re.IGNORECASE)


def sides(flow: Workflow) -> tuple[str, list[str]] | None:
    """(the requirement document, the documents checked against it), or None when the reading has not two
    sides. The requirement side is the most normative document read (``DocTypes.normative``; named in the
    question first, then of the kind the question names: "definidos no POP de backup")."""
    ix = flow.box.engine.index
    docs = flow.box.directory.docs
    read = list(dict.fromkeys(ix.document_ids[r] for r in flow.out.read))
    types = flow.box.directory.types
    normative = types.normative
    kinds = asked_kinds(flow.question, types)
    ranked = sorted((d for d in read if docs[d].doc_type in normative),
                    key=lambda d: (d not in flow.out.named, docs[d].doc_type not in kinds,
                                   normative.index(docs[d].doc_type), read.index(d)))
    if not ranked:
        return None
    required = ranked[0]
    hopped = {ix.document_ids[r] for r in flow.out.read if flow.depth.get(r, 0) >= 1}
    others = [d for d in read if d != required and (d in flow.out.named or d in hopped)
              and docs[d].doc_type != docs[required].doc_type]
    named = [d for d in others if d in flow.out.named]
    others = named or others
    # what the checked documents incorporate by reference (the contract's "Anexo III") is checked with them
    others += [a for d in list(others) for a in flow.box.directory.annexes(d, [ix.texts[r] for r in docs[d].rows])
               if a != required and a not in others]
    return (required, others) if others else None


def asked_kinds(question: str, types: DocTypes) -> set[str]:
    """The kinds of document the question names by their kind ("definidos no POP de backup", "the policy")."""
    return set(types.named(question))


def read_sides(flow: Workflow, required: str, others: list[str]) -> None:
    """Read the requirement sections of ``required`` and, for each requirement, the best matching section of
    ``others`` (one step per document)."""
    box, ix = flow.box, flow.box.engine.index
    doc = box.directory.docs[required]
    sections = [r for r in doc.rows if _REQUIREMENT_HEADING.search(" ".join(ix.heading_paths[r][1:]))]
    flow._read_rows(sections[:6], 2)
    language = language_of(flow.question)
    asked = terms(flow.question, language)
    texts = [u for r in flow.out.read if ix.document_ids[r] == required
             for u in requirements(ix.texts[r], lambda unit: float(len(terms(unit, language) & asked)))]
    for other in others:
        mask = box.readable.copy()
        mask[:] = False
        mask[list(box.directory.docs[other].rows)] = True
        wanted = list(dict.fromkeys(row for text in texts for row in box.rank(text, mask, 1)))
        if wanted:
            flow._read_rows(wanted, 2)
