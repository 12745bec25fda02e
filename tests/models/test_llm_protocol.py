"""Requests shaped for what a real endpoint takes (its context window, system role, JSON mode), from the settings
or the server's /v1/models; replies that are almost JSON still parsed. Against the local protocol server."""

from __future__ import annotations

import pytest

from lakehouse.settings import LLMSettings
from models.llm import LLMClient
from models.llm_protocol import TRIMMED, json_object
from serving.evaluation.llm_judge import parse_label
from tests.fixtures.openai_server import FakeOpenAI

LONG = [{"role": "system", "content": "Responda."}, {"role": "user", "content": "palavra " * 3000 + "Qual?"}]


@pytest.fixture
def fake():
    with FakeOpenAI() as server:
        yield server


def client(fake, tmp_path, **settings) -> LLMClient:
    return LLMClient(fake.base_url, "fake-model", "x", tmp_path / "llm", timeout=5, max_retries=0,
                     settings=LLMSettings(**settings))


def test_a_prompt_over_the_window_is_trimmed_and_answered_not_an_error(fake, tmp_path):
    fake.context_length = 1024
    llm = client(fake, tmp_path)
    result = llm.chat(LONG, max_tokens=50)
    assert result.text.startswith("fake answer")
    first, retried = fake.requests
    assert len(retried["messages"][1]["content"]) < len(first["messages"][1]["content"])
    assert TRIMMED in retried["messages"][1]["content"] and retried["messages"][0] == LONG[0]
    assert retried["messages"][1]["content"].endswith("palavra Qual?")  # the question, asked last, is kept
    assert llm.usage["trimmed"] == 1 and llm.capabilities.context_length == 1024
    llm.chat([LONG[1]], max_tokens=50)  # the window is known now: sent trimmed the first time
    assert len(fake.requests) == 3


def test_the_window_from_v1_models_trims_before_sending(fake, tmp_path):
    fake.model_entry = {"max_model_len": 2048}  # vLLM's field
    fake.context_length = 2048
    client(fake, tmp_path).chat(LONG, max_tokens=100)
    assert len(fake.requests) == 1 and TRIMMED in fake.requests[0]["messages"][1]["content"]


def test_a_configured_window_and_answer_budget(fake, tmp_path):
    client(fake, tmp_path, context_length=512).chat(LONG, max_tokens=600)
    sent = fake.requests[0]
    assert sent["max_tokens"] == 256  # at most half the window
    assert len(sent["messages"][1]["content"]) <= (512 - 256) * 2.5


def test_template_without_system_role_and_server_without_json_mode(fake, tmp_path):
    llm = client(fake, tmp_path, system_role=False, json_mode="off")
    llm.chat([{"role": "system", "content": "Só JSON."}, {"role": "user", "content": "Olá"}],
             response_format={"type": "json_object"})
    sent = fake.requests[0]
    assert sent["messages"] == [{"role": "user", "content": "Só JSON.\n\nOlá"}]
    assert "response_format" not in sent


def test_tools_off_fails_the_tool_step_without_a_request(fake, tmp_path):
    from models.llm import LLMError

    with pytest.raises(LLMError, match="LAKERAG_LLM_TOOLS"):
        client(fake, tmp_path, tools="off").chat_tools([{"role": "user", "content": "x"}], [])
    assert fake.requests == []


def test_capabilities_listed_by_the_server(fake, tmp_path):
    fake.model_entry = {"capabilities": ["completion"], "meta": {"n_ctx_train": 8192}}  # no tools, no JSON
    caps = client(fake, tmp_path).capabilities
    assert (caps.context_length, caps.tools, caps.json_mode) == (8192, False, False)


@pytest.mark.parametrize("reply", ['```json\n{"label": "correct"}\n```', 'Here it is: {"label": "correct"} ok',
                                   '{"label": "correct"}'])
def test_almost_json_replies_are_read(reply):
    assert json_object(reply) == {"label": "correct"}
    assert parse_label(reply) == "correct"


def test_unusable_replies_are_counted(fake, tmp_path):
    from models.llm import LLMError
    from transforms.extraction.owners import ask_owners

    fake.responder = lambda body: "Não sei quem aprovou."
    llm = client(fake, tmp_path)
    with pytest.raises(LLMError):
        ask_owners(llm, "POP", "Aprovado por: Fulano de Tal")
    assert llm.usage["rejected"] == 1


def test_a_server_without_json_schema_gets_the_schema_as_json_object(fake, tmp_path):
    from serving.answers.llm_grading import RESPONSE_FORMAT

    fake.json_schema_status = 500  # llama-cpp-python 0.3.36's answer to response_format json_schema (a 422 inside)
    llm = client(fake, tmp_path)
    llm.chat([{"role": "user", "content": "a"}], response_format=RESPONSE_FORMAT)
    llm.chat([{"role": "user", "content": "b"}], response_format=RESPONSE_FORMAT)
    formats = [r["response_format"] for r in fake.requests]
    schema = RESPONSE_FORMAT["json_schema"]["schema"]
    assert formats == [RESPONSE_FORMAT, {"type": "json_object", "schema": schema},
                       {"type": "json_object", "schema": schema}]  # learnt: the second request goes right away
