"""What part of a question asks it: a question written as people write to a colleague carries its situation
around the ask ("Sou nova no almoxarifado e chegou uma entrega de medicamentos. Antes de assinar o recebimento,
qual é a faixa de temperatura aceita?"). The words of the situation are not facts a passage must hold: a
passage that answers the ask holds "faixa", "temperatura", "aceita", not "almoxarifado" or "assinar".

The question is cut into segments at sentence ends, semicolons and colons, and at a comma that an asking word
follows (the lexicon's ``asking``: "qual", "quanto", "which", "how"). The asking segments are those that end in
a question mark or open with an asking word. When none does, a request told as a statement asks from the phrase
that makes it one (the lexicon's ``requests``: "Estou montando o relatório ... Preciso do valor do orçamento
...", "Queria confirmar a vigência ..."); without one either (a keyword query), every segment asks. A term that
only the other segments hold weighs ``CONTEXT_SHARE`` of its IDF in grading
(coverage, strips, the near-miss measure); retrieval reads the whole question.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from lakehouse.text import fold
from models.analysis import analyze, analyze_query
from models.lexicon import lexicon

__all__ = ["CONTEXT_SHARE", "asking_segments", "factors"]

# fitted on the dev split and its rewordings (lakerag eval --answers --split dev --variants, 0 / 0.1 / 0.25:
# rambling correct 0.36 / 0.39 / 0.39, wrong 0.18 / 0.12 / 0.09; all variants wrong 0.197 / 0.194 / 0.188)
CONTEXT_SHARE = 0.25
# a sentence end: ? or !, or a full stop after a word of three or more letters or a number ("Dr." and "art." do
# not end a sentence); then ; and :
_END = re.compile(r"(?<=[?!])\s+|(?<=[^\W\d_]{3}\.)\s+(?=\S)|(?<=\d\.)\s+(?=[A-ZÁÉÍÓÚÂÊÔÃÕÇ])|[;:]\s+")
_COMMA = re.compile(r",\s+")
_WORD = re.compile(r"[^\W\d_]+")
_CODE = re.compile(r"\b(?=[\w-]*[^\W\d_])(?=[\w-]*\d)\w+(?:[-/.]\w+)+\b")  # CT-2024-0215, POP-ENF-014, ISO/IEC


def _segments(question: str, asking: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for sentence in _END.split(question.strip()):
        parts = _COMMA.split(sentence)
        current = parts[0]
        for part in parts[1:]:
            if _opens(part, asking):  # "Antes de assinar o recebimento, qual é ..." -> two segments
                out.append(current)
                current = part
            else:
                current = f"{current}, {part}"
        out.append(current)
    return [s for s in out if s.strip()]


def _opens(segment: str, asking: tuple[str, ...]) -> bool:
    words = [fold(w.lower()) for w in _WORD.findall(segment)[:3]]
    return any(" ".join(words[:len(a.split())]) == a for a in asking)


def _request_at(segment: str, requests: tuple[str, ...]) -> int | None:
    """Where in ``segment`` a phrase making it a request starts ("... e preciso do valor ..."), else None."""
    words = [(m.start(), fold(m.group(0).lower())) for m in _WORD.finditer(segment)]
    folded = [w for _, w in words]
    for i in range(len(words)):
        if any(folded[i:i + len(r)] == r for r in _request_words(requests)):
            return words[i][0]
    return None


@cache
def _request_words(requests: tuple[str, ...]) -> tuple[list[str], ...]:
    return tuple(_WORD.findall(r) for r in requests)


def _requests(segments: list[str], language: str) -> list[tuple[str, bool]]:
    """Segments none of which asks, cut where a request phrase starts: the request asks, the rest does not."""
    requests = lexicon(language).requests if language in ("pt", "en") else ()
    out: list[tuple[str, bool]] = []
    for s in segments:
        at = _request_at(s, requests)
        if at is None:
            out.append((s, False))
        elif not s[:at].strip(" ,"):
            out.append((s, True))
        else:
            out += [(s[:at].rstrip(" ,"), False), (s[at:], True)]
    return out


def asking_segments(question: str, language: str) -> list[tuple[str, bool]]:
    """The question's segments, each with whether it asks (see the module's docstring)."""
    asking = lexicon(language).asking if language in ("pt", "en") else ()
    segments = _segments(question, asking)
    marks = [s.rstrip().endswith("?") or _opens(s, asking) for s in segments]
    if not any(marks):  # a request told as a statement ("Preciso saber ..."), else every segment asks
        requested = _requests(segments, language)
        if any(asks for _, asks in requested):
            segments, marks = [s for s, _ in requested], [asks for _, asks in requested]
        else:
            marks = [True] * len(segments)
    # a parenthesis right after an ask qualifies it ("E para o contrato de hospedagem? (valor mensal)": the slot a
    # follow-up keeps from the earlier question, ``rewrite``)
    for i in range(1, len(segments)):
        if marks[i - 1] and segments[i].lstrip().startswith("("):
            marks[i] = True
    return list(zip(segments, marks, strict=True))


def factors(question: str, language: str, spell: Callable[[str], str] | None = None) -> dict[str, float]:
    """Analysed term -> 1.0 when an asking segment holds it, ``CONTEXT_SHARE`` when only the others do; a
    question of one segment gets {} (every term weighs its full IDF). ``spell``: how the question's terms were
    read against the index (``Relevance.spelled``), so that a respelled term keeps the share of its word."""
    segments = asking_segments(question, language)
    if len(segments) < 2 or all(asks for _, asks in segments):
        return {}
    spell = spell or (lambda t: t)
    asked = {spell(t) for s, asks in segments if asks for t in analyze_query(s, language)}
    # a code names the subject wherever it stands ("... o contrato CT-2024-0215. Quem é a gestora desse
    # contrato?"): the ask refers back to it, so its terms keep their full weight
    named = {spell(t) for m in _CODE.finditer(question) for t in analyze(m.group(0), language)}
    out: dict[str, float] = {}
    for s, asks in segments:
        if not asks:
            for t in map(spell, [*analyze_query(s, language), *analyze(s, language)]):
                if t not in asked and t not in named:
                    out[t] = CONTEXT_SHARE
    return out
