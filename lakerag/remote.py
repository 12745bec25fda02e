"""``lakerag query --server URL`` and ``lakerag search --server URL``: ask a running API instead of loading the
index and the models, so a question from the shell costs what the API costs. Only the standard library is
imported (``urllib``: importing httpx and rich alone took longer than the answer); the JSON is printed as the
API sent it, or as plain text."""

from __future__ import annotations

import json
import os
from typing import Any

from lakehouse.errors import LakeragError

URL_SETTING = "LAKERAG_API_URL"  # lakehouse.settings.ApiSettings.url, read here without building the settings


class RemoteError(LakeragError):
    """The server could not be reached or refused the request; the message carries its answer."""


def configured_url() -> str | None:
    """``LAKERAG_API_URL`` as ``Settings().api.url`` reads it (the name in any case), without importing pydantic
    and building every section: that alone cost ``lakerag query --server`` a third of a second."""
    return next((value for name, value in os.environ.items() if name.upper() == URL_SETTING), None) or None


def _post(url: str, path: str, body: dict, api_key: str | None, timeout: float) -> dict:
    import urllib.error
    import urllib.request

    headers = {"content-type": "application/json", **({"x-api-key": api_key} if api_key else {})}
    request = urllib.request.Request(url.rstrip("/") + path, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        text = exc.read().decode("utf-8", "replace")
        try:
            detail = json.loads(text).get("detail", text)
        except ValueError:
            detail = text
        raise RemoteError(f"{url}{path} answered {exc.code}: {detail}") from exc
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise RemoteError(f"cannot reach {url}: {exc}") from exc


def query(url: str, question: str, mode: str, top_k: int, api_key: str | None = None,
          timeout: float = 120, conversation_id: str | None = None) -> dict:
    body = {"question": question, "mode": mode, "top_k": top_k}
    if conversation_id:
        body["conversation_id"] = conversation_id
    return _post(url, "/v1/query", body, api_key, timeout)


def conversation(url: str, questions: list[str], mode: str, top_k: int, api_key: str | None = None,
                 conversation_id: str | None = None) -> dict:
    """Each question in turn, each continuing the conversation of the one before (the first continues
    ``conversation_id`` when given); the last answer."""
    body: dict = {}
    for question in questions:
        body = query(url, question, mode, top_k, api_key, conversation_id=conversation_id)
        conversation_id = body.get("conversation_id") or conversation_id
    return body


def search(url: str, question: str, method: str, top_k: int, api_key: str | None = None,
           timeout: float = 60) -> dict:
    return _post(url, "/v1/search", {"question": question, "method": method, "top_k": top_k}, api_key, timeout)


def dumps(body: dict) -> str:
    return json.dumps(body, ensure_ascii=False)


def print_answer(body: dict[str, Any], server: bool = True) -> None:
    """An answer as plain, whole lines (the API's JSON, or an in-process answer converted to it)."""
    print(f"{body['status']} · mode {body['mode_used']} · {body['generator']} · snapshot {body['snapshot_id']} · "
          f"{body.get('timings', {}).get('total_ms', 0):.0f} ms{' (server)' if server else ''}")
    print(body["answer"])
    for c in body.get("citations", []):
        pages = f"p. {', '.join(map(str, c.get('pages') or []))}" if c.get("pages") else ""
        where = " — ".join(x for x in (c.get("section"), pages) if x)
        print(f"  [{c['n']}] {c['title']} ({c['path']}) {where}")
    for s in body.get("suggestions", []):
        owners = ", ".join(x for x in (s.get("department"), s.get("responsible")) if x)
        print(f"  → {s['title']} ({owners})")
    for w in body.get("warnings", []):
        print(f"warning: {w}")
    if server and body.get("rewritten_question"):
        print(f"searched as: {body['rewritten_question']}")
    if server and body.get("conversation_id"):  # an in-process conversation ends with the command
        print(f"follow up with: --conversation-id {body['conversation_id']}")


def print_hits(body: dict[str, Any]) -> None:
    hits = body.get("hits", [])
    if not hits:
        print("no results (nothing readable with this key matched)")
    for rank, hit in enumerate(hits, start=1):
        scores = " ".join(f"{k}={v:.3f}" for k, v in hit.get("scores", {}).items())
        print(f"{rank}. {hit['title']} — {hit.get('section') or ''}  {hit['path']} p.{hit.get('pages')} "
              f"{hit['chunk_id']}")
        print(f"   {scores}")
        print("   " + hit["text"].split("\n", 1)[-1][:240].replace("\n", " "))
    print(f"timings (ms, server): {body.get('timings', {})}")
