"""Results of extraction, shared by every format."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date


@dataclass(frozen=True)
class Extracted:
    """A document's text and structure as Markdown.

    ``page_spans[i]`` is the [start, end) character span of page ``i + 1`` in ``markdown``
    (empty for formats without pages). ``margins`` is the Markdown of running headers and footers (PDF) or
    section headers and footers (DOCX): kept out of the body, read by the governance-metadata rules.
    """

    markdown: str
    method: str  # pdf-text | ocr-tesseract | ocr-marker | docx | html | markdown | text
    page_count: int = 0
    page_spans: list[tuple[int, int]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    margins: str = ""


@dataclass(frozen=True)
class GovernanceMetadata:
    """Governance fields found in a document; ``metadata_source`` is rules, llm, mixed (rules and the LLM's owner
    fallback) or none."""

    title: str
    version: str | None = None
    issue_date: date | None = None
    last_review_date: date | None = None
    next_review_date: date | None = None
    responsible: str | None = None
    approver: str | None = None
    department: str | None = None
    metadata_source: str = "none"
