"""The fast search path (cached masks, candidate-only fusion, touched-rows BM25, quantised dense scan with exact
rescoring) ranks exactly as scoring every row of the index does."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from serving.search import Filters, RetrievalConfig, Retriever
from serving.search.fusion import fuse

QUERIES = ["notificar incidentes de segurança", "faixa salarial do analista sênior", "contrato CT-2024-0187",
           "prazo de prestação de contas de viagem", "criptografia backup restauração"]
GROUPS = [set(), {"rh"}, {"juridico", "rh", "diretoria"}]
CONFIGS = [RetrievalConfig(method="bm25"), RetrievalConfig(method="dense"), RetrievalConfig(fusion="rrf"),
           RetrievalConfig(fusion="weighted", dense_weight=0.4)]


def _ordered(rows: np.ndarray, values: np.ndarray, k: int) -> np.ndarray:
    """Every candidate sorted by (score desc, row asc), the first k: no partitioning, no shortcuts."""
    return rows[np.lexsort((rows, -values))][:k]


def _exact(index, query: str, vector, groups, doc_types, config, top_k) -> list[tuple[str, float]]:
    effective = set(groups) | {"public"}
    mask = np.array([bool(index.group_sets[c] & effective) for c in index.group_codes])
    if doc_types:
        mask &= np.array([t in doc_types for t in index.doc_types])
    dense = index.vectors @ vector
    sparse = index.sparse.scores(query)
    every = np.flatnonzero(mask)
    dense_rows = _ordered(every, dense[every], config.candidates)
    hit = every[sparse[every] > 0]
    sparse_rows = _ordered(hit, sparse[hit], config.candidates)
    if config.method == "dense":
        return [(index.chunk_ids[r], float(dense[r])) for r in dense_rows[:top_k]]
    if config.method == "bm25":
        return [(index.chunk_ids[r], float(sparse[r])) for r in sparse_rows[:top_k]]
    rows, fused, _ = fuse(dense_rows, sparse_rows, lambda r: dense[r], lambda r: sparse[r], config)
    return [(index.chunk_ids[r], float(fused[i])) for i, r in enumerate(rows[:top_k])]


@pytest.mark.parametrize("precision", ["float32", "int8", "float16"])
def test_fast_paths_rank_like_scoring_every_row(indexed, precision):
    _, base = indexed
    index = dataclasses.replace(base.index, dense_precision=precision)
    retriever = Retriever(index, base.embedder)
    vectors = base.embedder.embed_queries(QUERIES)
    compared = 0
    for query, vector in zip(QUERIES, vectors, strict=True):
        for groups in GROUPS:
            for doc_types in ((), ("politica",)):
                for config in CONFIGS:
                    filters = Filters(doc_types=doc_types) if doc_types else None
                    for _ in range(2):  # the second time the mask comes from the cache
                        hits = retriever.search(query, groups, filters, 10, config, query_vector=vector)
                        want = _exact(index, query, vector, groups, doc_types, config, 10)
                        assert [h.chunk_id for h in hits] == [c for c, _ in want], (query, groups, config)
                        assert np.allclose([h.score for h in hits], [s for _, s in want], atol=1e-5)
                        compared += len(want)
    assert compared > 0
    assert index.masks.hits > 0


def test_a_cached_mask_cannot_be_changed_by_a_caller(indexed):
    _, retriever = indexed
    mask = retriever.mask({"rh"}, None)
    with pytest.raises(ValueError):
        mask[:] = True
    assert retriever.mask({"rh"}, None).sum() < len(retriever.index)  # restricted rows stay out


def test_quantised_scan_reports_its_memory(indexed):
    _, base = indexed
    plain = dataclasses.replace(base.index, dense_precision="float32").dense.memory()
    small = dataclasses.replace(base.index, dense_precision="int8").dense.memory()
    assert plain["scan_bytes"] == 0 and plain["float32_bytes"] == base.index.vectors.nbytes
    assert 0 < small["scan_bytes"] < plain["float32_bytes"] / 3


@pytest.mark.parametrize("simd", [True, False])
@pytest.mark.parametrize("precision", ["int8", "float16"])
def test_quantised_scan_returns_the_exact_top_k_on_a_random_index(precision, simd, monkeypatch):
    from serving.search import kernels
    from serving.search.dense import DenseMatrix
    from serving.search.masks import Visible

    if simd and kernels.simsimd is None:
        pytest.skip("simsimd is not installed")
    monkeypatch.setattr(kernels, "_disabled", not simd)
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((3000, 64), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    matrix = DenseMatrix(vectors, precision)
    masks = [None, Visible.of(np.arange(3000) % 10 != 0), Visible.of(np.arange(3000) % 10 == 3)]
    for query in rng.standard_normal((10, 64), dtype=np.float32):
        exact = vectors @ query
        for visible in masks:
            every = np.arange(3000) if visible is None else visible.rows
            want = _ordered(every, exact[every], 20)
            rows, scores, _ = matrix.top(query, visible, 20)
            assert rows.tolist() == want.tolist()
            assert np.allclose(scores, exact[want], atol=1e-5)
            given, _, full = matrix.top(query, visible, 20, full=exact)  # precomputed scores: used, unchanged
            assert given.tolist() == want.tolist() and full is exact and np.isfinite(exact).all()


def test_a_new_snapshot_gets_its_own_masks(indexed):
    _, base = indexed
    restricted = Retriever(base.index).mask({"rh"}, None)
    assert not restricted.all()
    everyone = base.index.group_sets.index(frozenset({"public"}))  # the code of the public chunks' group set
    opened = dataclasses.replace(base.index, snapshot_id="next",
                                 group_codes=np.full(len(base.index), everyone, dtype=np.int32))
    assert Retriever(opened).mask({"rh"}, None).all()  # the new snapshot's rows, not the cached mask
    assert not Retriever(base.index).mask({"rh"}, None).all()


def test_auto_precision_scans_small_indexes_exactly_and_large_ones_in_int8(monkeypatch):
    from serving.search import dense

    rows = np.random.default_rng(1).normal(size=(40, 8)).astype(np.float32)
    monkeypatch.setattr(dense, "AUTO_INT8_ROWS", 40)
    assert dense.DenseMatrix(rows[:39], "auto").exact
    large = dense.DenseMatrix(rows, "auto")
    assert large.precision == "int8" and not large.exact and large.memory()["scan_bytes"] > 0


def test_int8_codes_are_the_same_whether_quantised_whole_or_in_blocks():
    """The scan's int8 copy is built a block of rows at a time (its temporaries stay small at millions of rows);
    every block size gives the codes and scales of quantising the whole matrix at once."""
    from serving.search import kernels

    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((1000, 64), dtype=np.float32)
    vectors[5] = 0.0  # a row of zeros keeps zero codes
    whole = kernels.quantise_rows(vectors, block=len(vectors))
    for block in (1, 7, 256):
        codes, scales = kernels.quantise_rows(vectors, block=block)
        assert codes.dtype == np.int8 and scales.dtype == np.float32
        assert np.array_equal(codes, whole[0]) and np.array_equal(scales, whole[1])
    assert not whole[0][5].any()
    assert np.abs(whole[0].astype(np.float32) * whole[1][:, None] - vectors).max() <= whole[1].max() / 2 + 1e-7
