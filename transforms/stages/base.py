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


def no_caches(paths: LakePaths) -> list[Path]:
    return []


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

    @property
    def batched(self) -> bool:
        """Mapped over the planned batches of changed documents (Airflow: one task per batch)."""
        return self.phase == "batch"

    @property
    def owns_caches(self) -> bool:
        return self.caches is not no_caches
