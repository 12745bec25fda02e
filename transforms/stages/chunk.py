"""``chunk``: split each extracted hash of a batch into structure-aware chunk drafts (cached per hash and
chunker parameters under ``cache/chunks``)."""

from __future__ import annotations

import time
from pathlib import Path

import pyarrow as pa

from lakehouse import paths as lp
from lakehouse import schemas as s
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord
from lakehouse.storage import read_table, write_table
from transforms.chunking import split_markdown
from transforms.stages.base import Stage
from transforms.stages.context import RunContext


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    record, started, paths = StageRecord("chunk", part=str(batch)), time.perf_counter(), ctx.paths
    for row in ctx.batch_rows(batch or 0):
        digest = row[s.CONTENT_HASH]
        source, target = paths.extracted_part(digest), paths.chunk_part(digest, ctx.chunk_params)
        if target.exists() or not source.exists():
            record.skipped += 1
            continue
        ext = read_table(source).to_pylist()[0]
        drafts = split_markdown(ext["markdown"], ext["title"], [tuple(p) for p in ext["page_spans"] or []],
                                ctx.settings.ingest.chunk_size, ctx.settings.ingest.chunk_overlap,
                                ctx.settings.ingest.max_chunk_chars)
        rows = [{s.CONTENT_HASH: digest, "ordinal": d.ordinal, "heading_path": list(d.heading_path),
                 "text": d.text, "char_start": d.char_start, "char_end": d.char_end, "pages": list(d.pages)}
                for d in drafts]
        write_table(pa.Table.from_pylist(rows, schema=s.CHUNK_DRAFTS), target)
        record.processed += 1
    record.seconds = time.perf_counter() - started
    record.save(paths, ctx.run_id)
    return record


def caches(paths: LakePaths) -> list[Path]:
    return [paths.cache_dir(lp.CHUNKS)]


STAGE = Stage("chunk", "batch", run, caches=caches)
