"""What one OpenAI-compatible endpoint accepts, and requests shaped to fit it; no vendor code.

A real server differs from the protocol's happy path in a few ways that break requests: a context window smaller
than the prompt (HTTP 400 ``context_length_exceeded``), a chat template without a system role, no function
calling, no JSON mode. ``Capabilities`` holds what the settings say (``LAKERAG_LLM_CONTEXT_LENGTH``,
``_TOOLS``, ``_JSON_MODE``, ``_SYSTEM_ROLE``) completed from the endpoint's ``GET /v1/models`` entry for the
model where it says more (vLLM's ``max_model_len``, llama.cpp's ``meta.n_ctx_train``, a ``context_length`` or
``capabilities`` field); ``fit`` trims a request's longest message so the prompt and the answer fit the window.
"""

from __future__ import annotations

import json
import logging
import re
import urllib.request
from dataclasses import dataclass

log = logging.getLogger(__name__)

CHARS_PER_TOKEN = 2.5  # measured: Portuguese text under SmolLM2's tokenizer runs ~2.7 characters a token
_MARGIN = 32  # tokens kept free for the chat template's own markup
_OVERFLOW = re.compile(r"maximum context length is (\d+) tokens.*?(?:requested|passed) (\d+) tokens"
                       r"(?: \((\d+) in the messages)?", re.S | re.I)
TRIMMED = " […]"
_TAIL = 400  # characters kept from the end of a trimmed message


@dataclass(frozen=True)
class Capabilities:
    """What the endpoint's model takes; None where neither the settings nor the server said."""

    context_length: int | None = None
    tools: bool = True
    json_mode: bool = True
    system_role: bool = True


def discover(base_url: str, model: str, api_key: str, timeout: float = 5.0) -> dict:
    """The ``/v1/models`` entry for ``model`` (empty when the server lists none or cannot be asked)."""
    request = urllib.request.Request(base_url.rstrip("/") + "/models",
                                     headers={"Authorization": f"Bearer {api_key}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (configured endpoint)
            listing = json.loads(response.read().decode("utf-8"))
    except (OSError, ValueError) as exc:
        log.info("could not read %s/models (%s); using the settings alone", base_url, exc)
        return {}
    entries = [e for e in (listing.get("data") or []) if isinstance(e, dict)]
    named = [e for e in entries if e.get("id") == model]
    return named[0] if named else (entries[0] if len(entries) == 1 else {})


def from_entry(entry: dict, *, context_length: int | None, tools: str, json_mode: str,
               system_role: bool) -> Capabilities:
    """Settings first ('on'/'off'; 'auto' asks the entry), then the ``/v1/models`` entry, then the defaults."""
    meta = entry.get("meta") if isinstance(entry.get("meta"), dict) else {}
    if context_length is None:
        for value in (entry.get("max_model_len"), entry.get("context_length"), entry.get("context_window"),
                      meta.get("n_ctx"), meta.get("n_ctx_train")):
            if isinstance(value, int) and value > 0:
                context_length = value
                break
    listed = entry.get("capabilities")
    listed = {str(c).lower() for c in listed} if isinstance(listed, list) else None

    def choose(setting: str, names: set[str]) -> bool:
        if setting != "auto":
            return setting == "on"
        return True if listed is None else bool(listed & names)

    return Capabilities(context_length, choose(tools, {"tools", "function_calling", "tool_use"}),
                        choose(json_mode, {"json_mode", "response_format", "json", "structured_outputs"}),
                        system_role)


def overflow(message: str) -> tuple[int, int] | None:
    """(context length, prompt tokens) from a server's ``context_length_exceeded`` message, else None."""
    match = _OVERFLOW.search(message or "")
    if match is None:
        return None
    limit, requested, in_messages = (int(g) if g else None for g in match.groups())
    return limit, in_messages if in_messages is not None else requested


def fold_system(messages: list[dict]) -> list[dict]:
    """The system messages prepended to the first user message (for chat templates without a system role)."""
    system = "\n\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if not system:
        return rest
    for m in rest:
        if m.get("role") == "user":
            m["content"] = f"{system}\n\n{m.get('content') or ''}"
            return rest
    return [{"role": "user", "content": system}, *rest]


def fit(messages: list[dict], max_tokens: int, context_length: int | None,
        chars_per_token: float = CHARS_PER_TOKEN) -> tuple[list[dict], int]:
    """``messages`` with the longest text cut in the middle (its start and last ``_TAIL`` characters kept, ``TRIMMED``
    between) until the estimated prompt
    leaves ``max_tokens`` for the answer; the answer budget is lowered to half the window when it alone exceeds
    that. Returns (messages, max_tokens); the input is unchanged when it fits."""
    if not context_length:
        return messages, max_tokens
    max_tokens = max(1, min(max_tokens, context_length // 2))
    budget = int((context_length - max_tokens - _MARGIN) * chars_per_token)
    texts = [m.get("content") if isinstance(m.get("content"), str) else "" for m in messages]
    excess = sum(len(t) for t in texts) - budget
    if excess <= 0:
        return messages, max_tokens
    out = [dict(m) for m in messages]
    while excess > 0:
        i = max(range(len(texts)), key=lambda k: len(texts[k]))
        text = texts[i]
        keep = max(0, len(text) - excess - len(TRIMMED) - 1)
        tail = min(_TAIL, keep // 3)  # the end stays too: prompts put the question last
        cut = text[:keep - tail].rstrip() + TRIMMED + (f"\n{text[-tail:].lstrip()}" if tail else "")
        if len(cut) >= len(text):
            break  # nothing left to cut
        texts[i] = cut
        out[i]["content"] = cut
        excess = sum(len(t) for t in texts) - budget
    return out, max_tokens


def schema_format(name: str, schema: dict) -> dict:
    """The OpenAI ``response_format`` asking for JSON that follows ``schema`` (OpenAI, vLLM, Ollama)."""
    return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}


def as_json_object(response_format: dict) -> dict:
    """A ``json_schema`` response format as ``json_object`` with the schema beside it: the form llama-cpp-python
    takes (it answers 422 to ``json_schema``) and turns into a grammar; other formats unchanged."""
    if response_format.get("type") != "json_schema":
        return response_format
    return {"type": "json_object", "schema": (response_format.get("json_schema") or {}).get("schema") or {}}


def json_object(text: str) -> dict | None:
    """The JSON object in a model's reply: bare, fenced in ``` or surrounded by prose; None when there is none."""
    text = (text or "").strip()
    fence = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    if fence:
        text = fence.group(1).strip()
    start = text.find("{")
    if start < 0:
        return None
    decoder = json.JSONDecoder()
    while start >= 0:
        try:
            data, _ = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        return data if isinstance(data, dict) else None
    return None
