"""`lakerag query` and `lakerag search` ask a running API with --server (or LAKERAG_API_URL), and load only
what the chosen mode needs when they answer in-process."""

from __future__ import annotations

import json

import pytest

from lakerag.cli import main
from tests.fixtures.api import TRAVEL


def test_query_and_search_ask_a_running_server(api, capsys, monkeypatch):
    import serving.search.service as search_service

    def refuse(*args, **kwargs):
        raise AssertionError("--server must not load an index or a model")

    monkeypatch.setattr(search_service.SearchIndex, "load", refuse)
    assert main(["query", TRAVEL, "--mode", "basic", "--server", api.url, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["status"] == "answered" and answer["citations"]
    monkeypatch.setenv("LAKERAG_API_URL", api.url)  # the setting is the default server
    assert main(["search", TRAVEL, "--method", "bm25", "--top-k", "3", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert len(hits) == 3 and set(hits[0]["scores"]) == {"bm25"}
    assert main(["query", TRAVEL, "--server", api.url]) == 0
    assert "answered" in capsys.readouterr().out


def test_an_unreachable_server_is_a_one_line_error(capsys):
    assert main(["query", TRAVEL, "--server", "http://127.0.0.1:9"]) == 2
    assert "cannot reach http://127.0.0.1:9" in capsys.readouterr().err


def test_bm25_search_in_process_loads_no_encoder(sample_home, capsys, monkeypatch):
    import serving.search.service as search_service

    def refuse(*args, **kwargs):
        raise AssertionError("a BM25-only search must not load the query encoder")

    monkeypatch.setattr(search_service, "checked_embedder", refuse)
    monkeypatch.setenv("LAKERAG_EMBEDDING_MODEL", "wordllama")
    assert main(["search", TRAVEL, "--method", "bm25", "--home", str(sample_home), "--json", "--local"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["hits"] and set(body["hits"][0]["scores"]) == {"bm25"}
    with pytest.raises(AssertionError, match="query encoder"):
        main(["search", TRAVEL, "--method", "hybrid", "--home", str(sample_home), "--local"])
