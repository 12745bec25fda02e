"""Markdown from blocks, with the character span of every page; text normalisation shared by all formats."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

# Portuguese clitic pronouns: "aplica-\nse" is "aplica-se", not "aplicase".
_CLITICS = frozenset({"se", "lhe", "lhes", "o", "a", "os", "as", "me", "te", "nos", "vos", "lo", "la", "los",
                      "las", "no", "na", "nas"})
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
_DOT_LEADER = re.compile(r"\s*(?:\.\s?){5,}\s*")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufeff]")
_MD_START = re.compile(r"^(#|>|[-+*]\s|\d{1,9}[.)]\s|\|)")


def normalise_text(text: str) -> str:
    """NFC, ``\\n`` newlines, no control characters or BOMs, no trailing spaces."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n\n")
    text = _CONTROL.sub("", unicodedata.normalize("NFC", text))
    return "\n".join(line.rstrip() for line in text.split("\n"))


def clean_line(text: str) -> str:
    """One line of running text: NFC, single spaces, dot leaders (``......``) shortened to ``…``."""
    text = _CONTROL.sub("", unicodedata.normalize("NFC", text)).replace("\u00ad", "-").replace("\u2010", "-")
    text = _DOT_LEADER.sub(" … ", text)
    return _SPACES.sub(" ", text).strip()


def join_lines(left: str, right: str) -> str:
    """Join a wrapped line to the text before it, undoing end-of-line hyphenation."""
    if not left:
        return right
    if left.endswith("-") and len(left) > 1 and left[-2].isalpha() and right[:1].isalpha():
        word = re.match(r"[^\W\d_]+", right)
        if right[0].islower() and word and word.group().lower() not in _CLITICS:
            return left[:-1] + right
        return left + right
    return f"{left} {right}"


def escape_paragraph(text: str) -> str:
    """Keep a paragraph from being read as a heading, list, quote or table."""
    return "\\" + text if _MD_START.match(text) else text


def to_pipe_table(header: list[str], body: list[list[str]]) -> str:
    """A Markdown pipe table; ``|`` in cells is escaped and short rows are padded."""
    width = max([len(header)] + [len(r) for r in body])

    def fmt(cells: list[str]) -> str:
        padded = [c.replace("|", "\\|") for c in cells] + [""] * (width - len(cells))
        return "| " + " | ".join(padded) + " |"

    lines = [fmt(header), "| " + " | ".join(["---"] * width) + " |"]
    lines += [fmt(r) for r in body]
    return "\n".join(lines)


@dataclass
class Block:
    """A heading, paragraph, list item or table; ``marks``: (offset in ``text``, page) where a page begins."""

    kind: str  # heading | para | item | table | raw (Markdown kept as it is)
    text: str
    page: int = 0
    level: int = 0  # heading level, or list depth
    number: int | None = None  # ordered list item
    marks: list[tuple[int, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.marks:
            self.marks = [(0, self.page)]

    def append(self, text: str, page: int, sep: str | None = None) -> None:
        """Add a wrapped line (``sep`` None: join with hyphenation rules)."""
        joined = join_lines(self.text, text) if sep is None else self.text + sep + text
        if page != self.marks[-1][1]:
            self.marks.append((len(joined) - len(text), page))
        self.text = joined

    def prefix(self) -> str:
        if self.kind == "heading":
            return "#" * self.level + " "
        if self.kind == "item":
            return "  " * self.level + (f"{self.number}. " if self.number is not None else "- ")
        return ""

    def body(self) -> str:
        return escape_paragraph(self.text) if self.kind in ("para", "item") else self.text


def render(blocks: list[Block], page_count: int = 0) -> tuple[str, list[tuple[int, int]]]:
    """Markdown for ``blocks`` and, when ``page_count`` > 0, each page's [start, end) span in it."""
    out: list[str] = []
    pos = 0
    spans: dict[int, list[int]] = {}
    previous: Block | None = None
    for block in blocks:
        if not block.text.strip():
            continue
        if previous is not None:
            same_list = block.kind == previous.kind == "item" and (
                block.level > 0 or (block.number is None) == (previous.number is None))
            sep = "\n" if same_list else "\n\n"
            out.append(sep)
            pos += len(sep)
        prefix, body = block.prefix(), block.body()
        shift = len(body) - len(block.text)  # an escape character added in front
        bounds = [0] + [len(prefix) + off + shift for off, _ in block.marks[1:]] + [len(prefix) + len(body)]
        for (_, page), start, end in zip(block.marks, bounds, bounds[1:], strict=False):
            span = spans.setdefault(page, [pos + start, pos + end])
            span[0], span[1] = min(span[0], pos + start), max(span[1], pos + end)
        out.append(prefix + body)
        pos += len(prefix) + len(body)
        previous = block
    markdown = "".join(out)
    page_spans: list[tuple[int, int]] = []
    cursor = 0
    for page in range(page_count):
        start, end = spans.get(page, [cursor, cursor])
        page_spans.append((start, end))
        cursor = end
    return markdown + ("\n" if markdown else ""), page_spans
