"""``graph``: committed chunks -> entities, relationships, communities and reports (operations in graph_index/).

    extract (cached per chunk) -> resolve (alias file) -> relationships (NPMI) -> communities (warm Leiden)
    -> reports (rewritten only when their community's content hash changed) -> tables/graph-<run>/ + pointer

Every run rebuilds the graph from the cached extractions of the chunks that exist now, so an edited document
is re-extracted (its chunks have new text) and a deleted one leaves no evidence: an entity or relationship
with no evidence left disappears, and so do the communities and reports built on it. The six tables are
published as one versioned folder behind ``tables/graph.json`` (``lakehouse.storage.publish_versioned``).
The per-chunk extraction, the expensive step with an LLM, can fan out first: shards (``run_shard``) fill the
extraction cache side by side, and ``run`` then finds every chunk cached."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from graph_index.alias_file import alias_file_path, load_alias_file
from graph_index.communities import build_graph, cluster, community_rows, fingerprint, restore_communities
from graph_index.extraction_cache import extract_chunks, extract_shard, extractor_id, missing_keys
from graph_index.relations import build_tables
from graph_index.reports import ReportInputs, write_reports
from graph_index.resolution import ChunkInput, resolve
from graph_index.sentences import entity_sentences
from lakehouse import paths as lp
from lakehouse import schemas as s
from lakehouse.graph_schemas import TABLES, graph_dir, load_graph_tables
from lakehouse.ids import sha256_text
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord
from lakehouse.storage import publish_versioned, read_json, read_table, write_json
from models.llm import LLMClient, client_from_settings
from transforms.stages.base import Sharding, Stage, shard_part
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)


def _chunks(ctx: RunContext) -> list[dict]:
    return read_table(ctx.paths.table("chunks"), s.CHUNKS).select(
        ["chunk_id", s.DOCUMENT_ID, "text", "title", s.ACCESS_GROUPS]).to_pylist()


def _client(ctx: RunContext) -> LLMClient | None:
    st = ctx.settings
    return client_from_settings(st, ctx.paths.cache_dir(lp.LLM)) if st.graph.with_llm else None


def missing(ctx: RunContext) -> list[str]:
    """Keys of the chunks whose extraction is not cached yet (what shards split)."""
    return missing_keys(_chunks(ctx), ctx.paths.cache_dir(lp.GRAPH), _client(ctx))


def run_shard(ctx: RunContext, shard: int, shards: int) -> StageRecord:
    """Extract one shard of the uncached chunks into the cache: no graph, no table, no compaction."""
    record, started, client = StageRecord("graph", part=shard_part(shard, shards)), time.perf_counter(), _client(ctx)
    stats = extract_shard(_chunks(ctx), ctx.paths.cache_dir(lp.GRAPH), client, shard, shards,
                          ctx.settings.graph.llm_concurrency)
    record.processed = stats["extracted"]
    record.usage = {**(client.usage if client is not None else {}), "llm_errors": stats["llm_errors"]}
    return record.finish(ctx.paths, ctx.run_id, started)


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    """Build the graph tables from the committed chunks (see the module docstring)."""
    record, started, paths, st = StageRecord("graph"), time.perf_counter(), ctx.paths, ctx.settings
    options = st.graph
    log.info("workflow graph: started (run %s)", ctx.run_id)
    chunks, client = _chunks(ctx), _client(ctx)
    graphs, stats = extract_chunks(chunks, paths.cache_dir(lp.GRAPH), client, options.llm_concurrency)
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
        communities = restore_communities(old_communities)
        log.info("graph unchanged: %d communities reused without clustering", len(communities))
    else:
        old_edges = {(r["source_id"], r["target_id"]) for r in previous["relationships"].to_pylist()}
        communities = cluster(network, old_communities, old_edges, **params)
    chunk_hashes = {c["chunk_id"]: sha256_text(c["chunk_id"], c["text"]) for c in chunks}
    rows = community_rows(communities, built.relationships,
                          {e["entity_id"]: e["chunk_ids"] for e in built.entities}, chunk_hashes)
    report_inputs = ReportInputs(
        entities={e["entity_id"]: e for e in built.entities},
        sentences=entity_sentences(chunks, graphs, resolution.keys, {e["entity_id"] for e in built.entities}),
        documents={c["chunk_id"]: c[s.DOCUMENT_ID] for c in chunks}, groups=groups,
        languages={c["chunk_id"]: gr.language for c, gr in zip(chunks, graphs, strict=True)})
    reports, rewritten = write_reports(rows, report_inputs, previous["community_reports"].to_pylist(), client)
    tables = {"entities": built.entities, "relationships": built.relationships,
              "text_units": built.text_units, "communities": rows, "community_reports": reports,
              "aliases": resolution.aliases}
    manifest = {"run_id": ctx.run_id, "fingerprint": graph_print, "extractor": extractor_id(client), **params,
                "counts": {name: len(v) for name, v in tables.items()}, "reports_rewritten": rewritten}

    def write(folder: Path) -> None:
        for name, schema in TABLES.items():
            pq.write_table(pa.Table.from_pylist(tables[name], schema=schema), folder / f"{name}.parquet",
                           compression="zstd")
        write_json(manifest, folder / "manifest.json")

    publish_versioned(paths.tables, lp.GRAPH_SET, ctx.run_id, write)
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
    folder = graph_dir(tables)
    path = folder / "manifest.json" if folder is not None else None
    return read_json(path) if path is not None and path.exists() else {}


def caches(paths: LakePaths) -> list[Path]:
    return [paths.cache_dir(lp.GRAPH)]


STAGE = Stage("graph", "index", run, caches=caches, sharding=Sharding(missing, run_shard))
