"""The one stage interface: what the registry declares about a stage, and the signature of its ``run``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lakehouse.paths import LakePaths
from lakehouse.runs import StageRecord
from transforms.stages.context import RunContext

Phase = Literal["plan", "batch", "commit", "index", "snapshot"]
StageRun = Callable[[RunContext, "int | None"], StageRecord]
ShardRun = Callable[[RunContext, int, int], StageRecord]


def no_caches(paths: LakePaths) -> list[Path]:
    return []


def shard_part(shard: int, shards: int) -> str:
    """The stage record's part name of one shard (``shard-0002-of-0004``): each shard keeps its own record."""
    return f"shard-{shard:04d}-of-{shards:04d}"


@dataclass(frozen=True)
class Sharding:
    """How an index stage's expensive work fans out (Airflow: one mapped task per shard, then the stage).

    ``missing(ctx)`` lists the cache keys the run still has to compute. ``run(ctx, shard, shards)`` computes
    only those whose ``lakehouse.part_cache.shard_of(key, shards)`` is ``shard`` and appends them to the
    stage's part cache: it writes no table and never compacts, so shards can run side by side and a failed one
    is retried alone. The stage's own ``run`` is then the merge: it finds everything cached, writes the tables
    and compacts the cache."""

    missing: Callable[[RunContext], list[str]]
    run: ShardRun
    counts: bool = True  # a shard's record counts the entries it computed (enrich's merge counts its contexts)


@dataclass(frozen=True)
class Stage:
    """A stage as the runner, the DAGs and rebuild see it.

    ``run(ctx, batch)`` is idempotent and returns the record it saved; ``batch`` is a planned batch number for
    the stages mapped over batches and None for the others. ``caches`` lists what the stage reuses from earlier
    runs: removing those paths makes it recompute everything (``lakerag_rebuild``)."""

    name: str
    phase: Phase
    run: StageRun
    gpu: bool = False
    caches: Callable[[LakePaths], list[Path]] = no_caches
    sharding: Sharding | None = None

    @property
    def batched(self) -> bool:
        """Mapped over the planned batches of changed documents (Airflow: one task per batch)."""
        return self.phase == "batch"

    @property
    def shardable(self) -> bool:
        """Its missing cache entries can be computed by shards in parallel before it runs (``Sharding``)."""
        return self.sharding is not None

    @property
    def owns_caches(self) -> bool:
        return self.caches is not no_caches
