"""Word's automatic numbering (``numbering.xml``): the label ("2.3.2.", "a)", "IV -") Word draws in front of a
numbered heading or list item, which is not in the paragraph's text.

A paragraph is numbered by its own ``w:numPr`` or by its style's (heading styles linked to a multilevel list).
Each list instance (``w:num``) counts its levels from their ``w:start`` (or a ``w:startOverride``); a level's
counter restarts whenever a shallower level advances. A level's ``w:lvlText`` ("%1.%2.") is filled with each
level's counter written in that level's ``w:numFmt``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_ROMAN = [(1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
          (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]


@dataclass(frozen=True)
class Level:
    fmt: str  # decimal, lowerLetter, upperRoman, bullet, none ...
    text: str  # lvlText, "%1.%2."
    start: int


@dataclass(frozen=True)
class Label:
    """A numbered paragraph's label, its list depth and whether the list is ordered."""

    text: str
    depth: int
    ordered: bool
    number: int  # this level's counter
    simple: bool  # the label is just this level's decimal number and a period ("3.")


def _val(node: Any, tag: str, default: str | None = None) -> str | None:
    child = node.find(f"{_W}{tag}") if node is not None else None
    return child.get(f"{_W}val", default) if child is not None else default


def _levels(node: Any) -> dict[int, Level]:
    levels = {}
    for lvl in node.findall(f"{_W}lvl"):
        start = _val(lvl, "start", "1") or "1"
        levels[int(lvl.get(f"{_W}ilvl", "0"))] = Level(
            _val(lvl, "numFmt", "decimal") or "decimal", _val(lvl, "lvlText", "") or "",
            int(start) if start.isdigit() else 1)
    return levels


def format_number(value: int, fmt: str) -> str:
    if fmt in ("lowerLetter", "upperLetter"):
        letters = ""
        while value > 0:
            value, rest = divmod(value - 1, 26)
            letters = chr(ord("a") + rest) + letters
        return letters.upper() if fmt == "upperLetter" else letters
    if fmt in ("lowerRoman", "upperRoman"):
        out = ""
        for amount, digits in _ROMAN:
            while value >= amount:
                out, value = out + digits, value - amount
        return out.upper() if fmt == "upperRoman" else out
    if fmt == "decimalZero":
        return f"{value:02d}"
    return str(value)


class Numbering:
    """The numbering part of a document, and the counters of its lists as the body is read in order."""

    def __init__(self, document: Any) -> None:
        self.lists: dict[str, dict[int, Level]] = {}
        self.styles: dict[str, tuple[str, int]] = {}
        self.counters: dict[str, dict[int, int]] = {}
        try:
            root = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):
            root = None
        if root is not None:
            abstract = {node.get(f"{_W}abstractNumId"): _levels(node) for node in root.findall(f"{_W}abstractNum")}
            for num in root.findall(f"{_W}num"):
                levels = dict(abstract.get(_val(num, "abstractNumId"), {}))
                for override in num.findall(f"{_W}lvlOverride"):
                    ilvl = int(override.get(f"{_W}ilvl", "0"))
                    levels.update(_levels(override))
                    start = _val(override, "startOverride")
                    if start and start.isdigit() and ilvl in levels:
                        old = levels[ilvl]
                        levels[ilvl] = Level(old.fmt, old.text, int(start))
                self.lists[num.get(f"{_W}numId", "")] = levels
        for style in document.styles.element.findall(f"{_W}style"):
            num_pr = style.find(f"{_W}pPr/{_W}numPr")
            if num_pr is not None and _val(num_pr, "numId") is not None:
                self.styles[style.get(f"{_W}styleId", "")] = (_val(num_pr, "numId") or "",
                                                               int(_val(num_pr, "ilvl", "0") or 0))

    def fmt(self, num_id: str, depth: int) -> str | None:
        level = self.lists.get(num_id, {}).get(depth)
        return level.fmt if level is not None else None

    def label(self, paragraph: Any, style_id: str | None) -> Label | None:
        """Advance the counters for ``paragraph`` and return its label; None when it is not numbered."""
        ppr = paragraph._p.pPr
        num_pr = ppr.numPr if ppr is not None else None
        num_id, depth = None, 0
        if style_id in self.styles:
            num_id, depth = self.styles[style_id]
        if num_pr is not None:
            if num_pr.numId is not None:
                num_id = str(num_pr.numId.val)
            if num_pr.ilvl is not None:
                depth = int(num_pr.ilvl.val)
        if not num_id or num_id == "0" or num_id not in self.lists:
            return None
        levels = self.lists[num_id]
        level = levels.get(depth)
        if level is None or level.fmt == "none":
            return None
        counters = self.counters.setdefault(num_id, {})
        counters[depth] = counters.get(depth, level.start - 1) + 1
        for deeper in [d for d in counters if d > depth]:
            del counters[deeper]  # a new parent item restarts its sub-levels
        if level.fmt == "bullet":
            return Label("", depth, False, counters[depth], False)
        text = level.text
        for d in range(depth + 1):
            lvl = levels.get(d)
            value = counters.get(d, lvl.start if lvl else 1)
            text = text.replace(f"%{d + 1}", format_number(value, lvl.fmt if lvl else "decimal"))
        simple = level.fmt == "decimal" and level.text == f"%{depth + 1}."
        return Label(text.strip(), depth, True, counters[depth], simple)
