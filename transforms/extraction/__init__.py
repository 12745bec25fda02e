"""Extraction: any supported document -> Markdown that keeps its structure, plus governance metadata.

``extract_document`` dispatches on the type found by magic bytes (done elsewhere) and raises
``lakehouse.errors.DocumentError`` with a short reason for any file that cannot be read, so the pipeline
quarantines that file and carries on.
"""

from __future__ import annotations

import logging
from pathlib import Path

from lakehouse.errors import DocumentError
from lakehouse.settings import Settings
from transforms.extraction.docx import extract_docx
from transforms.extraction.html import extract_html
from transforms.extraction.metadata import extract_metadata
from transforms.extraction.pdf import extract_pdf
from transforms.extraction.text import extract_text
from transforms.extraction.types import Extracted, GovernanceMetadata

__all__ = ["Extracted", "GovernanceMetadata", "extract_document", "extract_metadata"]

logger = logging.getLogger(__name__)


def extract_document(path: Path, detected_type: str, settings: Settings) -> Extracted:
    """Markdown, method, page count and page spans of one document.

    ``detected_type`` is one of pdf, docx, html, markdown, text. Raises DocumentError with a short reason when
    the document cannot be extracted (encrypted, corrupt, undecodable, scanned without OCR).
    """
    logger.debug("extracting %s as %s", path, detected_type)
    if detected_type == "pdf":
        return extract_pdf(path, settings)
    if detected_type == "docx":
        return extract_docx(path)
    if detected_type == "html":
        return extract_html(path)
    if detected_type in ("markdown", "text"):
        return extract_text(path, detected_type)
    raise DocumentError(f"unsupported document type: {detected_type}")
