"""PDF lines and tables -> Markdown blocks.

Headings come from legal structure (``CAPÍTULO`` ``##``, ``Seção`` ``###``, ``Art.`` ``####``, act titles
such as ``LEI Nº ...`` ``#``), from font size relative to the body text, from numbering (``7.1 Escopo``) and
from bold short lines that stand alone (a bold run-in start split off by ``pdf_lines``; a line in capitals
over a title-case one: "DEPARTMENT OF TRANSPORTATION" / "Federal Aviation Administration"); a run of same-level
headings with nothing between them is display text (a colophon), kept as paragraphs. Lines are joined into
paragraphs unless a gap, an indent, a style change or a finished sentence on a short line separates them.
Before that, each page's lines are put in reading order where the content stream is not: footnotes drawn
before their column go after it, and labels stamped over the page after its text come first
(``pdf_geometry``).
"""

from __future__ import annotations

import re

from transforms.extraction.markdown import Block, clean_line
from transforms.extraction.pdf_geometry import (
    Margins,
    footnotes_last,
    interleave,
    overlays_first,
    page_margins,
    sideways_in_order,
    size_levels,
)
from transforms.extraction.pdf_levels import fold_title, listed_titles, nested_level, rank_by_case
from transforms.extraction.pdf_lines import Line
from transforms.extraction.pdf_tables import PdfTable
from transforms.extraction.structure import (
    ACT_TITLE,
    ListItem,
    ends_sentence,
    is_upper,
    legal_division,
    list_item,
    looks_like_caps_heading,
    numbered_heading_level,
)

_CLAUSE_END = re.compile(r"[;,]\s*(?:e|ou|and|or)$")
_DISPLAY_RUN = 3  # headings of one level in a row that are display text, not sections
_DANGLING = re.compile(r"\b(?:de|da|do|das|dos|e|a|o|em|no|na|para|por|com|of|the|and|to|in|for)$", re.I)


class _Builder:
    def __init__(self, pages: list[list[Line]], body: float) -> None:
        self.body = body
        self.levels = size_levels(pages, body)
        self.bold_level = max(2, min(len(self.levels) + 1, 4))
        self.blocks: list[Block] = []
        self.prev: Line | None = None
        self.awaiting_title = False  # a CAPÍTULO/Seção heading whose title is on the next line
        self.in_subsection = False
        self.letterhead = any(ACT_TITLE.match(clean_line(ln.text)) for ln in (pages[0] if pages else []))
        self.tables_seen: set[str] = set()
        self.styled: set[int] = set()  # headings found by size, weight or numbering (not legal divisions)
        self.sizes: list[tuple[float, int]] = []  # (font size, level) of the headings so far
        self.capitals: dict[int, bool] = {}  # headings found by weight alone: set in capitals or not
        self.found_by = ""  # how _heading_level found its heading: "numbered", "weight" or ""
        self.listed = listed_titles(pages)  # titles of the table of contents -> level

    @property
    def current(self) -> Block | None:
        return self.blocks[-1] if self.blocks else None

    def add_table(self, table: PdfTable, page: int) -> None:
        self.prev, self.awaiting_title = None, False
        if table.markdown in self.tables_seen:  # the same footer table on every page: keep it once
            return
        self.tables_seen.add(table.markdown)
        cur = self.current
        header, _, rows = table.markdown.partition("\n")
        if (cur is not None and cur.kind == "table" and cur.marks[-1][1] < page and not table.before
                and cur.text.partition("\n")[0] == header):  # a table continued on the next page
            cur.append(rows.partition("\n")[2], page, "\n")
            self.blocks += [Block("para", clean_line(t), page) for t in table.after]
            return
        self.blocks += [Block("para", clean_line(t), page) for t in table.before]
        self.blocks.append(Block("table", table.markdown, page))
        self.blocks += [Block("para", clean_line(t), page) for t in table.after]

    def add_line(self, line: Line, nxt: Line | None, margins: Margins) -> None:
        text = clean_line(line.text)
        if text:
            self._classify(line, text, nxt, margins)
            self.prev = line

    def _classify(self, line: Line, text: str, nxt: Line | None, margins: Margins) -> None:
        cur, page = self.current, line.page
        if line.margin:
            self.blocks.append(Block("para", text, page))
            self.awaiting_title = False
            return
        starts = self._starts_block(line, margins)
        division = legal_division(text)
        heading = cur is not None and cur.kind == "heading"
        if cur is not None and heading and division is None and self._continues_heading(line, text):
            note = text.startswith("(") and text.endswith(")")  # "(Redação dada pela ...)" before the title
            cur.append(text, page, " — " if self.awaiting_title and not note else " ")
            self.awaiting_title = self.awaiting_title and note
            return
        self.awaiting_title = False
        if division is not None and division.label.startswith("Art"):
            if starts or self._after_boundary(line, margins, indent_ok=True):
                self.blocks.append(Block("heading", division.label, page, 5 if self.in_subsection else 4))
                if division.rest:
                    self.blocks.append(Block("para", division.rest, page))
                return
        elif division is not None:
            self.in_subsection = division.level == 4
            title = f"{division.label} — {division.rest}" if division.rest else division.label
            self.blocks.append(Block("heading", title, page, division.level))
            self.awaiting_title = not division.rest
            return
        level = self._heading_level(line, text, nxt, starts)
        if level:
            if self.found_by == "numbered":
                level = nested_level(level, line.size, self.sizes)
            self.blocks.append(Block("heading", text.rstrip(".:").rstrip() if line.run_in else text, page, level))
            self.styled.add(id(self.blocks[-1]))
            self.sizes.append((line.size, level))
            if self.found_by == "weight":
                self.capitals[id(self.blocks[-1])] = is_upper(text)
            return
        item = list_item(text, after_item=cur is not None and cur.kind == "item")
        if item is None and " … " in text:
            item = ListItem(text)
        toc = item is not None and " … " in text
        if item is not None and (starts or toc or not text[0].isalnum()
                                 or self._after_boundary(line, margins)):
            self.blocks.append(Block("item", item.text, page, item.depth, item.number))
        elif cur is not None and cur.kind in ("para", "item") and not starts:
            cur.append(text, page)
        else:
            self.blocks.append(Block("para", text, page))

    def _heading_level(self, line: Line, text: str, nxt: Line | None, starts: bool) -> int:
        self.found_by = ""
        if " … " in text:  # a table-of-contents entry with dot leaders
            return 0
        if ACT_TITLE.match(text) and line.size >= 0.95 * self.body and (
                line.bold or line.size > 1.1 * self.body or looks_like_caps_heading(text)):
            self.letterhead = False
            return 1
        listed = self.listed.get(fold_title(text))
        if listed and (starts or line.bold):
            return listed
        size_level = self.levels.get(round(line.size * 2) / 2)
        if size_level and len(text) <= 150:
            return 0 if self.letterhead and line.page == 0 else size_level
        numbered = numbered_heading_level(text.rstrip(".:") if line.run_in else text)
        if numbered and line.size >= 0.95 * self.body and (
                line.bold or line.size > 1.1 * self.body or (is_upper(text) and len(text) <= 60)):
            self.found_by = "numbered"
            return numbered  # "5.1 Results", "3 DEFINIÇÕES" in regular capitals, "1.2 Prazos." run in
        stands_alone = (nxt is None or not nxt.bold or nxt.top - line.top > 2 * line.size
                        or (abs(line.x0 - nxt.x0) <= 2 and is_upper(text) != is_upper(nxt.text)
                            and not ends_sentence(nxt.text)))  # capitals over a title ("DEPARTMENT OF ...")
        if (line.bold and starts and stands_alone and len(text) <= 80 and line.size >= 0.95 * self.body
                and not text.endswith((".", ",", ";", ":"))):
            self.found_by = "weight"
            return self.bold_level
        return 0

    def _continues_heading(self, line: Line, text: str) -> bool:
        prev, cur = self.prev, self.current
        if prev is None or cur is None or prev.page != line.page or cur.text.startswith("Art"):
            return False
        step, size = line.top - prev.top, max(line.size, prev.size)
        unfinished = bool(_DANGLING.search(cur.text)) or text[:1].islower()
        if step > (2.4 if self.awaiting_title or unfinished else 1.6) * size or len(cur.text) > 250:
            return False
        if self.awaiting_title:
            return list_item(text) is None and len(text) <= 200 and (
                line.bold or is_upper(text) or line.size > self.body * 1.05 or text.startswith("("))
        same_style = abs(line.size - prev.size) <= 0.05 * prev.size and line.bold == prev.bold
        lower = sum(c.islower() for c in text) > sum(c.isupper() for c in text)
        same_case = not (lower and is_upper(cur.text))  # "3 DEFINIÇÕES" does not run into a sentence
        return same_style and same_case and not ends_sentence(cur.text) and list_item(text) is None

    def _after_boundary(self, line: Line, margins: Margins, indent_ok: bool = False) -> bool:
        """A numbered item or article may start here: the previous line closed a clause, or this one is
        indented."""
        prev = self.prev
        if prev is None or (indent_ok and line.x0 > margins.left + 8):
            return True
        return ends_sentence(prev.text) or bool(_CLAUSE_END.search(prev.text))

    def _starts_block(self, line: Line, margins: Margins) -> bool:
        prev, cur = self.prev, self.current
        if prev is None or cur is None or cur.kind in ("heading", "table"):
            return True
        if line.angle or prev.angle:  # text set sideways continues only its own lines, one line-step across
            return line.angle != prev.angle or not _next_across(prev, line)
        size = max(line.size, prev.size)
        if abs(line.size - prev.size) > 0.15 * size:
            return True
        if prev.page != line.page:
            return ends_sentence(cur.text) or line.x0 > margins.left + 8
        if line.top - prev.top > 1.35 * margins.pitch + 0.5 or line.top < prev.top - 0.5 * prev.height:
            return True
        width = margins.right - margins.left
        if line.bold and not prev.bold and (ends_sentence(prev.text) if line.run_in
                                            else prev.x1 < margins.right - 0.15 * width):
            return True  # a bold line after a paragraph's short last line, a run-in heading after a full stop
        full = prev.x1 >= margins.right - 0.1 * width
        if line.x0 > prev.x0 + 8 and line.x0 > margins.left + 8 and full and not (line.bold and prev.bold):
            return True  # a first-line indent after a full line (centred lines and bold titles are not)
        return ends_sentence(prev.text) and prev.x1 < margins.right - 0.15 * width


def layout_blocks(pages: list[list[Line]], tables: dict[int, list[PdfTable]], body: float) -> list[Block]:
    """Markdown blocks of a whole document, in reading order, each tagged with its page."""
    builder = _Builder(pages, body)
    for page, lines in enumerate(pages):
        lines = overlays_first(footnotes_last(sideways_in_order(lines), body))
        margins = page_margins(lines, body)
        items = interleave(lines, tables.get(page, []))
        for i, item in enumerate(items):
            if isinstance(item, PdfTable):
                builder.add_table(item, page)
                continue
            nxt = next((it for it in items[i + 1:] if isinstance(it, Line)), None)
            builder.add_line(item, nxt if isinstance(nxt, Line) else None, margins)
    rank_by_case(builder.blocks, builder.capitals)
    return _display_text(builder.blocks, builder.styled)


def _next_across(prev: Line, line: Line) -> bool:
    """``line`` is the next line of rotated text after ``prev``: beside it, within two line sizes across."""
    if line.angle in (90, 270):
        return 0 < abs(line.x0 - prev.x0) <= 2 * line.size and line.top < prev.bottom and prev.top < line.bottom
    return 0 < abs(line.top - prev.top) <= 2 * line.size and line.x0 < prev.x1 and prev.x0 < line.x1


def _display_text(blocks: list[Block], styled: set[int]) -> list[Block]:
    """Three or more headings of one level in a row on one page, found by style, with no text between them
    are a block of display text (a colophon, a masthead, a cover's lines), not sections: paragraphs. So is a
    heading found by style that opens an empty section (the next block is a heading of its level or above,
    or there is none)."""
    i = 0
    while i < len(blocks):
        j = i
        while (j < len(blocks) and id(blocks[j]) in styled and blocks[j].level == blocks[i].level
               and blocks[j].page == blocks[i].page):
            j += 1
        if j - i >= _DISPLAY_RUN:
            for block in blocks[i:j]:
                block.kind, block.level = "para", 0
        i = max(j, i + 1)
    for k, block in enumerate(blocks):  # a section with nothing in it: a signature's name, a cover's byline
        nxt = blocks[k + 1] if k + 1 < len(blocks) else None
        if (block.kind == "heading" and id(block) in styled
                and (nxt is None or (nxt.kind == "heading" and nxt.level <= block.level))):
            block.kind, block.level = "para", 0
    return blocks
