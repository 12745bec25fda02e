"""Optional cross-encoder reranking. No reranker weights ship in any package here, so this is a setting
(`LAKERAG_RERANKER_MODEL`, a local folder); a missing model is a configuration error that names the setting."""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from lakehouse.errors import ConfigError
from models.embedding import batch_for, resolve_device


class Reranker(Protocol):
    """A cross-encoder: one relevance score per (query, passage) pair."""

    def predict(self, sentences: Sequence[tuple[str, str]]) -> Sequence[float]: ...


@lru_cache(maxsize=2)
def load_reranker(model: str) -> Reranker:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import CrossEncoder  # deferred: torch and transformers load in seconds

    if not Path(model).exists():
        raise ConfigError(f"LAKERAG_RERANKER_MODEL={model!r}: no such local folder (rerankers load offline only)")
    device = resolve_device("auto")
    try:
        return _Batched(CrossEncoder(model, device=device), batch_for(device))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"LAKERAG_RERANKER_MODEL={model!r} cannot be loaded: {exc}") from exc


class _Batched:
    """A cross-encoder on CUDA when present, scoring pairs in batches sized for its device."""

    def __init__(self, model, batch_size: int) -> None:
        self.model, self.batch_size = model, batch_size

    def predict(self, sentences: Sequence[tuple[str, str]]) -> Sequence[float]:
        return self.model.predict(list(sentences), batch_size=self.batch_size, show_progress_bar=False)
