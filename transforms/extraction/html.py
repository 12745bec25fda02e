"""HTML -> Markdown with BeautifulSoup: headings, paragraphs, nested lists, tables and preformatted text.

Scripts, styles, navigation and other non-content elements are dropped; ``<title>`` becomes the ``#`` heading
when the page has no ``<h1>``. Text hidden by an attribute or inline style leaves the body; its sentences that
address an assistant end the document as flagged ``[texto oculto]`` lines (``transforms/extraction/hidden.py``).
"""

from __future__ import annotations

import logging
from pathlib import Path

from bs4 import BeautifulSoup, Comment, Declaration, Doctype, NavigableString, ProcessingInstruction, Tag

from lakehouse.errors import DocumentError
from transforms.extraction.hidden import hidden_block, hidden_warning
from transforms.extraction.hidden_html import page_background, take_hidden
from transforms.extraction.markdown import Block, clean_line, normalise_text, render, to_pipe_table
from transforms.extraction.types import Extracted

logger = logging.getLogger(__name__)

_DROP = {"script", "style", "nav", "noscript", "template", "svg", "iframe", "head", "button", "select",
         "object"}
_NOT_TEXT = (Comment, Doctype, Declaration, ProcessingInstruction)
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_CONTAINERS = {"html", "body", "div", "section", "article", "main", "header", "footer", "aside", "figure",
               "figcaption", "form", "fieldset", "address", "center", "details", "summary", "dl", "dd", "dt",
               "blockquote", "li", "td", "th", "tbody", "thead", "tfoot"}
_BLOCKS = _CONTAINERS | set(_HEADINGS) | {"p", "ul", "ol", "table", "pre", "hr"}


def extract_html(path: Path) -> Extracted:
    """Markdown of an HTML file (its encoding from the BOM, ``<meta charset>`` or detection)."""
    try:
        soup = BeautifulSoup(path.read_bytes(), "html.parser")
    except Exception as exc:  # html.parser is lenient; this is a last resort
        raise DocumentError(f"unreadable HTML: {exc}") from exc
    title = clean_line(soup.title.get_text()) if soup.title else ""
    behind = page_background(soup)  # before <style> is dropped: it says whether the background is known
    for tag in soup.find_all(_DROP):
        tag.decompose()
    hidden = take_hidden(soup, behind)
    blocks: list[Block] = []
    _walk(soup, blocks, 0)
    if title and not any(b.kind == "heading" and b.level == 1 for b in blocks):
        blocks.insert(0, Block("heading", title, level=1))
    warnings = ([] if blocks else ["no text found in the HTML"]) + hidden_warning(hidden)
    block = hidden_block(hidden)
    markdown, _ = render(blocks + ([block] if block else []))
    return Extracted(normalise_text(markdown), "html", warnings=warnings)


def _walk(node: Tag, out: list[Block], depth: int) -> None:
    """Append blocks for ``node``'s children; loose inline text between blocks becomes paragraphs."""
    inline: list[str] = []
    for child in node.children:
        if isinstance(child, _NOT_TEXT):
            continue
        if isinstance(child, NavigableString):
            inline.append(str(child))
        elif isinstance(child, Tag) and child.name == "br":
            inline.append("\n")
        elif isinstance(child, Tag) and (child.name in _BLOCKS or child.find(_BLOCKS) is not None):
            _flush(inline, out)
            _block(child, out, depth)
        elif isinstance(child, Tag):
            inline.append(_inline_text(child))
    _flush(inline, out)


def _inline_text(tag: Tag) -> str:
    parts = []
    for piece in tag.descendants:
        if isinstance(piece, NavigableString) and not isinstance(piece, _NOT_TEXT):
            parts.append(str(piece))
        elif isinstance(piece, Tag) and piece.name == "br":
            parts.append("\n")
    return "".join(parts)


def _flush(inline: list[str], out: list[Block], kind: str = "para") -> None:
    lines = [clean_line(t) for t in "".join(inline).split("\n")]
    text = "\n".join(t for t in lines if t)
    inline.clear()
    if text:
        out.append(Block(kind, text))


def _block(tag: Tag, out: list[Block], depth: int) -> None:
    name = tag.name
    if name in _HEADINGS:
        text = clean_line(tag.get_text(" "))
        if text:
            out.append(Block("heading", text, level=_HEADINGS[name]))
    elif name == "p":
        _walk(tag, out, depth)
    elif name in ("ul", "ol"):
        _list(tag, out, depth)
    elif name == "table":
        _table(tag, out)
    elif name == "pre":
        code = tag.get_text().strip("\n")
        if code.strip():
            out.append(Block("raw", f"```\n{code}\n```"))
    elif name != "hr":
        _walk(tag, out, depth)


def _list(tag: Tag, out: list[Block], depth: int) -> None:
    number = int(tag.get("start", 1)) if tag.name == "ol" and str(tag.get("start", "1")).isdigit() else 1
    for li in tag.find_all("li", recursive=False):
        inline: list[str] = []
        nested: list[Tag] = []
        for child in li.children:
            if isinstance(child, Tag) and child.name in _BLOCKS - {"p", "div"}:  # sub-lists, tables
                nested.append(child)
            elif isinstance(child, Tag):
                inline.append(_inline_text(child) + ("\n" if child.name in ("p", "div") else ""))
            elif not isinstance(child, _NOT_TEXT):
                inline.append(str(child))
        text = " ".join(clean_line(t) for t in "".join(inline).split("\n") if clean_line(t))
        if text:
            out.append(Block("item", text, level=depth, number=number if tag.name == "ol" else None))
            number += 1
        for child in nested:
            if child.name in ("ul", "ol"):
                _list(child, out, depth + 1)
            else:
                _block(child, out, depth + 1)


def _cell_text(cell: Tag) -> str:
    """One line for a table cell. A table nested in it reads as its cells' text in order, separated by spaces
    only, as a reader sees it (``A1 B1 C1 D1``): separators that are not in the page would be read as text."""
    return " ".join(cell.get_text(" ").split())


def _table(tag: Tag, out: list[Block]) -> None:
    rows: list[list[str]] = []
    for tr in tag.find_all("tr"):
        if tr.find_parent("table") is not tag:
            continue  # a row of a nested table
        cells: list[str] = []
        for cell in tr.find_all(("td", "th"), recursive=False):
            cells.append(_cell_text(cell))
            span = str(cell.get("colspan", "1"))
            cells += [""] * (int(span) - 1 if span.isdigit() and 1 < int(span) < 50 else 0)
        if any(cells):
            rows.append(cells)
    if not rows:
        return
    if len(rows) == 1 or max(len(r) for r in rows) == 1:  # a layout table
        out.extend(Block("para", c) for r in rows for c in r if c)
        return
    out.append(Block("table", to_pipe_table(rows[0], rows[1:])))
