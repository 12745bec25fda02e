"""Character error rate of an extraction against a reference text (used by tests and benchmarks)."""

from __future__ import annotations

import re
import unicodedata

_WS = re.compile(r"\s+")


def normalise_whitespace(text: str) -> str:
    """NFC text with every run of whitespace collapsed to one space, stripped."""
    return _WS.sub(" ", unicodedata.normalize("NFC", text)).strip()


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insert, delete, substitute; unit costs) between ``a`` and ``b``.

    Bit-parallel (Myers 1999, Hyyrö 2001): one pass over ``b`` with Python integers as bit vectors
    of length ``len(a)``, so a 5,000-character comparison takes milliseconds without numpy.
    """
    if len(a) < len(b):
        a, b = b, a
    m = len(a)
    if m == 0:
        return len(b)
    if not b:
        return m
    full = (1 << m) - 1
    high = 1 << (m - 1)
    peq: dict[str, int] = {}
    for i, ch in enumerate(a):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    pv, mv, score = full, 0, m
    for ch in b:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = ((((eq & pv) + pv) & full) ^ pv) | eq
        ph = (mv | ~(xh | pv)) & full
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = ((ph << 1) | 1) & full
        mh = (mh << 1) & full
        pv = (mh | ~(xv | ph)) & full
        mv = ph & xv
    return score


def character_error_rate(hypothesis: str, reference: str) -> float:
    """Levenshtein distance over the reference length, after whitespace normalisation."""
    hyp, ref = normalise_whitespace(hypothesis), normalise_whitespace(reference)
    if not ref:
        return 0.0 if not hyp else 1.0
    return levenshtein(hyp, ref) / len(ref)
