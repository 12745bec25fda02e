"""Arrow schemas of every lakehouse table. Column names are defined here, once."""

from __future__ import annotations

import pyarrow as pa

# Column names shared by several tables.
DOCUMENT_ID = "document_id"
CONTENT_HASH = "content_hash"
PATH = "path"
ACCESS_GROUPS = "access_groups"
DOC_TYPE = "doc_type"
STATUS = "status"
RUN_ID = "run_id"
# documents, plan: which file a version's hash was read from (discovery.file_identity); a stored hash is reused
# only for that very file, never for another file of the same size and mtime put in its place
FILE_IDENTITY = "file_identity"
INJECTION = "injection"  # chunks: sentences flagged as instructions to an assistant (models.injection)

PUBLIC = "public"  # the access group every caller has, with or without a key
STATUS_ACTIVE = "active"
STATUS_DELETED = "deleted"
STATUS_QUARANTINED = "quarantined"

ACTIONS = ("new", "changed", "moved", "unchanged", "deleted", "quarantined")

_groups = pa.list_(pa.string())
_ts = pa.timestamp("us", tz="UTC")

DOCUMENTS = pa.schema(
    [
        pa.field(DOCUMENT_ID, pa.string(), nullable=False),
        pa.field(CONTENT_HASH, pa.string()),
        pa.field(PATH, pa.string(), nullable=False),
        pa.field("size_bytes", pa.int64()),
        pa.field("modified_at", _ts),
        pa.field("detected_type", pa.string()),
        pa.field(DOC_TYPE, pa.string(), nullable=False),
        pa.field(ACCESS_GROUPS, _groups, nullable=False),
        pa.field(FILE_IDENTITY, pa.string()),
        pa.field(STATUS, pa.string(), nullable=False),
        pa.field("status_reason", pa.string()),
        pa.field("first_seen_run", pa.string(), nullable=False),
        pa.field("last_seen_run", pa.string(), nullable=False),
        pa.field("is_current", pa.bool_(), nullable=False),
    ],
    metadata={"description": "bronze: one row per document version; is_current marks the latest"},
)

PLAN = pa.schema(
    [
        pa.field(DOCUMENT_ID, pa.string(), nullable=False),
        pa.field(CONTENT_HASH, pa.string()),
        pa.field(PATH, pa.string(), nullable=False),
        pa.field("previous_path", pa.string()),
        pa.field("size_bytes", pa.int64()),
        pa.field("modified_at", _ts),
        pa.field("detected_type", pa.string()),
        pa.field(DOC_TYPE, pa.string(), nullable=False),
        pa.field(ACCESS_GROUPS, _groups, nullable=False),
        pa.field(FILE_IDENTITY, pa.string()),
        pa.field("action", pa.string(), nullable=False),
        pa.field("reason", pa.string()),
        pa.field("batch", pa.int32(), nullable=False),
    ],
    metadata={"description": "what discover found in one run, one row per path (deleted rows included)"},
)

EXTRACTED = pa.schema(
    [
        pa.field(CONTENT_HASH, pa.string(), nullable=False),
        pa.field("markdown", pa.large_string(), nullable=False),
        pa.field("method", pa.string(), nullable=False),
        pa.field("page_count", pa.int32(), nullable=False),
        pa.field("page_spans", pa.list_(pa.list_(pa.int64(), 2))),
        pa.field("warnings", pa.list_(pa.string())),
        pa.field("title", pa.string(), nullable=False),
        pa.field("version", pa.string()),
        pa.field("issue_date", pa.date32()),
        pa.field("last_review_date", pa.date32()),
        pa.field("next_review_date", pa.date32()),
        pa.field("responsible", pa.string()),
        pa.field("approver", pa.string()),
        pa.field("department", pa.string()),
        pa.field("metadata_source", pa.string(), nullable=False),
        pa.field("extract_seconds", pa.float64()),
    ],
    metadata={"description": "silver: extracted Markdown and governance metadata per content hash"},
)

CHUNK_DRAFTS = pa.schema(
    [
        pa.field(CONTENT_HASH, pa.string(), nullable=False),
        pa.field("ordinal", pa.int32(), nullable=False),
        pa.field("heading_path", pa.list_(pa.string()), nullable=False),
        pa.field("text", pa.large_string(), nullable=False),
        pa.field("char_start", pa.int64(), nullable=False),
        pa.field("char_end", pa.int64(), nullable=False),
        pa.field("pages", pa.list_(pa.int32()), nullable=False),
    ],
    metadata={"description": "cache: chunks of one content hash, before document ids and groups are attached"},
)

CHUNKS = pa.schema(
    [
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field(DOCUMENT_ID, pa.string(), nullable=False),
        pa.field(CONTENT_HASH, pa.string(), nullable=False),
        pa.field("ordinal", pa.int32(), nullable=False),
        pa.field("heading_path", pa.list_(pa.string()), nullable=False),
        pa.field("text", pa.large_string(), nullable=False),
        pa.field("char_start", pa.int64(), nullable=False),
        pa.field("char_end", pa.int64(), nullable=False),
        pa.field("pages", pa.list_(pa.int32()), nullable=False),
        pa.field(PATH, pa.string(), nullable=False),
        pa.field("title", pa.string(), nullable=False),
        pa.field(DOC_TYPE, pa.string(), nullable=False),
        pa.field(ACCESS_GROUPS, _groups, nullable=False),
        pa.field(INJECTION, pa.list_(pa.string())),
    ],
    metadata={"description": "silver: chunks of current active documents, with their access groups and the "
                             "sentences that address an assistant (models.injection), which answers never quote"},
)

QUARANTINE = pa.schema(
    [
        pa.field(PATH, pa.string(), nullable=False),
        pa.field(DOCUMENT_ID, pa.string(), nullable=False),
        pa.field(CONTENT_HASH, pa.string()),
        pa.field("stage", pa.string(), nullable=False),
        pa.field("reason", pa.string(), nullable=False),
        pa.field("detected_type", pa.string()),
        pa.field("size_bytes", pa.int64()),
        pa.field(RUN_ID, pa.string(), nullable=False),
    ],
    metadata={"description": "files currently quarantined, with the stage and a readable reason"},
)

CONTEXTS = pa.schema(
    [
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("context", pa.string(), nullable=False),
        pa.field("context_source", pa.string(), nullable=False),
        pa.field("model", pa.string(), nullable=False),
        pa.field("prompt_version", pa.string(), nullable=False),
    ],
    metadata={"description": "gold: a short context situating each chunk in its document (rules or LLM)"},
)

DESCRIPTIONS = pa.schema(
    [
        pa.field(DOCUMENT_ID, pa.string(), nullable=False),
        pa.field(CONTENT_HASH, pa.string(), nullable=False),
        pa.field("summary", pa.string(), nullable=False),
        pa.field("tags", pa.list_(pa.string()), nullable=False),
        pa.field("entities", pa.list_(pa.string()), nullable=False),  # named in the graph, most frequent first
        pa.field("summary_source", pa.string(), nullable=False),  # extractive | llm
        pa.field("model", pa.string(), nullable=False),
        pa.field("prompt_version", pa.string(), nullable=False),
    ],
    metadata={"description": "gold: what each current document is about (summary, tags, graph entities)"},
)

RUN_COUNTS = ("new", "changed", "moved", "deleted", "unchanged", "extracted", "chunked", "quarantined",
              "enriched", "embedded", "analysed", "llm_calls", "llm_prompt_tokens", "llm_completion_tokens")

RUNS = pa.schema(
    [
        pa.field(RUN_ID, pa.string(), nullable=False),
        pa.field("started_at", _ts, nullable=False),
        pa.field("finished_at", _ts, nullable=False),
        pa.field("seconds", pa.float64(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        *[pa.field(name, pa.int64(), nullable=False) for name in RUN_COUNTS],
        pa.field("documents_active", pa.int64(), nullable=False),
        pa.field("chunks", pa.int64(), nullable=False),
        pa.field("stage_seconds", pa.string(), nullable=False),
        pa.field("errors", pa.list_(pa.string()), nullable=False),
    ],
    metadata={"description": "one row per finished run: counts per stage, durations (JSON), errors"},
)

PAGE_VECTORS = pa.list_(pa.float16())

PAGES = pa.schema(
    [
        pa.field(DOCUMENT_ID, pa.string(), nullable=False),
        pa.field(CONTENT_HASH, pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("page_hash", pa.string(), nullable=False),
        pa.field(PATH, pa.string(), nullable=False),
        pa.field("title", pa.string(), nullable=False),
        pa.field(ACCESS_GROUPS, _groups, nullable=False),
        pa.field("model_id", pa.string(), nullable=False),
        pa.field("n_tokens", pa.int32(), nullable=False),
        pa.field("vectors", PAGE_VECTORS, nullable=False),
    ],
    metadata={"description": "gold: one row per PDF page of current active documents: its late-interaction "
                             "token vectors (float16, n_tokens x dim, row-major), page number (1-based), "
                             "groups and the vision model that made them"},
)
