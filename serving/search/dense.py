"""Dense scores as one matrix-vector product over a contiguous matrix.

``float32`` (the default) scores every row exactly with one BLAS ``sgemv``. ``int8`` and ``float16`` keep a
smaller copy for the scan (per-row scaled int8 codes, or half floats), take ``rescore`` times more candidates
than asked from it, and rescore those exactly against the float32 rows; the top candidates of the exact scores
are returned, so the ranking equals the float32 one unless a true top-k row falls outside the widened candidate
list (the rescoring factor bounds that). The quantised scan converts blocks that fit in the cache to float32
before the product: numpy has no int8 or float16 kernels of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

PRECISIONS = ("float32", "float16", "int8")
_BLOCK = 4096  # rows converted at a time in the quantised scan (6 MB of float32 at 384 dims)


def best(rows: np.ndarray, values: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best (row, value) pairs, best first, ties broken by the lower row; rows need not be sorted.
    Every row tied with the k-th value is kept until the final sort, so the choice among ties never depends
    on how the candidates were gathered."""
    if k <= 0 or rows.size == 0:
        return rows[:0], values[:0]
    if rows.size > k:
        kth = np.partition(values, rows.size - k)[rows.size - k]
        keep = values >= kth
        rows, values = rows[keep], values[keep]
    order = np.lexsort((rows, -values))[:k]
    return rows[order], values[order]


@dataclass
class DenseMatrix:
    """The index's vectors (float32, contiguous, one row per chunk) and, when asked, a compact scan copy."""

    vectors: np.ndarray
    precision: str = "float32"
    rescore: int = 4
    _codes: np.ndarray | None = field(default=None, repr=False)
    _scales: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.precision not in PRECISIONS:
            raise ValueError(f"dense precision must be one of {', '.join(PRECISIONS)}, got {self.precision!r}")
        self.vectors = np.ascontiguousarray(self.vectors, dtype=np.float32)
        if self.precision == "int8" and self.vectors.size:
            peak = np.abs(self.vectors).max(axis=1)
            self._scales = (np.maximum(peak, 1e-12) / 127).astype(np.float32)
            self._codes = np.rint(self.vectors / self._scales[:, None]).astype(np.int8)
        elif self.precision == "float16":
            self._codes = self.vectors.astype(np.float16)

    @property
    def exact(self) -> bool:
        return self._codes is None

    def memory(self) -> dict[str, int]:
        """Bytes held: the float32 matrix and the scan copy (0 with float32)."""
        scan = 0 if self._codes is None else self._codes.nbytes + (0 if self._scales is None else self._scales.nbytes)
        return {"float32_bytes": int(self.vectors.nbytes), "scan_bytes": int(scan)}

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Exact float32 scores of every row (one sgemv)."""
        return self.vectors @ np.asarray(query, dtype=np.float32)

    def scores_at(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Exact scores of some rows."""
        return self.vectors[rows] @ np.asarray(query, dtype=np.float32)

    def approximate(self, query: np.ndarray) -> np.ndarray:
        """Scores of every row from the scan copy (blockwise conversion, then sgemv)."""
        q = np.asarray(query, dtype=np.float32)
        codes, n = self._codes, self.vectors.shape[0]
        if codes is None:
            return self.scores(q)
        out = np.empty(n, dtype=np.float32)
        buffer = np.empty((min(_BLOCK, n), codes.shape[1]), dtype=np.float32)
        for start in range(0, n, _BLOCK):
            end = min(n, start + _BLOCK)
            block = buffer[: end - start]
            np.copyto(block, codes[start:end], casting="unsafe")
            np.matmul(block, q, out=out[start:end])
        if self._scales is not None:
            out *= self._scales
        return out

    def top(self, query: np.ndarray, rows: np.ndarray | None,
            k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The ``k`` best rows among ``rows`` (None: every row) with their exact scores, and the exact scores
        of every row when they were computed (float32), else None."""
        if self._codes is None:
            full = self.scores(query)
            values = full if rows is None else full[rows]
            candidates = np.arange(full.size) if rows is None else rows
            picked, scores = best(candidates, values, k)
            return picked, scores, full
        rough = self.approximate(query)
        values = rough if rows is None else rough[rows]
        candidates = np.arange(rough.size) if rows is None else rows
        wide, _ = best(candidates, values, k * max(1, self.rescore))
        picked, scores = best(wide, self.scores_at(wide, query), k)
        return picked, scores, None
