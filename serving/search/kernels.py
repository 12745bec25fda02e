"""Dot products of one query with every row of a compact (int8 or float16) matrix.

numpy has no int8 or float16 matrix-vector kernel of its own (its float16 arithmetic is scalar, its integer
matmul is unvectorised), so the scan uses SimSIMD's AVX2/AVX-512/NEON kernels when the ``simsimd`` package is
installed (int8 x int8 with exact int32 accumulation, float16 with float32 accumulation), one thread per call
like numpy's BLAS in the API. Without it, blocks that fit in the L2 cache are converted to float32 and scored
with BLAS: the same scores up to float rounding, about twice as slow. Either way the caller rescores its top
candidates exactly in float32, so the kernel only decides which rows are rescored.
"""

from __future__ import annotations

import logging

import numpy as np

log = logging.getLogger(__name__)

try:  # optional: a 2 MB wheel with no dependencies (requirements.in); the numpy path below is the fallback
    import simsimd
except ImportError:  # pragma: no cover - depends on the environment
    simsimd = None

_BLOCK = 512  # rows converted at a time in the fallback (768 kB of float32 at 384 dims: stays in L2)


_disabled = False


def available() -> bool:
    """Whether the SIMD kernels are in use (else the blockwise numpy fallback)."""
    return simsimd is not None and not _disabled


def use_simd(enabled: bool) -> None:
    """Switch the SIMD kernels off (tests compare both paths) or back on when installed."""
    global _disabled
    _disabled = not enabled


QUANTISE_BLOCK = 65_536  # rows quantised at a time: the temporaries stay a few tens of MB at any size


def quantise_rows(vectors: np.ndarray, block: int = QUANTISE_BLOCK) -> tuple[np.ndarray, np.ndarray]:
    """Per-row symmetric int8 codes and float32 scales: ``row ~= scale * codes``. Done ``block`` rows at a time:
    over the whole matrix at once, the float temporaries were twice the vectors' size (about 15 GB beside the
    7.7 GB of 5M e5-small vectors: the ANN benchmark at 5M was killed for memory there)."""
    n = vectors.shape[0]
    codes, scales = np.empty(vectors.shape, np.int8), np.empty(n, np.float32)
    for start in range(0, n, block):
        rows = np.asarray(vectors[start:start + block], dtype=np.float32)
        peak = np.abs(rows).max(axis=1) if rows.size else np.zeros(rows.shape[0], np.float32)
        scale = (np.maximum(peak, 1e-12) / 127).astype(np.float32)
        codes[start:start + block] = np.rint(rows / scale[:, None])
        scales[start:start + block] = scale
    return codes, scales


def dots(codes: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``codes @ query`` for an int8 or float16 ``codes`` matrix and a float32 query (float32 out).

    With the SIMD kernels an int8 matrix is multiplied by the query quantised to int8 (the result is rescaled
    back), so the scores carry the query's rounding as well as the rows'."""
    q = np.ascontiguousarray(query, dtype=np.float32)
    n = codes.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.float32)
    if available():
        if codes.dtype == np.int8:
            peak = float(np.abs(q).max())
            scale = peak / 127 if peak > 0 else 1.0
            out = _simd(np.rint(q / scale).astype(np.int8), codes)
            out *= scale
            return out
        return _simd(q.astype(np.float16), codes)
    out = np.empty(n, dtype=np.float32)
    buffer = np.empty((min(_BLOCK, n), codes.shape[1]), dtype=np.float32)
    for start in range(0, n, _BLOCK):
        end = min(n, start + _BLOCK)
        block = buffer[: end - start]
        np.copyto(block, codes[start:end], casting="unsafe")
        np.matmul(block, q, out=out[start:end])
    return out


def _simd(query: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """One row of SimSIMD's pairwise dot products, float32 (int8 sums stay exact: at most 2^24 in magnitude
    below 1040 dims)."""
    return np.asarray(simsimd.cdist(query[None, :], codes, metric="dot", out_dtype="float32", threads=1))[0]
