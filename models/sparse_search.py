"""BM25 query evaluation over a :class:`models.sparse.SparseIndex`'s weight matrix (CSC: one column per term,
rows sorted within each column).

``scores`` gathers every query term's postings and adds them in one ``bincount`` (float64); ``scores_at``
forms the same sums for a few rows by binary search in each term's postings (what fusion needs for the other
retriever's candidates); ``top_k`` ranks only the rows the query touched. Every function sums a row's weights
in the same term order, so their scores agree exactly.

Max-score pruning (skip the long postings of common terms once their largest weights cannot lift a row into
the top k) was measured on SciFact replicated to 100k and 1M chunks and not kept: every bound check needs a
pass over the touched rows, and on that corpus it cost as much as reading the postings it saved.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def _gather(matrix: sp.csc_matrix, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    indptr = matrix.indptr
    if columns.size == 1:
        start, end = indptr[columns[0]], indptr[columns[0] + 1]
        return matrix.indices[start:end], matrix.data[start:end]
    spans = [(indptr[c], indptr[c + 1]) for c in columns.tolist()]
    return (np.concatenate([matrix.indices[s:e] for s, e in spans]),
            np.concatenate([matrix.data[s:e] for s, e in spans]))


def query_columns(vocabulary: dict[str, int], terms: list[str]) -> np.ndarray:
    """The columns of the distinct known ``terms``, in query order (the order every sum is formed in)."""
    return np.array([c for t in dict.fromkeys(terms) if (c := vocabulary.get(t)) is not None], dtype=np.int64)


def scores(matrix: sp.csc_matrix, columns: np.ndarray) -> np.ndarray:
    """The summed weights of ``columns`` for every row (float64; 0 where no column has the row)."""
    n = matrix.shape[0]
    if columns.size == 0:
        return np.zeros(n, dtype=np.float64)
    rows, weights = _gather(matrix, columns)
    return np.bincount(rows, weights, minlength=n)


def scores_at(matrix: sp.csc_matrix, columns: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The summed weights of ``columns`` for some rows only (binary search in each column's postings), each
    sum formed in the order :func:`scores` forms it."""
    out = np.zeros(rows.size, dtype=np.float64)
    indptr = matrix.indptr
    for c in columns.tolist():
        start, end = indptr[c], indptr[c + 1]
        found = matrix.indices[start:end]
        at = np.searchsorted(found, rows)
        hit = at < found.size
        hit[hit] = found[at[hit]] == rows[hit]
        out[hit] += matrix.data[start:end][at[hit]]
    return out


def _positive_top(rows: np.ndarray, values: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best rows with a value > 0, best first, ties by the lower row. Rows tied with the k-th value
    are all kept until the final sort, so the choice among ties never depends on the order of ``rows``."""
    if rows.size > k:
        kth = float(np.partition(values, rows.size - k)[rows.size - k])
        keep = values >= kth if kth > 0 else values > 0
        rows, values = rows[keep], values[keep]
    order = np.lexsort((rows, -values))[:k]
    return rows[order].astype(np.int64), values[order]


def top_k(matrix: sp.csc_matrix, columns: np.ndarray, k: int,
          allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best (row, score) pairs with score > 0, best first, ties by the lower row; rows where
    ``allowed`` (a boolean vector) is False never count. Only the touched rows are ranked (a partition, then
    a sort of the rows tied with or above the k-th)."""
    if k <= 0 or columns.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    total = scores(matrix, columns)
    touched = (total > 0).nonzero()[0]  # every weight is positive (a boolean nonzero: 3x a float one)
    if allowed is not None:
        touched = touched[allowed[touched]]
    return _positive_top(touched, total[touched], k)
