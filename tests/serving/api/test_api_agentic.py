"""The ``agentic`` mode over HTTP on the sample corpus: the seeds' worked example (policy item 7.2 -> the
contract's security annex), routing, the trace, citations limited to what the loop read, permissions and the
budget."""

from __future__ import annotations

import dataclasses
import json

import pytest

from serving.answers.agentic.trace import Budget
from serving.answers.modes import ModeRequest, retrieve
from tests.fixtures.api import serve, settings_for
from tests.fixtures.openai_server import FakeOpenAI

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


@pytest.mark.parametrize("question", [
    "O contrato CT-2024-0187 atende à Política de Segurança da Informação para Terceiros?",
    # typed: no accents, "ta" and "pra", the policy's title shortened
    "o contrato CT-2024-0187 ta de acordo com a politica de seguranca pra terceiros?",
])
def test_the_analysts_compliance_question_reads_the_annex_and_reports_the_conflict(api, question):
    """Asked without naming the annex or the quantity: the contract's Anexo III is read, the policy's 24 h notice
    is compared with the annex's 72 h, and no other quantity (the 4 h solution time) is taken as meeting it."""
    body = _ask(api, question)
    assert body["mode_used"] == "agentic"
    notify = _line(body["answer"], "notificar")
    assert "NÃO atende" in notify and "24" in notify and "72" in notify and "4 horas" not in notify
    assert ANNEX in _read_ids_docs(body) and "não está de acordo" in body["answer"]


def _read_ids_docs(body) -> set[str]:
    return {s["args"].get("document_id") for s in body["trace"] if s["tool"] == "read_document"}


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


@pytest.fixture
def agent(sample_home, tmp_path):
    with FakeOpenAI() as fake:
        settings = settings_for(sample_home, llm_base_url=fake.base_url, llm_model="fake-model")
        with serve(settings, llm_cache=tmp_path / "llm") as server:
            yield fake, server


def _scripted(body):
    """A model that looks the annex up, makes two invalid calls, reads section 5, then answers citing what it
    read and one id it never read."""
    tool_messages = [m for m in body["messages"] if m.get("role") == "tool"]
    if not tool_messages:
        return {"tool_calls": [{"name": "lookup_catalog", "arguments": json.dumps({"query": "Anexo III CT-2024-0187"})},
                               {"name": "delete_everything", "arguments": "{}"},
                               {"name": "read_document", "arguments": "{not json"}]}
    if len(tool_messages) == 3:
        return {"tool_calls": [{"name": "read_document",
                                "arguments": json.dumps({"document_id": ANNEX, "section": "5"})}]}
    read = json.loads(tool_messages[-1]["content"])[0]["id"]
    return (f"O Anexo III prevê notificação em até 72 horas [{read}], mais do que as 24 horas "
            f"[chk_00000000000000000000].")


def test_the_agent_loop_calls_tools_and_its_citations_are_checked(agent):
    fake, server = agent
    fake.responder = _scripted
    body = server.client.post("/v1/query", json={"question": SEEDS, "mode": "agentic"},
                              headers=server.key("k-juridico")).json()
    assert body["mode_used"] == "agentic" and body["generator"] == "llm:fake-model"
    first = fake.requests[0]
    names = {t["function"]["name"] for t in first["tools"]}
    assert {"search_policies", "search_contracts", "search_contract_annexes", "read_document",
            "lookup_catalog"} <= names
    errors = [m["content"] for m in fake.requests[1]["messages"] if m.get("role") == "tool"]
    assert any("unknown tool 'delete_everything'" in e for e in errors)
    assert any("not valid JSON" in e for e in errors)
    assert [s["tool"] for s in body["trace"]] == ["lookup_catalog", "delete_everything", "read_document",
                                                  "read_document"]
    assert body["trace"][1]["note"] and body["trace"][2]["note"]
    assert [c["document_id"] for c in body["citations"]] == [ANNEX] and "72 horas [1]" in body["answer"]
    assert "chk_0000" not in body["answer"]
    assert any("not read in the loop: chk_00000000000000000000" in w for w in body["warnings"])


def test_the_agent_stops_at_the_budget(agent):
    fake, server = agent
    call = {"name": "search", "arguments": json.dumps({"query": "incidente"})}
    fake.responder = lambda body: {"tool_calls": [call]}
    body = server.client.post("/v1/query", json={"question": SEEDS, "mode": "agentic"},
                              headers=server.key("k-juridico")).json()
    assert body["status"] == "not_found" and 1 < len(body["trace"]) <= Budget().max_steps  # searched, read nothing
    assert any("budget" in w for w in body["warnings"])


TWO_PARTS = ("Em quantos dias a política de privacidade manda responder aos titulares, e qual é o valor anual "
             "estimado do contrato de fornecimento de refeições?")
PRIVACY, MEALS = "doc_9b60ef10542d416a", "doc_20712118daa5a102"


def test_a_question_in_two_parts_is_routed_and_answered_part_by_part(api):
    body = _ask(api, TWO_PARTS, mode="auto", key="k-juridico")
    assert body["mode_used"] == "agentic"
    first, second = body["answer"].splitlines()[:2]
    assert "15 (quinze) dias" in first and "R$ 2.100.000,00" in second
    assert {PRIVACY, MEALS} <= {c["document_id"] for c in body["citations"]}
    searched = [s["args"]["query"] for s in body["trace"] if s["tool"] == "search"]
    assert any(q.startswith("qual é o valor anual") for q in searched)  # each part searched on its own


def test_a_law_cited_in_the_evidence_is_followed_to_the_document_named_after_it(api):
    question = "Quais obrigações de proteção de dados pessoais o contrato CT-2024-0187 impõe à contratada?"
    out = retrieve("agentic", ModeRequest(api.holder.require(), question, frozenset({"public", "juridico"})))
    lookup = next(s for s in out.trace if s["tool"] == "lookup_catalog" and "13.709/2018" in s["args"]["query"])
    assert any(s["tool"] == "read_document" and s["args"]["document_id"] == PRIVACY and s["n"] > lookup["n"]
               for s in out.trace)  # the policy named after the law (LGPD), read after the law was seen


def test_an_annex_read_already_is_not_reported_missing(api):
    body = _ask(api, "Em quanto tempo o fornecedor de nuvem notifica incidentes de segurança?")
    assert ANNEX in {e["document_id"] for e in body["evidence"]}  # read with the first search's best hits
    assert not any("Anexo III" in w and "not in the catalog" in w for w in body["warnings"])


MANUAL = "doc_e5075dfba3fdfe1e"


def test_a_supplier_named_by_what_it_does_is_found_first_and_its_contract_followed(api):
    question = ("A política exige criptografia descrita em anexo contratual. Que controles o fornecedor que hospeda "
                "o prontuário eletrônico assumiu?")
    body = _ask(api, question, mode="auto")
    assert body["mode_used"] == "agentic"
    searched = [s["args"]["query"] for s in body["trace"] if s["tool"] == "search"]
    assert "Qual fornecedor hospeda o prontuário eletrônico" in searched  # the question inside the question
    read = [s["args"]["document_id"] for s in body["trace"] if s["tool"] == "read_document"]
    assert MANUAL in read and CONTRACT in read and read.index(MANUAL) < len(read) - 1
    first = body["answer"].splitlines()[0]
    assert "NuvemSul" in first and "CT-2024-0187" in first  # who it is, with the contract that binds it


def test_a_model_that_calls_no_tool_leaves_the_answer_to_the_workflow(agent):
    fake, server = agent  # what SmolLM2 behind llama.cpp's server does: tools are ignored, prose comes back
    fake.responder = lambda body: "Claro! Posso ajudar com isso. O prazo é de 30 dias."
    body = server.client.post("/v1/query", json={"question": SEEDS, "mode": "agentic"},
                              headers=server.key("k-juridico")).json()
    assert len(fake.requests) >= 1 and fake.requests[0]["tools"]
    assert any("called no tool; the deterministic workflow answered" in w for w in body["warnings"])
    assert body["citations"] and body["trace"]  # the workflow searched and read; the model's prose is gone
    assert "Posso ajudar" not in body["answer"]
