"""The graph tables of one index, held in memory and aligned with a SearchIndex's chunk rows.

Evidence chunk ids become SearchIndex rows (ids the index lacks, from deleted documents, are dropped), kept as
sparse incidence matrices (entity x chunk, relationship x chunk) so a caller's readable evidence is one
sparse product with the caller's row mask. Entity similarity to a question is the mean dense similarity of the
entity's readable evidence chunks (the mean of their vectors dotted with the question): no model call, and
unreadable chunks never shape a ranking.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import scipy.sparse as sp

from lakehouse import graph_schemas as schemas
from lakehouse.storage import read_json
from serving.graph.errors import GraphNotReady
from serving.graph.names import MAX_NGRAM, fold, name_keys
from serving.search.index import PUBLIC, SearchIndex

log = logging.getLogger(__name__)

POINTER = "graph.json"
_QUALIFIER = re.compile(r"\s*[(\[][^)\]]*[)\]]\s*$")
TABLES = {"entities": schemas.ENTITIES, "relationships": schemas.RELATIONSHIPS,
          "communities": schemas.COMMUNITIES, "community_reports": schemas.COMMUNITY_REPORTS,
          "aliases": schemas.ALIASES}


@dataclass
class Report:
    community_id: str
    level: int
    title: str
    summary: str
    findings: list[tuple[str, list[str]]]  # (text, chunk ids present in the index)
    rating: float
    chunk_ids: list[str]
    rows: np.ndarray
    access_group_sets: list[frozenset[str]]

    def readable_by(self, groups: frozenset[str], readable: np.ndarray) -> bool:
        """Every source group set meets the caller's groups, and every indexed source chunk is readable."""
        effective = groups | {PUBLIC}
        return (all(s & effective for s in self.access_group_sets)
                and bool(readable[self.rows].all()))


@dataclass
class GraphStore:
    index: SearchIndex
    snapshot_id: str
    entity_ids: list[str]
    names: list[str]
    types: list[str]
    descriptions: list[str]
    aliases: list[list[str]]
    entity_chunks: sp.csr_matrix  # entity x chunk row, 1.0 where the chunk is evidence
    relationship_ids: list[str]
    sources: np.ndarray
    targets: np.ndarray
    weights: np.ndarray
    relationship_texts: list[str]
    relationship_chunks: sp.csr_matrix
    incident: list[np.ndarray]  # relationship positions per entity
    communities: dict[str, tuple[int, list[int]]]  # community id -> (level, member entity positions)
    communities_of: list[list[str]]  # community ids per entity position, all levels
    reports: dict[str, Report]
    surface: dict[str, set[int]] = field(default_factory=dict)
    analysed: dict[str, dict[str, set[int]]] = field(default_factory=dict)

    @cached_property
    def row_of(self) -> dict[str, int]:
        """SearchIndex row of each chunk id."""
        return {chunk_id: row for row, chunk_id in enumerate(self.index.chunk_ids)}

    @cached_property
    def chunk_entities(self) -> sp.csr_matrix:
        """chunk row x entity: the entities each chunk is evidence for."""
        return self.entity_chunks.T.tocsr()

    @cached_property
    def titled(self) -> dict[str, list[int]]:
        """Chunk rows by folded document title, also without a trailing qualifier ("Lilu (mythology)" ->
        "lilu"): the chunks about an entity even when extraction missed it in its own document."""
        out: dict[str, list[int]] = defaultdict(list)
        for row, title in enumerate(self.index.titles):
            keys = {fold(title), fold(_QUALIFIER.sub("", title))}
            for key in keys - {""}:
                out[key].append(row)
        return dict(out)

    @property
    def levels(self) -> list[int]:
        return sorted({r.level for r in self.reports.values()})

    @classmethod
    def empty(cls, index: SearchIndex) -> GraphStore:
        n = len(index)
        return cls(index, "none", [], [], [], [], [], sp.csr_matrix((0, n)), [], np.zeros(0, int),
                   np.zeros(0, int), np.zeros(0), [], sp.csr_matrix((0, n)), [], {}, [], {})

    @classmethod
    def load(cls, tables: Path, index: SearchIndex, missing_ok: bool = False) -> GraphStore:
        """Read ``tables/graph.json`` and the tables it points to; ``missing_ok`` gives an empty graph."""
        pointer = tables / POINTER
        if not pointer.exists():
            if missing_ok:
                return cls.empty(index)
            raise GraphNotReady(f"{pointer}: missing; run the graph index stage first")
        info = read_json(pointer)
        folder = tables / info["dir"]
        frames = {}
        for name, schema in TABLES.items():
            path = folder / f"{name}.parquet"
            if not path.exists():
                raise GraphNotReady(f"{path}: missing; rerun the graph index stage")
            frames[name] = pq.read_table(path).select(schema.names).to_pylist()
        return cls.build(index, str(info.get("run_id", info["dir"])), **frames)

    @classmethod
    def build(cls, index: SearchIndex, snapshot_id: str, entities: list[dict], relationships: list[dict],
              communities: list[dict], community_reports: list[dict], aliases: list[dict]) -> GraphStore:
        """From rows following ``lakehouse.graph_schemas``."""
        row_of = {cid: i for i, cid in enumerate(index.chunk_ids)}
        n = len(index)

        def rows(chunk_ids: list[str]) -> list[int]:
            return sorted({row_of[c] for c in chunk_ids if c in row_of})

        position = {e["entity_id"]: i for i, e in enumerate(entities)}
        entity_chunks = _incidence([rows(e["chunk_ids"]) for e in entities], n)
        rels = [r for r in relationships if r["source_id"] in position and r["target_id"] in position]
        incident: list[list[int]] = [[] for _ in entities]
        for i, r in enumerate(rels):
            incident[position[r["source_id"]]].append(i)
            incident[position[r["target_id"]]].append(i)
        members: dict[str, tuple[int, list[int]]] = {}
        communities_of: list[list[str]] = [[] for _ in entities]
        for c in communities:
            positions = [position[e] for e in c["entity_ids"] if e in position]
            members[c["community_id"]] = (int(c["level"]), positions)
            for p in positions:
                communities_of[p].append(c["community_id"])
        reports = {}
        for r in community_reports:
            present = [c for c in r["chunk_ids"] if c in row_of]
            findings = [(f["text"], [c for c in (f["chunk_ids"] or []) if c in row_of])
                        for f in r["findings"]]
            reports[r["community_id"]] = Report(
                r["community_id"], int(r["level"]), r["title"], r["summary"], findings, float(r["rating"]),
                present, np.array(rows(present), dtype=np.int64),
                [frozenset(s) for s in r["access_group_sets"]])
        store = cls(index, snapshot_id, [e["entity_id"] for e in entities], [e["name"] for e in entities],
                    [e["type"] for e in entities], [e["description"] for e in entities],
                    [list(e["aliases"] or []) for e in entities], entity_chunks,
                    [r["relationship_id"] for r in rels],
                    np.array([position[r["source_id"]] for r in rels], dtype=np.int64),
                    np.array([position[r["target_id"]] for r in rels], dtype=np.int64),
                    np.array([float(r["weight"]) for r in rels], dtype=np.float64),
                    [r["description"] for r in rels], _incidence([rows(r["chunk_ids"]) for r in rels], n),
                    [np.array(i, dtype=np.int64) for i in incident], members, communities_of, reports)
        store._index_names(entities, aliases)
        log.info("graph %s: %d entities, %d relationships, %d reports", snapshot_id, len(entities), len(rels),
                 len(reports))
        return store

    def _index_names(self, entities: list[dict], aliases: list[dict]) -> None:
        by_canonical: dict[str, list[int]] = defaultdict(list)
        for i, e in enumerate(entities):
            by_canonical[e["canonical"]].append(i)
        forms = [(i, s) for i, e in enumerate(entities)
                 for s in [e["name"], e["canonical"], *(e["aliases"] or [])]]
        forms += [(i, a["alias"]) for a in aliases for i in by_canonical.get(a["canonical"], [])]
        analysed: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
        for i, form in forms:
            folded, by_language = name_keys(form)
            if folded and len(folded.split()) <= MAX_NGRAM:
                self.surface.setdefault(folded, set()).add(i)
            for language, key in by_language.items():
                # One stem left of a longer name ("Release Me" -> "releas") would match too much.
                if key and len(key.split()) <= MAX_NGRAM and (" " in key or " " not in folded):
                    analysed[language][key].add(i)
        self.analysed = {lang: dict(keys) for lang, keys in analysed.items()}


def _incidence(rows_per_item: list[list[int]], n_chunks: int) -> sp.csr_matrix:
    indptr = np.cumsum([0, *map(len, rows_per_item)])
    indices = np.fromiter((r for rows in rows_per_item for r in rows), dtype=np.int64, count=int(indptr[-1]))
    data = np.ones(indices.size, dtype=np.float32)
    return sp.csr_matrix((data, indices, indptr), shape=(len(rows_per_item), n_chunks))
