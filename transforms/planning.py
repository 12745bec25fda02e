"""Compare a scan with the manifest: new, changed, moved, deleted, unchanged and quarantined files."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pyarrow as pa

from lakehouse import schemas as s
from lakehouse.errors import ConfigError
from lakehouse.ids import document_id_for
from transforms.discovery import ScanEntry
from transforms.folders import FolderConfig

NO_BATCH = -1


@dataclass
class _Row:
    document_id: str
    entry: ScanEntry | None
    action: str
    previous: dict | None = None
    reason: str | None = None


def _assign_new_id(relpath: str, taken: set[str]) -> str:
    salt = 0
    while (doc_id := document_id_for(relpath, salt)) in taken:
        salt += 1
    taken.add(doc_id)
    return doc_id


def _classify(entries: list[ScanEntry], current: list[dict], taken: set[str]) -> list[_Row]:
    by_path = {row[s.PATH]: row for row in current}
    rows: list[_Row] = []
    fresh: list[ScanEntry] = []
    claimed: set[str] = set()  # a path's document goes to the first file of that name, never to its twin
    for entry in entries:
        prev = None if entry.relpath in claimed else by_path.get(entry.relpath)
        claimed.add(entry.relpath)
        if prev is None:
            fresh.append(entry)
        elif entry.error is not None:
            rows.append(_Row(prev[s.DOCUMENT_ID], entry, "quarantined", prev, entry.error.reason))
        elif prev[s.STATUS] == s.STATUS_DELETED:
            rows.append(_Row(prev[s.DOCUMENT_ID], entry, "new", prev))
        elif prev[s.CONTENT_HASH] == entry.content_hash:
            rows.append(_Row(prev[s.DOCUMENT_ID], entry, "unchanged", prev))
        else:
            rows.append(_Row(prev[s.DOCUMENT_ID], entry, "changed", prev))
    seen = {entry.relpath for entry in entries}
    gone = [r for r in current if r[s.PATH] not in seen and r[s.STATUS] != s.STATUS_DELETED]
    gone_by_hash: dict[str, list[dict]] = {}
    for row in gone:
        if row[s.CONTENT_HASH]:
            gone_by_hash.setdefault(row[s.CONTENT_HASH], []).append(row)
    moved_ids: set[str] = set()
    for entry in fresh:
        if entry.error is not None:
            rows.append(_Row(_assign_new_id(entry.relpath, taken), entry, "quarantined", None, entry.error.reason))
        elif candidates := gone_by_hash.get(entry.content_hash or ""):
            prev = candidates.pop(0)
            moved_ids.add(prev[s.DOCUMENT_ID])
            rows.append(_Row(prev[s.DOCUMENT_ID], entry, "moved", prev))
        else:
            rows.append(_Row(_assign_new_id(entry.relpath, taken), entry, "new"))
    rows.extend(_Row(r[s.DOCUMENT_ID], None, "deleted", r) for r in gone if r[s.DOCUMENT_ID] not in moved_ids)
    return rows


def plan_changes(
    entries: list[ScanEntry],
    documents: pa.Table,
    config: FolderConfig,
    batch_size: int,
    needs_work: Callable[[str], bool],
) -> pa.Table:
    """The run's plan (schema ``PLAN``): one row per path; hashes that need work get a batch number."""
    current = documents.filter(documents["is_current"]).to_pylist()
    taken = {row[s.DOCUMENT_ID] for row in documents.select([s.DOCUMENT_ID]).to_pylist()}
    rows = _classify(entries, current, taken)
    work = sorted({r.entry.content_hash for r in rows if r.entry and r.entry.content_hash
                   and r.action != "quarantined" and needs_work(r.entry.content_hash)})
    batch_of = {digest: index // batch_size for index, digest in enumerate(work)}
    records = []
    for row in sorted(rows, key=lambda r: (r.entry.relpath if r.entry else r.previous[s.PATH])):
        entry, prev = row.entry, row.previous
        if entry is None:  # deleted: keep what the manifest knew
            records.append({**{k: prev[k] for k in (s.DOCUMENT_ID, s.CONTENT_HASH, s.PATH, "size_bytes",
                                                      "modified_at", "detected_type", s.DOC_TYPE,
                                                      s.ACCESS_GROUPS)},
                            "previous_path": None, "action": "deleted", "reason": None, "batch": NO_BATCH})
            continue
        action, reason = row.action, row.reason
        try:
            groups = list(config.groups_for(entry.acl_relpath, entry.sidecar))
        except ConfigError as exc:  # a broken sidecar: fail closed, quarantine the document
            groups, action, reason = [], "quarantined", str(exc)
        records.append({
            s.DOCUMENT_ID: row.document_id,
            s.CONTENT_HASH: entry.content_hash,
            s.PATH: entry.relpath,
            "previous_path": prev[s.PATH] if prev and row.action == "moved" else None,
            "size_bytes": entry.size,
            "modified_at": entry.modified_at,
            "detected_type": entry.detected_type,
            s.DOC_TYPE: config.doc_type_for(entry.relpath),
            s.ACCESS_GROUPS: groups,
            s.FILE_IDENTITY: entry.file_identity,
            "action": action,
            "reason": reason,
            "batch": NO_BATCH if action == "quarantined" else batch_of.get(entry.content_hash or "", NO_BATCH),
        })
    return pa.Table.from_pylist(records, schema=s.PLAN)
