"""The graded evidence of one question as the composers read it (``Request``), and the two substitutions made
before composing:

- a passage that restates another document (it names its title, as a FAQ quoting the policy) is replaced by
  that document's own passage, read by the caller and graded like the rest: the primary is cited
  (``primaries``), unless it holds words of the question that the document's own passage does not;
- when the evidence holds several versions of one document, the current one (or the one the question names)
  answers, and each other version is named as superseded (``split_versions``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from lakehouse.text import fold
from serving.answers import cards
from serving.answers.engine import Engine
from serving.answers.grading import INCORRECT, Grade, Question, grade_item, held_terms
from serving.answers.intent import doc_types_of
from serving.answers.modes import Retrieved
from serving.answers.modes.base import add_chunk
from serving.answers.relevance import terms
from serving.answers.types import EvidenceItem
from serving.answers.versions import archived, asked_version, family, named, number
from serving.search.index import PUBLIC

MAX_ROWS = 200  # chunks of a named document graded when looking for its passage
FORM_TYPES = frozenset({"formulario", "formulário", "form", "template", "modelo"})

@dataclass
class Request:
    """One question's corrective composition: the engine, the graded evidence and who asks."""

    engine: Engine
    q: Question
    retrieved: Retrieved
    grades: dict[int, Grade]
    groups: frozenset[str]
    correct_at: float
    ambiguous_at: float

    def item(self, n: int) -> EvidenceItem:
        return next(e for e in self.retrieved.evidence if e.n == n)

    def usable(self, n: int) -> bool:
        return n in self.grades and self.grades[n].grade != INCORRECT

    def source_of(self, document_id: str) -> int | None:
        """The best usable source of a document: from the evidence, else its best readable chunk, graded and
        added to the evidence."""
        held = [e.n for e in self.retrieved.evidence
                if e.document_id == document_id and e.n is not None and self.usable(e.n)]
        engine = self.engine
        rows = [r for r in engine.documents.get(document_id, [])[:MAX_ROWS] if engine.row_readable(r, self.groups)]
        best: tuple[float, int] | None = (max(self.grades[n].score for n in held), -1) if held else None
        for row in rows:
            if engine.index.chunk_ids[row] in self.retrieved.ids:
                continue
            probe = EvidenceItem(kind="chunk", id=engine.index.chunk_ids[row], score=0.0, text=engine.index.texts[row],
                                 title=engine.index.titles[row])
            g = grade_item(engine, self.q, probe, None, self.correct_at, self.ambiguous_at)
            if g.grade != INCORRECT and (best is None or g.score > best[0]):
                best = (g.score, row)
        if best is None:
            return None
        if best[1] < 0:
            return max(held, key=lambda n: self.grades[n].score)
        add_chunk(engine, self.retrieved, best[1], 0.0, {"added": "named by another source"})
        n = len(self.retrieved.sources)
        self.grades[n] = grade_item(engine, self.q, self.item(n), self.retrieved.sources[-1], self.correct_at,
                                    self.ambiguous_at)
        return n

    def current_of(self, document_ids: list[str]) -> str | None:
        """The current version among documents of one family the caller can read."""
        engine = self.engine
        readable = [d for d in document_ids if engine.documents.get(d)
                    and engine.row_readable(engine.documents[d][0], self.groups)]
        if not readable:
            return None
        return max(readable, key=lambda d: self._rank(d))

    def _rank(self, document_id: str) -> tuple[bool, float]:
        row = self.engine.documents[document_id][0]
        ix = self.engine.index
        return (not archived(ix.paths[row], str(ix.doc_types[row])),
                number(ix.titles[row], self.engine.catalog.meta(document_id)) or 0.0)


def primaries(req: Request, chosen: list[int]) -> list[int]:
    """``chosen`` with each source that restates another document replaced by that document's source. A form
    (a document to fill in, ``FORM_TYPES``) is named by the rules that ask for it, it does not state them: a
    manual that says which form to fill in keeps its own rule."""
    out: list[int] = []
    for n in chosen:
        item, text = req.item(n), " ".join(s.text for s in req.grades[n].strips)
        own = family(item.title or "")
        ids = [d for fam in named(text, req.engine.families) if fam != own for d in req.engine.families[fam]
               if not _form(req.engine, d)]
        primary = req.current_of([d for d in ids if d != item.document_id]) if ids else None
        m = req.source_of(primary) if primary else None
        out.append(m if m is not None and not _says_more(req, n, m) else n)
    return list(dict.fromkeys(out))


def _says_more(req: Request, n: int, m: int) -> bool:
    """Do the strips of source ``n`` hold words of the question's ask that the passage ``m`` of the document it
    names does not hold anywhere (the situation around the ask aside)? Then it states more than a restatement of
    that document (the minutes of the meeting that approved a policy name the policy and hold the meeting asked
    about): it keeps its place."""
    primary = req.item(m)
    theirs = held_terms(req.q, terms(f"{primary.title or ''} {primary.section or ''} {primary.text}", req.q.language))
    # the words asking the kind of fact ("fornecedor", "prazo") are held by stating one, not by being written
    return bool({t for s in req.grades[n].strips for t in s.held} - theirs - req.q.context - req.q.kind_terms)


def _form(engine: Engine, document_id: str) -> bool:
    rows = engine.documents.get(document_id)
    return bool(rows) and str(engine.index.doc_types[rows[0]]).casefold() in FORM_TYPES


def split_versions(req: Request, chosen: list[int]) -> tuple[list[int], list[int], set[str]]:
    """(sources that answer, sources of other versions of the same documents, the current documents of the
    families that have several versions in the evidence)."""
    asked = asked_version(req.q.text)
    by_family: dict[str, list[int]] = {}
    for n in chosen:
        by_family.setdefault(family(req.item(n).title or ""), []).append(n)
    main, older, currents = list(chosen), [], set()
    for fam, members in by_family.items():
        current = req.current_of(req.engine.families.get(fam, []))
        docs = {req.item(n).document_id for n in members}
        if current is not None and current not in docs and asked is None and len(fam.split()) >= 2:
            m = req.source_of(current)  # only an older version was retrieved: the current one answers
            if m is not None:
                main.insert(main.index(members[0]), m)
                members = [m, *members]
                docs.add(current)
        if len(docs) < 2 or not _distinct(req, docs):
            continue
        currents.add(current or "")
        lead = next((req.item(n).document_id for n in members
                     if asked is not None and number(req.item(n).title or "", req.item(n).metadata) == asked),
                    current if current in docs else req.item(members[0]).document_id)
        for n in members:
            if req.item(n).document_id != lead:
                main.remove(n)
                older.append(n)
    return main, older, currents


def _distinct(req: Request, docs: set[str | None]) -> bool:
    """The documents are versions of one another: an archived one, or different version numbers."""
    ranks = {req._rank(d) for d in docs if d}
    return len(ranks) > 1


def version_name(item: EvidenceItem) -> str:
    """A document's name that tells its versions apart: its file name without the extension."""
    stem = (item.path or "").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return stem or item.title or item.id






def coded_documents(engine: Engine, q: Question, groups: frozenset[str] | None = None) -> set[str]:
    """The documents the question names: those whose title or file name holds a code it names ("o contrato
    CT-2024-0187"); with ``groups`` and no code, the one document it names by its title as the document cards
    read one (``cards.named_document``: shortened, misspelt, in the other language; "segundo o playbook de resposta
    a incidentes"), among those ``groups`` may read."""
    coded = {d for code in q.codes for d in engine.coded.get(code, ())}
    catalog = getattr(engine, "catalog", None)  # an engine without a catalog (a test's stand-in) names by code
    if coded or groups is None or not q.text or catalog is None or asked_version(q.text) is not None:
        return coded  # a version the question names selects among a title's documents (``split_versions``)
    types = doc_types_of(catalog.values("doc_type"))
    if not types.named(q.text):  # "segundo o playbook de ...": a document is named as the source by its type too;
        return coded  # a title alone names what the question is about ("The Dandy Warhols"), not where to read
    allowed = groups | {PUBLIC}
    named = cards.named_document(q.text, catalog.rows, lambda row: bool(set(row.get("access_groups") or ()) & allowed),
                                 types)
    if named is None:
        return set()
    # every version of it: which one answers is the versions' choice (``split_versions``)
    title = catalog.rows[named[0]].get("title") or ""
    return set(engine.families.get(family(str(title)), ())) | {named[0]}


def principal_first(req: Request, chosen: list[int], coded: set[str]) -> list[int]:
    """``chosen`` with the sources of the document a code names as itself first: the one whose file is named by
    the code ("Contratos/CT-2024-0187.pdf"), before its annexes and amendments, whose titles only mention it ("Anexo
    III - Segurança da Informação do CT-2024-0187"); what both state (the parties) is quoted from the contract. A
    question that names such a document by more than its code ("o Anexo III do CT-2024-0187") keeps the order."""
    engine, q = req.engine, req.q

    def principal(document_id: str | None) -> bool:
        rows = engine.documents.get(document_id or "")
        return bool(rows) and fold(PurePath(str(engine.index.paths[rows[0]])).stem.lower()) in q.codes
    principals = {d for d in coded if principal(d)}
    if not principals:
        return chosen
    own = set().union(*(terms(str(engine.index.titles[engine.documents[d][0]]), q.language) for d in principals))
    asked = set(q.weights) - set(q.codes) - q.context
    for n in chosen:
        doc = req.item(n).document_id
        if doc in coded and doc not in principals and (terms(req.item(n).title or "", q.language) - own) & asked:
            return chosen  # the question names this document by its own title
    return sorted(chosen, key=lambda n: req.item(n).document_id not in principals)


def add_coded(req: Request) -> None:
    """Each document the question names by its code with its best passage for the question added to the
    evidence (graded), when the retrieved ones of it are worse or missing: the slot asked of a contract is
    answered from the contract, whatever the retriever ranked first."""
    for document_id in sorted(coded_documents(req.engine, req.q, req.groups)):
        req.source_of(document_id)
