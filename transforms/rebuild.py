"""Rebuilds: drop the cached work of some stages (all documents, or those under a path prefix), then run an
ordinary run, which recomputes exactly what is missing. Raw blobs are never dropped (they are the input), nor
the LLM response cache (a rebuild with the same prompts would pay for the same answers again)."""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

import pyarrow.compute as pc

from lakehouse import paths as lp
from lakehouse import schemas as s
from lakehouse.errors import ConfigError
from lakehouse.mirror import synced
from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from lakehouse.storage import read_table
from transforms import lifecycle, registry

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
    """Stages a rebuild can start from, in run order: those that own caches (landing is content-addressed and
    its blobs are inputs, never dropped)."""
    return [stage.name for stage in registry.rebuildable()]


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
                     *paths.cache_dir(lp.CHUNKS).glob(f"*/{digest[:2]}/{digest}.parquet")]
            removed += sum(_remove(p) for p in parts)
        log.info("rebuild: %d documents under %r, %d cached parts removed", len(hashes), scope.path_prefix,
                 removed)
        return {"documents": len(hashes), "removed": removed}
    order = stage_order()
    stages = order if scope.full else order[order.index(scope.from_stage or ""):]
    removed_paths = [str(p) for name in stages for p in registry.stage(name).caches(paths) if _remove(p)]
    log.info("rebuild from %s: removed %s", stages[0], removed_paths)
    return {"stages": stages, "removed": removed_paths}


@synced
def begin_rebuild(settings: Settings, scope: RebuildScope) -> dict:
    """Refuse while a run is pending, invalidate, then start and plan a run (like ``begin_ingest``)."""
    paths = LakePaths(settings.home)
    if pending := lifecycle.pending_index_run(paths):
        raise lifecycle.RunPending(f"run {pending} is committed but not indexed yet; rebuild after it")
    invalidated = invalidate(settings, scope)
    return {**lifecycle.begin_ingest(settings), "invalidated": invalidated}
