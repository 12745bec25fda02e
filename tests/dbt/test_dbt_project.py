"""The dbt project over a small indexed corpus: `dbt build` passes every test and writes the serving marts
into a new DuckDB file per snapshot; data that would break serving fails a named test and leaves no serving
file."""

from __future__ import annotations

import json

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakehouse.paths import LakePaths
from lakehouse.snapshots import create_snapshot, read_manifest, snapshot_dir
from lakehouse.storage import write_json, write_table
from tests.fixtures.corpora import write_corpus

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """Settings and paths of a small corpus indexed once (its first snapshot published, without marts)."""
    from lakehouse.settings import Settings
    from transforms.pipeline import run_index

    root = tmp_path_factory.mktemp("dbt")
    settings = Settings(home=root / "home", source=write_corpus(root / "source"), embedding_model="wordllama")
    record = run_index(settings)
    return settings, LakePaths(settings.home), record


def _snapshot_with(paths: LakePaths, run_id: str, **tables: pa.Table) -> str:
    """A new snapshot of the current tables with some replaced (the lakehouse tables are restored after)."""
    saved = {name: pq.read_table(paths.table(name)) for name in tables}
    for name, table in tables.items():
        write_table(table, paths.table(name))
    try:
        return create_snapshot(paths, run_id)
    finally:
        for name, table in saved.items():
            write_table(table, paths.table(name))


def test_dbt_build_passes_every_test_and_writes_marts_into_the_snapshot(indexed):
    from transforms.dbt_build import build_marts

    settings, paths, record = indexed
    result = build_marts(settings, record.snapshot_id, as_of="2026-12-01")
    serving = snapshot_dir(paths, record.snapshot_id) / "serving.duckdb"
    assert result["built"] and serving.exists()
    assert not (paths.home / "dbt" / "serving.building.duckdb").exists()
    with duckdb.connect(str(serving), read_only=True) as con:
        catalog = dict(con.execute("select path, chunk_count from catalog").fetchall())
        expiring = dict(con.execute("select path, days_until_review from expiring_documents").fetchall())
        quality = dict(zip([d[0] for d in con.execute("select * from quality_summary").description],
                           con.execute("select * from quality_summary").fetchone(), strict=True))
        assert con.execute("select count(*) from chunks").fetchone()[0] == record.chunks
    assert len(catalog) == record.documents_active and min(catalog.values()) >= 1
    # Due within 30 days of 2026-12-01: 15/12/2026 (in 14 days), 05/03/2026 (overdue); not 02/01/2027.
    assert expiring == {"Políticas/Política de Segurança.md": 14, "Contratos/CT-2024-0178.md": -271}
    assert quality["active_documents_without_chunks"] == 0 and quality["vector_dimension"] > 0
    assert read_manifest(paths, record.snapshot_id)["marts"]["counts"]["catalog"] == len(catalog)
    assert build_marts(settings, record.snapshot_id)["built"] is False  # built once, never rewritten


def _vectors_with_a_short_row(paths: LakePaths) -> pa.Table:
    vectors = pq.read_table(paths.table("vectors"))
    rows = vectors["vector"].to_pylist()
    rows[0] = rows[0][:-1]
    return pa.table({"chunk_id": vectors["chunk_id"], "embed_key": vectors["embed_key"],
                     "vector": pa.array(rows, pa.list_(pa.float32()))}).replace_schema_metadata(
        vectors.schema.metadata)


def _chunks_with_an_orphan(paths: LakePaths) -> pa.Table:
    chunks = pq.read_table(paths.table("chunks"))
    orphan = {**chunks.slice(0, 1).to_pylist()[0], "chunk_id": "chunk_orphan", "document_id": "doc_gone"}
    return pa.concat_tables([chunks, pa.Table.from_pylist([orphan], schema=chunks.schema)])


@pytest.mark.parametrize(("corrupt", "failing_test"), [
    (lambda p: {"vectors": _vectors_with_a_short_row(p)}, "assert_vectors_match_the_index_dimension"),
    (lambda p: {"chunks": _chunks_with_an_orphan(p)}, "assert_chunks_have_a_current_document"),
], ids=["vector-of-wrong-dimension", "chunk-without-document"])
def test_data_that_would_break_serving_fails_a_named_test_and_leaves_no_serving_file(indexed, corrupt,
                                                                                     failing_test):
    from transforms.dbt_build import DbtTestFailure, build_marts

    settings, paths, record = indexed
    snapshot_id = _snapshot_with(paths, record.run_id, **corrupt(paths))
    with pytest.raises(DbtTestFailure, match=failing_test):
        build_marts(settings, snapshot_id)
    assert not (snapshot_dir(paths, snapshot_id) / "serving.duckdb").exists()


def test_graph_tables_are_served_and_relations_must_point_at_entities(indexed, tmp_path):
    from lakehouse import graph_schemas as g
    from transforms.dbt_build import DbtTestFailure, build_marts

    settings, paths, record = indexed
    chunk = pq.read_table(paths.table("chunks")).slice(0, 1).to_pylist()[0]
    entity = {"name": "NuvemSul", "canonical": "nuvemsul", "type": "ORGANIZATION", "description": "",
              "aliases": [], "chunk_ids": [chunk["chunk_id"]], "document_ids": [chunk["document_id"]],
              "frequency": 1, "degree": 1}
    tables = {
        "entities": [{**entity, "entity_id": "ent_a"},
                     {**entity, "entity_id": "ent_b", "name": "CT-2024-0187"}],
        "relationships": [{"relationship_id": "rel_ab", "source_id": "ent_a", "target_id": "ent_b",
                           "description": "", "weight": 1.0, "chunk_ids": [chunk["chunk_id"]], "count": 1}],
        "text_units": [{"chunk_id": chunk["chunk_id"], "document_id": chunk["document_id"],
                        "entity_ids": ["ent_a", "ent_b"], "relationship_ids": ["rel_ab"]}],
        "communities": [], "community_reports": [], "aliases": [],
    }

    def snapshot_with_graph(folder: str, rows: dict) -> str:
        for name, data in rows.items():
            write_table(pa.Table.from_pylist(data, schema=getattr(g, name.upper())),
                        paths.tables / folder / f"{name}.parquet")
        write_json({"dir": folder, "run_id": record.run_id}, paths.tables / "graph.json")
        try:
            return create_snapshot(paths, record.run_id)
        finally:
            (paths.tables / "graph.json").unlink()

    good = snapshot_with_graph("graph-good", tables)
    build_marts(settings, good)
    with duckdb.connect(str(snapshot_dir(paths, good) / "serving.duckdb"), read_only=True) as con:
        assert con.execute("select source_name, target_name from graph_relationships").fetchall() == [
            ("NuvemSul", "CT-2024-0187")]
    dangling = {**tables, "relationships": [{**tables["relationships"][0], "target_id": "ent_missing"}]}
    with pytest.raises(DbtTestFailure, match="relationships_stg_graph__relationships_target_id"):
        build_marts(settings, snapshot_with_graph("graph-dangling", dangling))


def test_the_committed_manifest_matches_the_project(tmp_path):
    """Cosmos renders the DAG from dbt_project/manifest/manifest.json: refresh it with `make dbt-manifest`."""
    from transforms.dbt_build import MANIFEST, write_manifest

    fresh = json.loads(write_manifest(target=tmp_path / "manifest.json").read_text())
    committed = json.loads(MANIFEST.read_text())
    assert fresh["nodes"].keys() == committed["nodes"].keys(), "run `make dbt-manifest`"
    assert fresh == committed, "run `make dbt-manifest`"


def test_the_in_process_path_builds_the_marts_before_publishing(indexed):
    from lakehouse.snapshots import current_id
    from transforms.pipeline import run_index

    settings, paths, _ = indexed
    (settings.source / "Novo.md").write_text("# Aviso\n\nO refeitório abre às 7h.\n", encoding="utf-8")
    record = run_index(settings.replace(dbt_on_index=True))
    assert current_id(paths) == record.snapshot_id
    serving = snapshot_dir(paths, record.snapshot_id) / "serving.duckdb"
    with duckdb.connect(str(serving), read_only=True) as con:
        assert con.execute("select count(*) from catalog where path = 'Novo.md'").fetchone()[0] == 1
