"""Rebuilds: drop the cached work of some stages (all documents, or those under a path prefix), then run an
ordinary run, which recomputes exactly what is missing. Raw blobs are never dropped (they are the input), nor
the LLM response cache (a rebuild with the same prompts would pay for the same answers again)."""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

import pyarrow.compute as pc

from lakehouse import schemas as s
from lakehouse.errors import ConfigError
from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from lakehouse.storage import read_table
from transforms import lifecycle, pipeline

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RebuildScope:
    """``full``: every stage for every document. ``path_prefix``: re-extract and re-chunk the documents under
    it. ``from_stage``: that stage and every later one, for all documents (``embed`` after a model change)."""

    full: bool = False
    path_prefix: str | None = None
    from_stage: str | None = None

    def __post_init__(self) -> None:
        chosen = sum([self.full, bool(self.path_prefix), bool(self.from_stage)])
        if chosen != 1:
            raise ConfigError("a rebuild needs exactly one of: full, path_prefix, from_stage")
        if self.from_stage and self.from_stage not in stage_order():
            choices = ", ".join(stage_order())
            raise ConfigError(f"from_stage must be one of {choices}, got {self.from_stage!r}")


def stage_order() -> list[str]:
    """Stages a rebuild can start from, in pipeline order (landing is content-addressed: never redone)."""
    return [name for name in pipeline.BATCH_STAGES if name != "land"] + list(pipeline.INDEX_STAGES)


def stage_caches(paths: LakePaths, stage: str) -> list[Path]:
    """What a stage reuses from earlier runs; removing it makes the stage recompute everything."""
    known = {
        "extract": [paths.cache / "extracted", paths.cache / "failures"],
        "chunk": [paths.cache / "chunks"],
        "enrich": [paths.table("contexts")],
        "embed": [paths.cache / "vectors"],
        "sparse": [paths.cache / "tokens"],
    }
    return known.get(stage, [paths.cache / stage])


def _remove(path: Path) -> bool:
    if path.is_dir():
        shutil.rmtree(path)
        return True
    if path.exists():
        path.unlink()
        return True
    return False


def invalidate(settings: Settings, scope: RebuildScope) -> dict:
    """Remove the cached work the scope covers; returns what was removed."""
    paths = LakePaths(settings.home)
    if scope.path_prefix:
        documents = read_table(paths.table("documents"), s.DOCUMENTS)
        under = documents.filter(pc.and_(documents["is_current"],
                                         pc.starts_with(documents[s.PATH], scope.path_prefix)))
        hashes = sorted({h for h in under[s.CONTENT_HASH].to_pylist() if h})
        removed = 0
        for digest in hashes:
            parts = [paths.extracted_part(digest), paths.failure(digest),
                     *paths.cache.glob(f"chunks/*/{digest[:2]}/{digest}.parquet")]
            removed += sum(_remove(p) for p in parts)
        log.info("rebuild: %d documents under %r, %d cached parts removed", len(hashes), scope.path_prefix,
                 removed)
        return {"documents": len(hashes), "removed": removed}
    order = stage_order()
    stages = order if scope.full else order[order.index(scope.from_stage or ""):]
    removed_paths = [str(p) for stage in stages for p in stage_caches(paths, stage) if _remove(p)]
    log.info("rebuild from %s: removed %s", stages[0], removed_paths)
    return {"stages": stages, "removed": removed_paths}


def begin_rebuild(settings: Settings, scope: RebuildScope) -> dict:
    """Refuse while a run is pending, invalidate, then start and plan a run (like ``begin_ingest``)."""
    paths = LakePaths(settings.home)
    if pending := lifecycle.pending_index_run(paths):
        raise lifecycle.RunPending(f"run {pending} is committed but not indexed yet; rebuild after it")
    invalidated = invalidate(settings, scope)
    return {**lifecycle.begin_ingest(settings), "invalidated": invalidated}
