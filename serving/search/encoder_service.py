"""Query encoding as one shared service per API process.

Request threads ask for a question's vector; questions that arrive within ``window_ms`` of each other (and
every question that arrived while the previous batch was being encoded) go to the model in one batched call,
made by the service's single encoding thread, off the event loop and off the request threads. Vectors are kept
in an LRU cache keyed by the model id and the whitespace- and Unicode-normalised text, and a question already
being encoded is waited for rather than encoded twice.

The thread rule (the default; ``lakerag serve`` applies it): every API process runs one encoding thread whose
engine uses ``cores // workers`` OpenMP/torch threads, numpy's BLAS uses one thread per process (requests run
in parallel), so ``workers x encoder threads <= cores`` and the processes never fight over the cores. On two
cores: one worker whose encoder uses both cores, batching the questions of every concurrent request. The
engine's OpenMP threads sleep rather than spin at barriers (``OMP_WAIT_POLICY=PASSIVE``, set by
``models.embedding``), so the request threads that share the cores with them do not stall them.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
import unicodedata
from collections import Counter, OrderedDict
from concurrent.futures import Future
from dataclasses import dataclass, field

import numpy as np

from models.embedding import Embedder

log = logging.getLogger(__name__)


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def encoder_threads(workers: int, configured: int = 0, cores: int | None = None) -> int:
    """Engine threads per process: ``configured`` when set, else ``cores // workers``; never so many that
    ``workers x threads`` exceeds the cores (a larger setting is lowered, with a warning)."""
    cores = cores or available_cores()
    fair = max(1, cores // max(1, workers))
    if configured and configured > fair:
        log.warning("%d encoder threads x %d workers would oversubscribe %d cores; using %d",
                    configured, workers, cores, fair)
    return min(configured, fair) if configured else fair


def normalise(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


@dataclass
class _Pending:
    embedder: Embedder
    key: tuple[str, str]
    text: str
    future: Future = field(default_factory=Future)


class EncoderService:
    """Batches, caches and serialises query encoding for every engine of one process."""

    def __init__(self, window_ms: float = 2.0, max_batch: int = 32, cache_size: int = 4096,
                 threads: int | None = None) -> None:
        self.window = window_ms / 1000
        self.max_batch = max_batch
        self.cache_size = cache_size
        self.threads = threads or available_cores()
        self._cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._inflight: dict[tuple[str, str], _Pending] = {}
        self._pending: list[_Pending] = []
        self._cond = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None
        self.batch_sizes: Counter[int] = Counter()
        self.hits = self.misses = 0
        self.encode_seconds = 0.0

    # -- callers -----------------------------------------------------------------------------------------------
    def encode(self, embedder: Embedder, texts: list[str]) -> np.ndarray:
        """Unit query vectors of ``texts`` (one row each), from the cache or from a shared batch; blocks."""
        rows = self.submit(embedder, texts)
        return np.stack([r.result() if isinstance(r, Future) else r for r in rows]) if rows else \
            np.zeros((0, embedder.dim), np.float32)

    def submit(self, embedder: Embedder, texts: list[str]) -> list[np.ndarray | Future]:
        """Each text's vector when cached, else a future of it (queued for the next batch); never blocks. The
        futures are shared by every request asking for the same text: wait on them, never cancel them."""
        rows: list[np.ndarray | Future] = []
        with self._cond:
            for text in texts:
                key = (embedder.model_id, normalise(text))
                found = self._cache.get(key)
                if found is not None:
                    self._cache.move_to_end(key)
                    self.hits += 1
                    rows.append(found)
                    continue
                self.misses += 1
                waiting = self._inflight.get(key)
                if waiting is None:
                    waiting = self._inflight[key] = _Pending(embedder, key, key[1] or text)
                    self._pending.append(waiting)
                rows.append(waiting.future)
            if any(isinstance(r, Future) for r in rows):
                self._ensure_thread()
                self._cond.notify()
        return rows

    def bind(self, embedder: Embedder) -> SharedEmbedder:
        return SharedEmbedder(embedder, self)

    def stats(self) -> dict:
        with self._cond:
            sizes = dict(sorted(self.batch_sizes.items()))
            batches = sum(sizes.values())
            return {"pid": os.getpid(), "threads": self.threads, "window_ms": self.window * 1000,
                    "batches": batches, "encoded": sum(k * v for k, v in sizes.items()), "batch_sizes": sizes,
                    "cache_hits": self.hits, "cache_misses": self.misses, "cached": len(self._cache),
                    "queued": len(self._pending),
                    "encode_ms": round(self.encode_seconds * 1000, 1)}

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=10)

    # -- the encoding thread -----------------------------------------------------------------------------------
    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._closed = False
            self._thread = threading.Thread(target=self._loop, name="lakerag-query-encoder", daemon=True)
            self._thread.start()

    def _limit_threads(self) -> None:
        """The engine's threads for this (the encoding) thread: OpenMP's count is per calling thread."""
        try:
            from threadpoolctl import threadpool_limits

            threadpool_limits(self.threads, user_api="openmp")
        except ImportError:
            pass
        torch = sys.modules.get("torch")  # only when a sentence-transformers model already loaded it
        if torch is not None:
            torch.set_num_threads(self.threads)

    def _take(self) -> list[_Pending] | None:
        with self._cond:
            while not self._pending and not self._closed:
                self._cond.wait()
            if self._closed:
                return None
            deadline = time.monotonic() + self.window
            while len(self._pending) < self.max_batch and (left := deadline - time.monotonic()) > 0:
                self._cond.wait(left)
            embedder = self._pending[0].embedder
            batch = [p for p in self._pending if p.embedder is embedder][: self.max_batch]
            taken = {id(p) for p in batch}
            self._pending = [p for p in self._pending if id(p) not in taken]
            return batch

    def _loop(self) -> None:
        self._limit_threads()
        while (batch := self._take()) is not None:
            started = time.perf_counter()
            try:
                vectors = np.asarray(batch[0].embedder.embed_queries([p.text for p in batch]), dtype=np.float32)
            except Exception as exc:  # every waiting request gets the error; the thread carries on
                with self._cond:
                    for p in batch:
                        self._inflight.pop(p.key, None)
                for p in batch:
                    if not p.future.cancelled():  # cancelled by a caller despite the rule: nobody waits on it
                        p.future.set_exception(exc)
                continue
            with self._cond:
                self.encode_seconds += time.perf_counter() - started
                self.batch_sizes[len(batch)] += 1
                for p, vector in zip(batch, vectors, strict=True):
                    vector.setflags(write=False)
                    self._cache[p.key] = vector
                    self._inflight.pop(p.key, None)
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
            for p, vector in zip(batch, vectors, strict=True):
                if not p.future.cancelled():
                    p.future.set_result(vector)


@dataclass
class SharedEmbedder:
    """An embedder whose query encoding goes through the process's ``EncoderService`` (passages go direct)."""

    inner: Embedder
    service: EncoderService

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.service.encode(self.inner, list(texts))

    def submit(self, texts: list[str]) -> list[np.ndarray | Future]:
        return self.service.submit(self.inner, list(texts))

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_passages(texts)
