"""PDF text a reader cannot see: drawn in the invisible render mode, or filled in white or near-white where no
darker filled shape or image lies under it (``transforms/extraction/hidden.py``). Read at a line's sampled
characters only; the page's shapes are listed once, and only for a page that has white text."""

from __future__ import annotations

import ctypes

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from transforms.extraction.hidden import near

Box = tuple[float, float, float, float]  # left, bottom, right, top in page space
_WHITE = (255, 255, 255)
_FILLED_MODES = (pdfium_c.FPDF_TEXTRENDERMODE_FILL, pdfium_c.FPDF_TEXTRENDERMODE_FILL_CLIP,
                 pdfium_c.FPDF_TEXTRENDERMODE_FILL_STROKE, pdfium_c.FPDF_TEXTRENDERMODE_FILL_STROKE_CLIP)


class Backdrop:
    """The boxes of a page's filled shapes that are not white, and of its images (read on first use)."""

    def __init__(self, page: pdfium.PdfPage) -> None:
        self.page = page
        self._boxes: list[Box] | None = None

    def covers(self, box: Box) -> bool:
        if self._boxes is None:
            self._boxes = self._read()
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        return any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in self._boxes)

    def _read(self) -> list[Box]:
        kinds = (pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_IMAGE, pdfium_c.FPDF_PAGEOBJ_SHADING)
        return [obj.get_bounds() for obj in self.page.get_objects(filter=kinds, max_depth=4)
                if obj.type != pdfium_c.FPDF_PAGEOBJ_PATH or _filled_dark(obj)]


def _filled_dark(obj: pdfium.PdfObject) -> bool:
    fill, stroke = ctypes.c_int(0), ctypes.c_int(0)
    if not pdfium_c.FPDFPath_GetDrawMode(obj.raw, ctypes.byref(fill), ctypes.byref(stroke)) or not fill.value:
        return False
    r, g, b, a = (ctypes.c_uint(0) for _ in range(4))
    if not pdfium_c.FPDFPageObj_GetFillColor(obj.raw, *(ctypes.byref(c) for c in (r, g, b, a))):
        return False
    return bool(a.value) and not near((r.value, g.value, b.value), _WHITE)


def _char_fill(textpage: pdfium.PdfTextPage, index: int) -> tuple[int, int, int] | None:
    r, g, b, a = (ctypes.c_uint(0) for _ in range(4))
    if not pdfium_c.FPDFText_GetFillColor(textpage.raw, index, *(ctypes.byref(c) for c in (r, g, b, a))):
        return None
    return (r.value, g.value, b.value) if a.value else _WHITE  # a transparent fill paints nothing


def _render_mode(textpage: pdfium.PdfTextPage, index: int) -> int | None:
    obj = pdfium_c.FPDFText_GetTextObject(textpage.raw, index)
    return int(pdfium_c.FPDFTextObj_GetTextRenderMode(obj)) if obj else None


def _hidden_char(textpage: pdfium.PdfTextPage, index: int) -> str | None:
    """``invisible`` (render mode 3), ``white`` (filled in near-white) or None for a character that shows."""
    mode = _render_mode(textpage, index)
    if mode == pdfium_c.FPDF_TEXTRENDERMODE_INVISIBLE:
        return "invisible"
    if mode is not None and mode not in _FILLED_MODES:
        return None  # outlined text shows whatever its fill
    fill = _char_fill(textpage, index)
    return "white" if fill is not None and near(fill, _WHITE) else None


def invisible(textpage: pdfium.PdfTextPage, samples: list[int], boxes: list[Box], backdrop: Backdrop) -> bool:
    """Every sampled character of a line is drawn invisibly, or filled in (near-)white on no darker backdrop.
    A line that shows costs one look at its first character."""
    kinds = []
    for i in samples:
        kind = _hidden_char(textpage, i)
        if kind is None:
            return False
        kinds.append(kind)
    return "white" not in kinds or not any(backdrop.covers(box) for box in boxes)
