"""PDFs without a text layer: Tesseract through its command line, or Marker when configured (GPU, own models).

Tesseract runs with ``OMP_THREAD_LIMIT=1``, one process per page in parallel: with OpenMP threads on a 2-core
machine a page took ~20 s, single-threaded ~4 s, for the same text. ``--psm 1`` (automatic layout with
orientation detection) and ``--psm 3`` give the same character error rate on a two-column scan (1.0%); the
single-block modes 4 and 6 reach 37% because they interleave the columns.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium

from lakehouse.errors import DocumentError
from lakehouse.settings import Settings
from transforms.extraction.markdown import Block, normalise_text, render
from transforms.extraction.text import plain_text_blocks
from transforms.extraction.types import Extracted

logger = logging.getLogger(__name__)

NO_OCR = "no text layer and no OCR available"
MARKER_UNAVAILABLE = "no text layer: Marker is configured (LAKERAG_MARKER) but its models are not available"
PAGE_TIMEOUT_S = 300
_OCR_BULLET = re.compile(r"^[e©¢º°«»*+•o0] (?=[A-ZÀ-Ý])", re.M)
_MARKER_PAGE = re.compile(r"\n*\{(\d+)\}-{48}\n*")  # Marker's paginate_output separator


def extract_scanned(path: Path, settings: Settings) -> Extracted:
    """OCR a scanned PDF with Marker (``settings.extraction.marker``) or Tesseract (``settings.extraction.ocr``)."""
    if settings.extraction.marker:
        return _marker(path)
    if settings.extraction.ocr:
        problem = tesseract_problem(settings.extraction.ocr_languages)
        if problem is None:
            return _tesseract(path, settings)
        logger.warning("%s: OCR is enabled but %s", path.name, problem)
    raise DocumentError(NO_OCR)


def tesseract_problem(languages: str) -> str | None:
    """Why Tesseract cannot OCR ``languages`` ("por+eng") here, or None when it can."""
    if shutil.which("tesseract") is None:
        return "the tesseract binary is not installed"
    installed = _installed_languages()
    missing = [lang for lang in languages.split("+") if lang not in installed]
    return f"tesseract languages not installed: {', '.join(missing)}" if missing else None


@lru_cache(maxsize=1)
def _installed_languages() -> frozenset[str]:
    try:
        listed = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        logger.warning("tesseract --list-langs failed: %s", exc)
        return frozenset()
    return frozenset(ln.strip() for ln in listed.stdout.splitlines()[1:] if ln.strip())


def _tesseract(path: Path, settings: Settings) -> Extracted:
    psm = "1" if "osd" in _installed_languages() else "3"
    with tempfile.TemporaryDirectory(prefix="lakerag-ocr-") as tmp:
        images = _render(path, Path(tmp), settings.extraction.ocr_dpi)
        workers = max(1, min(len(images), os.cpu_count() or 1))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            texts = list(pool.map(lambda img: _ocr_page(img, settings.extraction.ocr_languages, psm), images))
    blocks = [b for i, text in enumerate(texts)
              for b in plain_text_blocks(_bullets(text), i, reflow=True, title=i == 0)]
    markdown, spans = render(blocks, len(texts))
    warnings = [f"page {i + 1}: OCR found no text" for i, text in enumerate(texts) if not text.strip()]
    logger.info("%s: OCR of %d pages at %d dpi, %d characters", path.name, len(texts), settings.extraction.ocr_dpi,
                len(markdown))
    return Extracted(markdown, "ocr-tesseract", len(texts), spans, warnings)


def _bullets(text: str) -> str:
    """Tesseract reads bullets as ``e``, ``©``, ``¢``, ``º``...: a line starting with such a mark and a
    capital becomes ``- ``, when at least two lines on the page do so."""
    found = _OCR_BULLET.findall(text)
    return _OCR_BULLET.sub("- ", text) if len(found) >= 2 else text


def _render(path: Path, folder: Path, dpi: int) -> list[Path]:
    try:
        doc = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        raise DocumentError(f"corrupt or truncated PDF: {exc}") from exc
    images = []
    try:
        for i in range(len(doc)):
            page = doc[i]
            image = folder / f"page-{i + 1:05d}.png"
            page.render(scale=dpi / 72, grayscale=True).to_pil().save(image)
            page.close()
            images.append(image)
    finally:
        doc.close()
    return images


def _ocr_page(image: Path, languages: str, psm: str) -> str:
    command = ["tesseract", str(image), "stdout", "-l", languages, "--psm", psm]
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    try:
        done = subprocess.run(command, capture_output=True, env=env, timeout=PAGE_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        raise DocumentError(f"OCR timed out on {image.stem} after {PAGE_TIMEOUT_S} s") from exc
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise DocumentError(f"OCR failed on {image.stem}: {detail[0]}")
    return done.stdout.decode("utf-8", "replace")


def _marker(path: Path) -> Extracted:
    """Marker (marker-pdf >= 1.0) on a machine whose model cache is already filled; never downloads."""
    converter = _marker_converter()
    try:
        from marker.output import text_from_rendered

        markdown, _, _ = text_from_rendered(converter(str(path)))
    except Exception as exc:
        raise DocumentError(f"Marker failed on this PDF: {exc}") from exc
    pages = [normalise_text(p).strip() for p in _MARKER_PAGE.split(markdown)[::2]]
    pages = pages[1:] if pages and not pages[0] and len(pages) > 1 else pages
    blocks = [Block("raw", text, page) for page, text in enumerate(pages) if text]
    rendered, spans = render(blocks, len(pages))
    return Extracted(rendered, "ocr-marker", len(pages), spans)


_marker_state: dict[str, Any] = {}


def _marker_converter() -> Any:
    """Marker's converter, its models loaded once per process; a failed load is remembered, not retried."""
    if "converter" not in _marker_state:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from marker.converters.pdf import PdfConverter
            from marker.models import create_model_dict

            config = {"paginate_output": True, "disable_image_extraction": True}
            _marker_state["converter"] = PdfConverter(artifact_dict=create_model_dict(), config=config)
        except Exception as exc:  # ImportError, missing weights, no GPU: all mean the same to the pipeline
            logger.warning("Marker could not be loaded: %s", exc)
            _marker_state["converter"] = None
    if _marker_state["converter"] is None:
        raise DocumentError(MARKER_UNAVAILABLE)
    return _marker_state["converter"]
