"""Scanned PDFs: Tesseract OCR when available, a clear quarantine reason when not."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from lakehouse.errors import DocumentError
from lakehouse.settings import Settings
from tests.fixtures.paths import DATASETS
from transforms.extraction import extract_document
from transforms.extraction.ocr import tesseract_problem
from transforms.extraction.quality import character_error_rate, levenshtein

PDFS = DATASETS / "pdfs"
LINN = PDFS / "linn.pdf"
BOOK_PAGE = PDFS / "c02-22.pdf"

needs_datasets = pytest.mark.skipif(not PDFS.is_dir(), reason=f"shared datasets not found at {PDFS}")
needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None or tesseract_problem("por+eng") is not None,
    reason="tesseract with the por and eng languages is not installed (apt-get install tesseract-ocr-por)",
)
# Measured 1.1% on linn.pdf with Tesseract 5.3 (por+eng, 300 dpi, --psm 1); the bound leaves room for other
# Tesseract versions without letting a broken layout (37% with --psm 6) pass.
MAX_CER = 0.03


@needs_datasets
@needs_tesseract
@pytest.mark.ocr
def test_two_column_scan_is_read_by_tesseract_with_a_low_error_rate() -> None:
    extracted = extract_document(LINN, "pdf", Settings())
    assert extracted.method == "ocr-tesseract"
    assert extracted.page_count == 1 and extracted.page_spans == [(0, len(extracted.markdown.rstrip("\n")))]
    reference = (PDFS / "linn.txt").read_text(encoding="utf-8")
    assert character_error_rate(extracted.markdown, reference) < MAX_CER
    assert "- Exclusive real-time ERASE function makes editing FAST." in extracted.markdown  # bullets kept


@needs_datasets
@needs_tesseract
@pytest.mark.ocr
def test_scanned_book_page_is_reflowed_into_paragraphs() -> None:
    extracted = extract_document(BOOK_PAGE, "pdf", Settings())
    assert extracted.method == "ocr-tesseract"
    assert "Miss Watson" in extracted.markdown
    assert "went tip-toeing along a path amongst the trees" in extracted.markdown  # lines joined


@needs_datasets
@pytest.mark.parametrize("path", [LINN, BOOK_PAGE], ids=["linn", "c02-22"])
def test_scan_without_ocr_is_quarantined_with_the_exact_reason(path: Path) -> None:
    with pytest.raises(DocumentError) as error:
        extract_document(path, "pdf", Settings(ocr=False, marker=False))
    assert error.value.reason == "no text layer and no OCR available"


@needs_datasets
@pytest.mark.skipif(importlib.util.find_spec("marker") is not None, reason="marker-pdf is installed here")
def test_marker_configured_without_its_models_says_so() -> None:
    with pytest.raises(DocumentError) as error:
        extract_document(BOOK_PAGE, "pdf", Settings(marker=True))
    assert "Marker is configured" in error.value.reason and "models are not available" in error.value.reason


def test_missing_tesseract_language_is_reported() -> None:
    assert tesseract_problem("por+xyz_not_a_language") is not None


def test_levenshtein_and_character_error_rate() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3 and levenshtein("ação", "ação") == 0
    assert levenshtein("a" * 300 + "b", "a" * 300 + "c") == 1  # longer than a machine word
    assert character_error_rate("o  rato\nroeu", "o rato roeu") == 0.0
    assert character_error_rate("o gato roeu", "o rato roeu") == pytest.approx(1 / 11)
