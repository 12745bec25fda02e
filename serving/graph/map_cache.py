"""A cache of global search's map step: per (question, snapshot, caller groups, level, mapper) the rated
points, in an in-memory LRU dict and, when a folder is given, as JSON files written atomically."""

from __future__ import annotations

import hashlib
import json
import logging
from collections import OrderedDict
from pathlib import Path
from threading import Lock

from lakehouse.storage import write_json

log = logging.getLogger(__name__)


def map_key(question: str, snapshot_id: str, groups: frozenset[str], level: int, mapper: str) -> str:
    canonical = json.dumps([" ".join(question.split()), snapshot_id, sorted(groups), level, mapper],
                           ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class MapCache:
    def __init__(self, folder: Path | None = None, size: int = 256) -> None:
        self.folder = folder
        self.size = size
        self._memory: OrderedDict[str, list[dict]] = OrderedDict()
        self._lock = Lock()

    def _path(self, key: str) -> Path | None:
        return self.folder / key[:2] / f"{key}.json" if self.folder else None

    def get(self, key: str) -> list[dict] | None:
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                return self._memory[key]
        path = self._path(key)
        if path is None or not path.exists():
            return None
        try:
            points = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            log.warning("ignoring unreadable map cache entry %s", path)
            return None
        self._remember(key, points)
        return points

    def put(self, key: str, points: list[dict]) -> None:
        self._remember(key, points)
        if (path := self._path(key)) is not None:
            write_json(points, path)

    def _remember(self, key: str, points: list[dict]) -> None:
        with self._lock:
            self._memory[key] = points
            self._memory.move_to_end(key)
            while len(self._memory) > self.size:
                self._memory.popitem(last=False)
