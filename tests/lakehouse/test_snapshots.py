"""Snapshots: immutable folders, one atomic pointer, rollback, pruning; the CLI contract."""

from __future__ import annotations

import json

import pyarrow.parquet as pq

from lakehouse.paths import LakePaths
from lakehouse.snapshots import current_id, list_snapshots, snapshot_tables
from lakerag.cli import main
from serving.search import SearchIndex
from tests.fixtures.corpora import write_corpus
from transforms.pipeline import run_index


def test_each_index_run_publishes_an_immutable_snapshot_and_rollback_switches_back(tmp_path, capsys):
    from lakehouse.settings import Settings

    settings = Settings(home=tmp_path / "home", source=write_corpus(tmp_path / "src"), snapshot_keep=2)
    paths = LakePaths(settings.home)
    first = run_index(settings)
    assert current_id(paths) == first.snapshot_id
    old_chunks = pq.read_table(snapshot_tables(paths) / "chunks.parquet").num_rows
    (settings.source / "Manual.md").unlink()
    second = run_index(settings)
    assert current_id(paths) == second.snapshot_id != first.snapshot_id
    # The old snapshot still has the deleted document's chunks: nothing was modified in place.
    assert pq.read_table(snapshot_tables(paths, first.snapshot_id) / "chunks.parquet").num_rows == old_chunks
    assert SearchIndex.load(snapshot_tables(paths)).snapshot_id == second.snapshot_id
    assert main(["snapshots", "rollback", first.snapshot_id, "--home", str(settings.home)]) == 0
    assert current_id(paths) == first.snapshot_id
    assert "Manual.md" in SearchIndex.load(snapshot_tables(paths)).paths
    run_index(settings)
    assert len(list_snapshots(paths)) == 2  # pruned to snapshot_keep
    capsys.readouterr()
    assert main(["snapshots", "list", "--home", str(settings.home), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert sum(s["current"] for s in listed) == 1


def test_rollback_to_an_unknown_snapshot_fails_with_a_reason(tmp_path, capsys):
    assert main(["snapshots", "rollback", "snap_nope", "--home", str(tmp_path)]) == 2
    assert "snap_nope" in capsys.readouterr().err
