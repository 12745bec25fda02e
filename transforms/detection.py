"""File type detection by content (magic bytes), checked against the extension."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from lakehouse.errors import DocumentError

EXTENSIONS = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
}
_TEXTUAL = {"html", "markdown", "text"}
_SNIFF_BYTES = 4096


@dataclass(frozen=True)
class ContainerLimits:
    """Bounds on a ZIP-based document (DOCX) checked from its directory before anything is decompressed."""

    max_unzipped_bytes: int = 256 * 1024 * 1024
    max_members: int = 10_000
    max_ratio: float = 100.0  # uncompressed / compressed, checked once a container inflates past 10 MB


_RATIO_FLOOR = 10 * 1024 * 1024


def _bomb(archive: zipfile.ZipFile, limits: ContainerLimits) -> str | None:
    """Why the archive would take unbounded work to open, or None."""
    infos = archive.infolist()
    if len(infos) > limits.max_members:
        return f"{len(infos)} members > {limits.max_members} (LAKERAG_MAX_ZIP_MEMBERS)"
    inflated = sum(i.file_size for i in infos)
    packed = max(sum(i.compress_size for i in infos), 1)
    if inflated > limits.max_unzipped_bytes:
        return f"{inflated} bytes unzipped > {limits.max_unzipped_bytes} (LAKERAG_MAX_UNZIPPED_BYTES)"
    if inflated > _RATIO_FLOOR and inflated / packed > limits.max_ratio:
        return f"compression ratio {inflated / packed:.0f}:1 > {limits.max_ratio:g}:1 (LAKERAG_MAX_ZIP_RATIO)"
    return None


def _sniff(handle: BinaryIO, head: bytes, limits: ContainerLimits) -> str | None:
    """The type the bytes say, or None when they look like no known binary format."""
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        handle.seek(0)
        try:
            with zipfile.ZipFile(handle) as archive:  # reads the open file; does not close it
                names = set(archive.namelist())
                if problem := _bomb(archive, limits):
                    raise DocumentError(f"decompression bomb: {problem}", stage="discover")
        except UnicodeDecodeError:  # an entry flagged UTF-8 whose name bytes are not (before ValueError: a subclass)
            return "undecodable-zip"
        except (zipfile.BadZipFile, EOFError, ValueError):
            return "corrupt-zip"
        if "word/document.xml" in names:
            return "docx"
        if "[Content_Types].xml" in names and any(n.startswith("word/") for n in names):
            return "docx-without-body"
        if "xl/workbook.xml" in names:
            return "xlsx"
        if "ppt/presentation.xml" in names:
            return "pptx"
        return "zip"
    lowered = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if lowered.startswith((b"<!doctype html", b"<html")):
        return "html"
    return None


# What a damaged ZIP container says, as the reason a file is quarantined.
_ZIP_PROBLEMS = {
    "corrupt-zip": "corrupt or truncated ZIP container (not a readable {ext} file)",
    "undecodable-zip": "ZIP entry names are not valid UTF-8 though flagged so (not a readable {ext} file)",
    "docx-without-body": "DOCX without word/document.xml (no document body)",
}


def _binary(head: bytes) -> bool:
    """Bytes no text or HTML file holds: NULs, or mostly control characters."""
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13))
    return controls > len(head) // 10


def detect_type(path: Path, size: int, limits: ContainerLimits | None = None, handle: BinaryIO | None = None
                ) -> str:
    """Return pdf, docx, html, markdown or text; raise DocumentError for files we must quarantine.

    ``path`` gives the extension; the bytes are read from ``handle`` when given (discovery's descriptor, opened
    without following links), else from ``path``."""
    if size == 0:
        raise DocumentError("zero-byte file", stage="discover")
    if handle is None:
        with path.open("rb") as opened:
            return detect_type(path, size, limits, opened)
    ext = path.suffix.lower()
    handle.seek(0)
    head = handle.read(_SNIFF_BYTES)
    sniffed = _sniff(handle, head, limits or ContainerLimits())
    expected = EXTENSIONS.get(ext)
    if sniffed in _ZIP_PROBLEMS and expected == "docx":
        raise DocumentError(_ZIP_PROBLEMS[sniffed].format(ext=ext or "ZIP"), stage="discover")
    if sniffed in _ZIP_PROBLEMS:
        sniffed = "zip"
    if expected is None:
        what = f" ({sniffed} data)" if sniffed else ""
        raise DocumentError(f"unsupported type: '{ext or 'no extension'}'{what}", stage="discover")
    if sniffed is None:
        if expected in _TEXTUAL:
            utf16 = head.startswith((b"\xff\xfe", b"\xfe\xff"))  # NULs are expected there
            if not utf16 and _binary(head.removeprefix(b"\xef\xbb\xbf")):
                raise DocumentError(f"undecodable text: the '{ext}' file holds binary data (NUL or control bytes)",
                                    stage="discover")
            return expected
        raise DocumentError(
            f"wrong extension: '{ext}' file does not contain {expected.upper()} data", stage="discover"
        )
    if sniffed == expected or (sniffed == "html" and expected in _TEXTUAL):
        return sniffed if expected == "html" else expected
    raise DocumentError(
        f"wrong extension: '{ext}' file contains {sniffed.upper()} data", stage="discover"
    )
