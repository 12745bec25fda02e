"""Ranking metrics with the BEIR definitions (graded nDCG with a log2 discount)."""

from __future__ import annotations

import math


def ndcg_at(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    dcg = sum(relevant.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(rel / math.log2(i + 2) for i, rel in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def mrr_at(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    for i, doc in enumerate(ranked[:k]):
        if relevant.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def recall_at(ranked: list[str], relevant: dict[str, int], k: int) -> float:
    wanted = {d for d, r in relevant.items() if r > 0}
    return len(wanted & set(ranked[:k])) / len(wanted) if wanted else 0.0


def summarise(runs: list[tuple[list[str], dict[str, int]]]) -> dict[str, float]:
    """Mean metrics over queries: nDCG@10, MRR@10, recall@5/20/100, top-20 failure rate."""
    n = len(runs) or 1
    return {
        "ndcg@10": round(sum(ndcg_at(r, q) for r, q in runs) / n, 4),
        "mrr@10": round(sum(mrr_at(r, q) for r, q in runs) / n, 4),
        "recall@5": round(sum(recall_at(r, q, 5) for r, q in runs) / n, 4),
        "recall@20": round(sum(recall_at(r, q, 20) for r, q in runs) / n, 4),
        "recall@100": round(sum(recall_at(r, q, 100) for r, q in runs) / n, 4),
        "fail@20": round(sum(recall_at(r, q, 20) == 0 for r, q in runs) / n, 4),
        "queries": len(runs),
    }
