"""Parts of a Word document that python-docx's body iteration does not reach: text boxes (with the tables
inside them) and footnotes or endnotes."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from docx.oxml import parse_xml
from docx.table import Table
from docx.text.paragraph import Paragraph

logger = logging.getLogger(__name__)

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_NOTES = ("/footnotes", "/endnotes")


def text_box_items(paragraph: Paragraph) -> Iterator[Paragraph | Table]:
    """Paragraphs and tables of the text boxes anchored in ``paragraph``, in order. Word writes each box twice
    (a DrawingML shape and its VML fallback): the fallback copy is skipped, and a box inside a box is read
    with its outer box."""
    anchor = paragraph._p
    for box in anchor.iter(f"{_W}txbxContent"):
        if _nested_or_fallback(box, anchor):
            continue
        for child in box:
            if child.tag == f"{_W}p":
                yield Paragraph(child, paragraph._parent)
            elif child.tag == f"{_W}tbl":
                yield Table(child, paragraph._parent)


def _nested_or_fallback(box: Any, anchor: Any) -> bool:
    node = box.getparent()
    while node is not None and node is not anchor:
        if node.tag in (f"{_W}txbxContent", _FALLBACK):
            return True
        node = node.getparent()
    return False


def has_text_box(paragraph: Paragraph) -> bool:
    return next(paragraph._p.iter(f"{_W}txbxContent"), None) is not None


def note_texts(document: Any) -> list[tuple[str, str]]:
    """``(number, text)`` of every footnote and endnote (separators left out), footnotes first."""
    notes: list[tuple[str, str]] = []
    for suffix in _NOTES:
        for rel in document.part.rels.values():
            if not rel.reltype.endswith(suffix) or rel.is_external:
                continue
            try:
                root = parse_xml(rel.target_part.blob)
            except Exception as exc:  # noqa: BLE001 - a broken notes part loses the notes, not the document
                logger.warning("unreadable %s part: %s", suffix[1:], exc)
                continue
            for note in root:
                if note.tag not in (f"{_W}footnote", f"{_W}endnote") or note.get(f"{_W}type") not in (None, "normal"):
                    continue
                text = " ".join("".join(t.text or "" for t in p.iter(f"{_W}t")) for p in note.iter(f"{_W}p"))
                if text.strip():
                    notes.append((note.get(f"{_W}id", ""), " ".join(text.split())))
    return notes
