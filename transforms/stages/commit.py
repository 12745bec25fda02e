"""``commit``: fold the run's plan and the cached work products into the lakehouse tables.

Tables are rebuilt incrementally (rows of untouched documents are carried over) and written atomically;
the ``documents`` manifest is written last, so a crash before it leaves the previous state intact and a rerun
converges to the same tables."""

from __future__ import annotations

import logging
import time
from collections import Counter

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lakehouse import schemas as s
from lakehouse.ids import chunk_id_for
from lakehouse.runs import StageRecord
from lakehouse.storage import read_json, read_table, write_json, write_table
from models.injection import DETECTOR_VERSION, find_injections
from transforms.stages.base import Stage
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)

_CARRY_KEYS = (s.CONTENT_HASH, s.PATH, s.ACCESS_GROUPS, s.DOC_TYPE, s.STATUS)


def _status(ctx: RunContext, row: dict) -> tuple[str, str | None, str | None]:
    """(status, stage, reason) of one plan row."""
    if row["action"] == "deleted":
        return s.STATUS_DELETED, None, None
    if row["action"] == "quarantined":
        return s.STATUS_QUARANTINED, "discover", row["reason"]
    failure = ctx.failure(row[s.CONTENT_HASH])
    if failure is not None:
        return s.STATUS_QUARANTINED, failure["stage"], failure["reason"]
    if not ctx.paths.extracted_part(row[s.CONTENT_HASH]).exists():
        return s.STATUS_QUARANTINED, "land", "not processed: the file changed while being ingested"
    return s.STATUS_ACTIVE, None, None


def _version_key(row: dict) -> tuple[str, str]:
    return row[s.DOCUMENT_ID], row[s.CONTENT_HASH] or f"path:{row[s.PATH]}"


def update_documents(
    ctx: RunContext, documents: pa.Table, plan: pa.Table, previous_quarantine: pa.Table
) -> tuple[pa.Table, list[dict]]:
    """New version rows for the plan; returns the table and the quarantine rows."""
    rows = {_version_key(r): r for r in documents.to_pylist()}
    versions: dict[str, list[dict]] = {}
    for row in rows.values():
        versions.setdefault(row[s.DOCUMENT_ID], []).append(row)
    first_quarantined = {(q[s.PATH], q[s.CONTENT_HASH]): q[s.RUN_ID] for q in previous_quarantine.to_pylist()}
    quarantine = []
    for item in plan.to_pylist():
        status, stage, reason = _status(ctx, item)
        doc_id = item[s.DOCUMENT_ID]
        if status == s.STATUS_DELETED:
            for row in versions.get(doc_id, []):
                if row["is_current"]:
                    row.update(status=s.STATUS_DELETED, status_reason=None)
            continue
        for row in versions.get(doc_id, []):
            row["is_current"] = False
        key = _version_key(item)
        if key not in rows:
            rows[key] = {s.DOCUMENT_ID: doc_id, s.CONTENT_HASH: item[s.CONTENT_HASH], "first_seen_run": ctx.run_id}
            versions.setdefault(doc_id, []).append(rows[key])
        row = rows[key]
        row.update({k: item[k] for k in (s.PATH, "size_bytes", "modified_at", "detected_type", s.DOC_TYPE,
                                         s.ACCESS_GROUPS, s.FILE_IDENTITY)})
        row.update(status=status, status_reason=reason, last_seen_run=ctx.run_id, is_current=True)
        if status == s.STATUS_QUARANTINED:
            since = first_quarantined.get((item[s.PATH], item[s.CONTENT_HASH]), ctx.run_id)
            quarantine.append({s.PATH: item[s.PATH], s.DOCUMENT_ID: doc_id, s.CONTENT_HASH: item[s.CONTENT_HASH],
                               "stage": stage, "reason": reason, "detected_type": item["detected_type"],
                               "size_bytes": item["size_bytes"], s.RUN_ID: since})
    table = pa.Table.from_pylist(list(rows.values()), schema=s.DOCUMENTS)
    return table.sort_by([(s.DOCUMENT_ID, "ascending"), ("first_seen_run", "ascending")]), quarantine


def _unchanged_ids(previous: pa.Table, current: pa.Table) -> set[str]:
    """Documents whose current version, path, groups, type and status did not change."""
    def state(table: pa.Table) -> dict[str, tuple]:
        live = table.filter(table["is_current"]).select([s.DOCUMENT_ID, *_CARRY_KEYS]).to_pylist()
        return {r[s.DOCUMENT_ID]: tuple(str(r[k]) for k in _CARRY_KEYS) for r in live}
    before, after = state(previous), state(current)
    return {doc for doc, value in after.items() if before.get(doc) == value}


def _read_parts(paths: list) -> pa.Table | None:
    tables = [pq.read_table(p) for p in paths]
    return pa.concat_tables(tables) if tables else None


def build_extracted(ctx: RunContext, active: list[dict]) -> pa.Table:
    previous = read_table(ctx.paths.table("extracted"), s.EXTRACTED)
    wanted = sorted({r[s.CONTENT_HASH] for r in active})
    have = set(previous[s.CONTENT_HASH].to_pylist())
    keep = previous.filter(pc.is_in(previous[s.CONTENT_HASH], pa.array(wanted, pa.string())))
    new = _read_parts([ctx.paths.extracted_part(h) for h in wanted if h not in have])
    table = keep if new is None else pa.concat_tables([keep, new.cast(s.EXTRACTED)])
    return table.sort_by(s.CONTENT_HASH)


def _previous_chunks(ctx: RunContext) -> pa.Table:
    """The committed chunks with the metadata they were written with (chunk parameters, injection detector); a
    table from before the injection column gets it (filled by ``flag_injections``)."""
    path = ctx.paths.table("chunks")
    if not path.exists():
        return s.CHUNKS.empty_table()
    table = pq.read_table(path)
    metadata = table.schema.metadata
    if s.INJECTION not in table.column_names:
        table = table.append_column(s.INJECTION, pa.nulls(table.num_rows, pa.list_(pa.string())))
    return table.cast(s.CHUNKS).replace_schema_metadata(metadata)  # a cast alone drops the file's metadata


def flag_injections(table: pa.Table) -> pa.Table:
    """The injection column computed for every row (a regex pass: cheap, and a new detector applies to all)."""
    flags = [find_injections(text) for text in table["text"].to_pylist()]
    return table.set_column(table.schema.get_field_index(s.INJECTION), s.INJECTION,
                            pa.array(flags, pa.list_(pa.string())))


def build_chunks(ctx: RunContext, active: list[dict], titles: dict[str, str], carry: set[str]) -> pa.Table:
    previous = _previous_chunks(ctx)
    if (previous.schema.metadata or {}).get(b"chunk_params", b"").decode() != ctx.chunk_params:
        carry = set()
    kept = previous.filter(pc.is_in(previous[s.DOCUMENT_ID], pa.array(sorted(carry), pa.string())))
    rows = []
    for doc in active:
        if doc[s.DOCUMENT_ID] in carry:
            continue
        drafts = pq.read_table(ctx.paths.chunk_part(doc[s.CONTENT_HASH], ctx.chunk_params)).to_pylist()
        seen: Counter[str] = Counter()
        for draft in drafts:
            seen[draft["text"]] += 1
            rows.append({**draft, "chunk_id": chunk_id_for(doc[s.DOCUMENT_ID], draft["text"], seen[draft["text"]]),
                         s.DOCUMENT_ID: doc[s.DOCUMENT_ID], s.PATH: doc[s.PATH],
                         "title": titles[doc[s.CONTENT_HASH]], s.DOC_TYPE: doc[s.DOC_TYPE],
                         s.ACCESS_GROUPS: doc[s.ACCESS_GROUPS]})
    new = pa.Table.from_pylist(rows, schema=s.CHUNKS)
    if (previous.schema.metadata or {}).get(b"injection_detector", b"").decode() == DETECTOR_VERSION:
        table = pa.concat_tables([kept.cast(s.CHUNKS), flag_injections(new)])  # carried rows keep their flags
    else:
        table = flag_injections(pa.concat_tables([kept.cast(s.CHUNKS), new]))
    table = table.sort_by([(s.DOCUMENT_ID, "ascending"), ("ordinal", "ascending")])
    return table.replace_schema_metadata({**(s.CHUNKS.metadata or {}), b"chunk_params": ctx.chunk_params.encode(),
                                          b"injection_detector": DETECTOR_VERSION.encode()})


def commit(ctx: RunContext) -> dict[str, int]:
    """Write extracted, chunks, quarantine, then documents. Returns table counts."""
    paths = ctx.paths
    previous = read_table(paths.table("documents"), s.DOCUMENTS)
    documents, quarantine = update_documents(
        ctx, previous, ctx.plan(), read_table(paths.table("quarantine"), s.QUARANTINE))
    current = documents.filter(documents["is_current"]).to_pylist()
    active = [r for r in current if r[s.STATUS] == s.STATUS_ACTIVE]
    extracted = build_extracted(ctx, active)
    titles = dict(zip(extracted[s.CONTENT_HASH].to_pylist(), extracted["title"].to_pylist(), strict=True))
    chunks = build_chunks(ctx, active, titles, _unchanged_ids(previous, documents))
    write_table(extracted, paths.table("extracted"))
    write_table(chunks, paths.table("chunks"))
    write_table(pa.Table.from_pylist(sorted(quarantine, key=lambda q: q[s.PATH]), schema=s.QUARANTINE),
                paths.table("quarantine"))
    write_table(documents, paths.table("documents"))
    counts = Counter(r[s.STATUS] for r in current)
    return {"documents_active": counts[s.STATUS_ACTIVE], "documents_deleted": counts[s.STATUS_DELETED],
            "documents_quarantined": counts[s.STATUS_QUARANTINED], "chunks": chunks.num_rows}


def committed(ctx: RunContext) -> bool:
    """The run's commit has happened (a resumed run then only has its index stages left)."""
    return (ctx.paths.run_dir(ctx.run_id) / "commit.json").exists()


def counts(ctx: RunContext) -> dict[str, int]:
    """The table counts the run's commit wrote (``commit.json``)."""
    return read_json(ctx.paths.run_dir(ctx.run_id) / "commit.json")


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    """Commit (idempotent: a retried commit folds the same plan into the same tables)."""
    started = time.perf_counter()
    write_json(commit(ctx), ctx.paths.run_dir(ctx.run_id) / "commit.json")
    record = StageRecord("commit", seconds=time.perf_counter() - started)
    record.save(ctx.paths, ctx.run_id)
    return record


STAGE = Stage("commit", "commit", run)
