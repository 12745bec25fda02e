"""Parts of a Word document that python-docx's body iteration does not reach: text boxes (with the tables
inside them) and footnotes or endnotes."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

from docx.oxml import parse_xml
from docx.table import Table
from docx.text.paragraph import Paragraph

from transforms.extraction.hidden import near

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



_OFF = ("0", "false", "off")
_HEX = re.compile(r"[0-9a-fA-F]{6}")
_WHITE = (255, 255, 255)


def take_hidden_runs(root: Any) -> list[str]:
    """Remove the runs a reader cannot see (``w:vanish``, white text on no dark shading, under 2 pt) from the
    body; their texts, one per paragraph, in order (``transforms/extraction/hidden.py``)."""
    spans: dict[int, list[str]] = {}
    hidden = []
    for run in root.iter(f"{_W}r"):
        rpr = run.find(f"{_W}rPr")
        if rpr is not None and _invisible(run, rpr):
            hidden.append(run)
            paragraph = next(run.iterancestors(f"{_W}p"), run)
            spans.setdefault(id(paragraph), []).append("".join(t.text or "" for t in run.iter(f"{_W}t")))
    for run in hidden:
        run.getparent().remove(run)
    return [text for parts in spans.values() if (text := " ".join("".join(parts).split()))]


def _rgb(value: str | None) -> tuple[int, int, int] | None:
    if not value or not _HEX.fullmatch(value):
        return None
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def _invisible(run: Any, rpr: Any) -> bool:
    vanish = rpr.find(f"{_W}vanish")
    if vanish is not None and (vanish.get(f"{_W}val") or "1").lower() not in _OFF:
        return True
    size = rpr.find(f"{_W}sz")
    if size is not None and (size.get(f"{_W}val") or "").isdigit() and int(size.get(f"{_W}val")) < 4:
        return True
    color = rpr.find(f"{_W}color")
    rgb = _rgb(color.get(f"{_W}val")) if color is not None else None
    return rgb is not None and near(rgb, _WHITE) and not _shaded(run, rpr)


def _shaded(run: Any, rpr: Any) -> bool:
    """White text may show: the run is highlighted, its run, paragraph or cell is shaded with a colour, or it
    sits in a styled table or a text box (whose fills are not read)."""
    highlight = rpr.find(f"{_W}highlight")
    if highlight is not None and highlight.get(f"{_W}val", "none") not in ("none", "white"):
        return True
    props = [rpr]
    for node in run.iterancestors(f"{_W}p", f"{_W}tc", f"{_W}tbl", f"{_W}txbxContent"):
        if node.tag == f"{_W}txbxContent":
            return True
        if node.tag == f"{_W}tbl":
            if node.find(f"{_W}tblPr/{_W}tblStyle") is not None:
                return True
            continue
        props.append(node.find(f"{_W}pPr" if node.tag == f"{_W}p" else f"{_W}tcPr"))
    for prop in props:
        shd = prop.find(f"{_W}shd") if prop is not None else None
        fill = _rgb(shd.get(f"{_W}fill")) if shd is not None else None
        if fill is not None and not near(fill, _WHITE):
            return True
    return False
