"""``lakerag query --server URL`` and ``lakerag search --server URL``: ask a running API instead of loading the
index and the models, so a question from the shell costs what the API costs. Only httpx and rich are imported
(no numpy, pyarrow or model code); the JSON is printed as the API sent it, or rendered for a terminal."""

from __future__ import annotations

import json
from typing import Any

from lakehouse.errors import LakeragError


class RemoteError(LakeragError):
    """The server could not be reached or refused the request; the message carries its answer."""


def _post(url: str, path: str, body: dict, api_key: str | None, timeout: float) -> dict:
    import httpx  # deferred: only the remote commands need an HTTP client

    headers = {"x-api-key": api_key} if api_key else {}
    try:
        response = httpx.post(url.rstrip("/") + path, json=body, headers=headers, timeout=timeout)
    except httpx.HTTPError as exc:
        raise RemoteError(f"cannot reach {url}: {exc}") from exc
    if response.status_code != 200:
        try:
            detail = response.json().get("detail", response.text)
        except ValueError:
            detail = response.text
        raise RemoteError(f"{url}{path} answered {response.status_code}: {detail}")
    return response.json()


def query(url: str, question: str, mode: str, top_k: int, api_key: str | None = None,
          timeout: float = 120) -> dict:
    return _post(url, "/v1/query", {"question": question, "mode": mode, "top_k": top_k}, api_key, timeout)


def search(url: str, question: str, method: str, top_k: int, api_key: str | None = None,
           timeout: float = 60) -> dict:
    return _post(url, "/v1/search", {"question": question, "method": method, "top_k": top_k}, api_key, timeout)


def dumps(body: dict) -> str:
    return json.dumps(body, ensure_ascii=False)


def print_answer(body: dict[str, Any]) -> None:
    from rich.console import Console

    console = Console()
    colour = {"answered": "green", "not_found": "yellow", "partial": "magenta"}.get(body["status"], "white")
    console.print(f"[{colour}]{body['status']}[/] · mode {body['mode_used']} · {body['generator']} · "
                  f"snapshot {body['snapshot_id']} · {body.get('timings', {}).get('total_ms', 0):.0f} ms (server)")
    console.print(body["answer"], markup=False, highlight=False)
    for c in body.get("citations", []):
        pages = f"p. {', '.join(map(str, c.get('pages') or []))}" if c.get("pages") else ""
        where = " — ".join(x for x in (c.get("section"), pages) if x)
        console.print(f"  [{c['n']}] {c['title']} ({c['path']}) {where}", markup=False, highlight=False)
    for w in body.get("warnings", []):
        console.print(f"[dim]warning: {w}[/]")


def print_hits(body: dict[str, Any]) -> None:
    from rich.console import Console

    console = Console()
    hits = body.get("hits", [])
    if not hits:
        console.print("no results (nothing readable with this key matched)")
    for rank, hit in enumerate(hits, start=1):
        scores = " ".join(f"{k}={v:.3f}" for k, v in hit.get("scores", {}).items())
        console.print(f"[bold]{rank}. {hit['title']}[/] — {hit.get('section') or ''}  "
                      f"[dim]{hit['path']} p.{hit.get('pages')} {hit['chunk_id']}[/]")
        console.print(f"   [dim]{scores}[/]")
        console.print("   " + hit["text"].split("\n", 1)[-1][:240].replace("\n", " "), markup=False)
    console.print(f"[dim]timings (ms, server): {body.get('timings', {})}[/]")
