"""Graph search as a caller sees it: permissions on graph evidence, local neighbourhoods, global map-reduce
with and without an LLM, and the map cache. The graph tables are written by hand over a small indexed
corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from lakehouse import graph_schemas as schemas
from lakehouse.paths import LakePaths
from lakehouse.storage import write_json, write_table
from serving.graph import NOT_FOUND, GraphSearcher, GraphStore
from serving.search import Filters
from tests.fixtures.openai_server import FakeOpenAI

CONFIG = """
default_groups: [public]
access:
  - prefix: "Contratos/"
    groups: [juridico]
  - prefix: "RH/"
    groups: [rh]
"""
DOCS = {
    "Fornecedores/NuvemSul.md": "# Ficha do fornecedor NuvemSul\n\nA NuvemSul Tecnologia é uma fornecedora "
    "de nuvem com sede em Porto Alegre. O diretor da NuvemSul Tecnologia é Carlos Menezes.\n",
    "Contratos/CT-2024-0187.md": "# Contrato CT-2024-0187\n\nO contrato CT-2024-0187 contrata a NuvemSul "
    "Tecnologia para hospedagem de dados clínicos com multa de R$ 90.000 por vazamento.\n",
    "RH/Projeto.md": "# Projeto Fênix\n\nCarlos Menezes coordena o Projeto Fênix, reestruturação sigilosa "
    "com demissão de quarenta pessoas.\n",
    "Políticas/Limpeza.md": "# Rotina de limpeza\n\nA limpeza hospitalar é diária e usa produtos "
    "aprovados.\n",
}
SECRETS = {"rh": ("Fênix", "demissão"), "juridico": ("90.000",)}  # text only restricted chunks contain


def _entity(key, name, chunks, aliases=(), description=""):
    return {"entity_id": f"ent_{key}", "name": name, "canonical": name.casefold(), "type": "ORGANIZATION",
            "description": description or f"{name}.", "aliases": list(aliases), "chunk_ids": chunks,
            "document_ids": [], "frequency": len(chunks), "degree": 0}


def _relation(a, b, chunks, weight=1.0):
    return {"relationship_id": f"rel_{a}_{b}", "source_id": f"ent_{a}", "target_id": f"ent_{b}",
            "description": f"{a} relates to {b}", "weight": weight, "chunk_ids": chunks, "count": len(chunks)}


def _report(key, level, entities, chunks, groups, findings):
    return ({"community_id": f"com_{key}", "level": level, "parent_id": None,
             "entity_ids": [f"ent_{e}" for e in entities], "relationship_ids": [], "chunk_ids": chunks,
             "content_hash": key},
            {"community_id": f"com_{key}", "level": level, "content_hash": key, "title": f"Comunidade {key}",
             "summary": f"Resumo da comunidade {key}.", "findings": findings, "rating": 5.0,
             "source": "extractive", "chunk_ids": chunks, "access_group_sets": groups})


def write_graph(tables: Path, chunk: dict[str, str]) -> None:
    pub, con, rh, limp = (chunk[p] for p in DOCS)
    entities = [_entity("nuvem", "NuvemSul Tecnologia", [pub, con], aliases=["NuvemSul"]),
                _entity("carlos", "Carlos Menezes", [pub, rh]), _entity("poa", "Porto Alegre", [pub]),
                _entity("fenix", "Projeto Fênix", [rh], description="Projeto Fênix, do RH."),
                _entity("ct", "CT-2024-0187", [con]), _entity("limpeza", "Limpeza hospitalar", [limp]),
                _entity("ghost", "Fantasma", ["deleted-chunk"])]
    relations = [_relation("nuvem", "carlos", [pub], 2.0), _relation("nuvem", "poa", [pub]),
                 _relation("carlos", "fenix", [rh]), _relation("nuvem", "ct", [con], 3.0),
                 _relation("nuvem", "ghost", ["deleted-chunk"])]
    reports = [_report("pub", 0, ["nuvem", "carlos", "poa"], [pub], [["public"]],
                       [{"text": "A NuvemSul Tecnologia tem sede em Porto Alegre.", "chunk_ids": [pub]},
                        {"text": "Carlos Menezes dirige a empresa.", "chunk_ids": [pub]}]),
               _report("mixed", 0, ["nuvem", "ct"], [pub, con], [["public"], ["juridico"]],
                       [{"text": "A NuvemSul Tecnologia hospeda dados do contrato CT-2024-0187.",
                         "chunk_ids": [con]}]),
               _report("rh", 0, ["carlos", "fenix"], [rh], [["rh"]],
                       [{"text": "Carlos Menezes coordena o Projeto Fênix.", "chunk_ids": [rh]}]),
               _report("limpeza", 0, ["limpeza"], [limp], [["public"]],
                       [{"text": "Limpeza hospitalar diária.", "chunk_ids": [limp]}])]
    aliases = [{"alias": "nuvem sul", "canonical": "nuvemsul tecnologia", "source": "manual",
                "reason": "test"}]
    folder = tables / "graph-test"
    for name, rows in {"entities": entities, "relationships": relations, "text_units": [],
                       "communities": [c for c, _ in reports], "community_reports": [r for _, r in reports],
                       "aliases": aliases}.items():
        table = pa.Table.from_pylist(rows, schema=getattr(schemas, name.upper()))
        write_table(table, folder / f"{name}.parquet")
    write_json({"dir": folder.name, "run_id": "test"}, tables / "graph.json")


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    """(settings, store, retriever) over the corpus, indexed once per module."""
    from lakehouse.settings import Settings
    from serving.search.service import build_retriever
    from transforms.pipeline import run_index

    root = tmp_path_factory.mktemp("graph")
    source = root / "source"
    for relpath, text in {".lakerag.yaml": CONFIG, **DOCS}.items():
        (source / relpath).parent.mkdir(parents=True, exist_ok=True)
        (source / relpath).write_text(text, encoding="utf-8")
    settings = Settings(home=root / "home", source=source, embedding_model="wordllama")
    run_index(settings)
    retriever = build_retriever(settings)
    ix = retriever.index
    assert sorted(ix.paths) == sorted(DOCS)  # one chunk per document
    tables = LakePaths(settings.home).tables
    write_graph(tables, {p: c for p, c in zip(ix.paths, ix.chunk_ids, strict=True)})
    return settings, GraphStore.load(tables, ix), retriever


def _searcher(graph, **kwargs) -> GraphSearcher:
    _, store, retriever = graph
    return GraphSearcher(store, retriever, **kwargs)


def _ids(result, kind):
    return [e.id for e in result.of_kind(kind)]


def _assert_no_secret(result, groups):
    blobs = [result.context_text, result.answer or ""] + [e.text for e in result.evidence]
    for secret in (s for group, texts in SECRETS.items() if group not in (groups or ()) for s in texts):
        assert not any(secret in blob for blob in blobs), secret


def test_evidence_outside_the_index_is_dropped(graph):
    _, store, _ = graph
    ghost = store.entity_ids.index("ent_ghost")
    assert store.entity_chunks[ghost].nnz == 0
    result = _searcher(graph).local("Fantasma", {"juridico", "rh"})
    assert "ent_ghost" not in _ids(result, "entity")
    assert "rel_nuvem_ghost" not in _ids(result, "relationship")


def test_restricted_entities_relations_and_reports_never_appear(graph):
    searcher = _searcher(graph)
    question = "O que Carlos Menezes coordena no Projeto Fênix?"
    allowed = searcher.local(question, {"rh"})
    assert "ent_fenix" in _ids(allowed, "entity") and "com_rh" in _ids(allowed, "report")
    for groups in (None, {"public"}, {"juridico"}):
        result = searcher.local(question, groups)
        assert "ent_fenix" not in _ids(result, "entity")
        assert "rel_carlos_fenix" not in _ids(result, "relationship")
        assert "com_rh" not in _ids(result, "report")
        assert all(not c.path.startswith("RH/") for c in result.chunks)
        ix = searcher.store.index
        mask = ix.readable_by(frozenset(groups or ()))
        readable = {c for c, ok in zip(ix.chunk_ids, mask, strict=True) if ok}
        assert {c for e in result.evidence for c in e.chunk_ids} <= readable
        _assert_no_secret(result, groups)
        _assert_no_secret(searcher.global_search(question, groups), groups)
        _assert_no_secret(searcher.hybrid(question, groups), groups)


def test_report_with_mixed_sources_needs_every_source_readable(graph):
    searcher = _searcher(graph)
    question = "Quais dados a NuvemSul Tecnologia hospeda no contrato CT-2024-0187?"
    assert "com_mixed" not in _ids(searcher.local(question, {"public"}), "report")
    assert "com_mixed" not in _ids(searcher.global_search(question, {"public"}), "report")
    assert "com_mixed" in _ids(searcher.local(question, {"juridico"}), "report")
    assert "com_mixed" in _ids(searcher.global_search(question, {"juridico"}), "report")


def test_local_finds_entity_neighbours_and_their_chunks(graph):
    searcher = _searcher(graph)
    result = searcher.local("Onde fica a sede da nuvemsul?", {"public"})  # alias, any case, no accents
    entities = result.of_kind("entity")
    assert entities[0].id == "ent_nuvem" and entities[0].extra["seed"]
    assert {"ent_carlos", "ent_poa"} <= set(_ids(result, "entity"))
    assert "ent_ct" not in _ids(result, "entity")  # known only from a contract the caller cannot read
    assert _ids(result, "relationship")[0] == "rel_nuvem_carlos"  # the heaviest visible relation
    assert result.chunks[0].path == "Fornecedores/NuvemSul.md"
    assert "com_pub" in _ids(result, "report")
    assert "-----Entities-----" in result.context_text and "ent_nuvem|" in result.context_text
    lawyer = searcher.local("Onde fica a sede da nuvem sul?", {"juridico"})
    assert "ent_ct" in _ids(lawyer, "entity")
    assert "Contratos/CT-2024-0187.md" in [c.path for c in lawyer.chunks]


def test_local_applies_filters_before_ranking(graph):
    result = _searcher(graph).local("NuvemSul Tecnologia", {"juridico"}, Filters(path_prefix="Contratos/"))
    assert [c.path for c in result.chunks] == ["Contratos/CT-2024-0187.md"]
    assert "ent_carlos" not in _ids(result, "entity")  # its evidence is outside the filter


def test_local_budget_bounds_the_context(graph):
    result = _searcher(graph).local("NuvemSul Tecnologia Carlos Menezes", {"juridico"}, budget_chars=600)
    assert 0 < len(result.context_text) <= 600


def test_global_without_llm_rates_findings_and_drops_zeros(graph):
    result = _searcher(graph).global_search("Qual é a sede da NuvemSul Tecnologia?", {"public"})
    assert result.mode == "global" and result.answer is None
    reports = result.of_kind("report")
    assert reports and reports[0].id == "com_pub"
    assert reports[0].text == "A NuvemSul Tecnologia tem sede em Porto Alegre."
    assert all(0 < e.score <= 100 for e in reports)
    assert [e.score for e in reports] == sorted((e.score for e in reports), reverse=True)
    assert "com_limpeza" not in _ids(result, "report")  # rated 0: nothing in common with the question
    assert all(e.chunk_ids for e in reports)
    assert "com_pub" in result.context_text and "Importance Score" in result.context_text
    nothing = _searcher(graph).global_search("orçamento de marketing digital", {"public"})
    assert nothing.evidence == [] and nothing.answer == NOT_FOUND


def _llm(fake: FakeOpenAI, cache: Path):
    from models.llm import LLMClient

    return LLMClient(fake.base_url, "fake-model", "key", cache)


def _responder(body):
    if "JSON" in body["messages"][0]["content"]:
        return json.dumps({"points": [
            {"description": "NuvemSul fica em Porto Alegre.", "score": 90, "report_ids": ["com_pub"],
             "chunk_ids": ["invented-chunk"]},
            {"description": "Limpeza é diária.", "score": 0, "report_ids": ["com_limpeza"]},
            {"description": "Relatório inventado.", "score": 80, "report_ids": ["com_nope"]}]})
    return "A sede é em Porto Alegre [com_pub] [com_rh]."


def test_global_with_llm_maps_reduces_and_validates_ids(graph, tmp_path):
    with FakeOpenAI(_responder) as fake:
        searcher = _searcher(graph, llm=_llm(fake, tmp_path / "llm"))
        result = searcher.global_search("Qual é a sede da NuvemSul?", {"public"})
    assert [e.id for e in result.evidence] == ["com_pub"]  # zero-rated and unknown reports dropped
    assert result.evidence[0].score == 90 and result.evidence[0].chunk_ids == []  # invented chunk dropped
    assert result.answer == "A sede é em Porto Alegre [com_pub]."  # a report not shown cannot be cited
    maps = [r for r in fake.requests if r.get("response_format")]
    assert maps and all("com_rh" not in r["messages"][1]["content"] for r in maps)
    assert all("Fênix" not in r["messages"][1]["content"] for r in fake.requests)


def test_global_falls_back_to_extractive_when_the_llm_fails(graph, tmp_path):
    with FakeOpenAI(lambda body: "not json") as fake:
        searcher = _searcher(graph, llm=_llm(fake, tmp_path / "llm"))
        result = searcher.global_search("sede da NuvemSul", {"public"})
    assert result.of_kind("report")[0].id == "com_pub"


def test_map_step_is_cached_per_question_groups_and_snapshot(graph, tmp_path):
    with FakeOpenAI(_responder) as fake:
        searcher = _searcher(graph, llm=_llm(fake, tmp_path / "llm-a"), cache_dir=tmp_path / "maps")
        first = searcher.global_search("Qual é a sede da NuvemSul?", {"public"})
        sent = len(fake.requests)
        second = searcher.global_search("Qual é a sede da NuvemSul?", {"public"})
        assert len(fake.requests) == sent  # no LLM request at all
        assert first.timings["map_cached"] == 0 and second.timings["map_cached"] == 1
        searcher.llm = _llm(fake, tmp_path / "llm-b")  # an empty LLM cache: a map call would reach the server
        searcher.global_search("Qual é a sede da NuvemSul?", {"public"})
        assert [r for r in fake.requests[sent:] if r.get("response_format")] == []  # only the reduce was sent
        assert [e.id for e in second.evidence] == [e.id for e in first.evidence]
        other = searcher.global_search("Qual é a sede da NuvemSul?", {"public", "juridico"})
        assert other.timings["map_cached"] == 0
        on_disk = _searcher(graph, llm=_llm(fake, tmp_path / "llm-c"), cache_dir=tmp_path / "maps")
        assert on_disk.global_search("Qual é a sede da NuvemSul?", {"public"}).timings["map_cached"] == 1


def test_missing_graph_is_a_clear_error_or_degrades_to_chunk_retrieval(graph, tmp_path):
    from serving.graph import GraphNotReady

    _, store, retriever = graph
    with pytest.raises(GraphNotReady, match="graph.json"):
        GraphStore.load(tmp_path, store.index)
    searcher = GraphSearcher(GraphStore.load(tmp_path, store.index, missing_ok=True), retriever)
    question = "sede da NuvemSul Tecnologia"
    hybrid = [c.id for c in searcher.hybrid(question, {"public"}).chunks]
    assert hybrid == [c.id for c in searcher.basic(question, {"public"}).chunks]
    assert searcher.global_search(question, {"public"}).answer == NOT_FOUND


def test_query_time_themes_quote_only_what_the_caller_may_read(graph):
    searcher = _searcher(graph)
    question = "O que fazem Carlos Menezes e a NuvemSul Tecnologia?"
    for groups in (None, {"public"}, {"juridico"}):
        answer = searcher.global_themes(question, groups)
        readable = searcher.store.index.readable_by(frozenset(groups or ()))
        shown = " ".join(f"{t.title} {' '.join(q.text for q in t.quotes)}" for t in answer.themes)
        assert answer.themes and all(readable[q.row] for t in answer.themes for q in t.quotes)
        for secret in (s for group, texts in SECRETS.items() if group not in (groups or ()) for s in texts):
            assert secret not in shown, (groups, secret)
        assert "Projeto Fênix" not in shown  # an entity seen only in RH chunks names no theme
    allowed = searcher.global_themes(question, {"rh"})
    assert any("Fênix" in q.text for t in allowed.themes for q in t.quotes)


def _theme_responder(body):
    user = body["messages"][1]["content"]
    if "JSON" in body["messages"][0]["content"]:
        report = user.split("report_id: ", 1)[1].split()[0]
        chunk = user.split("[chunks: ", 1)[1].split("]")[0].split(",")[0]
        return json.dumps({"points": [{"description": "NuvemSul fica em Porto Alegre.", "score": 90,
                                       "report_ids": [report], "chunk_ids": [chunk]}]})
    chunk = user.split("Sources (", 1)[1].split(")")[0].split(",")[0]
    return f"A sede é em Porto Alegre [{chunk}] [com_rh]."


def test_query_time_themes_map_reduce_with_an_llm_cites_chunks_only(graph, tmp_path):
    with FakeOpenAI(_theme_responder) as fake:
        searcher = _searcher(graph, llm=_llm(fake, tmp_path / "llm"))
        answer = searcher.global_themes("Qual é a sede da NuvemSul Tecnologia?", {"public"})
    assert answer.answer and answer.answer.startswith("A sede é em Porto Alegre [")
    assert "com_rh" not in answer.answer  # only chunk ids of the caller's material survive the reduce
    assert all("Fênix" not in r["messages"][1]["content"] for r in fake.requests)
