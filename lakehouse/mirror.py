"""The local working copy and the bucket: ``pull`` before work, ``push`` after each commit, and publishing.

Every process computes in its local ``LAKERAG_HOME``; the bucket (``lakehouse.objectstore``) is the durable,
shared copy of ``raw/``, ``tables/``, ``cache/``, ``runs/`` and ``snapshots/``. What the two sides agreed on last
is kept in ``$LAKERAG_HOME/.objectstore.json`` (path -> size, mtime, ETag), so:

* ``pull`` downloads what the home lacks or holds with other bytes (the bucket wins: it holds what was
  committed), and removes a local file it had synced that the bucket no longer holds (another machine's gc or
  erasure); it then sets the local ``CURRENT`` to the bucket's pointer;
* ``push`` uploads what changed here since the last sync (new, or other bytes than synced), and deletes from the
  bucket what it had synced that the home no longer holds (this home's gc, erasure or snapshot pruning) -- never
  a file of the snapshot the bucket's pointer names, nor anything it never saw (another publisher's snapshot
  objects), nor an object another machine has replaced since. A file unchanged here that the bucket holds with
  other bytes, or no longer holds, was replaced or removed by another machine since this one pulled (a task on
  another worker): it is left alone, so a push never reverts another worker's commit or resurrects its deletion;
* ``publish`` pushes the snapshot's objects first, then moves the bucket's pointer with a conditional PUT on the
  ETag read at the last pull: only then is the local ``CURRENT`` written.

Hidden names (``.*``: temporary files, staging folders, the lock) are never synced."""

from __future__ import annotations

import fcntl
import functools
import hashlib
import logging
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from lakehouse.objectstore import MANAGED, POINTER, ObjectStore, StoreError, store_of
from lakehouse.paths import LakePaths
from lakehouse.storage import read_json, write_json

log = logging.getLogger(__name__)
STATE, SYNC_LOCK = ".objectstore.json", ".objectstore.lock"
_UNREAD = "unread"
F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def _sync_lock(paths: LakePaths) -> Iterator[dict]:
    """One sync at a time per home (tasks on one machine share it); yields the state, saved on exit."""
    paths.home.mkdir(parents=True, exist_ok=True)
    fd = os.open(paths.home / SYNC_LOCK, os.O_CREAT | os.O_RDWR, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        state_file = paths.home / STATE
        state = read_json(state_file) if state_file.exists() else {"files": {}, "pointer_etag": _UNREAD}
        yield state
        write_json(state, state_file)
    finally:
        os.close(fd)


def _local_files(paths: LakePaths) -> dict[str, Path]:
    found = {}
    for folder in MANAGED:
        root = paths.home / folder
        for path in root.rglob("*") if root.exists() else []:
            rel = path.relative_to(paths.home).as_posix()
            if path.is_file() and rel != POINTER and not any(p.startswith(".") for p in rel.split("/")):
                found[rel] = path
    return found


def _etag(path: Path, known: list | None) -> str:
    """The file's MD5 (an object's ETag), from the state when size and mtime are unchanged since the sync."""
    stat = path.stat()
    if known and known[0] == stat.st_size and known[1] == stat.st_mtime_ns:
        return known[2]
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _remove_empty(folder: Path, home: Path) -> None:
    """Remove ``folder`` and its parents up to a managed folder while they are empty (a snapshot pruned elsewhere
    leaves no empty ``snapshots/<id>/`` behind)."""
    while folder.parent != home and folder.exists() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _entry(path: Path, etag: str) -> list:
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns, etag]


def pull(store: ObjectStore, paths: LakePaths) -> Counter[str]:
    """Bring the home up to the bucket (see the module's docstring); returns counts."""
    counts: Counter[str] = Counter()
    with _sync_lock(paths) as state:
        known: dict[str, list] = state["files"]
        remote = store.listing()
        for rel, (_, etag) in sorted(remote.items()):
            path = paths.home / rel
            if rel == POINTER or any(p.startswith(".") for p in rel.split("/")):
                continue
            if not (path.exists() and _etag(path, known.get(rel)) == etag):
                store.download(rel, path)
                counts["downloaded"] += 1
            known[rel] = _entry(path, etag)
        for rel in [r for r in known if r not in remote]:
            path = paths.home / rel
            if path.exists() and _entry(path, known[rel][2]) == known[rel]:  # unchanged here since synced
                path.unlink()
                counts["removed"] += 1
                _remove_empty(path.parent, paths.home)
            known.pop(rel)
        pointer = store.read_pointer()
        state["pointer_etag"] = pointer.etag
        current = paths.snapshots / "CURRENT"
        if pointer.data is not None and (not current.exists() or read_json(current)["id"] != pointer.data["id"]):
            write_json(pointer.data, current)
    return counts


def push(store: ObjectStore, paths: LakePaths) -> Counter[str]:
    """Bring the bucket up to the home (see the module's docstring); returns counts."""
    counts: Counter[str] = Counter()
    with _sync_lock(paths) as state:
        known: dict[str, list] = state["files"]
        remote = store.listing()
        local = _local_files(paths)
        synced = {}
        for rel, path in sorted(local.items()):
            etag = _etag(path, known.get(rel))
            there = remote.get(rel, (None, None))[1]
            if there == etag:
                synced[rel] = _entry(path, etag)
            elif rel in known and known[rel][2] == etag:  # unchanged here: another machine replaced or removed it
                synced[rel] = known[rel]  # left for the next pull, which brings the bucket's version
                counts["newer_in_bucket"] += 1
            else:
                synced[rel] = _entry(path, store.upload(path, rel))
                counts["uploaded"] += 1
        served = store.read_pointer().data
        needed = f"snapshots/{served['id']}/" if served else None
        gone = [rel for rel in known if rel not in local and remote.get(rel, (None, None))[1] == known[rel][2]
                and not (needed and rel.startswith(needed))]
        counts["deleted"] += store.delete(gone) if gone else 0
        state["files"] = synced
    return counts


def publish(store: ObjectStore, paths: LakePaths, snapshot_id: str) -> None:
    """Snapshot objects first, then the bucket's pointer by a conditional PUT on the ETag of the last pull
    (read now when this home never pulled). Raises ``PublishConflict`` when another publisher won."""
    push(store, paths)
    with _sync_lock(paths) as state:
        expected = state["pointer_etag"]
        if expected == _UNREAD:
            expected = store.read_pointer().etag
        state["pointer_etag"] = store.swap_pointer(snapshot_id, expected).etag


@contextmanager
def mirrored(store: ObjectStore | None, paths: LakePaths) -> Iterator[None]:
    """Pull before the body and push after it succeeds; nothing without a store, and nothing again inside an
    enclosing ``mirrored`` of the same home (a command that calls another synced function)."""
    key = str(paths.home)
    if store is None or key in _ACTIVE:
        yield
        return
    _ACTIVE.add(key)
    try:
        log.info("pulled %s into %s: %s", store.url(), paths.home, dict(pull(store, paths)))
        yield
        log.info("pushed %s to %s: %s", paths.home, store.url(), dict(push(store, paths)))
    finally:
        _ACTIVE.discard(key)


_ACTIVE: set[str] = set()


def synced(function: F) -> F:
    """Decorate a function whose first argument is the Settings: with ``LAKERAG_STORE`` set, it runs between
    a pull and a push (an Airflow task on any worker then starts from, and commits to, the bucket)."""
    @functools.wraps(function)
    def wrapper(settings: Any, *args: Any, **kwargs: Any) -> Any:
        with mirrored(store_of(settings), LakePaths(settings.home)):
            return function(settings, *args, **kwargs)
    return wrapper  # type: ignore[return-value]


def fetch_snapshot(store: ObjectStore, paths: LakePaths, snapshot_id: str) -> Path:
    """A read-only local copy of one snapshot of the bucket (the API's): downloaded under a hidden name, then
    renamed into ``snapshots/<id>/``, so it is complete or absent. Returns its folder."""
    target = paths.snapshots / snapshot_id
    if (target / "manifest.json").exists():
        return target
    rels = sorted(store.listing([f"snapshots/{snapshot_id}"]))
    if f"snapshots/{snapshot_id}/manifest.json" not in rels:
        raise StoreError(f"{store.url(f'snapshots/{snapshot_id}')}: no such snapshot (no manifest.json)")
    paths.snapshots.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{snapshot_id}.", suffix=".tmp", dir=paths.snapshots))
    try:
        for rel in rels:
            local = staging / rel.removeprefix(f"snapshots/{snapshot_id}/")
            store.download(rel, local)
            local.chmod(0o444)
        os.replace(staging, target)
    except OSError:
        if not (target / "manifest.json").exists():  # not another process's copy, renamed in first
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
