"""A question's key facts as its ``facts`` list writes them, and whether an answer states each one.

Each entry of ``facts`` is one fact that a correct answer must state; ``a | b`` lists ways of writing it (in the
other language, with another word). An alternative is its typed values (amounts, quantities with a unit, dates,
codes, percentages: ``facts.extract``) and its remaining content words. Values alone may be anywhere in the
answer; words must appear in one sentence of the answer (with the values, if any), in the same order, close
together (at most two words between two of them), each one matching a word of the answer up to its inflection
("nível" / "níveis", "mensal" / "mensais": a shared prefix of all but the shorter word's last two letters, and at
least four letters). So "10 dias úteis" is not stated by "10 dias corridos", nor "Imagem Med" by "imagem" and
"med" far apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from serving.evaluation.facts import VALUE_WORDS, Fact, extract, fold, tokens

__all__ = ["STOP", "Alternative", "Answer", "KeyFact", "parse_key_fact", "sentences", "stated"]

_STOPWORDS = ("a o as os de da do das dos e em no na nos nas um uma por para com que se ao aos the of and to in for "
              "on is are at by with from or its it this that pelo pela sao foi ser deve devem ate apos sobre mais "
              "como entre cada sua seu suas seus nao")
STOP = frozenset(_STOPWORDS.split())
_ABBREVIATION = re.compile(r"(?:^|\s)[A-ZÁÉÍÓÚÂÊÔÃÕÇ][a-záéíóúâêôãõç]{0,3}\.$")  # "Dr." "Dra." "Enf." "Sim."
GAP = 3  # the next word of a fact may be at most this many words after the previous one


@dataclass(frozen=True)
class Alternative:
    values: frozenset[Fact]
    words: tuple[str, ...]


@dataclass(frozen=True)
class KeyFact:
    text: str  # as written, folded
    alternatives: tuple[Alternative, ...]

    def __str__(self) -> str:
        return self.text

    @property
    def values(self) -> frozenset[Fact]:
        return frozenset().union(*(a.values for a in self.alternatives))


def _alternative(written: str) -> Alternative:
    values = frozenset(extract(written))
    code_parts = {part for f in values if f.kind == "code" for part in f.value.split("-")}
    words = [w for w in tokens(written) if w not in STOP]
    if values:  # the words that only spell the values ("dias", "R$", "março", the code's parts) are not words
        words = [w for w in words if not w.isdigit() and w not in VALUE_WORDS and w not in code_parts
                 and len(w) > 1]
    return Alternative(values, tuple(words))


def parse_key_fact(written: str) -> KeyFact:
    """One ``facts`` entry; an entry with nothing to look for is an error naming it."""
    alternatives = tuple(_alternative(part) for part in str(written).split("|") if part.strip())
    if not alternatives or any(not a.values and not a.words for a in alternatives):
        raise ValueError(f"facts: {written!r} has nothing an answer could state (only stopwords?)")
    return KeyFact(fold(written).strip(" .,:;"), alternatives)


def _same_word(fact_word: str, answer_word: str) -> bool:
    if fact_word == answer_word:
        return True
    if fact_word.isdigit() or answer_word.isdigit():
        return False
    shorter = min(len(fact_word), len(answer_word))
    need = max(4, shorter - 2)
    return shorter >= 4 and fact_word[:need] == answer_word[:need]


def _phrase_from(words: tuple[str, ...], answer: list[str], start: int, end: int) -> bool:
    """Are ``words`` in ``answer``, the first one in ``[start, end)``, each next one within ``GAP`` after?"""
    if not words:
        return True
    return any(_same_word(words[0], answer[i]) and _phrase_from(words[1:], answer, i + 1, i + 1 + GAP)
               for i in range(start, min(end, len(answer))))


def sentences(text: str) -> list[str]:
    """``text`` split into sentences; a short capitalised word before the stop ("Dr.", "Enf.", "Sim.") is an
    abbreviation (or a bare answer), so the sentence goes on."""
    parts = re.split(r"(?<=[.;!?])\s+(?=[A-ZÁÉÍÓÚÂÊÔÃÕÇ])", text.strip())
    out: list[str] = []
    for part in parts:
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


@dataclass(frozen=True)
class Answer:
    """An answer read once: its values, and its sentences (lines, clauses) with their values and tokens."""

    values: frozenset[Fact]
    segments: tuple[tuple[frozenset[Fact], tuple[str, ...]], ...]

    @classmethod
    def read(cls, text: str) -> Answer:
        parts = [c for line in text.splitlines() for s in sentences(line) for c in s.split("; ") if c.strip()]
        return cls(frozenset(extract(text)), tuple((frozenset(extract(p)), tuple(tokens(p))) for p in parts))


def _in(words: tuple[str, ...], answer: tuple[str, ...]) -> bool:
    return _phrase_from(words, answer, 0, len(answer))


def stated(fact: KeyFact, answer: Answer) -> bool:
    """Does ``answer`` state ``fact`` in one of its ways? Values alone anywhere; words with values in one
    sentence, so that "10 dias úteis" is not stated by "10 dias corridos. Dias úteis não contam"."""
    for alt in fact.alternatives:
        if not alt.words and alt.values <= answer.values:
            return True
        if alt.words and any(alt.values <= values and _in(alt.words, toks) for values, toks in answer.segments):
            return True
    return False
