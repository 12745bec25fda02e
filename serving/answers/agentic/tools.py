"""The tools of the multi-step loop, bound to one caller: a search per document type of the taxonomy (plus one
over everything), ``read_document`` and ``lookup_catalog``. Searches return short results (id, title, section,
a snippet); full text only comes from ``read_document``, and what it returns is what the loop has read."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from serving.answers.agentic.directory import Directory
from serving.answers.agentic.trace import estimate_tokens
from serving.answers.doctypes import tool_of
from serving.answers.engine import Engine
from serving.answers.modes.base import section_of

SNIPPET = 240
READ_LIMIT = 4  # chunks one read_document call returns at most
class ToolError(ValueError):
    """A tool call the loop cannot run; its message is the observation the agent reads."""


@dataclass
class Observation:
    tool: str
    text: str  # what the agent reads (JSON)
    ids: list[str]  # ids returned (chunk ids for searches and reads, document ids for the catalog)
    read: list[int] = field(default_factory=list)  # chunk rows whose full text was returned
    hits: list[int] = field(default_factory=list)  # chunk rows returned as snippets

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


def tool_name(doc_type: str) -> str:
    return "search_" + tool_of(doc_type)[0]


class Toolbox:
    """One caller's tools over one engine (``groups`` applied before any ranking)."""

    def __init__(self, engine: Engine, groups: frozenset[str], vector: np.ndarray | None = None,
                 question: str = "") -> None:
        self.engine, self.groups, self.question, self.vector = engine, groups, question, vector
        self.readable = engine.readable(groups)
        self.directory = Directory(engine, self.readable)
        types = sorted({d.doc_type for d in self.directory.docs.values()})
        self.search_tools = {tool_name(t): t for t in types}

    # -- the specs an LLM sees -------------------------------------------------------------------------------
    def specs(self) -> list[dict[str, Any]]:
        search_params = {"type": "object", "properties": {
            "query": {"type": "string", "description": "words to search for"},
            "document_ids": {"type": "array", "items": {"type": "string"},
                             "description": "only these documents"},
            "exclude_document_ids": {"type": "array", "items": {"type": "string"},
                                     "description": "not these documents (e.g. those already read)"},
            "top_k": {"type": "integer", "minimum": 1, "maximum": 10}}, "required": ["query"]}
        specs = [_spec("search", "Search every document you may read. Results are short (id, title, section, "
                       "snippet); read the ones you need with read_document.", search_params)]
        for name, doc_type in self.search_tools.items():
            label = tool_of(doc_type)[1]
            specs.append(_spec(name, f"Search only the {label}. Use it when the question or the evidence points "
                               f"to a document of this kind.", search_params))
        specs.append(_spec("read_document", "Read a document's section in full: section is a chunk id from a "
                           "search result, a section number ('7.2', 'CLÁUSULA 5') or heading words; omit it for "
                           "the document's opening sections.", {"type": "object", "properties": {
                               "document_id": {"type": "string"}, "section": {"type": "string"}},
                               "required": ["document_id"]}))
        specs.append(_spec("lookup_catalog", "Find documents by code (CT-2024-0187, POL-SI-004), title words or "
                           "annex ('Anexo III do CT-2024-0187'); returns ids, titles and types.",
                           {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}))
        return specs

    # -- calls -----------------------------------------------------------------------------------------------
    def call(self, name: str, args: dict[str, Any]) -> Observation:
        """Run one tool; a bad name or argument raises ``ToolError`` with a readable message."""
        if not isinstance(args, dict):
            raise ToolError(f"{name}: arguments must be a JSON object")
        if name == "read_document":
            return self.read_document(_text(args, "document_id", name), _opt_text(args, "section", name))
        if name == "lookup_catalog":
            return self.lookup_catalog(_text(args, "query", name))
        if name == "search" or name in self.search_tools:
            top_k = args.get("top_k", 5)
            if not isinstance(top_k, int) or not 1 <= top_k <= 10:
                raise ToolError(f"{name}: top_k must be an integer from 1 to 10")
            return self.search(_text(args, "query", name), self.search_tools.get(name),
                               _ids(args, "document_ids", name), _ids(args, "exclude_document_ids", name), top_k,
                               tool=name)
        names = ", ".join(s["function"]["name"] for s in self.specs())
        raise ToolError(f"unknown tool {name!r}; the tools are: {names}")

    def search(self, query: str, doc_type: str | None = None, document_ids: list[str] | None = None,
               exclude: list[str] | None = None, top_k: int = 5, tool: str = "search") -> Observation:
        ix = self.engine.index
        mask = self.readable.copy()
        if doc_type is not None:
            mask &= ix.doc_types == doc_type
        if document_ids:
            mask &= np.isin(np.asarray(ix.document_ids, dtype=object), np.asarray(document_ids, dtype=object))
        if exclude:
            mask &= ~np.isin(np.asarray(ix.document_ids, dtype=object), np.asarray(exclude, dtype=object))
        rows = self.rank(query, mask, top_k)
        results = [{"id": ix.chunk_ids[r], "document_id": ix.document_ids[r], "title": ix.titles[r],
                    "section": section_of(list(ix.heading_paths[r])), "snippet": _snippet(ix.texts[r])}
                   for r in rows]
        return Observation(tool, json.dumps(results, ensure_ascii=False), [ix.chunk_ids[r] for r in rows],
                           hits=list(rows))

    def rank(self, query: str, mask: np.ndarray, top_k: int) -> list[int]:
        """BM25 and dense similarity, each scaled to its best masked row, summed; only rows in ``mask``."""
        ix = self.engine.index
        candidates = np.flatnonzero(mask)
        if not candidates.size or not query.strip():
            return []
        sparse = ix.sparse.scores(query)[candidates]
        score = sparse / sparse.max() if sparse.max() > 0 else np.zeros(candidates.size, dtype=np.float32)
        vector = self.vector if query == self.question else self.engine.embed(query)
        if vector is not None and ix.vectors.size:
            dense = ix.vectors[candidates] @ vector
            low, high = float(dense.min()), float(dense.max())
            score = score + ((dense - low) / (high - low) if high > low else 0.0)
        order = np.lexsort((candidates, -score))[:top_k]
        return [int(candidates[i]) for i in order if score[i] > 0]

    def read_document(self, document_id: str, section: str | None = None) -> Observation:
        doc = self.directory.docs.get(document_id)
        if doc is None:
            raise ToolError(f"read_document: no document {document_id!r} you may read; use lookup_catalog or a "
                            f"search to find ids")
        rows = self.section_rows(doc.rows, section)
        if not rows:
            raise ToolError(f"read_document: no section {section!r} in {document_id}; omit section to read the "
                            f"start")
        ix = self.engine.index
        parts = [{"id": ix.chunk_ids[r], "document_id": document_id, "title": doc.title,
                  "section": section_of(list(ix.heading_paths[r])), "text": ix.texts[r]} for r in rows]
        return Observation("read_document", json.dumps(parts, ensure_ascii=False), [p["id"] for p in parts],
                           read=rows)

    def section_rows(self, rows: tuple[int, ...], section: str | None) -> list[int]:
        ix = self.engine.index
        if not section:
            return [r for r in rows if len(ix.heading_paths[r]) > 1][:READ_LIMIT] or list(rows[:READ_LIMIT])
        section = section.strip()
        by_id = [r for r in rows if ix.chunk_ids[r] == section]
        if by_id:
            return by_id
        number = re.fullmatch(r"(?:item|cl[áa]usula|se[çc][ãa]o|section|clause)?\s*(\d{1,2}(?:\.\d{1,2})*)[ªº]?",
                              section, re.IGNORECASE)
        if number:
            wanted = number.group(1)
            line = re.compile(rf"(?m)^\s*(?:#+\s*)?(?:CL[ÁA]USULA\s+)?{re.escape(wanted)}(?:[.ªº)\s]|$)", re.IGNORECASE)
            hit = [r for r in rows if line.search(ix.texts[r])]
            if hit:
                return hit[:READ_LIMIT]
            head = wanted.split(".")[0]
            return [r for r in rows if re.match(rf"\s*(?:CL[ÁA]USULA\s+)?{head}\b", " ".join(ix.heading_paths[r][1:]),
                                                re.IGNORECASE)][:READ_LIMIT]
        mask = np.zeros(len(ix), dtype=bool)
        mask[list(rows)] = True
        return self.rank(section, mask, 1)

    def lookup_catalog(self, query: str) -> Observation:
        docs = self.directory.lookup(query)
        results = [{"document_id": d.document_id, "title": d.title, "doc_type": d.doc_type,
                    "codes": list(d.codes)} for d in docs]
        return Observation("lookup_catalog", json.dumps(results, ensure_ascii=False), [d.document_id for d in docs])


def _spec(name: str, description: str, parameters: dict) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


def _snippet(text: str) -> str:
    lines = text.splitlines()
    if lines and lines[0].startswith("["):
        lines = lines[1:]
    body = " ".join(" ".join(lines).split())
    return body[:SNIPPET] + ("…" if len(body) > SNIPPET else "")


def _text(args: dict, key: str, tool: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"{tool}: '{key}' is required and must be a non-empty string")
    return value.strip()[:500]


def _opt_text(args: dict, key: str, tool: str) -> str | None:
    return _text(args, key, tool) if args.get(key) not in (None, "") else None


def _ids(args: dict, key: str, tool: str) -> list[str] | None:
    value = args.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ToolError(f"{tool}: '{key}' must be a list of id strings")
    return value[:50]
