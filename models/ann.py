"""The approximate nearest-neighbour index over the dense vectors, shared by the ``ann`` index stage that builds
it and the dense search that reads it: faiss's inverted file over 8-bit scalar codes, inner product (the vectors
are normalised), chosen by ``benchmarks/ann.py`` (docs/adr/0014).

k-means splits the rows into about ``LISTS_PER_SQRT`` x sqrt(rows) lists; a search scores the query against
the lists' centroids, scans the 8-bit codes of the ``PROBES`` nearest lists and returns the best rows it met
(an index of few rows has fewer lists than that: every code is scanned). It replaced an HNSW graph (usearch,
int8): at 5M rows the graph's recall@10 stayed at 0.72 after a 32-minute build, this index's is 0.985 after 7
(docs/adr/0017).

A folder holds ``index.faiss`` (centroids, codes and the key of each code), ``keys.npy`` (the key of each row,
in the vectors table's order) and, written last, ``ann.json`` (format, model, dimension, rows, a fingerprint of
the chunk ids, and the rows the lists were trained on). A key is a 63-bit hash of (chunk id, embed key): it
stays while a chunk's text and model stay, and changes whenever its vector can. Candidates come back as row
numbers; the caller rescores them exactly.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FORMAT = "faiss-ivf-sq8-ip/1"
INDEX_FILE, KEYS_FILE, META_FILE = "index.faiss", "keys.npy", "ann.json"
LISTS_PER_SQRT = 4  # lists: 4 x sqrt(rows), faiss's usual range (4-16)
TRAIN_PER_LIST = 40  # k-means sample: rows per list (faiss asks for at least 39)
RETRAIN_GROWTH = 4  # an index whose rows grew this many times since its lists were trained is rebuilt
# lists probed per search: benchmarks/ann.py (real e5 passages spread to 1M and 5M rows, 100 candidates rescored
# exactly) recall@10 0.951 / 0.965 with 64 lists, 0.978 / 0.982 with 128 (p95 1.5 / 2.9 ms on one thread)
PROBES = 128


class AnnIndexError(ValueError):
    """An ANN folder is missing a file, unreadable or does not match the vectors it claims to index."""


def row_keys(chunk_ids: Sequence[str], embed_keys: Sequence[str]) -> np.ndarray:
    """One uint64 key per row (63 bits of blake2b over chunk id and embed key)."""
    out = np.empty(len(chunk_ids), dtype=np.uint64)
    for i, (chunk, embed) in enumerate(zip(chunk_ids, embed_keys, strict=True)):
        digest = hashlib.blake2b(f"{chunk}\x00{embed}".encode(), digest_size=8).digest()
        out[i] = int.from_bytes(digest, "little") >> 1
    return out


def fingerprint(chunk_ids: Sequence[str]) -> str:
    """What ties an ANN folder to one vectors table: the chunk ids in row order."""
    h = hashlib.sha256()
    for chunk in chunk_ids:
        h.update(chunk.encode())
        h.update(b"\n")
    return h.hexdigest()


def lists_for(rows: int) -> int:
    """How many lists an index of ``rows`` rows is trained with: ``LISTS_PER_SQRT`` x sqrt(rows), and never
    fewer than ``TRAIN_PER_LIST`` rows per list (a small index is one list: a scan of its codes)."""
    return max(1, min(int(LISTS_PER_SQRT * math.sqrt(rows)), rows // TRAIN_PER_LIST))


def _faiss(threads: int = 0):
    import faiss  # deferred: only the ANN path needs the library

    if threads:
        faiss.omp_set_num_threads(threads)
    return faiss


def _trained(vectors: np.ndarray, threads: int):
    """A new, empty index whose lists are trained on a fixed sample of ``vectors`` (the same rows give the same
    lists)."""
    faiss = _faiss(threads)
    n, dim = vectors.shape
    lists = lists_for(n)
    sample = np.sort(np.random.default_rng(0).choice(n, min(n, TRAIN_PER_LIST * lists), replace=False))
    index = faiss.IndexIVFScalarQuantizer(faiss.IndexFlatIP(dim), dim, lists, faiss.ScalarQuantizer.QT_8bit,
                                          faiss.METRIC_INNER_PRODUCT)
    index.train(np.ascontiguousarray(vectors[sample]))
    return index


@dataclass
class Update:
    """What :func:`build` did: rows added to the previous index, and whether it started from scratch."""

    added: int
    kept: int
    rebuilt: bool


def build(folder: Path, vectors: np.ndarray, keys: np.ndarray, model_id: str, chunks: str,
          previous: Path | None = None, threads: int = 0, min_rows: int = 1) -> Update:
    """Write an index of ``vectors`` (row i has key ``keys[i]``) to ``folder``; ``min_rows``: the fewest rows a
    request must be able to see for the searcher to be used (the build threshold). With a ``previous`` folder of
    the same format, model and dimension whose keys are all still present and whose lists were trained on at
    least a ``RETRAIN_GROWTH``-th of today's rows, only the new rows are added to a copy of it; any removed key
    retrains from scratch, so no vector of a deleted or erased chunk stays in the file."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    n, dim = int(vectors.shape[0]), int(vectors.shape[1])
    index, kept, trained_rows = None, 0, n
    if previous is not None:
        try:
            meta, old_keys = _read_meta(previous), np.load(previous / KEYS_FILE)
            if (meta["format"], meta["model_id"], meta["dim"]) == (FORMAT, model_id, dim) and \
                    n <= RETRAIN_GROWTH * int(meta["trained_rows"]) and np.isin(old_keys, keys).all():
                index = _faiss(threads).read_index(str(previous / INDEX_FILE))
                if index.ntotal != len(old_keys):
                    raise AnnIndexError(f"{previous}: index and keys disagree")
                kept, trained_rows = len(old_keys), int(meta["trained_rows"])
        except (AnnIndexError, OSError, ValueError, RuntimeError, KeyError, TypeError):
            index, kept, trained_rows = None, 0, n  # an unreadable previous index is simply not reused
    fresh = ~np.isin(keys, np.load(previous / KEYS_FILE)) if kept else np.ones(n, bool)
    if index is None and n:
        index = _trained(vectors, threads)
    if index is not None and fresh.any():
        index.add_with_ids(vectors[fresh], keys[fresh].astype(np.int64))
    folder.mkdir(parents=True, exist_ok=True)
    if index is not None:
        _faiss().write_index(index, str(folder / INDEX_FILE))
    np.save(folder / KEYS_FILE, keys)
    meta = {"format": FORMAT, "model_id": model_id, "dim": dim, "rows": n, "chunks": chunks,
            "min_rows": int(min_rows), "lists": int(index.nlist) if index is not None else 0,
            "trained_rows": trained_rows}
    tmp = folder / f".{META_FILE}.tmp"
    tmp.write_text(json.dumps(meta, indent=1), encoding="utf-8")
    os.replace(tmp, folder / META_FILE)
    return Update(added=int(fresh.sum()), kept=kept, rebuilt=not kept)


def _read_meta(folder: Path) -> dict:
    path = folder / META_FILE
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
        meta["dim"], meta["rows"] = int(meta["dim"]), int(meta["rows"])
        return meta
    except FileNotFoundError:
        raise AnnIndexError(f"ANN index file missing: {path}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise AnnIndexError(f"{path}: unreadable ANN metadata ({exc})") from None


class AnnSearcher:
    """A loaded index that answers row numbers; ``min_rows``: the fewest rows a request must be able to see for
    it to be used (below, scanning them is cheaper)."""

    def __init__(self, index, keys: np.ndarray, min_rows: int = 1) -> None:
        self.index = index
        self.min_rows = min_rows
        self.rows = len(keys)
        self.probes = min(PROBES, int(index.nlist))
        self._order = np.argsort(keys, kind="stable")
        self._sorted = keys[self._order]
        self._faiss = _faiss()

    def candidates(self, query: np.ndarray, count: int) -> np.ndarray:
        """Up to ``count`` rows nearest ``query``, nearest first (one thread, as each API request is)."""
        count = min(count, self.rows)
        if count <= 0:
            return np.zeros(0, dtype=np.int64)
        q = np.ascontiguousarray(np.asarray(query, dtype=np.float32).reshape(1, -1))
        # the probe count travels with the call, so concurrent requests share no search state
        _, ids = self.index.search(q, count, params=self._faiss.SearchParametersIVF(nprobe=self.probes))
        found = ids[0][ids[0] >= 0].astype(np.uint64)
        at = np.minimum(np.searchsorted(self._sorted, found), self.rows - 1)
        ok = self._sorted[at] == found
        return self._order[at[ok]].astype(np.int64)


def load(folder: Path, model_id: str, dim: int, chunks: str) -> AnnSearcher:
    """Open the index in ``folder`` for vectors made by ``model_id`` with ``dim`` dimensions over the chunk ids
    whose :func:`fingerprint` is ``chunks``; raises :class:`AnnIndexError` naming the file when it is missing,
    corrupt or built over other vectors."""
    meta = _read_meta(folder)
    if meta.get("format") != FORMAT:
        raise AnnIndexError(f"{folder / META_FILE}: format {meta.get('format')!r}, expected {FORMAT!r}")
    if (meta.get("model_id"), meta["dim"], meta.get("chunks")) != (model_id, dim, chunks):
        raise AnnIndexError(f"{folder}: built over other vectors (model, dimension or chunks differ)")
    path = folder / INDEX_FILE
    try:
        keys = np.load(folder / KEYS_FILE)
        index = _faiss().read_index(str(path))
    except (OSError, ValueError, RuntimeError, EOFError) as exc:
        raise AnnIndexError(f"{path}: unreadable ANN index ({exc})") from None
    if index.ntotal != meta["rows"] or len(keys) != meta["rows"] or index.d != dim or not hasattr(index, "nlist"):
        raise AnnIndexError(f"{path}: unreadable ANN index (expected {meta['rows']} rows of {dim} dims)")
    return AnnSearcher(index, keys.astype(np.uint64), int(meta.get("min_rows", 1)))
