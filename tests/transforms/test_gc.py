"""gc's snapshot rule: superseded snapshots go once past retention; the published one and a candidate frozen
after it (waiting for the gate) stay."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from lakehouse.erasures import receipts
from lakehouse.paths import LakePaths
from lakehouse.settings import Settings
from lakehouse.snapshots import create_snapshot, current_id, list_snapshots, publish
from lakehouse.storage import write_json
from transforms.purge import collect_garbage


def test_gc_keeps_the_published_snapshot_and_a_pending_candidate(tmp_path):
    paths = LakePaths(tmp_path / "home").ensure()
    for name in ("chunks", "vectors"):
        pq.write_table(pa.table({"chunk_id": pa.array([], pa.string())}), paths.table(name))
    (paths.tables / "sparse-r1").mkdir()
    write_json({"dir": "sparse-r1", "run_id": "r1"}, paths.tables / "sparse.json")
    old = create_snapshot(paths, "r1")
    publish(paths, old)
    published = create_snapshot(paths, "r2")
    publish(paths, published)
    candidate = create_snapshot(paths, "r3")

    settings = Settings(home=paths.home, source=tmp_path, retention_days=30)
    assert collect_garbage(settings)["removed"] == {}
    receipt = collect_garbage(settings.replace(retention_days=0))
    assert receipt["removed"] == {"snapshots": 1}
    assert [s["id"] for s in list_snapshots(paths)] == [published, candidate] and current_id(paths) == published
    assert [r["action"] for r in receipts(paths)] == ["gc", "gc"]
