"""Scan a source folder: one entry per file, hashed (reusing the manifest's hash only when the very same file is
there: same device, inode, size, mtime and ctime, reached by the same path).

Each file is opened once, without following any link on the way (``O_NOFOLLOW`` on every component, from a
descriptor on the source folder); its type is checked, its identity taken and its bytes hashed from that one
descriptor. A file swapped for a link between the walk and the read is refused, never read through the link: the
hash always belongs to the file whose path decides the access groups.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from stat import S_ISLNK, S_ISREG

from lakehouse.errors import DocumentError, SourceError
from lakehouse.ids import normalize_relpath, sha256_handle
from transforms.detection import ContainerLimits, detect_type
from transforms.folders import SIDECAR_SUFFIX

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScanEntry:
    """One file found under the source folder (or a reason it cannot be read).

    ``target_relpath`` is set when ``abspath`` reaches the file through a symlink (only links that resolve inside
    the source are ever taken): access groups and the sidecar come from the target, never from the link's path.
    """

    relpath: str
    abspath: Path
    size: int | None = None
    modified_at: datetime | None = None
    content_hash: str | None = None
    detected_type: str | None = None
    error: DocumentError | None = None
    target_relpath: str | None = None
    file_identity: str | None = None
    hard_links: int = 1  # st_nlink: above one, the same bytes may sit in a folder with other groups

    @property
    def acl_relpath(self) -> str:
        """The path whose prefix rules decide the access groups: the target's own path for a followed link."""
        return self.target_relpath or self.relpath

    @property
    def sidecar(self) -> Path:
        real = self.abspath.resolve() if self.target_relpath else self.abspath
        return real.with_name(real.name + SIDECAR_SUFFIX)


Known = dict[str, tuple[str, str]]  # relpath -> (file_identity, content_hash) of the manifest's current version

_CONFIG_NAMES = {".lakerag.yaml"}  # the folder configuration, read by its own loader
LEAVES_SOURCE = "symlink leaves the source folder"
NOT_FOLLOWED = "symlink not followed (LAKERAG_FOLLOW_SYMLINKS is off)"
SWAPPED = "changed while being scanned: a link took the place of a file or folder on its path (read next run)"

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
# O_NONBLOCK: a FIFO put in a file's place after the check opens at once instead of blocking the run
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | _CLOEXEC


def _inside(real: Path, root: Path) -> bool:
    return real == root or root in real.parents


def _link_problem(link: Path, root: Path, follow: bool) -> DocumentError | None:
    """Why a symlink under the source must not be taken, or None when it may be followed."""
    try:
        real = link.resolve(strict=True)
    except RuntimeError:
        return DocumentError("symlink loop", stage="discover")
    except OSError:
        return DocumentError("broken symlink (target missing)", stage="discover")
    if not _inside(real, root):
        return DocumentError(LEAVES_SOURCE, stage="discover")
    if real.is_dir() and _inside(link.parent.resolve(), real):
        return DocumentError(f"symlink loop: folder link points back to '{real.name}'", "discover")
    return None if follow else DocumentError(NOT_FOLLOWED, stage="discover")


def _walk(source: Path, follow: bool, hidden: list[str]) -> Iterator[tuple[Path, DocumentError | None]]:
    """Yield files under ``source`` and the links that must not be taken, never leaving the folder or looping.

    Symlinks (to files or folders) are taken only when ``follow`` is set and their target resolves inside the
    source; everything else is reported with the reason, so it is quarantined instead of read.
    """
    root = source.resolve()
    visited = {root}
    for dirpath, dirnames, filenames in os.walk(source, followlinks=follow):
        current = Path(dirpath)
        for name in sorted(dirnames):
            child = current / name
            if name.startswith("."):
                dirnames.remove(name)
                hidden.append((child.relative_to(source) / "").as_posix())
                continue
            if child.is_symlink():
                problem = _link_problem(child, root, follow)
                if problem is not None:
                    dirnames.remove(name)
                    yield child, problem
                    continue
            real = child.resolve()
            if real in visited:
                dirnames.remove(name)
                log.warning("skipping %s: folder already scanned through another link", child)
                continue
            visited.add(real)
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(SIDECAR_SUFFIX) or (current == source and name in _CONFIG_NAMES):
                continue
            if name.startswith("."):
                hidden.append((current / name).relative_to(source).as_posix())
                continue
            path = current / name
            if path.is_symlink() or not _inside(path.parent.resolve(), root):
                problem = _link_problem(path, root, follow)
                if problem is not None:
                    yield path, problem
                    continue
            yield path, None


def open_beneath(root: Path, parts: tuple[str, ...]) -> int:
    """A descriptor on ``root/parts...``, opened without following a link at any component (raises OSError:
    ``ELOOP`` or ``ENOTDIR`` when a component is a link). ``root`` itself is the configured source folder."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        for part in parts[:-1]:
            inner = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = inner
        return os.open(parts[-1], _FILE_FLAGS, dir_fd=fd)
    finally:
        os.close(fd)


def file_identity(stat: os.stat_result, opened: str) -> str:
    """What must match for a stored hash to be reused: the same inode on the same device, unchanged (size,
    mtime and ctime: ``os.utime`` can set mtime back, never ctime), reached by the same path. Hashed, so no path
    (nor a name in it) is stored."""
    key = f"{stat.st_dev}:{stat.st_ino}:{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ctime_ns}:{opened}"
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _entry(path: Path, relpath: str, known: Known, max_bytes: int, source: Path, follow: bool,
           limits: ContainerLimits) -> ScanEntry:
    root = source.resolve()
    if follow:  # a followed link is read at its target, whose path gives the groups
        try:
            parts = path.resolve(strict=True).relative_to(root).parts
        except ValueError:  # the walk never yields such a file; refuse rather than read outside the boundary
            return ScanEntry(relpath, path, error=DocumentError(LEAVES_SOURCE, stage="discover"))
        opened_at = root
    else:
        parts, opened_at = path.relative_to(source).parts, source
    target = display_relpath(PurePosixPath(*parts).as_posix())
    before = os.stat(opened_at.joinpath(*parts), follow_symlinks=False)
    if not S_ISREG(before.st_mode):  # a FIFO, device or socket (or a link swapped in): never opened
        return ScanEntry(relpath, path, error=DocumentError(
            SWAPPED if S_ISLNK(before.st_mode) else "not a regular file (FIFO, device or socket)", stage="discover"))
    try:
        fd = open_beneath(opened_at, parts)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            return ScanEntry(relpath, path, error=DocumentError(SWAPPED, stage="discover"))
        raise
    with os.fdopen(fd, "rb") as handle:
        stat = os.fstat(handle.fileno())
        modified = datetime.fromtimestamp(stat.st_mtime_ns // 1000 / 1e6, tz=UTC)
        base = ScanEntry(relpath=relpath, abspath=path, size=stat.st_size, modified_at=modified,
                         target_relpath=target if target != relpath else None)
        if not S_ISREG(stat.st_mode):  # swapped for a FIFO or device after the check: opened, never read
            return _with(base, error=DocumentError("not a regular file (FIFO, device or socket)", stage="discover"))
        if stat.st_size > max_bytes:
            reason = f"file over the size limit: {stat.st_size} bytes > {max_bytes} (LAKERAG_MAX_FILE_BYTES)"
            return _with(base, error=DocumentError(reason, stage="discover"))
        try:
            detected = detect_type(path, stat.st_size, limits, handle)
        except DocumentError as exc:
            return _with(base, error=exc)
        identity = file_identity(stat, target)
        previous = known.get(relpath)
        digest = previous[1] if previous and previous[0] == identity else sha256_handle(handle)
        return _with(base, content_hash=digest, detected_type=detected, file_identity=identity,
                     hard_links=stat.st_nlink)


def _with(entry: ScanEntry, **changes: object) -> ScanEntry:
    return ScanEntry(**{**entry.__dict__, **changes})


def display_relpath(relpath: str) -> str:
    """A relative path as tables store it: NFC, with the bytes of a name that is not valid UTF-8 (as Latin-1
    systems write them) shown as U+FFFD. ``locate`` finds the file on disk again from this form."""
    return normalize_relpath(os.fsencode(relpath).decode("utf-8", "replace"))


def locate(source: Path, relpath: str) -> list[Path]:
    """The files under ``source`` whose stored path is ``relpath``: the bytes on disk are opened as they are
    (a macOS NFD name, or a Latin-1 one), while tables compare paths in one normal form. Several when names
    differ only in normal form (NFC/NFD twins); the caller keeps the one whose bytes have the planned hash."""
    found = [source]
    for part in PurePosixPath(relpath).parts:
        found = [folder / name for folder in found for name in _names(folder) if display_relpath(name) == part]
    direct = source / PurePosixPath(relpath)
    return sorted(found, key=lambda p: p != direct)


def _names(folder: Path) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


def _twins(entries: list[ScanEntry]) -> list[ScanEntry]:
    """Quarantine all but the first of several files whose names differ only in Unicode normal form or in
    undecodable bytes: they would share one path (and one document) in the tables."""
    first: dict[str, ScanEntry] = {}
    out = []
    for entry in entries:
        if entry.relpath in first and entry.error is None:
            kept, mine = first[entry.relpath].abspath.name, entry.abspath.name
            reason = (f"same name as another file once normalised (NFC/NFD twins or undecodable bytes): "
                      f"{ascii(mine)} is not ingested, {ascii(kept)} is")
            entry = ScanEntry(entry.relpath, entry.abspath, error=DocumentError(reason, stage="discover"))
        first.setdefault(entry.relpath, entry)
        out.append(entry)
    return out


def scan_source(source: Path, known: Known, max_bytes: int, follow_symlinks: bool = False,
                limits: ContainerLimits | None = None, hidden: list[str] | None = None) -> list[ScanEntry]:
    """Every file under ``source`` with its hash and type, or the reason it must be quarantined.

    The source folder is a permission boundary: nothing outside it is read, whatever links point there.
    Hidden files and folders (a name starting with '.') are never read; their paths are appended to ``hidden``.
    """
    if not source.is_dir():
        raise SourceError(f"source folder not found or not a folder: {source}")
    if not os.access(source, os.R_OK | os.X_OK):
        raise SourceError(f"source folder is not readable: {source}")
    entries = []
    limits = limits or ContainerLimits()
    for path, problem in _walk(source, follow_symlinks, hidden if hidden is not None else []):
        relpath = display_relpath(path.relative_to(source).as_posix())
        if problem is not None:
            entries.append(ScanEntry(relpath=relpath, abspath=path, error=problem))
            continue
        try:
            entries.append(_entry(path, relpath, known, max_bytes, source, follow_symlinks, limits))
        except PermissionError:
            entries.append(ScanEntry(relpath, path, error=DocumentError("permission denied", "discover")))
        except OSError as exc:  # a name too long for the file system, an I/O error: this file only
            reason = f"cannot be read: {exc.strerror or exc}"
            entries.append(ScanEntry(relpath, path, error=DocumentError(reason, "discover")))
        except Exception as exc:  # noqa: BLE001 - one hostile file never stops the scan
            log.exception("discovery of %s failed", relpath)
            reason = f"discovery failed: {type(exc).__name__}: {exc}"
            entries.append(ScanEntry(relpath, path, error=DocumentError(reason, "discover")))
    log.info("scanned %s: %d entries", source, len(entries))
    return _twins(entries)
