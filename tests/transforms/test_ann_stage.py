"""The ``ann`` index stage: nothing below ``ann_min_chunks``; above it an index of every chunk that a run with
new chunks extends (only those are added), a run that removes chunks rebuilds, and the snapshot carries."""

from __future__ import annotations

import shutil

import numpy as np
import pyarrow.parquet as pq

from lakehouse.paths import LakePaths
from lakehouse.runs import load_stage_records
from lakehouse.snapshots import snapshot_tables
from lakehouse.storage import versioned_dir
from models import ann
from tests.fixtures.corpora import write_corpus
from transforms.pipeline import run_index

NEW = """# Política de Energia Solar

## 1. Objetivo

Painéis fotovoltaicos no telhado da sede reduzem a conta de eletricidade; a manutenção é semestral.
"""


def _ann_record(paths: LakePaths, run_id: str):
    return next(r for r in load_stage_records(paths, run_id) if r.stage == "ann")


def _index_of(tables):
    vectors = pq.read_table(tables / "vectors.parquet")
    ids = vectors["chunk_id"].to_pylist()
    dim = int(vectors.schema.metadata[b"dim"])
    searcher = ann.load(versioned_dir(tables, "ann"), vectors.schema.metadata[b"model_id"].decode(), dim,
                        ann.fingerprint(ids))
    return searcher, ids, np.asarray(vectors["vector"].to_pylist(), np.float32)


def test_no_ann_index_below_the_threshold(settings_for, tmp_path):
    settings = settings_for(write_corpus(tmp_path / "source"), embedding_model="wordllama")
    run_index(settings)  # the default threshold is far above this corpus
    paths = LakePaths(settings.home)
    assert not (paths.tables / "ann.json").exists()
    assert not (snapshot_tables(paths) / "ann.json").exists()


def test_new_chunks_are_added_to_the_index_and_a_removal_rebuilds_it(settings_for, tmp_path):
    source = write_corpus(tmp_path / "source")
    settings = settings_for(source, embedding_model="wordllama", ann_min_chunks=1)
    paths = LakePaths(settings.home)
    first = run_index(settings)
    before = pq.read_metadata(paths.table("vectors")).num_rows
    assert _ann_record(paths, first.run_id).processed == before

    (source / "Políticas" / "energia-solar.md").write_text(NEW, encoding="utf-8")
    second = run_index(settings)
    searcher, ids, vectors = _index_of(snapshot_tables(paths))
    assert searcher.rows == len(ids) > before
    assert _ann_record(paths, second.run_id).processed == len(ids) - before  # only the new chunks were added
    chunks = pq.read_table(paths.table("chunks"), columns=["chunk_id", "path"]).to_pylist()
    new_rows = [i for i, c in enumerate(chunks) if c["path"].endswith("energia-solar.md")]
    assert new_rows and all(searcher.candidates(vectors[r], 1).tolist() == [r] for r in new_rows)

    shutil.rmtree(source / "RH")
    third = run_index(settings)
    searcher, ids, _ = _index_of(snapshot_tables(paths))
    assert searcher.rows == len(ids) < len(chunks)
    assert _ann_record(paths, third.run_id).processed == len(ids)  # rebuilt: no removed vector stays


def test_an_index_that_grew_past_its_lists_is_retrained_with_more_of_them(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((9000, 16)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    keys = np.arange(9000, dtype=np.uint64)
    ann.build(tmp_path / "a", x[:2000], keys[:2000], "m", "c", threads=1)
    doubled = ann.build(tmp_path / "b", x[:4000], keys[:4000], "m", "c", previous=tmp_path / "a", threads=1)
    assert (doubled.rebuilt, doubled.added, doubled.kept) == (False, 2000, 2000)  # the old lists still fit
    grown = ann.build(tmp_path / "c", x, keys, "m", "c", previous=tmp_path / "a", threads=1)
    assert (grown.rebuilt, grown.added) == (True, 9000)  # 4.5x the rows the lists were trained on
    lists = {name: ann.load(tmp_path / name, "m", 16, "c").index.nlist for name in "abc"}
    assert lists["a"] == lists["b"] < lists["c"] == ann.lists_for(9000)
    searcher = ann.load(tmp_path / "c", "m", 16, "c")
    assert all(searcher.candidates(x[r], 1).tolist() == [r] for r in (0, 4500, 8999))
