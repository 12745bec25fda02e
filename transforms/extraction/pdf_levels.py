"""Heading levels from the page's own ranks, for headings found by style rather than by legal structure.

- A numbered heading sits under the nearest earlier heading set in a clearly larger type: numbering depth
  alone puts a licence's "0. PREAMBLE" (body size) at the level of the manual's "2 ASN.1 structure handling"
  (17 pt), though it follows "A.1 GNU Free Documentation License" (14 pt).
- Headings found by weight alone (bold lines at about the body size) rank by case: where a document sets some
  of them in capitals and others in mixed case, the capitals are the higher level ("DEPARTMENT OF
  TRANSPORTATION" over "Federal Aviation Administration"). A document with one style keeps one level.
- A line that repeats, alone, a title listed in the document's table of contents is a heading at the level
  the contents' indent gives it, whatever its type: a gazette's section labels stamped in small bold type
  over each page ("PODER EXECUTIVO", "DECRETOS") are listed on its cover.
"""

from __future__ import annotations

import re

from transforms.extraction.markdown import Block, clean_line
from transforms.extraction.pdf_lines import Line

INDENT = 4.0  # points: table-of-contents entries indented more than this are one level deeper
_CONTENTS_ENTRY = re.compile(r"^(?P<title>\S.{0,150}?) … (?:\d{1,4}|[ivxlcdm]{1,6})$", re.I)
LARGER = 1.05  # a heading set this much larger than another outranks it
MAX_LEVEL = 6


def nested_level(level: int, size: float, earlier: list[tuple[float, int]]) -> int:
    """``level`` for a numbered heading of font ``size``, one below the nearest ``earlier`` (size, level)
    heading set larger when that one is not already above it."""
    for other_size, other_level in reversed(earlier):
        if other_size > LARGER * size:
            return min(max(level, other_level + 1), MAX_LEVEL)
    return level


def rank_by_case(blocks: list[Block], capitals: dict[int, bool]) -> None:
    """Lower by one level the mixed-case headings of ``capitals`` (block id -> set in capitals) when the
    document also has headings of that kind in capitals (in place)."""
    if len(set(capitals.values())) < 2:
        return
    for block in blocks:
        if capitals.get(id(block)) is False:
            block.level = min(block.level + 1, MAX_LEVEL)


def listed_titles(pages: list[list[Line]]) -> dict[str, int]:
    """Titles of the document's table of contents (lines with dot leaders and a page number), folded, with
    their level: 2 for the entries set furthest left, one more for each deeper indent (4-pt steps)."""
    entries = []
    for lines in pages:
        for line in lines:
            if "…" not in line.text and "..." not in line.text and ". ." not in line.text:
                continue  # no dot leader (the test costs less than cleaning every line)
            m = _CONTENTS_ENTRY.match(clean_line(line.text))
            if m:
                entries.append((fold_title(m.group("title")), line.x0))
    indents: list[float] = []
    for x in sorted(x for _, x in entries):
        if not indents or x - indents[-1] > INDENT:
            indents.append(x)
    def level(x: float) -> int:
        return min(2 + sum(x - i > INDENT for i in indents), MAX_LEVEL)
    return {title: level(x) for title, x in entries}


def fold_title(text: str) -> str:
    return " ".join(text.split()).casefold().rstrip(" .:")
