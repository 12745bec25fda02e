"""What extraction finds in one chunk, and how it is cached (one row per chunk text in a PartCache).

A ``ChunkGraph`` holds mentions (surface forms with their character spans in the chunk text), acronym
definitions found in the chunk ("Lei Geral de Proteção de Dados (LGPD)") and, from an LLM only, explicit
relations. The rule-based extractor leaves ``relations`` empty: its relations come from co-occurrence over the
whole corpus (``graph_index.relations``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import pyarrow as pa

from lakehouse.part_cache import KEY

TYPES = ("ORGANIZATION", "PERSON", "CODE", "NORM", "CONCEPT", "LOCATION", "OTHER")


@dataclass(frozen=True)
class Mention:
    text: str  # surface form as written (an honorific is kept out of a person's name)
    type: str
    start: int  # character span in the chunk text (-1 when an LLM named something not found verbatim)
    end: int
    context: bool = False  # inside the chunk's leading "[Title — Section]" line
    initial: bool = False  # a lone capitalised word at a sentence start: kept only if seen mid-sentence
    description: str = ""  # LLM only


@dataclass(frozen=True)
class Definition:
    short: str  # "LGPD"
    long: str  # "Lei Geral de Proteção de Dados"


@dataclass(frozen=True)
class Relation:
    source: str
    target: str
    description: str
    strength: float  # 1-10 (LLM)


@dataclass
class ChunkGraph:
    language: str
    mentions: list[Mention] = field(default_factory=list)
    definitions: list[Definition] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    source: str = "rules"  # rules | llm | rules-fallback
    note: str = ""  # why an LLM extraction fell back to the rules


_MENTION = pa.struct([("text", pa.string()), ("type", pa.string()), ("start", pa.int32()),
                      ("end", pa.int32()), ("context", pa.bool_()), ("initial", pa.bool_()),
                      ("description", pa.string())])
_DEFINITION = pa.struct([("short", pa.string()), ("long", pa.string())])
_RELATION = pa.struct([("source", pa.string()), ("target", pa.string()), ("description", pa.string()),
                       ("strength", pa.float64())])

CACHE_SCHEMA = pa.schema([
    pa.field(KEY, pa.string()), pa.field("language", pa.string()), pa.field("source", pa.string()),
    pa.field("note", pa.string()), pa.field("mentions", pa.list_(_MENTION)),
    pa.field("definitions", pa.list_(_DEFINITION)), pa.field("relations", pa.list_(_RELATION)),
])


def to_rows(keys: list[str], graphs: list[ChunkGraph]) -> pa.Table:
    rows = [{KEY: key, "language": g.language, "source": g.source, "note": g.note,
             "mentions": [asdict(m) for m in g.mentions], "definitions": [asdict(d) for d in g.definitions],
             "relations": [asdict(r) for r in g.relations]} for key, g in zip(keys, graphs, strict=True)]
    return pa.Table.from_pylist(rows, schema=CACHE_SCHEMA)


def from_rows(table: pa.Table) -> dict[str, ChunkGraph]:
    """Cached rows by key."""
    out = {}
    for row in table.to_pylist():
        out[row[KEY]] = ChunkGraph(
            language=row["language"], source=row["source"], note=row["note"] or "",
            mentions=[Mention(**m) for m in row["mentions"] or []],
            definitions=[Definition(**d) for d in row["definitions"] or []],
            relations=[Relation(**r) for r in row["relations"] or []])
    return out
