"""Index stages over the committed chunks: ``enrich`` (a context per chunk), ``embed`` (dense vectors) and
``sparse`` (BM25). Each is cached by content: the key of a chunk is the hash of the text that gets indexed
(context + chunk text), so only new or changed chunks cost anything, and changing the model re-embeds."""

from __future__ import annotations

import logging
import re
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lakehouse import schemas as s
from lakehouse.ids import sha256_text
from lakehouse.runs import StageRecord
from lakehouse.storage import read_table, write_json, write_table
from transforms.stages import RunContext
from transforms.vector_cache import KEY, PartCache

log = logging.getLogger(__name__)

ANALYZER_VERSION = "a1"
_FLUSH_EVERY = 512


def indexed_text(context: str, text: str) -> str:
    """What the dense and sparse sides index: the chunk's context, then its own text (which is what is cited)."""
    return f"{context}\n\n{text}" if context else text


def _slug(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", value)[:120]


def enrich(ctx: RunContext) -> StageRecord:
    """Write the ``contexts`` table: one short context per current chunk (LLM when configured, rules otherwise)."""
    from transforms.enrichment import PROMPT_VERSION, enrich as enrich_rows
    from transforms.llm import client_from_settings

    record, started, paths = StageRecord("enrich"), time.perf_counter(), ctx.paths
    chunks = read_table(paths.table("chunks"), s.CHUNKS)
    extracted = read_table(paths.table("extracted"), s.EXTRACTED).select([s.CONTENT_HASH, "markdown", "title"])
    documents = {r[s.CONTENT_HASH]: r for r in extracted.to_pylist()}
    st = ctx.settings
    client = client_from_settings(st, paths.cache / "llm") if st.enrich in ("auto", "llm") else None
    if st.enrich == "llm" and client is None:
        log.warning("LAKERAG_ENRICH=llm but no LLM is configured (LAKERAG_LLM_BASE_URL, LAKERAG_LLM_MODEL); "
                    "using rules contexts")
    mode = "llm" if client else ("rules" if st.enrich in ("rules", "llm") else "off")
    model = client.model if client else ("rules" if mode == "rules" else "none")
    previous = read_table(paths.table("contexts"), s.CONTEXTS)
    reuse = previous.filter(pc.and_(pc.equal(previous["model"], model),
                                    pc.equal(previous["prompt_version"], PROMPT_VERSION)))
    reused = {r["chunk_id"]: r for r in reuse.to_pylist()}
    todo = [c for c in chunks.select(["chunk_id", s.DOCUMENT_ID, s.CONTENT_HASH, "text", "heading_path",
                                      "title"]).to_pylist() if c["chunk_id"] not in reused]
    if mode == "off":
        fresh = [{"chunk_id": c["chunk_id"], "context": "", "context_source": "none", "model": "none",
                  "prompt_version": PROMPT_VERSION} for c in todo]
    else:
        fresh = enrich_rows(todo, documents, client) if todo else []
    rows = [reused[c] for c in chunks["chunk_id"].to_pylist() if c in reused] + fresh
    write_table(pa.Table.from_pylist(rows, schema=s.CONTEXTS).sort_by("chunk_id"), paths.table("contexts"))
    record.processed, record.skipped = len(fresh), len(reused)
    if client is not None:
        record.usage = dict(client.usage)
    record.seconds = time.perf_counter() - started
    record.save(paths, ctx.run_id)
    return record


def _indexed(ctx: RunContext) -> tuple[list[str], list[str], list[str]]:
    """(chunk ids, keys, indexed texts) of the current chunks, in table order."""
    paths = ctx.paths
    chunks = read_table(paths.table("chunks"), s.CHUNKS).select(["chunk_id", "text"])
    contexts = read_table(paths.table("contexts"), s.CONTEXTS)
    by_chunk = dict(zip(contexts["chunk_id"].to_pylist(), contexts["context"].to_pylist(), strict=True))
    ids = chunks["chunk_id"].to_pylist()
    texts = [indexed_text(by_chunk.get(cid, ""), text) for cid, text in zip(ids, chunks["text"].to_pylist(),
                                                                             strict=True)]
    return ids, [sha256_text(t) for t in texts], texts


def embed(ctx: RunContext) -> StageRecord:
    """Embed chunks whose (indexed text, model) is not cached; write the ``vectors`` table."""
    from transforms.embedding import embedder_id, load_embedder

    record, started, paths, st = StageRecord("embed"), time.perf_counter(), ctx.paths, ctx.settings
    model_id = embedder_id(st.embedding_model)
    ids, keys, texts = _indexed(ctx)
    cache_schema = pa.schema([pa.field(KEY, pa.string()), pa.field("vector", pa.list_(pa.float32()))])
    cache = PartCache(paths.cache / "vectors" / _slug(model_id), cache_schema)
    have = cache.keys()
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in have}.items())
    if missing:
        embedder = load_embedder(st.embedding_model, st.embedding_device, st.embedding_batch_size)
        for start in range(0, len(missing), _FLUSH_EVERY):
            batch = missing[start:start + _FLUSH_EVERY]
            vectors = embedder.embed_passages([t for _, t in batch])
            cache.append(pa.table({KEY: [k for k, _ in batch], "vector": list(vectors.astype(np.float32))}))
            record.processed += len(batch)
        cache.compact()
    record.skipped = len(set(keys)) - record.processed
    found = cache.read(keys)
    lookup = dict(zip(found[KEY].to_pylist(), range(found.num_rows), strict=True))
    matrix = np.asarray(found["vector"].to_pylist(), dtype=np.float32) if found.num_rows else np.zeros((0, 1))
    dim = int(matrix.shape[1]) if len(matrix) else 0
    rows = matrix[[lookup[k] for k in keys]] if keys else np.zeros((0, dim), np.float32)
    flat = pa.array(rows.reshape(-1), pa.float32())
    table = pa.table({"chunk_id": ids, "embed_key": keys,
                      "vector": pa.FixedSizeListArray.from_arrays(flat, max(dim, 1)) if dim else
                      pa.array([], pa.list_(pa.float32(), 1))})
    table = table.replace_schema_metadata({"model_id": model_id, "dim": str(dim)})
    write_table(table, paths.table("vectors"))
    record.seconds = time.perf_counter() - started
    record.save(paths, ctx.run_id)
    return record


def sparse(ctx: RunContext) -> StageRecord:
    """Analyse chunks not yet analysed (cached token lists), then build and save the BM25 index."""
    from transforms.analysis import analyze, detect_language
    from transforms.sparse import build_sparse_index, save_sparse_index

    record, started, paths, st = StageRecord("sparse"), time.perf_counter(), ctx.paths, ctx.settings
    ids, keys, texts = _indexed(ctx)
    schema = pa.schema([pa.field(KEY, pa.string()), pa.field("language", pa.string()),
                        pa.field("tokens", pa.list_(pa.string()))])
    cache = PartCache(paths.cache / "tokens" / ANALYZER_VERSION, schema)
    have = cache.keys()
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in have}.items())
    for start in range(0, len(missing), _FLUSH_EVERY * 8):
        batch = missing[start:start + _FLUSH_EVERY * 8]
        langs = [detect_language(t) for _, t in batch]
        cache.append(pa.table({KEY: [k for k, _ in batch], "language": langs,
                               "tokens": [analyze(t, lang) for (_, t), lang in zip(batch, langs, strict=True)]}))
        record.processed += len(batch)
    cache.compact()
    record.skipped = len(set(keys)) - record.processed
    found = cache.read(keys)
    tokens = dict(zip(found[KEY].to_pylist(), found["tokens"].to_pylist(), strict=True))
    index = build_sparse_index(ids, [tokens[k] for k in keys], k1=st.bm25_k1, b=st.bm25_b)
    target = paths.tables / f"sparse-{ctx.run_id}"
    save_sparse_index(index, target)
    write_json({"dir": target.name, "run_id": ctx.run_id}, paths.tables / "sparse.json")
    for old in paths.tables.glob("sparse-*"):
        if old.is_dir() and old != target:
            _remove_tree(old)
    record.seconds = time.perf_counter() - started
    record.save(paths, ctx.run_id)
    return record


def _remove_tree(folder) -> None:
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
