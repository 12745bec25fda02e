"""Hot reload under load: a newly published snapshot is picked up without a failed request; a broken one is
refused and the old one keeps serving."""

from __future__ import annotations

import shutil
import threading
import time

from lakehouse.paths import LakePaths
from lakehouse.snapshots import current_id, publish
from tests.fixtures.api import serve, settings_for
from tests.fixtures.corpora import write_corpus

NEW_DOC = """# Política de Bicicletário

## Regras

O bicicletário do hospital funciona das 6h às 22h e cada colaborador pode usar uma vaga por dia.
"""


def _wait(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_reload_under_load_and_refuse_a_broken_snapshot(tmp_path):
    from transforms.pipeline import run_index

    source = write_corpus(tmp_path / "source")
    settings = settings_for(tmp_path / "home", source)
    run_index(settings)
    first = current_id(LakePaths(settings.home))
    results: list[tuple[int, str | None]] = []
    stop = threading.Event()

    with serve(settings, watch=True, interval=0.1) as server:
        def hammer() -> None:
            import httpx

            with httpx.Client(base_url=server.url, timeout=30) as client:
                while not stop.is_set():
                    r = client.post("/v1/query", json={"question": "Quando funciona o bicicletário?",
                                                       "mode": "basic"})
                    results.append((r.status_code, r.json().get("snapshot_id")))

        workers = [threading.Thread(target=hammer) for _ in range(4)]
        for w in workers:
            w.start()
        try:
            _wait(lambda: len(results) > 20)
            (source / "Bicicletário.md").write_text(NEW_DOC, encoding="utf-8")
            run_index(settings)
            second = current_id(LakePaths(settings.home))
            assert second != first
            _wait(lambda: server.client.get("/ready").json()["snapshot_id"] == second)
            _wait(lambda: any(s == second for _, s in results[-4:]))

            # a broken snapshot: published, but its vectors are garbage
            root = LakePaths(settings.home).home / "snapshots"
            broken = "snap_29990101T000000000000Z"
            shutil.copytree(root / second, root / broken)
            (root / broken / "tables" / "vectors.parquet").write_bytes(b"not parquet")
            publish(LakePaths(settings.home), broken)
            _wait(lambda: broken in server.client.get("/ready").json().get("refused", {}))
            time.sleep(0.5)
        finally:
            stop.set()
            for w in workers:
                w.join()
        ready = server.client.get("/ready").json()
        assert ready["ready"] and ready["snapshot_id"] == second
        metrics = server.client.get("/metrics").text
        assert 'lakerag_snapshot_reloads_total{result="failed"} 1' in metrics
        answer = server.client.post("/v1/query", json={"question": "Quando funciona o bicicletário?"}).json()
        assert answer["status"] == "answered" and "6h às 22h" in answer["answer"]

    statuses = {status for status, _ in results}
    served = {snapshot for _, snapshot in results}
    assert statuses == {200}, statuses  # no request dropped or failed across both switches
    assert {first, second} <= served and broken not in served
