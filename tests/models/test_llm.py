"""LLMClient through the real openai client against a local fake server: answers, cache, retries, errors."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from pydantic import SecretStr

from lakehouse.settings import Settings
from models.llm import LLMClient, LLMError, client_from_settings
from tests.fixtures.openai_server import FakeOpenAI

HELLO = [{"role": "user", "content": "Qual é o prazo de reembolso?"}]


@pytest.fixture
def fake():
    with FakeOpenAI() as server:
        yield server


def make_client(fake: FakeOpenAI, tmp_path: Path, **kwargs) -> LLMClient:
    options = {"timeout": 2.0, "max_retries": 2, **kwargs}
    return LLMClient(fake.base_url, "fake-model", "not-needed", tmp_path / "llm", **options)


def test_chat_returns_text_and_token_counts(fake, tmp_path):
    fake.responder = lambda body: "dez dias úteis"
    result = make_client(fake, tmp_path).chat(HELLO)
    assert result.text == "dez dias úteis"
    assert (result.prompt_tokens, result.completion_tokens, result.cached) == (6, 3, False)
    assert fake.requests[0]["model"] == "fake-model"
    assert fake.requests[0]["messages"] == HELLO
    assert fake.requests[0]["temperature"] == 0.0


def test_identical_call_is_answered_from_cache_without_http(fake, tmp_path):
    client = make_client(fake, tmp_path)
    first = client.chat(HELLO)
    second = client.chat(HELLO)
    assert len(fake.requests) == 1
    assert second.cached and second.text == first.text
    assert (second.prompt_tokens, second.completion_tokens) == (first.prompt_tokens, first.completion_tokens)
    assert client.usage == {
        "calls": 1, "cached_calls": 1, "prompt_tokens": first.prompt_tokens,
        "completion_tokens": first.completion_tokens, "cached_prompt_tokens": first.prompt_tokens,
        "cached_completion_tokens": first.completion_tokens,
    }
    # A new client (a resumed run) over the same cache folder pays nothing either.
    assert make_client(fake, tmp_path).chat(HELLO).cached
    assert len(fake.requests) == 1
    assert len(list((tmp_path / "llm").rglob("*.json"))) == 1


def test_changed_request_misses_the_cache(fake, tmp_path):
    client = make_client(fake, tmp_path)
    client.chat(HELLO)
    assert not client.chat(HELLO, temperature=0.7).cached
    assert not client.chat([{"role": "user", "content": "Outra pergunta"}]).cached
    assert not client.chat(HELLO, response_format={"type": "json_object"}).cached
    assert len(fake.requests) == 4
    assert fake.requests[-1]["response_format"] == {"type": "json_object"}


def test_transient_failures_are_retried(fake, tmp_path):
    fake.fail_next(2, 500)
    result = make_client(fake, tmp_path, max_retries=2).chat(HELLO)
    assert result.text.startswith("fake answer")
    assert len(fake.requests) == 3


def test_persistent_failure_raises_llm_error_quickly(fake, tmp_path):
    fake.fail_next(10, 429)
    started = time.monotonic()
    with pytest.raises(LLMError, match="HTTP 429") as info:
        make_client(fake, tmp_path, max_retries=1).chat(HELLO)
    assert info.value.reason == "HTTP 429"
    assert len(fake.requests) == 2
    assert time.monotonic() - started < 2
    assert not list((tmp_path / "llm").rglob("*.json"))  # failures are not cached


def test_timeout_raises_llm_error(fake, tmp_path):
    fake.delay = 0.5
    with pytest.raises(LLMError, match="timeout"):
        make_client(fake, tmp_path, timeout=0.1, max_retries=0).chat(HELLO)


def test_client_from_settings_needs_url_and_model(tmp_path):
    assert client_from_settings(Settings(llm_base_url=None, llm_model=None), tmp_path) is None
    assert client_from_settings(Settings(llm_base_url="http://x/v1", llm_model=None), tmp_path) is None
    settings = Settings(
        llm_base_url="http://127.0.0.1:9/v1", llm_model="m", llm_api_key=SecretStr("k"), llm_timeout=5
    )
    client = client_from_settings(settings, tmp_path)
    assert client is not None and client.model == "m" and client.cache_dir == tmp_path


def test_fake_server_speaks_streaming_and_models(fake):
    import openai

    raw = openai.OpenAI(base_url=fake.base_url, api_key="not-needed", max_retries=0)
    fake.responder = lambda body: "uma resposta em vários pedaços de texto"
    stream = raw.chat.completions.create(model="fake-model", messages=HELLO, stream=True,
                                         stream_options={"include_usage": True})
    chunks = list(stream)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == fake.responder({})
    assert chunks[-1].usage.completion_tokens == 7
    assert [m.id for m in raw.models.list()] == ["fake-model"]
