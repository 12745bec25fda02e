"""Permission and filter masks, computed once per distinct (group set, filters) and kept with the index.

A mask depends only on the snapshot's rows and on the request's effective groups and filters, and an index
belongs to one snapshot: the cache lives on the ``SearchIndex``, so a new snapshot (a new index) starts empty
and an old one's masks go with it. Cached arrays are read-only, so no request can change another's mask.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Visible:
    """Rows a request may rank: the boolean mask, its row numbers and the hidden rows' (both ascending), and
    whether it is every row."""

    mask: np.ndarray
    rows: np.ndarray
    hidden: np.ndarray
    everything: bool

    @classmethod
    def of(cls, mask: np.ndarray) -> Visible:
        mask = np.asarray(mask, dtype=bool)
        rows = np.flatnonzero(mask).astype(np.int64)
        hidden = np.flatnonzero(~mask).astype(np.int64)
        for array in (mask, rows, hidden):
            array.setflags(write=False)
        return cls(mask, rows, hidden, rows.size == mask.size)


class MaskCache:
    """A small thread-safe LRU of ``Visible`` by key; ``hits``/``misses`` are kept for the benchmarks."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, Visible] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: Hashable, build: Callable[[], np.ndarray]) -> Visible:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return found
        visible = Visible.of(build())  # built outside the lock: two racing builders produce equal masks
        with self._lock:
            self.misses += 1
            self._items[key] = visible
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return visible

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
