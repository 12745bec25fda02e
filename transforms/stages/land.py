"""``land``: copy each new version's bytes into content-addressed storage (``raw/``), verifying the hash.
Raw blobs are the input of every later stage, never a cache: a rebuild does not drop them."""

from __future__ import annotations

import logging
import time

from lakehouse import schemas as s
from lakehouse.runs import StageRecord
from lakehouse.storage import BlobMismatch, store_blob
from transforms.discovery import locate
from transforms.stages.base import Stage
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    record, started, paths = StageRecord("land", part=str(batch)), time.perf_counter(), ctx.paths
    for row in ctx.batch_rows(batch or 0):
        try:
            copied = _store(locate(ctx.settings.source, row[s.PATH]), paths.blob(row[s.CONTENT_HASH]),
                            row[s.CONTENT_HASH], row[s.PATH])
        except (BlobMismatch, FileNotFoundError) as exc:  # edited or removed mid-run: the next run sees it
            log.warning("%s changed while being ingested; left for the next run (%s)", row[s.PATH], exc)
            record.failed += 1
            record.errors.append(f"{row[s.PATH]}: changed while being ingested")
            continue
        record.processed += copied
        record.skipped += not copied
    record.seconds = time.perf_counter() - started
    record.save(paths, ctx.run_id)
    return record


def _store(candidates: list, target, digest: str, relpath: str) -> bool:
    """Copy the candidate whose bytes have the planned hash (one file, or the kept one of NFC/NFD twins)."""
    if not candidates:
        raise FileNotFoundError(relpath)
    for k, candidate in enumerate(candidates):
        try:
            return store_blob(candidate, target, digest)
        except (BlobMismatch, FileNotFoundError):
            if k == len(candidates) - 1:
                raise
    raise AssertionError("unreachable")


STAGE = Stage("land", "batch", run)
