"""Atomic writes: every file is written under a temporary name in its folder, then renamed into place."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq


@contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """Yield a temporary path next to ``target``; on success it replaces ``target`` atomically."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def remove_strays(root: Path) -> int:
    """Remove what writers killed mid-write left under ``root``: hidden ``.*.tmp`` files and folders (the
    temporary files of ``atomic_path``, the staging folders of versioned tables and snapshots), and a folder the
    removal leaves empty. Only for folders whose every writer holds the home lock, called under it (gc, erasure):
    nothing can be writing them then. Returns how many were removed."""
    found = sorted(root.rglob(".*.tmp"), key=lambda p: len(p.parts), reverse=True) if root.exists() else []
    for stray in found:
        if stray.is_dir() and not stray.is_symlink():
            shutil.rmtree(stray, ignore_errors=True)
        else:
            stray.unlink(missing_ok=True)
        parent = stray.parent
        if parent != root and parent.exists() and not any(parent.iterdir()):
            parent.rmdir()
    return len(found)


def write_table(table: pa.Table, target: Path) -> Path:
    with atomic_path(target) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return target


def read_table(path: Path, schema: pa.Schema | None = None) -> pa.Table:
    """Read a Parquet file; a missing file reads as an empty table of ``schema``. A file written before a
    nullable column of ``schema`` existed (a lakehouse from an older lakerag) reads with nulls in that column;
    columns ``schema`` does not know are left out."""
    if not path.exists():
        if schema is None:
            raise FileNotFoundError(path)
        return schema.empty_table()
    table = pq.read_table(path)
    if schema is None:
        return table
    for f in schema:
        if f.name in table.column_names:
            continue
        if not f.nullable:
            raise ValueError(f"{path}: column {f.name!r} is missing and has no default; the file was written by "
                             "another lakerag version: rebuild it (the lakerag_rebuild DAG)")
        table = table.append_column(f, pa.nulls(table.num_rows, f.type))
    return table.select(schema.names).cast(schema)


def write_json(data: Any, target: Path) -> Path:
    with atomic_path(target) as tmp:
        tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
    return target


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


class BlobMismatch(Exception):
    """The bytes read do not have the expected hash (the file changed while being copied)."""


def store_blob(source: Path, target: Path, expected_sha256: str) -> bool:
    """Copy ``source`` to its content-addressed ``target`` unless already there; True if copied.
    Raises BlobMismatch (and stores nothing) when the copied bytes do not hash to ``expected_sha256``."""
    if target.exists():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        shutil.copyfile(source, tmp)
        digest = hashlib.sha256(tmp.read_bytes()).hexdigest()
        if digest != expected_sha256:
            raise BlobMismatch(f"{source}: expected sha256 {expected_sha256[:12]}, read {digest[:12]}")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return True


def versioned_dir(tables: Path, name: str) -> Path | None:
    """The folder ``tables/<name>.json`` points to, or None when nothing has been published under ``name``."""
    pointer = tables / f"{name}.json"
    return tables / read_json(pointer)["dir"] if pointer.exists() else None


def publish_versioned(tables: Path, name: str, run_id: str, write: Callable[[Path], None]) -> Path:
    """The one way a multi-file table set is published: ``write(staging)`` fills a new folder, which becomes
    ``tables/<name>-<run_id>/`` by rename; then the pointer ``tables/<name>.json`` is switched atomically and
    older ``<name>-*`` folders are removed (published snapshots keep hard links to theirs). Readers follow the
    pointer, so they see the old set or the new one, never a mix. A rerun of the same run swaps folders."""
    target = tables / f"{name}-{run_id}"
    staging = tables / f".{name}-{run_id}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    write(staging)
    if target.exists():
        aside = tables / f".{name}-{run_id}.old"
        shutil.rmtree(aside, ignore_errors=True)
        os.replace(target, aside)
        os.replace(staging, target)
        shutil.rmtree(aside, ignore_errors=True)
    else:
        os.replace(staging, target)
    write_json({"dir": target.name, "run_id": run_id}, tables / f"{name}.json")
    for old in tables.glob(f"{name}-*"):
        if old.is_dir() and old != target:
            shutil.rmtree(old, ignore_errors=True)
    return target
