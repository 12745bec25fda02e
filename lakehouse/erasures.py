"""The erasure record: receipts, queued requests and the blocklist, under ``$LAKERAG_HOME/erasures/``.

    receipts.jsonl        one line per erasure or gc: what was removed from where, counts, when, who asked.
                          Append-only, and it holds no erased content: the subject is a keyed hash (HMAC-SHA256
                          with this installation's secret) of its folded form, documents are counted, never named.
    secret.key            that secret: 32 random bytes made at first use, readable by the owner only, never in
                          the repository; without it a receipt cannot be matched against guessed names or CPFs.
    requests/<id>.json    erasures asked for through the API, waiting for the index side (``lakerag erase
                          --pending`` or the maintenance DAG), which deletes each once it is done.
    inflight.json         the plan of the erasure being carried out, written before its first change and
                          removed once its receipt is written: a rerun after a crash carries out the same plan
                          (the tables it was made from are already rewritten). It holds erased content while
                          it exists, like a queued request.
    blocked.json          salted sha256 of the content hashes that were erased ("erased": never ingested
                          again while the source still holds those bytes) or redacted ("redacted": kept as
                          redacted, never landed or extracted again)."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from lakehouse.errors import LakeragError
from lakehouse.paths import LakePaths
from lakehouse.purge import normal
from lakehouse.storage import read_json, write_json

RECEIPTS, REQUESTS, BLOCKED, SECRET = "receipts.jsonl", "requests", "blocked.json", "secret.key"
INFLIGHT = "inflight.json"
Kind = Literal["erased", "redacted"]


def digest(value: str, salt: str = "lakerag-erasure") -> str:
    """What the record keeps instead of an erased value: sha256 of the salt and the folded value."""
    return hashlib.sha256(f"{salt}\x1f{normal(value)}".encode()).hexdigest()


def _secret(paths: LakePaths) -> bytes:
    """This installation's receipt key, created on first use (exclusively: two first users agree on one)."""
    path = paths.erasures / SECRET
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes()
    with os.fdopen(fd, "wb") as handle:
        handle.write(secrets.token_bytes(32))
        handle.flush()
        os.fsync(handle.fileno())
    return path.read_bytes()


def receipt_digest(paths: LakePaths, value: str) -> str:
    """What a receipt keeps instead of an erased subject or document id: HMAC-SHA256 of the folded value under
    the installation's secret, so a list of candidate names or all CPFs cannot be checked against it."""
    return hmac.new(_secret(paths), normal(value).encode(), hashlib.sha256).hexdigest()


def append_receipt(paths: LakePaths, receipt: dict) -> dict:
    """Append one receipt (a JSON object without erased content) and flush it to disk."""
    folder = paths.erasures
    folder.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"at": datetime.now(UTC).isoformat(), **receipt}, ensure_ascii=False, default=str)
    with open(folder / RECEIPTS, "a", encoding="utf-8") as handle:
        handle.write(line + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    return json.loads(line)


def receipts(paths: LakePaths) -> list[dict]:
    path = paths.erasures / RECEIPTS
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def queue_request(paths: LakePaths, kind: Literal["subject", "document"], target: str, requested_by: str) -> dict:
    """Record an erasure for the index side to carry out; returns the request (its id)."""
    request = {"id": "era_" + datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "_" + secrets.token_hex(4),
               "kind": kind, "target": target, "requested_by": requested_by,
               "requested_at": datetime.now(UTC).isoformat()}
    write_json(request, paths.erasures / REQUESTS / f"{request['id']}.json")
    return request


def pending_requests(paths: LakePaths) -> list[dict]:
    folder = paths.erasures / REQUESTS
    return [read_json(p) for p in sorted(folder.glob("era_*.json"))] if folder.exists() else []


def close_request(paths: LakePaths, request_id: str) -> None:
    (paths.erasures / REQUESTS / f"{request_id}.json").unlink(missing_ok=True)


class ErasureInterrupted(LakeragError):
    """An erasure was interrupted: indexing now could ingest again what it had begun to erase."""


def refuse_if_erasing(paths: LakePaths) -> None:
    """Raise ``ErasureInterrupted`` while an interrupted erasure waits to be finished."""
    if (paths.erasures / INFLIGHT).exists():
        raise ErasureInterrupted("an erasure is running or was interrupted before it finished; let it finish, or "
                                 "rerun it (`lakerag erase --pending` carries it out), before indexing again")


def save_inflight(paths: LakePaths, plan: dict) -> None:
    """Record the erasure about to be carried out (before its first change)."""
    write_json(plan, paths.erasures / INFLIGHT)


def inflight(paths: LakePaths) -> dict | None:
    """The erasure a crash interrupted, if any."""
    path = paths.erasures / INFLIGHT
    return read_json(path) if path.exists() else None


def clear_inflight(paths: LakePaths) -> None:
    (paths.erasures / INFLIGHT).unlink(missing_ok=True)


class Blocklist:
    """Content hashes that erasure removed or redacted, kept as salted digests."""

    def __init__(self, paths: LakePaths) -> None:
        self.path: Path = paths.erasures / BLOCKED
        self._entries: dict[str, str] = read_json(self.path) if self.path.exists() else {}

    def kind(self, content_hash: str | None) -> Kind | None:
        found = self._entries.get(digest(content_hash, "lakerag-blocked")) if content_hash else None
        return "erased" if found == "erased" else ("redacted" if found == "redacted" else None)

    def add(self, content_hashes: dict[str, Kind]) -> None:
        for content_hash, kind in content_hashes.items():
            self._entries[digest(content_hash, "lakerag-blocked")] = kind
        write_json(self._entries, self.path)
