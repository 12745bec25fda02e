"""Sentence-level similarity of the question to the units of the retrieved chunks, through the snapshot's
multilingual encoder (e5-small: the question as a ``query:``, each unit, read after its title, as a
``passage:``), so that a colloquial, reworded or English question meets the units a formal Portuguese one
would.

Only the units of the first ``TOP_CHUNKS`` retrieved chunks are encoded (at most ``UNITS_PER_CHUNK`` each, in
one batch per request); the other chunks keep the engine's chunk vector (``dense``). Unit vectors are cached in
memory by the hash of the encoded text and the model, so chunks that come back cost nothing.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from models.embedding import Embedder
from serving.answers.sentences import split_units
from serving.answers.types import EvidenceItem

__all__ = ["BASE", "TOP_CHUNKS", "UNITS_PER_CHUNK", "level", "median_cosine", "unit_similarities"]

log = logging.getLogger(__name__)

TOP_CHUNKS = 5
UNITS_PER_CHUNK = 12
CACHE_SIZE = 50_000
# e5 scores unrelated texts near 0.73 (docs: ENVIRONMENT.md): a similarity is read as its height above this
BASE = 0.7
# the encoder BASE and grading's WEIGHTS were fitted with; with another, grading uses its LEXICAL_WEIGHTS
FITTED = ("multilingual-e5-small-q4-",)
_MIN_WORDS = 3  # a heading-like fragment ("6.1", "Anexo I") says nothing to compare

_cache: OrderedDict[tuple[str, bytes], np.ndarray] = OrderedDict()
_lock = threading.Lock()


def level(cosine: float) -> float:
    """A cosine as its share of the way from ``BASE`` to 1 (0 below ``BASE``)."""
    return max(0.0, (cosine - BASE) / (1 - BASE))


def _key(model: str, text: str) -> tuple[str, bytes]:
    return model, hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def _encoded(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """Passage vectors of ``texts``, from the cache where it holds them, the rest in one batch."""
    keys = [_key(embedder.model_id, t) for t in texts]
    with _lock:
        found = {k: _cache[k] for k in keys if k in _cache}
        for k in found:
            _cache.move_to_end(k)
    todo = list(dict.fromkeys(k for k in keys if k not in found))
    if todo:
        text_of = dict(zip(keys, texts, strict=True))
        vectors = embedder.embed_passages([text_of[k] for k in todo])
        with _lock:
            for k, v in zip(todo, vectors, strict=True):
                found[k] = _cache[k] = np.asarray(v, dtype=np.float32)
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return np.stack([found[k] for k in keys]) if keys else np.zeros((0, 0), dtype=np.float32)


def unit_similarities(embedder: Embedder | None, vector: np.ndarray | None,
                      items: Sequence[EvidenceItem]) -> dict[str, dict[str, float]]:
    """Chunk id -> {unit text -> cosine to the question} for the first ``TOP_CHUNKS`` chunk items; empty
    without an encoder or a question vector, or with an encoder the feature was not fitted for (``FITTED``)."""
    chunks = [i for i in items if i.kind == "chunk"][:TOP_CHUNKS]
    if embedder is None or vector is None or not chunks or not embedder.model_id.startswith(FITTED):
        return {}
    owners: list[tuple[str, str]] = []
    texts: list[str] = []
    for item in chunks:
        units = [u for u in split_units(item.text) if len(u.split()) >= _MIN_WORDS][:UNITS_PER_CHUNK]
        for u in units:
            owners.append((item.id, u))
            texts.append(f"{item.title or ''}: {u}" if item.title else u)
    if not texts:
        return {}
    try:
        vectors = _encoded(embedder, texts)
    except Exception:  # an encoder that fails leaves the lexical grade as it was
        log.exception("unit encoding failed; grading without sentence similarity")
        return {}
    cosines = vectors @ np.asarray(vector, dtype=np.float32)
    out: dict[str, dict[str, float]] = {}
    for (chunk, unit), c in zip(owners, cosines, strict=True):
        out.setdefault(chunk, {})[unit] = float(c)
    return out


def median_cosine(sims: dict[str, dict[str, float]]) -> float | None:
    """The median cosine of every unit encoded for the question (None when none was)."""
    values = [c for units in sims.values() for c in units.values()]
    return float(np.median(values)) if values else None
