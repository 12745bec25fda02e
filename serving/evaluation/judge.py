"""The deterministic answer judge: one label per answer, with a one-line reason.

- ``declined``: the answer says it cannot answer (status ``not_found``, or no text);
- ``wrong``: it answers a question the documents cannot answer; or it states, for a kind of value a key fact has
  (an amount, a quantity with a unit such as a deadline, a date, a percentage), a value that the gold answer does
  not contain (so quoting more text can never raise the score); or it states none of the key facts;
- ``partly``: some but not all key facts; or all of them without citing a relevant document;
- ``correct``: every key fact, and a relevant document cited.

Key facts: a question's ``facts`` (``serving.evaluation.keyfacts``: only what the question asks, each matched by
its values and its words in order). Every value anywhere in the expected answer, in the question itself and its
``as_of`` date (the day it is asked on), is allowed in the answer. A question set without ``facts`` falls back to
the typed values of the expected answer's first sentence (abbreviations such as "Dr." or "Enf." end no sentence),
parentheses aside, and with none of those to its content words (at least 60% for a hit, 30% for part of one).
A short gold with neither (a bare number, year, date or code: "1946", "35", "Dec. 10, 1817", "U.S.", "yes") is
found when its folded words and numbers appear in the answer in order and together, digits exactly ("35" is not
"350", "1,000" is "1000") and a word of three letters or more also as the start of a longer one ("Dec." in
"December").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lakehouse.errors import ConfigError
from serving.evaluation.facts import Fact, extract, fold, tokens
from serving.evaluation.keyfacts import STOP, Alternative, Answer, KeyFact, parse_key_fact, sentences, stated

__all__ = ["LABELS", "Gold", "Verdict", "gold_of", "judge", "sentences"]

LABELS = ("correct", "partly", "wrong", "declined")
CONFLICTING = ("money", "percent", "date")  # plus every qty:<unit>


@dataclass(frozen=True)
class Gold:
    answerable: bool
    required: tuple[KeyFact, ...]
    allowed: frozenset[Fact]
    words: frozenset[str] = frozenset()
    relevant: frozenset[str] = frozenset()
    short: tuple[str, ...] = ()  # a gold with no key fact and no content word: its folded words and numbers


@dataclass
class Verdict:
    label: str
    reason: str
    found: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    conflicting: list[str] = field(default_factory=list)


def _head(text: str) -> str:
    """The first sentence, parentheses removed."""
    return re.sub(r"\([^)]*\)", " ", sentences(text)[0] if text.strip() else "")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W\d_]+", fold(text)))


_GROUPED = re.compile(r"(?<=\d)[,.](?=\d{3}(?!\d))")  # "1,000" and "1.000" are 1000


def _short_tokens(text: str) -> tuple[str, ...]:
    return tuple(tokens(_GROUPED.sub("", text)))


def _short_found(short: tuple[str, ...], answer: tuple[str, ...]) -> bool:
    """``short`` as consecutive tokens of ``answer``: digits exactly, a word of 3+ letters also as a prefix."""
    def same(gold: str, said: str) -> bool:
        return gold == said or (gold.isalpha() and len(gold) >= 3 and said.startswith(gold))
    if len(short) > 1 and all(len(t) == 1 and t.isalpha() for t in short) and _short_found(("".join(short),), answer):
        return True  # "U.S." written "US"
    n = len(short)
    return bool(n) and any(all(same(g, a) for g, a in zip(short, answer[i:i + n], strict=True))
                           for i in range(len(answer) - n + 1))


def _fallback(expected: str) -> tuple[KeyFact, ...]:
    values = extract(_head(expected))
    return tuple(KeyFact(str(v), (Alternative(frozenset({v}), ()),)) for v in sorted(values, key=str))


def gold_of(row: dict) -> Gold:
    """The gold facts of one labelled question (``facts`` when given, else derived from ``expected_answer``)."""
    expected = str(row.get("expected_answer") or "")
    allowed = extract(expected) | extract(str(row.get("question") or ""))
    if row.get("as_of"):  # the date the question is asked on ("vencida em 29/11/2026") is given, not a value
        allowed |= extract(str(row["as_of"]))
    try:
        required = tuple(parse_key_fact(f) for f in row["facts"]) if row.get("facts") else _fallback(expected)
    except ValueError as exc:
        raise ConfigError(f"question {row.get('id', '?')}: {exc}") from exc
    values = frozenset().union(*(f.values for f in required))
    words = frozenset(w for w in _words(_head(expected)) if len(w) > 3 and w not in STOP)
    short = _short_tokens(expected) if not required and not words else ()
    return Gold(bool(row.get("answerable", True)), required, frozenset(allowed | values),
                words if not required else frozenset(), frozenset(row.get("relevant_document_ids") or ()), short)


def _conflicts(gold: Gold, stated_values: set[Fact]) -> list[Fact]:
    values = set().union(*(f.values for f in gold.required))
    kinds = {f.kind for f in values if f.kind in CONFLICTING or f.kind.startswith("qty:")}
    return sorted((f for f in stated_values if f.kind in kinds and f not in gold.allowed), key=str)


def judge(gold: Gold, text: str, status: str, cited_documents: set[str] | list[str]) -> Verdict:
    """Label one answer: its text, its status and the document ids it cites."""
    if status == "not_found" or not text.strip():
        return Verdict("declined", "declined to answer")
    if not gold.answerable:
        return Verdict("wrong", "answered a question the documents cannot answer")
    values = extract(text)
    conflicting = _conflicts(gold, values)
    if conflicting:
        return Verdict("wrong", f"states another value: {', '.join(map(str, conflicting[:3]))}",
                       conflicting=[str(f) for f in conflicting])
    cited = bool(set(cited_documents) & gold.relevant)
    if gold.required:
        read = Answer.read(text)
        found = [f for f in gold.required if stated(f, read)]
        missing = [f for f in gold.required if f not in found]
        names = ([str(f) for f in found], [str(f) for f in missing])
        if not found:
            return Verdict("wrong", f"none of the key facts ({'; '.join(names[1][:3])})", *names)
        if missing:
            return Verdict("partly", f"missing {'; '.join(names[1][:3])}", *names)
        if not cited:
            return Verdict("partly", "every key fact, but no relevant document cited", *names)
        return Verdict("correct", "every key fact, a relevant document cited", *names)
    if gold.short:
        shown = " ".join(gold.short)
        if _short_found(gold.short, _short_tokens(text)):
            return Verdict("correct" if cited else "partly", f"the short gold {shown!r} found"
                           + ("" if cited else ", no relevant document cited"), [shown])
        return Verdict("wrong", f"the short gold {shown!r} not found", [], [shown])
    words = _words(fold(re.sub(r"\[\d+\]", " ", text)))
    share = len(gold.words & words) / len(gold.words) if gold.words else 0.0
    if share >= 0.6:
        return Verdict("correct" if cited else "partly",
                       f"{share:.0%} of the gold words" + ("" if cited else ", no relevant document cited"))
    if share >= 0.3:
        return Verdict("partly", f"only {share:.0%} of the gold words")
    return Verdict("wrong", f"only {share:.0%} of the gold words")
