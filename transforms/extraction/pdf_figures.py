"""Tell a figure from a table among pdfplumber's ruled regions.

A chart's gridlines or a diagram's frames form a grid of cells as well as a table's rules do, and pdfplumber
returns it as a table: a few scattered labels in a 9-column grid of empty cells, a label cut in two by a
gridline (``| nova polític | a |``). Such a region is not rendered as a table; its labels leave the body as
any drawn figure's do (``pdf_drawings.py``), and its caption stays.

A region is a figure when its cells are mostly empty and neither its first row nor its first column is mostly
filled (a table's header row or its row labels are; a sparse checklist or RACI matrix keeps them), or when it
draws diagonal strokes or curves (a plotted series, arrows) and at most half of its cells hold text.
"""

from __future__ import annotations

from typing import Any

Cell = str | None

SPARSE = 0.25  # below this share of filled cells, a grid without a header row or label column is a figure
DRAWN = 0.5  # a grid with figure strokes in it is a figure below this share of filled cells
MIN_STROKES = 3  # diagonal or curved segments that make a region a drawing


def is_figure(page: Any, bbox: tuple[float, float, float, float], rows: list[list[Cell]]) -> bool:
    """Whether the ruled region ``bbox`` of a pdfplumber page, whose cell texts are ``rows``, is a figure."""
    cells = [c for row in rows for c in row if c is not None]  # None: covered by a spanning cell
    if not cells:
        return False
    filled = sum(bool(c.strip()) for c in cells) / len(cells)
    if filled < SPARSE and not _mostly_filled(rows[0]) and not _mostly_filled([r[0] for r in rows if r]):
        return True
    return filled < DRAWN and _strokes(page, bbox) >= MIN_STROKES


def _mostly_filled(cells: list[Cell]) -> bool:
    present = [c for c in cells if c is not None]
    return bool(present) and sum(bool(c.strip()) for c in present) * 2 >= len(present)


def _strokes(page: Any, bbox: tuple[float, float, float, float]) -> int:
    """Diagonal straight segments and curve segments drawn inside ``bbox`` (top-left coordinates)."""
    x0, top, x1, bottom = bbox
    count = 0
    for obj in [*page.curves, *page.lines]:
        if obj["x0"] < x0 - 1 or obj["x1"] > x1 + 1 or obj["top"] < top - 1 or obj["bottom"] > bottom + 1:
            continue
        points = obj.get("pts") or []
        for (ax, ay), (bx, by) in zip(points, points[1:], strict=False):
            if abs(ax - bx) > 1 and abs(ay - by) > 1:
                count += 1
    return count
