"""File type detection by content (magic bytes), checked against the extension."""

from __future__ import annotations

import zipfile
from pathlib import Path

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


def _sniff(path: Path, head: bytes) -> str | None:
    """The type the bytes say, or None when they look like no known binary format."""
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
        except zipfile.BadZipFile:
            return "zip"
        if "word/document.xml" in names:
            return "docx"
        if "xl/workbook.xml" in names:
            return "xlsx"
        if "ppt/presentation.xml" in names:
            return "pptx"
        return "zip"
    lowered = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if lowered.startswith((b"<!doctype html", b"<html")):
        return "html"
    return None


def detect_type(path: Path, size: int) -> str:
    """Return pdf, docx, html, markdown or text; raise DocumentError for files we must quarantine."""
    if size == 0:
        raise DocumentError("zero-byte file", stage="discover")
    ext = path.suffix.lower()
    with path.open("rb") as handle:
        head = handle.read(_SNIFF_BYTES)
    sniffed = _sniff(path, head)
    expected = EXTENSIONS.get(ext)
    if expected is None:
        what = f" ({sniffed} data)" if sniffed else ""
        raise DocumentError(f"unsupported type: '{ext or 'no extension'}'{what}", stage="discover")
    if sniffed is None:
        if expected in _TEXTUAL:
            return expected
        raise DocumentError(
            f"wrong extension: '{ext}' file does not contain {expected.upper()} data", stage="discover"
        )
    if sniffed == expected or (sniffed == "html" and expected in _TEXTUAL):
        return sniffed if expected == "html" else expected
    raise DocumentError(
        f"wrong extension: '{ext}' file contains {sniffed.upper()} data", stage="discover"
    )
