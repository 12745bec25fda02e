"""With ``LAKERAG_STORE``: follow the bucket's published pointer into the API's local home.

Every ``LAKERAG_API_STORE_POLL_S`` seconds the follower reads ``snapshots/CURRENT`` in the bucket; when it names
a snapshot the home lacks, the snapshot is downloaded into a read-only local copy (complete or absent: renamed
into place), and only then is the local ``CURRENT`` written. The snapshot holder, which watches the local
pointer, then loads and switches to it as it does without a bucket. Local copies other than the served one and
the one before it are removed."""

from __future__ import annotations

import logging
import shutil
import threading

from lakehouse.mirror import fetch_snapshot
from lakehouse.objectstore import ObjectStore
from lakehouse.paths import LakePaths
from lakehouse.snapshots import current_id
from lakehouse.storage import write_json

log = logging.getLogger(__name__)
KEEP_LOCAL = 2


class BucketFollower:
    def __init__(self, store: ObjectStore, paths: LakePaths) -> None:
        self.store, self.paths = store, paths
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sync(self) -> str | None:
        """Copy the bucket's published snapshot here and point the local CURRENT at it; returns its id."""
        pointer = self.store.read_pointer()
        if pointer.data is None:
            return None
        snapshot_id = pointer.data["id"]
        if current_id(self.paths) != snapshot_id:
            fetch_snapshot(self.store, self.paths, snapshot_id)
            write_json(pointer.data, self.paths.snapshots / "CURRENT")
            log.info("copied snapshot %s from %s", snapshot_id, self.store.url())
            self._forget_old(snapshot_id)
        return snapshot_id

    def sync_logged(self) -> None:
        """``sync``, a failure logged (the local copy keeps serving) instead of raised."""
        try:
            self.sync()
        except Exception:  # never let the follower die: the served snapshot stays
            log.exception("following %s failed; still serving the local copy", self.store.url())

    def _forget_old(self, serving: str) -> None:
        copies = sorted(d.name for d in self.paths.snapshots.glob("snap_*") if d.is_dir())
        for old in [c for c in copies if c != serving][:-(KEEP_LOCAL - 1)]:
            shutil.rmtree(self.paths.snapshots / old, ignore_errors=True)

    def start(self, interval: float) -> None:
        """Follow the pointer every ``interval`` seconds in a daemon thread (after the one ``startup`` made)."""
        def loop() -> None:
            while not self._stop.wait(interval):
                self.sync_logged()

        self._stop.clear()
        self._thread = threading.Thread(target=loop, name="lakerag-bucket-follower", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
