"""Late interaction over multi-vectors, in numpy (no torch on the query path): MaxSim scoring in batches over a
flat token matrix (float32 is fastest: numpy converts float16 in software), and token pooling to cut storage.

A set of pages is stored flat: ``tokens`` (all pages' token vectors, row-major, float16 or float32) and
``offsets`` (page i owns rows ``offsets[i]:offsets[i+1]``, every page at least one row)."""

from __future__ import annotations

import numpy as np

BATCH_TOKENS = 1 << 18  # token rows scored per matmul (x query tokens x 4 bytes of scores)


def maxsim(query: np.ndarray, tokens: np.ndarray, offsets: np.ndarray, rows: np.ndarray | None = None,
           batch_tokens: int = BATCH_TOKENS) -> np.ndarray:
    """ColBERT MaxSim of one query (q x dim) against pages ``rows`` (default all): for each query token the best
    dot product among the page's tokens, summed. Returns one float32 score per row, in ``rows`` order."""
    q = np.ascontiguousarray(query, dtype=np.float32)
    rows = np.arange(len(offsets) - 1) if rows is None else np.asarray(rows, dtype=np.int64)
    scores = np.empty(len(rows), dtype=np.float32)
    starts, ends = offsets[rows], offsets[rows + 1]
    done = 0
    while done < len(rows):
        stop = done + 1
        budget = ends[done] - starts[done]
        while stop < len(rows) and budget + ends[stop] - starts[stop] <= batch_tokens:
            budget += ends[stop] - starts[stop]
            stop += 1
        contiguous = np.all(starts[done + 1:stop] == ends[done:stop - 1])
        block = (tokens[starts[done]:ends[stop - 1]] if contiguous else
                 np.concatenate([tokens[a:b] for a, b in zip(starts[done:stop], ends[done:stop], strict=True)]))
        sims = block.astype(np.float32, copy=False) @ q.T  # (tokens, query tokens)
        local = np.concatenate([[0], np.cumsum(ends[done:stop] - starts[done:stop])[:-1]])
        scores[done:stop] = np.maximum.reduceat(sims, local, axis=0).sum(axis=1)
        done = stop
    return scores


def pool_tokens(vectors: np.ndarray, factor: int) -> np.ndarray:
    """About ``len(vectors) / factor`` vectors: similar tokens (Ward clustering on their vectors, as colpali-engine's
    hierarchical token pooling does) averaged and re-normalised. ``factor`` 1 returns the vectors unchanged."""
    if factor <= 1 or len(vectors) <= 2:
        return vectors
    from scipy.cluster.hierarchy import fcluster, linkage  # deferred: only pooling needs it

    clusters = max(len(vectors) // factor, 1)
    labels = fcluster(linkage(vectors.astype(np.float64), method="ward"), t=clusters, criterion="maxclust")
    pooled = np.stack([vectors[labels == label].mean(axis=0) for label in np.unique(labels)])
    return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def flatten(pages: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(tokens, offsets) of a list of per-page arrays."""
    offsets = np.zeros(len(pages) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(p) for p in pages])
    dim = pages[0].shape[1] if pages else 0
    return (np.concatenate(pages) if pages else np.zeros((0, dim), np.float32)), offsets
