"""The ingestion stages. Each takes a run context (and a batch number) and is idempotent: its work products
are keyed by content hash, written atomically, and skipped when already there."""

from __future__ import annotations

import logging
import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

import pyarrow as pa
import pyarrow.compute as pc

from lakehouse import schemas as s
from lakehouse.errors import DocumentError
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord
from lakehouse.settings import Settings
from lakehouse.storage import BlobMismatch, read_json, read_table, store_blob, write_json, write_table
from transforms.discovery import scan_source
from transforms.folders import load_folder_config
from transforms.planning import plan_changes

log = logging.getLogger(__name__)

CHUNKER_VERSION = 1


@dataclass(frozen=True)
class RunContext:
    settings: Settings
    run_id: str

    @property
    def paths(self) -> LakePaths:
        return LakePaths(self.settings.home)

    @property
    def chunk_params(self) -> str:
        st = self.settings
        return f"v{CHUNKER_VERSION}-s{st.chunk_size}-o{st.chunk_overlap}"

    @property
    def extraction_capabilities(self) -> str:
        """Failures are cached under this key: they are retried when OCR or Marker becomes available."""
        ocr = self.settings.ocr and shutil.which("tesseract") is not None
        return f"ocr={ocr};marker={self.settings.marker}"

    def plan(self) -> pa.Table:
        return read_table(self.paths.plan(self.run_id), s.PLAN)

    def batch_rows(self, batch: int) -> list[dict]:
        plan = self.plan()
        rows = plan.filter(pc.equal(plan["batch"], batch)).to_pylist()
        unique: dict[str, dict] = {}
        for row in rows:
            unique.setdefault(row[s.CONTENT_HASH], row)
        return list(unique.values())

    def failure(self, content_hash: str) -> dict | None:
        """The cached extraction failure of a hash, if it still applies."""
        path = self.paths.failure(content_hash)
        if not path.exists():
            return None
        data = read_json(path)
        return data if data.get("capabilities") == self.extraction_capabilities else None

    def needs_work(self, content_hash: str) -> bool:
        paths = self.paths
        if not paths.blob(content_hash).exists():
            return True
        if self.failure(content_hash) is not None:
            return False
        return not (paths.extracted_part(content_hash).exists()
                    and paths.chunk_part(content_hash, self.chunk_params).exists())


def discover(ctx: RunContext) -> list[int]:
    """Scan the source, compare with the manifest, write the run's plan; return the batches to process."""
    started = time.perf_counter()
    paths = ctx.paths.ensure()
    write_json({"run_id": ctx.run_id, "source": str(ctx.settings.source),
                "started_at": datetime.now(UTC).isoformat()},
               paths.run_dir(ctx.run_id) / "started.json")
    config = load_folder_config(ctx.settings.folders_config_path())
    documents = read_table(paths.table("documents"), s.DOCUMENTS)
    current = documents.filter(documents["is_current"]).to_pylist()
    known = {r[s.PATH]: (r["size_bytes"], r["modified_at"], r[s.CONTENT_HASH])
             for r in current if r[s.CONTENT_HASH] and r[s.STATUS] != s.STATUS_DELETED}
    entries = scan_source(ctx.settings.source, known, ctx.settings.max_file_bytes,
                          follow_symlinks=ctx.settings.follow_symlinks)
    plan = plan_changes(entries, documents, config, ctx.settings.batch_size, ctx.needs_work)
    write_table(plan, paths.plan(ctx.run_id))
    batches = sorted({b for b in plan["batch"].to_pylist() if b >= 0})
    StageRecord("discover", processed=len(entries), seconds=time.perf_counter() - started).save(paths, ctx.run_id)
    return batches


def land(ctx: RunContext, batch: int) -> StageRecord:
    """Copy each new version's bytes into content-addressed storage, verifying the hash."""
    record, started, paths = StageRecord("land", part=str(batch)), time.perf_counter(), ctx.paths
    for row in ctx.batch_rows(batch):
        source = ctx.settings.source / PurePosixPath(row[s.PATH])
        try:
            copied = store_blob(source, paths.blob(row[s.CONTENT_HASH]), row[s.CONTENT_HASH])
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


def _extracted_row(digest: str, relpath: str, blob: Path, detected: str, ctx: RunContext) -> dict:
    from transforms.extraction import extract_document, extract_metadata

    started = time.perf_counter()
    extracted = extract_document(blob, detected, ctx.settings)
    meta = extract_metadata(extracted, PurePosixPath(relpath).stem)
    return {
        s.CONTENT_HASH: digest, "markdown": extracted.markdown, "method": extracted.method,
        "page_count": extracted.page_count, "page_spans": [list(p) for p in extracted.page_spans],
        "warnings": list(extracted.warnings), **meta.__dict__,
        "extract_seconds": time.perf_counter() - started,
    }


def extract(ctx: RunContext, batch: int) -> StageRecord:
    """Extract Markdown and metadata for each hash of the batch not yet extracted; quarantine failures."""
    record, started, paths = StageRecord("extract", part=str(batch)), time.perf_counter(), ctx.paths
    for row in ctx.batch_rows(batch):
        digest = row[s.CONTENT_HASH]
        if paths.extracted_part(digest).exists() or ctx.failure(digest) is not None:
            record.skipped += 1
            continue
        try:
            data = _extracted_row(digest, row[s.PATH], paths.blob(digest), row["detected_type"], ctx)
        except DocumentError as exc:
            _save_failure(ctx, digest, exc.stage, exc.reason, record)
            continue
        except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
            log.exception("extraction of %s failed", row[s.PATH])
            _save_failure(ctx, digest, "extract", f"extraction failed: {type(exc).__name__}: {exc}", record)
            continue
        write_table(pa.Table.from_pylist([data], schema=s.EXTRACTED), paths.extracted_part(digest))
        record.processed += 1
    record.seconds = time.perf_counter() - started
    record.save(paths, ctx.run_id)
    return record


def _save_failure(ctx: RunContext, digest: str, stage: str, reason: str, record: StageRecord) -> None:
    write_json({"stage": stage, "reason": reason, "capabilities": ctx.extraction_capabilities},
               ctx.paths.failure(digest))
    record.failed += 1
    record.errors.append(reason)


def chunk(ctx: RunContext, batch: int) -> StageRecord:
    """Split each extracted hash of the batch into structure-aware chunk drafts."""
    from transforms.chunking import split_markdown

    record, started, paths = StageRecord("chunk", part=str(batch)), time.perf_counter(), ctx.paths
    for row in ctx.batch_rows(batch):
        digest = row[s.CONTENT_HASH]
        source, target = paths.extracted_part(digest), paths.chunk_part(digest, ctx.chunk_params)
        if target.exists() or not source.exists():
            record.skipped += 1
            continue
        ext = read_table(source).to_pylist()[0]
        drafts = split_markdown(ext["markdown"], ext["title"], [tuple(p) for p in ext["page_spans"] or []],
                                ctx.settings.chunk_size, ctx.settings.chunk_overlap)
        rows = [{s.CONTENT_HASH: digest, "ordinal": d.ordinal, "heading_path": list(d.heading_path),
                 "text": d.text, "char_start": d.char_start, "char_end": d.char_end, "pages": list(d.pages)}
                for d in drafts]
        write_table(pa.Table.from_pylist(rows, schema=s.CHUNK_DRAFTS), target)
        record.processed += 1
    record.seconds = time.perf_counter() - started
    record.save(paths, ctx.run_id)
    return record
