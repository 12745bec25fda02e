"""Hybrid search finds the second hop of a two-hop question that chunk retrieval alone misses."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from lakehouse import graph_schemas as schemas
from lakehouse.paths import LakePaths
from lakehouse.storage import write_json, write_table
from serving.graph import GraphSearcher, GraphStore

CONFIG = """
default_groups: [public]
access:
  - prefix: "Diretoria/"
    groups: [diretoria]
"""
HOP1, HOP2 = "Contratos/Prontuário.md", "Empresas/NuvemSul Tecnologia.md"
DOCS = {
    HOP1: "# Hospedagem do prontuário eletrônico\n\nO prontuário eletrônico do Hospital Santa Clara é "
    "hospedado pela NuvemSul Tecnologia desde 2024, com cópias diárias.\n",
    HOP2: "# NuvemSul Tecnologia\n\nA NuvemSul Tecnologia nasceu em Pelotas, fundada por Ana Ribeiro em "
    "2011.\n",
    "Diretoria/NuvemSul Tecnologia - auditoria.md": "# NuvemSul Tecnologia - auditoria\n\nA NuvemSul "
    "Tecnologia teve sua fundação investigada em auditoria sigilosa da diretoria.\n",
    **{f"Empresas/{name}.md": f"# {name}\n\nA empresa {name} foi fundada na cidade de {city} e atende o "
       f"hospital com serviços de {service}.\n"
       for name, city, service in (("Brilho Serviços", "Canoas", "limpeza"),
                                   ("Vigia Forte", "Gravataí", "vigilância"),
                                   ("Sabor Bom", "Esteio", "alimentação"),
                                   ("Lava Mais", "Viamão", "lavanderia"),
                                   ("TransMed", "Guaíba", "transporte"))},
}
QUESTION = "Em que cidade foi fundada a empresa que hospeda o prontuário eletrônico do Hospital Santa Clara?"
NAMES = {"Hospital Santa Clara": [HOP1],
         "NuvemSul Tecnologia": [HOP1, HOP2, "Diretoria/NuvemSul Tecnologia - auditoria.md"],
         "Pelotas": [HOP2], "Ana Ribeiro": [HOP2], "Brilho Serviços": ["Empresas/Brilho Serviços.md"],
         "Canoas": ["Empresas/Brilho Serviços.md"], "Vigia Forte": ["Empresas/Vigia Forte.md"]}


def _graph(tables, chunk_of):
    entities = [{"entity_id": f"ent_{i}", "name": name, "canonical": name.casefold(), "type": "NAME",
                 "description": "", "aliases": [], "chunk_ids": [chunk_of[p] for p in paths],
                 "document_ids": [], "frequency": len(paths), "degree": 0}
                for i, (name, paths) in enumerate(NAMES.items())]
    folder = tables / "graph-hybrid"
    for name in ("entities", "relationships", "text_units", "communities", "community_reports", "aliases"):
        rows = entities if name == "entities" else []
        table = pa.Table.from_pylist(rows, schema=getattr(schemas, name.upper()))
        write_table(table, folder / f"{name}.parquet")
    write_json({"dir": folder.name, "run_id": "hybrid"}, tables / "graph.json")


@pytest.fixture(scope="module")
def searcher(tmp_path_factory):
    from lakehouse.settings import Settings
    from serving.search.service import build_retriever
    from transforms.pipeline import run_index

    root = tmp_path_factory.mktemp("hybrid")
    for relpath, text in {".lakerag.yaml": CONFIG, **DOCS}.items():
        (root / "source" / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / "source" / relpath).write_text(text, encoding="utf-8")
    settings = Settings(home=root / "home", source=root / "source", embedding_model="wordllama")
    run_index(settings)
    retriever = build_retriever(settings)
    tables = LakePaths(settings.home).tables
    _graph(tables, dict(zip(retriever.index.paths, retriever.index.chunk_ids, strict=True)))
    return GraphSearcher(GraphStore.load(tables, retriever.index), retriever)


def _paths(result, k):
    return [c.path for c in result.chunks[:k]]


def test_hybrid_finds_the_second_hop(searcher):
    basic = searcher.basic(QUESTION, {"public"}, top_k=3)
    assert basic.chunks[0].path == HOP1 and HOP2 not in _paths(basic, 3)  # the second hop shares no words
    hybrid = searcher.hybrid(QUESTION, {"public"}, top_k=3)
    assert set(_paths(hybrid, 2)) == {HOP1, HOP2}
    second = next(c for c in hybrid.chunks if c.path == HOP2)
    assert "bridge" in second.extra["ranks"]
    bridge = [e for e in hybrid.of_kind("entity") if e.extra.get("bridge")]
    assert bridge and bridge[0].extra["name"] == "NuvemSul Tecnologia"


def test_hybrid_never_bridges_into_unreadable_chunks(searcher):
    public = searcher.hybrid(QUESTION, {"public"}, top_k=10)
    assert all(not p.startswith("Diretoria/") for p in _paths(public, 10))
    assert all("sigilosa" not in e.text for e in public.evidence) and "sigilosa" not in public.context_text
    board = searcher.hybrid(QUESTION, {"diretoria"}, top_k=10)
    assert any(p.startswith("Diretoria/") for p in _paths(board, 10))


def test_hybrid_computes_the_dense_product_once(searcher, monkeypatch):
    """The chunk retrieval and the graph view share one question . chunk product per request."""
    products = []

    class Counted(np.ndarray):
        def __matmul__(self, other):
            products.append(self.shape)
            return np.asarray(self) @ other

    index = searcher.store.index
    counted = index.vectors.view(Counted)
    monkeypatch.setattr(index, "vectors", counted)
    monkeypatch.setattr(index.dense, "vectors", counted)
    result = searcher.hybrid(QUESTION, {"public"}, top_k=3)
    assert result.chunks and [s for s in products if s[0] == len(index)] == [counted.shape]
