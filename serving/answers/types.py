"""The answering layer's data: request options and response bodies, as msgspec Structs (the API serves them as
they are). Field names are the public contract of ``/v1``."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

import msgspec

Mode = Literal["auto", "basic", "local", "global", "hybrid", "catalog"]
Status = Literal["answered", "not_found", "partial"]
CitationKind = Literal["chunk", "report", "document"]
EvidenceKind = Literal["chunk", "entity", "relationship", "report", "document"]

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]


class Filters(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Metadata filters, applied before ranking together with the caller's groups."""

    doc_types: list[Name] = []
    departments: list[Name] = []
    path_prefix: Annotated[str, msgspec.Meta(max_length=500)] | None = None
    issued_from: date | None = None
    issued_to: date | None = None
    review_from: date | None = None
    review_to: date | None = None

    def is_empty(self) -> bool:
        return self == Filters()


class DocumentMeta(msgspec.Struct, omit_defaults=True):
    """Governance metadata of a document, from the catalog."""

    version: str | None = None
    issue_date: date | None = None
    last_review_date: date | None = None
    next_review_date: date | None = None
    responsible: str | None = None
    approver: str | None = None
    department: str | None = None


class Citation(msgspec.Struct):
    """A source the answer cites as ``[n]``."""

    n: int
    kind: CitationKind
    id: str
    document_id: str | None
    title: str | None
    section: str | None
    pages: list[int]
    path: str | None
    doc_type: str | None = None
    metadata: DocumentMeta | None = None


class EvidenceItem(msgspec.Struct):
    """One piece of evidence the answer was built from; ``n`` is its source number when it is citable."""

    kind: EvidenceKind
    id: str
    score: float
    text: str
    n: int | None = None
    document_id: str | None = None
    title: str | None = None
    section: str | None = None
    pages: list[int] = []
    path: str | None = None
    doc_type: str | None = None
    chunk_ids: list[str] = []
    metadata: DocumentMeta | None = None
    extra: dict[str, Any] = {}
    grade: Literal["correct", "ambiguous", "incorrect"] | None = None  # for this question (None: not graded)
    grade_reason: str | None = None  # one line: what it covers, what it misses


class Suggestion(msgspec.Struct):
    """Where to look when nothing was found: a close document and who owns it."""

    document_id: str
    title: str
    path: str
    department: str | None = None
    responsible: str | None = None
    approver: str | None = None


class Answer(msgspec.Struct):
    """The answer to one question."""

    request_id: str
    question: str
    mode: Mode
    mode_used: str
    status: Status
    answer: str
    language: str
    citations: list[Citation]
    evidence: list[EvidenceItem]
    suggestions: list[Suggestion]
    filters: Filters | None
    generator: str
    relevance: float | None
    timings: dict[str, float]
    snapshot_id: str
    warnings: list[str] = []


class SearchHit(msgspec.Struct):
    chunk_id: str
    document_id: str
    title: str
    section: str
    heading_path: list[str]
    pages: list[int]
    path: str
    doc_type: str
    text: str
    score: float
    scores: dict[str, float]


class SearchResults(msgspec.Struct):
    query: str
    hits: list[SearchHit]
    timings: dict[str, float]
    snapshot_id: str


class Section(msgspec.Struct):
    """One section (chunk) of a document: the text a citation points to."""

    chunk_id: str
    document_id: str
    ordinal: int
    heading_path: list[str]
    section: str
    pages: list[int]
    text: str


class SectionRef(msgspec.Struct):
    chunk_id: str
    ordinal: int
    section: str
    pages: list[int]


class Document(msgspec.Struct):
    document_id: str
    title: str
    path: str
    doc_type: str
    metadata: DocumentMeta
    sections: list[SectionRef]
    snapshot_id: str


class SectionList(msgspec.Struct):
    document_id: str
    sections: list[Section]
    snapshot_id: str


ReviewStatus = Literal["ok", "due_soon", "overdue", "unknown"]


class CatalogItem(msgspec.Struct):
    document_id: str
    title: str
    path: str
    doc_type: str
    version: str | None
    issue_date: date | None
    last_review_date: date | None
    next_review_date: date | None
    responsible: str | None
    approver: str | None
    department: str | None
    review_status: ReviewStatus
    days_to_review: int | None


class CatalogPage(msgspec.Struct):
    items: list[CatalogItem]
    total: int
    as_of: date
    snapshot_id: str
    query: dict[str, Any] = {}


Question = Annotated[str, msgspec.Meta(min_length=1, max_length=2000)]


class QueryRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A question. ``mode`` auto routes catalog questions to the catalog, corpus-wide ones to global search (when
    the snapshot has a graph) and the rest to basic retrieval."""

    question: Question
    mode: Mode = "auto"
    filters: Filters | None = None
    top_k: Annotated[int, msgspec.Meta(ge=1, le=50)] = 8
    community_level: Annotated[int, msgspec.Meta(ge=0, le=20)] | None = None
    as_of: date | None = None  # "today" for catalog questions (review due, overdue)
    generate: bool = True  # False: the extractive answer even when an LLM is configured


class SearchRequest(msgspec.Struct, forbid_unknown_fields=True):
    """Retrieval only (chunks ranked for a question), for services that generate themselves."""

    question: Question
    filters: Filters | None = None
    top_k: Annotated[int, msgspec.Meta(ge=1, le=100)] = 10
    method: Literal["hybrid", "dense", "bm25"] = "hybrid"
