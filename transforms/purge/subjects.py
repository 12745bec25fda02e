"""What an erasure covers: the strings that name a person (a name, a CPF or an e-mail, widened through the
graph's entities and alias table), the chunks that mention them, and the documents that are wholly about them
(named in their title or path, or every chunk mentioning them)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pyarrow.parquet as pq

from lakehouse import schemas as s
from lakehouse.graph_schemas import load_graph_tables
from lakehouse.paths import LakePaths
from lakehouse.purge import Matcher, normal
from lakehouse.storage import read_table

_CPF = re.compile(r"\D*(\d{3})\D?(\d{3})\D?(\d{3})\D?(\d{2})\D*")


@dataclass
class Mentions:
    """Where a subject appears in the current tables."""

    needles: set[str]
    entities: dict[str, str] = field(default_factory=dict)  # entity id -> name
    chunks: set[str] = field(default_factory=set)
    whole: set[str] = field(default_factory=set)  # document ids wholly about the subject
    partial: set[str] = field(default_factory=set)  # document ids that keep their other chunks
    retired: set[str] = field(default_factory=set)  # content hashes of old versions that mention the subject


def subject_needles(subject: str) -> set[str]:
    """The spellings searched for: a CPF with and without punctuation, an e-mail, or a name as given."""
    text = subject.strip()
    if (cpf := _CPF.fullmatch(text)) and sum(c.isdigit() for c in text) == 11:
        a, b, c, d = cpf.groups()
        return {f"{a}.{b}.{c}-{d}", f"{a}{b}{c}{d}"}
    return {text}


def _widen(paths: LakePaths, needles: set[str]) -> tuple[set[str], dict[str, str], set[str]]:
    """Add the names and multi-word aliases of the graph entities the subject is (by name, canonical key,
    alias or alias-table row); returns (needles, entities, their evidence chunks)."""
    graph = load_graph_tables(paths.tables)
    wanted = {normal(n) for n in needles}
    canonicals = {normal(r["canonical"]) for r in graph["aliases"].to_pylist() if normal(r["alias"]) in wanted}
    entities: dict[str, str] = {}
    chunks: set[str] = set()
    widened = set(needles)
    for row in graph["entities"].to_pylist():
        forms = {normal(row["name"]), normal(row["canonical"]), *(normal(a) for a in row["aliases"])}
        if forms & wanted or normal(row["canonical"]) in canonicals:
            entities[row["entity_id"]] = row["name"]
            chunks.update(row["chunk_ids"])
            widened.update(f for f in [row["name"], *row["aliases"]] if len(normal(f).split()) >= 2)
    return widened, entities, chunks


def find_mentions(paths: LakePaths, subject: str) -> Mentions:
    needles, entities, evidence = _widen(paths, subject_needles(subject))
    matcher = Matcher(needles)
    found = Mentions(needles, entities)
    chunks = read_table(paths.table("chunks"), s.CHUNKS).select(
        ["chunk_id", s.DOCUMENT_ID, "text", "heading_path"]).to_pylist()
    per_doc: dict[str, list[bool]] = {}
    for chunk in chunks:
        hit = chunk["chunk_id"] in evidence or matcher.search(chunk["text"]) or any(
            matcher.search(h) for h in chunk["heading_path"])
        per_doc.setdefault(chunk[s.DOCUMENT_ID], []).append(bool(hit))
        if hit:
            found.chunks.add(chunk["chunk_id"])
    extracted = {r[s.CONTENT_HASH]: r for r in read_table(paths.table("extracted"), s.EXTRACTED).to_pylist()}
    documents = read_table(paths.table("documents"), s.DOCUMENTS).to_pylist()
    for doc in documents:
        doc_id, digest = doc[s.DOCUMENT_ID], doc[s.CONTENT_HASH]
        row = extracted.get(digest) or _cached_extraction(paths, digest)
        named = matcher.search(doc[s.PATH]) or (row is not None and matcher.search(row["title"]))
        mentioned = named or (row is not None and any(matcher.search(v) for v in row.values()
                                                      if isinstance(v, str)))
        if not doc["is_current"] or doc[s.STATUS] != s.STATUS_ACTIVE:
            if mentioned and digest:
                found.retired.add(digest)
            continue
        flags = per_doc.get(doc_id, [])
        if named or (flags and all(flags)):
            found.whole.add(doc_id)
        elif mentioned or any(flags):
            found.partial.add(doc_id)
    found.chunks.update(c["chunk_id"] for c in chunks if c[s.DOCUMENT_ID] in found.whole)
    return found


def _cached_extraction(paths: LakePaths, digest: str | None) -> dict | None:
    part = paths.extracted_part(digest) if digest else None
    if part is None or not part.exists():
        return None
    rows = pq.read_table(part).to_pylist()
    return rows[0] if rows else None
