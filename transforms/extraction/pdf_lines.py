"""Text lines of a PDF page with their position and style, read through pypdfium2 (about 1-5 ms a page).

Lines a reader cannot see (under 2 pt, white fill on no darker shape, invisible render mode:
``pdf_hidden.py``) are not lines of the page; their text goes to the caller's ``hidden`` list."""

from __future__ import annotations

import ctypes
import math
import re
from collections import Counter
from dataclasses import dataclass, replace

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from transforms.extraction.pdf_hidden import Backdrop, invisible
from transforms.extraction.structure import numbered_heading_level
from transforms.extraction.unicode import join_surrogates

_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi", re.I)
_FORCE_BOLD = 1 << 18  # PDF font descriptor flag
_MIN_SIZE = 2.0  # points; smaller text is invisible (hidden bookmarks, or words hidden from the reader)
_DIGITS = re.compile(r"\d+")
_MAX_RUN_IN = 120  # characters: a run-in heading is short
_HYPHENS = frozenset("-\x02\u00ad\u2010\ufffe")


@dataclass
class Line:
    """One visual line. Coordinates are points from the page's top-left corner (pdfplumber's convention)."""

    text: str
    page: int  # 0-based
    x0: float
    x1: float
    top: float
    bottom: float
    size: float  # font size in points as rendered (font size times the text matrix scale)
    bold: bool
    margin: bool = False  # a running header or footer, kept once
    run_in: bool = False  # the bold start of a line split from its paragraph ("5.1 Results." ...)
    angle: int = 0  # text direction from the character matrix, degrees counter-clockwise: 0, 90, 180 or 270

    @property
    def height(self) -> float:
        return self.bottom - self.top


def _font_size(textpage: pdfium.PdfTextPage, index: int) -> tuple[float, int]:
    """The character's rendered font size, and its direction rounded to a quarter turn."""
    matrix = pdfium_c.FS_MATRIX()
    scale, angle = 1.0, 0
    if pdfium_c.FPDFText_GetMatrix(textpage.raw, index, ctypes.byref(matrix)):
        scale = abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5 or 1.0
        angle = round(math.degrees(math.atan2(matrix.b, matrix.a)) / 90) % 4 * 90
    return float(pdfium_c.FPDFText_GetFontSize(textpage.raw, index)) * scale, angle


def _is_bold(textpage: pdfium.PdfTextPage, index: int) -> bool:
    buf = ctypes.create_string_buffer(128)
    flags = ctypes.c_int(0)
    pdfium_c.FPDFText_GetFontInfo(textpage.raw, index, buf, len(buf), ctypes.byref(flags))
    name = buf.value.decode("latin-1", "replace")
    return bool(_BOLD_NAME.search(name) or flags.value & _FORCE_BOLD
                or pdfium_c.FPDFText_GetFontWeight(textpage.raw, index) >= 600)


def page_lines(page: pdfium.PdfPage, page_index: int, hidden: list[str] | None = None) -> list[Line]:
    """The page's lines in content order; style is sampled at the first, middle and last visible character.
    The text of lines hidden from a reader is appended to ``hidden``."""
    textpage = page.get_textpage()
    try:
        count = textpage.count_chars()
        unicode_of, raw = pdfium_c.FPDFText_GetUnicode, textpage.raw
        chars = join_surrogates([unicode_of(raw, i) for i in range(count)])
        left, _, _, top_edge = page.get_mediabox()
        lines: list[Line] = []
        backdrop = Backdrop(page)
        for start, end in _segments(textpage, chars):
            indexes = [i for i in range(start, end) if chars[i] and not chars[i].isspace() and chars[i] != "\x00"]
            if not indexes:
                continue
            samples = sorted({indexes[0], indexes[len(indexes) // 2], indexes[-1]})
            styles = [_font_size(textpage, i) for i in samples]
            size, angle = max(size for size, _ in styles), styles[0][1]
            boxes = [textpage.get_charbox(i, loose=True) for i in samples]
            if size < _MIN_SIZE or invisible(textpage, samples, boxes, backdrop):
                if hidden is not None:
                    hidden.append("".join(chars[indexes[0]: indexes[-1] + 1]))
                continue
            span = (top_edge - max(b[3] for b in boxes), top_edge - min(b[1] for b in boxes))
            first_bold = _is_bold(textpage, samples[0])
            last_bold = first_bold and _is_bold(textpage, samples[-1])
            bold = last_bold and all(_is_bold(textpage, i) for i in samples[1:-1])
            split = _run_in_heading(textpage, chars, indexes) if first_bold and not last_bold else None
            if angle:  # set sideways or upside down: read in its own direction, never split
                lines.append(replace(_line(textpage, chars, indexes, page_index, left, span, size, bold),
                                     angle=angle))
            elif split is None:
                lines.append(_line(textpage, chars, indexes, page_index, left, span, size, bold))
            else:  # "5.1 Hyper Parameter Optimization We have chosen ...": the bold heading, then its paragraph
                lines.append(replace(_line(textpage, chars, indexes[:split], page_index, left, span, size, True),
                                     run_in=True))
                lines.append(_line(textpage, chars, indexes[split:], page_index, left, span, size, False))
        return lines
    finally:
        textpage.close()


def _line(textpage: pdfium.PdfTextPage, chars: list[str], indexes: list[int], page_index: int, left: float,
          span: tuple[float, float], size: float, bold: bool) -> Line:
    first, last = textpage.get_charbox(indexes[0]), textpage.get_charbox(indexes[-1])
    text = "".join(chars[indexes[0]: indexes[-1] + 1]).replace("\r", "")
    return Line(text=text.replace("\x02", "-").replace("\ufffe", "-"), page=page_index,
                x0=min(first[0], last[0]) - left, x1=max(first[2], last[2]) - left, top=span[0], bottom=span[1],
                size=round(size, 1), bold=bold)


def _run_in_heading(textpage: pdfium.PdfTextPage, chars: list[str], indexes: list[int]) -> int | None:
    """Where a bold heading that runs into its (regular) paragraph ends, as a position in ``indexes``: a
    numbered one ("5.1 Results." ...) or a short phrase in title case followed by a new sentence ("Boots
    Self-Locking Nut The Boots ...", not "DAVI PIRES BATISTA, Prefeito ..." nor a contents entry). None when
    the bold start of the line is not such a heading (a label such as "Atenção:" or "AGENCY:")."""
    for k, i in enumerate(indexes[:_MAX_RUN_IN]):
        if not _is_bold(textpage, i):
            head = "".join(chars[indexes[0]: i]).strip()
            if not k:
                return None
            numbered = numbered_heading_level(head.rstrip(".:"))
            return k if numbered or (title_phrase(head) and chars[i].isupper()) else None  # a new sentence
    return None


def title_phrase(text: str) -> bool:
    """A heading's wording: two to twelve words, no final punctuation, its longer words capitalised
    ("Related Service Information Under 1 CFR Part 51", "Costs of Compliance")."""
    words = text.split()
    if not 2 <= len(words) <= 12 or text[-1:] in ".,;:!?" or not text[:1].isupper():
        return False
    long = [w for w in words if len(w) > 3 and w[:1].isalpha()]
    return bool(long) and sum(w[:1].isupper() for w in long) >= 0.75 * len(long)


def _segments(textpage: pdfium.PdfTextPage, chars: list[str]) -> list[tuple[int, int]]:
    """[start, end) character ranges of visual lines. PDFium ends lines with a generated newline, except after
    a hyphen at the end of a line, which it joins to the next line: those are cut where the text moves
    down."""
    segments = []
    start = 0
    for end in [i for i, c in enumerate(chars) if c == "\n"] + [len(chars)]:
        for k in range(start, end - 1):
            if chars[k] in _HYPHENS and chars[k + 1].isalpha():
                hyphen, after = textpage.get_charbox(k), textpage.get_charbox(k + 1)
                if after[3] < hyphen[1]:  # the next character's top is below the hyphen: a new line
                    segments.append((start, k + 1))
                    start = k + 1
        segments.append((start, end))
        start = end + 1
    return segments


def _signature(line: Line) -> str:
    """The text with digits masked and a trailing number dropped ("Página 3" and a cover's bare "Página")."""
    return _DIGITS.sub("#", " ".join(line.text.split())).lower().rstrip("# ")


def split_margins(pages: list[list[Line]], page_heights: list[float]) -> tuple[list[list[Line]], list[Line]]:
    """Take running headers and footers out of the body. A line in the top or bottom 20% of the page is running
    when its text, with digits masked, recurs once a page at the same place and size (its band) on at least
    half of the pages (and on two or more), or when it sits in such a band that holds, on half of the pages, a
    line whose text recurs there: a manual's header that names each chapter ("Chapter 2: ASN.1 structure
    handling 3") changes every few pages but keeps its place. A title in display type at the top of the
    cover is not the running header that repeats its words in small type. Returns the body lines of each page
    and each running line once (headers first): a document code, an edition or an approver survive there, for
    the governance-metadata rules."""
    if len(pages) < 2:
        return pages, []
    counts: Counter[tuple[str, tuple[str, int, int]]] = Counter()
    band_pages: Counter[tuple[str, int, int]] = Counter()
    for lines, height in zip(pages, page_heights, strict=True):
        per_page = Counter(_signature(ln) for ln in lines)
        placed = {(_signature(ln), _band(ln, height)) for ln in lines if _in_margin(ln, height)}
        counts.update({(sig, band) for sig, band in placed if per_page[sig] == 1})  # body text repeats in a page
        band_pages.update({band for _, band in placed})
    threshold = max(2, (len(pages) + 1) // 2)
    repeated = {key for key, n in counts.items() if n >= threshold}
    bands = {band for (_, band), n in counts.items() if n >= 2 and band_pages[band] >= threshold}
    seen: set[str] = set()
    headers: list[Line] = []
    footers: list[Line] = []
    result: list[list[Line]] = []
    for lines, height in zip(pages, page_heights, strict=True):
        body: list[Line] = []
        for ln in lines:
            sig = _signature(ln)
            band = _band(ln, height) if _in_margin(ln, height) else None
            if band is None or ((sig, band) not in repeated and band not in bands):
                body.append(ln)
            elif sig not in seen:
                seen.add(sig)
                (headers if band[0] == "top" else footers).append(replace(ln, margin=True))
        result.append(body)
    return result, headers + footers


def _band(line: Line, height: float) -> tuple[str, int, int]:
    """Where a margin line sits: its edge of the page, its distance from that edge and its size (2-pt steps);
    a line set sideways, by its distance from the left edge."""
    if line.angle in (90, 270):
        return ("side", round(line.x0 / 2), round(line.size / 2))
    if line.bottom < 0.2 * height:
        return ("top", round(line.top / 2), round(line.size / 2))
    return ("bottom", round((height - line.bottom) / 2), round(line.size / 2))


def _in_margin(line: Line, height: float) -> bool:
    """In the top or bottom 20% of the page, or set sideways (a stamp along the side margin)."""
    return line.bottom < 0.2 * height or line.top > 0.8 * height or line.angle in (90, 270)


def body_size(pages: list[list[Line]]) -> float:
    """The most common line height, weighted by characters."""
    sizes: Counter[float] = Counter()
    for lines in pages:
        for ln in lines:
            sizes[round(ln.size * 2) / 2] += len(ln.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0
