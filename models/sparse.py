"""BM25 over chunks: a (chunk x term) sparse matrix of precomputed BM25 weights, saved as Parquet.

Weights follow Lucene: idf = log(1 + (N - df + 0.5) / (df + 0.5)) times
tf / (tf + k1 * (1 - b + b * dl / avgdl)), so scores match Lucene's and bm25s's. A query's score for a chunk
is the sum of the weights of the query's distinct terms (a term repeated in the query counts once); terms the
index has never seen are ignored.

The index keeps its chunks' language shares (``languages``; ``sparse.json``). A question nothing decides the
language of (``models.analysis.query_languages``) is analysed in each language the index holds, and the
analysis whose terms the vocabulary knows the largest share of is searched, the most held language on a tie:
"fava beans" gives ("fava", "bean") over an English index, not the Portuguese ("fav", "beans"). On the shared
sets this scored at least as well as merging the candidates' terms (``benchmarks/query_language.py``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import scipy.sparse as sp

from lakehouse.errors import LakeragError
from models import sparse_search
from models.analysis import LANGUAGES, analyze_query, language_shares, query_languages, synonyms
from models.sparse_search import query_columns

__all__ = ["SparseIndex", "SparseIndexError", "build_sparse_index", "load_sparse_index", "save_sparse_index"]

FORMAT_VERSION = 1
POSTINGS_FILE = "postings.parquet"
CHUNKS_FILE = "chunks.parquet"
META_FILE = "sparse.json"
_BUILD_KEY = b"lakerag.build_id"
_BATCH = 8192  # chunks counted at a time, which bounds the memory a build needs beyond the index


class SparseIndexError(LakeragError, ValueError):
    """A saved sparse index is missing a file or its files disagree; the message names the file."""


@dataclass
class SparseIndex:
    chunk_ids: list[str]
    vocabulary: dict[str, int]
    matrix: sp.csc_matrix
    k1: float
    b: float
    avgdl: float = 1.0  # mean chunk length in tokens, kept for the record
    languages: dict[str, float] = field(default_factory=dict)  # the chunks' language shares; {} when unknown

    def analysed(self, query: str, language: str | None = None) -> tuple[str, list[str]]:
        """(the language ``query`` is read in, its terms): ``language`` when given, else the candidate whose
        terms the vocabulary knows the largest share of (the detected language when nothing is undecided)."""
        if language is not None:
            return language, analyze_query(query, language)
        options = [(one, analyze_query(query, one)) for one in query_languages(query, self.languages)]
        if len(options) == 1:
            return options[0]
        return max(options, key=lambda o: sum(t in self.vocabulary for t in o[1]) / max(len(o[1]), 1))

    def query_languages(self, query: str, language: str | None = None) -> tuple[str, ...]:
        """The language(s) ``query`` is analysed in against this index (``language`` when given)."""
        return (self.analysed(query, language)[0],)

    def columns(self, query: str, language: str | None = None) -> np.ndarray:
        """The query's distinct known terms as matrix columns, in the order every score is summed in; a
        colloquial term's synonyms that the index holds more often join it (``models.analysis.synonyms``)."""
        language, terms = self.analysed(query, language)
        extra = [a for t, alternatives in synonyms(terms, language).items() for a in alternatives
                 if self._df(a) > self._df(t)]
        return query_columns(self.vocabulary, [*terms, *extra])

    def _df(self, term: str) -> int:
        column = self.vocabulary.get(term)
        return 0 if column is None else int(self.matrix.indptr[column + 1] - self.matrix.indptr[column])

    def scores(self, query: str, language: str | None = None) -> np.ndarray:
        """BM25 score of every chunk (float64, row order); 0 where no query term occurs."""
        return sparse_search.scores(self.matrix, self.columns(query, language))

    def scores_at(self, query: str, rows: np.ndarray, language: str | None = None) -> np.ndarray:
        """BM25 scores of some chunks only, equal to ``scores(query)[rows]``."""
        return sparse_search.scores_at(self.matrix, self.columns(query, language), np.asarray(rows, np.int64))

    def top(self, query: str, k: int, allowed: np.ndarray | None = None,
            language: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` best rows with score > 0 and their scores, best first, ties by row; rows where
        ``allowed`` (a boolean vector, one per chunk) is False are removed before ranking."""
        if allowed is not None:
            allowed = np.asarray(allowed)
            if allowed.dtype != np.bool_ or allowed.shape != (self.matrix.shape[0],):
                raise ValueError(f"allowed must be a boolean vector of {self.matrix.shape[0]} rows, "
                                 f"not {allowed.dtype} {allowed.shape}")
        return sparse_search.top_k(self.matrix, self.columns(query, language), k, allowed)

    def search(self, query: str, top_k: int = 10, allowed: np.ndarray | None = None,
               language: str | None = None) -> list[tuple[int, float]]:
        """The ``top_k`` best (row, score) pairs with score > 0, best first, ties by row; rows where
        ``allowed`` (a boolean vector, one per chunk) is False are removed before ranking."""
        rows, values = self.top(query, top_k, allowed, language)
        return [(int(r), float(v)) for r, v in zip(rows.tolist(), values.tolist(), strict=True)]


def _count_batch(token_lists: list[list[str]], vocabulary: dict[str, int]) -> sp.csr_matrix:
    """Term counts of a few thousand chunks (CSR, summed), growing ``vocabulary`` with new terms."""
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    encoded = pa.array(list(itertools.chain.from_iterable(token_lists)), type=pa.string()).dictionary_encode()
    local = encoded.dictionary.to_pylist()
    to_global = np.fromiter((vocabulary.setdefault(t, len(vocabulary)) for t in local), np.int32, len(local))
    columns = to_global[encoded.indices.to_numpy(zero_copy_only=False)]
    rows = np.repeat(np.arange(len(token_lists), dtype=np.int32), lengths)
    return sp.coo_matrix((np.ones(columns.size, dtype=np.float32), (rows, columns)),
                         shape=(len(token_lists), len(vocabulary))).tocsr()


def build_sparse_index(chunk_ids: list[str], token_lists: list[list[str]], k1: float = 1.2,
                       b: float = 0.75, languages: Sequence[str] | None = None) -> SparseIndex:
    """Index ``token_lists[i]`` (from :func:`models.analysis.analyze`) as the chunk ``chunk_ids[i]``;
    ``languages[i]``, when given, is the language chunk i was analysed in (kept as the index's shares)."""
    if len(chunk_ids) != len(token_lists):
        raise ValueError(f"{len(chunk_ids)} chunk ids but {len(token_lists)} token lists")
    if languages is not None:
        if len(languages) != len(chunk_ids):
            raise ValueError(f"{len(chunk_ids)} chunk ids but {len(languages)} languages")
        if unknown := sorted(set(languages) - set(LANGUAGES)):
            raise ValueError(f"languages must be among {LANGUAGES}, not {unknown}")
    if len(set(chunk_ids)) != len(chunk_ids):
        raise ValueError("chunk ids must be unique")
    n = len(chunk_ids)
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=n)
    vocabulary: dict[str, int] = {}
    batches = [_count_batch(token_lists[i : i + _BATCH], vocabulary) for i in range(0, n, _BATCH)]
    indptr = np.zeros(n + 1, dtype=np.int64)
    if n:
        np.cumsum(np.concatenate([np.diff(m.indptr) for m in batches]), out=indptr[1:])
    counts = sp.csr_matrix((np.concatenate([m.data for m in batches] or [np.zeros(0, np.float32)]),
                            np.concatenate([m.indices for m in batches] or [np.zeros(0, np.int32)]), indptr),
                           shape=(n, len(vocabulary))).tocsc()  # rows come out sorted within each column
    counts.has_canonical_format = True
    df = np.diff(counts.indptr)
    idf = np.log1p((n - df + 0.5) / (df + 0.5))
    avgdl = float(lengths.mean()) if n and lengths.any() else 1.0
    norm = k1 * (1.0 - b + b * lengths / avgdl)
    weights = counts.data  # term frequencies, turned into BM25 weights in place
    denominator = norm.astype(np.float32)[counts.indices]
    denominator += weights
    weights /= denominator
    del denominator
    weights *= np.repeat(idf.astype(np.float32), df)
    return SparseIndex(list(chunk_ids), vocabulary, counts, k1, b, avgdl,
                       language_shares(list(languages)) if languages is not None else {})


def _write_atomic(table: pa.Table, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def save_sparse_index(index: SparseIndex, directory: Path) -> None:
    """Write ``postings.parquet`` (term, term_id, row, weight; sorted by term_id then row),
    ``chunks.parquet`` (row, chunk_id) and, last, ``sparse.json``; each goes to a temporary name first and is
    renamed into place."""
    directory.mkdir(parents=True, exist_ok=True)
    matrix = index.matrix.tocsc()
    matrix.sum_duplicates()
    n, n_terms = matrix.shape
    if n != len(index.chunk_ids) or n_terms != len(index.vocabulary):
        raise ValueError(f"matrix shape {matrix.shape} does not match {len(index.chunk_ids)} chunks "
                         f"and {len(index.vocabulary)} terms")
    terms = [""] * n_terms
    for term, term_id in index.vocabulary.items():
        terms[term_id] = term
    term_ids = np.repeat(np.arange(n_terms, dtype=np.int32), np.diff(matrix.indptr))
    weights = matrix.data.astype(np.float32)
    digest = hashlib.sha256("\n".join(index.chunk_ids).encode())
    digest.update(f"{matrix.nnz} {n_terms} {index.k1} {index.b}".encode())
    digest.update(weights.tobytes())
    build_id = digest.hexdigest()[:16]
    tag = {_BUILD_KEY: build_id.encode()}
    postings = pa.table({"term": pa.DictionaryArray.from_arrays(term_ids, pa.array(terms, pa.string())),
                         "term_id": term_ids, "row": matrix.indices.astype(np.int32), "weight": weights})
    chunks = pa.table({"row": np.arange(n, dtype=np.int32),
                       "chunk_id": pa.array(index.chunk_ids, pa.string())})
    _write_atomic(postings.replace_schema_metadata(tag), directory / POSTINGS_FILE)
    _write_atomic(chunks.replace_schema_metadata(tag), directory / CHUNKS_FILE)
    meta = {"version": FORMAT_VERSION, "k1": index.k1, "b": index.b, "n": n, "avgdl": index.avgdl,
            "n_terms": n_terms, "n_postings": int(matrix.nnz), "build_id": build_id,
            "languages": index.languages}
    tmp = directory / f".{META_FILE}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(meta, indent=2), encoding="utf-8")
    os.replace(tmp, directory / META_FILE)


def _read(path: Path, build_id: str, columns: list[str]) -> pa.Table:
    if not path.is_file():
        raise SparseIndexError(f"sparse index file missing: {path}")
    try:
        table = pq.read_table(path, columns=columns)
    except (OSError, pa.ArrowException) as exc:
        raise SparseIndexError(f"cannot read sparse index file {path}: {exc}") from exc
    if (table.schema.metadata or {}).get(_BUILD_KEY, b"").decode() != build_id:
        raise SparseIndexError(f"{path} belongs to another build than {path.parent / META_FILE}")
    return table


def _in_order(term_ids: np.ndarray, rows: np.ndarray, n: int) -> bool:
    """Postings sorted by term id, then strictly by row, with every row within 0..n-1."""
    if rows.size == 0:
        return True
    same_term = term_ids[1:] == term_ids[:-1]
    return bool(rows.min() >= 0 and rows.max() < n and term_ids[0] >= 0
                and not np.any(term_ids[1:] < term_ids[:-1])
                and not np.any(same_term & (rows[1:] <= rows[:-1])))


def load_sparse_index(directory: Path) -> SparseIndex:
    """Read an index written by :func:`save_sparse_index`; a missing or inconsistent file raises
    :class:`SparseIndexError` (a ``ValueError``) naming it."""
    meta_path = directory / META_FILE
    if not meta_path.is_file():
        raise SparseIndexError(f"sparse index file missing: {meta_path}")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        n, n_terms, build_id = int(meta["n"]), int(meta["n_terms"]), str(meta["build_id"])
        k1, b, avgdl = float(meta["k1"]), float(meta["b"]), float(meta["avgdl"])
        n_postings = int(meta["n_postings"])
        languages = {str(k): float(v) for k, v in (meta.get("languages") or {}).items()}  # absent before 2026-12
    except (ValueError, KeyError, TypeError) as exc:
        raise SparseIndexError(f"{meta_path} is not a sparse index description: {exc}") from exc
    if unknown := sorted(set(languages) - set(LANGUAGES)):
        raise SparseIndexError(f"{meta_path}: languages must be among {LANGUAGES}, not {unknown}")
    if meta.get("version") != FORMAT_VERSION:
        raise SparseIndexError(f"{meta_path} has version {meta.get('version')}, expected {FORMAT_VERSION}")
    chunks_path, postings_path = directory / CHUNKS_FILE, directory / POSTINGS_FILE
    chunks = _read(chunks_path, build_id, ["row", "chunk_id"])
    if chunks.num_rows != n or not np.array_equal(chunks["row"].to_numpy(), np.arange(n)):
        raise SparseIndexError(f"{chunks_path} does not hold rows 0..{n - 1} in order")
    postings = _read(postings_path, build_id, ["term", "term_id", "row", "weight"])
    term_ids, rows = postings["term_id"].to_numpy(), postings["row"].to_numpy()
    if postings.num_rows != n_postings or not _in_order(term_ids, rows, n):
        raise SparseIndexError(f"{postings_path} is not sorted by term_id and row, "
                               f"or has rows outside 0..{n - 1}")
    counts = np.bincount(term_ids, minlength=n_terms)
    if counts.size != n_terms or (n_terms and counts.min() == 0):
        raise SparseIndexError(f"{postings_path} does not hold term ids 0..{n_terms - 1}")
    indptr = np.concatenate([[0], np.cumsum(counts)])
    terms = postings["term"].take(pa.array(indptr[:-1])).cast(pa.string()).to_pylist()
    vocabulary = dict(zip(terms, range(n_terms), strict=True))
    if len(vocabulary) != n_terms:
        raise SparseIndexError(f"{postings_path} gives one term to several term ids")
    matrix = sp.csc_matrix((postings["weight"].to_numpy(), rows, indptr), shape=(n, n_terms))
    matrix.has_canonical_format = True
    return SparseIndex(chunks["chunk_id"].to_pylist(), vocabulary, matrix, k1, b, avgdl, languages)
