"""Entities, relationships and text units from resolved mentions.

Pruning: a one-word entity seen as a capitalised word at sentence starts (or in a heading) at least as often
as inside a sentence is dropped ("Registros", "Revisão"); a CONCEPT needs
``min_concept_chunks`` chunks (names, codes and norms keep at one); an entity in more than ``max_chunk_share``
of the chunks (boilerplate) is dropped once the corpus has ``_SHARE_MIN_CHUNKS`` chunks.

Relationships from the rules are chunk co-occurrences weighted by NPMI (normalised pointwise mutual
information over chunk counts, in (0, 1]): pairs with non-positive NPMI are dropped, each chunk keeps its
``max_relations_per_chunk`` strongest pairs (by NPMI x co-occurring chunks, so recurring links come first),
and a pair needs a mention in the chunk body (the leading context line only links its entities to the
body's). A chunk read by an LLM contributes its explicit relations
instead, with strength/10. A relationship's weight is the sum of its per-chunk strengths.

Descriptions from the rules are built from names, types and counts, never from chunk text. An LLM's
descriptions are used only when all the evidence chunks have one access-group set, so nobody who can see the
entity reads a description drawn from a chunk they cannot read."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache

from graph_index.resolution import ChunkInput, Resolution
from lakehouse.ids import sha256_text

__all__ = ["GraphTables", "build_tables", "entity_id", "relationship_id"]

_SHARE_MIN_CHUNKS = 20
_DESCRIPTION_CHARS = 400


@dataclass
class GraphTables:
    entities: list[dict]
    relationships: list[dict]
    text_units: list[dict]


@lru_cache(maxsize=500_000)
def entity_id(canonical: str) -> str:
    return "ent_" + sha256_text(canonical)[:16]


def relationship_id(a: str, b: str) -> str:
    return "rel_" + sha256_text(*sorted((a, b)))[:16]


def build_tables(chunks: list[ChunkInput], resolution: Resolution, groups: dict[str, tuple[str, ...]],
                 min_concept_chunks: int = 2, max_chunk_share: float = 0.5,
                 max_relations_per_chunk: int = 20) -> GraphTables:
    present: list[dict[str, bool]] = []  # per chunk: canonical -> mentioned in the body
    for chunk, row in zip(chunks, resolution.keys, strict=True):
        found: dict[str, bool] = {}
        for mention, key in zip(chunk.graph.mentions, row, strict=True):
            if key is not None:
                found[key] = found.get(key, False) or not mention.context
        present.append(found)
    keep = _kept(chunks, resolution, present, min_concept_chunks, max_chunk_share)
    present = [{k: body for k, body in found.items() if k in keep} for found in present]
    counts = Counter(k for found in present for k in found)
    n = len(chunks)
    evidence: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    llm_notes: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    pair_counts: Counter[tuple[str, str]] = Counter()
    candidates = [_pairs(found) if c.graph.source != "llm" else []
                  for c, found in zip(chunks, present, strict=True)]
    for pairs in candidates:
        pair_counts.update(pairs)
    for chunk, row, found, pairs in zip(chunks, resolution.keys, present, candidates, strict=True):
        if chunk.graph.source == "llm":
            _llm_relations(chunk, row, found, evidence, llm_notes)
            continue
        scored = [(p, _npmi(pair_counts[p], counts[p[0]], counts[p[1]], n)) for p in pairs]
        # The strongest pairs overall first (NPMI x co-occurrences), so recurring links beat one-off ones.
        scored = sorted([x for x in scored if x[1] > 0],
                        key=lambda x: (-x[1] * pair_counts[x[0]], -x[1], x[0]))
        scored = scored[:max_relations_per_chunk]
        for pair, npmi in scored:
            evidence[pair][chunk.chunk_id] = npmi
    return _tables(chunks, resolution, groups, present, evidence, llm_notes)


def _kept(chunks, resolution: Resolution, present, min_concept_chunks: int, max_share: float) -> set[str]:
    counts = Counter(k for found in present for k in found)
    starts: Counter[str] = Counter()  # mentions at a sentence start minus mentions inside a sentence
    for chunk, row in zip(chunks, resolution.keys, strict=True):
        for m, key in zip(chunk.graph.mentions, row, strict=True):
            if key is not None:
                starts[key] += 1 if m.initial else -1
    limit = max_share * len(chunks) if len(chunks) >= _SHARE_MIN_CHUNKS else float("inf")
    return {k for k, c in counts.items() if (starts[k] < 0 or " " in k) and c <= limit
            and (resolution.types[k] != "CONCEPT" or c >= min_concept_chunks)}


def _pairs(found: dict[str, bool]) -> list[tuple[str, str]]:
    keys = sorted(found)
    return [(a, b) for i, a in enumerate(keys) for b in keys[i + 1:] if found[a] or found[b]]


def _npmi(both: int, a: int, b: int, n: int) -> float:
    if both == 0:
        return 0.0
    if both == n:
        return 1.0
    return math.log(both * n / (a * b)) / -math.log(both / n)


def _llm_relations(chunk: ChunkInput, row: list[str | None], found: dict[str, bool], evidence, notes) -> None:
    by_text: dict[str, str] = {}
    for mention, key in zip(chunk.graph.mentions, row, strict=True):
        if key is not None and key in found:
            by_text[mention.text.casefold()] = key
    for rel in chunk.graph.relations:
        a, b = by_text.get(rel.source.casefold()), by_text.get(rel.target.casefold())
        if a is None or b is None or a == b:
            continue
        pair = tuple(sorted((a, b)))
        evidence[pair][chunk.chunk_id] = max(evidence[pair].get(chunk.chunk_id, 0.0), rel.strength / 10)
        if rel.description:
            notes[pair].append((chunk.chunk_id, rel.description))


def _tables(chunks, resolution: Resolution, groups, present, evidence, llm_notes) -> GraphTables:
    degree: Counter[str] = Counter()
    relationships = []
    for (a, b), per_chunk in sorted(evidence.items()):
        ids = sorted(per_chunk)
        ea, eb = entity_id(a), entity_id(b)
        source, target = sorted((ea, eb))
        names = [resolution.names[k] for k in ((a, b) if ea == source else (b, a))]
        description = _shared(llm_notes.get((a, b), []), ids, groups) or (
            f"{names[0]} and {names[1]} appear together in {len(ids)} chunk(s)")
        relationships.append({"relationship_id": relationship_id(ea, eb), "source_id": source,
                              "target_id": target, "description": description,
                              "weight": round(sum(per_chunk.values()), 6), "chunk_ids": ids,
                              "count": len(ids)})
        degree[a] += 1
        degree[b] += 1
    chunk_of: dict[str, list[str]] = defaultdict(list)
    for chunk, found in zip(chunks, present, strict=True):
        for key in found:
            chunk_of[key].append(chunk.chunk_id)
    documents = {c.chunk_id: c.document_id for c in chunks}
    notes = _entity_notes(chunks, resolution)
    entities = []
    for key in sorted(chunk_of, key=entity_id):
        ids = sorted(chunk_of[key])
        docs = sorted({documents[c] for c in ids})
        kind = resolution.types[key]
        description = _shared(notes.get(key, []), ids, groups) or (
            f"{kind.lower()} mentioned in {len(ids)} chunk(s) of {len(docs)} document(s)")
        entities.append({"entity_id": entity_id(key), "name": resolution.names[key], "canonical": key,
                         "type": kind, "description": description, "aliases": resolution.surfaces[key],
                         "chunk_ids": ids, "document_ids": docs, "frequency": len(ids),
                         "degree": degree[key]})
    rel_of: dict[str, list[str]] = defaultdict(list)
    for r in relationships:
        for c in r["chunk_ids"]:
            rel_of[c].append(r["relationship_id"])
    units = [{"chunk_id": c.chunk_id, "document_id": c.document_id,
              "entity_ids": sorted(entity_id(k) for k in found),
              "relationship_ids": sorted(rel_of[c.chunk_id])}
             for c, found in zip(chunks, present, strict=True)]
    return GraphTables(entities, relationships, sorted(units, key=lambda u: u["chunk_id"]))


def _entity_notes(chunks, resolution: Resolution) -> dict[str, list[tuple[str, str]]]:
    notes: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for chunk, row in zip(chunks, resolution.keys, strict=True):
        for mention, key in zip(chunk.graph.mentions, row, strict=True):
            if key is not None and mention.description:
                notes[key].append((chunk.chunk_id, mention.description))
    return notes


def _shared(notes: list[tuple[str, str]], evidence: list[str], groups: dict[str, tuple[str, ...]]) -> str:
    """LLM descriptions joined, only when every evidence chunk has the same access groups."""
    if not notes or len({groups.get(c, ()) for c in evidence}) != 1:
        return ""
    seen: list[str] = []
    for _, text in sorted(notes):
        text = " ".join(text.split())
        if text and text not in seen:
            seen.append(text)
    return " ".join(seen)[:_DESCRIPTION_CHARS]
