"""``lakerag gc``: purge what was retired more than ``LAKERAG_RETENTION_DAYS`` ago.

* Document versions: a deleted document, or a version superseded by a newer one, is retired by the run that
  noticed it. Past retention its tombstone row leaves the ``documents`` table and, once no retained table
  references its content hash, its raw bytes, extraction, chunk drafts and failure markers go too.
* Snapshots: a snapshot is kept only while everything it holds is within retention. One superseded longer
  ago, or holding a purged version, is dropped; if the published one holds a purged version, the tables are
  indexed again into a new snapshot that is published first (nothing published is edited in place).
* Run folders and ``runs`` rows started before the cutoff (the latest finished run always stays), and the
  remaining records redacted of purged paths and ids.
* Caches: rows and entries nothing retained uses (see ``transforms.purge.caches``)."""

from __future__ import annotations

import time
from collections import Counter
from datetime import UTC, datetime, timedelta

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lakehouse import schemas as s
from lakehouse.erasures import append_receipt
from lakehouse.mirror import synced
from lakehouse.paths import LakePaths
from lakehouse.purge import Matcher, remove
from lakehouse.runs import home_lock
from lakehouse.settings import Settings
from lakehouse.snapshots import current_id, drop, finish_drops, list_snapshots, read_manifest, snapshot_tables
from lakehouse.storage import read_json, read_table, write_table
from lakehouse.sweep import sweep
from transforms.purge import caches
from transforms.purge.maintenance import refuse_if_busy, remove_interrupted_writes, republish

Version = tuple[str, str | None]


def _run_time(run_id: str) -> datetime:
    return datetime.strptime(run_id.split("_")[1], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)


def _versions(path) -> set[Version]:
    if not path.exists():
        return set()
    table = pq.read_table(path, columns=[s.DOCUMENT_ID, s.CONTENT_HASH])
    return set(zip(table[s.DOCUMENT_ID].to_pylist(), table[s.CONTENT_HASH].to_pylist(), strict=True))


def _ingesting(folder) -> bool:
    """A run that scanned the source (maintenance runs retire nothing)."""
    started = folder / "started.json"
    return started.exists() and not read_json(started).get("maintenance")


def retired_versions(paths: LakePaths, cutoff: datetime) -> list[dict]:
    """Rows of ``documents`` retired (deleted or superseded) by a run that started before ``cutoff``."""
    run_ids = sorted(d.name for d in paths.runs.glob("run_*") if _ingesting(d)) if paths.runs.exists() else []
    out = []
    for row in read_table(paths.table("documents"), s.DOCUMENTS).to_pylist():
        if row["is_current"] and row[s.STATUS] != s.STATUS_DELETED:
            continue
        retiring = next((r for r in run_ids if r > row["last_seen_run"]), None)
        if retiring is not None and _run_time(retiring) <= cutoff:
            out.append(row)
    return out


def _interrupted_purge(paths: LakePaths, known: set[Version]) -> list[dict]:
    """Versions a snapshot holds that the ``documents`` table no longer does: a gc killed after it rewrote the
    table (only gc and erasure remove rows, and both drop every snapshot holding what they removed before they
    end). They are purged again like the retired versions, so the rerun republishes, drops those snapshots,
    sweeps the run records and removes the content as the interrupted gc would have."""
    table = _versions(paths.table("documents"))
    found: dict[Version, dict] = {}
    for snap in list_snapshots(paths):
        path = snapshot_tables(paths, snap["id"]) / "documents.parquet"
        if not path.exists():
            continue
        for row in pq.read_table(path, columns=[s.DOCUMENT_ID, s.CONTENT_HASH, s.PATH]).to_pylist():
            version = (row[s.DOCUMENT_ID], row[s.CONTENT_HASH])
            if version not in table and version not in known:
                found.setdefault(version, row)
    return list(found.values())


def _drop_versions(paths: LakePaths, doomed: set[Version]) -> int:
    table = read_table(paths.table("documents"), s.DOCUMENTS)
    keep = [(d, h) not in doomed for d, h in zip(table[s.DOCUMENT_ID].to_pylist(),
                                                table[s.CONTENT_HASH].to_pylist(), strict=True)]
    write_table(table.filter(pa.array(keep)), paths.table("documents"))
    return keep.count(False)


def _retired_snapshots(paths: LakePaths, cutoff: datetime, doomed: set[Version]) -> list[str]:
    snapshots, current = list_snapshots(paths), current_id(paths)
    published_at = datetime.fromisoformat(read_json(paths.snapshots / "CURRENT")["published_at"])
    out = []
    for i, snap in enumerate(snapshots):
        if snap["id"] == current:
            continue
        created = datetime.fromisoformat(snap["created_at"])
        later = snapshots[i + 1]["created_at"] if i + 1 < len(snapshots) else None
        retired = min(datetime.fromisoformat(later), published_at) if later else published_at
        if created > published_at:  # a candidate frozen after the last publish: the gate has yet to decide
            retired = datetime.max.replace(tzinfo=UTC)
        if retired <= cutoff or _versions(snapshot_tables(paths, snap["id"]) / "documents.parquet") & doomed:
            out.append(snap["id"])
    return out


def _old_runs(paths: LakePaths, cutoff: datetime, keep: set[str]) -> Counter[str]:
    removed: Counter[str] = Counter()
    for folder in sorted(paths.runs.glob("run_*")) if paths.runs.exists() else []:
        if folder.name not in keep and _run_time(folder.name) <= cutoff and (folder / "run.json").exists():
            removed["run_folders"] += remove(folder)
    runs = read_table(paths.table("runs"), s.RUNS)
    old = pc.and_(pc.less_equal(runs["started_at"], pa.scalar(cutoff, runs.schema.field("started_at").type)),
                  pc.invert(pc.is_in(runs[s.RUN_ID], pa.array(sorted(keep), pa.string()))))
    if (gone := int(pc.sum(old).as_py() or 0)) > 0:
        write_table(runs.filter(pc.invert(old)), paths.table("runs"))
        removed["run_rows"] += gone
    return removed


@synced
def collect_garbage(settings: Settings, now: datetime | None = None, requested_by: str = "gc") -> dict:
    """Purge everything retired before now minus the retention; returns the receipt (also appended)."""
    started = time.perf_counter()
    paths = LakePaths(settings.home)
    cutoff = (now or datetime.now(UTC)) - timedelta(days=settings.orchestration.retention_days)
    removed: Counter[str] = Counter()
    published = None
    with home_lock(paths):
        refuse_if_busy(paths)
        removed["interrupted_drops"] += finish_drops(paths)  # a crash mid-drop left data aside: finish it first
        removed["interrupted_writes"] += remove_interrupted_writes(paths)  # and a crash mid-write, half a file
        rows = retired_versions(paths, cutoff)
        rows += _interrupted_purge(paths, {(r[s.DOCUMENT_ID], r[s.CONTENT_HASH]) for r in rows})
        doomed = {(r[s.DOCUMENT_ID], r[s.CONTENT_HASH]) for r in rows}
        if doomed:
            removed["document_versions"] += _drop_versions(paths, doomed)
        current = current_id(paths)
        if current and _versions(snapshot_tables(paths, current) / "documents.parquet") & doomed:
            _, published = republish(settings)
        kept = {h for _, h in _versions(paths.table("documents"))}
        gone_ids = {d for d, _ in doomed} - {d for d, _ in _versions(paths.table("documents"))}
        purged = Matcher([*gone_ids, *({h for _, h in doomed if h} - kept),
                          *{r[s.PATH] for r in rows if r[s.DOCUMENT_ID] in gone_ids}])
        if purged:  # before the snapshots holding the purged versions go: a rerun after a crash finds them there
            records = sweep(paths.runs, purged, record=True) + sweep(paths.table("runs"), purged, record=True)
            removed["run_record_values"] += records["values"]
        if current_id(paths):
            for snapshot_id in _retired_snapshots(paths, cutoff, doomed):
                removed["snapshots"] += drop(paths, snapshot_id)
        keep = {*read_manifest(paths, current_id(paths)).get("source_run_ids", [])} if current_id(paths) else set()
        last = read_table(paths.table("runs"), s.RUNS)
        keep.update(last.sort_by([("finished_at", "descending")])[s.RUN_ID].to_pylist()[:1])
        removed.update(_old_runs(paths, cutoff, keep))
        removed["content_files"] += sum(remove(p) for p in caches.orphans(paths, caches.referenced_hashes(paths)))
        removed.update({f"cache_{k}": v for k, v in caches.prune_keyed(paths, settings).items()})
        removed.update({f"cache_{k}": v for k, v in caches.expire_requests(
            paths, settings.orchestration.retention_days * 86400).items()})
    return append_receipt(paths, {
        "action": "gc", "requested_by": requested_by, "retention_days": settings.orchestration.retention_days,
        "cutoff": cutoff.isoformat(), "removed": {k: v for k, v in sorted(removed.items()) if v},
        "snapshot_published": published, "seconds": round(time.perf_counter() - started, 2)})
