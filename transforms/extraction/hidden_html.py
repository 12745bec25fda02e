"""HTML elements hidden from a reader by an attribute or an inline style (``transforms/extraction/hidden.py``)."""

from __future__ import annotations

import re

from bs4 import Tag

from transforms.extraction.hidden import near

Colour = tuple[int, int, int]
WHITE: Colour = (255, 255, 255)
_NAMED: dict[str, Colour] = {"white": WHITE, "black": (0, 0, 0), "snow": (255, 250, 250), "ivory": (255, 255, 240),
                             "whitesmoke": (245, 245, 245), "ghostwhite": (248, 248, 255)}
_RGB = re.compile(r"rgba?\(\s*(\d+)%?\s*[, ]\s*(\d+)%?\s*[, ]\s*(\d+)%?\s*(?:[,/]\s*([\d.]+%?)\s*)?\)")
_SIZE = re.compile(r"^([\d.]+)\s*(px|pt|em|rem|%)?")
_TINY = {"px": 2.0, "pt": 1.5, "em": 0.15, "rem": 0.15, "%": 15.0, None: 2.0}


def _style(tag: Tag) -> dict[str, str]:
    declarations = str(tag.get("style") or "").split(";")
    pairs = (d.split(":", 1) for d in declarations if ":" in d)
    return {k.strip().lower(): v.strip().lower().replace("!important", "").strip() for k, v in pairs}


def colour(value: str) -> Colour | None:
    """An opaque CSS colour (hex, rgb(), a few white names); None for anything else (transparent, a var())."""
    value = value.strip()
    if value in _NAMED:
        return _NAMED[value]
    if re.fullmatch(r"#[0-9a-f]{3}", value):
        return (int(value[1] * 2, 16), int(value[2] * 2, 16), int(value[3] * 2, 16))
    if re.fullmatch(r"#[0-9a-f]{6}(?:ff)?", value):
        return (int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16))
    m = _RGB.fullmatch(value)
    if m and (m[4] is None or m[4] in ("1", "1.0", "100%")):
        return (min(int(m[1]), 255), min(int(m[2]), 255), min(int(m[3]), 255))
    return None


def background(tag: Tag, inherited: Colour | None) -> Colour | None:
    """The background behind ``tag``'s text: its own inline one (``style`` or ``bgcolor``), else the inherited
    one; None when unknown (an image, a gradient, a stylesheet's), which keeps any colour readable."""
    style = _style(tag)
    value = style.get("background-color") or style.get("background") or str(tag.get("bgcolor") or "").lower() or None
    if value is None:
        return inherited
    first = value.split()[0] if value.split() else ""
    if first in ("transparent", "none", "inherit", "initial"):
        return inherited
    return colour(first)


def is_hidden(tag: Tag, behind: Colour | None) -> bool:
    """The element's text cannot be seen: ``hidden``, ``display:none``, ``visibility:hidden``, ``opacity:0``,
    a tiny font, or a colour on (nearly) the colour of its background."""
    if tag.has_attr("hidden"):
        return True
    style = _style(tag)
    if style.get("display") == "none" or style.get("visibility") in ("hidden", "collapse"):
        return True
    if style.get("opacity", "").rstrip("%") in ("0", "0.0", ".0", "0.00"):
        return True
    m = _SIZE.match(style.get("font-size", ""))
    if m and float(m[1]) < _TINY[m[2]]:
        return True
    text, back = colour(style.get("color", "")), background(tag, behind)
    return text is not None and back is not None and near(text, back)


def page_background(root: Tag) -> Colour | None:
    """White, unless a stylesheet may set the page's background (a ``<style>`` that names one, a linked
    stylesheet): then unknown, and colours are judged only against backgrounds set inline."""
    styled = root.find("link", rel="stylesheet") is not None or any(
        "background" in style.get_text().lower() for style in root.find_all("style"))
    return None if styled else WHITE


def take_hidden(root: Tag, behind: Colour | None) -> list[str]:
    """Remove hidden elements from the tree; their texts, in document order."""
    found: list[str] = []
    _collect(root, behind, found)
    return found


def _collect(node: Tag, behind: Colour | None, found: list[str]) -> None:
    for child in list(node.children):
        if not isinstance(child, Tag):
            continue
        if is_hidden(child, behind):
            text = " ".join(child.get_text(" ").split())
            if text:
                found.append(text)
            child.decompose()
        else:
            _collect(child, background(child, behind), found)
