"""LLM extraction and reports through the fake OpenAI server: JSON schema answers, one chunk whose answers are
never valid JSON (retried once, then the rules), invented citations dropped, token usage recorded, and a rerun
that makes no call."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from graph_index.extraction import extract_rules
from lakehouse.settings import Settings
from tests.fixtures.graph_corpus import index_and_graph, tables, write_corpus
from tests.fixtures.openai_server import FakeOpenAI

_CHUNK = re.compile(r"<chunk[^>]*>\n(.*)\n</chunk>", re.S)
_EVIDENCE = re.compile(r"^\[([^\]]+)\] ", re.M)


def responder(body: dict) -> str:
    name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    if name == "graph_extraction":
        text = _CHUNK.search(user).group(1)
        if "Projeto Aurora" in text:
            return "{not json"
        names = [m.text for m in extract_rules(text).mentions
                 if m.type in ("ORGANIZATION", "PERSON", "CODE", "NORM") and not m.context]
        names = list(dict.fromkeys(names))
        return json.dumps({
            "entities": [{"name": n, "type": "OTHER", "description": f"descrição de {n}"} for n in names],
            "relations": [{"source": a, "target": b, "description": f"{a} ligado a {b}", "strength": 7}
                          for a, b in zip(names, names[1:], strict=False)]})
    if name == "community_report":
        ids = [i.strip() for line in _EVIDENCE.findall(user) for i in line.split(",")]
        return json.dumps({"title": "Relatório LLM", "summary": "Resumo do modelo.", "rating": 7,
                           "findings": [{"text": "Achado citado.", "chunk_ids": [ids[0], "chk_invented"]},
                                        {"text": "Achado inventado.", "chunk_ids": ["chk_invented"]}]})
    return "Contexto do trecho."  # chunk contexts (enrich)


@pytest.fixture
def fake():
    with FakeOpenAI(responder) as server:
        yield server


def test_llm_extraction_reports_fallback_and_cache(tmp_path: Path, fake: FakeOpenAI):
    settings = Settings(home=tmp_path / "home", source=write_corpus(tmp_path / "source"),
                        embedding_model="wordllama", llm_base_url=fake.base_url, llm_model="fake-model")
    _, stage = index_and_graph(settings)
    usage = stage.usage
    assert usage["calls"] > 0 and usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert stage.usage["llm_fallbacks"] == 1 and stage.usage["llm_errors"] == 0
    asked = [r for r in fake.requests if "Projeto Aurora" in json.dumps(r, ensure_ascii=False)
             and (r.get("response_format") or {}).get("json_schema", {}).get("name") == "graph_extraction"]
    assert len(asked) == 2  # the invalid answer was asked again once, then the rules took over
    data = tables(settings)
    by_name = {e["name"]: e for e in data["entities"]}
    assert "Projeto Aurora" in by_name  # from the rules fallback
    assert by_name["Vanessa Duarte Lins"]["description"] == "descrição de Vanessa Duarte Lins"
    hospital = by_name["Hospital Vale do Ipê"]  # evidence in public and restricted chunks: no LLM text
    assert "descrição" not in hospital["description"] and "mentioned in" in hospital["description"]
    assert any("ligado a" in r["description"] for r in data["relationships"])
    reports = data["community_reports"]
    assert reports and all(r["source"] == "llm" for r in reports)
    for report in reports:
        assert [f["text"] for f in report["findings"]] == ["Achado citado."]
        cited = [c for f in report["findings"] for c in f["chunk_ids"]]
        assert cited and all(c != "chk_invented" and c in report["chunk_ids"] for c in cited)

    calls = len(fake.requests)
    _, again = index_and_graph(settings)
    graph_calls = [r for r in fake.requests[calls:] if r.get("response_format")]
    assert not graph_calls and again.processed == 0 and again.usage["reports_regenerated"] == 0
