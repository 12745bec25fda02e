"""What carries the answer one step past the quoted strips.

Bridge passages: a quoted strip names another document of the evidence by its title, and that document holds
what the quoted strips leave open ("the film shot in or around Leland in 1986" is named in the Leland passage as
"Maximum Overdrive"; who directed it is in the Maximum Overdrive passage). Its best strip is quoted after the
strips that name it, and cited. A document the retriever did not bring is read too, when it is readable: the
question never names the second hop (when was the company founded that a politician left office to lobby for;
"... to become a lobbyist for Harbor Light Brewing"), so its chunk that best covers what the quoted strips leave
open joins the evidence (``_add_named``; HotpotQA-100 basic, contains gold 0.54 -> 0.60, nothing lost there nor
on the sample's dev and test splits and FaQuAD-pt).

A named document is usable when its grade for the question is not ``incorrect``, or when it is graded
``correct`` or ``ambiguous`` for the question terms the quoted strips do not cover (the second hop answers the
rest of the question, not all of it). Versions of a quoted document and forms are never bridges (``refine``
names those). A question that names two or more documents of the evidence by title, one of them quoted ("which
band was formed first, The Exies or Circus Diablo?"), quotes the others the same way. No bridge is quoted when
the question asks a kind of fact (a deadline, an amount) that the quoted strips already state: another
document's value would compete with it. At most ``MAX_BRIDGES`` are quoted.

The reason: a question that asks why ("por que uma máquina de fita infinita não pode ser construída?") is
restated by its best strip, and the reason follows it ("Devido ao seu caráter infinito, tal máquina não pode ser
construída"). The unit after the best strip is quoted when it holds question terms no quoted strip does.
"""

from __future__ import annotations

import re
from dataclasses import replace
from math import fsum
from typing import TYPE_CHECKING

from models.injection import overlaps
from serving.answers.grading import INCORRECT, Grade, Question, Strip, grade_item, held_terms
from serving.answers.modes.base import add_chunk
from serving.answers.relevance import terms
from serving.answers.sentences import split_units
from serving.answers.types import EvidenceItem
from serving.answers.versions import family

if TYPE_CHECKING:  # refine imports this module; the request type is only annotated here
    from serving.answers.refine import Request

MAX_BRIDGES = 2
STRIPS_PER_BRIDGE = 2
KEEP_SHARE = 0.75  # as ``refine``'s: a second strip of a bridge scores at least this share of its best
MIN_NAME = 4  # characters of a title named in a strip (shorter names are too common to be recognised)
NAMED_ROWS = 20  # chunks of a named document outside the evidence graded for what the quoted strips leave open
_CAUSE = re.compile(r"(?i)\bpor ?qu[eê]\b|\bpor qual (?:motivo|raz[aã]o)|\bqual (?:[eé] )?o motivo\b|\bwhy\b")
_QUALIFIER = re.compile(r"\s*\([^)]*\)\s*$")  # "Lilu (mythology)": the qualifier is not part of the name


def title_name(title: str) -> str | None:
    """The name by which a passage mentions a document: its title without a trailing qualifier in
    parentheses, when that starts with a capital letter or a digit (a proper name, not a common word)."""
    name = _QUALIFIER.sub("", title).strip()
    return name if len(name) >= MIN_NAME and (name[0].isupper() or name[0].isdigit()) else None


def names(text: str, name: str) -> bool:
    """Does ``text`` name ``name`` as written (case and whole words)?"""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def narrowed(q: Question, rest: dict[str, float]) -> Question:
    """``q`` asking only ``rest``, what the quoted strips leave open: its codes, the terms its asked kind covers
    and the terms a stated pattern covers (``Question.covers``: "máximo" by a stated maximum) kept to those."""
    return replace(q, weights=rest, codes=tuple(c for c in q.codes if c in rest), kind_terms=q.kind_terms & rest.keys(),
                   covers=tuple((said & rest.keys(), states) for said, states in q.covers if said & rest.keys()))


def _best(grade: Grade, covered: set[str]) -> list[Strip]:
    """The best strip, and a second within ``KEEP_SHARE`` of it that covers question terms neither it nor the
    quoted strips do ("a German musician" in one sentence, "his godfather" in the next), in document order."""
    ranked = sorted(grade.strips, key=lambda s: (-s.score, s.values, s.position))
    kept: list[Strip] = []
    for s in ranked:
        if len(kept) >= STRIPS_PER_BRIDGE or (kept and (s.score < KEEP_SHARE * kept[0].score or not s.held - covered)):
            continue
        kept.append(s)
        covered = covered | s.held
    return sorted(kept, key=lambda s: s.position)


def bridged(req: Request, picked: list[tuple[int, Strip]], skip: set[str], is_form,
            hops: frozenset[str] = frozenset({"named_anywhere"})) -> list[tuple[int, Strip]]:
    """The strips of the documents the ``picked`` strips name by title (none of the documents in ``skip``, no
    form, no version of a quoted document), best grade first, in the order named. ``hops``: with
    ``named_anywhere``, a readable document outside the evidence that they name is read too (``_add_named``)."""
    text = " ".join(s.text for _, s in picked)
    quoted = {req.item(n).document_id for n, _ in picked} | skip
    families = {family(req.item(n).title or "") for n, _ in picked}
    covered = set().union(*(s.held for _, s in picked)) if picked else set()
    rest = {t: w for t, w in req.q.weights.items() if t not in covered}
    if req.q.kind is not None and not req.q.kind_terms & rest.keys():
        return []  # the asked kind of fact is quoted ("2 dias"): another document's would compete with it
    if "named_anywhere" in hops:
        _add_named(req, text, quoted, families, is_form, rest)
    asked = {e.document_id for e in req.retrieved.evidence
             if e.kind == "chunk" and (name := title_name(e.title or "")) and names(req.q.text, name)}
    compared = len(asked) >= 2 and bool(asked & quoted)  # "which band was formed first, The Exies or Circus Diablo?"
    found: dict[str, tuple[float, int, list[Strip]]] = {}
    for item in req.retrieved.evidence:
        n = item.n
        if n is None or item.kind != "chunk" or n not in req.grades or item.document_id in quoted:
            continue
        name = title_name(item.title or "")
        if name is None or not (names(text, name) or compared and item.document_id in asked) \
                or family(item.title or "") in families or is_form(req.engine, item.document_id):
            continue
        grade = req.grades[n]
        if grade.grade == INCORRECT and rest:  # graded for what the quoted strips leave open
            grade = grade_item(req.engine, narrowed(req.q, rest), item, _source(req, n), req.correct_at,
                               req.ambiguous_at)
            if grade.grade != INCORRECT:
                item.grade_reason = f"named by a quoted passage; {grade.reason}"
        strips = _best(grade, covered) if grade.grade != INCORRECT else []
        doc = item.document_id or item.id
        if strips and (doc not in found or grade.score > found[doc][0]):
            found[doc] = (grade.score, n, strips)
    best = sorted(found.values(), key=lambda f: -f[0])[:MAX_BRIDGES]
    return [(n, s) for _, n, strips in sorted(best, key=lambda f: _at(text, req.item(f[1]).title)) for s in strips]


_NAMES: dict[int, tuple[object, dict[str, list[tuple[str, str]]]]] = {}


def _names_of(index) -> dict[str, list[tuple[str, str]]]:
    """First word of each document's name (``title_name``) -> (name, document id), per loaded index."""
    kept = _NAMES.get(id(index))
    if kept is not None and kept[0] is index:
        return kept[1]
    out: dict[str, dict[tuple[str, str], None]] = {}
    for title, document in zip(index.titles, index.document_ids, strict=True):
        name = title_name(title or "")
        if name is not None:
            out.setdefault(name.split()[0], {})[(name, document)] = None
    table = {first: list(pairs) for first, pairs in out.items()}
    if len(_NAMES) > 4:
        _NAMES.clear()
    _NAMES[id(index)] = (index, table)
    return table


def named_documents(index, text: str) -> list[str]:
    """The documents whose name (``title_name``) ``text`` writes as a whole, in the order written."""
    table = _names_of(index)
    found: dict[str, None] = {}
    for match in re.finditer(r"\w\S*", text):
        word = match.group(0)
        for first in {word, word.rstrip(".,;:!?)\"'")}:
            for name, document in table.get(first, ()):
                if text.startswith(name, match.start()) and names(text[match.start():match.start() + len(name) + 1],
                                                                  name):
                    found.setdefault(document, None)
    return list(found)


def _add_named(req: Request, text: str, quoted: set[str | None], families: set[str], is_form,
               rest: dict[str, float]) -> None:
    """A readable document outside the evidence that the quoted strips name by its title ("she resigned to
    become a lobbyist for Harbor Light Brewing"), no form and no version of a quoted one: its chunk that best
    covers what the quoted strips leave open (``rest``) joins the evidence, graded, for ``bridged`` to read.
    At most ``MAX_BRIDGES`` documents, the first named first."""
    if not rest:
        return
    engine = req.engine
    held = {e.document_id for e in req.retrieved.evidence}
    sub = narrowed(req.q, rest)
    added = tried = 0
    for document in named_documents(engine.index, text):
        if added >= MAX_BRIDGES or tried >= 2 * MAX_BRIDGES:  # a strip listing many names costs a bounded read
            break
        rows = [r for r in engine.documents.get(document, [])[:NAMED_ROWS] if engine.row_readable(r, req.groups)]
        if document in held or document in quoted or not rows or is_form(engine, document) \
                or family(engine.index.titles[rows[0]] or "") in families:
            continue
        tried += 1
        best: tuple[float, int] | None = None
        for row in rows:
            probe = EvidenceItem(kind="chunk", id=engine.index.chunk_ids[row], score=0.0,
                                 text=engine.index.texts[row], title=engine.index.titles[row])
            g = grade_item(engine, sub, probe, None, req.correct_at, req.ambiguous_at)
            if g.grade != INCORRECT and (best is None or g.score > best[0]):
                best = (g.score, row)
        if best is None:
            continue
        add_chunk(engine, req.retrieved, best[1], 0.0, {"added": "named by a quoted passage"})
        n = len(req.retrieved.sources)
        req.grades[n] = grade_item(engine, req.q, req.item(n), req.retrieved.sources[-1], req.correct_at,
                                   req.ambiguous_at)
        added += 1


def _at(text: str, title: str | None) -> int:
    """Where the quoted text names a title (a document the question names comes after those it names)."""
    at = text.find(title_name(title or "") or "\0")
    return at if at >= 0 else len(text)


def _source(req: Request, n: int):
    return next((s for s in req.retrieved.sources if s.n == n), None)


def with_reason(req: Request, picked: list[tuple[int, Strip]]) -> list[tuple[int, Strip]]:
    """``picked``, and for a why-question the unit after the best quoted strip, right after it, when that unit
    holds question terms none of the quoted strips holds (and is not flagged)."""
    if not picked or not _CAUSE.search(req.q.text):
        return picked
    at = max(range(len(picked)), key=lambda i: picked[i][1].score)
    n, best = picked[at]
    item = req.item(n)
    units = split_units(item.text)
    if best.position + 1 >= len(units) or any(m == n and s.position == best.position + 1 for m, s in picked):
        return picked
    unit = units[best.position + 1]
    row = req.engine.rows.get(item.id) if item.kind == "chunk" else None
    flagged = req.engine.injection[row] if row is not None and req.engine.injection else ()
    covered = set().union(*(s.held for _, s in picked))
    new = held_terms(req.q, terms(unit, req.q.language)) - covered
    if not new or overlaps(unit, flagged):
        return picked
    total = fsum(req.q.weights.values()) or 1.0
    after = Strip(unit, best.position + 1, fsum(req.q.weights[t] for t in new) / total, frozenset(new))
    return [*picked[:at + 1], (n, after), *picked[at + 1:]]
