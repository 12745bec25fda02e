"""Dense search through the ANN index (``ann`` stage, ``models.ann``): forced on a small index by lowering
``ann_min_chunks``, it ranks as the exact scan does, never returns a row the caller may not read, and a missing
or corrupt index file falls back to the exact scan with a warning."""

from __future__ import annotations

import logging
import shutil

import numpy as np
import pytest

from lakehouse.paths import LakePaths
from lakehouse.snapshots import snapshot_tables
from models import ann
from serving.search import Filters, RetrievalConfig, Retriever, SearchIndex, dense
from serving.search.dense import DenseMatrix
from serving.search.masks import Visible
from tests.fixtures.corpora import write_corpus

QUERIES = ["notificar incidentes de segurança", "faixa salarial do analista sênior", "contrato CT-2024-0187"]
GROUPS = [set(), {"rh"}, {"juridico", "rh", "diretoria"}]


@pytest.fixture(scope="module")
def ann_home(tmp_path_factory):
    """The small corpus indexed with the ANN threshold at 1 chunk: (settings, published snapshot tables)."""
    from lakehouse.settings import Settings
    from transforms.pipeline import run_index

    root = tmp_path_factory.mktemp("ann")
    settings = Settings(home=root / "home", source=write_corpus(root / "source"), embedding_model="wordllama",
                        ann_min_chunks=1)
    run_index(settings)
    return settings, snapshot_tables(LakePaths(settings.home))


def _counting(index: SearchIndex) -> list[int]:
    calls: list[int] = []
    searcher = index.dense.ann
    original = searcher.candidates
    searcher.candidates = lambda q, count: calls.append(count) or original(q, count)
    return calls


def test_the_snapshot_carries_the_ann_index_and_search_ranks_as_the_exact_scan(ann_home):
    from serving.search.service import checked_embedder

    settings, tables = ann_home
    assert (tables / "ann.json").exists()
    served = SearchIndex.load(tables, "auto")
    exact = SearchIndex.load(tables, "float32")
    assert served.dense.ann is not None and exact.dense.ann is None
    calls = _counting(served)
    embedder = checked_embedder(settings, served)
    for query in QUERIES:
        for groups in GROUPS:
            for config in (RetrievalConfig(method="dense", candidates=10), RetrievalConfig(candidates=10)):
                got = Retriever(served, embedder).search(query, groups, None, 5, config)
                want = Retriever(exact, embedder).search(query, groups, None, 5, config)
                assert [(h.chunk_id, round(h.score, 5)) for h in got] == \
                    [(h.chunk_id, round(h.score, 5)) for h in want], (query, groups)
    assert calls  # the candidates came from the ANN index


def test_a_permission_filtered_query_never_returns_a_forbidden_chunk(ann_home, tmp_path, monkeypatch):
    _, tables = ann_home
    index = SearchIndex.load(tables, "auto")
    calls = _counting(index)
    rng = np.random.default_rng(0)
    for query in rng.standard_normal((5, index.vectors.shape[1])).astype(np.float32):
        for groups in GROUPS:
            retriever = Retriever(index)
            visible = retriever.visible(groups, Filters(doc_types=("politica",)))
            rows, _, _ = index.dense.top(query, visible, 10)
            assert visible.mask[rows].all()
            hits = retriever.search("x", groups, None, 10, RetrievalConfig(method="dense"), query_vector=query)
            readable = index.readable_by(frozenset(groups))
            assert hits and all(readable[h.row] for h in hits)
    assert calls
    # a larger index where most rows are hidden: the ANN path drops them before ranking, or the scan answers
    x = rng.standard_normal((3000, 16)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    keys = np.arange(3000, dtype=np.uint64)
    ann.build(tmp_path / "g", x, keys, "m", "c", threads=1)
    matrix = DenseMatrix(x, "float32", ann=ann.load(tmp_path / "g", "m", 16, "c"))
    asked: list[int] = []
    original = matrix.ann.candidates
    matrix.ann.candidates = lambda q, count: asked.append(count) or original(q, count)
    for share, wide_rows, through_index in ((0.9, 50_000, True), (0.5, 50_000, True), (0.1, 50_000, False),
                                            (0.1, 100, True)):  # many visible rows: wider over-fetch, no scan
        monkeypatch.setattr(dense, "ANN_WIDE_ROWS", wide_rows)
        mask = rng.random(3000) < share
        visible = Visible.of(mask)
        asked.clear()
        for q in x[:20]:
            rows, _, _ = matrix.top(q, visible, 10)
            assert mask[rows].all()
            scores = np.where(mask, x @ q, -np.inf)
            assert rows.tolist() == np.argsort(-scores, kind="stable")[:10].tolist(), share
        assert bool(asked) == through_index, share


@pytest.mark.parametrize("damage", ["truncated", "missing"])
def test_a_missing_or_corrupt_ann_file_falls_back_to_the_exact_scan_with_a_warning(ann_home, tmp_path, caplog,
                                                                                  damage):
    _, tables = ann_home
    copy = tmp_path / "tables"
    shutil.copytree(tables, copy)
    folder = next(p for p in copy.glob("ann-*") if p.is_dir())
    target = folder / ann.INDEX_FILE
    if damage == "truncated":
        data = target.read_bytes()
        target.unlink()  # the copy may be a hard link of the snapshot's file
        target.write_bytes(data[: len(data) // 3])
    else:
        shutil.rmtree(folder)
    with caplog.at_level(logging.WARNING, logger="serving.search.index"):
        index = SearchIndex.load(copy, "auto")
    assert index.dense.ann is None
    assert any("ANN index not used" in r.getMessage() for r in caplog.records)
    exact = SearchIndex.load(tables, "float32")
    q = exact.vectors[0]
    assert index.dense.top(q, None, 5)[0].tolist() == exact.dense.top(q, None, 5)[0].tolist()


def test_past_the_probed_lists_the_index_still_finds_the_exact_top_ten(tmp_path):
    """An index with more lists than a search probes (``models.ann.PROBES``): clustered rows, as documents about
    one subject are, and queries near them; the rescored candidates hold the exact top 10 almost always."""
    rng = np.random.default_rng(3)
    centres = rng.standard_normal((400, 32)).astype(np.float32)
    x = centres[rng.integers(0, 400, 60_000)] + 0.35 * rng.standard_normal((60_000, 32)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    ann.build(tmp_path / "g", x, np.arange(len(x), dtype=np.uint64), "m", "c", threads=2)
    searcher = ann.load(tmp_path / "g", "m", 32, "c")
    assert searcher.index.nlist > searcher.probes  # a search reads a part of the codes, not all
    matrix = DenseMatrix(x, "float32", ann=searcher)
    queries = x[rng.integers(0, len(x), 50)] + 0.2 * rng.standard_normal((50, 32)).astype(np.float32)
    found = 0
    for q in queries / np.linalg.norm(queries, axis=1, keepdims=True):
        rows, _, _ = matrix.top(q, None, 10)
        found += len(set(rows.tolist()) & set(np.argsort(-(x @ q))[:10].tolist()))
    assert found / 500 >= 0.95
