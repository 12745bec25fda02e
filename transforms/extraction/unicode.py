"""Valid Unicode at the extraction boundary: surrogate pairs joined, lone surrogates replaced and counted.

PDF text layers report characters as UTF-16 code units, so a character outside the basic plane (an emoji, a
mathematical letter, a private-use symbol such as U+F0854) arrives as two surrogates; decoded one unit at a
time they cannot be written as UTF-8 and stopped whole runs (``surrogates not allowed``).
"""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
REPLACED = "invalid characters (lone surrogates) replaced by U+FFFD"  # the warning's wording
_SURROGATES = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("([\ud800-\udbff])([\udc00-\udfff])")


def join_surrogates(units: list[int]) -> list[str]:
    """Characters for UTF-16 code units, one entry per unit so that indexes stay aligned: a pair becomes the
    joined character followed by ``""``; a lone surrogate is kept, for ``valid_unicode`` at the extraction
    boundary to replace and count."""
    text = "".join(map(chr, units))
    if _SURROGATES.search(text) is None:  # the usual page: one character per unit, read at C speed
        return list(text)
    chars = []
    i = 0
    while i < len(units):
        unit = units[i]
        if 0xD800 <= unit <= 0xDBFF and i + 1 < len(units) and 0xDC00 <= units[i + 1] <= 0xDFFF:
            chars += [chr(0x10000 + ((unit - 0xD800) << 10) + (units[i + 1] - 0xDC00)), ""]
            i += 2
            continue
        chars.append(chr(unit))
        i += 1
    return chars


def valid_unicode(text: str) -> tuple[str, int]:
    """``text`` that encodes as UTF-8, and how many lone surrogates were replaced by U+FFFD."""
    if _SURROGATES.search(text) is None:
        return text, 0
    joined = _PAIR.sub(lambda m: chr(0x10000 + ((ord(m[1]) - 0xD800) << 10) + (ord(m[2]) - 0xDC00)), text)
    return _SURROGATES.subn(REPLACEMENT, joined)
