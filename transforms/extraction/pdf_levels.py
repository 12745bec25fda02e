"""Heading levels from the page's own ranks, for headings found by style rather than by legal structure.

- A numbered heading sits under the nearest earlier heading set in a clearly larger type: numbering depth
  alone puts a licence's "0. PREAMBLE" (body size) at the level of the manual's "2 ASN.1 structure handling"
  (17 pt), though it follows "A.1 GNU Free Documentation License" (14 pt).
- Headings found by weight alone (bold lines at about the body size) rank by case: where a document sets some
  of them in capitals and others in mixed case, the capitals are the higher level ("DEPARTMENT OF
  TRANSPORTATION" over "Federal Aviation Administration"). A document with one style keeps one level.
"""

from __future__ import annotations

from transforms.extraction.markdown import Block

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
