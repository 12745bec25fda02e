"""``embed``: dense vectors for the chunks whose (indexed text, model) pair is not cached yet (``cache/vectors``,
one folder per model), then the ``vectors`` table in chunk order, stamped with the model id and dimension.
Changing the model re-embeds everything; changing one chunk re-embeds one chunk. Shards (``run_shard``) embed
disjoint parts of the missing texts side by side, in as many processes or workers, before ``run``."""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from lakehouse import paths as lp
from lakehouse.part_cache import KEY, PartCache, shard_of
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord
from lakehouse.settings import Settings
from lakehouse.storage import write_table
from models.embedding import embedder_id, load_embedder
from transforms.progress import report
from transforms.stages.base import Sharding, Stage, shard_part
from transforms.stages.context import RunContext
from transforms.stages.indexed import FLUSH_EVERY, indexed_chunks

# Chunks handed to the model at a time when the batch size is left to the device (0), so that progress shows;
# the model batches inside them. (One chunk at a time made the sample corpus's embedding 3-4x slower.)
PROGRESS_STEP = 128


def _slug(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", value)[:120]


def _cache(ctx: RunContext) -> tuple[PartCache, str]:
    """The vector cache of the configured model (``cache/vectors/<model id>/``) and the model id."""
    model_id = embedder_id(ctx.settings.index.embedding_model)
    cache_schema = pa.schema([pa.field(KEY, pa.string()), pa.field("vector", pa.list_(pa.float32()))])
    return PartCache(ctx.paths.cache_dir(lp.VECTORS) / _slug(model_id), cache_schema), model_id


def _missing(cache: PartCache, keys: list[str], texts: list[str]) -> list[tuple[str, str]]:
    """(key, text) of each distinct indexed text the cache lacks, by key."""
    have = cache.keys()
    return sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in have}.items())


def _embed_into(cache: PartCache, missing: list[tuple[str, str]], st: Settings) -> int:
    """Embed ``missing`` and append the vectors to ``cache``, one part per flush; returns how many."""
    if not missing:
        return 0
    embedder = load_embedder(st.index.embedding_model, st.index.embedding_device, st.index.embedding_batch_size)
    step = st.index.embedding_batch_size or PROGRESS_STEP
    report("embed", 0, len(missing), "chunks")
    for start in range(0, len(missing), FLUSH_EVERY):
        part = sorted(missing[start:start + FLUSH_EVERY], key=lambda kt: len(kt[1]))  # slices of like length
        pieces = []
        for at in range(0, len(part), step):  # one model batch at a time, so that progress shows
            pieces.append(embedder.embed_passages([t for _, t in part[at:at + step]]))
            report("embed", start + min(at + step, len(part)), len(missing), "chunks")
        vectors = np.concatenate(pieces)
        cache.append(pa.table({KEY: [k for k, _ in part], "vector": list(vectors.astype(np.float32))}))
    return len(missing)


def missing(ctx: RunContext) -> list[str]:
    """Keys of the indexed texts with no cached vector for the configured model (what shards split)."""
    cache, _ = _cache(ctx)
    _, keys, texts = indexed_chunks(ctx)
    return [k for k, _ in _missing(cache, keys, texts)]


def run_shard(ctx: RunContext, shard: int, shards: int) -> StageRecord:
    """Embed the missing texts of one shard into the cache; no table, no compaction (``Sharding``)."""
    record, started = StageRecord("embed", part=shard_part(shard, shards)), time.perf_counter()
    cache, _ = _cache(ctx)
    _, keys, texts = indexed_chunks(ctx)
    todo = [kt for kt in _missing(cache, keys, texts) if shard_of(kt[0], shards) == shard]
    record.processed = _embed_into(cache, todo, ctx.settings)
    return record.finish(ctx.paths, ctx.run_id, started)


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    record, started, paths = StageRecord("embed"), time.perf_counter(), ctx.paths
    cache, model_id = _cache(ctx)
    ids, keys, texts = indexed_chunks(ctx)
    record.processed = _embed_into(cache, _missing(cache, keys, texts), ctx.settings)
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
    return record.finish(paths, ctx.run_id, started)


def caches(paths: LakePaths) -> list[Path]:
    return [paths.cache_dir(lp.VECTORS)]


STAGE = Stage("embed", "index", run, gpu=True, caches=caches, sharding=Sharding(missing, run_shard))
