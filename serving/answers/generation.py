"""Generation through the configured OpenAI-compatible endpoint, at temperature 0: a whole answer through the
cached ``LLMClient``, or a stream of text pieces straight from the endpoint (not cached)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

from lakehouse.settings import Settings
from models.llm import LLMClient, LLMError, api_key, client_from_settings

log = logging.getLogger(__name__)


class Generator:
    def __init__(self, client: LLMClient, settings: Settings, max_tokens: int = 600) -> None:
        import openai

        self.client = client
        self.model = client.model
        self.max_tokens = max_tokens
        self._stream_client = openai.OpenAI(base_url=str(settings.llm.base_url), api_key=api_key(settings.llm),
                                            timeout=settings.llm.timeout, max_retries=1)

    @classmethod
    def from_settings(cls, settings: Settings, cache_dir: Path, max_tokens: int = 600) -> Generator | None:
        """None when no endpoint is configured (answers are then extractive)."""
        client = client_from_settings(settings, cache_dir)
        if client is None:
            return None
        return cls(client, settings, max_tokens)

    def complete(self, messages: list[dict]) -> str:
        return self.client.chat(messages, temperature=0.0, max_tokens=self.max_tokens).text

    def stream(self, messages: list[dict]) -> Iterator[str]:
        """Text pieces as the endpoint sends them; raises ``LLMError`` when the call fails."""
        import openai

        try:
            response = self._stream_client.chat.completions.create(
                model=self.model, messages=messages, temperature=0.0, max_tokens=self.max_tokens, stream=True)
            for chunk in response:
                if chunk.choices and chunk.choices[0].delta and chunk.choices[0].delta.content:
                    yield chunk.choices[0].delta.content
        except openai.APITimeoutError as exc:
            raise LLMError("timeout", self.model) from exc
        except openai.APIStatusError as exc:
            raise LLMError(f"HTTP {exc.status_code}", self.model) from exc
        except openai.OpenAIError as exc:
            raise LLMError(type(exc).__name__, self.model) from exc
