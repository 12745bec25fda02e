"""``embed``: dense vectors for the chunks whose (indexed text, model) pair is not cached yet (``cache/vectors``,
one folder per model), then the ``vectors`` table in chunk order, stamped with the model id and dimension.
Changing the model re-embeds everything; changing one chunk re-embeds one chunk."""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from lakehouse import paths as lp
from lakehouse.part_cache import KEY, PartCache
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord
from lakehouse.storage import write_table
from models.embedding import embedder_id, load_embedder
from transforms.progress import report
from transforms.stages.base import Stage
from transforms.stages.context import RunContext
from transforms.stages.indexed import FLUSH_EVERY, indexed_chunks

# Chunks handed to the model at a time when the batch size is left to the device (0), so that progress shows;
# the model batches inside them. (One chunk at a time made the sample corpus's embedding 3-4x slower.)
PROGRESS_STEP = 128


def _slug(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", value)[:120]


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    record, started, paths, st = StageRecord("embed"), time.perf_counter(), ctx.paths, ctx.settings
    model_id = embedder_id(st.index.embedding_model)
    ids, keys, texts = indexed_chunks(ctx)
    cache_schema = pa.schema([pa.field(KEY, pa.string()), pa.field("vector", pa.list_(pa.float32()))])
    cache = PartCache(paths.cache_dir(lp.VECTORS) / _slug(model_id), cache_schema)
    have = cache.keys()
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in have}.items())
    if missing:
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
            record.processed += len(part)
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


def caches(paths: LakePaths) -> list[Path]:
    return [paths.cache_dir(lp.VECTORS)]


STAGE = Stage("embed", "index", run, gpu=True, caches=caches)
