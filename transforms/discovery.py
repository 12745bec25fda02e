"""Scan a source folder: one entry per file, hashed (reusing the manifest's hash when size and mtime match)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from lakehouse.errors import DocumentError, SourceError
from lakehouse.ids import normalize_relpath, sha256_file
from transforms.detection import detect_type
from transforms.folders import SIDECAR_SUFFIX

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScanEntry:
    """One file found under the source folder (or a reason it cannot be read)."""

    relpath: str
    abspath: Path
    size: int | None = None
    modified_at: datetime | None = None
    content_hash: str | None = None
    detected_type: str | None = None
    error: DocumentError | None = None

    @property
    def sidecar(self) -> Path:
        return self.abspath.with_name(self.abspath.name + SIDECAR_SUFFIX)


Known = dict[str, tuple[int, datetime, str]]  # relpath -> (size, modified_at, content_hash)


def _walk(source: Path) -> Iterator[tuple[Path, DocumentError | None]]:
    """Yield files under ``source`` (following directory links) and symlink problems, never looping."""
    visited = {source.resolve()}
    for dirpath, dirnames, filenames in os.walk(source, followlinks=True):
        current = Path(dirpath)
        ancestors = {p.resolve() for p in (current, *current.parents)}
        for name in sorted(dirnames):
            child = current / name
            if name.startswith("."):
                dirnames.remove(name)
                continue
            try:
                real = child.resolve(strict=True)
            except (OSError, RuntimeError):
                dirnames.remove(name)
                yield child, DocumentError("symlink loop or broken link to a folder", stage="discover")
                continue
            if child.is_symlink() and real in ancestors:
                dirnames.remove(name)
                yield child, DocumentError(f"symlink loop: folder link points back to '{real.name}'", "discover")
                continue
            if real in visited:
                dirnames.remove(name)
                log.warning("skipping %s: folder already scanned through another link", child)
                continue
            visited.add(real)
        dirnames.sort()
        for name in sorted(filenames):
            if name.startswith(".") or name.endswith(SIDECAR_SUFFIX):
                continue
            path = current / name
            try:
                path.resolve(strict=True)
            except RuntimeError:
                yield path, DocumentError("symlink loop", stage="discover")
                continue
            except OSError:
                yield path, DocumentError("broken symlink (target missing)", stage="discover")
                continue
            yield path, None


def _entry(path: Path, relpath: str, known: Known, max_bytes: int) -> ScanEntry:
    stat = path.stat()
    modified = datetime.fromtimestamp(stat.st_mtime_ns // 1000 / 1e6, tz=UTC)
    base = ScanEntry(relpath=relpath, abspath=path, size=stat.st_size, modified_at=modified)
    if stat.st_size > max_bytes:
        reason = f"file over the size limit: {stat.st_size} bytes > {max_bytes} (LAKERAG_MAX_FILE_BYTES)"
        return _with(base, error=DocumentError(reason, stage="discover"))
    try:
        detected = detect_type(path, stat.st_size)
    except DocumentError as exc:
        return _with(base, error=exc)
    previous = known.get(relpath)
    if previous and previous[0] == stat.st_size and previous[1] == modified:
        digest = previous[2]
    else:
        digest = sha256_file(path)
    return _with(base, content_hash=digest, detected_type=detected)


def _with(entry: ScanEntry, **changes: object) -> ScanEntry:
    return ScanEntry(**{**entry.__dict__, **changes})


def scan_source(source: Path, known: Known, max_bytes: int) -> list[ScanEntry]:
    """Every file under ``source`` with its hash and type, or the reason it must be quarantined."""
    if not source.is_dir():
        raise SourceError(f"source folder not found or not a folder: {source}")
    if not os.access(source, os.R_OK | os.X_OK):
        raise SourceError(f"source folder is not readable: {source}")
    entries = []
    for path, problem in _walk(source):
        relpath = normalize_relpath(path.relative_to(source).as_posix())
        if problem is not None:
            entries.append(ScanEntry(relpath=relpath, abspath=path, error=problem))
            continue
        try:
            entries.append(_entry(path, relpath, known, max_bytes))
        except PermissionError:
            entries.append(ScanEntry(relpath, path, error=DocumentError("permission denied", "discover")))
    log.info("scanned %s: %d entries", source, len(entries))
    return entries
