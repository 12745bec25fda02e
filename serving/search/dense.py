"""Dense scores as one matrix-vector product over a contiguous matrix.

``float32`` (the default) scores every row exactly with one BLAS ``sgemv``. ``int8`` and ``float16`` keep a
smaller copy for the scan (per-row scaled int8 codes, or half floats; ``serving.search.kernels`` multiplies it
by the query), take ``rescore`` times more candidates than asked from it, and rescore those exactly against the
float32 rows; the top candidates of the exact scores are returned, so the ranking equals the float32 one unless
a true top-k row falls outside the widened candidate list (``benchmarks/retrieval.py`` reports how often).

Rows a request may not see are never candidates: when most rows are visible their scores are set to -inf in
a scratch copy (no gather of the visible rows), otherwise the visible rows are gathered.

With an approximate index (``ann``: ``models.ann``, built from ``LAKERAG_ANN_MIN_CHUNKS`` chunks) the candidates
come from it instead of a scan: ``ANN_OVERSAMPLE`` times the rows asked, divided by the share of rows the
request may see (the index knows rows by key, not by the request's mask, so hidden rows are fetched and dropped
before anything is ranked), rescored exactly. A request that may see fewer rows than that threshold, or under
``1 / ANN_MAX_OVERFETCH`` of them (``1 / ANN_WIDE_OVERFETCH`` once they number ``ANN_WIDE_ROWS``), or whose
candidates leave fewer visible rows than asked, scans its visible rows instead: exact, and cheaper than a search
that fetches mostly hidden rows (``benchmarks/ann.py`` measures both paths' recall@10 and latency).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from models.ann import AnnSearcher
from serving.search import kernels
from serving.search.masks import Visible

PRECISIONS = ("auto", "float32", "float16", "int8")
AUTO_INT8_ROWS = 50_000  # "auto": from this many rows the int8 scan (+ exact rescoring) is the faster path
ANN_OVERSAMPLE = 2  # ANN candidates per row asked, rescored exactly
ANN_MAX_OVERFETCH = 3  # rows fetched per visible one at most; a request that may see fewer scans its rows ...
# ... unless it sees this many: scanning them costs more than fetching up to ANN_WIDE_OVERFETCH per visible row.
# benchmarks/ann.py, a caller who sees 10%: at 100k rows (10k visible) the scan of theirs is exact at p95 3.6 ms
# where a 12x over-fetch finds 0.91 of the top 10; at 1M (100k visible) the scan takes 25 ms, the over-fetch
# 4.4 ms for 0.963
ANN_WIDE_ROWS, ANN_WIDE_OVERFETCH = 50_000, 12


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


def best_of(values: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`best` over every row of a full score vector (row i scores ``values[i]``), without building the
    row numbers of the rows that cannot be in the top ``k``."""
    n = values.size
    k = min(k, n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64), values[:0]
    rows = np.flatnonzero(values >= np.partition(values, n - k)[n - k]) if n > k else np.arange(n)
    picked = values[rows]
    order = np.lexsort((rows, -picked))[:k]
    return rows[order], picked[order]


def best_visible(values: np.ndarray, visible: Visible | None, k: int,
                 owned: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best visible rows of a full score vector; ``owned``: ``values`` may be overwritten."""
    if visible is None or visible.everything:
        return best_of(values, k)
    if visible.rows.size * 4 < values.size:  # few visible rows: gathering them is cheaper
        return best(visible.rows, values[visible.rows], k)
    masked = values if owned else values.copy()
    masked[visible.hidden] = -np.inf
    return best_of(masked, min(k, visible.rows.size))


@dataclass
class DenseMatrix:
    """The index's vectors (float32, contiguous, one row per chunk) and, when asked, a compact scan copy."""

    vectors: np.ndarray
    precision: str = "float32"
    rescore: int = 4
    ann: AnnSearcher | None = field(default=None, repr=False)
    _codes: np.ndarray | None = field(default=None, repr=False)
    _scales: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.precision not in PRECISIONS:
            raise ValueError(f"dense precision must be one of {', '.join(PRECISIONS)}, got {self.precision!r}")
        self.vectors = np.ascontiguousarray(self.vectors, dtype=np.float32)
        if self.precision == "auto":  # small indexes scan exactly; large ones scan int8 and rescore exactly
            self.precision = "int8" if self.vectors.shape[0] >= AUTO_INT8_ROWS else "float32"
        if self.precision == "int8" and self.vectors.size:
            self._codes, self._scales = kernels.quantise_rows(self.vectors)
        elif self.precision == "float16" and self.vectors.size:
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
        """Scores of every row from the scan copy (the exact scores with float32)."""
        if self._codes is None:
            return self.scores(query)
        out = kernels.dots(self._codes, query)
        if self._scales is not None:
            out *= self._scales
        return out

    def top(self, query: np.ndarray, visible: Visible | None, k: int,
            full: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The ``k`` best visible rows (``visible`` None: every row) with their exact scores, and the exact
        scores of every row when they were computed, else None. ``full``: those exact scores, already
        computed by the caller (they are used as they are, and left unchanged)."""
        if full is None and self.ann is not None and (found := self._ann_top(query, visible, k)) is not None:
            return (*found, None)
        if full is not None or self._codes is None:
            exact = self.scores(query) if full is None else full
            rows, values = best_visible(exact, visible, k)
            return rows, values, exact
        wide, _ = best_visible(self.approximate(query), visible, k * max(1, self.rescore), owned=True)
        wide = np.sort(wide)  # rows in memory order for the gather
        rows, values = best(wide, self.scores_at(wide, query), k)
        return rows, values, None

    def _ann_top(self, query: np.ndarray, visible: Visible | None,
                 k: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The ANN path of :meth:`top`, or None where the scan must answer (module docstring)."""
        n = self.vectors.shape[0]
        seen = n if visible is None or visible.everything else int(visible.rows.size)
        overfetch = ANN_WIDE_OVERFETCH if seen >= ANN_WIDE_ROWS else ANN_MAX_OVERFETCH
        if seen < self.ann.min_rows or seen * overfetch < n:
            return None
        rows = self.ann.candidates(query, -(-k * ANN_OVERSAMPLE * n // seen))
        if seen < n:
            rows = rows[visible.mask[rows]]  # hidden rows never reach the ranking
        if rows.size < min(k, seen):
            return None
        rows = np.sort(rows)
        return best(rows, self.scores_at(rows, query), k)
