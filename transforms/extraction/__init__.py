"""Extraction: any supported document -> Markdown that keeps its structure, plus governance metadata.

``extract_document`` dispatches on the type found by magic bytes (done elsewhere) and raises
``lakehouse.errors.DocumentError`` with a short reason for any file that cannot be read, so the pipeline
quarantines that file and carries on.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

from lakehouse.errors import DocumentError
from lakehouse.settings import Settings
from transforms.extraction.docx import extract_docx
from transforms.extraction.html import extract_html
from transforms.extraction.metadata import extract_metadata
from transforms.extraction.pdf import extract_pdf
from transforms.extraction.text import extract_text
from transforms.extraction.types import Extracted, GovernanceMetadata
from transforms.extraction.unicode import REPLACED, valid_unicode

__all__ = ["Extracted", "GovernanceMetadata", "extract_document", "extract_metadata"]

logger = logging.getLogger(__name__)


def extract_document(path: Path, detected_type: str, settings: Settings) -> Extracted:
    """Markdown, method, page count and page spans of one document.

    ``detected_type`` is one of pdf, docx, html, markdown, text. Raises DocumentError with a short reason when
    the document cannot be extracted (encrypted, corrupt, undecodable, scanned without OCR).
    """
    logger.debug("extracting %s as %s", path, detected_type)
    if detected_type == "pdf":
        extracted = extract_pdf(path, settings)
    elif detected_type == "docx":
        extracted = extract_docx(path)
    elif detected_type == "html":
        extracted = extract_html(path)
    elif detected_type in ("markdown", "text"):
        extracted = extract_text(path, detected_type)
    else:
        raise DocumentError(f"unsupported document type: {detected_type}")
    return _valid(extracted)


def _valid(extracted: Extracted) -> Extracted:
    """Text that encodes as UTF-8 (lone surrogates replaced, and counted in the document's warnings)."""
    markdown, replaced = valid_unicode(extracted.markdown)
    margins, replaced_margins = valid_unicode(extracted.margins)
    replaced += replaced_margins
    if markdown is extracted.markdown and margins is extracted.margins:
        return extracted
    warnings = [*extracted.warnings, f"{replaced} {REPLACED}"]
    return replace(extracted, markdown=markdown, margins=margins, warnings=warnings if replaced else
                   extracted.warnings)
