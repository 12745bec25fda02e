"""Generation through the configured OpenAI-compatible endpoint, at temperature 0: a whole answer through the
cached ``LLMClient``, or a stream of text pieces from the endpoint (not cached)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

from lakehouse.settings import Settings
from models.llm import LLMClient, client_from_settings

log = logging.getLogger(__name__)


class Generator:
    def __init__(self, client: LLMClient, settings: Settings, max_tokens: int = 600) -> None:
        self.client = client
        self.model = client.model
        self.max_tokens = max_tokens

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
        """Text pieces as the endpoint sends them, shaped to fit it; raises ``LLMError`` when the call fails."""
        return self.client.stream(messages, max_tokens=self.max_tokens)
