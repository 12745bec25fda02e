"""``sparse``: analyse the chunks not yet analysed (token lists cached under ``cache/tokens``), then build the
BM25 index, with its chunks' language shares, and publish it as ``tables/sparse-<run>/`` behind
``tables/sparse.json``."""

from __future__ import annotations

import time
from pathlib import Path

import pyarrow as pa

from lakehouse import paths as lp
from lakehouse.part_cache import KEY, PartCache
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord
from lakehouse.storage import publish_versioned
from models.analysis import analyze, detect_language
from models.sparse import build_sparse_index, save_sparse_index
from transforms.progress import report
from transforms.stages.base import Stage
from transforms.stages.context import RunContext
from transforms.stages.indexed import FLUSH_EVERY, indexed_chunks

ANALYZER_VERSION = "a2"  # a2: Portuguese "no" (em + o) is a stopword, not a negation


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    record, started, paths, st = StageRecord("sparse"), time.perf_counter(), ctx.paths, ctx.settings
    ids, keys, texts = indexed_chunks(ctx)
    schema = pa.schema([pa.field(KEY, pa.string()), pa.field("language", pa.string()),
                        pa.field("tokens", pa.list_(pa.string()))])
    cache = PartCache(paths.cache_dir(lp.TOKENS) / ANALYZER_VERSION, schema)
    have = cache.keys()
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in have}.items())
    for start in range(0, len(missing), FLUSH_EVERY * 8):
        part = missing[start:start + FLUSH_EVERY * 8]
        langs = [detect_language(t) for _, t in part]
        cache.append(pa.table({KEY: [k for k, _ in part], "language": langs,
                               "tokens": [analyze(t, lang) for (_, t), lang in zip(part, langs, strict=True)]}))
        record.processed += len(part)
        report("sparse", record.processed, len(missing), "chunks")
    cache.compact()
    record.skipped = len(set(keys)) - record.processed
    found = cache.read(keys)
    tokens = dict(zip(found[KEY].to_pylist(), found["tokens"].to_pylist(), strict=True))
    languages = dict(zip(found[KEY].to_pylist(), found["language"].to_pylist(), strict=True))
    index = build_sparse_index(ids, [tokens[k] for k in keys], k1=st.index.bm25_k1, b=st.index.bm25_b,
                               languages=[languages[k] for k in keys])
    publish_versioned(paths.tables, lp.SPARSE_SET, ctx.run_id, lambda folder: save_sparse_index(index, folder))
    record.seconds = time.perf_counter() - started
    record.save(paths, ctx.run_id)
    return record


def caches(paths: LakePaths) -> list[Path]:
    return [paths.cache_dir(lp.TOKENS)]


STAGE = Stage("sparse", "index", run, caches=caches)
