"""What evaluation needs from the index side, as an interface: the query side never imports the index stages.
The CLI (the top floor) passes the pipeline's implementation (``lakerag.indexer.PipelineIndexer``)."""

from __future__ import annotations

from typing import Protocol

from lakehouse.settings import Settings


class Indexer(Protocol):
    def index_chunks(self, settings: Settings) -> dict[str, float]:
        """Run every index stage over the home's committed chunks; returns seconds per stage."""
        ...

    def index_source(self, settings: Settings) -> None:
        """Index ``settings.source`` into ``settings.home`` and publish the snapshot."""
        ...
