"""Immutable, versioned snapshots of the serving tables, and the one pointer the API follows.

    $LAKERAG_HOME/snapshots/<id>/manifest.json   id, created_at, source run ids, model ids, counts, evaluation
    $LAKERAG_HOME/snapshots/<id>/tables/...      hard links (or copies) of the tables the API reads
    $LAKERAG_HOME/snapshots/CURRENT              {"id": ...}: switched atomically by publish/rollback

A snapshot folder is built under a temporary name and renamed into place, so it is either complete or absent."""

from __future__ import annotations

import logging
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from lakehouse.errors import LakeragError
from lakehouse.paths import LakePaths
from lakehouse.storage import read_json, write_json

if TYPE_CHECKING:
    from lakehouse.objectstore import ObjectStore

log = logging.getLogger(__name__)

SERVING_TABLES = ("documents", "extracted", "chunks", "contexts", "vectors", "quarantine", "runs", "pages",
                  "descriptions")
POINTED = ("sparse", "graph", "ann")  # folders behind <name>.json pointers (the first is required)


class SnapshotError(LakeragError):
    """A snapshot is missing, incomplete or cannot be published."""


def _root(paths: LakePaths) -> Path:
    return paths.snapshots


def _link_tree(source: Path, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for item in source.iterdir():
        if item.is_dir():
            _link_tree(item, target / item.name)
        else:
            try:
                os.link(item, target / item.name)
            except OSError:
                shutil.copy2(item, target / item.name)


def create_snapshot(paths: LakePaths, run_id: str, extra: dict | None = None) -> str:
    """Freeze the current tables into a new snapshot (not yet published); returns its id."""
    tables = paths.tables
    missing = [n for n in ("chunks", "vectors") if not paths.table(n).exists()]
    missing += [f"{n}.json" for n in POINTED[:1] if not (tables / f"{n}.json").exists()]
    if missing:
        raise SnapshotError(f"{tables}: cannot snapshot, missing {', '.join(missing)}")
    snapshot_id = "snap_" + datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    root = _root(paths)
    staging = root / f".{snapshot_id}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "tables").mkdir(parents=True)
    for name in SERVING_TABLES:
        if paths.table(name).exists():
            _link_tree_file(paths.table(name), staging / "tables" / paths.table(name).name)
    for name in POINTED:
        pointer = tables / f"{name}.json"
        if pointer.exists():
            folder = read_json(pointer)["dir"]
            _link_tree(tables / folder, staging / "tables" / folder)
            shutil.copy2(pointer, staging / "tables" / pointer.name)
    manifest = {"id": snapshot_id, "created_at": datetime.now(UTC).isoformat(), "source_run_ids": [run_id],
                **(extra or {})}
    write_json(manifest, staging / "manifest.json")
    os.replace(staging, root / snapshot_id)
    return snapshot_id


def _link_tree_file(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def list_snapshots(paths: LakePaths) -> list[dict]:
    """Manifests of complete snapshots, oldest first, with ``current`` marking the published one."""
    root = _root(paths)
    if not root.exists():
        return []
    current = current_id(paths)
    found = [read_json(d / "manifest.json") for d in sorted(root.glob("snap_*")) if (d / "manifest.json").exists()]
    return [{**m, "current": m["id"] == current} for m in found]


def current_id(paths: LakePaths) -> str | None:
    pointer = _root(paths) / "CURRENT"
    return read_json(pointer)["id"] if pointer.exists() else None


def snapshot_tables(paths: LakePaths, snapshot_id: str | None = None) -> Path:
    """The tables folder of a snapshot (the published one by default)."""
    snapshot_id = snapshot_id or current_id(paths)
    if snapshot_id is None:
        raise SnapshotError(f"{_root(paths)}: no snapshot published yet; run `lakerag index`")
    folder = _root(paths) / snapshot_id
    if not (folder / "manifest.json").exists():
        raise SnapshotError(f"snapshot {snapshot_id} not found under {_root(paths)}")
    return folder / "tables"


def publish(paths: LakePaths, snapshot_id: str, keep: int = 5, store: ObjectStore | None = None) -> None:
    """Point CURRENT at ``snapshot_id`` (one atomic rename), then prune all but the newest ``keep``. With a
    ``store``, the bucket's pointer moves first (snapshot objects, then a conditional PUT: ``lakehouse.mirror``);
    a publisher that loses there raises ``PublishConflict`` and its CURRENT stays as it was."""
    if not (_root(paths) / snapshot_id / "manifest.json").exists():
        raise SnapshotError(f"snapshot {snapshot_id} not found under {_root(paths)}")
    if store is not None:
        from lakehouse import mirror  # deferred: boto3, only with LAKERAG_STORE

        mirror.publish(store, paths, snapshot_id)
    write_json({"id": snapshot_id, "published_at": datetime.now(UTC).isoformat()}, _root(paths) / "CURRENT")
    log.info("published snapshot %s", snapshot_id)
    prune(paths, keep)
    if store is not None:
        mirror.push(store, paths)  # the pruned snapshots leave the bucket too


def prune(paths: LakePaths, keep: int) -> list[str]:
    finish_drops(paths)
    current = current_id(paths)
    ids = [m["id"] for m in list_snapshots(paths)]
    doomed = [i for i in ids[:-keep] if i != current] if keep > 0 else []
    for snapshot_id in doomed:
        shutil.rmtree(_root(paths) / snapshot_id, ignore_errors=True)
    return doomed


def rollback(paths: LakePaths, snapshot_id: str, store: ObjectStore | None = None) -> None:
    publish(paths, snapshot_id, keep=0, store=store)


def snapshot_dir(paths: LakePaths, snapshot_id: str) -> Path:
    """One snapshot's folder: ``manifest.json``, ``tables/``, and ``serving.duckdb`` once dbt has built it."""
    return _root(paths) / snapshot_id


def read_manifest(paths: LakePaths, snapshot_id: str) -> dict:
    path = snapshot_dir(paths, snapshot_id) / "manifest.json"
    if not path.exists():
        raise SnapshotError(f"snapshot {snapshot_id} not found under {_root(paths)}")
    return read_json(path)


def annotate(paths: LakePaths, snapshot_id: str, fields: dict) -> dict:
    """Add or replace top-level manifest fields (dbt results, evaluation, gate); the tables never change."""
    manifest = {**read_manifest(paths, snapshot_id), **fields, "id": snapshot_id}
    write_json(manifest, snapshot_dir(paths, snapshot_id) / "manifest.json")
    return manifest


def latest_id(paths: LakePaths) -> str | None:
    """The newest complete snapshot, published or not."""
    snapshots = list_snapshots(paths)
    return snapshots[-1]["id"] if snapshots else None


def drop(paths: LakePaths, snapshot_id: str) -> bool:
    """Delete a snapshot that is not the published one (gc and erasure); True when it was there."""
    if snapshot_id == current_id(paths):
        raise SnapshotError(f"snapshot {snapshot_id} is published; publish another before dropping it")
    folder = _root(paths) / snapshot_id
    if not folder.exists():
        return False
    os.replace(folder, _root(paths) / f".{snapshot_id}{_DROPPING}")  # gone from the list at once
    finish_drops(paths)
    return True


_DROPPING = ".drop"


def finish_drops(paths: LakePaths) -> int:
    """Remove the folders of drops that a crash interrupted (renamed aside, not yet deleted): every publish,
    prune, drop, gc and erasure finishes what an earlier one began. Returns how many were left."""
    root = _root(paths)
    left = sorted(root.glob(f".snap_*{_DROPPING}")) if root.exists() else []
    for folder in left:
        shutil.rmtree(folder)
    return len(left)
