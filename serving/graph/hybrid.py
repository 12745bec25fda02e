"""Hybrid search: chunk retrieval and the graph together, so both hops of a multi-hop question surface.

Three rankings of chunks the caller may read are fused by weighted reciprocal rank, each entry's share also
scaled by its strength (0-1), so a weak graph candidate cannot outrank a strong chunk hit on rank alone:
- ``basic`` (weight 1): the hybrid chunk retrieval (BM25 + dense), strength 1;
- ``local`` (0.5): the local ranking of the seed entities' chunks, strength = its mentions score relative to
  the best chunk's;
- ``bridge`` (1): the second hop, chunks about the entities found in the top basic hits. Strength = the
  entity's specificity / the rank of the hit it came from x how much the chunk is about it (title starts
  with the entity's name: 1; name in title or headings: 0.6; only mentions it: 0.2). A chunk titled with the
  entity's name counts even when extraction missed the entity there.
Weights were set on the sample corpus's logic and checked on hotpotqa-100 (`serving/evaluation/modes.py`).
"""

from __future__ import annotations

from serving.graph import evidence as ev
from serving.graph.local import communities, expand, rank_chunks
from serving.graph.matching import match_entities, mentioned, specificity
from serving.graph.names import fold
from serving.graph.types import Evidence
from serving.graph.visibility import View
from serving.search.retriever import Hit

WEIGHTS = {"basic": 1.0, "local": 0.5, "bridge": 1.0}
RRF_K = 60
BRIDGE_HITS = 5  # top basic hits whose entities are followed
BRIDGE_ENTITIES = 10
BRIDGE_CHUNKS = 2  # chunks taken per bridge entity
BRIDGE_SCAN = 200  # evidence chunks (most similar first) examined per bridge entity
ABOUT, TITLED, MENTIONS = 1.0, 0.6, 0.2


def _about(view: View, row: int, forms: list[str]) -> float:
    """How much chunk ``row`` is about an entity with these folded names: title starts with one, contains one,
    or only mentions it."""
    ix = view.store.index
    title = fold(ix.titles[row])
    heads = fold(" ".join(ix.heading_paths[row]))
    if any(title == f or title.startswith(f + " ") for f in forms):
        return ABOUT
    if any(f" {f} " in f" {title} {heads} " for f in forms):
        return TITLED
    return MENTIONS


def bridge_entities(view: View, hits: list[Hit], exclude: set[int]) -> dict[int, float]:
    """Entities in the top hits, weighted by their specificity / the rank of the hit (0-1)."""
    store = view.store
    found: dict[int, float] = {}
    for rank, hit in enumerate(hits[:BRIDGE_HITS], start=1):
        column = store.chunk_entities
        for i in column.indices[column.indptr[hit.row]:column.indptr[hit.row + 1]].tolist():
            if i in exclude or not view.entity_visible(i):
                continue
            found[i] = max(found.get(i, 0.0), specificity(view, i) / rank)
    return dict(sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))[:BRIDGE_ENTITIES])


def bridge_chunks(view: View, entities: dict[int, float], skip: set[int]) -> list[tuple[int, float]]:
    """(row, strength 0-1) of chunks about the bridge entities (rows in ``skip`` left out), best first;
    strength = entity weight x how much the chunk is about it."""
    store = view.store
    scores: dict[int, float] = {}
    for i, weight in entities.items():
        forms = [f for f in {fold(store.names[i]), *map(fold, store.aliases[i])} if f]
        titled = [r for f in forms for r in store.titled.get(f, ()) if view.mask[r]]
        evidence = view.evidence_rows(store.entity_chunks, i, BRIDGE_SCAN).tolist()
        rows = [r for r in dict.fromkeys([*evidence, *titled])
                if r not in skip]
        ranked = sorted(rows, key=lambda r: (-_about(view, r, forms), -view.chunk_similarity[r], r))
        for r in ranked[:BRIDGE_CHUNKS]:
            scores[r] = max(scores.get(r, 0.0), weight * _about(view, r, forms))
    return sorted(scores.items(), key=lambda kv: (-kv[1], -view.chunk_similarity[kv[0]], kv[0]))


def fuse(rankings: dict[str, list[tuple[int, float]]]) -> list[tuple[int, float, dict[str, int]]]:
    """Weighted reciprocal rank fusion, each entry also scaled by its strength (1 for plain rankings):
    (row, score, rank per list), best first."""
    scores: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    for name, rows in rankings.items():
        for rank, (row, strength) in enumerate(rows, start=1):
            scores[row] = scores.get(row, 0.0) + WEIGHTS[name] * strength / (RRF_K + rank)
            ranks.setdefault(row, {})[name] = rank
    return [(r, s, ranks[r]) for r, s in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]


def _local(view: View, seeds: dict[int, float], relationships: dict[int, float]) -> list[tuple[int, float]]:
    """The local ranking of chunks, strength = mentions relative to the best chunk's."""
    rows, mentions = rank_chunks(view, seeds, relationships)
    top = float(mentions.max()) if mentions.size else 0.0
    return [(int(r), float(m) / top) for r, m in zip(rows[:100], mentions[:100], strict=True) if m > 0]


def hybrid_evidence(view: View, question: str, hits: list[Hit], top_k: int = 10) -> list[Evidence]:
    named = mentioned(view, question)
    seeds = match_entities(view, question, named=named)
    hood = expand(view, seeds, max_relationships=2 * top_k)
    basic_rows = [h.row for h in hits]
    bridges = bridge_entities(view, hits, exclude=set(named))  # named ones are in the local ranking
    bridge_rows = bridge_chunks(view, bridges, skip=set(basic_rows[:BRIDGE_HITS]))
    local = _local(view, seeds, hood.relationships)
    fused = fuse({"basic": [(r, 1.0) for r in basic_rows], "local": local, "bridge": bridge_rows})
    entities = {**hood.neighbours, **bridges, **seeds}
    out = [ev.entity(view, i, s, seed=i in seeds, bridge=i in bridges)
           for i, s in sorted(entities.items(), key=lambda kv: (-kv[1], kv[0]))[: 2 * top_k]]
    out += [ev.relationship(view, j, s) for j, s in hood.relationships.items()]
    out += [ev.report(view, c, s) for c, s in communities(view, {**hood.neighbours, **seeds}, limit=3)]
    out += [ev.chunk(view.store.index, row, score, ranks=ranks) for row, score, ranks in fused[:top_k]]
    return out
