"""What one caller may know about the documents of a snapshot: their ids, titles, types and codes, built from
the chunks that caller may read (a document none of whose chunks is readable does not exist here)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from serving.answers.agentic.references import CODE, find, plain_title, title_key
from serving.answers.doctypes import DocTypes
from serving.answers.engine import Engine


@dataclass(frozen=True)
class Doc:
    document_id: str
    title: str
    doc_type: str
    path: str
    codes: tuple[str, ...]
    rows: tuple[int, ...]  # chunk rows in reading order


_CACHE: dict[int, tuple[object, tuple[Doc, ...]]] = {}


def _all_documents(engine: Engine) -> tuple[Doc, ...]:
    """Every document of the engine's index (cached per index; the caller's view filters it)."""
    ix = engine.index
    kept = _CACHE.get(id(ix))
    if kept is not None and kept[0] is ix:
        return kept[1]
    out = []
    for document_id, rows in engine.documents.items():
        first = rows[0]
        title = (engine.catalog.rows.get(document_id) or {}).get("title") or ix.titles[first]
        head = " ".join([title, ix.paths[first], *(ix.texts[r][:400] for r in rows[:2])])
        codes = tuple(dict.fromkeys(m.group(0).upper() for m in CODE.finditer(head)))
        out.append(Doc(document_id, title, str(ix.doc_types[first]), ix.paths[first], codes, tuple(rows)))
    if len(_CACHE) >= 4:
        _CACHE.clear()
    _CACHE[id(ix)] = (ix, tuple(out))
    return tuple(out)


class Directory:
    """The caller's readable documents, by id, folded title and code."""

    def __init__(self, engine: Engine, readable: np.ndarray) -> None:
        self.docs = {d.document_id: d for d in _all_documents(engine) if readable[d.rows[0]]}
        self.titles = {title_key(d.title): d.document_id for d in self.docs.values()}
        self.shared: dict[str, set[str]] = {}  # a title several documents bear (the passages of one article)
        for d in self.docs.values():
            self.shared.setdefault(title_key(d.title), set()).add(d.document_id)
        self.shared = {key: docs for key, docs in self.shared.items() if len(docs) > 1}
        # a title's disambiguation ("Bethel University (Minnesota)") is not written where the document is named
        names: dict[str, list[str]] = {}
        for d in self.docs.values():
            if (name := title_key(plain_title(d.title))) and name not in self.titles:
                names.setdefault(name, []).append(d.document_id)
        self.titles.update({name: docs[0] for name, docs in names.items() if len(docs) == 1})
        self.codes: dict[str, list[str]] = {}
        for d in self.docs.values():
            for code in d.codes:
                self.codes.setdefault(code, []).append(d.document_id)

    @cached_property
    def types(self) -> DocTypes:
        """The names of the caller's document types (their keys, folders and synonyms)."""
        return DocTypes.of_catalog({"doc_type": d.doc_type, "path": d.path} for d in self.docs.values())

    def title_map(self) -> dict[str, str]:
        """Folded title -> title, for reference detection."""
        return {key: self.docs[doc].title for key, doc in self.titles.items()}

    def by_code(self, code: str) -> list[str]:
        return list(self.codes.get(code.upper(), []))

    def annexes(self, document_id: str, texts: list[str]) -> list[str]:
        """The caller's documents that are annexes or attachments ``document_id`` references in ``texts`` (its
        chunks): "Anexo III" in the contract, a document of the same code whose title is "Anexo III ..."."""
        doc = self.docs[document_id]
        numbers = {ref.key.lower() for text in texts for ref in find(text) if ref.kind == "annex"}
        found = []
        for code in doc.codes:
            for other in self.by_code(code):
                title = title_key(self.docs[other].title)
                if other != document_id and any(re.search(rf"\b(?:anexo|annex) {n}\b", title) for n in numbers):
                    found.append(other)
        return list(dict.fromkeys(found))

    def lookup(self, query: str, limit: int = 5) -> list[Doc]:
        """Documents whose code, title or path match the query best (codes first, then shared words)."""
        codes = [m.group(0).upper() for m in CODE.finditer(query.upper())]
        words = {w for w in title_key(query).split() if len(w) > 2}
        scored = []
        for d in self.docs.values():
            hay = set(title_key(f"{d.title} {d.path}").split())
            score = 2.0 * sum(code in d.codes for code in codes) + len(words & hay) / (len(words) or 1)
            annex = re.search(r"\banexo ([ivx]+|\d+)\b", title_key(query))
            if annex and f"anexo {annex.group(1)}" in title_key(d.title):
                score += 1.0
            if score > 0:
                scored.append((score, d.document_id))
        scored.sort(key=lambda s: (-s[0], s[1]))
        return [self.docs[doc] for _, doc in scored[:limit]]
