"""Arrow schemas of the graph tables (written under ``tables/graph-<run>/`` behind ``tables/graph.json``). Names
defined once here.

Ids are content-derived so they stay stable across runs when content does not change:
entity_id = "ent_" + sha256(canonical key)[:16]; relationship_id = "rel_" + sha256(sorted pair)[:16];
community_id = "com_" + sha256(level, sorted member entity ids)[:16]; report ids equal their community id.
Evidence is always a list of chunk ids, so permission filtering can be applied per caller at query time."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from lakehouse.paths import GRAPH_SET
from lakehouse.storage import read_table, versioned_dir

POINTER = f"{GRAPH_SET}.json"  # tables/graph-<run>/ behind tables/graph.json

_strings = pa.list_(pa.string())

ENTITIES = pa.schema([
    pa.field("entity_id", pa.string(), nullable=False),
    pa.field("name", pa.string(), nullable=False),          # display name (most frequent surface form)
    pa.field("canonical", pa.string(), nullable=False),     # normalised key after alias resolution
    pa.field("type", pa.string(), nullable=False),          # ORGANIZATION, PERSON, CODE, NORM, CONCEPT, LOCATION, ...
    pa.field("description", pa.string(), nullable=False),   # never copied from restricted text (see ADR)
    pa.field("aliases", _strings, nullable=False),          # surface forms merged into this entity
    pa.field("chunk_ids", _strings, nullable=False),        # evidence
    pa.field("document_ids", _strings, nullable=False),
    pa.field("frequency", pa.int64(), nullable=False),      # number of evidence chunks
    pa.field("degree", pa.int64(), nullable=False),
])

RELATIONSHIPS = pa.schema([
    pa.field("relationship_id", pa.string(), nullable=False),
    pa.field("source_id", pa.string(), nullable=False),
    pa.field("target_id", pa.string(), nullable=False),
    pa.field("description", pa.string(), nullable=False),
    pa.field("weight", pa.float64(), nullable=False),       # PMI-based (NLP) or LLM strength, > 0
    pa.field("chunk_ids", _strings, nullable=False),        # evidence: chunks where both co-occur / the LLM saw it
    pa.field("count", pa.int64(), nullable=False),
])

TEXT_UNITS = pa.schema([
    pa.field("chunk_id", pa.string(), nullable=False),
    pa.field("document_id", pa.string(), nullable=False),
    pa.field("entity_ids", _strings, nullable=False),
    pa.field("relationship_ids", _strings, nullable=False),
])

COMMUNITIES = pa.schema([
    pa.field("community_id", pa.string(), nullable=False),
    pa.field("level", pa.int32(), nullable=False),
    pa.field("parent_id", pa.string()),                     # null at level 0
    pa.field("entity_ids", _strings, nullable=False),
    pa.field("relationship_ids", _strings, nullable=False),
    pa.field("chunk_ids", _strings, nullable=False),        # union of member evidence
    pa.field("content_hash", pa.string(), nullable=False),  # hash of members, relations and evidence texts
])

COMMUNITY_REPORTS = pa.schema([
    pa.field("community_id", pa.string(), nullable=False),
    pa.field("level", pa.int32(), nullable=False),
    pa.field("content_hash", pa.string(), nullable=False),  # the community content the report was written from
    pa.field("title", pa.string(), nullable=False),
    pa.field("summary", pa.string(), nullable=False),
    pa.field("findings", pa.list_(pa.struct([pa.field("text", pa.string()),
                                             pa.field("chunk_ids", _strings)])), nullable=False),
    pa.field("rating", pa.float64(), nullable=False),       # 0-10 importance
    pa.field("source", pa.string(), nullable=False),        # extractive | llm
    pa.field("chunk_ids", _strings, nullable=False),        # every chunk the report draws on
    pa.field("access_group_sets", pa.list_(_strings), nullable=False),  # distinct group sets of those chunks
])

ALIASES = pa.schema([
    pa.field("alias", pa.string(), nullable=False),         # normalised surface form
    pa.field("canonical", pa.string(), nullable=False),     # the entity key it resolves to
    pa.field("source", pa.string(), nullable=False),        # auto-acronym | auto-normalised | manual | manual-split
    pa.field("reason", pa.string(), nullable=False),
])

TABLES = {"entities": ENTITIES, "relationships": RELATIONSHIPS, "text_units": TEXT_UNITS,
          "communities": COMMUNITIES, "community_reports": COMMUNITY_REPORTS, "aliases": ALIASES}


def graph_dir(tables: Path) -> Path | None:
    """The published graph folder of a tables folder (the working one or a snapshot's), or None."""
    return versioned_dir(tables, GRAPH_SET)


def load_graph_tables(tables: Path) -> dict[str, pa.Table]:
    """The graph tables behind ``tables/graph.json``; empty tables when no graph has been built."""
    folder = graph_dir(tables)
    return {name: read_table(folder / f"{name}.parquet", schema) if folder is not None and folder.exists()
            else schema.empty_table() for name, schema in TABLES.items()}
