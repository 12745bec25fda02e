"""Line-by-line tokens of a chunk, with sentence starts and masked spans, for the rule-based extractor."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graph_index.patterns import HONORIFICS, SENTENCE_END, TOKEN, fold

# Markdown line prefixes: headings, bullets, numbered items ("1.", "\\1)", "a)"), quotes.
_LINE_PREFIX = re.compile(r"^\s*(?:#{1,6}\s+|[-*+•>]\s+|\\?\d{1,3}[.)]\s+|\d{1,3}(?:\.\d{1,3})+\s+|"
                          r"[a-z]\)\s+)*")
_CONTEXT_LINE = re.compile(r"^\[([^\n]*)\]\n")
_WRAPPED = 50


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int
    kind: str  # word | num | punct
    initial: bool  # first word of a sentence, line, heading or table cell
    masked: bool  # inside a span already taken by a code, norm or name

    @property
    def folded(self) -> str:
        return fold(self.text)

    @property
    def capitalised(self) -> bool:
        return self.kind == "word" and self.text[0].isupper()

    @property
    def acronym(self) -> bool:
        """All capitals, 2-7 characters, at least two letters: "LGPD", "UTI", "SOC2"."""
        t = self.text
        return (self.kind == "word" and 2 <= len(t) <= 7 and t.isupper() and t.isalnum()
                and sum(c.isalpha() for c in t) >= 2)


def split_context(text: str) -> tuple[int, int]:
    """(start, end) of the inside of the leading "[Title — Section]" line, or (0, 0) when there is none."""
    match = _CONTEXT_LINE.match(text)
    return (1, match.end() - 2) if match else (0, 0)


def lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of each paragraph, list item, heading or table row of ``text[start:end]``, Markdown
    prefixes skipped; the wrapped lines of one paragraph or item are one segment."""
    out: list[tuple[int, int]] = []
    position = start
    continues = False  # the last segment is a paragraph or item that the next plain line continues
    for line in text[start:end].split("\n"):
        prefix = _LINE_PREFIX.match(line)
        skip = prefix.end() if prefix else 0
        stripped = line[skip:].strip()
        if not stripped:
            continues = False
        else:
            table = stripped.startswith("|")
            if continues and skip == 0 and not table:
                out[-1] = (out[-1][0], position + len(line))
            else:
                out.append((position + skip, position + len(line)))
            # A wrapped line is long; a short one (a title above its text) ends its segment.
            continues = not table and not line.lstrip().startswith("#") and len(stripped) >= _WRAPPED
        position += len(line) + 1
    return out


def tokenize(text: str, start: int, end: int, masked: list[tuple[int, int]]) -> list[Token]:
    """Tokens of one line; ``masked`` spans (sorted) mark tokens already claimed."""
    tokens: list[Token] = []
    boundary = True
    for match in TOKEN.finditer(text, start, end):
        kind = match.lastgroup or "punct"
        a, b = match.span()
        hidden = any(x < b and a < y for x, y in masked)
        tokens.append(Token(match.group(), a, b, kind, boundary and kind == "word", hidden))
        if kind == "punct":
            mark = match.group()
            after_honorific = mark == "." and len(tokens) > 1 and tokens[-2].folded in HONORIFICS
            boundary = (mark in SENTENCE_END and not after_honorific) or (boundary and mark in "*_`\"'“(")
        elif kind == "word" or kind == "num":
            boundary = False
    return tokens


def adjacent(text: str, left: Token, right: Token) -> bool:
    """Only spaces between two tokens of a line."""
    return left.end == right.start or text[left.end:right.start].isspace()
