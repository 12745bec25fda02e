"""DOCX -> Markdown with python-docx: heading styles, numbered and bulleted lists, tables, text boxes (and the
tables in them) in body order, then footnotes and endnotes as ``[^N]: text``.

Section headers and footers (once each) are kept out of the body as ``Extracted.margins``, where the
governance-metadata rules read them: documents often keep their version, dates and approvers there. Runs hidden
from a reader (``w:vanish``, white, under 2 pt) leave the body; their sentences that address an assistant end the
document as flagged ``[texto oculto]`` lines (``transforms/extraction/hidden.py``).
"""

from __future__ import annotations

import logging
import re
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import docx
from docx.table import Table
from docx.text.paragraph import Paragraph
from docx.text.run import Run

from lakehouse.errors import DocumentError
from transforms.extraction.docx_numbering import Numbering
from transforms.extraction.docx_parts import has_text_box, note_texts, take_hidden_runs, text_box_items
from transforms.extraction.hidden import hidden_block, hidden_warning
from transforms.extraction.markdown import Block, clean_line, render, to_pipe_table
from transforms.extraction.structure import legal_division, looks_like_caps_heading, numbered_heading_level
from transforms.extraction.types import Extracted

logger = logging.getLogger(__name__)

_HEADING_STYLE = re.compile(r"^(?:heading|t[íi]tulo|cabe[çc]alho|überschrift|titre)\s*(\d)$", re.I)
_TITLE_STYLE = re.compile(r"^(?:title|t[íi]tulo)$", re.I)
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_NOTE_REFERENCES = (f"{_W}footnoteReference", f"{_W}endnoteReference")


def extract_docx(path: Path) -> Extracted:
    """Markdown of a Word document; DocumentError when it is not a readable DOCX."""
    try:
        document = docx.Document(str(path))
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as exc:
        with path.open("rb") as fh:
            legacy = fh.read(4) == b"\xd0\xcf\x11\xe0"
        reason = "encrypted or legacy .doc file, not a DOCX" if legacy else f"corrupt DOCX: {exc}"
        raise DocumentError(reason) from exc
    except Exception as exc:  # python-docx raises PackageNotFoundError and others for broken packages
        raise DocumentError(f"corrupt DOCX: {exc}") from exc
    hidden = take_hidden_runs(document.element.body)
    converter = _Converter(document)
    margins: list[Block] = []
    seen: set[str] = set()
    for section in document.sections:
        if not section.header.is_linked_to_previous:
            margins += converter.blocks(section.header.iter_inner_content(), seen)
    blocks = converter.blocks(document.iter_inner_content(), None)
    blocks += [Block("para", f"[^{number}]: {text}") for number, text in note_texts(document)]
    for section in document.sections:
        if not section.footer.is_linked_to_previous:
            margins += converter.blocks(section.footer.iter_inner_content(), seen)
    block = hidden_block(hidden)
    markdown, _ = render(blocks + ([block] if block else []))
    return Extracted(markdown, "docx", warnings=hidden_warning(hidden), margins=render(margins)[0])


class _StyleNames:
    """Paragraph style names, resolved once per document: python-docx's ``paragraph.style`` scans every style
    of the document on each call, which made large files quadratic (16,000 paragraphs: minutes)."""

    def __init__(self, document: Any) -> None:
        from docx.enum.style import WD_STYLE_TYPE  # python-docx's own enum, imported with the module above

        paragraph_styles = [s for s in document.styles if s.type == WD_STYLE_TYPE.PARAGRAPH]
        self.by_id = {s.style_id: s.name or "" for s in paragraph_styles}
        default = document.styles.default(WD_STYLE_TYPE.PARAGRAPH)
        self.default = (default.name or "") if default is not None else ""
        self.default_id = default.style_id if default is not None else None

    def of(self, paragraph: Paragraph) -> str:
        style_id = self.id_of(paragraph)
        return self.by_id.get(style_id, self.default) if style_id is not None else self.default

    def id_of(self, paragraph: Paragraph) -> str | None:
        ppr = paragraph._p.pPr
        return ppr.pStyle.val if ppr is not None and ppr.pStyle is not None else self.default_id


class _Converter:
    def __init__(self, document: Any) -> None:
        self.styles = _StyleNames(document)
        names = {self.styles.of(p) for p in document.paragraphs}
        self.shift = 1 if any(_TITLE_STYLE.match(s) for s in names) else 0
        self.numbering = Numbering(document)
        self.counters: Counter[str] = Counter()  # list styles without Word numbering

    def blocks(self, items: Any, seen: set[str] | None) -> list[Block]:
        """Blocks for paragraphs and tables; with ``seen``, text already emitted (a repeated footer) is
        skipped."""
        out: list[Block] = []
        for item in items:
            block = self._table(item) if isinstance(item, Table) else self._paragraph(item)
            if block is not None and (seen is None or block.text not in seen):
                if seen is not None:
                    seen.add(block.text)
                out.append(block)
            if isinstance(item, Paragraph) and has_text_box(item):
                out += self.blocks(text_box_items(item), seen)
        return out

    def _paragraph(self, paragraph: Paragraph) -> Block | None:
        lines = [clean_line(t) for t in _text(paragraph).split("\n")]
        text = "\n".join(t for t in lines if t)
        if not text:
            return None
        style = self.styles.of(paragraph)
        label = self.numbering.label(paragraph, self.styles.id_of(paragraph))
        numbered = f"{label.text} {text}" if label is not None and label.text else text
        if _TITLE_STYLE.match(style):
            return Block("heading", numbered.replace("\n", " "), level=1)
        m = _HEADING_STYLE.match(style)
        if m:
            return Block("heading", numbered.replace("\n", " "), level=min(int(m.group(1)) + self.shift, 6))
        level = self._implicit_heading(paragraph, numbered)
        if level:
            return Block("heading", numbered, level=level)
        if label is not None:  # "3." is an ordered item; "2.3.1.", "a)" or "IV -" keep Word's label in the text
            if label.simple:
                return Block("item", text, level=label.depth, number=label.number)
            return Block("item", numbered, level=label.depth)
        if style.lower().startswith("list"):
            self.counters[style] += 1
            return Block("item", text, number=self.counters[style] if "number" in style.lower() else None)
        return Block("para", text)

    def _implicit_heading(self, paragraph: Paragraph, text: str) -> int:
        """Legal divisions, and bold short numbered or capitalised lines written in a body style."""
        division = legal_division(text)
        if division is not None and not division.label.startswith("Art"):
            return division.level
        runs = [r for r in paragraph.runs if r.text.strip()]
        if not runs or not all(r.bold for r in runs) or "\n" in text:
            return 0
        return numbered_heading_level(text) or (2 if looks_like_caps_heading(text) else 0)

    def _table(self, table: Table) -> Block | None:
        rows: list[list[str]] = []
        for row in table.rows:
            cells, previous = [], None
            for cell in row.cells:
                same = previous is not None and cell._tc is previous  # a merged cell repeats itself
                cells.append("" if same else clean_line(cell.text.replace("\n", " ")))
                previous = cell._tc
            rows.append(cells)
        rows = [r for r in rows if any(r)]
        if not rows:
            return None
        if len(rows) == 1 or len(rows[0]) == 1:  # a layout box, not a table
            return Block("para", "\n".join(c for r in rows for c in r if c))
        return Block("table", to_pipe_table(rows[0], rows[1:]))


def _text(paragraph: Paragraph) -> str:
    """The paragraph's text with ``[^N]`` where it cites a footnote or endnote."""
    if next(paragraph._p.iter(_NOTE_REFERENCES), None) is None:
        return paragraph.text
    parts = []
    for item in paragraph.iter_inner_content():
        parts.append(item.text)
        if isinstance(item, Run):
            parts += [f"[^{ref.get(f'{_W}id')}]" for ref in item._r.iter(_NOTE_REFERENCES)]
    return "".join(parts)
