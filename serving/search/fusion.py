"""Fusing dense and BM25 candidates: reciprocal rank fusion, or a weighted sum of normalised scores."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _ranks(rows: np.ndarray) -> dict[int, int]:
    return {int(r): rank for rank, r in enumerate(rows, start=1)}


def fuse(dense_rows: np.ndarray, sparse_rows: np.ndarray, dense_at: Callable[[np.ndarray], np.ndarray],
         sparse_at: Callable[[np.ndarray], np.ndarray], config):
    """Union of both candidate lists, ordered by the fused score. Returns (rows, fused, per-retriever scores).

    ``dense_at(rows)`` and ``sparse_at(rows)`` give each retriever's exact score of some rows; only the union
    of the two candidate lists is ever scored here.
    weighted: w * minmax(cosine over the candidates) + (1 - w) * bm25 / max(bm25 over the candidates).
    rrf: sum of 1 / (k + rank) over the lists a candidate appears in.
    """
    union = np.union1d(dense_rows, sparse_rows)
    d, s = dense_at(union), sparse_at(union)
    if config.fusion == "rrf":
        dr, sr = _ranks(dense_rows), _ranks(sparse_rows)
        fused = np.array([(1 / (config.rrf_k + dr[r]) if r in dr else 0.0)
                          + (1 / (config.rrf_k + sr[r]) if r in sr else 0.0) for r in union.tolist()])
    else:
        span = d.max() - d.min()
        d_norm = (d - d.min()) / span if span > 0 else np.ones_like(d)
        top = s.max()
        s_norm = s / top if top > 0 else np.zeros_like(s)
        fused = config.dense_weight * d_norm + (1 - config.dense_weight) * s_norm
    order = np.lexsort((union, -fused))
    rows = union[order]
    return rows, fused[order], {"dense": d[order], "bm25": s[order], "fused": fused[order]}
