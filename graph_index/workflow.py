"""The ``graph`` index stage: committed chunks -> entities, relationships, communities and reports.

    extract (cached per chunk) -> resolve (alias file) -> relationships (NPMI) -> communities (warm Leiden)
    -> reports (rewritten only when their community's content hash changed) -> tables/graph-<run>/ + pointer

Every run rebuilds the graph from the cached extractions of the chunks that exist now, so an edited document
is re-extracted (its chunks have new text) and a deleted one leaves no evidence: an entity or relationship
with no evidence left disappears, and so do the communities and reports built on it. The six tables are
written to ``tables/graph-<run_id>/`` (with a ``manifest.json``), then ``tables/graph.json`` is switched
atomically and older ``graph-*`` folders are removed (published snapshots keep hard links to theirs)."""

from __future__ import annotations

import logging
import os
import shutil
import time
from bisect import bisect_right
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from graph_index import schemas as g
from graph_index.alias_file import alias_file_path, load_alias_file
from graph_index.communities import Community, build_graph, cluster, community_rows, fingerprint
from graph_index.extraction_cache import extract_chunks, extractor_id
from graph_index.relations import build_tables, entity_id
from graph_index.reports import ReportInputs, write_reports
from graph_index.resolution import ChunkInput, resolve
from graph_index.sentences import split_sentences
from lakehouse import schemas as s
from lakehouse.ids import sha256_text
from lakehouse.runs import StageRecord
from lakehouse.storage import read_json, read_table, write_json
from transforms.stages import RunContext

__all__ = ["POINTER", "TABLES", "GraphOptions", "graph", "load_graph_tables"]

log = logging.getLogger(__name__)

POINTER = "graph.json"
TABLES = {"entities": g.ENTITIES, "relationships": g.RELATIONSHIPS, "text_units": g.TEXT_UNITS,
          "communities": g.COMMUNITIES, "community_reports": g.COMMUNITY_REPORTS, "aliases": g.ALIASES}


def load_graph_tables(tables: Path) -> dict[str, pa.Table]:
    """The graph tables behind ``tables/graph.json``; empty tables when no graph has been built."""
    pointer = tables / POINTER
    folder = tables / read_json(pointer)["dir"] if pointer.exists() else None
    return {name: read_table(folder / f"{name}.parquet", schema) if folder is not None and folder.exists()
            else schema.empty_table() for name, schema in TABLES.items()}


@dataclass(frozen=True)
class GraphOptions:
    """The graph stage's settings, read with defaults so the stage runs before they exist in Settings."""

    with_llm: bool = True
    llm_concurrency: int = 4
    min_concept_chunks: int = 2
    max_chunk_share: float = 0.5
    max_relations_per_chunk: int = 20
    max_cluster_size: int = 10
    seed: int = 0xDEADBEEF

    @classmethod
    def of(cls, settings: Any) -> GraphOptions:
        return cls(**{f.name: getattr(settings, f"graph_{f.name}", f.default) for f in fields(cls)})


def graph(ctx: RunContext) -> StageRecord:
    """Build the graph tables from the committed chunks (see the module docstring)."""
    from transforms.llm import client_from_settings

    record, started, paths, st = StageRecord("graph"), time.perf_counter(), ctx.paths, ctx.settings
    options = GraphOptions.of(st)
    log.info("workflow graph: started (run %s)", ctx.run_id)
    chunks = read_table(paths.table("chunks"), s.CHUNKS).select(
        ["chunk_id", s.DOCUMENT_ID, "text", "title", s.ACCESS_GROUPS]).to_pylist()
    client = client_from_settings(st, paths.cache / "llm") if options.with_llm else None
    graphs, stats = extract_chunks(chunks, paths.cache / "graph", client, options.llm_concurrency)
    inputs = [ChunkInput(c["chunk_id"], c[s.DOCUMENT_ID], gr) for c, gr in zip(chunks, graphs, strict=True)]
    resolution = resolve(inputs, load_alias_file(alias_file_path(st)))
    groups = {c["chunk_id"]: tuple(sorted(c[s.ACCESS_GROUPS] or [])) for c in chunks}
    built = build_tables(inputs, resolution, groups, options.min_concept_chunks, options.max_chunk_share,
                         options.max_relations_per_chunk)
    previous = load_graph_tables(paths.tables)
    params = {"max_cluster_size": options.max_cluster_size, "seed": options.seed}
    network = build_graph(built.relationships)
    graph_print = fingerprint(network, params)
    old_communities = previous["communities"].to_pylist()
    if _manifest(paths.tables).get("fingerprint") == graph_print and old_communities:
        communities = _restore(old_communities)
        log.info("graph unchanged: %d communities reused without clustering", len(communities))
    else:
        old_edges = {(r["source_id"], r["target_id"]) for r in previous["relationships"].to_pylist()}
        communities = cluster(network, old_communities, old_edges, **params)
    chunk_hashes = {c["chunk_id"]: sha256_text(c["chunk_id"], c["text"]) for c in chunks}
    rows = community_rows(communities, built.relationships,
                          {e["entity_id"]: e["chunk_ids"] for e in built.entities}, chunk_hashes)
    report_inputs = ReportInputs(
        entities={e["entity_id"]: e for e in built.entities},
        sentences=_sentences(chunks, graphs, resolution.keys, {e["entity_id"] for e in built.entities}),
        documents={c["chunk_id"]: c[s.DOCUMENT_ID] for c in chunks}, groups=groups,
        languages={c["chunk_id"]: gr.language for c, gr in zip(chunks, graphs, strict=True)})
    reports, rewritten = write_reports(rows, report_inputs, previous["community_reports"].to_pylist(), client)
    tables = {"entities": built.entities, "relationships": built.relationships,
              "text_units": built.text_units, "communities": rows, "community_reports": reports,
              "aliases": resolution.aliases}
    manifest = {"run_id": ctx.run_id, "fingerprint": graph_print, "extractor": extractor_id(client), **params,
                "counts": {name: len(v) for name, v in tables.items()}, "reports_rewritten": rewritten}
    _publish(paths.tables, ctx.run_id, tables, manifest)
    record.processed, record.skipped = stats["extracted"], stats["cached"]
    record.usage = {**(client.usage if client is not None else {}), "reports_regenerated": rewritten,
                    "reports_reused": len(reports) - rewritten, "llm_fallbacks": stats["llm_fallbacks"],
                    "llm_errors": stats["llm_errors"]}
    record.seconds = time.perf_counter() - started
    record.save(paths, ctx.run_id)
    log.info("workflow graph: finished in %.2f s: %s; %d chunks extracted, %d reports rewritten",
             record.seconds, manifest["counts"], stats["extracted"], rewritten)
    return record


def _manifest(tables: Path) -> dict:
    pointer = tables / POINTER
    if not pointer.exists():
        return {}
    path = tables / read_json(pointer)["dir"] / "manifest.json"
    return read_json(path) if path.exists() else {}


def _restore(rows: list[dict]) -> list[Community]:
    by_id = {r["community_id"]: r for r in rows}
    out = []
    for r in rows:
        parent = by_id.get(r["parent_id"]) if r["parent_id"] else None
        out.append(Community(int(r["level"]), tuple(sorted(r["entity_ids"])),
                             (int(parent["level"]), tuple(sorted(parent["entity_ids"]))) if parent else None))
    return out


def _sentences(chunks, graphs, keys, kept: set[str]) -> dict[str, list]:
    """Per chunk: its sentences with the ids of the kept entities mentioned in each."""
    out = {}
    for chunk, graph_, row in zip(chunks, graphs, keys, strict=True):
        sentences = split_sentences(chunk["text"])
        starts = [x.start for x in sentences]
        inside: list[set[str]] = [set() for _ in sentences]
        for mention, key in zip(graph_.mentions, row, strict=True):
            ident = entity_id(key) if key is not None else None
            if ident in kept and mention.start >= 0:
                i = bisect_right(starts, mention.start) - 1
                if i >= 0 and mention.start < sentences[i].end:
                    inside[i].add(ident)
        out[chunk["chunk_id"]] = [(x, frozenset(e)) for x, e in zip(sentences, inside, strict=True) if e]
    return out


def _publish(tables: Path, run_id: str, data: dict[str, list[dict]], manifest: dict) -> None:
    target = tables / f"graph-{run_id}"
    staging = tables / f".graph-{run_id}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name, schema in TABLES.items():
        pq.write_table(pa.Table.from_pylist(data[name], schema=schema), staging / f"{name}.parquet",
                       compression="zstd")
    write_json(manifest, staging / "manifest.json")
    if target.exists():  # the same run again (a resumed run): swap folders
        aside = tables / f".graph-{run_id}.old"
        shutil.rmtree(aside, ignore_errors=True)
        os.replace(target, aside)
        os.replace(staging, target)
        shutil.rmtree(aside, ignore_errors=True)
    else:
        os.replace(staging, target)
    write_json({"dir": target.name, "run_id": run_id}, tables / POINTER)
    for old in tables.glob("graph-*"):
        if old.is_dir() and old != target:
            shutil.rmtree(old, ignore_errors=True)
