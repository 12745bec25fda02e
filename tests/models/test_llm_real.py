"""Every LLM step's client behaviour against the real llama.cpp server and a real small model (marker ``llm``;
``make llm-test``): JSON verdicts parsed or rejected and counted, the fallback taken, streaming, a prompt longer
than the window trimmed instead of failing, the cache, and a server that is down or too slow."""

from __future__ import annotations

import pytest

from models.llm import LLMClient, LLMError
from models.llm_server import MODELS, model_file
from serving.answers import llm_grading
from serving.answers.grading import AMBIGUOUS, CORRECT, INCORRECT
from serving.answers.prompt import Source
from serving.evaluation.llm_judge import LABELS, parse_label
from tests.fixtures.llama_server import free_port
from transforms.extraction.owners import ask_owners

pytestmark = pytest.mark.llm

PASSAGE = Source(1, "chunk", "Política de Reembolso de Despesas de Viagem v3", "Prestação de contas",
                 "A prestação de contas deve ser feita em até 10 dias úteis após o retorno da viagem.")
QUESTION = "Qual é o prazo para prestar contas de despesas de viagem após o retorno?"


def client(server, tmp_path, **kwargs) -> LLMClient:
    options = {"timeout": 120.0, "max_retries": 0, **kwargs}
    return LLMClient(server.base_url, server.model, "not-needed", tmp_path / "llm", **options)


def test_shipped_model_file_matches_its_recorded_sha256():
    for name in MODELS:
        assert model_file(name).stat().st_size > 50_000_000


def test_grading_verdict_is_parsed_or_rejected_and_counted(llama_server, tmp_path):
    llm = client(llama_server, tmp_path)
    answer = llm_grading._ask(llm, QUESTION, PASSAGE)
    reply = llm.chat(llm_grading.messages(QUESTION, PASSAGE), temperature=0.0, max_tokens=120,
                     response_format=llm_grading.RESPONSE_FORMAT)  # the same request: from the cache
    assert reply.cached
    if answer is None:  # not the JSON asked for: the deterministic grade stays, and it was counted
        assert llm_grading.verdict(reply.text) is None and llm.usage["rejected"] == 1
    else:
        assert answer[0] in (CORRECT, AMBIGUOUS, INCORRECT) and "rejected" not in llm.usage


def test_judge_and_owners_replies_are_parsed_or_rejected_and_counted(llama_server, tmp_path):
    llm = client(llama_server, tmp_path)
    text = ("POP-TI-003 Backup e Restauração\nElaborado por: Marcos Vinícius Prado\n"
            "Aprovado por: Renata Albuquerque Lima\n\n1. Objetivo\nGarantir cópias diárias dos servidores.")
    rejected = 0
    try:
        found = ask_owners(llm, "POP-TI-003 Backup e Restauração", text)
        assert set(found) <= {"responsible", "approver"}
        assert all(value in text for value in found.values())  # names the text does not contain are dropped
    except LLMError:
        rejected += 1  # fill_owners keeps the rules' answer
    reply = llm.chat([{"role": "system", "content": 'Answer with JSON: {"label": "correct" | "incorrect"}'},
                      {"role": "user", "content": "Question: 2+2? Gold: 4. Answer under review: 4."}],
                     max_tokens=40, response_format={"type": "json_object"}).text
    label = parse_label(reply)
    assert label is None or label in LABELS
    assert llm.usage.get("rejected", 0) == rejected


def test_streaming_yields_text_pieces(llama_server, tmp_path):
    pieces = list(client(llama_server, tmp_path).stream(
        [{"role": "user", "content": "Diga olá em uma frase."}], max_tokens=16))
    assert len(pieces) > 1 and "".join(pieces).strip()


def test_prompt_longer_than_the_window_is_trimmed_not_an_error(llama_server, tmp_path):
    llm = client(llama_server, tmp_path)  # no context length configured: learnt from the server's 400
    long = "A prestação de contas deve ser feita em até 10 dias úteis. " * 400  # ~9k tokens > 1024
    result = llm.chat([{"role": "system", "content": "Responda em uma frase."},
                       {"role": "user", "content": f"{long}\nQual é o prazo?"}], max_tokens=16)
    assert result.prompt_tokens <= llama_server.n_ctx and llm.usage["trimmed"] >= 1
    assert llm.capabilities.context_length == llama_server.n_ctx  # learnt: the next long prompt goes trimmed
    llm.chat([{"role": "user", "content": long + " Resuma."}], max_tokens=8)
    assert llm.usage["calls"] == 2


def test_repeated_request_costs_no_call(llama_server, tmp_path):
    llm = client(llama_server, tmp_path)
    request = [{"role": "user", "content": "Diga sim."}]
    first, second = llm.chat(request, max_tokens=4), llm.chat(request, max_tokens=4)
    assert second.cached and second.text == first.text
    assert (llm.usage["calls"], llm.usage["cached_calls"]) == (1, 1)


def test_slow_or_down_server_raises_llm_error_for_the_fallback(llama_server, tmp_path):
    slow = client(llama_server, tmp_path, timeout=0.05)
    with pytest.raises(LLMError, match="timeout"):
        slow.chat([{"role": "user", "content": "Escreva um parágrafo sobre backups."}], max_tokens=200)
    down = LLMClient(f"http://127.0.0.1:{free_port()}/v1", "smollm2", "x", tmp_path / "down", max_retries=0)
    with pytest.raises(LLMError, match="connection error"):
        down.chat([{"role": "user", "content": "olá"}])
