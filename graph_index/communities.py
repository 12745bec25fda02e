"""Hierarchical Leiden communities over the entity graph, warm-started from the previous run.

``graspologic_native.hierarchical_leiden`` (what microsoft/graphrag calls) clusters the weighted graph with a
fixed seed: level 0 partitions every connected entity; a cluster larger than ``max_cluster_size`` is split
again one level down, and so on. Stability across runs comes from three things:

- the previous run's level-0 partition is passed as ``starting_communities`` (new entities start alone);
- Leiden is re-run from its own output until the level-0 partition stops changing (at most ``_ROUNDS``
  times), so what is stored is a fixed point and an unchanged graph reproduces it exactly;
- a level-0 community whose members and internal edges are unchanged keeps its previous sub-communities.

When the edges, weights and parameters are identical to the previous run's (``fingerprint``), the previous
communities are reused without clustering at all. Community ids derive from (level, sorted member ids), so an
unchanged community keeps its id; its content hash covers members, relationships and the texts of its
evidence chunks, and decides whether its report is rewritten."""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass

import networkx as nx

from lakehouse.ids import sha256_text

__all__ = ["Community", "build_graph", "cluster", "community_rows", "fingerprint"]

log = logging.getLogger(__name__)

_ROUNDS = 4


@dataclass(frozen=True)
class Community:
    level: int
    members: tuple[str, ...]  # sorted entity ids
    parent: tuple[int, tuple[str, ...]] | None  # (level, members) of the parent

    @property
    def community_id(self) -> str:
        return community_id(self.level, self.members)


def community_id(level: int, members: tuple[str, ...] | list[str]) -> str:
    return "com_" + sha256_text(str(level), *sorted(members))[:16]


def build_graph(relationships: list[dict]) -> nx.Graph:
    graph = nx.Graph()
    for r in relationships:
        graph.add_edge(r["source_id"], r["target_id"], weight=float(r["weight"]), id=r["relationship_id"])
    return graph


def fingerprint(graph: nx.Graph, params: dict) -> str:
    edges = sorted((*sorted((a, b)), f"{d['weight']:.6f}") for a, b, d in graph.edges(data=True))
    return sha256_text(repr(sorted(params.items())), *("\x1e".join(e) for e in edges))


def cluster(graph: nx.Graph, previous: list[dict], previous_edges: set[tuple[str, str]],
            max_cluster_size: int = 10, seed: int = 0xDEADBEEF) -> list[Community]:
    """Communities of ``graph`` (nodes: entity ids), warm-started from ``previous`` COMMUNITIES rows."""
    from graspologic_native import hierarchical_leiden

    if graph.number_of_edges() == 0:
        return []
    edges = sorted((*sorted((a, b)), float(d["weight"])) for a, b, d in graph.edges(data=True))
    start = _starting_partition(graph, previous)
    result = None
    for _ in range(_ROUNDS):
        result = hierarchical_leiden(edges, starting_communities=start, max_cluster_size=max_cluster_size,
                                     seed=seed)
        level0 = {c.node: c.cluster for c in result if c.level == 0}
        if start is not None and _partition(level0) == _partition(start):
            break
        start = level0
    communities = _hierarchy(result)
    return _graft(communities, graph, previous, previous_edges)


def _starting_partition(graph: nx.Graph, previous: list[dict]) -> dict[str, int] | None:
    top = sorted((c for c in previous if c["level"] == 0), key=lambda c: c["community_id"])
    start: dict[str, int] = {}
    for number, c in enumerate(top):
        for e in c["entity_ids"]:
            if graph.has_node(e):
                start[e] = number
    if not start:
        return None
    fresh = len(top)
    for node in sorted(graph.nodes):
        if node not in start:
            start[node] = fresh
            fresh += 1
    return start


def _partition(assignment: dict[str, int]) -> set[frozenset[str]]:
    groups: dict[int, set[str]] = defaultdict(set)
    for node, c in assignment.items():
        groups[c].add(node)
    return {frozenset(g) for g in groups.values()}


def _hierarchy(result) -> list[Community]:
    members: dict[tuple[int, int], list[str]] = defaultdict(list)
    parent_of: dict[tuple[int, int], int | None] = {}
    for c in result:
        members[(c.level, c.cluster)].append(c.node)
        parent_of[(c.level, c.cluster)] = c.parent_cluster
    out = []
    for (level, cluster_id), nodes in members.items():
        parent = parent_of[(level, cluster_id)]
        parent_key = (level - 1, tuple(sorted(members[(level - 1, parent)]))) if parent is not None else None
        out.append(Community(level, tuple(sorted(nodes)), parent_key))
    return sorted(out, key=lambda c: (c.level, c.members))


def _graft(communities: list[Community], graph: nx.Graph, previous: list[dict],
           previous_edges: set[tuple[str, str]]) -> list[Community]:
    """Keep the previous sub-communities of level-0 communities whose members and inner edges are the same."""
    if not previous:
        return communities
    old_by_id = {c["community_id"]: c for c in previous}
    children: dict[str, list[dict]] = defaultdict(list)
    for c in previous:
        if c["parent_id"]:
            children[c["parent_id"]].append(c)
    top_of = {e: c.members for c in communities if c.level == 0 for e in c.members}
    inner: dict[tuple[str, ...], set[tuple[str, str]]] = defaultdict(set)
    old_inner: dict[tuple[str, ...], set[tuple[str, str]]] = defaultdict(set)
    for edges, into in ((((a, b) for a, b in graph.edges), inner), (iter(previous_edges), old_inner)):
        for a, b in edges:
            if a in top_of and top_of[a] == top_of.get(b):
                into[top_of[a]].add((min(a, b), max(a, b)))
    kept_roots = {c.members for c in communities if c.level == 0 and c.community_id in old_by_id
                  and inner[c.members] == old_inner[c.members]}
    if not kept_roots:
        return communities

    def root_of(c: Community, by_key: dict) -> tuple[str, ...]:
        while c.parent is not None:
            c = by_key[c.parent]
        return c.members

    by_key = {(c.level, c.members): c for c in communities}
    out = [c for c in communities if c.level == 0 or root_of(c, by_key) not in kept_roots]
    stack = [old_by_id[community_id(0, m)] for m in sorted(kept_roots)]
    while stack:
        parent = stack.pop()
        for child in sorted(children[parent["community_id"]], key=lambda c: c["community_id"]):
            out.append(Community(int(child["level"]), tuple(sorted(child["entity_ids"])),
                                 (int(parent["level"]), tuple(sorted(parent["entity_ids"])))))
            stack.append(child)
    log.info("kept the sub-communities of %d unchanged top-level communities", len(kept_roots))
    return sorted(out, key=lambda c: (c.level, c.members))


def community_rows(communities: list[Community], relationships: list[dict],
                   entity_chunks: dict[str, list[str]], chunk_hashes: dict[str, str]) -> list[dict]:
    """COMMUNITIES rows: members, internal relationships, evidence chunks and the content hash."""
    internal: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in relationships:
        internal[r["source_id"]].append((r["target_id"], r["relationship_id"]))
    rows = []
    for c in communities:
        members = set(c.members)
        rel_ids = sorted(rid for e in c.members for target, rid in internal.get(e, []) if target in members)
        chunk_ids = sorted({ch for e in c.members for ch in entity_chunks.get(e, [])})
        content = sha256_text("members", *c.members, "relationships", *rel_ids, "chunks",
                              *(chunk_hashes.get(ch, ch) for ch in chunk_ids))
        parent = community_id(*c.parent) if c.parent else None
        rows.append({"community_id": c.community_id, "level": c.level, "parent_id": parent,
                     "entity_ids": list(c.members), "relationship_ids": rel_ids, "chunk_ids": chunk_ids,
                     "content_hash": content})
    return sorted(rows, key=lambda r: (r["level"], r["community_id"]))


def restore_communities(rows: list[dict]) -> list[Community]:
    """The communities of stored community rows (reused as they are when the graph did not change)."""
    by_id = {r["community_id"]: r for r in rows}
    out = []
    for r in rows:
        parent = by_id.get(r["parent_id"]) if r["parent_id"] else None
        out.append(Community(int(r["level"]), tuple(sorted(r["entity_ids"])),
                             (int(parent["level"]), tuple(sorted(parent["entity_ids"]))) if parent else None))
    return out
