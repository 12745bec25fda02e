"""The lakehouse's durable copy in an S3-protocol bucket (``LAKERAG_STORE=s3://bucket/prefix``; docs/adr/0016).

The endpoint, region and credentials come from the standard AWS variables (``AWS_ENDPOINT_URL``,
``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_DEFAULT_REGION``), read by boto3 itself. Objects keep
the paths they have under ``LAKERAG_HOME`` (``<prefix>/tables/chunks.parquet``), one object each, written with a
single PUT so that an object's ETag is the MD5 of its bytes. The published pointer
``<prefix>/snapshots/CURRENT`` is only ever written with a conditional PUT: ``If-Match`` the ETag the writer read,
or ``If-None-Match: *`` when there was none, so of two publishers that read the same pointer one wins and the
other gets ``PublishConflict``. Mirroring the local working copy to and from the bucket: ``lakehouse.mirror``."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from lakehouse.errors import ConfigError, LakeragError
from lakehouse.storage import atomic_path

MANAGED = ("raw", "tables", "cache", "runs", "snapshots")  # the folders under LAKERAG_HOME the bucket holds
POINTER = "snapshots/CURRENT"


class StoreError(LakeragError):
    """The bucket cannot be read or written."""


class PublishConflict(StoreError):
    """Another publisher moved the bucket's pointer since this one read it: this publish did not happen."""


@dataclass(frozen=True)
class Pointer:
    """The bucket's published pointer: its body (``{"id": ...}``) and ETag; both None when there is none."""

    data: dict | None
    etag: str | None


def parse_store(url: str) -> tuple[str, str]:
    """``s3://bucket/some/prefix`` -> ("bucket", "some/prefix"); anything else raises ConfigError."""
    if not url.startswith("s3://") or not url[5:].split("/", 1)[0]:
        raise ConfigError(f"invalid setting LAKERAG_STORE: {url!r} is not s3://bucket[/prefix]")
    bucket, _, prefix = url[5:].partition("/")
    return bucket, prefix.strip("/")


class ObjectStore:
    """One bucket and prefix, through boto3 (imported on first use: most processes never need it)."""

    def __init__(self, url: str, client: Any = None) -> None:
        self.bucket, self.prefix = parse_store(url)
        if client is None:
            import boto3
            from botocore.config import Config

            client = boto3.client("s3", config=Config(retries={"max_attempts": 5, "mode": "standard"}))
        self.client = client

    def __repr__(self) -> str:
        return f"ObjectStore({self.url()!r})"

    def key(self, rel: str) -> str:
        return f"{self.prefix}/{rel}" if self.prefix else rel

    def url(self, rel: str = "") -> str:
        return f"s3://{self.bucket}/{self.key(rel)}".rstrip("/")

    def _error(self, what: str, exc: Exception) -> StoreError:
        return StoreError(f"{self.url()}: {what} failed: {exc}")

    def listing(self, under: Iterable[str] = MANAGED) -> dict[str, tuple[int, str]]:
        """Every object under the given folders: path relative to the prefix -> (size, ETag)."""
        found: dict[str, tuple[int, str]] = {}
        strip = len(self.key(""))
        try:
            pages = self.client.get_paginator("list_objects_v2")
            for folder in under:
                for page in pages.paginate(Bucket=self.bucket, Prefix=self.key(folder.rstrip("/") + "/")):
                    for item in page.get("Contents", []):
                        found[item["Key"][strip:]] = (int(item["Size"]), item["ETag"].strip('"'))
        except Exception as exc:
            raise self._error("listing", exc) from exc
        return found

    def upload(self, path: Path, rel: str) -> str:
        """One object from a local file (a single PUT: its ETag is the file's MD5); returns the ETag."""
        try:
            with open(path, "rb") as body:
                reply = self.client.put_object(Bucket=self.bucket, Key=self.key(rel), Body=body)
        except Exception as exc:
            raise self._error(f"upload of {rel}", exc) from exc
        return reply["ETag"].strip('"')

    def download(self, rel: str, target: Path) -> str:
        """One object into a local file, written atomically; returns its ETag."""
        try:
            reply = self.client.get_object(Bucket=self.bucket, Key=self.key(rel))
            with atomic_path(target) as tmp, open(tmp, "wb") as out:
                for block in reply["Body"].iter_chunks(1 << 20):
                    out.write(block)
        except Exception as exc:
            raise self._error(f"download of {rel}", exc) from exc
        return reply["ETag"].strip('"')

    def delete(self, rels: Iterable[str]) -> int:
        doomed = sorted(set(rels))
        try:
            for start in range(0, len(doomed), 1000):
                batch = [{"Key": self.key(rel)} for rel in doomed[start:start + 1000]]
                self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": batch, "Quiet": True})
        except Exception as exc:
            raise self._error("delete", exc) from exc
        return len(doomed)

    def read_pointer(self) -> Pointer:
        try:
            reply = self.client.get_object(Bucket=self.bucket, Key=self.key(POINTER))
        except self.client.exceptions.NoSuchKey:
            return Pointer(None, None)
        except Exception as exc:
            raise self._error("reading the pointer", exc) from exc
        return Pointer(json.loads(reply["Body"].read()), reply["ETag"].strip('"'))

    def swap_pointer(self, snapshot_id: str, expected: str | None) -> Pointer:
        """Point the bucket at ``snapshot_id`` if the pointer's ETag is still ``expected`` (None: if there is
        no pointer yet); raises PublishConflict when another publisher moved it first."""
        body = {"id": snapshot_id, "published_at": datetime.now(UTC).isoformat(),
                "publisher": secrets.token_hex(8)}  # two publishers of one id still write different ETags
        condition = {"IfMatch": f'"{expected}"'} if expected else {"IfNoneMatch": "*"}
        try:
            reply = self.client.put_object(Bucket=self.bucket, Key=self.key(POINTER),
                                           Body=json.dumps(body).encode(), **condition)
        except Exception as exc:
            code = getattr(exc, "response", {}).get("Error", {}).get("Code", "")
            if code in ("PreconditionFailed", "ConditionalRequestConflict", "NoSuchKey", "412", "409"):
                raise PublishConflict(
                    f"{self.url(POINTER)}: snapshot {snapshot_id} not published: another publisher moved the "
                    f"pointer since this one read it ({code}); the bucket serves the other one. Run again to "
                    "publish on top of it.") from exc
            raise self._error("writing the pointer", exc) from exc
        return Pointer(body, reply["ETag"].strip('"'))


@lru_cache(maxsize=4)
def _store(url: str) -> ObjectStore:
    return ObjectStore(url)


def store_of(settings: Any) -> ObjectStore | None:
    """The bucket of ``settings.store`` (one client per process and URL), or None for the local folder alone."""
    return _store(settings.store) if settings.store else None
