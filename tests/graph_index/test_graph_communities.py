"""Hierarchical Leiden with a warm start: an unchanged graph keeps its partition, a small change keeps most
communities, and unchanged top-level communities keep their sub-communities."""

from __future__ import annotations

import random

import networkx as nx

from graph_index.communities import Community, build_graph, cluster, community_id, community_rows, fingerprint


def _relationships(graph: nx.Graph) -> list[dict]:
    return [{"relationship_id": f"r{a}-{b}", "source_id": f"e{min(a, b):03d}",
             "target_id": f"e{max(a, b):03d}", "weight": d["weight"]} for a, b, d in graph.edges(data=True)]


def _planted(seed: int = 3) -> nx.Graph:
    graph = nx.planted_partition_graph(12, 14, 0.45, 0.01, seed=seed)
    rng = random.Random(seed)
    for a, b in graph.edges:
        graph.edges[a, b]["weight"] = round(rng.uniform(0.3, 1.0), 3)
    return graph


def _rows(communities: list[Community]) -> list[dict]:
    return [{"community_id": c.community_id, "level": c.level, "entity_ids": list(c.members),
             "parent_id": community_id(*c.parent) if c.parent else None} for c in communities]


def _edges(relationships: list[dict]) -> set[tuple[str, str]]:
    return {(r["source_id"], r["target_id"]) for r in relationships}


def test_warm_start_reproduces_an_unchanged_partition():
    relationships = _relationships(_planted())
    network = build_graph(relationships)
    first = cluster(network, [], set(), max_cluster_size=8, seed=7)
    assert {c.level for c in first} >= {0, 1}  # clusters above 8 members were split
    second = cluster(network, _rows(first), _edges(relationships), max_cluster_size=8, seed=7)
    assert {c.community_id for c in second} == {c.community_id for c in first}
    assert fingerprint(network, {"seed": 7}) == fingerprint(build_graph(relationships), {"seed": 7})


def test_a_small_change_keeps_most_communities_and_their_children():
    relationships = _relationships(_planted())
    network = build_graph(relationships)
    first = cluster(network, [], set(), max_cluster_size=8, seed=7)
    changed = relationships[:-3] + [{"relationship_id": "new", "source_id": "e000", "target_id": "e999",
                                     "weight": 0.5}]
    second = cluster(build_graph(changed), _rows(first), _edges(relationships), max_cluster_size=8, seed=7)
    before = {c.community_id for c in first if c.level == 0}
    after = {c.community_id for c in second if c.level == 0}
    assert len(before & after) * 4 >= len(before) * 3
    children = [{c.community_id for c in run if c.level > 0} for run in (first, second)]
    kept_children = children[0] & children[1]
    assert kept_children  # unchanged top-level communities keep their sub-communities
    assert any("e999" in c.members for c in second)


def test_community_rows_hash_members_relations_and_evidence():
    relationships = _relationships(_planted())
    communities = cluster(build_graph(relationships), [], set(), max_cluster_size=8, seed=7)
    chunks = {f"e{i:03d}": [f"c{i % 5}"] for i in range(200)}
    hashes = {f"c{i}": f"h{i}" for i in range(5)}
    rows = community_rows(communities, relationships, chunks, hashes)
    edited = community_rows(communities, relationships, chunks, {**hashes, "c0": "x"})
    changed = {r["community_id"] for r, e in zip(rows, edited, strict=True)
               if r["content_hash"] != e["content_hash"]}
    assert changed == {r["community_id"] for r in rows if "c0" in r["chunk_ids"]}
    assert all(set(r["relationship_ids"]) for r in rows)
