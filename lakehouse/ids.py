"""Content hashes and stable identifiers."""

from __future__ import annotations

import hashlib
import unicodedata
from pathlib import Path, PurePosixPath
from typing import BinaryIO

_READ_BLOCK = 1 << 20


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes, streamed."""
    with path.open("rb") as handle:
        return sha256_handle(handle)


def sha256_handle(handle: BinaryIO) -> str:
    """Hex sha256 of everything an open binary file holds, read from its start (the descriptor the caller
    checked, so the bytes hashed are the bytes of that file even if its path is swapped meanwhile)."""
    handle.seek(0)
    digest = hashlib.sha256()
    while block := handle.read(_READ_BLOCK):
        digest.update(block)
    return digest.hexdigest()


def sha256_text(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\x1f")
    return digest.hexdigest()


def normalize_relpath(relpath: str | PurePosixPath) -> str:
    """POSIX relative path in Unicode NFC, the form stored in tables and used for ids."""
    return unicodedata.normalize("NFC", str(PurePosixPath(relpath)))


def document_id_for(relpath: str | PurePosixPath, salt: int = 0) -> str:
    """The id a document gets when first seen at ``relpath``; it then stays with the document
    across edits and moves. ``salt`` disambiguates a new file created at a path whose id is taken."""
    key = normalize_relpath(relpath) + (f"#{salt}" if salt else "")
    return "doc_" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def chunk_id_for(document_id: str, text: str, occurrence: int) -> str:
    """Chunk ids derive from the document and the chunk's text, so unchanged text keeps its id."""
    return "chk_" + sha256_text(document_id, text, str(occurrence))[:20]
