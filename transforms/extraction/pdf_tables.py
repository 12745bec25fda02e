"""Ruled tables of a PDF page as Markdown pipe tables, through pdfplumber's ``find_tables``.

Beyond pdfplumber's cells this module handles what real reports do: a title or notes row spanning the whole
table (kept as text before or after it), a header cell spanning several columns (``Pre-Pawn`` over
``Handgun | Long Gun | *Other``: split by word position, the group label prefixed), and data rows drawn
without horizontal rules, which pdfplumber returns as one cell per column with several lines each (split
back into one Markdown row per line), tables drawn without side rules (their horizontal rules mark where
the first and last columns end), and header cells set sideways (read through PDFium, in the text layer's
order). A ruled region that is a figure (``pdf_figures``) is no table.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from transforms.extraction.markdown import to_pipe_table
from transforms.extraction.pdf_figures import is_figure

logger = logging.getLogger(__name__)

Cell = str | None
_LETTER_SPACED = re.compile(r"(?:^|\s)(?:\S ){3,}\S(?:\s|$)")  # four or more lone characters in a row


@dataclass
class PdfTable:
    """A table found on a page: its bounding box (top-left coordinates), Markdown and surrounding text."""

    bbox: tuple[float, float, float, float]
    markdown: str
    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)


class CellText:
    """A cell's text as PDFium reads it (from the text layer's own spaces), for cells that pdfplumber's
    gap-based word splitting letter-spaces (``0 3 / 2 5 / 2 0 1 6``)."""

    def __init__(self, textpage: Any, height: float) -> None:
        self.textpage, self.height = textpage, height

    def __call__(self, bbox: tuple[float, float, float, float]) -> str:
        x0, top, x1, bottom = bbox
        text = self.textpage.get_text_bounded(left=x0, bottom=self.height - bottom, right=x1, top=self.height - top)
        return "\n".join(" ".join(line.split()) for line in text.replace("\r", "").split("\n") if line.strip())


def page_tables(page: Any, cell_text: CellText | None = None) -> list[PdfTable]:
    """Tables on a pdfplumber page with at least two columns and two rows."""
    found = []
    tables = page.find_tables()
    sides = _open_sides(page, tables)
    if sides:  # rows ruled past the outer vertical rules: the label and last columns are part of the table
        tables = page.find_tables({"explicit_vertical_lines": sides})
    rotated = _rotated_chars(page) if tables else []
    for table in tables:
        try:
            parsed = _parse(page, table, cell_text, rotated)
        except Exception as exc:  # a malformed table must not lose the page: its text stays as paragraphs
            logger.warning("table on page %s skipped: %s", page.page_number, exc)
            continue
        if parsed is not None:
            found.append(parsed)
    return found


def _clean(text: Cell) -> str:
    return " ".join((text or "").split())


def _open_sides(page: Any, tables: list[Any]) -> list[float]:
    """x positions where a table's horizontal rules run on past its outermost vertical rule with text there
    (a table drawn without side rules): pdfplumber's cells end at the last vertical rule, which drops the label
    column and the last column."""
    if not tables:
        return []
    sides: list[float] = []
    edges = page.horizontal_edges
    for table in tables:
        x0, top, x1, bottom = table.bbox
        rules = [e for e in edges if top - 1 <= e["top"] <= bottom + 1]
        if len(rules) < 2:
            continue
        for side, inside in ((min(e["x0"] for e in rules), x0), (max(e["x1"] for e in rules), x1)):
            lo, hi = sorted((side, inside))
            if hi - lo > 5 and any(lo <= (c["x0"] + c["x1"]) / 2 <= hi and top <= c["top"] <= bottom
                                   for c in page.chars):
                sides.append(side)
    return sides


def _rotated_chars(page: Any) -> list[tuple[float, float]]:
    """Centres of the page's characters set sideways (a rotated column header): pdfplumber orders a cell's
    characters top to bottom, which reads text set bottom to top backwards ("ytirohtuA oN")."""
    return [((c["x0"] + c["x1"]) / 2, (c["top"] + c["bottom"]) / 2) for c in page.chars if not c.get("upright", True)]


def _sideways(box: tuple[float, float, float, float], rotated: list[tuple[float, float]]) -> bool:
    return any(box[0] <= x <= box[2] and box[1] <= y <= box[3] for x, y in rotated)


def _parse(page: Any, table: Any, cell_text: CellText | None,
           rotated: list[tuple[float, float]] | None = None) -> PdfTable | None:
    rows: list[list[Cell]] = table.extract()
    cells: list[list[Any]] = [row.cells for row in table.rows]
    if cell_text is not None:  # PDFium reads the text layer in its own order, which is the reading order
        rows = [[cell_text(box) if text and box and (_misread(text) or (rotated and _sideways(box, rotated)))
                 else text for text, box in zip(row, boxes, strict=False)]
                for row, boxes in zip(rows, cells, strict=True)]
    if is_figure(page, tuple(table.bbox), rows):  # a chart's grid or a diagram: its labels stay text lines
        logger.debug("ruled region on page %s read as a figure, not a table", page.page_number)
        return None
    ncols = max((len(r) for r in rows), default=0)
    before: list[str] = []
    after: list[str] = []
    while rows and _spans_all(rows[0]):
        before += [t for t in (rows[0][0] or "").split("\n") if t.strip()]
        rows, cells = rows[1:], cells[1:]
    while rows and _spans_all(rows[-1]):
        after = [t for t in (rows[-1][0] or "").split("\n") if t.strip()] + after
        rows, cells = rows[:-1], cells[:-1]
    if ncols < 2 or len(rows) < 2:
        return None
    bounds = _column_bounds(cells, ncols, table.bbox[2])
    header = _header(page, rows[0], cells[0], bounds)
    body: list[list[str]] = []
    for row in rows[1:]:
        body.extend(_split_row(row))
    body = [r for r in body if any(r)]
    return PdfTable(tuple(table.bbox), to_pipe_table(header, body), before, after)


def _misread(text: str) -> bool:
    """pdfplumber letter-spaced the cell (``0 3 / 2 5``) or read each glyph twice (fake bold: ``NNoommee``);
    PDFium reads such cells correctly. (pdfplumber's own ``dedupe_chars`` costs seconds on a dense page.)"""
    if _LETTER_SPACED.search(text):
        return True
    letters = "".join(text.split())
    return len(letters) >= 6 and len(letters) % 2 == 0 and letters[0::2] == letters[1::2]


def _spans_all(row: list[Cell]) -> bool:
    return (len(row) > 1 and all(c is None for c in row[1:])) or not any(_clean(c) for c in row)


def _column_bounds(cells: list[list[Any]], ncols: int, right: float) -> list[tuple[float, float]]:
    starts: list[float] = []
    for j in range(ncols):
        xs = [row[j][0] for row in cells if j < len(row) and row[j] is not None]
        starts.append(min(xs) if xs else (starts[-1] if starts else 0.0))
    return [(starts[j], starts[j + 1] if j + 1 < ncols else right) for j in range(ncols)]


def _header(page: Any, row: list[Cell], cells: list[Any], bounds: list[tuple[float, float]]) -> list[str]:
    header = [_clean(c) for c in row]
    j = 0
    while j < len(row):
        span = 1
        while j + span < len(row) and row[j + span] is None:
            span += 1
        if span > 1 and cells[j] is not None:
            header[j: j + span] = _split_spanning(page, cells[j], bounds[j: j + span])
        j += span
    return header


def _split_spanning(page: Any, bbox: tuple[float, float, float, float],
                    bounds: list[tuple[float, float]]) -> list[str]:
    """Words of a header cell spanning ``len(bounds)`` columns. Each line is cut into phrases at wide gaps;
    a line of one phrase (a group label such as ``Pre-Pawn``) prefixes every column, the phrases of other
    lines go to the column under their centre."""
    words = sorted(page.crop(bbox, strict=False).extract_words(), key=lambda w: (round(w["top"]), w["x0"]))
    lines: list[list[dict[str, Any]]] = []
    for w in words:
        if lines and abs(lines[-1][0]["top"] - w["top"]) < 2:
            lines[-1].append(w)
        else:
            lines.append([w])
    prefix: list[str] = []
    parts: list[list[str]] = [[] for _ in bounds]
    for line in lines:
        phrases = _phrases(sorted(line, key=lambda w: w["x0"]))
        if len(phrases) == 1:
            prefix.append(phrases[0][2])
            continue
        for x0, x1, text in phrases:
            parts[_column_of((x0 + x1) / 2, bounds)].append(text)
    return [" ".join(prefix + p) for p in parts]


def _phrases(words: list[dict[str, Any]]) -> list[tuple[float, float, str]]:
    """Runs of words separated by less than half a line height."""
    phrases: list[tuple[float, float, str]] = []
    for w in words:
        gap_limit = 0.5 * (w["bottom"] - w["top"])
        if phrases and w["x0"] - phrases[-1][1] < gap_limit:
            x0, _, text = phrases[-1]
            phrases[-1] = (x0, w["x1"], f"{text} {w['text']}")
        else:
            phrases.append((w["x0"], w["x1"], w["text"]))
    return phrases


def _column_of(x: float, bounds: list[tuple[float, float]]) -> int:
    for j, (x0, x1) in enumerate(bounds):
        if x0 <= x < x1:
            return j
    return 0 if x < bounds[0][0] else len(bounds) - 1


def _split_row(row: list[Cell]) -> list[list[str]]:
    """One row, or several when every filled cell holds the same number (>1) of lines."""
    filled = [c.split("\n") for c in row if c and c.strip()]
    counts = {len(lines) for lines in filled}
    if len(counts) == 1 and (n := counts.pop()) > 1 and len(filled) * 2 >= len(row):
        split = [(c or "").split("\n") if c and c.strip() else [""] * n for c in row]
        return [[_clean(col[i]) for col in split] for i in range(n)]
    return [[_clean(c) for c in row]]
