"""Versions of one document and documents that restate others, read from titles, paths and catalog versions.

Two documents are versions of one another when their titles are equal once version markers ("v3", "versão 2",
"(rev. 1)") are removed (``family``). A version is superseded when it lives under an archive folder
("Obsoletos", "Superseded", "Arquivo", "Revogados") or its type says so, or when another version has a higher
number. A passage restates another document when it names that document's title (a FAQ quoting "Pela Política
de Reembolso de Despesas de Viagem...").
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from serving.answers.doctypes import is_archive
from serving.answers.types import DocumentMeta

_MARKERS = re.compile(r"\(.*?\)|\b(?:v|ver|vers[aã]o|version|rev|revis[aã]o|revision)\.?\s*\d+(?:\.\d+)*\b",
                      re.IGNORECASE)
VERSION = _NUMBER = re.compile(r"\b(?:v|ver|vers[aã]o|version|rev)\.?\s*(\d+(?:\.\d+)?)\b", re.IGNORECASE)
_ARCHIVE = re.compile(r"(?:^|/)(?:obsolet|supersed|revogad|arquiv|archive|antig|old\b|hist[oó]ric)", re.IGNORECASE)
MIN_FAMILY_WORDS = 3  # shorter titles are too common to be recognised inside a passage


def fold(text: str) -> str:
    """Lower case, no accents, single spaces."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())


@lru_cache(maxsize=20_000)
def family(title: str) -> str:
    """The title without version markers, folded: equal for every version of a document."""
    return " ".join(re.sub(r"[^\w\s-]", " ", fold(_MARKERS.sub(" ", title))).split())


def number(title: str, meta: DocumentMeta | None) -> float | None:
    """The version number, from the catalog or the title."""
    for text in ((meta.version if meta else None) or "", title):
        match = _NUMBER.search(text) or (re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*", text) if text else None)
        if match:
            return float(match.group(1))
    return None


def archived(path: str | None, doc_type: str | None) -> bool:
    return bool(_ARCHIVE.search(path or "")) or is_archive(doc_type or "")


def asked_version(question: str) -> float | None:
    """The version a question names ("na versão 2", "v2"), if any."""
    match = _NUMBER.search(question)
    return float(match.group(1)) if match else None


def named(passage: str, families: dict[str, list[str]]) -> list[str]:
    """The families (titles of at least ``MIN_FAMILY_WORDS`` words) a passage names."""
    folded = family(passage)
    return [fam for fam in families if fam in folded and len(fam.split()) >= MIN_FAMILY_WORDS]
