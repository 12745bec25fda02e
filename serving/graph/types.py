"""The one result type every query mode returns (basic, local, global, hybrid), so an API cites uniformly."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from serving.texts import NOT_FOUND as REFUSALS

EvidenceKind = Literal["chunk", "entity", "relationship", "report"]

NOT_FOUND = REFUSALS["pt"]  # the graph modes' own answer when nothing readable matches


@dataclass
class Evidence:
    """One ranked piece of evidence. ``chunk_ids`` are its citations (always readable by the caller)."""

    kind: EvidenceKind
    id: str
    score: float
    text: str
    chunk_ids: list[str] = field(default_factory=list)
    document_id: str | None = None
    title: str | None = None
    path: str | None = None
    heading_path: list[str] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class SearchResult:
    """Evidence best first within each kind, the packed context a model would read, and stage timings (ms).
    ``answer`` is set by modes that write one (global with an LLM, or the fixed not-found message)."""

    mode: str
    query: str
    evidence: list[Evidence]
    context_text: str
    timings: dict[str, float]
    snapshot_id: str
    answer: str | None = None

    def of_kind(self, kind: EvidenceKind) -> list[Evidence]:
        return [e for e in self.evidence if e.kind == kind]

    @property
    def chunks(self) -> list[Evidence]:
        """Chunk evidence in rank order (what retrieval metrics score)."""
        return self.of_kind("chunk")

    @property
    def citations(self) -> list[str]:
        """Every chunk id and report id cited, first appearance first."""
        seen: dict[str, None] = {}
        for item in self.evidence:
            if item.kind == "report":
                seen.setdefault(item.id)
            for chunk_id in item.chunk_ids:
                seen.setdefault(chunk_id)
        return list(seen)
