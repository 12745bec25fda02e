"""The cheap test before the table probe: does a PDF page draw the rules of a grid?

pdfplumber parses a whole page (seconds on a dense one) to find ruled tables, so it is opened only for pages
that draw straight horizontal rules at three or more heights and vertical rules at three or more positions
(a grid of at least 2 x 2 cells). Rules are read from the page's path objects through raw PDFium calls (a
rectangle contributes its four edges); curves, short strokes, a single frame around a figure and text never
count, so a page of prose beside a drawing skips the probe.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from typing import Any

import pypdfium2.raw as pdfium_c

from transforms.extraction.pdf_drawings import Path

MIN_RULE = 10.0  # points: shorter strokes are glyph parts, ticks or bullets
_MAX_SEGMENTS = 20_000  # a page drawing more than this is a map or a chart; let pdfplumber decide
_GRID = 3  # distinct rule positions needed in each direction


def has_grid(paths: list[Path]) -> bool:
    """Horizontal rules at ``_GRID`` or more heights and vertical rules at ``_GRID`` or more positions, among a
    page's path objects (``pdf_drawings.page_paths``)."""
    xs: set[int] = set()
    ys: set[int] = set()
    seen = 0
    box = [ctypes.c_float() for _ in range(4)]
    for obj, _, _ in paths:
        if not pdfium_c.FPDFPageObj_GetBounds(obj, *(ctypes.byref(v) for v in box)):
            continue
        left, bottom, right, top = (v.value for v in box)
        if right - left < MIN_RULE and top - bottom < MIN_RULE:
            continue  # a dot, a tick, a glyph part: no rule in it
        count = pdfium_c.FPDFPath_CountSegments(obj)
        seen += count
        if seen > _MAX_SEGMENTS:
            return True
        for (x0, y0), (x1, y1) in _lines(obj, count):
            if abs(y1 - y0) < 1 and abs(x1 - x0) >= MIN_RULE:
                ys.add(round(y0 / 2))
            elif abs(x1 - x0) < 1 and abs(y1 - y0) >= MIN_RULE:
                xs.add(round(x0 / 2))
        if len(xs) >= _GRID and len(ys) >= _GRID:
            return True
    return False


def _lines(obj: Any, count: int) -> Iterator[tuple[tuple[float, float], tuple[float, float]]]:
    """Straight segments of a path in page coordinates (a closing segment included)."""
    matrix = pdfium_c.FS_MATRIX()
    if not pdfium_c.FPDFPageObj_GetMatrix(obj, ctypes.byref(matrix)):
        return
    x, y = ctypes.c_float(), ctypes.c_float()
    start = previous = None
    for i in range(count):
        segment = pdfium_c.FPDFPath_GetPathSegment(obj, i)
        if not pdfium_c.FPDFPathSegment_GetPoint(segment, ctypes.byref(x), ctypes.byref(y)):
            continue
        point = (matrix.a * x.value + matrix.c * y.value + matrix.e, matrix.b * x.value + matrix.d * y.value + matrix.f)
        kind = pdfium_c.FPDFPathSegment_GetType(segment)
        if kind == pdfium_c.FPDF_SEGMENT_MOVETO:
            start = point
        elif kind == pdfium_c.FPDF_SEGMENT_LINETO and previous is not None:
            yield previous, point
        if pdfium_c.FPDFPathSegment_GetClose(segment) and start is not None:
            yield point, start
        previous = point
