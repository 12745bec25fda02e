"""A local fake of an OpenAI-compatible server, for tests that drive the real ``openai`` client.

    with FakeOpenAI() as fake:            # fake.base_url == "http://127.0.0.1:PORT/v1"
        fake.responder = lambda body: "..."  # request JSON -> answer text
        fake.fail_next(2, 500)            # the next two requests answer HTTP 500
        ...
        fake.requests                     # every request body received, in order

It serves ``POST /v1/chat/completions`` (a JSON completion, or server-sent events when ``stream`` is true) and
``GET /v1/models``. Failures carry ``retry-after-ms`` so the client's retries do not slow tests down.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], str]


def echo_responder(body: dict[str, Any]) -> str:
    """Deterministic answer derived from the last user message."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    content = users[-1].get("content", "") if users else ""
    if not isinstance(content, str):  # content parts
        content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()[:8]
    return f"fake answer {digest}: {' '.join(content.split()[:8])}"


def _tokens(text: str) -> int:
    return max(1, len(text.split()))


class FakeOpenAI:
    """A threaded HTTP server on 127.0.0.1 speaking the chat completions protocol; a context manager."""

    def __init__(self, responder: Responder = echo_responder, model: str = "fake-model") -> None:
        self.responder = responder
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.delay = 0.0  # seconds to sleep before answering (to provoke client timeouts)
        self._failures: list[tuple[int, float]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def fail_next(self, count: int, status: int = 500, retry_after: float = 0.01) -> None:
        """Answer the next ``count`` requests with HTTP ``status`` (``retry_after`` seconds suggested)."""
        with self._lock:
            self._failures.extend([(status, retry_after)] * count)

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _next_failure(self) -> tuple[int, float] | None:
        with self._lock:
            return self._failures.pop(0) if self._failures else None

    def _record(self, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(body)


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/") != "/v1/models":
                return self._json(404, _error("not found", "invalid_request_error"))
            model = {"id": fake.model, "object": "model", "created": 0, "owned_by": "fake"}
            self._json(200, {"object": "list", "data": [model]})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self._json(404, _error("not found", "invalid_request_error"))
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return self._json(400, _error("invalid JSON body", "invalid_request_error"))
            fake._record(body)
            if fake.delay:
                time.sleep(fake.delay)
            failure = fake._next_failure()
            if failure:
                status, retry_after = failure
                headers = {"retry-after-ms": str(int(retry_after * 1000))}
                return self._json(status, _error(f"injected failure {status}", "server_error"), headers)
            content = fake.responder(body)
            model = body.get("model", fake.model)
            prompt = sum(_tokens(str(m.get("content", ""))) for m in body.get("messages", []))
            usage = {"prompt_tokens": prompt, "completion_tokens": _tokens(content),
                     "total_tokens": prompt + _tokens(content)}
            ident, created = f"chatcmpl-fake{len(fake.requests)}", int(time.time())
            if body.get("stream"):
                return self._stream(body, ident, created, model, content, usage)
            self._json(200, {
                "id": ident, "object": "chat.completion", "created": created, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                             "finish_reason": "stop", "logprobs": None}],
                "usage": usage,
            })

        def _stream(
            self, body: dict, ident: str, created: int, model: str, content: str, usage: dict
        ) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            pieces = [content[i : i + 16] for i in range(0, len(content), 16)] or [""]
            deltas = [{"role": "assistant", "content": ""}] + [{"content": p} for p in pieces]
            for i, delta in enumerate(deltas + [{}]):
                last = i == len(deltas)
                chunk = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
                         "choices": [{"index": 0, "delta": delta, "finish_reason": "stop" if last else None}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            if (body.get("stream_options") or {}).get("include_usage"):
                tail = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
                        "choices": [], "usage": usage}
                self.wfile.write(f"data: {json.dumps(tail)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

        def _json(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}
