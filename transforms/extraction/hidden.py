"""Text a human reader cannot see, found where extraction can tell, and kept as flagged data.

What counts as hidden:
- HTML: an element with the ``hidden`` attribute, or an inline style of ``display:none``,
  ``visibility:hidden``, ``opacity:0``, a font size under 2 px (or 0 in any unit), or a text colour within a few
  steps of the background set inline (``style`` or ``bgcolor``) on it or an ancestor (white when none is set and
  no stylesheet could set one). Stylesheets and classes are not evaluated.
- DOCX: runs with ``w:vanish``, a white or near-white colour (unless the run, its paragraph or its table cell
  is shaded dark or highlighted) or a size under 4 half-points. Only direct run formatting is read.
- PDF: lines under 2 pt, drawn in white or near-white fill (unless a darker filled shape or an image lies under
  them) or in the invisible text render mode; sampled at three characters a line, like the font size.

What happens to it: it is never body text, since a reader of the document never sees it. A hidden sentence that
addresses an assistant (one signal of ``models.injection`` is enough: ``hidden_instruction``) becomes a line of
its own opening with ``models.injection.HIDDEN_MARK`` (``[texto oculto] ...``), at the end of the document
(HTML, DOCX) or of its page (PDF). The injection detector flags every such line, so it is never quoted in an
answer, is fenced as ``<flagged-instruction>`` in LLM prompts, and the answer warns that a source held
instructions that were ignored. Any other hidden text (an invisible anchor, a keyword list, a hidden "fact") is
dropped: it is not evidence a reader could check. The document's warnings count both.
"""

from __future__ import annotations

from models.injection import HIDDEN_MARK, hidden_instruction, sentences
from transforms.extraction.markdown import Block, clean_line

NEAR = 24  # per RGB channel: a colour this close to the background is not readable


def near(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return all(abs(x - y) <= NEAR for x, y in zip(a, b, strict=True))


def marked_lines(texts: list[str]) -> list[str]:
    """One ``[texto oculto] sentence`` line per hidden sentence that addresses an assistant."""
    return [f"{HIDDEN_MARK} {s}" for t in texts for s in sentences(clean_line(t)) if hidden_instruction(s)]


def hidden_block(texts: list[str], page: int = 0) -> Block | None:
    lines = marked_lines(texts)
    return Block("raw", "\n".join(lines), page=page) if lines else None


def hidden_warning(texts: list[str]) -> list[str]:
    """The warning that counts a document's hidden spans and the sentences kept (none when there are none)."""
    if not texts:
        return []
    return [f"{len(texts)} hidden text span(s): {len(marked_lines(texts))} sentence(s) addressing an assistant kept "
            f"as flagged {HIDDEN_MARK} lines, the rest dropped"]


def with_hidden(blocks: list[Block], by_page: dict[int, list[str]]) -> list[Block]:
    """``blocks`` with each page's hidden text after that page's last block."""
    out = list(blocks)
    for page in sorted(by_page, reverse=True):
        block = hidden_block(by_page[page], page)
        if block is not None:
            at = max((i + 1 for i, b in enumerate(out) if b.page <= page), default=0)
            out.insert(at, block)
    return out
