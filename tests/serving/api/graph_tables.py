"""A small graph index written by rules, for testing the graph modes before the graph builder runs in
``run_index``: entities are codes and known names found in chunks, relations their co-occurrences,
communities the connected components, reports a few sentences of their evidence."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from graph_index import schemas
from lakehouse.paths import LakePaths
from lakehouse.storage import write_json

NAMES = ("NuvemSul", "Imagem Med", "Higiplus", "Brilho Serviços", "Sabor & Saúde", "PEP Vita", "LGPD",
         "Financeiro", "Enfermagem", "Tecnologia da Informação", "Comitê de Segurança da Informação")
CODE = re.compile(r"\b(?:CT-\d{4}-\d{4}|[A-Z]{2,4}-[A-Z]{2,4}-\d{3}|PG-\d{3}|PC-\d{3})\b")


def _id(prefix: str, *parts: str) -> str:
    return prefix + hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def write_graph(home: Path) -> Path:
    """Write graph tables under ``home/tables`` from its chunks and point ``graph.json`` at them."""
    paths = LakePaths(home)
    chunks = pq.read_table(paths.table("chunks")).to_pylist()
    mentions: dict[str, list[dict]] = defaultdict(list)
    found_in: dict[str, list[str]] = {}
    for chunk in chunks:
        found = sorted(set(CODE.findall(chunk["text"])) | {n for n in NAMES if n in chunk["text"]})
        found_in[chunk["chunk_id"]] = found
        for name in found:
            mentions[name].append(chunk)
    names = sorted(n for n, evidence in mentions.items() if evidence)
    ent = {n: _id("ent_", n.lower()) for n in names}
    entities = [{"entity_id": ent[n], "name": n, "canonical": n.lower(), "type": "CODE" if CODE.match(n) else
                 "ORGANIZATION", "description": f"{n}: named in {len(mentions[n])} passage(s)", "aliases": [],
                 "chunk_ids": [c["chunk_id"] for c in mentions[n]],
                 "document_ids": sorted({c["document_id"] for c in mentions[n]}), "frequency": len(mentions[n]),
                 "degree": 0} for n in names]
    pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
    for chunk in chunks:
        inside = found_in[chunk["chunk_id"]]
        for i, a in enumerate(inside):
            for b in inside[i + 1:]:
                pairs[(a, b)].append(chunk["chunk_id"])
    relationships = [{"relationship_id": _id("rel_", a, b), "source_id": ent[a], "target_id": ent[b],
                      "description": f"{a} and {b} appear together", "weight": float(len(ids)),
                      "chunk_ids": ids, "count": len(ids)} for (a, b), ids in sorted(pairs.items())]
    parent = {n: n for n in names}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        parent[find(a)] = find(b)
    groups: dict[str, list[str]] = defaultdict(list)
    for n in names:
        groups[find(n)].append(n)
    by_chunk = {c["chunk_id"]: c for c in chunks}
    communities, reports = [], []
    for members in groups.values():
        chunk_ids = sorted({c["chunk_id"] for n in members for c in mentions[n]})
        cid = _id("com_", "0", *sorted(ent[n] for n in members))
        rel_ids = [r["relationship_id"] for r in relationships
                   if r["source_id"] in {ent[n] for n in members}]
        communities.append({"community_id": cid, "level": 0, "parent_id": None,
                            "entity_ids": [ent[n] for n in members], "relationship_ids": rel_ids,
                            "chunk_ids": chunk_ids, "content_hash": cid})
        findings = []
        for chunk_id in chunk_ids[:6]:
            text = by_chunk[chunk_id]["text"].split("\n", 1)[-1].replace("#", "").strip()
            findings.append({"text": " ".join(text.split())[:300], "chunk_ids": [chunk_id]})
        reports.append({"community_id": cid, "level": 0, "content_hash": cid, "title": ", ".join(members[:4]),
                        "summary": f"Documents about {', '.join(members[:6])}.", "findings": findings,
                        "rating": float(min(10, len(members))), "source": "extractive", "chunk_ids": chunk_ids,
                        "access_group_sets": sorted({tuple(sorted(by_chunk[c]["access_groups"])) for c in chunk_ids})})
    for r in reports:
        r["access_group_sets"] = [list(s) for s in r["access_group_sets"]]
    folder = paths.tables / "graph-test"
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows, schema in (("entities", entities, schemas.ENTITIES),
                               ("relationships", relationships, schemas.RELATIONSHIPS),
                               ("communities", communities, schemas.COMMUNITIES),
                               ("community_reports", reports, schemas.COMMUNITY_REPORTS),
                               ("aliases", [], schemas.ALIASES)):
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), folder / f"{name}.parquet")
    write_json({"dir": "graph-test", "run_id": "graph-test"}, paths.tables / "graph.json")
    return folder


def publish_with_graph(home: Path) -> str:
    from lakehouse.snapshots import create_snapshot, publish

    write_graph(home)
    snapshot_id = create_snapshot(LakePaths(home), "graph-test", {"models": {"embedding": "wordllama"}})
    publish(LakePaths(home), snapshot_id)
    return snapshot_id
