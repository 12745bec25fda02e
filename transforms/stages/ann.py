"""``ann``: the approximate nearest-neighbour index over the ``vectors`` table (``models.ann``), published as
``tables/ann-<run>/`` behind ``tables/ann.json`` and frozen into the snapshot with the other tables. Built only
from ``LAKERAG_ANN_MIN_CHUNKS`` chunks (below it the pointer is removed and search scans every vector); a run
that only adds chunks adds them to the previous index's lists, one that removes any (or that grew the rows
``models.ann.RETRAIN_GROWTH`` times since the lists were trained) retrains it."""

from __future__ import annotations

import logging
import shutil
import time

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lakehouse import paths as lp
from lakehouse.runs import StageRecord
from lakehouse.storage import publish_versioned, versioned_dir
from models import ann
from transforms.stages.base import Stage
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    record, started, paths = StageRecord("ann"), time.perf_counter(), ctx.paths
    tables = paths.tables
    rows = pq.read_metadata(paths.table("vectors")).num_rows if paths.table("vectors").exists() else 0
    if rows < ctx.settings.index.ann_min_chunks:
        (tables / f"{lp.ANN_SET}.json").unlink(missing_ok=True)  # too small: the exact scan serves it
        for old in tables.glob(f"{lp.ANN_SET}-*"):
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
        record.skipped = rows
    else:
        table = pq.read_table(paths.table("vectors"))
        meta = table.schema.metadata or {}
        dim, model_id = int(meta.get(b"dim", b"0")), meta.get(b"model_id", b"").decode()
        ids = table["chunk_id"].to_pylist()
        vectors = pc.list_flatten(table["vector"]).to_numpy(zero_copy_only=False).reshape(len(ids), dim)
        keys = ann.row_keys(ids, table["embed_key"].to_pylist())
        previous = versioned_dir(tables, lp.ANN_SET)
        done: list[ann.Update] = []
        publish_versioned(tables, lp.ANN_SET, ctx.run_id, lambda folder: done.append(ann.build(
            folder, np.asarray(vectors, np.float32), keys, model_id, ann.fingerprint(ids),
            previous if previous is not None and previous.exists() else None,
            min_rows=ctx.settings.index.ann_min_chunks)))
        record.processed, record.skipped = done[0].added, len(ids) - done[0].added
        log.info("ann: %d rows added to %s index of %d", done[0].added,
                 "a new" if done[0].rebuilt else "the previous", len(ids))
    record.seconds = time.perf_counter() - started
    record.save(paths, ctx.run_id)
    return record


STAGE = Stage("ann", "index", run)
