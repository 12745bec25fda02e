"""Incremental ingestion: what a data engineer sees in `lakerag status` after each kind of change."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakehouse.paths import LakePaths
from transforms.pipeline import run_index

CONFIG = """
default_groups: [public]
access:
  - prefix: "RH/"
    groups: [rh]
taxonomy:
  - prefix: "Políticas/"
    doc_type: politica
"""


def _write(root: Path, relpath: str, text: str) -> Path:
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _doc(title: str, body: str) -> str:
    return f"# {title}\n\n## 1. Objetivo\n\n{body}\n\n## 2. Escopo\n\nAplica-se a todos os colaboradores.\n"


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    root = tmp_path / "mini"
    _write(root, ".lakerag.yaml", CONFIG)
    for i in range(6):
        _write(root, f"Políticas/politica-{i}.md", _doc(f"Política {i}", f"Texto da política número {i}."))
    _write(root, "RH/salarios.md", _doc("Faixas salariais", "Faixa A: R$ 5.000."))
    _write(root, "notas.txt", "Notas soltas sem taxonomia.\n")
    return root


def _current(settings) -> dict[str, dict]:
    table = pq.read_table(LakePaths(settings.home).table("documents")).to_pylist()
    return {r["path"]: r for r in table if r["is_current"]}


def test_first_run_ingests_everything_and_noop_rerun_does_no_work(mini, settings_for):
    settings = settings_for(mini)
    first = run_index(settings)
    assert (first.new, first.extracted, first.quarantined) == (8, 8, 0)
    assert first.chunks == 15  # two sections in each of 7 documents, one note
    second = run_index(settings)
    assert (second.unchanged, second.new, second.changed) == (8, 0, 0)
    assert second.extracted == 0 and second.chunked == 0
    assert second.stage_seconds.get("extract", 0.0) == 0.0  # no extract batch ran at all


def test_changing_one_file_extracts_exactly_one_and_keeps_its_id(mini, settings_for):
    settings = settings_for(mini)
    run_index(settings)
    before = _current(settings)
    chunks_before = pq.read_table(LakePaths(settings.home).table("chunks")).to_pylist()
    _write(mini, "Políticas/politica-3.md", _doc("Política 3", "Texto revisado da política três."))
    record = run_index(settings)
    assert (record.changed, record.extracted, record.unchanged) == (1, 1, 7)
    after = _current(settings)
    assert after["Políticas/politica-3.md"]["document_id"] == before["Políticas/politica-3.md"]["document_id"]
    assert after["Políticas/politica-3.md"]["content_hash"] != before["Políticas/politica-3.md"]["content_hash"]
    versions = pq.read_table(LakePaths(settings.home).table("documents")).to_pylist()
    doc3 = [v for v in versions if v["path"] == "Políticas/politica-3.md"]
    assert len(doc3) == 2 and sum(v["is_current"] for v in doc3) == 1
    chunks_after = pq.read_table(LakePaths(settings.home).table("chunks")).to_pylist()
    unchanged_before = {c["chunk_id"] for c in chunks_before if c["path"] != "Políticas/politica-3.md"}
    assert unchanged_before <= {c["chunk_id"] for c in chunks_after}
    assert any("revisado" in c["text"] for c in chunks_after)
    assert not any("Texto da política número 3." in c["text"] for c in chunks_after)


def test_moved_file_keeps_its_id_and_is_not_extracted_again(mini, settings_for):
    settings = settings_for(mini)
    run_index(settings)
    doc_id = _current(settings)["Políticas/politica-1.md"]["document_id"]
    (mini / "Arquivo").mkdir()
    os.rename(mini / "Políticas/politica-1.md", mini / "Arquivo/politica-1.md")
    record = run_index(settings)
    assert (record.moved, record.extracted, record.deleted, record.new) == (1, 0, 0, 0)
    now = _current(settings)
    assert "Políticas/politica-1.md" not in now
    moved = now["Arquivo/politica-1.md"]
    assert moved["document_id"] == doc_id and moved["status"] == "active"
    assert moved["doc_type"] == "unclassified"  # the taxonomy follows the new path
    chunks = pq.read_table(LakePaths(settings.home).table("chunks")).to_pylist()
    assert {c["path"] for c in chunks if c["document_id"] == doc_id} == {"Arquivo/politica-1.md"}


def test_deleted_file_is_tombstoned_and_its_chunks_disappear(mini, settings_for):
    settings = settings_for(mini)
    run_index(settings)
    doc_id = _current(settings)["Políticas/politica-2.md"]["document_id"]
    (mini / "Políticas/politica-2.md").unlink()
    record = run_index(settings)
    assert (record.deleted, record.extracted) == (1, 0)
    tomb = _current(settings)["Políticas/politica-2.md"]
    assert tomb["document_id"] == doc_id and tomb["status"] == "deleted"
    chunks = pq.read_table(LakePaths(settings.home).table("chunks")).to_pylist()
    assert not [c for c in chunks if c["document_id"] == doc_id]
    # Restoring the file brings the same document back without extracting it again.
    _write(mini, "Políticas/politica-2.md", _doc("Política 2", "Texto da política número 2."))
    again = run_index(settings)
    assert again.extracted == 0 and _current(settings)["Políticas/politica-2.md"]["status"] == "active"
    assert _current(settings)["Políticas/politica-2.md"]["document_id"] == doc_id


def test_access_groups_and_doc_type_reach_the_chunks(mini, settings_for):
    settings = settings_for(mini)
    run_index(settings)
    docs = _current(settings)
    assert docs["RH/salarios.md"]["access_groups"] == ["rh"]
    assert docs["notas.txt"]["access_groups"] == ["public"]
    assert docs["notas.txt"]["doc_type"] == "unclassified"
    assert docs["Políticas/politica-0.md"]["doc_type"] == "politica"
    chunks = pq.read_table(LakePaths(settings.home).table("chunks")).to_pylist()
    assert {tuple(c["access_groups"]) for c in chunks if c["path"] == "RH/salarios.md"} == {("rh",)}
    # A sidecar overrides the folder's groups without re-extracting the document.
    _write(mini, "RH/salarios.md.meta.yaml", "groups: [diretoria, rh]\n")
    record = run_index(settings)
    assert record.extracted == 0
    chunks = pq.read_table(LakePaths(settings.home).table("chunks")).to_pylist()
    assert {tuple(c["access_groups"]) for c in chunks if c["path"] == "RH/salarios.md"} == {("diretoria", "rh")}


def test_chunk_ids_are_stable_across_homes(mini, settings_for, tmp_path):
    from lakehouse.settings import Settings

    a = settings_for(mini)
    b = Settings(home=tmp_path / "other", source=mini)
    run_index(a)
    run_index(b)
    ids_a = pq.read_table(LakePaths(a.home).table("chunks"), columns=["chunk_id"]).column(0).to_pylist()
    ids_b = pq.read_table(LakePaths(b.home).table("chunks"), columns=["chunk_id"]).column(0).to_pylist()
    assert ids_a == ids_b and len(set(ids_a)) == len(ids_a)
