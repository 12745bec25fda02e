"""Chat completions from any OpenAI-compatible endpoint, cached on disk by request hash.

``LLMClient.chat`` sends one non-streaming request through the ``openai`` client (which retries 408, 409,
429 and 5xx itself) and stores the answer under ``cache_dir/<hash[:2]>/<hash>.json``, where the hash covers
model, messages, temperature, max_tokens and response_format. An identical request later, in this run or a
resumed one, is answered from that file without any HTTP call. A call that still fails raises ``LLMError``;
callers fall back to their deterministic default. ``client_from_settings`` returns None when no endpoint is
configured, which is how every LLM step knows to use that default.

Before a request leaves, it is shaped for the endpoint (``models.llm_protocol``): system text folded into the
first user message where the template has no system role, ``response_format`` dropped where JSON mode is off,
and the longest message trimmed so the prompt fits the model's context window. A server's
``context_length_exceeded`` reply teaches the client the window, and the request is retried once, trimmed.
Replies a caller could not use (not the JSON asked for) are counted with ``reject`` (``usage["rejected"]``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lakehouse.errors import LakeragError
from lakehouse.settings import LLMSettings, Settings
from models import llm_protocol
from models.llm_protocol import Capabilities

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
        capabilities: Capabilities | None = None,
        settings: LLMSettings | None = None,
    ) -> None:
        import openai  # only needed once an endpoint is configured

        self.model = model
        self.cache_dir = Path(cache_dir)
        self._openai = openai.OpenAI(
            base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries
        )
        self._base_url, self._api_key, self._settings = base_url, api_key, settings
        self._capabilities = capabilities
        self._schema_as_object = False  # learnt from a server that refuses response_format json_schema
        self._lock = threading.Lock()
        self._usage = {"calls": 0, "cached_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                       "cached_prompt_tokens": 0, "cached_completion_tokens": 0, "trimmed": 0, "rejected": 0}

    @property
    def capabilities(self) -> Capabilities:
        """What the endpoint takes: given, or from the settings and ``/v1/models`` (asked once, lazily)."""
        if self._capabilities is None:
            s = self._settings or LLMSettings()
            entry = llm_protocol.discover(self._base_url, self.model, self._api_key)
            self._capabilities = llm_protocol.from_entry(entry, context_length=s.context_length, tools=s.tools,
                                                         json_mode=s.json_mode, system_role=s.system_role)
        return self._capabilities

    def reject(self, step: str, text: str) -> None:
        """Count a reply the caller could not use (it then takes its deterministic default)."""
        log.warning("%s: unusable reply from %s, deterministic default kept: %.120r", step, self.model, text)
        with self._lock:
            self._usage["rejected"] += 1

    @property
    def usage(self) -> dict[str, int]:
        """Running totals: HTTP ``calls`` and their tokens; ``cached_calls`` and their (unpaid) tokens; and, once
        non-zero, ``trimmed`` (requests cut to the context window) and ``rejected`` (unusable replies)."""
        with self._lock:
            return {k: v for k, v in self._usage.items() if v or k not in ("trimmed", "rejected")}

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
        if not self.capabilities.tools:
            raise LLMError("function calling is off for this endpoint (LAKERAG_LLM_TOOLS)", self.model)
        response = self._create(messages, max_tokens, tools=tools, temperature=0.0)
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

    def stream(self, messages: list[dict], *, max_tokens: int = 600) -> Any:
        """Text pieces as the endpoint sends them (not cached), the request shaped like ``chat``'s; raises
        ``LLMError`` when the call fails, before or during the stream."""
        import openai

        response = self._create(messages, max_tokens, temperature=0.0, stream=True)
        try:
            for chunk in response:
                if chunk.choices and chunk.choices[0].delta and chunk.choices[0].delta.content:
                    yield chunk.choices[0].delta.content
        except openai.APITimeoutError as exc:
            raise LLMError("timeout", self.model) from exc
        except (openai.OpenAIError, OSError) as exc:
            raise LLMError(type(exc).__name__, self.model) from exc

    def _shape(self, messages: list[dict], max_tokens: int, extra: dict) -> tuple[list[dict], int, dict]:
        caps = self.capabilities
        if not caps.system_role:
            messages = llm_protocol.fold_system(messages)
        if not caps.json_mode:
            extra = {k: v for k, v in extra.items() if k != "response_format"}
        fitted, max_tokens = llm_protocol.fit(messages, max_tokens, caps.context_length)
        if fitted is not messages:
            with self._lock:
                self._usage["trimmed"] += 1
        return fitted, max_tokens, extra

    def _create(self, messages: list[dict], max_tokens: int, **extra: Any) -> Any:
        """One shaped request; a context overflow teaches the window and is retried once, trimmed to it."""
        import openai

        shaped, tokens, extra = self._shape(messages, max_tokens, extra)
        if self._schema_as_object and "response_format" in extra:
            extra["response_format"] = llm_protocol.as_json_object(extra["response_format"])
        for attempt in range(3):
            try:
                return self._openai.chat.completions.create(model=self.model, messages=shaped,
                                                            max_tokens=tokens, **extra)
            except openai.APITimeoutError as exc:
                raise LLMError("timeout", self.model) from exc
            except openai.APIStatusError as exc:
                schema = (extra.get("response_format") or {}).get("type") == "json_schema"
                # llama-cpp-python 0.3 answers response_format json_schema with a validation error as HTTP 500
                if exc.status_code in (400, 422, 500) and schema:  # (every request in flight learns it)
                    log.warning("%s rejected response_format json_schema (HTTP %d); sending the schema as "
                                "json_object from now on", self.model, exc.status_code)
                    self._schema_as_object = True
                    extra["response_format"] = llm_protocol.as_json_object(extra["response_format"])
                    continue
                over = llm_protocol.overflow(str(exc)) if exc.status_code == 400 else None
                if over is None or attempt == 2:
                    raise LLMError(f"HTTP {exc.status_code}", self.model) from exc
                limit, prompt_tokens = over
                chars = sum(len(m.get("content") or "") for m in shaped if isinstance(m.get("content"), str))
                ratio = max(0.5, 0.9 * chars / max(1, prompt_tokens))
                log.warning("%s: prompt of %d tokens over the %d-token window; trimming", self.model,
                            prompt_tokens, limit)
                self._capabilities = replace(self.capabilities, context_length=limit)
                shaped, tokens = llm_protocol.fit(shaped, tokens, limit, chars_per_token=ratio)
                with self._lock:
                    self._usage["trimmed"] += 1
            except openai.APIConnectionError as exc:
                raise LLMError("connection error", self.model) from exc
            except openai.OpenAIError as exc:
                raise LLMError(type(exc).__name__, self.model) from exc
        raise AssertionError("unreachable")

    def _call(self, request: dict[str, Any]) -> LLMResult:
        extra = {"response_format": request["response_format"]} if request["response_format"] else {}
        response = self._create(request["messages"], request["max_tokens"], temperature=request["temperature"],
                                **extra)
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
    return LLMClient(str(llm.base_url), llm.model, api_key(llm), cache_dir, timeout=llm.timeout,
                     max_retries=llm.max_retries, settings=llm)


def api_key(llm: LLMSettings) -> str:
    """The endpoint's key ("not-needed" for local servers that take none)."""
    return llm.api_key.get_secret_value() if llm.api_key is not None else "not-needed"
