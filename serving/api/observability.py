"""Per-request observability: a request id, one structured log line, and Prometheus metrics.

``ObservedApp`` wraps every HTTP request (routed or not, streamed to its end). Handlers leave ``mode``,
``answer_status`` and ``snapshot_id`` in the scope's state; the log line carries them with the method, route,
status and latency. The caller's key is never read here; the caller's name (from the key file) is logged.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import uuid
from collections import defaultdict

from litestar import Litestar

log = logging.getLogger("lakerag.api")

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_REQUEST_ID = re.compile(r"^[\w.-]{1,64}$")


class Metrics:
    """Counters and latency histograms, rendered in the Prometheus text format (version 0.0.4)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, str, str], int] = defaultdict(int)
        self.latency: dict[str, list[float]] = {}
        self.latency_sum: dict[str, float] = defaultdict(float)
        self.latency_count: dict[str, int] = defaultdict(int)
        self.answers: dict[tuple[str, str], int] = defaultdict(int)

    def observe(self, method: str, route: str, status: int, seconds: float, mode: str | None,
                answer_status: str | None) -> None:
        with self._lock:
            self.requests[(method, route, str(status))] += 1
            counts = self.latency.setdefault(route, [0] * len(BUCKETS))
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    counts[i] += 1
            self.latency_sum[route] += seconds
            self.latency_count[route] += 1
            if answer_status:
                self.answers[(mode or "", answer_status)] += 1

    def render(self, snapshot_id: str | None, ready: bool, reloads: dict[str, int]) -> str:
        lines = ["# HELP lakerag_requests_total HTTP requests by method, route and status.",
                 "# TYPE lakerag_requests_total counter"]
        with self._lock:
            for (method, route, status), n in sorted(self.requests.items()):
                lines.append(f'lakerag_requests_total{{method="{method}",route="{_esc(route)}",status="{status}"}} {n}')
            lines += ["# HELP lakerag_request_duration_seconds Request latency by route.",
                      "# TYPE lakerag_request_duration_seconds histogram"]
            for route, counts in sorted(self.latency.items()):
                label = _esc(route)
                for bound, n in zip(BUCKETS, counts, strict=True):
                    lines.append(f'lakerag_request_duration_seconds_bucket{{route="{label}",le="{bound}"}} {n}')
                lines.append(f'lakerag_request_duration_seconds_bucket{{route="{label}",le="+Inf"}} '
                             f"{self.latency_count[route]}")
                lines.append(f'lakerag_request_duration_seconds_sum{{route="{label}"}} {self.latency_sum[route]:.6f}')
                lines.append(f'lakerag_request_duration_seconds_count{{route="{label}"}} {self.latency_count[route]}')
            lines += ["# HELP lakerag_answers_total Answers by mode used and status.",
                      "# TYPE lakerag_answers_total counter"]
            for (mode, status), n in sorted(self.answers.items()):
                lines.append(f'lakerag_answers_total{{mode="{_esc(mode)}",status="{status}"}} {n}')
        lines += ["# HELP lakerag_snapshot_info The snapshot in service.", "# TYPE lakerag_snapshot_info gauge"]
        if snapshot_id:
            lines.append(f'lakerag_snapshot_info{{snapshot_id="{_esc(snapshot_id)}"}} 1')
        lines += ["# HELP lakerag_ready 1 when a snapshot is loaded.", "# TYPE lakerag_ready gauge",
                  f"lakerag_ready {int(ready)}",
                  "# HELP lakerag_snapshot_reloads_total Snapshot loads by result.",
                  "# TYPE lakerag_snapshot_reloads_total counter"]
        lines += [f'lakerag_snapshot_reloads_total{{result="{k}"}} {v}' for k, v in sorted(reloads.items())]
        return "\n".join(lines) + "\n"


def _esc(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class ObservedApp(Litestar):
    """Litestar with a request id, one log line and metrics for every HTTP request."""

    async def __call__(self, scope, receive, send) -> None:  # type: ignore[override]
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        started = time.perf_counter()
        headers = dict(scope.get("headers") or [])
        given = headers.get(b"x-request-id", b"").decode("latin-1")
        request_id = given if _REQUEST_ID.match(given) else uuid.uuid4().hex[:16]
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        status = {"code": 500}

        async def send_wrapper(message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await super().__call__(scope, receive, send_wrapper)
        finally:
            seconds = time.perf_counter() - started
            route = scope.get("path_template") or "unmatched"
            self.state.metrics.observe(scope["method"], route, status["code"], seconds, state.get("mode"),
                                       state.get("answer_status"))
            record = {"request_id": request_id, "method": scope["method"], "route": route,
                      "status": status["code"], "latency_ms": round(seconds * 1000, 2), "mode": state.get("mode"),
                      "answer_status": state.get("answer_status"), "snapshot_id": state.get("snapshot_id"),
                      "caller": state.get("caller"), "grades": state.get("grades")}
            log.info("%s", json.dumps({k: v for k, v in record.items() if v is not None}, ensure_ascii=False))
