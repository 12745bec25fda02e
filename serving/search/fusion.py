"""Fusing dense and BM25 candidates: reciprocal rank fusion, or a weighted sum of normalised scores."""

from __future__ import annotations

import numpy as np


def _ranks(rows: np.ndarray) -> dict[int, int]:
    return {int(r): rank for rank, r in enumerate(rows, start=1)}


def fuse(dense: np.ndarray, sparse: np.ndarray, dense_rows: np.ndarray, sparse_rows: np.ndarray, config):
    """Union of both candidate lists, ordered by the fused score. Returns (rows, fused, per-retriever scores).

    weighted: w * minmax(cosine over the candidates) + (1 - w) * bm25 / max(bm25 over the candidates);
    both scores are exact for every candidate, since both retrievers score the whole index.
    rrf: sum of 1 / (k + rank) over the lists a candidate appears in.
    """
    union = np.union1d(dense_rows, sparse_rows)
    d, s = dense[union], sparse[union]
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
