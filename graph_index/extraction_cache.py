"""Per-chunk extraction, cached by content: only chunks whose key is not cached are extracted.

The key is sha256(extractor id, document title, chunk text); the extractor id is ``rules-v1`` or
``llm:<model>:<prompt version>``, so changing the model or the prompt re-extracts, and the rules' and each
model's results live side by side (``cache/graph/<extractor id>/``). An LLM call that fails falls back to the
rules for this run only (not cached), so the next run asks again. ``extract_shard`` fills one shard of the
missing keys ahead of ``extract_chunks`` (the graph stage's fan-out), which then finds them cached."""

from __future__ import annotations

import logging
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from graph_index.extraction import EXTRACTOR_VERSION, extract_rules
from graph_index.records import CACHE_SCHEMA, ChunkGraph, from_rows, to_rows
from lakehouse.ids import sha256_text
from lakehouse.part_cache import PartCache, shard_of
from models.llm import LLMClient, LLMError

__all__ = ["extract_chunks", "extract_shard", "extractor_id", "missing_keys"]

log = logging.getLogger(__name__)

_FLUSH_EVERY = 256


def extractor_id(client: LLMClient | None) -> str:
    if client is None:
        return EXTRACTOR_VERSION
    from graph_index.llm_extraction import PROMPT_VERSION

    return f"llm:{client.model}:{PROMPT_VERSION}"


def _cache(cache_root: Path, client: LLMClient | None) -> tuple[PartCache, str]:
    ident = extractor_id(client)
    return PartCache(cache_root / re.sub(r"[^A-Za-z0-9._-]+", "_", ident)[:120], CACHE_SCHEMA), ident


def _todo(chunks: list[dict], cache: PartCache, ident: str) -> tuple[list[str], list[tuple[str, dict]]]:
    """Every chunk's key, and (key, chunk) of each distinct key the cache lacks."""
    keys = [sha256_text(ident, c["title"] or "", c["text"]) for c in chunks]
    have = cache.keys()
    return keys, sorted({k: c for k, c in zip(keys, chunks, strict=True) if k not in have}.items())


def missing_keys(chunks: list[dict], cache_root: Path, client: LLMClient | None) -> list[str]:
    """Keys of the chunks whose extraction is not cached yet (what ``extract_shard`` splits)."""
    cache, ident = _cache(cache_root, client)
    return [k for k, _ in _todo(chunks, cache, ident)[1]]


def extract_shard(chunks: list[dict], cache_root: Path, client: LLMClient | None, shard: int, shards: int,
                  concurrency: int = 4) -> dict[str, int]:
    """Extract the uncached chunks whose key falls in ``shard`` of ``shards`` (``part_cache.shard_of``) and
    append them to the cache; never compacts, so shards run side by side. Counts as ``extract_chunks``'s."""
    cache, ident = _cache(cache_root, client)
    todo = [kc for kc in _todo(chunks, cache, ident)[1] if shard_of(kc[0], shards) == shard]
    stats = {"extracted": len(todo), "cached": 0, "llm_fallbacks": 0, "llm_errors": 0}
    _extract_into(cache, todo, client, concurrency, stats)
    return stats


def extract_chunks(chunks: list[dict], cache_root: Path, client: LLMClient | None,
                   concurrency: int = 4) -> tuple[list[ChunkGraph], dict[str, int]]:
    """The graph of each chunk (``chunk_id``, ``title``, ``text``), in order, and counts: extracted, cached,
    llm_fallbacks (invalid answers, cached) and llm_errors (failed calls, not cached)."""
    cache, ident = _cache(cache_root, client)
    keys, todo = _todo(chunks, cache, ident)
    stats = {"extracted": len(todo), "cached": len(set(keys)) - len(todo), "llm_fallbacks": 0,
             "llm_errors": 0}
    transient = _extract_into(cache, todo, client, concurrency, stats)
    cache.compact()
    found = from_rows(cache.read(keys))
    found.update(transient)
    stats["llm_fallbacks"] = sum(1 for k in set(keys) if found[k].source == "rules-fallback")
    return [found[k] for k in keys], stats


def _extract_into(cache: PartCache, todo: list[tuple[str, dict]], client: LLMClient | None, concurrency: int,
                  stats: dict[str, int]) -> dict[str, ChunkGraph]:
    """Extract ``todo`` and append what may be cached, a part per flush; returns the failed LLM calls' rules
    fallbacks (used for this run only)."""
    transient: dict[str, ChunkGraph] = {}
    for start in range(0, len(todo), _FLUSH_EVERY):
        batch = todo[start:start + _FLUSH_EVERY]
        if client is None:
            results = [extract_rules(c["text"], c["title"] or "") for _, c in batch]
        else:
            with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
                results = list(pool.map(lambda kc: _ask(client, kc[1]), batch))
        keep = [(k, g) for (k, _), g in zip(batch, results, strict=True) if g.source != "rules-error"]
        for (key, _), graph in zip(batch, results, strict=True):
            if graph.source == "rules-error":
                stats["llm_errors"] += 1
                graph.source = "rules-fallback"
                transient[key] = graph
        if keep:
            cache.append(to_rows([k for k, _ in keep], [g for _, g in keep]))
    return transient


def _ask(client: LLMClient, chunk: dict) -> ChunkGraph:
    from graph_index.llm_extraction import llm_extract

    try:
        return llm_extract(client, chunk["text"], chunk["title"] or "")
    except LLMError as exc:
        log.warning("graph extraction of %s falls back to rules for this run: %s", chunk["chunk_id"], exc)
        graph = extract_rules(chunk["text"], chunk["title"] or "")
        graph.source, graph.note = "rules-error", f"LLM call failed: {exc.reason}"
        return graph
