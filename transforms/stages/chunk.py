"""``chunk``: split each extracted hash of a batch into structure-aware chunk drafts (cached per hash and
chunker parameters under ``cache/chunks``).

Every stage after this one works per chunk, so the chunk stage is where one document's share of a run is bounded:
at most ``LAKERAG_MAX_DOCUMENT_CHARS`` of its text are chunked and at most ``LAKERAG_MAX_DOCUMENT_CHUNKS``
chunks kept (``bound_document``). A document over either keeps its beginning, and the run record's errors say
which file, how big it was and which setting indexes all of it; the rest of the run goes on."""

from __future__ import annotations

import time
from pathlib import Path

import pyarrow as pa

from lakehouse import paths as lp
from lakehouse import schemas as s
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord
from lakehouse.settings import IngestSettings
from lakehouse.storage import read_table, write_table
from transforms.chunking import ChunkDraft, split_markdown
from transforms.stages.base import Stage
from transforms.stages.context import RunContext


def bound_text(markdown: str, limit: int) -> str:
    """The first ``limit`` characters, cut at the last line break in the second half of them (a heading, a
    table row or a paragraph is not split) or exactly at the limit when there is none."""
    if len(markdown) <= limit:
        return markdown
    cut = markdown.rfind("\n", limit // 2, limit)
    return markdown[: cut if cut > 0 else limit]


def bound_document(ext: dict, ingest: IngestSettings) -> tuple[list[ChunkDraft], list[str]]:
    """The document's chunk drafts within the per-document bounds, and what was left out (empty when nothing)."""
    markdown, notes = ext["markdown"] or "", []
    if len(markdown) > ingest.max_document_chars:
        notes.append(f"extracted text of {len(markdown):,} characters is over LAKERAG_MAX_DOCUMENT_CHARS="
                     f"{ingest.max_document_chars}: only its first {ingest.max_document_chars:,} characters are "
                     "chunked and indexed (raise LAKERAG_MAX_DOCUMENT_CHARS to index all of it)")
        markdown = bound_text(markdown, ingest.max_document_chars)
    drafts = split_markdown(markdown, ext["title"], [tuple(p) for p in ext["page_spans"] or []],
                            ingest.chunk_size, ingest.chunk_overlap, ingest.max_chunk_chars)
    if len(drafts) > ingest.max_document_chunks:
        notes.append(f"{len(drafts):,} chunks is over LAKERAG_MAX_DOCUMENT_CHUNKS={ingest.max_document_chunks}: "
                     f"only its first {ingest.max_document_chunks:,} are indexed (raise "
                     "LAKERAG_MAX_DOCUMENT_CHUNKS to index all of it)")
        drafts = drafts[: ingest.max_document_chunks]
    return drafts, notes


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    record, started, paths = StageRecord("chunk", part=str(batch)), time.perf_counter(), ctx.paths
    for row in ctx.batch_rows(batch or 0):
        digest = row[s.CONTENT_HASH]
        source, target = paths.extracted_part(digest), paths.chunk_part(digest, ctx.chunk_params)
        if target.exists() or not source.exists():
            record.skipped += 1
            continue
        drafts, notes = bound_document(read_table(source).to_pylist()[0], ctx.settings.ingest)
        rows = [{s.CONTENT_HASH: digest, "ordinal": d.ordinal, "heading_path": list(d.heading_path),
                 "text": d.text, "char_start": d.char_start, "char_end": d.char_end, "pages": list(d.pages)}
                for d in drafts]
        write_table(pa.Table.from_pylist(rows, schema=s.CHUNK_DRAFTS), target)
        record.processed += 1
        record.errors += [f"{row[s.PATH]}: {note}" for note in notes]  # in the run record, naming the file
    record.seconds = time.perf_counter() - started
    record.save(paths, ctx.run_id)
    return record


def caches(paths: LakePaths) -> list[Path]:
    return [paths.cache_dir(lp.CHUNKS)]


STAGE = Stage("chunk", "batch", run, caches=caches)
