"""The extractive map step: each report finding rated 0-100 against the question, without a model.

rating = 100 x (IDF-weighted share of the question's analysed terms found in the finding) x
(0.75 + 0.25 x the mean dense similarity of the finding's cited chunks). No shared term rates 0 (dropped),
so a question in one language does not match reports in another here; the LLM map step covers that.
"""

from __future__ import annotations

import math

import numpy as np

from models.analysis import analyze, detect_language
from serving.graph.graph_store import Report
from serving.graph.visibility import View


def idf(view: View, terms: list[str]) -> dict[str, float]:
    """Lucene BM25 idf of each term over the chunk corpus."""
    sparse = view.store.index.sparse
    n = sparse.matrix.shape[0]
    out = {}
    for term in terms:
        column = sparse.vocabulary.get(term)
        df = 0 if column is None else int(sparse.matrix.indptr[column + 1] - sparse.matrix.indptr[column])
        out[term] = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return out


def rate(text: str, language: str, weights: dict[str, float]) -> float:
    """IDF-weighted share of the question terms present in ``text`` (0-1)."""
    present = set(analyze(text, language)) & weights.keys()
    total = math.fsum(weights.values())
    return math.fsum(weights[t] for t in present) / total if total else 0.0


def extractive_points(view: View, question: str, reports: list[Report], limit: int = 10) -> list[dict]:
    """The rated findings (and summaries) of a batch of reports, best first, zeros dropped."""
    language = detect_language(question)
    weights = idf(view, list(dict.fromkeys(analyze(question, language))))
    row_of = view.store.row_of
    points = []
    for report in reports:
        items = [(report.summary, report.chunk_ids), *report.findings]
        for text, chunk_ids in items:
            coverage = rate(f"{report.title} {text}", language, weights)
            if coverage <= 0 or not text.strip():
                continue
            rows = np.array([row_of[c] for c in chunk_ids if c in row_of], dtype=np.int64)
            dense = float(view.chunk_similarity[rows].mean()) if rows.size else 0.0
            score = round(100 * coverage * (0.75 + 0.25 * min(max(dense, 0.0), 1.0)))
            if score > 0:
                points.append({"description": text.strip(), "score": score,
                               "report_ids": [report.community_id], "chunk_ids": list(chunk_ids)})
    points.sort(key=lambda p: -p["score"])
    return points[:limit]
