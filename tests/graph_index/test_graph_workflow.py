"""The graph stage end to end on a small corpus: stable ids, no work on a rerun, the alias file and its
undoing, deletions, and an edited document that rewrites only the reports it touches."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakehouse import graph_schemas as schemas
from lakehouse.graph_schemas import TABLES
from lakehouse.settings import Settings
from tests.fixtures.graph_corpus import index_and_graph, tables, write_corpus


@pytest.fixture
def lake(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", source=write_corpus(tmp_path / "source"),
                    embedding_model="wordllama")


def _by_name(data: dict) -> dict[str, dict]:
    return {e["name"]: e for e in data["entities"]}


def _ids(data: dict) -> dict[str, set]:
    return {"entities": {e["entity_id"] for e in data["entities"]},
            "relationships": {r["relationship_id"] for r in data["relationships"]},
            "communities": {(c["community_id"], tuple(c["entity_ids"])) for c in data["communities"]},
            "reports": {(r["community_id"], r["content_hash"], r["title"])
                        for r in data["community_reports"]}}


def test_tables_follow_the_contract_and_a_rerun_changes_nothing(lake):
    _, first = index_and_graph(lake)
    before = tables(lake)
    pointer = lake.home / "tables" / "graph.json"
    folder = lake.home / "tables" / __import__("json").loads(pointer.read_text())["dir"]
    for name, schema in TABLES.items():
        assert pq.read_schema(folder / f"{name}.parquet").names == schema.names
    assert first.processed > 0 and first.usage["reports_regenerated"] == len(before["community_reports"]) > 0
    entities = _by_name(before)
    assert entities["LGPD"]["canonical"] == "lei geral protecao dado"
    assert "Lei Geral de Proteção de Dados" in entities["LGPD"]["aliases"]
    assert entities["NuvemSul Tecnologia"]["type"] == "ORGANIZATION"
    assert all(r["weight"] > 0 and r["source_id"] < r["target_id"] for r in before["relationships"])
    communities = {c["community_id"]: c for c in before["communities"]}
    assert all(communities[c["parent_id"]]["level"] == c["level"] - 1
               for c in before["communities"] if c["parent_id"])
    reports = {r["community_id"]: r for r in before["community_reports"]}
    assert set(reports) == set(communities)
    assert all(1 <= len(r["findings"]) <= 6 and all(f["chunk_ids"] for f in r["findings"])
               for r in reports.values())
    assert all(set(f["chunk_ids"]) <= set(r["chunk_ids"]) for r in reports.values() for f in r["findings"])
    assert all(e["description"].startswith(e["type"].lower()) for e in before["entities"])  # no chunk text

    _, second = index_and_graph(lake)
    assert second.processed == 0 and second.usage["reports_regenerated"] == 0
    assert _ids(tables(lake)) == _ids(before)
    assert len(list((lake.home / "tables").glob("graph-*"))) == 1


def test_alias_file_merges_and_removing_it_undoes_the_merge(lake):
    index_and_graph(lake)
    committees = {"Comitê de Segurança da Informação", "Information Security Committee"}
    assert committees <= set(_by_name(tables(lake)))
    (lake.source / ".lakerag-aliases.yaml").write_text(
        "aliases:\n  Information Security Committee: Comitê de Segurança da Informação\n"
        "not_aliases:\n  - [LGPD, Lei Geral de Proteção de Dados]\n", encoding="utf-8")
    _, merged_run = index_and_graph(lake)
    merged = tables(lake)
    assert merged_run.processed == 0  # resolution reruns on cached extractions
    committee = _by_name(merged)["Comitê de Segurança da Informação"]
    assert "Information Security Committee" in committee["aliases"]
    assert "Information Security Committee" not in _by_name(merged)
    assert _by_name(merged)["LGPD"]["canonical"] == "lgpd"  # the acronym merge is undone
    sources = {(a["alias"], a["source"]) for a in merged["aliases"]}
    assert ("information security committee", "manual") in sources
    assert any(source == "manual-split" for _, source in sources)

    (lake.source / ".lakerag-aliases.yaml").unlink()
    index_and_graph(lake)
    restored = _by_name(tables(lake))
    assert {"Comitê de Segurança da Informação", "Information Security Committee"} <= set(restored)
    assert restored["LGPD"]["canonical"] == "lei geral protecao dado"


def test_deleting_a_document_removes_what_only_it_supported(lake):
    index_and_graph(lake)
    before = tables(lake)
    aurora = _by_name(before)["Projeto Aurora"]
    girassol = _by_name(before)["Grupo Girassol Consultoria"]["entity_id"]
    assert aurora["degree"] > 0
    (lake.source / "RH" / "Projeto Aurora.md").unlink()
    index_and_graph(lake)
    after = tables(lake)
    gone = {aurora["entity_id"], girassol}
    assert not gone & {e["entity_id"] for e in after["entities"]}
    assert not any({r["source_id"], r["target_id"]} & gone for r in after["relationships"])
    assert not any(gone & set(c["entity_ids"]) for c in after["communities"])
    deleted_chunks = set(aurora["chunk_ids"])
    assert not deleted_chunks & {u["chunk_id"] for u in after["text_units"]}
    assert not any(deleted_chunks & set(r["chunk_ids"]) for r in after["community_reports"])
    assert all(["rh"] not in r["access_group_sets"] for r in after["community_reports"])
    uti = _by_name(after)["UTI"]  # also seen elsewhere: stays, with less evidence
    assert not deleted_chunks & set(uti["chunk_ids"])


def test_an_edited_document_is_reextracted_and_rewrites_only_its_reports(lake):
    record, _ = index_and_graph(lake)
    before = tables(lake)
    path = lake.source / "Políticas" / "Política de Privacidade.md"
    path.write_text(path.read_text(encoding="utf-8").replace(
        "em até 15 dias.", "em até 15 dias, com apoio do Núcleo de Segurança do Paciente."), encoding="utf-8")
    _, stage = index_and_graph(lake)
    after = tables(lake)
    assert 1 <= stage.processed < record.chunks  # only the edited chunk is extracted again
    old_hashes = {c["content_hash"] for c in before["communities"]}
    changed = [c for c in after["communities"] if c["content_hash"] not in old_hashes]
    assert stage.usage["reports_regenerated"] == len(changed) < len(after["communities"])
    ids = [{c["community_id"] for c in data["communities"]} for data in (before, after)]
    kept = ids[0] & ids[1]
    assert len(kept) * 2 >= len(before["communities"])


def test_schemas_module_is_the_contract():
    assert TABLES["entities"] is schemas.ENTITIES and TABLES["aliases"] is schemas.ALIASES
