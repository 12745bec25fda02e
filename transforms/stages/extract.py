"""``extract``: Markdown and governance metadata for each content hash of a batch not yet extracted (cached
per hash under ``cache/extracted``); a failure is cached too (``cache/failures``) and quarantines the file."""

from __future__ import annotations

import logging
import time
from pathlib import Path, PurePosixPath

import pyarrow as pa

from lakehouse import paths as lp
from lakehouse import schemas as s
from lakehouse.errors import DocumentError, LakeragError
from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord
from lakehouse.settings import Settings
from lakehouse.storage import read_json, write_json, write_table
from transforms.progress import report
from transforms.stages.base import Stage
from transforms.stages.context import RunContext
from transforms.watchdog import MemoryExceeded, Overrun, Watchdog, WorkerDied, WorkerUnavailable, shared

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 2
REPLACED = "replaced by U+FFFD"  # transforms.extraction.unicode's warning (not imported: parse-time cost)
STOPPED_TWICE = "stopped the run twice: the run was killed while extracting this file (retried once)"


def _extracted_row(digest: str, relpath: str, blob: Path, detected: str, settings: Settings) -> dict:
    """Runs in the watchdog's worker process."""
    from transforms.extraction import extract_document, extract_metadata  # deferred: pdf/OCR/docx libraries
    from transforms.extraction.owners import fill_owners  # deferred with them: it may load the openai client

    started = time.perf_counter()
    extracted = extract_document(blob, detected, settings)
    meta = fill_owners(extract_metadata(extracted, PurePosixPath(relpath).stem), extracted, settings)
    return {
        s.CONTENT_HASH: digest, "markdown": extracted.markdown, "method": extracted.method,
        "page_count": extracted.page_count, "page_spans": [list(p) for p in extracted.page_spans],
        "warnings": list(extracted.warnings), **meta.__dict__,
        "extract_seconds": time.perf_counter() - started,
    }


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    """Extract each hash of the batch; quarantine failures (one bad file never stops the run)."""
    record, started, paths = StageRecord("extract", part=str(batch)), time.perf_counter(), ctx.paths
    bounds = ctx.settings.extraction
    _extract_batch(ctx, batch or 0, shared(bounds.extract_timeout, bounds.extract_max_memory_mb), record)
    record.seconds = time.perf_counter() - started
    record.save(paths, ctx.run_id)
    return record


def _extract_batch(ctx: RunContext, batch: int, watchdog: Watchdog, record: StageRecord) -> None:
    paths = ctx.paths
    rows = ctx.batch_rows(batch)
    for done, row in enumerate(rows):
        report("extract", done, len(rows), "documents")
        digest = row[s.CONTENT_HASH]
        if paths.extracted_part(digest).exists() or ctx.failure(digest) is not None:
            record.skipped += 1
            continue
        marker = paths.attempt(digest)
        attempts = read_json(marker)["attempts"] if marker.exists() else 0
        if attempts >= MAX_ATTEMPTS:  # killed twice while on this file (a hung or memory-hungry parser)
            _save_failure(ctx, digest, row[s.PATH], "extract", STOPPED_TWICE, record)
            marker.unlink(missing_ok=True)
            continue
        write_json({"attempts": attempts + 1, "path": row[s.PATH]}, marker)  # before the work, not after
        try:
            data = watchdog.run(_extracted_row, digest, row[s.PATH], paths.blob(digest), row["detected_type"],
                                ctx.settings)
        except (Overrun, WorkerDied, MemoryExceeded) as exc:
            setting = " (LAKERAG_EXTRACT_TIMEOUT)" if isinstance(exc, Overrun) else ""
            _save_failure(ctx, digest, row[s.PATH], "extract", f"extraction {exc}{setting}", record)
            continue
        except WorkerUnavailable:  # this machine's problem, not the document's: the task fails, nothing is cached
            raise
        except DocumentError as exc:
            _save_failure(ctx, digest, row[s.PATH], exc.stage, exc.reason, record)
            continue
        except RecursionError:  # e.g. HTML nested 100,000 deep: browsers render it, parsers recurse
            _save_failure(ctx, digest, row[s.PATH], "extract",
                          "structure nested too deeply to parse (over the recursion limit)", record)
            continue
        except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
            log.exception("extraction of %s failed", row[s.PATH])
            _save_failure(ctx, digest, row[s.PATH], "extract", f"extraction failed: {type(exc).__name__}: {exc}",
                          record)
            continue
        finally:
            marker.unlink(missing_ok=True)
        write_table(pa.Table.from_pylist([data], schema=s.EXTRACTED), paths.extracted_part(digest))
        record.processed += 1
        record.errors += [f"{row[s.PATH]}: {w}" for w in data["warnings"] if REPLACED in w]  # in the run record


def _save_failure(ctx: RunContext, digest: str, path: str, stage: str, reason: str, record: StageRecord) -> None:
    write_json({"stage": stage, "reason": reason, "capabilities": ctx.extraction_capabilities},
               ctx.paths.failure(digest))
    record.failed += 1
    record.errors.append(f"{path}: {reason}")


class TooManyFailures(LakeragError):
    """Extraction failed for every document of a run, or for more than the configured share of them."""


def check_failures(ctx: RunContext) -> dict:
    """Counts over the run's planned documents (cached outcomes included, so a retried task judges the same
    run); raises ``TooManyFailures`` when none could be extracted, or when more than
    ``LAKERAG_MAX_EXTRACT_FAILED_SHARE`` of them failed: a run that quarantines most of its documents is a
    broken environment (a missing library, a worker that cannot start), not bad files."""
    rows = [row for batch in ctx.batches() for row in ctx.batch_rows(batch)]
    failed = [(row[s.PATH], f["reason"]) for row in rows
              if not ctx.paths.extracted_part(row[s.CONTENT_HASH]).exists()
              and (f := ctx.failure(row[s.CONTENT_HASH])) is not None and f.get("stage") == "extract"]
    extracted = sum(1 for row in rows if ctx.paths.extracted_part(row[s.CONTENT_HASH]).exists())
    limit = ctx.settings.extraction.max_extract_failed_share
    counts = {"extracted": extracted, "failed": len(failed)}
    if not failed or (extracted and len(failed) / (len(failed) + extracted) <= limit):
        return counts
    reasons = "; ".join(f"{path}: {reason}" for path, reason in failed[:3])
    raise TooManyFailures(
        f"{len(failed)} of {len(failed) + extracted} documents failed extraction "
        f"({len(failed) / (len(failed) + extracted):.0%}; LAKERAG_MAX_EXTRACT_FAILED_SHARE={limit:g}"
        f"{', and none was extracted' if not extracted else ''}), e.g. {reasons}. They are quarantined "
        "(`lakerag status`); fix the cause, then re-extract them (`lakerag_rebuild` with path_prefix).")


def caches(paths: LakePaths) -> list[Path]:
    return [paths.cache_dir(lp.EXTRACTED), paths.cache_dir(lp.FAILURES)]


STAGE = Stage("extract", "batch", run, caches=caches)
