"""The API's settings section, read once. Each field comes from the project settings when they define it,
else from its ``LAKERAG_API_*`` environment variable, else from the default below."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from lakehouse.errors import ConfigError


@dataclass(frozen=True)
class ApiConfig:
    api_host: str = "127.0.0.1"  # interface `lakerag serve` binds
    api_port: int = 8000
    api_workers: int = 1  # uvicorn worker processes (each holds the snapshot in memory)
    api_blas_threads: int = 1  # BLAS threads per API process (requests already run in parallel)
    api_reload_interval: float = 2.0  # seconds between checks of the published snapshot pointer
    api_keys_file: Path | None = None  # YAML/JSON: API keys (or their sha256) -> access groups
    api_keys: str | None = field(default=None, repr=False)  # the same mapping as inline JSON; never logged
    api_trust_gateway: bool = False  # take groups from a gateway header when a request has no key
    api_gateway_header: str = "X-Lakerag-Groups"
    api_min_relevance: float = 0.40  # refuse below this evidence coverage (tuned on the labelled questions)
    api_answer_max_tokens: int = 600
    api_catalog_table: str = "catalog"  # table of the snapshot's serving.duckdb used when dbt provides it

    @classmethod
    def from_settings(cls, settings: Any) -> ApiConfig:
        values: dict[str, Any] = {}
        for f in fields(cls):
            if hasattr(settings, f.name):
                raw = getattr(settings, f.name)
            elif (env := os.environ.get(f"LAKERAG_{f.name.upper()}")) is not None:
                raw = env
            else:
                continue
            values[f.name] = _coerce(f.name, raw, f.default)
        return cls(**values)


def _coerce(name: str, raw: Any, default: Any) -> Any:
    if raw is None:
        return None
    if hasattr(raw, "get_secret_value"):
        raw = raw.get_secret_value()
    try:
        if isinstance(default, bool):
            return raw if isinstance(raw, bool) else str(raw).strip().lower() in ("1", "true", "yes", "on")
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
    except ValueError as exc:
        raise ConfigError(f"LAKERAG_{name.upper()}={raw!r}: {exc}") from exc
    if name == "api_keys_file":
        return Path(raw)
    if isinstance(raw, str) and default is None:
        return raw.strip() or None
    return raw
