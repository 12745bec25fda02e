"""Figures drawn with vector operations: their labels are not body text.

A chart or a diagram is a region densely drawn with paths (axes, gridlines, plotted series, bars, boxes and
arrows) that holds only short text fragments: tick values, axis titles, legend entries, box labels. Read in
content order, those fragments land in the body as a run of disconnected words ("0 10 20 30 Jan Fev Mar").
Here a page's path objects are grouped into regions (boxes within ``GAP`` of each other); a region is a
figure when it draws figure marks (three or more curve or diagonal segments, or three or more bars of
different lengths on one baseline), frames aside, and every text line inside it is short. Its lines leave
the body, and so do short lines just beside it (tick values left of an axis, categories under it, a legend
above). A caption ("Figura 2 - ...", "Fonte: ...") stays, inside the drawing or outside it.

A page of prose beside a rule or a rounded text box is untouched: a frame around text is not a mark, and a
box of sentences is not short text. The page's paths are listed once, for this module and the grid test.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Iterator
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from transforms.extraction.pdf_lines import Line

Box = tuple[float, float, float, float]  # x0, top, x1, bottom from the page's top-left corner
GAP = 12.0  # points: paths this close belong to one drawing (a legend's key beside its plot)
MIN_PATHS = 4  # path objects in a region before it can be a figure
MIN_MARKS = 3  # curve or diagonal segments, or bars, that make a region a drawing
MIN_BAR = 3.0  # points: a bar is at least this thick
MIN_SIDE = 40.0  # points: a smaller region is an icon or a glyph ornament
MAX_SHARE = 0.6  # a region covering more of the page is a page frame or a background
SHORT = 40  # characters: a figure's labels are short ...
SHORT_WORDS = 6  # ... and have few words, unless they are spread out:
SPREAD = 1.0  # a line at least this many font sizes wide per character (text runs about half that)
LABEL_REACH = (3.0, 2.0)  # line sizes across and along: how far outside the drawing its labels sit
_MAX_PATHS = 5_000  # a page drawing more is a map or a plot in itself; left as it is
_CAPTION = re.compile(r"^(?:Fig(?:ura|ure)?\.?|Gr[áa]fico|Chart|Diagrama|Diagram|Esquema|Quadro|Imagem|Mapa|"
                      r"Fonte|Source|Nota|Note)\b", re.I)


Path = tuple[Any, tuple[float, ...], tuple[float, float, float, float]]  # raw object, full matrix, page bounds


def page_paths(page: pdfium.PdfPage) -> list[Path]:
    """The page's path objects (form XObjects included, three levels deep), listed once for this module and
    the grid test (``pdf_rules.has_grid``), each with its full matrix and its bounds in PDF page space."""
    return list(_paths(page.raw, (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)))


def drop_figure_text(page: pdfium.PdfPage, lines: list[Line], paths: list[Path]) -> tuple[list[Line], int]:
    """The page's lines without those inside a drawn figure (captions kept), and how many were dropped."""
    if not lines or len(paths) < MIN_PATHS or not any(_solid(box) for _, _, box in paths):
        return lines, 0  # rules and underlines alone (every path flat) draw no curve, diagonal or bar
    inside: set[int] = set()
    for region in figure_regions(page, lines, paths):
        core = [i for i, ln in enumerate(lines) if _centre_in(ln, region) and not _CAPTION.match(ln.text.strip())]
        if not all(_short(lines[i]) for i in core):
            continue  # sentences inside the drawing: a text box or a table, not a figure
        inside.update(core)
        inside.update(i for i, ln in enumerate(lines) if i not in inside and _label_beside(ln, region))
    if not inside:
        return lines, 0
    return [ln for i, ln in enumerate(lines) if i not in inside], len(inside)


def _solid(box: tuple[float, float, float, float]) -> bool:
    return box[2] - box[0] > 1 and box[3] - box[1] > 1


def _short(line: Line) -> bool:
    """A label, not a sentence: a few words, or words spread far apart (PDFium joins the labels set on one
    baseline into one line: "jan fev mar ... out" under an axis)."""
    text = line.text.strip()
    spread = line.x1 - line.x0 > SPREAD * len(text) * line.size
    return len(text) <= SHORT and (len(text.split()) <= SHORT_WORDS or spread)


def _label_beside(line: Line, region: Box) -> bool:
    """A short line just outside the drawing: a tick value left of its axis, a category under it, a legend."""
    if not _short(line) or _CAPTION.match(line.text.strip()):
        return False
    x, y = LABEL_REACH[0] * line.size, LABEL_REACH[1] * line.size
    return _centre_in(line, (region[0] - x, region[1] - y, region[2] + x, region[3] + y))


def figure_regions(page: pdfium.PdfPage, lines: list[Line], paths: list[Path]) -> list[Box]:
    """Regions of the page drawn densely enough, with figure marks, to be charts or diagrams."""
    left, bottom, right, top = page.get_mediabox()
    width, height = right - left, top - bottom
    if len(paths) < MIN_PATHS or len(paths) > _MAX_PATHS:
        return []
    boxes = [(x0 - left, top - y1, x1 - left, top - y0) for _, _, (x0, y0, x1, y1) in paths]
    regions = []
    for members in _clusters(boxes):
        box = _union([boxes[i] for i in members])
        w, h = box[2] - box[0], box[3] - box[1]
        if len(members) < MIN_PATHS or w < MIN_SIDE or h < MIN_SIDE or w * h > MAX_SHARE * width * height:
            continue
        if not any(_label_beside(ln, box) for ln in lines):
            continue
        framed = [i for i in members if not _is_frame(boxes[i], box)]
        if _marks([paths[i] for i in framed], [boxes[i] for i in framed], lines) >= MIN_MARKS:
            regions.append(box)
    return regions


def _clusters(boxes: list[Box]) -> list[list[int]]:
    """Indexes of boxes grouped by touching (within ``GAP``), merged until no two groups touch."""
    groups: list[tuple[Box, list[int]]] = []
    for i, box in enumerate(boxes):
        merged, members = box, [i]
        rest = []
        for gbox, gmembers in groups:
            if _touch(gbox, merged):
                merged, members = _union([gbox, merged]), gmembers + members
            else:
                rest.append((gbox, gmembers))
        changed = True
        while changed:  # the grown box may now touch a group it missed
            changed = False
            keep = []
            for gbox, gmembers in rest:
                if _touch(gbox, merged):
                    merged, members, changed = _union([gbox, merged]), gmembers + members, True
                else:
                    keep.append((gbox, gmembers))
            rest = keep
        groups = [*rest, (merged, members)]
    return [members for _, members in groups]


def _touch(a: Box, b: Box) -> bool:
    return a[0] - GAP <= b[2] and b[0] - GAP <= a[2] and a[1] - GAP <= b[3] and b[1] - GAP <= a[3]


def _union(boxes: list[Box]) -> Box:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _is_frame(box: Box, region: Box) -> bool:
    """A path spanning the whole region: the frame or background of a box, not a mark inside it."""
    return all(abs(a - b) <= 2 for a, b in zip(box, region, strict=True))


def _centre_in(line: Line, box: Box) -> bool:
    x, y = (line.x0 + line.x1) / 2, (line.top + line.bottom) / 2
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _marks(paths: list[Path], boxes: list[Box], lines: list[Line]) -> int:
    """Curve and diagonal segments of the paths, or, where there are fewer than ``MIN_MARKS``, the bars: filled
    rectangles at least ``MIN_BAR`` thick with no text in them (a shaded cell or a struck-through line is not
    a bar), sharing a baseline (bottom, or left edge for horizontal bars), with different lengths."""
    count = 0
    for obj, matrix, _ in paths:
        count += _strokes(obj, matrix)
        if count >= MIN_MARKS:
            return count
    bars: dict[tuple[str, int], set[int]] = {}
    for (obj, _, _), box in zip(paths, boxes, strict=True):
        if (pdfium_c.FPDFPath_CountSegments(obj) > 5 or min(box[2] - box[0], box[3] - box[1]) < MIN_BAR
                or not _filled(obj) or any(_centre_in(ln, box) for ln in lines)):
            continue
        bars.setdefault(("v", round(box[3])), set()).add(round(box[3] - box[1]))
        bars.setdefault(("h", round(box[0])), set()).add(round(box[2] - box[0]))
    return max([count, *(len(lengths) for lengths in bars.values())])


def _filled(obj: Any) -> bool:
    fill, stroke = ctypes.c_int(0), ctypes.c_int(0)
    return bool(pdfium_c.FPDFPath_GetDrawMode(obj, ctypes.byref(fill), ctypes.byref(stroke)) and fill.value)


def _strokes(obj: Any, matrix: tuple[float, ...]) -> int:
    """Curve segments, and straight segments that are neither horizontal nor vertical, of one path."""
    a, b, c, d, e, f = matrix
    x, y = ctypes.c_float(), ctypes.c_float()
    count, previous = 0, None
    for i in range(pdfium_c.FPDFPath_CountSegments(obj)):
        segment = pdfium_c.FPDFPath_GetPathSegment(obj, i)
        kind = pdfium_c.FPDFPathSegment_GetType(segment)
        if not pdfium_c.FPDFPathSegment_GetPoint(segment, ctypes.byref(x), ctypes.byref(y)):
            continue
        point = (a * x.value + c * y.value + e, b * x.value + d * y.value + f)
        if kind == pdfium_c.FPDF_SEGMENT_BEZIERTO:
            count += 1
        elif kind == pdfium_c.FPDF_SEGMENT_LINETO and previous is not None:
            count += abs(point[0] - previous[0]) > 1 and abs(point[1] - previous[1]) > 1
        previous = point
    return count


def _paths(parent: Any, outer: tuple[float, ...], depth: int = 0) -> Iterator[Path]:
    """Each path object with its full matrix and its bounds in page space (PDF coordinates), form XObjects
    included (three levels deep)."""
    is_page = depth == 0
    count = pdfium_c.FPDFPage_CountObjects(parent) if is_page else pdfium_c.FPDFFormObj_CountObjects(parent)
    matrix = pdfium_c.FS_MATRIX()
    box = [ctypes.c_float() for _ in range(4)]
    get_object = pdfium_c.FPDFPage_GetObject if is_page else pdfium_c.FPDFFormObj_GetObject
    get_type, wanted = pdfium_c.FPDFPageObj_GetType, (pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_FORM)
    for i in range(count):  # a text page holds thousands of objects: the loop does no more than it must
        obj = get_object(parent, i)
        kind = get_type(obj)
        if kind not in wanted:
            continue
        own = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
        if pdfium_c.FPDFPageObj_GetMatrix(obj, ctypes.byref(matrix)):
            own = (matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f)
        if kind == pdfium_c.FPDF_PAGEOBJ_FORM:
            if depth < 3:
                yield from _paths(obj, _compose(own, outer), depth + 1)
            continue
        if not pdfium_c.FPDFPageObj_GetBounds(obj, *(ctypes.byref(v) for v in box)):
            continue
        x0, y0, x1, y1 = (v.value for v in box)
        if not is_page:  # bounds of an object inside a form are in the form's space
            corners = [_apply(outer, px, py) for px in (x0, x1) for py in (y0, y1)]
            x0, x1 = min(p[0] for p in corners), max(p[0] for p in corners)
            y0, y1 = min(p[1] for p in corners), max(p[1] for p in corners)
        yield obj, _compose(own, outer), (x0, y0, x1, y1)


def _compose(inner: tuple[float, ...], outer: tuple[float, ...]) -> tuple[float, ...]:
    """The matrix applying ``inner`` then ``outer`` (PDF row-vector convention)."""
    a1, b1, c1, d1, e1, f1 = inner
    a2, b2, c2, d2, e2, f2 = outer
    return (a1 * a2 + b1 * c2, a1 * b2 + b1 * d2, c1 * a2 + d1 * c2, c1 * b2 + d1 * d2,
            e1 * a2 + f1 * c2 + e2, e1 * b2 + f1 * d2 + f2)


def _apply(m: tuple[float, ...], x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]
