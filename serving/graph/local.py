"""Local search: the entities a question names or is closest to, their one-hop neighbourhood, the relations
between them, their visible source chunks and the visible reports of their communities."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from serving.graph import evidence as ev
from serving.graph.matching import match_entities, specificity
from serving.graph.types import Evidence
from serving.graph.visibility import View

NEIGHBOUR_DAMPING = 0.5


@dataclass
class Neighbourhood:
    seeds: dict[int, float]
    neighbours: dict[int, float]
    relationships: dict[int, float]


def expand(view: View, seeds: dict[int, float], max_relationships: int) -> Neighbourhood:
    """One hop from the seeds over visible relations; a neighbour scores seed score x relative weight."""
    store = view.store
    neighbours: dict[int, float] = {}
    relationships: dict[int, float] = {}
    for seed, score in seeds.items():
        edges = [j for j in store.incident[seed].tolist() if view.relationship_visible(j)]
        if not edges:
            continue
        heaviest = max(store.weights[j] for j in edges)
        for j in edges:
            other = int(store.targets[j] if store.sources[j] == seed else store.sources[j])
            strength = score * float(store.weights[j]) / heaviest
            relationships[j] = relationships.get(j, 0.0) + strength
            if other not in seeds:
                neighbours[other] = max(neighbours.get(other, 0.0), NEIGHBOUR_DAMPING * strength)
    kept = dict(sorted(relationships.items(), key=lambda kv: (-kv[1], kv[0]))[:max_relationships])
    touched = {int(store.sources[j]) for j in kept} | {int(store.targets[j]) for j in kept}
    return Neighbourhood(seeds, {i: s for i, s in neighbours.items() if i in touched}, kept)


def rank_chunks(view: View, seeds: dict[int, float], relationships: dict[int, float]) -> tuple[np.ndarray,
                                                                                                 np.ndarray]:
    """(rows, mentions) of the visible source chunks of the seeds and relations, ranked by mentions + dense
    similarity. Mentions: the seed entities the chunk is evidence for, each counted by its specificity and,
    below 1, its seed score (a name match counts fully, an entity only similar to the question by its
    similarity)."""
    store = view.store
    n = len(store.index)
    mentions = np.zeros(n, dtype=np.float32)
    if seeds:
        weights = np.array([specificity(view, i) * min(s, 1.0) for i, s in seeds.items()], dtype=np.float32)
        mentions += weights @ store.entity_chunks[list(seeds)]
    candidates = mentions > 0
    if relationships:
        candidates |= np.asarray(store.relationship_chunks[list(relationships)].sum(axis=0)).ravel() > 0
    rows = np.flatnonzero(candidates & view.mask)
    order = np.lexsort((rows, -(mentions[rows] + view.chunk_similarity[rows])))
    return rows[order], mentions[rows[order]]


def communities(view: View, entities: dict[int, float], limit: int) -> list[tuple[str, float]]:
    """Visible reports of the entities' communities, by summed member score then report rating."""
    totals: dict[str, float] = {}
    for i, score in entities.items():
        for community_id in view.store.communities_of[i]:
            totals[community_id] = totals.get(community_id, 0.0) + score
    ranked = sorted(((c, s) for c, s in totals.items() if view.report_visible(c)),
                    key=lambda cs: (-cs[1], -view.store.reports[cs[0]].rating, cs[0]))
    return ranked[:limit]


def local_evidence(view: View, question: str, top_k: int = 10, max_seeds: int = 10) -> list[Evidence]:
    """Entities, relations, reports and chunks, each list best first."""
    seeds = match_entities(view, question, limit=max_seeds)
    hood = expand(view, seeds, max_relationships=2 * top_k)
    entities = {**hood.neighbours, **seeds}
    ranked_entities = sorted(entities.items(), key=lambda kv: (-kv[1], kv[0]))[: 2 * top_k]
    rows, mentions = rank_chunks(view, seeds, hood.relationships)
    scores = mentions + view.chunk_similarity[rows]
    out = [ev.entity(view, i, s, seed=i in seeds) for i, s in ranked_entities]
    out += [ev.relationship(view, j, s) for j, s in hood.relationships.items()]
    out += [ev.report(view, c, s) for c, s in communities(view, entities, limit=max(3, top_k // 2))]
    out += [ev.chunk(view.store.index, int(r), float(s))
            for r, s in zip(rows[:top_k], scores[:top_k], strict=True)]
    return out
