"""The answering layer's data: request options and response bodies, as msgspec Structs (the API serves them as
they are). Field names are the public contract of ``/v1``."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

import msgspec

Mode = Literal["auto", "basic", "local", "global", "hybrid", "catalog", "agentic"]
Status = Literal["answered", "not_found", "partial"]
CitationKind = Literal["chunk", "report", "document", "page"]
CITABLE = ("chunk", "report", "document", "page")  # evidence kinds that are cited as themselves
EvidenceKind = Literal["chunk", "entity", "relationship", "report", "document", "page"]

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
    rewritten_question: str | None = None  # what retrieval searched for, when a follow-up was rewritten
    conversation_id: str | None = None  # send it back with the next question to follow up
    trace: list[dict[str, Any]] = []  # agentic: every step (tool, args, ids, tokens, ms)


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
    analysis_languages: list[str] = []  # the languages BM25 read the query in (none for a dense-only search)


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
    metadata_source: str | None = None  # where the owner fields came from: rules, llm, mixed or none
    summary: str | None = None  # what the document is for (extractive or LLM, made at index time)
    tags: list[str] = []
    entities: list[str] = []  # named in the knowledge graph
    score: float | None = None  # BM25 over title, summary and tags, when searched with ``q``


class CatalogPage(msgspec.Struct):
    items: list[CatalogItem]
    total: int
    as_of: date
    snapshot_id: str
    query: dict[str, Any] = {}


Question = Annotated[str, msgspec.Meta(min_length=1, max_length=2000)]


MAX_HISTORY_TURNS = 10
MAX_HISTORY_CHARS = 20_000  # questions and answers of ``history`` together


class Turn(msgspec.Struct, forbid_unknown_fields=True):
    """An earlier question of the conversation, its answer and the documents it cited."""

    question: Question
    answer: Annotated[str, msgspec.Meta(max_length=MAX_HISTORY_CHARS)] = ""
    cited_document_ids: Annotated[list[Name], msgspec.Meta(max_length=50)] = []
    filters: Filters | None = None


ConversationId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{8,64}$")]


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
    history: Annotated[list[Turn], msgspec.Meta(max_length=MAX_HISTORY_TURNS)] = []  # earlier turns, oldest first
    conversation_id: ConversationId | None = None  # or: the server's record of this key's earlier turns
    rewrite: bool = True  # False: a follow-up is searched as it was asked


class SearchRequest(msgspec.Struct, forbid_unknown_fields=True):
    """Retrieval only (chunks ranked for a question), for services that generate themselves."""

    question: Question
    filters: Filters | None = None
    top_k: Annotated[int, msgspec.Meta(ge=1, le=100)] = 10
    method: Literal["hybrid", "dense", "bm25"] = "hybrid"
