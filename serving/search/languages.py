"""The languages an index is written in, and how much BM25 can say about a question in one of them.

BM25 matches words: a question in a language few of the documents are written in (an English question over a
mostly Portuguese corpus) can only meet the chunks written in its own language, so its BM25 candidates are drawn
from that small part of the index whatever the question means; the multilingual encoder reads every chunk. The
fused ranking therefore gives BM25 its weight in proportion to the share of the index the question's language
covers: ``dense_weight + (1 - dense_weight) * (1 - share)``. A question in the language of most of the index
keeps about the configured weight, and so does one that names a code (BM25 matches "CT-2024-0215" in any
language).

Measured on the sample corpus (87% Portuguese chunks), dev split, relevant document in the top 5: English
questions 39/63 at the fixed 0.5, 51/63 dense alone, 51/63 with this weight; Portuguese ones 267/279 at 0.5,
253/279 dense alone, 268/279 with it. It is off by default (``RetrievalConfig.by_language``) because the answers
did not follow: English renderings of the test split 0.29 correct / 0.16 wrong without it, 0.24 / 0.24 with it
(dev: 0.23 / 0.27 without, 0.24 / 0.27 with); the answer layer grades a different first chunk, not a better one.
"""

from __future__ import annotations

import re

from models.analysis import detect_language

__all__ = ["SAMPLE", "dense_weight", "shares"]

SAMPLE = 2000  # chunks read to estimate the shares (evenly spaced)


def shares(texts: list[str]) -> dict[str, float]:
    """Language -> share of the chunks written in it, from an evenly spaced sample of at most ``SAMPLE``."""
    if not texts:
        return {}
    step = max(1, len(texts) // SAMPLE)
    sample = [detect_language(texts[i][:2000]) for i in range(0, len(texts), step)]
    return {language: sample.count(language) / len(sample) for language in set(sample)}


# an identifier ("CT-2024-0215", "POP-ENF-014", "13.709/2018") or a long number: BM25 matches it in any language
_CODE = re.compile(r"\b(?=[\w./-]*\d)(?=[\w./-]*[^\W\d_])[^\W_]+(?:[-/.][^\W_]+)+\b|\b\d{5,}\b")


def dense_weight(configured: float, share: float, query: str = "") -> float:
    """The fused dense weight for a question whose language covers ``share`` of the index; a question that
    names a code keeps the configured weight (its code is read alike in every language)."""
    if _CODE.search(query):
        return configured
    share = min(max(share, 0.0), 1.0)
    return configured + (1.0 - configured) * (1.0 - share)
