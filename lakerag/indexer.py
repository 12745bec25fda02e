"""The index side as evaluation sees it (``serving.evaluation.indexer.Indexer``), built from the registry."""

from __future__ import annotations

import time

from lakehouse.settings import Settings
from transforms import registry
from transforms.pipeline import run_index
from transforms.stages.context import RunContext


class PipelineIndexer:
    def index_chunks(self, settings: Settings) -> dict[str, float]:
        ctx = RunContext(settings=settings, run_id="eval")
        seconds = {}
        for stage in registry.index_stages():
            started = time.perf_counter()
            stage.run(ctx, None)
            seconds[stage.name] = round(time.perf_counter() - started, 2)
        return seconds

    def index_source(self, settings: Settings) -> None:
        run_index(settings)
