"""The lakehouse on an S3-protocol bucket (LAKERAG_STORE), against a real server the tests start: moto in server
mode on 127.0.0.1 (tests/fixtures/s3_server.py). The sample corpus through the bucket gives the same snapshot
tables as through the local folder; two processes racing to publish never both win; a publish killed between its
snapshot objects and the pointer leaves the previous snapshot served; gc and erase reach the bucket."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakehouse.mirror import pull
from lakehouse.objectstore import POINTER, ObjectStore
from lakehouse.paths import LakePaths
from lakehouse.purge import Matcher
from lakehouse.settings import Settings
from lakehouse.snapshots import current_id, snapshot_tables
from lakehouse.sweep import mentioning_files
from tests.fixtures import s3_server
from tests.fixtures.corpora import write_corpus
from tests.fixtures.paths import REPO

pytestmark = pytest.mark.integration

_IDS = re.compile(r"(run_[0-9A-Za-z_]+|snap_\d{8}T\d+Z)")
_VOLATILE = {"first_seen_run", "last_seen_run", "run_id", "extract_seconds", "seconds", "started_at", "finished_at",
             "created_at", "published_at", "stage_seconds", "snapshot_id", "source_run_ids", "frozen_at"}


@pytest.fixture(scope="session")
def s3(tmp_path_factory) -> str:
    """moto's S3 server for the session; the AWS variables point boto3 at it. Stopped by its PID."""
    endpoint, proc = s3_server.start(tmp_path_factory.mktemp("moto") / "moto.log")
    saved = {k: os.environ.get(k) for k in s3_server.environment(endpoint)}
    os.environ.update(s3_server.environment(endpoint))
    try:
        yield endpoint
    finally:
        s3_server.stop(proc)
        for key, value in saved.items():
            os.environ.pop(key) if value is None else os.environ.__setitem__(key, value)


def _bucket(endpoint: str, name: str) -> str:
    s3_server.make_bucket(endpoint, name)
    return f"s3://{name}/lake"


def _rows(tables: Path) -> dict[str, list]:
    """Every table of a snapshot by its path (run ids out of the names), rows sorted, volatile columns left out."""
    found = {}
    for part in sorted(tables.rglob("*.parquet")):
        table = pq.read_table(part)
        table = table.select([c for c in table.column_names if c not in _VOLATILE])
        rows = [{k: _IDS.sub("<id>", v) if isinstance(v, str) else v for k, v in r.items()} for r in table.to_pylist()]
        found[_IDS.sub("<id>", part.relative_to(tables).as_posix())] = sorted(map(repr, rows))
    return found


@pytest.fixture(scope="module")
def indexed(s3, tmp_path_factory) -> dict:
    """The sample corpus indexed once in a local folder and once through a bucket."""
    from transforms.pipeline import run_index

    root = tmp_path_factory.mktemp("store")
    store = _bucket(s3, "lakerag-sample")
    local = Settings(home=root / "local", ocr=False)
    remote = Settings(home=root / "worker", ocr=False, store=store)
    run_index(local, progress=lambda *_: None)
    record = run_index(remote, progress=lambda *_: None)
    return {"root": root, "local": local, "remote": remote, "store": ObjectStore(store),
            "snapshot_id": record.snapshot_id}


def test_the_bucket_serves_the_same_snapshot_tables_as_the_local_folder(indexed) -> None:
    store: ObjectStore = indexed["store"]
    assert store.read_pointer().data["id"] == indexed["snapshot_id"]
    fresh = LakePaths(indexed["root"] / "fresh")  # another machine: nothing but the bucket
    pull(store, fresh)
    assert current_id(fresh) == indexed["snapshot_id"]
    through_bucket = _rows(snapshot_tables(fresh))
    assert through_bucket == _rows(snapshot_tables(LakePaths(indexed["local"].home)))
    assert "chunks.parquet" in through_bucket and len(through_bucket["chunks.parquet"]) > 100


def test_the_api_copies_the_published_snapshot_read_only_and_switches_when_the_pointer_moves(indexed) -> None:
    from lakehouse.snapshots import create_snapshot, publish
    from serving.api.bucket import BucketFollower
    from serving.search.service import search_home

    store: ObjectStore = indexed["store"]
    api = Settings(home=indexed["root"] / "api", store=indexed["remote"].store)
    follower = BucketFollower(store, LakePaths(api.home))
    first = follower.sync()
    tables = snapshot_tables(LakePaths(api.home))
    assert first == store.read_pointer().data["id"]
    assert all(p.stat().st_mode & 0o222 == 0 for p in tables.rglob("*") if p.is_file())  # read-only
    hits, _, _ = search_home(api, "reembolso de despesas de viagem", set(), 3, "bm25")
    assert hits
    worker = LakePaths(indexed["remote"].home)
    newer = create_snapshot(worker, "run_api_test")
    publish(worker, newer, keep=5, store=store)
    assert current_id(LakePaths(api.home)) == first  # not yet: the follower has not polled
    assert follower.sync() == newer
    assert current_id(LakePaths(api.home)) == newer and snapshot_tables(LakePaths(api.home)).exists()


def test_two_processes_racing_to_publish_never_both_win(s3, tmp_path) -> None:
    from tests.fixtures.publish_race import race

    store = _bucket(s3, "lakerag-race")
    rows = race(tmp_path, {**s3_server.environment(s3), "LAKERAG_STORE": store}, rounds=8)
    for round_ in range(8):
        pair = [r for r in rows if r["round"] == round_]
        winners = [r for r in pair if r["won"]]
        assert len(winners) == 1, pair
        loser = next(r for r in pair if not r["won"])
        assert f"{store}/{POINTER}" in loser["error"] and "another publisher" in loser["error"]
        assert loser["local_current"] != loser["snapshot_id"]  # its CURRENT claims no publish the bucket refused
        assert winners[0]["local_current"] == winners[0]["snapshot_id"]
    assert ObjectStore(store).read_pointer().data["id"] == winners[0]["snapshot_id"]


_KILL_AT_POINTER = """
import os, signal, sys
from lakehouse.objectstore import ObjectStore
ObjectStore.swap_pointer = lambda self, *a, **k: os.kill(os.getpid(), signal.SIGKILL)
from lakerag.cli import main
sys.exit(main(["index", "--quiet"]))
"""


def test_a_publish_killed_between_snapshot_and_pointer_leaves_the_previous_snapshot_served(indexed) -> None:
    from serving.api.bucket import BucketFollower
    from transforms.pipeline import run_index

    store: ObjectStore = indexed["store"]
    settings = indexed["remote"]
    served = store.read_pointer().data["id"]
    env = {**os.environ, "LAKERAG_HOME": str(settings.home), "LAKERAG_STORE": settings.store, "LAKERAG_OCR": "false"}
    killed = subprocess.run([sys.executable, "-c", _KILL_AT_POINTER], cwd=REPO, env=env, capture_output=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()[-2000:]
    frozen = {rel.split("/")[1] for rel in store.listing(["snapshots"])}
    assert len(frozen - {served}) >= 1  # the killed run's snapshot objects reached the bucket ...
    assert store.read_pointer().data["id"] == served  # ... but the pointer did not move
    assert current_id(LakePaths(settings.home)) == served
    api = LakePaths(indexed["root"] / "api-after-kill")
    assert BucketFollower(store, api).sync() == served
    record = run_index(settings, progress=lambda *_: None)  # a rerun converges
    assert store.read_pointer().data["id"] == record.snapshot_id != served
    assert BucketFollower(store, api).sync() == record.snapshot_id
    rerun, local = _rows(snapshot_tables(api)), _rows(snapshot_tables(LakePaths(indexed["local"].home)))
    assert rerun.pop("runs.parquet") != local.pop("runs.parquet")  # one run more: the rerun changed nothing
    assert rerun == local


def test_gc_and_erase_remove_from_the_bucket(s3, tmp_path) -> None:
    from transforms.pipeline import run_index
    from transforms.purge import collect_garbage, erase, plan_document

    store = ObjectStore(_bucket(s3, "lakerag-purge"))
    source = write_corpus(tmp_path / "source")
    settings = Settings(home=tmp_path / "home", source=source, store=store.url(), ocr=False, snapshot_keep=1)
    run_index(settings, progress=lambda *_: None)
    documents = {d["path"]: d for d in pq.read_table(LakePaths(settings.home).table("documents")).to_pylist()}
    retired = documents["Contratos/CT-2024-0178.md"]
    erased = documents["Políticas/Política de Viagens.md"]
    assert f"raw/{retired['content_hash'][:2]}/{retired['content_hash']}" in store.listing(["raw"])
    (source / retired["path"]).unlink()
    run_index(settings, progress=lambda *_: None)
    before = set(store.listing())

    collect_garbage(settings.replace(retention_days=0), requested_by="test")
    after = set(store.listing())
    gone = before - after
    assert f"raw/{retired['content_hash'][:2]}/{retired['content_hash']}" in gone
    assert all(not rel.startswith(f"snapshots/{store.read_pointer().data['id']}/") for rel in gone)

    text = Matcher(["A prestação de contas deve ocorrer em até 10 dias úteis"])
    fresh = LakePaths(tmp_path / "fresh")  # what another machine gets from the bucket
    pull(store, fresh)
    assert mentioning_files(fresh.home, text)
    assert any(erased["content_hash"] in rel for rel in store.listing())

    erase(settings, plan_document(settings, erased["document_id"]), "test")
    assert not any(erased["content_hash"] in rel for rel in store.listing())  # its raw file and cached parts
    pull(store, fresh)
    assert mentioning_files(fresh.home, text) == []  # no table, cache or snapshot in the bucket holds it
    served = snapshot_tables(fresh)
    assert erased["document_id"] not in pq.read_table(served / "documents.parquet")["document_id"].to_pylist()


def test_a_push_never_reverts_or_resurrects_what_another_worker_committed_since_its_pull(s3, tmp_path) -> None:
    """Two workers pull, one commits a new version of a file and deletes another; the other, which changed
    neither, pushes its own work after: the bucket keeps the first worker's commit, and its next pull brings it."""
    from lakehouse.mirror import push

    store = ObjectStore(_bucket(s3, "lakerag-two-workers"))
    one, two = LakePaths(tmp_path / "one"), LakePaths(tmp_path / "two")
    for name, text in (("replaced", "v1"), ("removed", "old")):
        (one.tables / f"{name}.json").parent.mkdir(parents=True, exist_ok=True)
        (one.tables / f"{name}.json").write_text(text)
    push(store, one)
    pull(store, two)
    (one.tables / "replaced.json").write_text("v2 from worker one")
    (one.tables / "removed.json").unlink()
    push(store, one)
    (two.tables / "own.json").write_text("worker two's work")
    counts = push(store, two)

    assert counts["uploaded"] == 1 and counts["newer_in_bucket"] == 2 and counts["deleted"] == 0
    assert set(store.listing(["tables"])) == {"tables/replaced.json", "tables/own.json"}
    pull(store, two)
    assert (two.tables / "replaced.json").read_text() == "v2 from worker one"
    assert not (two.tables / "removed.json").exists() and (two.tables / "own.json").exists()
    pull(store, one)
    assert (one.tables / "own.json").read_text() == "worker two's work"
