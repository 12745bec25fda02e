"""Caches pruned to what is still live: the working tables and every retained snapshot.

* Content-addressed files (raw blobs, extractions, chunk drafts, failure markers) whose content hash no
  documents table references any more.
* Content-keyed part caches: vectors and token lists by the indexed text's hash (the vectors tables'
  ``embed_key``), graph extractions by (extractor, title, text) of the chunks; a graph cache folder of an
  extractor that is no longer configured is dropped whole.
* Request-keyed LLM caches (``llm``, ``llm-answers``, ``graph-search``): entries older than the retention."""

from __future__ import annotations

import re
import time
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

from graph_index.extraction import EXTRACTOR_VERSION
from graph_index.extraction_cache import extractor_id
from lakehouse import paths as lp
from lakehouse.ids import sha256_text
from lakehouse.paths import LakePaths
from lakehouse.purge import remove, retain_keys
from lakehouse.settings import Settings
from lakehouse.snapshots import list_snapshots, snapshot_tables
from models.llm import client_from_settings

REQUEST_CACHES = (lp.LLM, lp.LLM_ANSWERS, lp.GRAPH_SEARCH)


def live_tables(paths: LakePaths) -> list[Path]:
    """The working tables folder and the tables folder of every snapshot on disk."""
    return [paths.tables, *(snapshot_tables(paths, m["id"]) for m in list_snapshots(paths))]


def _column(folder: Path, table: str, columns: list[str]) -> list[dict]:
    path = folder / f"{table}.parquet"
    if not path.exists():
        return []
    present = [c for c in columns if c in pq.read_schema(path).names]
    return pq.read_table(path, columns=present).to_pylist() if present == columns else []


def referenced_hashes(paths: LakePaths) -> set[str]:
    return {r["content_hash"] for folder in live_tables(paths)
            for r in _column(folder, "documents", ["content_hash"]) if r["content_hash"]}


def orphans(paths: LakePaths, keep: set[str]) -> list[Path]:
    """Content-addressed files whose hash is not in ``keep``."""
    found: list[Path] = []
    for root, pattern in ((paths.raw, "*/*"), (paths.cache_dir(lp.EXTRACTED), "*/*.parquet"),
                          (paths.cache_dir(lp.FAILURES), "*/*.json"), (paths.cache_dir(lp.CHUNKS), "*/*/*.parquet")):
        for path in root.glob(pattern) if root.exists() else []:
            if path.name.split(".")[0] not in keep and not path.name.startswith("."):
                found.append(path)
    return found


def _slug(ident: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", ident)[:120]


def prune_keyed(paths: LakePaths, settings: Settings) -> Counter[str]:
    """Drop part-cache rows no retained table uses; returns rows removed per cache."""
    removed: Counter[str] = Counter()
    folders = live_tables(paths)
    embed_keys = {r["embed_key"] for f in folders for r in _column(f, "vectors", ["embed_key"])}
    for name in (lp.VECTORS, lp.TOKENS):
        if paths.cache_dir(name).exists():
            removed[name] += retain_keys(paths.cache_dir(name), embed_keys)
    chunks = [r for f in folders for r in _column(f, "chunks", ["title", "text"])]
    client = client_from_settings(settings, paths.cache_dir(lp.LLM)) if settings.graph.with_llm else None
    idents = {_slug(i): i for i in {EXTRACTOR_VERSION, extractor_id(client)}}
    graph = paths.cache_dir(lp.GRAPH)
    for folder in sorted(graph.iterdir()) if graph.exists() else []:
        ident = idents.get(folder.name)
        if ident is None:
            removed[lp.GRAPH] += remove(folder)
            continue
        keys = {sha256_text(ident, c["title"] or "", c["text"]) for c in chunks}
        removed[lp.GRAPH] += retain_keys(folder, keys)
    return removed


def expire_requests(paths: LakePaths, older_than_s: float) -> Counter[str]:
    """Delete LLM request-cache entries not written for ``older_than_s`` seconds."""
    removed: Counter[str] = Counter()
    cutoff = time.time() - older_than_s
    for name in REQUEST_CACHES:
        for path in paths.cache_dir(name).rglob("*.json") if paths.cache_dir(name).exists() else []:
            if path.stat().st_mtime < cutoff:
                removed[name] += remove(path)
    return removed
