"""Page geometry for PDF layout: where body text sits, its line pitch, heading sizes, and where tables go."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from transforms.extraction.pdf_lines import Line
from transforms.extraction.pdf_tables import PdfTable

_NOTE_MARK = re.compile(r"^(?:\d{1,3}|[¹²³⁴⁵⁶⁷⁸⁹⁰]+|[*†‡§])\s?\S")
NOTE_SIZE = 0.85  # footnotes are set in a smaller type than the body
_TEXT_LINE = 60  # characters: a size whose lines (three or more) are this long on average sets running text
HEADING_SIZE = 1.15  # a font this much larger than the body text is a heading's ("asn1 parser2tree": 13.1 pt on 11)


@dataclass(frozen=True)
class Margins:
    """Where body text starts and ends on a page, and its usual line pitch (top to top)."""

    left: float
    right: float
    pitch: float


def page_margins(lines: list[Line], body: float) -> Margins:
    """Left and right edges of the page's body-size lines and the 20th percentile of its line steps."""
    main = [ln for ln in lines if abs(ln.size - body) <= 0.15 * body] or lines
    if not main:
        return Margins(0, 0, 1.2 * body)
    pairs = zip(lines, lines[1:], strict=False)
    steps = sorted(b.top - a.top for a, b in pairs if 0 < b.top - a.top < 3 * max(a.size, b.size))
    pitch = steps[len(steps) // 5] if steps else 1.2 * body
    return Margins(min(ln.x0 for ln in main), max(ln.x1 for ln in main), pitch)


def size_levels(pages: list[list[Line]], body: float) -> dict[float, int]:
    """Heading level of each font size clearly above the body size and not used for running text (a large
    share of the characters, or long lines: a lead paragraph set larger than a document full of small tables)."""
    chars: Counter[float] = Counter()
    line_count: Counter[float] = Counter()
    total = 0
    for lines in pages:
        for ln in lines:
            total += len(ln.text)
            if ln.size >= HEADING_SIZE * body and len(ln.text) <= 150:
                chars[round(ln.size * 2) / 2] += len(ln.text)
                line_count[round(ln.size * 2) / 2] += 1
    sizes = sorted((s for s, n in chars.items()
                    if n < 0.3 * total and (line_count[s] < 3 or n <= _TEXT_LINE * line_count[s])), reverse=True)
    return {s: min(i + 1, 4) for i, s in enumerate(sizes)}


def interleave(lines: list[Line], tables: list[PdfTable]) -> list[Line | PdfTable]:
    """The page's lines with each table in place of the first line inside it (the others dropped)."""
    def inside(ln: Line, t: PdfTable) -> bool:
        x, y = (ln.x0 + ln.x1) / 2, (ln.top + ln.bottom) / 2
        return t.bbox[0] - 1 <= x <= t.bbox[2] + 1 and t.bbox[1] - 1 <= y <= t.bbox[3] + 1

    items: list[Line | PdfTable] = []
    placed: list[PdfTable] = []
    for ln in lines:
        table = next((t for t in tables if inside(ln, t)), None)
        if table is None:
            items.append(ln)
        elif table not in placed:
            items.append(table)
            placed.append(table)
    for table in (t for t in tables if t not in placed):
        below = (i for i, it in enumerate(items) if isinstance(it, Line) and it.top > table.bbox[1])
        at = next(below, len(items))
        items.insert(at, table)
    for table in tables:  # a table drawn after the text below it goes back under its caption
        at = items.index(table)
        first = next((i for i, it in enumerate(items[:at]) if isinstance(it, Line) and _below(it, table)), None)
        if first is not None:
            items.insert(first, items.pop(at))
    return items


def _below(line: Line, table: PdfTable) -> bool:
    """The line starts below the table's top edge and right under its bottom one (within four lines), in the
    table's columns: the text that follows the table, not a page footer drawn first."""
    x0, top, x1, bottom = table.bbox
    return top < line.top < bottom + 4 * line.size and line.x0 < x1 and line.x1 > x0


def footnotes_last(lines: list[Line], body: float) -> list[Line]:
    """The page's lines with each footnote after the text of its column. A footnote is a run of lines in small
    type below every body-size line of its column, the first starting with a note mark ("¹ The service ...",
    "2 Ver o art. 5º"); typesetting often draws them before the columns, which put them before the text."""
    out = list(lines)
    i = 0
    while i < len(out):
        first = out[i]
        if first.size > NOTE_SIZE * body or not _NOTE_MARK.match(first.text.strip()):
            i += 1
            continue
        j = i + 1
        while j < len(out) and out[j].size <= NOTE_SIZE * body and out[j].top >= first.top:
            j += 1
        note = out[i:j]
        x0, x1, top = min(n.x0 for n in note), max(n.x1 for n in note), first.top
        column = [k for k, ln in enumerate(out) if not i <= k < j and ln.x0 < x1 and ln.x1 > x0
                  and abs(ln.size - body) <= 0.15 * body]
        if not column or any(out[k].bottom > top for k in column):
            i = j
            continue
        last = max(column)
        if last > i:  # drawn before its column's text: move it after that text
            out[i:j] = []
            at = last - len(note) + 1
            out[at:at] = note
            continue
        i = j
    return out


def overlays_first(lines: list[Line]) -> list[Line]:
    """The page's lines with any run drawn after text it sits above (wholly above every line drawn before it,
    such as a gazette's section labels stamped over the page: "PODER EXECUTIVO", "DECRETOS") moved to the front:
    a reader reads it first. A second column starting level with the first, or a line or so higher, is not
    moved; lines at the foot of the page (a letterhead footer drawn first) do not count as text drawn before."""
    if not lines:
        return []
    foot = 0.85 * max(ln.bottom for ln in lines)
    out = list(lines)
    lowest = float("inf")
    i = 0
    while i < len(out):
        if out[i].bottom >= lowest - 2 * out[i].size or lowest == float("inf"):  # a column starting a line higher
            if out[i].top <= foot:
                lowest = min(lowest, out[i].top)
            i += 1
            continue
        j = i
        while j < len(out) and out[j].bottom < lowest:
            j += 1
        out[0:0] = out[i:j]
        del out[j: j + (j - i)]
        lowest = min(ln.top for ln in out[:j] if ln.top <= foot)
        i = j
    return out


def sideways_in_order(lines: list[Line]) -> list[Line]:
    """The page's lines with each run of text set sideways or upside down in its own reading order: lines
    read bottom to top follow each other rightwards, top to bottom leftwards, upside down upwards (PDFium
    lists such a run by position, not as it reads)."""
    keys = {90: lambda ln: ln.x0, 270: lambda ln: -ln.x0, 180: lambda ln: -ln.top}
    out: list[Line] = []
    i = 0
    while i < len(lines):
        j = i + 1
        while j < len(lines) and lines[i].angle and lines[j].angle == lines[i].angle:
            j += 1
        run = lines[i:j]
        out += sorted(run, key=keys[run[0].angle]) if run[0].angle in keys else run
        i = j
    return out
