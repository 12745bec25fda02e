"""Graph modes with and without a graph index, and the ``lakerag query`` / ``lakerag serve`` commands."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

from lakerag.cli import main
from tests.fixtures.api import TRAVEL
from tests.fixtures.paths import REPO


@pytest.mark.parametrize("mode", ["local", "global", "hybrid"])
def test_graph_modes_without_a_graph_are_partial(nograph_api, mode):
    body = nograph_api.client.post("/v1/query", json={"question": TRAVEL, "mode": mode}).json()
    assert body["status"] == "partial" and body["mode"] == mode and body["mode_used"] == "basic"
    assert any("needs the graph index" in w for w in body["warnings"]) and body["citations"]


def test_graph_modes_with_a_graph(api):
    local = api.client.post("/v1/query", json={"question": "Qual o valor mensal do contrato com a NuvemSul?",
                                               "mode": "local"}, headers=api.key("k-juridico")).json()
    kinds = {e["kind"] for e in local["evidence"]}
    assert local["mode_used"] == "local" and {"entity", "chunk"} <= kinds
    assert all(e["extra"].get("name") for e in local["evidence"] if e["kind"] == "entity")
    assert "doc_c192c5b1a4caf668" in {c["document_id"] for c in local["citations"]}  # CT-2024-0187, NuvemSul
    bad_level = api.client.post("/v1/query", json={"question": "riscos", "mode": "global",
                                                   "community_level": 7})
    assert bad_level.status_code == 400 and "level" in bad_level.json()["detail"]
    ready = api.client.get("/ready").json()
    assert ready["graph"] is True


def test_query_command(sample_home, capsys, monkeypatch):
    monkeypatch.setenv("LAKERAG_EMBEDDING_MODEL", "wordllama")
    assert main(["query", TRAVEL, "--home", str(sample_home), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["status"] == "answered" and body["citations"]
    assert main(["query", "Qual a faixa salarial de Analista de TI Pleno?", "--home", str(sample_home)]) == 0
    assert "not_found" in capsys.readouterr().out
    assert main(["query", "Qual a faixa salarial de Analista de TI Pleno?", "--home", str(sample_home),
                 "--groups", "rh", "--mode", "basic", "--json"]) == 0
    assert any("Faixas Salariais" in c["title"] for c in json.loads(capsys.readouterr().out)["citations"])


@pytest.mark.integration
def test_serve_command_binds_loopback(sample_home):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "LAKERAG_EMBEDDING_MODEL": "wordllama"}
    process = subprocess.Popen([sys.executable, "-m", "lakerag.cli", "serve", "--home", str(sample_home),
                                "--port", str(port)], cwd=REPO, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/ready", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        else:
            pytest.fail("lakerag serve did not become ready")
        body = httpx.post(f"http://127.0.0.1:{port}/v1/query", json={"question": TRAVEL}).json()
        assert body["status"] == "answered"
    finally:
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=20)[0]
    assert f"http://127.0.0.1:{port}" in output and "curl -s" in output
    log = [json.loads(line) for line in output.splitlines() if line.startswith('{"request_id"')]
    assert any(r["route"] == "/v1/query" and r["answer_status"] == "answered" for r in log)
