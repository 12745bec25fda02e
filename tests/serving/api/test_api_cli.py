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


def test_server_and_in_process_answer_the_same_json(api, sample_home, capsys, monkeypatch):
    monkeypatch.setenv("LAKERAG_EMBEDDING_MODEL", "wordllama")  # the api fixture's model
    for mode, question in (("basic", TRAVEL), ("catalog", "Quais documentos vencem nos próximos 30 dias?")):
        assert main(["query", question, "--mode", mode, "--server", api.url, "--json"]) == 0
        served = json.loads(capsys.readouterr().out)
        assert main(["query", question, "--mode", mode, "--home", str(sample_home), "--local", "--json"]) == 0
        local = json.loads(capsys.readouterr().out)
        for per_request in ("timings", "request_id", "conversation_id"):
            served.pop(per_request), local.pop(per_request)
        assert served == local and served["mode_used"] == mode


def test_the_server_path_imports_no_settings_model_nor_index_code(tmp_path):
    """`lakerag query --server` is a small HTTP client: pydantic, numpy and the query side stay unloaded."""
    import subprocess
    import sys

    from tests.fixtures.paths import REPO

    code = ("import sys; from lakerag.cli import main; "
            "main(['query', 'x', '--server', 'http://127.0.0.1:9', '--json']); "
            "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
            "{'pydantic', 'pydantic_settings', 'numpy', 'serving', 'models', 'transforms', 'httpx', 'rich'} "
            "or m == 'lakehouse.settings')))")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "LAKERAG_API_URL": ""}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert "cannot reach http://127.0.0.1:9" in done.stderr
    assert done.stdout.strip() == ""
