"""The one stage registry: every stage in run order, each declared once by its own module's ``STAGE`` (name,
phase, whether it is mapped over batches, whether it wants a GPU, the caches it owns, how it fans out into
shards). The runner, the DAGs and rebuild read everything they need to know about stages from here."""

from __future__ import annotations

from transforms.stages import (
    ann,
    chunk,
    commit,
    describe,
    discover,
    embed,
    enrich,
    extract,
    graph,
    land,
    pages,
    snapshot,
    sparse,
)
from transforms.stages.base import Stage

STAGES: tuple[Stage, ...] = tuple(m.STAGE for m in (discover, land, extract, chunk, commit,
                                                    enrich, embed, ann, sparse, graph, describe, pages, snapshot))
BY_NAME: dict[str, Stage] = {stage.name: stage for stage in STAGES}


def stage(name: str) -> Stage:
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown stage {name!r}; one of {', '.join(BY_NAME)}") from None


def batch_stages() -> list[Stage]:
    """Mapped over the planned batches, in order, before the commit."""
    return [s for s in STAGES if s.batched]


def index_stages() -> list[Stage]:
    """Over the committed chunks, in order, after the commit; each cached by content."""
    return [s for s in STAGES if s.phase == "index"]


def rebuildable() -> list[Stage]:
    """Stages a rebuild can start from: those that own caches, in order."""
    return [s for s in STAGES if s.owns_caches]
