"""The deterministic answer judge: one label per answer, with a one-line reason.

- ``declined``: the answer says it cannot answer (status ``not_found``, or no text);
- ``wrong``: it answers a question the documents cannot answer; or it states, for a kind of fact the question
  asks (an amount, a deadline, a date, a percentage), a value that the gold answer does not contain (so quoting
  more text can never raise the score); or it contains none of the gold key facts;
- ``partly``: some but not all gold key facts; or all of them without citing a relevant document;
- ``correct``: every gold key fact, and a relevant document cited.

Gold key facts: a question's ``facts`` when labelled, else the typed facts (numbers with units, dates, codes) of
its expected answer's first sentence, parentheses aside; every value anywhere in the expected answer, in the
question itself and its ``as_of`` date (the day it is asked on), is allowed in the answer. A question with no
typed gold fact falls back to its expected answer's content words (at least 60% for a hit, 30% for part of one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from serving.evaluation.facts import Fact, extract, fold, parse_gold, present, typed

__all__ = ["LABELS", "Gold", "Verdict", "gold_of", "judge"]

LABELS = ("correct", "partly", "wrong", "declined")
CONFLICTING = ("money", "percent", "date")  # plus every qty:<unit>
_STOPWORDS = ("a o as os de da do das dos e em no na nos nas um uma por para com que se ao aos the of and to in for "
           "on is are at by with from or its it this that pelo pela sao foi ser deve devem ate apos sobre mais "
           "como entre cada sua seu suas seus nao")
STOP = frozenset(_STOPWORDS.split())


@dataclass(frozen=True)
class Gold:
    answerable: bool
    required: frozenset[Fact]
    allowed: frozenset[Fact]
    words: frozenset[str] = frozenset()
    relevant: frozenset[str] = frozenset()


@dataclass
class Verdict:
    label: str
    reason: str
    found: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    conflicting: list[str] = field(default_factory=list)


def _head(text: str) -> str:
    """The first sentence (two when the first is a bare "Sim." or "No."), parentheses removed."""
    parts = re.split(r"(?<=[.;!?])\s+(?=[A-ZÁÉÍÓÚÂÊÔÃÕÇ])", text, maxsplit=2)
    first = " ".join(parts[:2]) if len(parts[0].split()) < 4 else parts[0]
    return re.sub(r"\([^)]*\)", " ", first)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W\d_]+", fold(text)))


def gold_of(row: dict) -> Gold:
    """The gold facts of one labelled question (``facts`` when given, else derived from ``expected_answer``)."""
    expected = str(row.get("expected_answer") or "")
    allowed = extract(expected) | extract(str(row.get("question") or ""))
    if row.get("as_of"):  # the date the question is asked on ("vencida em 29/11/2026") is given, not a value
        allowed |= extract(str(row["as_of"]))
    if row.get("facts"):
        required = set().union(*(parse_gold(str(f)) for f in row["facts"]))
    else:
        head = _head(expected)
        required = extract(head) or extract(head.split("(")[0] + expected.split(".")[0])
    words = frozenset(w for w in _words(_head(expected)) if len(w) > 3 and w not in STOP)
    return Gold(bool(row.get("answerable", True)), frozenset(required), frozenset(allowed | required),
                words if not required else frozenset(), frozenset(row.get("relevant_document_ids") or ()))


def _conflicts(gold: Gold, stated: set[Fact]) -> list[Fact]:
    kinds = {f.kind for f in typed(set(gold.required)) if f.kind in CONFLICTING or f.kind.startswith("qty:")}
    return sorted((f for f in stated if f.kind in kinds and f not in gold.allowed), key=str)


def judge(gold: Gold, text: str, status: str, cited_documents: set[str] | list[str]) -> Verdict:
    """Label one answer: its text, its status and the document ids it cites."""
    if status == "not_found" or not text.strip():
        return Verdict("declined", "declined to answer")
    if not gold.answerable:
        return Verdict("wrong", "answered a question the documents cannot answer")
    stated = extract(text)
    folded = fold(re.sub(r"\[\d+\]", " ", text))
    conflicting = _conflicts(gold, stated)
    if conflicting:
        return Verdict("wrong", f"states another value: {', '.join(map(str, conflicting[:3]))}",
                       conflicting=[str(f) for f in conflicting])
    cited = bool(set(cited_documents) & gold.relevant)
    if gold.required:
        found = [f for f in gold.required if present(f, stated, folded)]
        missing = [f for f in gold.required if f not in found]
        names = ([str(f) for f in sorted(found, key=str)], [str(f) for f in sorted(missing, key=str)])
        if not found:
            return Verdict("wrong", f"none of the gold facts ({', '.join(names[1][:3])})", *names)
        if missing:
            return Verdict("partly", f"missing {', '.join(names[1][:3])}", *names)
        if not cited:
            return Verdict("partly", "every gold fact, but no relevant document cited", *names)
        return Verdict("correct", "every gold fact, a relevant document cited", *names)
    words = _words(folded)
    share = len(gold.words & words) / len(gold.words) if gold.words else 0.0
    if share >= 0.6:
        return Verdict("correct" if cited else "partly",
                       f"{share:.0%} of the gold words" + ("" if cited else ", no relevant document cited"))
    if share >= 0.3:
        return Verdict("partly", f"only {share:.0%} of the gold words")
    return Verdict("wrong", f"only {share:.0%} of the gold words")
