"""The approximate nearest-neighbour index over the dense vectors, shared by the ``ann`` index stage that builds
it and the dense search that reads it: usearch's HNSW graph over int8 codes, cosine (the vectors are
normalised), chosen by ``benchmarks/ann.py`` (docs/adr/0014).

A folder holds ``index.usearch`` (the graph and codes), ``keys.npy`` (the key of each row, in the vectors
table's order) and, written last, ``ann.json`` (format, model, dimension, rows and a fingerprint of the chunk
ids). A key is a 63-bit hash of (chunk id, embed key): it stays while a chunk's text and model stay, and
changes whenever its vector can. Candidates come back as row numbers; the caller rescores them exactly.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FORMAT = "usearch-hnsw-i8-cos/1"
INDEX_FILE, KEYS_FILE, META_FILE = "index.usearch", "keys.npy", "ann.json"
CONNECTIVITY, EXPANSION_ADD, EXPANSION_SEARCH = 16, 128, 128  # HNSW M, efConstruction, minimum ef at search
# from this many rows the walk keeps a wider beam: benchmarks/ann.py at 1M, served path recall@10 0.866 with
# 128, 0.920 with 512, 0.955 with 1024 (p95 1.9 / 4.2 / 6.1 ms against the int8 scan's 108 ms)
LARGE_ROWS, EXPANSION_SEARCH_LARGE = 500_000, 1024


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


def _new_index(dim: int):
    from usearch.index import Index  # deferred: only the ANN path needs the library

    return Index(ndim=dim, metric="cos", dtype="i8", connectivity=CONNECTIVITY, expansion_add=EXPANSION_ADD,
                 expansion_search=EXPANSION_SEARCH)


@dataclass
class Update:
    """What :func:`build` did: rows added to the previous graph, and whether it started from scratch."""

    added: int
    kept: int
    rebuilt: bool


def build(folder: Path, vectors: np.ndarray, keys: np.ndarray, model_id: str, chunks: str,
          previous: Path | None = None, threads: int = 0, min_rows: int = 1) -> Update:
    """Write an index of ``vectors`` (row i has key ``keys[i]``) to ``folder``; ``min_rows``: the fewest rows a
    request must be able to see for the searcher to be used (the build threshold). With a ``previous`` folder of
    the same format, model and dimension whose keys are all still present, only the new rows are added to a
    copy of its graph; any removed key rebuilds from scratch, so no vector of a deleted or erased chunk stays
    in the file."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    dim = int(vectors.shape[1])
    index, kept, rebuilt = None, 0, True
    if previous is not None:
        try:
            meta, old_keys = _read_meta(previous), np.load(previous / KEYS_FILE)
            if (meta["format"], meta["model_id"], meta["dim"]) == (FORMAT, model_id, dim) and \
                    np.isin(old_keys, keys).all():
                from usearch.index import Index

                index = Index.restore(str(previous / INDEX_FILE), view=False)
                kept, rebuilt = len(old_keys), False
        except (AnnIndexError, OSError, ValueError, RuntimeError):
            index = None  # an unreadable previous index is simply not reused
    if index is None:
        index, kept, rebuilt = _new_index(dim), 0, True
    fresh = ~np.isin(keys, np.asarray(index.keys, dtype=np.uint64)) if kept else np.ones(len(keys), bool)
    if fresh.any():
        index.add(keys[fresh], vectors[fresh], threads=threads)
    folder.mkdir(parents=True, exist_ok=True)
    index.save(str(folder / INDEX_FILE))
    np.save(folder / KEYS_FILE, keys)
    meta = {"format": FORMAT, "model_id": model_id, "dim": dim, "rows": int(len(keys)), "chunks": chunks,
            "min_rows": int(min_rows), "connectivity": CONNECTIVITY, "expansion_add": EXPANSION_ADD}
    tmp = folder / f".{META_FILE}.tmp"
    tmp.write_text(json.dumps(meta, indent=1), encoding="utf-8")
    os.replace(tmp, folder / META_FILE)
    return Update(added=int(fresh.sum()), kept=kept, rebuilt=rebuilt)


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
    """A loaded (memory-mapped) index that answers row numbers; ``min_rows``: the fewest rows a request must be
    able to see for it to be used (below, scanning them is cheaper)."""

    def __init__(self, index, keys: np.ndarray, min_rows: int = 1) -> None:
        self.index = index
        self.min_rows = min_rows
        self.rows = len(keys)
        self._order = np.argsort(keys, kind="stable")
        self._beam = threading.Lock()
        self._sorted = keys[self._order]

    def candidates(self, query: np.ndarray, count: int) -> np.ndarray:
        """Up to ``count`` rows nearest ``query``, nearest first (one thread, as each API request is)."""
        count = min(count, self.rows)
        # the beam is a property of the index, not of the call: set and walk under one lock, so that two requests
        # never walk with each other's beam (a walk takes milliseconds)
        with self._beam:
            self.index.expansion_search = max(EXPANSION_SEARCH if self.rows < LARGE_ROWS
                                              else EXPANSION_SEARCH_LARGE, count)
            found = np.asarray(self.index.search(np.asarray(query, dtype=np.float32), count, threads=1).keys,
                               dtype=np.uint64)
        at = np.searchsorted(self._sorted, found)
        at = np.minimum(at, self.rows - 1)
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
    from usearch.index import Index

    path = folder / INDEX_FILE
    try:
        keys = np.load(folder / KEYS_FILE)
        index = Index.restore(str(path), view=True)
    except (OSError, ValueError, RuntimeError, EOFError) as exc:
        raise AnnIndexError(f"{path}: unreadable ANN index ({exc})") from None
    if index is None or len(index) != meta["rows"] or len(keys) != meta["rows"] or index.ndim != dim:
        raise AnnIndexError(f"{path}: unreadable ANN index (expected {meta['rows']} rows of {dim} dims)")
    return AnnSearcher(index, keys.astype(np.uint64), int(meta.get("min_rows", 1)))
