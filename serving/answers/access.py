"""Who is calling: API keys mapped to access groups in configuration, or a trusted gateway's header.

Keys come from a YAML or JSON file (``api_keys_file``) and/or a JSON value (``LAKERAG_API_KEYS``), either a
list of entries or a mapping::

    keys:
      - name: analytics-service
        key_sha256: 3f1c...      # sha256 hex of the key (or `key: <plain key>`)
        groups: [juridico, compras]
    # or, as JSON:  {"<key>": ["juridico", "compras"]}

A request presents its key as ``X-API-Key: <key>`` or ``Authorization: Bearer <key>``. No key: the public
groups only. An unknown key is refused (401), not downgraded. With ``api_trust_gateway`` on, a request without
a key takes its groups from the gateway header (comma-separated); the gateway must strip that header from
outside requests. Keys are compared by their sha256 and never logged.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from lakehouse.errors import ConfigError
from serving.answers.errors import Unauthorized
from serving.search.index import PUBLIC

_GROUP = re.compile(r"^[\w.-]{1,64}$")


@dataclass(frozen=True)
class Caller:
    name: str
    groups: frozenset[str]
    via_gateway: bool = False  # groups from the trusted gateway's header, not from a key (never admin)

    @property
    def effective(self) -> frozenset[str]:
        return self.groups | {PUBLIC}


ANONYMOUS = Caller("anonymous", frozenset({PUBLIC}))


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _groups(value: Any, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(g, str) and _GROUP.match(g) for g in value):
        raise ConfigError(f"{where}: groups must be a list of group names (letters, digits, '_', '-', '.')")
    return frozenset(value)


def _entries(data: Any, where: str) -> dict[str, Caller]:
    if isinstance(data, dict) and "keys" in data:
        data = data["keys"]
    out: dict[str, Caller] = {}
    if isinstance(data, dict):
        for i, (key, groups) in enumerate(data.items()):
            out[_digest(str(key))] = Caller(f"key{i + 1}", _groups(groups, f"{where}: key #{i + 1}"))
        return out
    if not isinstance(data, list):
        raise ConfigError(f"{where}: expected a list of keys or a mapping of key to groups")
    for i, entry in enumerate(data):
        label = f"{where}: keys[{i}]"
        if not isinstance(entry, dict) or not ({"key", "key_sha256"} & entry.keys()):
            raise ConfigError(f"{label}: needs 'key' or 'key_sha256', and 'groups'")
        digest = str(entry["key_sha256"]).lower() if "key_sha256" in entry else _digest(str(entry["key"]))
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise ConfigError(f"{label}: key_sha256 must be 64 hex digits")
        out[digest] = Caller(str(entry.get("name") or f"key{i + 1}"), _groups(entry.get("groups"), label))
    return out


class Access:
    def __init__(self, keys: dict[str, Caller] | None = None, trust_gateway: bool = False,
                 gateway_header: str = "x-lakerag-groups") -> None:
        self.keys = keys or {}
        self.trust_gateway = trust_gateway
        self.gateway_header = gateway_header.lower()

    @classmethod
    def from_config(cls, keys_file: Path | None = None, keys: str | None = None, trust_gateway: bool = False,
                    gateway_header: str = "x-lakerag-groups") -> Access:
        """From a keys file and/or inline JSON (``LAKERAG_API_KEYS_FILE``, ``LAKERAG_API_KEYS``)."""
        found: dict[str, Caller] = {}
        if keys_file:
            path = Path(keys_file)
            try:
                text = path.read_text(encoding="utf-8")
                data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
            except (OSError, ValueError, yaml.YAMLError) as exc:
                raise ConfigError(f"{path}: cannot read the API keys file: {exc}") from exc
            found.update(_entries(data, str(path)))
        if keys:
            try:
                data = json.loads(keys) if isinstance(keys, str) else keys
            except ValueError as exc:
                raise ConfigError(f"LAKERAG_API_KEYS is not valid JSON: {exc}") from exc
            found.update(_entries(data, "LAKERAG_API_KEYS"))
        return cls(found, trust_gateway, gateway_header)

    def caller(self, headers: Any) -> Caller:
        """The caller of a request, from its headers (a case-insensitive mapping)."""
        key = headers.get("x-api-key")
        auth = headers.get("authorization") or ""
        if not key and auth.lower().startswith("bearer "):
            key = auth[7:].strip()
        if key:
            found = self.keys.get(_digest(key))
            if found is None:
                raise Unauthorized("unknown API key")
            return found
        if self.trust_gateway and (raw := headers.get(self.gateway_header)):
            groups = [g.strip() for g in raw.split(",") if g.strip()]
            if not all(_GROUP.match(g) for g in groups):
                raise Unauthorized(f"malformed {self.gateway_header} header")
            return Caller("gateway", frozenset(groups), via_gateway=True)
        return ANONYMOUS
