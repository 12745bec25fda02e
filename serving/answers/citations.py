"""Citation checking in code. Sources are numbered 1..N; an answer cites them as ``[n]``.

``check`` normalises the forms models write ("[2, 3]", "[Fonte 2]", "[Source 2]", "[chk_…]" with an id the
sources hold) to ``[2][3]``, removes every marker that points outside the sources, and reports what it removed.
Brackets that are not citation-like (a Markdown link, "[Title — Section]") are left alone. The caller decides
what an answer with no valid citation left becomes (it is never returned as a valid answer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_BRACKET = re.compile(r"\[([^\[\]\n]{1,120})\](?!\()")
_PREFIX = re.compile(r"^(?:fontes?|sources?|refs?|ref\.|doc(?:umento)?s?|n[ºo°]?\.?)\s*", re.IGNORECASE)
_SPLIT = re.compile(r"\s*(?:,|;|\be\b|\band\b|&)\s*", re.IGNORECASE)
_ID = re.compile(r"^(?:chk|chunk|com|doc|rep|report)[_-][\w-]+$")
_SPACE_BEFORE_PUNCT = re.compile(r"[ \t]+([.,;:!?])")
_DOUBLE_SPACE = re.compile(r"[ \t]{2,}")


@dataclass
class Checked:
    text: str
    cited: list[int] = field(default_factory=list)  # source numbers cited, first appearance first
    invalid: list[str] = field(default_factory=list)  # markers removed

    @property
    def valid(self) -> bool:
        return bool(self.cited)


def _tokens(inner: str) -> list[str] | None:
    """The cited tokens of a bracket's content, or None when it is not a citation."""
    parts = [p.strip() for p in _SPLIT.split(_PREFIX.sub("", inner.strip())) if p.strip()]
    parts = [_PREFIX.sub("", p) for p in parts]
    if parts and all(p.isdigit() or _ID.match(p) for p in parts):
        return parts
    return None


def check(text: str, n_sources: int, ids: dict[str, int] | None = None) -> Checked:
    """``text`` with its citations normalised and invalid ones removed. ``ids`` maps source ids to numbers."""
    ids = ids or {}
    out = Checked(text)
    seen: dict[int, None] = {}

    def fix(match: re.Match) -> str:
        tokens = _tokens(match.group(1))
        if tokens is None:
            return match.group(0)
        numbers = []
        for token in tokens:
            n = int(token) if token.isdigit() else ids.get(token)
            if n is not None and 1 <= n <= n_sources:
                numbers.append(n)
                seen.setdefault(n)
            else:
                out.invalid.append(token)
        return "".join(f"[{n}]" for n in dict.fromkeys(numbers))

    fixed = _BRACKET.sub(fix, text)
    fixed = _DOUBLE_SPACE.sub(" ", _SPACE_BEFORE_PUNCT.sub(r"\1", fixed))
    out.text = "\n".join(line.rstrip() for line in fixed.strip().splitlines())
    out.cited = list(seen)
    return out


class StreamChecker:
    """Checks citations in a stream of text pieces: text is released as soon as no citation can still be
    open in it; each complete marker is checked, and a valid one is reported once, when first seen."""

    HOLD = 122  # longest bracket content considered, plus the brackets

    def __init__(self, n_sources: int, ids: dict[str, int] | None = None) -> None:
        self.n_sources = n_sources
        self.ids = ids or {}
        self.buffer = ""
        self.cited: list[int] = []
        self.invalid: list[str] = []

    def feed(self, piece: str) -> tuple[str, list[int]]:
        """(text safe to emit, newly cited source numbers)."""
        self.buffer += piece
        cut = len(self.buffer)
        opening = self.buffer.rfind("[")
        if opening >= 0 and "]" not in self.buffer[opening:] and len(self.buffer) - opening < self.HOLD:
            cut = opening
        return self._release(cut)

    def close(self) -> tuple[str, list[int]]:
        return self._release(len(self.buffer))

    def _release(self, cut: int) -> tuple[str, list[int]]:
        head, self.buffer = self.buffer[:cut], self.buffer[cut:]
        if not head:
            return "", []
        checked = check(head, self.n_sources, self.ids)
        self.invalid += checked.invalid
        new = [n for n in checked.cited if n not in self.cited]
        self.cited += new
        # keep the piece's own spacing: only the markers change
        return _BRACKET.sub(lambda m: _marker(m, self.n_sources, self.ids), head), new


def _marker(match: re.Match, n_sources: int, ids: dict[str, int]) -> str:
    tokens = _tokens(match.group(1))
    if tokens is None:
        return match.group(0)
    numbers = [int(t) if t.isdigit() else ids.get(t) for t in tokens]
    return "".join(f"[{n}]" for n in dict.fromkeys(n for n in numbers if n is not None and 1 <= n <= n_sources))
