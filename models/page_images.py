"""PDF pages as images (pypdfium2), the same way for the pages stage (what the vision model sees) and the API
(what an analyst sees next to a page citation): rendered at ``LAKERAG_PAGES_DPI``, hashed by their pixels."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

from PIL import Image

from lakehouse.errors import LakeragError

MAX_PIXELS = 40_000_000  # a page larger than this at the chosen DPI is rendered smaller


class PageRenderError(LakeragError):
    """A PDF page could not be rendered; the message names the file and page."""


def _scale(page, dpi: int) -> float:
    width, height = page.get_size()
    scale = dpi / 72
    area = width * height * scale * scale
    return scale if area <= MAX_PIXELS else scale * (MAX_PIXELS / area) ** 0.5


def render_pages(pdf: Path, dpi: int) -> list[Image.Image]:
    """Every page of ``pdf`` as an RGB image, in page order."""
    import pypdfium2 as pdfium  # deferred: only the pages stage and the image endpoint render

    try:
        document = pdfium.PdfDocument(str(pdf))
    except pdfium.PdfiumError as exc:
        raise PageRenderError(f"{pdf}: cannot open as PDF: {exc}") from exc
    try:
        return [page.render(scale=_scale(page, dpi)).to_pil().convert("RGB") for page in document]
    finally:
        document.close()


def render_page_png(pdf: Path, page: int, dpi: int) -> bytes:
    """Page ``page`` (1-based) of ``pdf`` as PNG bytes."""
    import pypdfium2 as pdfium  # deferred: see render_pages

    try:
        document = pdfium.PdfDocument(str(pdf))
    except pdfium.PdfiumError as exc:
        raise PageRenderError(f"{pdf}: cannot open as PDF: {exc}") from exc
    try:
        if not 1 <= page <= len(document):
            raise PageRenderError(f"{pdf}: no page {page} (the PDF has {len(document)})")
        item = document[page - 1]
        image = item.render(scale=_scale(item, dpi)).to_pil().convert("RGB")
    finally:
        document.close()
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def page_hash(image: Image.Image) -> str:
    """sha256 of the page's size and pixels: equal pages (in two versions of a file, or two files) share it."""
    digest = hashlib.sha256(f"{image.width}x{image.height}:{image.mode}".encode())
    digest.update(image.tobytes())
    return digest.hexdigest()
