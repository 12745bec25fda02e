"""``discover``: scan the source, compare it with the manifest and write the run's plan (which documents are
new, changed, moved, deleted, unchanged or quarantined, and the batches of those with work to do)."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from lakehouse import schemas as s
from lakehouse.runs import StageRecord
from lakehouse.storage import read_table, write_json, write_table
from transforms.detection import ContainerLimits
from transforms.discovery import scan_source
from transforms.folders import load_folder_config
from transforms.planning import plan_changes
from transforms.stages.base import Stage
from transforms.stages.context import RunContext

log = logging.getLogger(__name__)


def run(ctx: RunContext, batch: int | None = None) -> StageRecord:
    """Write the plan; ``ctx.batches()`` then lists the batches the batched stages process."""
    started = time.perf_counter()
    paths = ctx.paths.ensure()
    write_json({"run_id": ctx.run_id, "source": str(ctx.settings.source),
                "started_at": datetime.now(UTC).isoformat()},
               paths.run_dir(ctx.run_id) / "started.json")
    config = load_folder_config(ctx.settings.folders_config_path())
    documents = read_table(paths.table("documents"), s.DOCUMENTS)
    current = documents.filter(documents["is_current"]).to_pylist()
    known = {r[s.PATH]: (r[s.FILE_IDENTITY], r[s.CONTENT_HASH])
             for r in current if r[s.CONTENT_HASH] and r[s.FILE_IDENTITY] and r[s.STATUS] != s.STATUS_DELETED}
    ingest = ctx.settings.ingest
    limits = ContainerLimits(ingest.max_unzipped_bytes, ingest.max_zip_members, ingest.max_zip_ratio)
    hidden: list[str] = []
    entries = scan_source(ctx.settings.source, known, ingest.max_file_bytes, follow_symlinks=ingest.follow_symlinks,
                          limits=limits, hidden=hidden)
    kept = [e for e in entries if ctx.blocklist.kind(e.content_hash) != "erased"]
    if len(kept) < len(entries):
        log.info("%d files skipped: their content was erased (lakerag erase)", len(entries) - len(kept))
    entries = kept
    plan = plan_changes(entries, documents, config, ctx.settings.ingest.batch_size, ctx.needs_work)
    write_table(plan, paths.plan(ctx.run_id))
    warnings = [*unreadable_warnings(plan, config), *group_changes(plan, current), *hard_links(entries),
                *_hidden(hidden)]
    record = StageRecord("discover", processed=len(entries), seconds=time.perf_counter() - started,
                         errors=warnings)
    for warning in record.errors:
        log.warning("%s", warning)
    record.save(paths, ctx.run_id)
    return record


def unreadable_warnings(plan, config) -> list[str]:
    """Documents that would be indexed but that no caller can read: no groups at all (``groups: []``), or only
    groups that appear nowhere in the folder configuration (a typo in a sidecar)."""
    known = set(config.default_groups) | {g for rule in config.access for g in rule.value} | {s.PUBLIC}
    out = []
    for row in plan.to_pylist():
        if row["action"] in ("deleted", "quarantined"):
            continue
        groups = row[s.ACCESS_GROUPS] or []
        if not groups:
            out.append(f"{row[s.PATH]}: readable by nobody (its access groups are empty)")
        elif not set(groups) & known:
            out.append(f"{row[s.PATH]}: groups {', '.join(groups)} appear in no rule of the folder configuration "
                       f"({config.origin}); check the sidecar for a typo")
    return out


def group_changes(plan, current: list[dict]) -> list[str]:
    """Every change of a document's access groups, so a widening (a sidecar removed, a file moved out of a
    restricted folder) is on the run record and in the log, not only in the tables."""
    before = {r[s.DOCUMENT_ID]: sorted(r[s.ACCESS_GROUPS] or []) for r in current if r[s.STATUS] != s.STATUS_DELETED}
    out = []
    for row in plan.to_pylist():
        old, new = before.get(row[s.DOCUMENT_ID]), sorted(row[s.ACCESS_GROUPS] or [])
        if old is not None and row["action"] not in ("deleted", "quarantined") and old != new:
            out.append(f"{row[s.PATH]}: access groups changed from [{', '.join(old)}] to [{', '.join(new)}]")
    return out


def hard_links(entries) -> list[str]:
    """Files with several hard links: the same bytes may also sit under a folder with other groups, and this
    path's groups are the ones applied (docs/operations.md, 'Access groups')."""
    return [f"{e.relpath}: {e.hard_links} hard links; its groups come from this path, whatever folder the other "
            "links are in" for e in entries if e.error is None and e.hard_links > 1]


def _hidden(paths: list[str], shown: int = 5) -> list[str]:
    if not paths:
        return []
    more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
    return [f"{len(paths)} hidden files or folders skipped (names starting with '.'): "
            f"{', '.join(paths[:shown])}{more}"]


STAGE = Stage("discover", "plan", run)
