"""The ``agentic`` mode over HTTP on the sample corpus: the seeds' worked example (policy item 7.2 -> the
contract's security annex), routing, the trace, citations limited to what the loop read, permissions and the
budget."""

from __future__ import annotations

import dataclasses

from serving.answers.agentic.trace import Budget
from serving.answers.modes import ModeRequest, retrieve

POLICY, ANNEX, CONTRACT = "doc_36fa55a464284ed2", "doc_21af0599cddc0347", "doc_c192c5b1a4caf668"
SEEDS = ("O prazo de notificação de incidentes do Anexo III do CT-2024-0187 está de acordo com a Política de "
         "Segurança da Informação para Terceiros?")
ITEM = "O contrato de hospedagem atende ao item 7.2 da política?"


def _ask(api, question, mode="agentic", key="k-juridico"):
    response = api.client.post("/v1/query", json={"question": question, "mode": mode}, headers=api.key(key))
    assert response.status_code == 200, response.text
    return response.json()


def _line(answer: str, words: str) -> str:
    return next(line for line in answer.splitlines() if words in line)


def _read_ids(body) -> set[str]:
    return {i for step in body["trace"] if step["tool"] == "read_document" for i in step["ids"]}


def test_the_seeds_example_compares_the_annex_with_the_policy(api):
    body = _ask(api, SEEDS)
    assert body["mode_used"] == "agentic" and body["status"] == "answered"
    answer = body["answer"]
    notify = _line(answer, "notificar")
    assert "NÃO atende" in notify and "24" in notify and "72" in notify
    assert "atende" in _line(answer, "criptografia") and "AES-256" in _line(answer, "criptografia")
    assert "não encontrado" in _line(answer, "anualmente")
    assert "não está de acordo" in answer
    assert {POLICY, ANNEX} <= {c["document_id"] for c in body["citations"]}
    assert all(c["id"] in _read_ids(body) for c in body["citations"])  # cited = read in the loop
    steps = body["trace"]
    assert steps[0]["tool"] == "search" and {"lookup_catalog", "read_document"} <= {s["tool"] for s in steps}
    assert all({"n", "tool", "args", "ids", "tokens", "ms"} <= s.keys() for s in steps)


def test_the_item_question_is_routed_and_reaches_the_annex_through_the_policy(api):
    body = _ask(api, ITEM, mode="auto")
    assert body["mode_used"] == "agentic"
    tools = [s["tool"] for s in body["trace"]]
    policy_read = next(s["n"] for s in body["trace"] if s["tool"] == "read_document"
                       and s["args"].get("document_id") == POLICY and s["args"].get("section") == "7.2")
    annex_read = next(s["n"] for s in body["trace"] if s["tool"] == "read_document"
                      and s["args"].get("document_id") == ANNEX)
    assert "search_policies" in tools and policy_read < annex_read  # the annex was found after reading 7.2
    assert "NÃO atende" in _line(body["answer"], "notificar")
    assert "rescisão" not in body["answer"]  # the contract's own clause 7.2 is not the policy's item 7.2


def test_a_caller_without_the_contracts_never_sees_them(api):
    body = _ask(api, SEEDS, key="k-rh")
    text = str(body)
    assert ANNEX not in text and CONTRACT not in text and "72 (setenta" not in text and "AES-256" not in text
    assert all(ANNEX not in s["ids"] and CONTRACT not in s["ids"] for s in body["trace"])


def test_at_the_budget_the_answer_is_partial_and_says_what_is_missing(api):
    engine = dataclasses.replace(api.holder.require(), agent_budget=Budget(max_steps=3))
    out = retrieve("agentic", ModeRequest(engine, SEEDS, frozenset({"public", "juridico"})))
    assert out.partial and len(out.trace) <= 4
    assert any("budget" in w and "not followed" in w for w in out.warnings)
    roomy = retrieve("agentic", ModeRequest(dataclasses.replace(engine, agent_budget=Budget()), SEEDS,
                                            frozenset({"public", "juridico"})))
    assert not roomy.partial and len(roomy.trace) > 3


def test_the_mode_enum_accepts_agentic(api):
    schema = api.client.get("/schema/openapi.json").json()
    assert "agentic" in str(schema)
