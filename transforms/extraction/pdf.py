"""PDF -> Markdown. Text, positions and fonts come from pypdfium2 (milliseconds a page); pdfplumber is
opened only for pages that draw ruled lines, to read their tables cell by cell. Pages without a text layer go
to OCR. The labels inside a chart or diagram drawn with vector paths leave the body (``pdf_drawings.py``).
Lines hidden from a reader (``pdf_hidden.py``) leave the body; their sentences that address an assistant end
their page as flagged ``[texto oculto]`` lines (``transforms/extraction/hidden.py``)."""

from __future__ import annotations

import logging
from pathlib import Path

import pypdfium2 as pdfium

from lakehouse.errors import DocumentError
from lakehouse.settings import Settings
from transforms.extraction.hidden import hidden_warning, with_hidden
from transforms.extraction.markdown import clean_line, render
from transforms.extraction.pdf_drawings import drop_figure_text, page_paths
from transforms.extraction.pdf_layout import layout_blocks
from transforms.extraction.pdf_lines import Line, body_size, page_lines, split_margins
from transforms.extraction.pdf_rules import has_grid
from transforms.extraction.pdf_tables import CellText, PdfTable, page_tables
from transforms.extraction.types import Extracted

logger = logging.getLogger(__name__)

MIN_CHARS_PER_PAGE = 20  # below this on average the PDF is a scan


def extract_pdf(path: Path, settings: Settings) -> Extracted:
    """Markdown of a PDF; raises DocumentError for encrypted, corrupt or (without OCR) scanned files."""
    warnings = _check_bytes(path)
    pages, heights, ruled, hidden = _read_pages(path)
    visible = [sum(not c.isspace() for ln in lines for c in ln.text) for lines in pages]
    if sum(visible) < MIN_CHARS_PER_PAGE * len(pages):
        from transforms.extraction.ocr import extract_scanned

        logger.info("%s: %d characters on %d pages, no text layer; trying OCR", path.name, sum(visible),
                    len(pages))
        return extract_scanned(path, settings)
    empty = [str(i + 1) for i, n in enumerate(visible) if n < MIN_CHARS_PER_PAGE]
    if empty:
        warnings.append(f"pages without a text layer (not OCR'd): {', '.join(empty)}")
    tables = _read_tables(path, ruled, warnings)
    pages, running = split_margins(pages, heights)
    blocks = with_hidden(layout_blocks(pages, tables, body_size(pages)), hidden)
    warnings += hidden_warning([t for texts in hidden.values() for t in texts])
    markdown, spans = render(blocks, len(pages))
    margins = "\n".join(clean_line(ln.text) for ln in running)
    logger.info("%s: %d pages, %d tables, %d characters", path.name, len(pages),
                sum(map(len, tables.values())), len(markdown))
    return Extracted(markdown, "pdf-text", len(pages), spans, warnings, margins)


def _check_bytes(path: Path) -> list[str]:
    with path.open("rb") as fh:
        head = fh.read(1024)
        fh.seek(0, 2)
        size = fh.tell()
        fh.seek(max(0, size - 2048))
        tail = fh.read()
    if b"%PDF-" not in head:
        raise DocumentError("corrupt or truncated PDF: no %PDF header")
    if b"%%EOF" not in tail:
        return ["no %%EOF marker at the end of the file: it may be truncated"]
    return []


def _read_pages(path: Path) -> tuple[list[list[Line]], list[float], list[int], dict[int, list[str]]]:
    """Lines of every page, page heights, the pages that draw enough rules to hold a table, and the texts of
    each page's hidden lines."""
    try:
        doc = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise DocumentError("encrypted PDF (password protected)") from exc
        raise DocumentError(f"corrupt or truncated PDF: {_reason(exc)}") from exc
    try:
        if len(doc) == 0:
            raise DocumentError("corrupt or truncated PDF: no pages")
        pages, heights, ruled, hidden = [], [], [], {}
        dropped = 0
        for i in range(len(doc)):
            page = doc[i]
            try:
                paths = page_paths(page)
                lines, labels = drop_figure_text(page, page_lines(page, i, hidden.setdefault(i, [])), paths)
                pages.append(lines)
                dropped += labels
                left, bottom, right, top = page.get_mediabox()
                heights.append(top - bottom)
                if has_grid(paths):
                    ruled.append(i)
            finally:
                page.close()
        if dropped:
            logger.info("%s: %d label lines inside drawn figures left out of the body", path.name, dropped)
        return pages, heights, ruled, {i: texts for i, texts in hidden.items() if texts}
    except pdfium.PdfiumError as exc:
        raise DocumentError(f"corrupt or truncated PDF: {_reason(exc)}") from exc
    finally:
        doc.close()


def _reason(exc: Exception) -> str:
    text = str(exc)
    return text[text.find("PDFium: ") + 8:].rstrip(").") if "PDFium: " in text else text


def _read_tables(path: Path, ruled: list[int], warnings: list[str]) -> dict[int, list[PdfTable]]:
    if not ruled:
        return {}
    import pdfplumber

    tables: dict[int, list[PdfTable]] = {}
    try:
        doc = pdfium.PdfDocument(path)  # cell text where pdfplumber's letter-spaces it
        with pdfplumber.open(path, pages=[i + 1 for i in ruled]) as pdf:
            for page in pdf.pages:
                textpage = doc[page.page_number - 1].get_textpage()
                found = page_tables(page, CellText(textpage, float(page.height)))
                textpage.close()
                if found:
                    tables[page.page_number - 1] = found
                page.close()
        doc.close()
    except Exception as exc:  # tables are an improvement over plain text, never a reason to lose the document
        logger.warning("%s: table detection failed: %s", path.name, exc)
        warnings.append(f"table detection failed: {exc}")
    return tables
