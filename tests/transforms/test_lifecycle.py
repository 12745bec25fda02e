"""A run's life across the DAGs, without Airflow: pending runs block new commits, unchanged runs close, a
frozen run yields an unpublished candidate snapshot, and rebuilds drop exactly the cached work they name."""

from __future__ import annotations

import pytest

from lakehouse.errors import ConfigError
from lakehouse.paths import LakePaths
from lakehouse.snapshots import current_id, read_manifest
from tests.fixtures.corpora import write_corpus
from transforms import lifecycle
from transforms.rebuild import RebuildScope, begin_rebuild, invalidate
from transforms.registry import index_stages


def _ingest(settings) -> dict:
    plan = lifecycle.begin_ingest(settings)
    for batch in plan["batches"]:
        for stage in ("land", "extract", "chunk"):
            lifecycle.run_batch_stage(settings, plan["run_id"], stage, batch)
    return lifecycle.finish_ingest(settings, plan["run_id"])


def _index(settings, run_id: str) -> str:
    for stage in index_stages():
        lifecycle.run_index_stage(settings, run_id, stage.name)
    lifecycle.record(settings, run_id)
    return lifecycle.freeze(settings, run_id)


@pytest.fixture
def settings(tmp_path):
    from lakehouse.settings import Settings

    return Settings(home=tmp_path / "home", source=write_corpus(tmp_path / "src"),
                    embedding_model="wordllama")


def test_a_committed_run_is_pending_until_frozen_and_blocks_the_next_ingest(settings):
    paths = LakePaths(settings.home)
    first = _ingest(settings)
    assert first["changed"] and lifecycle.pending_index_run(paths) == first["run_id"]
    with pytest.raises(lifecycle.RunPending, match=first["run_id"]):
        lifecycle.begin_ingest(settings)
    snapshot_id = _index(settings, first["run_id"])
    assert lifecycle.freeze(settings, first["run_id"]) == snapshot_id  # a retry returns the same snapshot
    assert lifecycle.pending_index_run(paths) is None and current_id(paths) is None  # frozen, not published
    manifest = read_manifest(paths, snapshot_id)
    assert manifest["source_run_ids"] == [first["run_id"]] and manifest["models"]["embedding_dim"] > 0
    assert manifest["counts"]["vectors"] == manifest["counts"]["chunks"]
    if "graph" in {s.name for s in index_stages()}:
        assert manifest["counts"]["graph_text_units"] == manifest["counts"]["chunks"]

    second = _ingest(settings)  # nothing changed: recorded and closed, nothing to index
    assert not second["changed"] and lifecycle.pending_index_run(paths) is None
    assert paths.run_record(second["run_id"]).exists()


def test_rebuild_scopes_drop_only_what_they_name(settings):
    paths = LakePaths(settings.home)
    _index(settings, _ingest(settings)["run_id"])
    with pytest.raises(ConfigError, match="exactly one"):
        RebuildScope(full=True, from_stage="embed")
    with pytest.raises(ConfigError, match="from_stage"):
        RebuildScope(from_stage="nope")
    dropped = invalidate(settings, RebuildScope(from_stage="embed"))
    assert dropped["stages"][0] == "embed" and not (paths.cache / "vectors").exists()
    assert (paths.cache / "extracted").exists()
    plan = begin_rebuild(settings, RebuildScope(path_prefix="Contratos/"))
    assert plan["invalidated"]["documents"] == 2 and plan["changes"] == 2 and plan["batches"]
    result = lifecycle.finish_ingest(settings, plan["run_id"], force=True)
    assert result["changed"] and lifecycle.pending_index_run(paths) == plan["run_id"]


def test_a_resumed_run_that_had_committed_reports_what_it_did(settings):
    from transforms.pipeline import run_index

    committed = _ingest(settings)  # committed, then (say) killed before its index stages
    record = run_index(settings)  # `lakerag index` resumes that run
    assert record.run_id == committed["run_id"]
    assert record.new == committed["documents_active"] > 0 and record.unchanged == 0  # not "0 new, N unchanged"
    assert record.snapshot_id is not None and record.embedded == record.chunks


def _extract(settings) -> str:
    plan = lifecycle.begin_ingest(settings)
    for batch in plan["batches"]:
        for stage in ("land", "extract"):
            lifecycle.run_batch_stage(settings, plan["run_id"], stage, batch)
    return plan["run_id"]


def _broken_pdfs(src, count: int) -> None:
    src.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        (src / f"relatorio-{n}.pdf").write_bytes(b"%PDF-1.4\n" + bytes([n]) * 64 + b"\nnot a pdf body\n")


def test_an_ingest_whose_documents_mostly_fail_extraction_stops_naming_the_setting(tmp_path):
    from lakehouse.settings import Settings
    from transforms.stages.extract import TooManyFailures

    src = tmp_path / "src"
    _broken_pdfs(src, 2)
    (src / "aviso.md").write_text("# Aviso\n\nO refeitório abre às 11h.\n", encoding="utf-8")
    settings = Settings(home=tmp_path / "home", source=src, embedding_model="wordllama")
    run_id = _extract(settings)
    with pytest.raises(TooManyFailures, match=r"2 of 3 documents failed extraction \(67%; "
                                              r"LAKERAG_MAX_EXTRACT_FAILED_SHARE=0.5\).*relatorio-"):
        lifecycle.check_extraction(settings, run_id)
    lenient = settings.replace(max_extract_failed_share=0.7)
    assert lifecycle.check_extraction(lenient, run_id) == {"extracted": 1, "failed": 2}


def test_an_ingest_that_extracted_nothing_stops_whatever_the_share(tmp_path):
    from lakehouse.settings import Settings
    from transforms.stages.extract import TooManyFailures

    _broken_pdfs(tmp_path / "src", 2)
    settings = Settings(home=tmp_path / "home", source=tmp_path / "src", embedding_model="wordllama",
                        max_extract_failed_share=1.0)
    with pytest.raises(TooManyFailures, match="none was extracted"):
        lifecycle.check_extraction(settings, _extract(settings))


def test_a_worker_that_cannot_start_fails_the_batch_and_quarantines_nothing(settings, monkeypatch):
    from lakehouse.paths import FAILURES
    from transforms import watchdog

    monkeypatch.setattr(watchdog, "_SHARED", {})
    monkeypatch.setattr(watchdog, "ENTRY", "transforms.no_such_worker")
    with pytest.raises(watchdog.WorkerUnavailable, match="did not start"):
        _extract(settings)
    assert list(LakePaths(settings.home).cache_dir(FAILURES).rglob("*.json")) == []
    monkeypatch.undo()
    run_id = _extract(settings)  # the environment fixed: the same run extracts every document
    counts = lifecycle.check_extraction(settings, run_id)
    assert counts["extracted"] > 0 and counts["failed"] == 0


def test_maintenance_sees_a_run_busy_from_its_start_until_it_is_indexed(settings):
    from transforms.purge.maintenance import busy_run

    paths = LakePaths(settings.home)
    assert busy_run(paths) is None
    run_id = lifecycle.begin_ingest(settings)["run_id"]  # started, not committed
    assert busy_run(paths) == run_id
    assert _ingest(settings)["run_id"] == run_id  # the same run, resumed and committed; not indexed
    assert busy_run(paths) == run_id
    _index(settings, run_id)
    assert busy_run(paths) is None
