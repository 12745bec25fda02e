"""Structure-aware chunking of extracted Markdown.

``split_markdown`` follows the document's outline: every heading starts a section, a section's blocks
(paragraphs, lists, tables) are packed up to ``chunk_size`` characters, a long paragraph is cut at
sentence boundaries with some overlap, a long list between items, and a long table between rows with
its header repeated in every piece. Each chunk's ``text`` starts with a context line naming the document
and the heading path, so a retrieved chunk reads on its own.

Size rule: a body never exceeds ``chunk_size`` except for the heading lines that open a section's first
chunk (they ride along with the first block instead of becoming a chunk of their own) and a single table
row longer than ``chunk_size`` (emitted whole, with the header).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

__all__ = ["ChunkDraft", "split_markdown"]

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)(?:\s+#+)?\s*$")
_FENCE = re.compile(r"^(```|~~~)")
# List items, including Brazilian legal "I - inciso" and "a) alínea".
_ITEM = re.compile(r"^(?:[-*+•]|\d{1,3}[.)]|[a-z]\)|[IVXLCDM]+\s*[-–—])\s")
# End of a sentence: punctuation, spaces, then something that starts a sentence (not a digit, so
# "Art. 5º" or "nº 8.666" are not cut).
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-ZÀ-ÖØ-Þ§])")
_WORD_START = re.compile(r"\s\S")


@dataclass(frozen=True)
class ChunkDraft:
    """One chunk of a document, before it gets ids and embeddings."""

    ordinal: int  # 0-based order in the document
    heading_path: tuple[str, ...]  # outline headings above the chunk, outermost first
    text: str  # context line + "\n" + body: what is indexed and cited
    body: str  # the chunk's own Markdown
    char_start: int  # [start, end) span of the body's source in the markdown
    char_end: int
    pages: tuple[int, ...]  # 1-based pages the span overlaps; empty when unknown


@dataclass
class _Block:
    kind: str  # heading | table | text
    lines: list[tuple[int, int, int]]  # (content start, content end, indent) of each non-blank line
    level: int = 0
    title: str = ""

    @property
    def start(self) -> int:
        return self.lines[0][0]

    @property
    def end(self) -> int:
        return self.lines[-1][1]


def _scan(md: str) -> list[_Block]:
    """Cut the markdown into headings, tables and text blocks (paragraphs, lists, code fences)."""
    lines: list[tuple[int, int, int]] = []
    pos = 0
    for raw in md.splitlines(keepends=True):
        content = raw.rstrip("\r\n")
        indent = len(content) - len(content.lstrip())
        lines.append((pos + indent, pos + len(content.rstrip()), indent))
        pos += len(raw)

    def text(k: int) -> str:
        return md[lines[k][0] : lines[k][1]]

    def heading(k: int) -> re.Match[str] | None:
        m = _HEADING.match(text(k)) if lines[k][2] <= 3 else None
        return m if m and _clean(m[2]) else None

    def plain(k: int) -> bool:
        t = text(k)
        return bool(t) and not t.startswith("|") and not _FENCE.match(t) and not heading(k)

    blocks: list[_Block] = []
    i = 0
    while i < len(lines):
        t, j = text(i), i + 1
        if not t:
            i += 1
            continue
        if m := heading(i):
            blocks.append(_Block("heading", [lines[i]], level=len(m[1]), title=_clean(m[2])))
        elif fence := _FENCE.match(t):
            while j < len(lines) and not text(j).startswith(fence[1]):
                j += 1
            j = min(j + 1, len(lines))
            blocks.append(_Block("text", [line for line in lines[i:j] if line[1] > line[0]]))
        elif t.startswith("|"):
            while j < len(lines) and text(j).startswith("|"):
                j += 1
            blocks.append(_Block("table", lines[i:j]))
        else:
            while j < len(lines) and plain(j):
                j += 1
            blocks.append(_Block("text", lines[i:j]))
        i = j
    return blocks


def _clean(title: str) -> str:
    return " ".join(re.sub(r"^[*_]+|[*_]+$", "", title.strip()).split())


class _Packer:
    """Greedy packing of units into chunk bodies; headings wait for the next unit of content."""

    def __init__(self, md: str, size: int) -> None:
        self.md, self.size = md, size
        self.path: tuple[str, ...] = ()
        self.body, self.start, self.end, self.has_content = "", 0, 0, False
        self.done: list[tuple[tuple[str, ...], str, int, int]] = []

    def _gap(self, start: int) -> str:
        if not self.body:
            return ""
        return "\n" if start >= self.end and self.md.count("\n", self.end, start) < 2 else "\n\n"

    def add(self, text: str, start: int, end: int, content: bool = True) -> None:
        if not self.body:
            self.start = start
        self.body += self._gap(start) + text
        self.end, self.has_content = end, self.has_content or content

    def place(self, start: int, end: int) -> None:
        text = self.md[start:end]
        if self.has_content and len(self.body) + len(self._gap(start)) + len(text) > self.size:
            self.flush()
        self.add(text, start, end)

    def place_pieces(self, pieces: list[tuple[str, int, int]]) -> None:
        """Pieces of one oversized block: one chunk each; the last one may share with what follows."""
        for k, piece in enumerate(pieces):
            if k or self.has_content:
                self.flush()
            self.add(*piece)

    def flush(self) -> None:
        if self.body:
            self.done.append((self.path, self.body, self.start, self.end))
        self.body, self.has_content = "", False

    def finish(self) -> list[tuple[tuple[str, ...], str, int, int]]:
        if self.body and not self.has_content and self.done:  # trailing heading-only sections
            path, body, start, _ = self.done[-1]
            self.done[-1] = (path, body + "\n\n" + self.body, start, self.end)
        else:
            self.flush()
        return self.done


def _place_text(p: _Packer, block: _Block, overlap: int) -> None:
    if block.end - block.start <= p.size:
        p.place(block.start, block.end)
        return
    # Cut between top-level list items first; a lead-in paragraph is a segment of its own.
    items = [k for k, (s, e, _) in enumerate(block.lines) if _ITEM.match(p.md[s:e])]
    base = min((block.lines[k][2] for k in items), default=0)
    cuts = sorted({0, *(k for k in items if block.lines[k][2] <= base)})
    for a, b in zip(cuts, [*cuts[1:], len(block.lines)], strict=True):
        s, e = block.lines[a][0], block.lines[b - 1][1]
        if e - s <= p.size:
            p.place(s, e)
        else:
            spans = _split_prose(p.md[s:e], p.size, overlap)
            p.place_pieces([(p.md[s + x : s + y], s + x, s + y) for x, y in spans])


def _place_table(p: _Packer, block: _Block) -> None:
    rows = block.lines
    second = p.md[rows[1][0] : rows[1][1]] if len(rows) > 1 else ""
    head = [p.md[s:e] for s, e, _ in rows[:2]] if "-" in second and set(second) <= set("|-: ") else []
    if block.end - block.start <= p.size or len(rows) - len(head) < 2:
        p.place(block.start, block.end)
        return
    groups: list[list[tuple[int, int, int]]] = [[]]
    length = sum(len(h) + 1 for h in head)
    for row in rows[len(head) :]:
        if groups[-1] and length + row[1] - row[0] > p.size:
            groups.append([])
            length = sum(len(h) + 1 for h in head)
        groups[-1].append(row)
        length += row[1] - row[0] + 1
    pieces = [
        ("\n".join(head + [p.md[s:e] for s, e, _ in g]), block.start if k == 0 else g[0][0], g[-1][1])
        for k, g in enumerate(groups)
    ]
    p.place_pieces(pieces)


def _split_prose(text: str, limit: int, overlap: int) -> list[tuple[int, int]]:
    """[start, end) pieces of at most ``limit`` chars, cut at sentence ends, else at whitespace."""
    starts = [m.end() for m in _SENTENCE_END.finditer(text)]
    spans: list[tuple[int, int]] = []
    s = prev_end = 0
    while len(text) - s > limit:
        lo, hi = max(s + limit // 2, prev_end + 1), s + limit
        k = bisect.bisect_right(starts, hi) - 1
        if k >= 0 and starts[k] >= lo:
            e = starts[k]
        else:
            e = max(text.rfind(c, prev_end + 1, hi) for c in " \n\t")  # rather short than a cut word
            e = e if e > prev_end else hi
        spans.append((s, e))
        prev_end, s = e, _overlap_start(text, starts, s, e, overlap)
    spans.append((s, len(text)))
    stripped: list[tuple[int, int]] = []
    for a, b in spans:
        piece = text[a:b]
        a, b = a + len(piece) - len(piece.lstrip()), b - len(piece) + len(piece.rstrip())
        if b > a:
            stripped.append((a, b))
    return stripped


def _overlap_start(text: str, starts: list[int], s: int, e: int, overlap: int) -> int:
    """Where the next piece starts: a sentence start about ``overlap`` chars before ``e``, else a word."""
    target = e - overlap
    if overlap == 0 or target <= s:
        return e
    lo, hi = max(s + 1, target - overlap // 2), e - overlap // 2
    near = starts[bisect.bisect_left(starts, lo) : bisect.bisect_right(starts, hi)]
    if near:
        return min(near, key=lambda b: abs(b - target))
    m = _WORD_START.search(text, target - 1, e)  # bounded: a text without spaces stays linear
    return m.start() + 1 if m and m.start() + 1 < e else e


def _context(title: str, path: tuple[str, ...]) -> str:
    title = title.strip()
    shown = path[1:] if path and title and path[0].casefold() == title.casefold() else path
    label = " — ".join(part for part in (title, " > ".join(shown)) if part)
    return f"[{label}]\n" if label else ""


def split_markdown(
    markdown: str,
    title: str,
    page_spans: list[tuple[int, int]] | None = None,
    chunk_size: int = 800,
    chunk_overlap: int = 120,
    max_chars: int | None = None,
) -> list[ChunkDraft]:
    """Split a document's Markdown into chunks that follow its headings, paragraphs, lists and tables.

    ``page_spans[i]`` is the [start, end) span of page ``i + 1`` in ``markdown``. ``max_chars`` is a hard cap:
    a body longer than that (a runaway line with no spaces, an endless table row) is cut into pieces of at most
    ``max_chars`` characters, whatever its structure.
    """
    if chunk_size <= 0 or not 0 <= chunk_overlap < chunk_size:
        raise ValueError(
            f"need chunk_size > 0 and 0 <= chunk_overlap < chunk_size, got {chunk_size} and {chunk_overlap}"
        )
    packer = _Packer(markdown, chunk_size)
    outline: list[tuple[int, str]] = []
    for block in _scan(markdown):
        if block.kind == "heading":
            if packer.has_content:  # sections never share a chunk
                packer.flush()
            outline = [h for h in outline if h[0] < block.level] + [(block.level, block.title)]
            packer.path = tuple(t for _, t in outline)
            packer.add(markdown[block.start : block.end], block.start, block.end, content=False)
        elif block.kind == "table":
            _place_table(packer, block)
        else:
            _place_text(packer, block, chunk_overlap)
    return [
        ChunkDraft(
            ordinal=k,
            heading_path=path,
            text=_context(title, path) + body,
            body=body,
            char_start=start,
            char_end=end,
            pages=tuple(i + 1 for i, (ps, pe) in enumerate(page_spans or ()) if ps < end and start < pe),
        )
        for k, (path, body, start, end) in enumerate(_capped(packer.finish(), max_chars))
    ]


def _capped(chunks: list[tuple[tuple[str, ...], str, int, int]], max_chars: int | None
            ) -> list[tuple[tuple[str, ...], str, int, int]]:
    """Hard-split bodies over ``max_chars``; a piece's span is its offset in the body, clipped to the source."""
    if not max_chars:
        return chunks
    out = []
    for path, body, start, end in chunks:
        if len(body) <= max_chars:
            out.append((path, body, start, end))
            continue
        for offset in range(0, len(body), max_chars):
            piece_start = min(start + offset, end)
            out.append((path, body[offset:offset + max_chars], piece_start,
                        min(piece_start + max_chars, end)))
    return out
