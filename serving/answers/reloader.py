"""The engine in service, and the watcher that switches to a newly published snapshot.

A refresh reads the CURRENT pointer; when it names another snapshot, the new engine is loaded beside the old
one, then swapped in with one assignment. Requests hold the engine they started with, so none is dropped. A
snapshot that fails to load is refused: the old engine stays, the failure is counted and logged, and that id
is not retried until the pointer moves again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from lakehouse.snapshots import current_id
from serving.answers.engine import Engine, load_engine
from serving.answers.errors import NotReady

log = logging.getLogger(__name__)


class SnapshotHolder:
    def __init__(self, settings: Settings, loader: Callable[[str], Engine] | None = None,
                 catalog_table: str = "catalog") -> None:
        self.settings = settings
        self.paths = LakePaths(settings.home)
        self._loader = loader or (lambda snapshot_id: load_engine(settings, snapshot_id, self.generator,
                                                                  catalog_table, self.encoder))
        self.generator = None  # set by the service before the first refresh
        self.encoder = None  # the process's shared query encoder (set by the API before the first refresh)
        self._engine: Engine | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.failed: dict[str, str] = {}  # snapshot id -> reason, for ids refused
        self.reloads = {"ok": 0, "failed": 0}

    @property
    def engine(self) -> Engine | None:
        return self._engine

    def require(self) -> Engine:
        engine = self._engine
        if engine is None:
            reason = "; ".join(f"{k}: {v}" for k, v in self.failed.items()) or "no snapshot published yet"
            raise NotReady(f"no snapshot loaded ({reason})")
        return engine

    def refresh(self) -> bool:
        """Load the published snapshot if it changed; True when a new engine was swapped in."""
        with self._lock:
            target = current_id(self.paths)
            loaded = self._engine.snapshot_id if self._engine else None
            if target is None or target == loaded or target in self.failed:
                return False
            try:
                engine = self._loader(target)
            except Exception as exc:  # any failure refuses the snapshot; the old engine keeps serving
                self.failed[target] = f"{type(exc).__name__}: {exc}"
                self.reloads["failed"] += 1
                log.error("snapshot %s refused, still serving %s: %s", target, loaded, exc)
                return False
            self._engine = engine
            self.reloads["ok"] += 1
            log.info("serving snapshot %s (was %s)", target, loaded)
            return True

    def start(self, interval: float) -> None:
        """Watch the pointer every ``interval`` seconds in a daemon thread (the first load happens at once)."""
        if self._thread is not None:
            return

        def loop() -> None:
            while not self._stop.is_set():
                try:
                    self.refresh()
                except Exception:  # never let the watcher die
                    log.exception("snapshot watcher failed")
                self._stop.wait(interval)

        self._stop.clear()
        self._thread = threading.Thread(target=loop, name="lakerag-snapshot-watcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
