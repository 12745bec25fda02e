"""Acronyms and their expansions: "Lei Geral de Proteção de Dados (LGPD)", "LGPD (Lei Geral ...)",
"LGPD — Lei Geral ...". An expansion matches when each content word gives the acronym 1-3 leading letters in
order ("ANVISA" = Agência Nacional de Vigilância Sanitária) and connectors give none or one ("LPP" = lesão
por pressão)."""

from __future__ import annotations

from functools import lru_cache

from graph_index.patterns import CONNECTORS, fold
from graph_index.tokens import Token, adjacent
from models.stopwords import ENGLISH, PORTUGUESE

_MINOR = CONNECTORS | PORTUGUESE | ENGLISH
_MAX_WORDS = 10


def initials_match(acronym: str, words: list[str], strict: bool = False) -> bool:
    """``acronym`` spelt by the leading letters of ``words`` (content words 1-3 letters, connectors 0-1);
    ``strict``: exactly the first letter of each content word, none from connectors."""
    letters = "".join(c for c in fold(acronym) if c.isalnum())
    folded = tuple(fold(w) for w in words if w)
    if not letters or len(folded) < 2 or sum(w not in _MINOR for w in folded) < 2:
        return False
    if strict:
        return letters == initials(words)
    return _spell(letters, folded)


def initials(words: list[str]) -> str:
    """First letters of the content words, folded: "Lei Geral de Proteção de Dados" -> "lgpd"."""
    return "".join(w[0] for w in (fold(x) for x in words if x) if w not in _MINOR and w[0].isalnum())


@lru_cache(maxsize=65536)
def _spell(letters: str, words: tuple[str, ...]) -> bool:
    if not words:
        return not letters
    word, rest = words[0], words[1:]
    if word in _MINOR and _spell(letters, rest):
        return True
    return any(letters.startswith(word[:k]) and _spell(letters[k:], rest)
               for k in range(1, min(len(word), 3) + 1))


def definitions(text: str, tokens: list[Token]) -> list[tuple[str, int, int]]:
    """(acronym, start, end of its expansion) for each acronym defined on a line of tokens."""
    found = []
    for i, token in enumerate(tokens):
        if not token.acronym:
            continue
        before = tokens[i - 1] if i else None
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if before is not None and before.text == "(" and after is not None and after.text == ")":
            span = _expansion_before(text, tokens, i - 1, token.text)  # Long Name (ACR)
        elif after is not None and after.text in "(—–-:" and adjacent(text, token, after):
            span = _expansion_after(text, tokens, i + 2, token.text, closing=after.text == "(")
        else:
            span = None
        if span:
            found.append((token.text, *span))
    return found


def _expansion_before(text: str, tokens: list[Token], paren: int, acronym: str) -> tuple[int, int] | None:
    words: list[Token] = []
    j = paren - 1
    while j >= 0 and tokens[j].kind == "word" and len(words) < _MAX_WORDS:
        if words and not adjacent(text, tokens[j], words[0]):
            break
        words.insert(0, tokens[j])
        j -= 1
    for n in range(2, len(words) + 1):  # the shortest run of words that spells the acronym
        run = words[-n:]
        if run[0].folded not in _MINOR and initials_match(acronym, [w.text for w in run]):
            return run[0].start, run[-1].end
    return None


def _expansion_after(text: str, tokens: list[Token], first: int, acronym: str,
                     closing: bool) -> tuple[int, int] | None:
    words: list[Token] = []
    j = first
    while j < len(tokens) and tokens[j].kind == "word" and len(words) < _MAX_WORDS:
        if words and not adjacent(text, words[-1], tokens[j]):
            break
        words.append(tokens[j])
        j += 1
    if closing and (j >= len(tokens) or tokens[j].text != ")"):
        return None
    for n in range(len(words), 1, -1):  # the longest run that spells it ("LGPD — Lei Geral ... Dados, que")
        run = words[:n]
        if run[-1].folded not in _MINOR and initials_match(acronym, [w.text for w in run]):
            return run[0].start, run[-1].end
    return None
