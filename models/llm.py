"""Chat completions from any OpenAI-compatible endpoint, cached on disk by request hash.

``LLMClient.chat`` sends one non-streaming request through the ``openai`` client (which retries 408, 409,
429 and 5xx itself) and stores the answer under ``cache_dir/<hash[:2]>/<hash>.json``, where the hash covers
model, messages, temperature, max_tokens and response_format. An identical request later, in this run or a
resumed one, is answered from that file without any HTTP call. A call that still fails raises ``LLMError``;
callers fall back to their deterministic default. ``client_from_settings`` returns None when no endpoint is
configured, which is how every LLM step knows to use that default.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lakehouse.errors import LakeragError
from lakehouse.settings import LLMSettings, Settings

__all__ = ["LLMClient", "LLMError", "LLMResult", "LLMToolReply", "ToolCall", "client_from_settings"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LLMResult:
    """One answer; ``cached`` when it came from the disk cache (its tokens were paid by an earlier call)."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cached: bool


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for; ``arguments`` is the model's JSON text, unchecked."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class LLMToolReply:
    """An answer to a request with tools: text, tool calls, or both."""

    text: str
    tool_calls: tuple[ToolCall, ...]
    prompt_tokens: int
    completion_tokens: int
    cached: bool


class LLMError(LakeragError):
    """An LLM call failed after the client's retries; ``reason`` is short ("HTTP 500", "timeout")."""

    def __init__(self, reason: str, model: str = "") -> None:
        super().__init__(f"LLM call to {model or 'model'} failed: {reason}")
        self.reason = reason


class LLMClient:
    """A cached chat client for one model at one OpenAI-compatible ``base_url``."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str,
        cache_dir: Path,
        timeout: float = 60.0,
        max_retries: int = 3,
    ) -> None:
        import openai  # only needed once an endpoint is configured

        self.model = model
        self.cache_dir = Path(cache_dir)
        self._openai = openai.OpenAI(
            base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries
        )
        self._lock = threading.Lock()
        self._usage = {"calls": 0, "cached_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                       "cached_prompt_tokens": 0, "cached_completion_tokens": 0}

    @property
    def usage(self) -> dict[str, int]:
        """Running totals: HTTP ``calls`` and their tokens; ``cached_calls`` and their (unpaid) tokens."""
        with self._lock:
            return dict(self._usage)

    def chat(
        self,
        messages: list[dict],
        *,
        temperature: float = 0.0,
        max_tokens: int = 300,
        response_format: dict | None = None,
    ) -> LLMResult:
        """The model's answer to ``messages``, from the cache when this exact request was made before."""
        request = {"model": self.model, "messages": messages, "temperature": temperature,
                   "max_tokens": max_tokens, "response_format": response_format}
        path = self._cache_path(request)
        hit = _read_cache(path)
        if hit is not None:
            self._count(hit, cached=True)
            return hit
        result = self._call(request)
        _write_cache(path, result)
        self._count(result, cached=False)
        return result

    def chat_tools(self, messages: list[dict], tools: list[dict], *, max_tokens: int = 600) -> LLMToolReply:
        """One step of a function-calling loop (temperature 0), cached like ``chat``; raises ``LLMError``."""
        import openai

        request = {"model": self.model, "messages": messages, "tools": tools, "max_tokens": max_tokens,
                   "temperature": 0.0}
        path = self._cache_path(request)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            reply = LLMToolReply(str(data["text"]), tuple(ToolCall(*c) for c in data["tool_calls"]),
                                 int(data["prompt_tokens"]), int(data["completion_tokens"]), True)
            self._count(LLMResult(reply.text, reply.prompt_tokens, reply.completion_tokens, True), cached=True)
            return reply
        except (OSError, ValueError, KeyError, TypeError):
            pass
        try:
            response = self._openai.chat.completions.create(model=self.model, messages=messages, tools=tools,
                                                            max_tokens=max_tokens, temperature=0.0)
        except openai.APITimeoutError as exc:
            raise LLMError("timeout", self.model) from exc
        except openai.APIStatusError as exc:
            raise LLMError(f"HTTP {exc.status_code}", self.model) from exc
        except openai.OpenAIError as exc:
            raise LLMError(type(exc).__name__, self.model) from exc
        if not response.choices:
            raise LLMError("response without choices", self.model)
        message, usage = response.choices[0].message, response.usage
        calls = tuple(ToolCall(c.id, c.function.name, c.function.arguments or "")
                      for c in (message.tool_calls or []) if getattr(c, "function", None) is not None)
        reply = LLMToolReply(message.content or "", calls, usage.prompt_tokens if usage else 0,
                             usage.completion_tokens if usage else 0, False)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"text": reply.text, "tool_calls": [[c.id, c.name, c.arguments] for c in calls],
                                   "prompt_tokens": reply.prompt_tokens,
                                   "completion_tokens": reply.completion_tokens}, ensure_ascii=False),
                       encoding="utf-8")
        os.replace(tmp, path)
        self._count(LLMResult(reply.text, reply.prompt_tokens, reply.completion_tokens, False), cached=False)
        return reply

    def _call(self, request: dict[str, Any]) -> LLMResult:
        import openai

        extra = {"response_format": request["response_format"]} if request["response_format"] else {}
        try:
            response = self._openai.chat.completions.create(
                model=self.model, messages=request["messages"], temperature=request["temperature"],
                max_tokens=request["max_tokens"], **extra,
            )
        except openai.APITimeoutError as exc:
            raise LLMError("timeout", self.model) from exc
        except openai.APIStatusError as exc:
            raise LLMError(f"HTTP {exc.status_code}", self.model) from exc
        except openai.APIConnectionError as exc:
            raise LLMError("connection error", self.model) from exc
        except openai.OpenAIError as exc:
            raise LLMError(type(exc).__name__, self.model) from exc
        if not response.choices:
            raise LLMError("response without choices", self.model)
        usage = response.usage
        return LLMResult(
            text=response.choices[0].message.content or "",
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            cached=False,
        )

    def _cache_path(self, request: dict[str, Any]) -> Path:
        canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
        return self.cache_dir / digest[:2] / f"{digest}.json"

    def _count(self, result: LLMResult, *, cached: bool) -> None:
        prefix = "cached_" if cached else ""
        with self._lock:
            self._usage[f"{prefix}calls"] += 1
            self._usage[f"{prefix}prompt_tokens"] += result.prompt_tokens
            self._usage[f"{prefix}completion_tokens"] += result.completion_tokens


def _read_cache(path: Path) -> LLMResult | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return LLMResult(str(data["text"]), int(data["prompt_tokens"]), int(data["completion_tokens"]), True)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        log.warning("ignoring unreadable LLM cache entry %s", path)
        return None


def _write_cache(path: Path, result: LLMResult) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"text": result.text, "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem[:16]}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def client_from_settings(settings: Settings, cache_dir: Path) -> LLMClient | None:
    """A client for the configured endpoint; None when ``LAKERAG_LLM_BASE_URL`` or ``LAKERAG_LLM_MODEL`` is unset."""
    llm = settings.llm
    if not llm.base_url or not llm.model:
        return None
    return LLMClient(str(llm.base_url), llm.model, api_key(llm), cache_dir, timeout=llm.timeout)


def api_key(llm: LLMSettings) -> str:
    """The endpoint's key ("not-needed" for local servers that take none)."""
    return llm.api_key.get_secret_value() if llm.api_key is not None else "not-needed"
