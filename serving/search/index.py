"""A read-only, in-memory view of one index (chunks, metadata, vectors, BM25 postings)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lakehouse import schemas as s
from lakehouse.errors import LakeragError
from lakehouse.paths import ANN_SET
from lakehouse.storage import read_json, versioned_dir
from models import ann
from models.sparse import SparseIndex, load_sparse_index
from serving.search import languages
from serving.search.dense import DenseMatrix
from serving.search.masks import MaskCache

log = logging.getLogger(__name__)

PUBLIC = s.PUBLIC


class IndexNotReady(LakeragError):
    """The index folder lacks a table the search needs (run `lakerag index` first)."""


def _dates(values: list[date | None]) -> np.ndarray:
    return np.array([np.datetime64(v, "D") if v else np.datetime64("NaT") for v in values], dtype="datetime64[D]")


def _ann(tables: Path, model_id: str, dim: int, chunk_ids: list[str]) -> ann.AnnSearcher | None:
    """The folder's ANN index, or None (none built: a small index; or unreadable: warned, the scan serves)."""
    try:
        folder = versioned_dir(tables, ANN_SET)
        if folder is None:
            return None
        return ann.load(folder, model_id, dim, ann.fingerprint(chunk_ids))
    except (ann.AnnIndexError, OSError, ValueError, KeyError) as exc:
        log.warning("ANN index not used, dense search scans every vector: %s", exc)
        return None


@dataclass
class SearchIndex:
    """Arrays aligned by row: row i of every array describes chunk ``chunk_ids[i]``."""

    snapshot_id: str
    chunk_ids: list[str]
    document_ids: list[str]
    titles: list[str]
    heading_paths: list[list[str]]
    texts: list[str]
    paths: list[str]
    pages: list[list[int]]
    doc_types: np.ndarray
    departments: np.ndarray
    issue_dates: np.ndarray
    review_dates: np.ndarray
    group_sets: list[frozenset[str]]
    group_codes: np.ndarray
    vectors: np.ndarray
    model_id: str
    sparse: SparseIndex
    dense_precision: str = "float32"  # the scan matrix: float32 (exact), float16, int8 (+ exact rescoring) or auto
    ann: ann.AnnSearcher | None = field(default=None, repr=False)  # candidates from the ANN index, when loaded
    dense: DenseMatrix = field(init=False, repr=False)
    masks: MaskCache = field(init=False, repr=False)

    @cached_property
    def language_shares(self) -> dict[str, float]:
        """Language -> share of the chunks written in it: the sparse stage's count, else read from a sample of
        the chunks once per snapshot (``languages.shares``; an index built before the stage kept them)."""
        return dict(self.sparse.languages) or languages.shares(self.texts)

    def __post_init__(self) -> None:
        self.dense = DenseMatrix(self.vectors, self.dense_precision, ann=self.ann)
        self.vectors = self.dense.vectors  # one contiguous float32 matrix, shared
        self.masks = MaskCache()

    def __len__(self) -> int:
        return len(self.chunk_ids)

    @classmethod
    def load(cls, tables: Path, dense_precision: str = "float32", with_vectors: bool = True) -> SearchIndex:
        """Load from a tables folder (``$LAKERAG_HOME/tables`` or a snapshot). ``with_vectors=False`` skips the
        dense vectors (a BM25-only search needs none); the index then has a 0-column matrix. With
        ``dense_precision`` auto, the ANN index the folder carries (the ``ann`` stage) gives the dense
        candidates; a missing or corrupt one is logged and every vector is scanned instead."""
        needed = [tables / f"{name}.parquet" for name in ("chunks", "extracted", "vectors")]
        needed.append(tables / "sparse.json")
        if missing := [p.name for p in needed if not p.exists()]:
            raise IndexNotReady(f"{tables}: missing {', '.join(missing)}; run `lakerag index` first")
        chunks = pq.read_table(tables / "chunks.parquet")
        meta = pq.read_table(tables / "extracted.parquet",
                             columns=["content_hash", "department", "issue_date", "next_review_date"])
        by_hash = {r["content_hash"]: r for r in meta.to_pylist()}
        hashes = chunks["content_hash"].to_pylist()
        vectors_table = pq.read_table(tables / "vectors.parquet", columns=None if with_vectors else ["chunk_id"])
        vector_ids = vectors_table["chunk_id"].to_pylist()
        if vector_ids != chunks["chunk_id"].to_pylist():
            raise IndexNotReady(f"{tables}: vectors.parquet does not match chunks.parquet; rerun `lakerag index`")
        dim = int((vectors_table.schema.metadata or {}).get(b"dim", b"0")) if with_vectors else 0
        if dim:
            flat = pc.list_flatten(vectors_table["vector"]).to_numpy(zero_copy_only=False)
            vectors = np.ascontiguousarray(flat.reshape(len(vector_ids), dim), dtype=np.float32)
        else:
            vectors = np.zeros((len(vector_ids) if not with_vectors else 0, 0), dtype=np.float32)
        model_id = (vectors_table.schema.metadata or {}).get(b"model_id", b"").decode()
        searcher = _ann(tables, model_id, dim, vector_ids) if dim and dense_precision == "auto" else None
        pointer = read_json(tables / "sparse.json")
        sparse = load_sparse_index(tables / pointer["dir"])
        if sparse.chunk_ids != vector_ids:
            raise IndexNotReady(f"{tables}: the BM25 index does not match chunks.parquet; rerun `lakerag index`")
        codes: dict[frozenset[str], int] = {}
        group_codes = np.array([codes.setdefault(frozenset(g), len(codes))
                                for g in chunks["access_groups"].to_pylist()], dtype=np.int32)
        manifest = tables.parent / "manifest.json"
        snapshot_id = read_json(manifest)["id"] if manifest.exists() else pointer.get("run_id", "unknown")
        return cls(
            snapshot_id=snapshot_id,
            chunk_ids=vector_ids,
            document_ids=chunks["document_id"].to_pylist(),
            titles=chunks["title"].to_pylist(),
            heading_paths=chunks["heading_path"].to_pylist(),
            texts=chunks["text"].to_pylist(),
            paths=chunks["path"].to_pylist(),
            pages=chunks["pages"].to_pylist(),
            doc_types=np.array(chunks["doc_type"].to_pylist(), dtype=object),
            departments=np.array([(by_hash.get(h) or {}).get("department") or "" for h in hashes], dtype=object),
            issue_dates=_dates([(by_hash.get(h) or {}).get("issue_date") for h in hashes]),
            review_dates=_dates([(by_hash.get(h) or {}).get("next_review_date") for h in hashes]),
            group_sets=list(codes),
            group_codes=group_codes,
            vectors=vectors,
            model_id=model_id,
            sparse=sparse,
            dense_precision=dense_precision,
            ann=searcher,
        )

    def readable_by(self, caller_groups: frozenset[str]) -> np.ndarray:
        """Rows the caller may read: the chunk shares a group with the caller (everyone has 'public').
        A chunk with no groups is readable by nobody (fail closed). Cached per group set (read-only array)."""
        effective = frozenset(caller_groups) | {PUBLIC}
        return self.masks.get(("groups", effective), lambda: self._readable(effective)).mask

    def _readable(self, effective: frozenset[str]) -> np.ndarray:
        allowed = [code for code, groups in enumerate(self.group_sets) if groups & effective]
        return np.isin(self.group_codes, np.array(allowed, dtype=np.int32))
