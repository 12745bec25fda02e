"""Erasure and gc on a copy of the indexed sample corpus: after `lakerag erase --subject` and a gc past retention,
nothing under the data root names the person or carries the erased ids, and the API still answers."""

from __future__ import annotations

import json
import shutil

import pytest

from lakerag.cli import main
from tests.fixtures.api import KEYS, serve, settings_for
from tests.fixtures.trace import traces

PERSON = "Thiago Martins Araújo"  # named in four documents of the sample corpus; none is about him alone


@pytest.fixture
def home(sample_home, tmp_path):
    target = tmp_path / "home"
    shutil.copytree(sample_home, target)
    return target


def test_erase_subject_then_gc_leaves_no_trace_and_the_api_answers(home, capsys):
    from lakehouse.paths import LakePaths
    from lakehouse.snapshots import current_id
    from transforms.purge import plan_subject

    before = current_id(LakePaths(home))
    assert traces(home, [PERSON]), "the sample corpus should mention the person"
    plan = plan_subject(settings_for(home), "thiago martins araujo")  # any case, no accents
    assert plan.chunks and PERSON in plan.entities.values() and plan.partial
    erased_ids = sorted(plan.chunks | set(plan.entities))

    assert main(["erase", "--home", str(home), "--subject", "THIAGO MARTINS ARAUJO"]) == 0  # dry run
    shown = capsys.readouterr().out
    assert "dry run" in shown and PERSON in shown and current_id(LakePaths(home)) == before

    with serve(settings_for(home), keys={**KEYS, "k-admin": ["admin"]}, trust_gateway=True) as api:
        ask = {"subject": "thiago martins araujo"}
        assert api.client.post("/v1/admin/erasures", json=ask).status_code == 401
        assert api.client.post("/v1/admin/erasures", json=ask, headers=api.key("k-all")).status_code == 403
        spoofed = {"x-lakerag-groups": "admin"}
        assert api.client.post("/v1/admin/erasures", json=ask, headers=spoofed).status_code == 403
        extra = api.client.post("/v1/admin/erasures", json={**ask, "why": 1}, headers=api.key("k-admin"))
        assert extra.status_code == 400
        queued = api.client.post("/v1/admin/erasures", json=ask, headers=api.key("k-admin"))
        assert queued.status_code == 202 and queued.json()["status"] == "queued"
    assert main(["erase", "--home", str(home), "--pending"]) == 0
    receipt = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert receipt["chunks"] == len(plan.chunks) and receipt["files_still_mentioning"] == 0
    assert receipt["request_id"] == queued.json()["request_id"] and receipt["requested_by"] == "key6"
    assert main(["gc", "--home", str(home), "--retention-days", "0"]) == 0

    assert traces(home, [PERSON, "thiago martins", *erased_ids]) == {}
    log = (home / "erasures" / "receipts.jsonl").read_text(encoding="utf-8").splitlines()
    erased = [json.loads(line) for line in log if json.loads(line)["action"] == "erase"]
    assert erased[0]["subject_sha256"] and not list((home / "erasures" / "requests").glob("*.json"))
    from transforms.pipeline import run_index

    again = run_index(settings_for(home, ocr=False))  # the source still names him: nothing is extracted again
    assert again.extracted == 0 and traces(home, [PERSON]) == {}

    with serve(settings_for(home)) as api:
        hits = api.client.post("/v1/search", json={"question": f"{PERSON} recebimento de materiais",
                                                   "top_k": 10}, headers=api.key("k-all"))
        assert hits.status_code == 200 and hits.json()["hits"]
        assert "thiago martins" not in json.dumps(hits.json()["hits"], ensure_ascii=False).lower()
        answer = api.client.post("/v1/query", json={"question": "Quem recebe os materiais no almoxarifado?"},
                                 headers=api.key("k-all"))
        assert answer.status_code == 200


def test_erase_document_and_gc_deleted_document_past_retention(home, tmp_path, capsys):
    from lakehouse import schemas as s
    from lakehouse.paths import LakePaths
    from lakehouse.storage import read_table
    from tests.fixtures.paths import SAMPLE
    from transforms.pipeline import run_index

    source = tmp_path / "source"
    shutil.copytree(SAMPLE, source, symlinks=True)
    docs = [r for r in read_table(LakePaths(home).table("documents"), s.DOCUMENTS).to_pylist()
            if r[s.STATUS] == s.STATUS_ACTIVE and r[s.PATH].endswith((".md", ".txt"))]
    deleted, erased = docs[0], docs[1]
    (source / deleted[s.PATH]).unlink()

    assert main(["erase", "--home", str(home), "--document", erased[s.DOCUMENT_ID], "--yes"]) == 0
    settings = settings_for(home, source=source, ocr=False)
    record = run_index(settings)  # notices the deletion; the erased file, still in the source, stays out
    assert record.deleted == 1 and record.new == 0
    main(["gc", "--home", str(home)])  # default retention: the deleted document's bytes are still kept
    assert LakePaths(home).blob(deleted[s.CONTENT_HASH]).exists()

    assert main(["gc", "--home", str(home), "--retention-days", "0"]) == 0
    capsys.readouterr()
    ids = [deleted[s.DOCUMENT_ID], deleted[s.CONTENT_HASH], erased[s.DOCUMENT_ID], erased[s.CONTENT_HASH],
           erased[s.PATH], deleted[s.PATH]]
    assert traces(home, ids) == {}
    assert run_index(settings).new == 0  # still not ingested again


@pytest.mark.parametrize("command", ["erase", "gc"])
def test_a_drop_interrupted_by_a_crash_is_finished_by_the_next_erase_or_gc(home, capsys, command):
    """A snapshot being dropped is renamed aside first; a crash before its deletion left erased data there for
    ever. The next erase or gc removes it (and the erasure's final scan finds nothing left)."""
    from lakehouse.paths import LakePaths
    from lakehouse.snapshots import current_id

    snapshots = LakePaths(home).snapshots
    aside = snapshots / f".{current_id(LakePaths(home))}-older.drop"  # as `drop` leaves it when killed
    shutil.copytree(snapshots / current_id(LakePaths(home)), aside)
    assert traces(aside, [PERSON])
    args = ["--subject", PERSON, "--yes"] if command == "erase" else ["--retention-days", "30"]
    assert main([command, "--home", str(home), *args]) == 0
    assert not aside.exists()
    if command == "erase":
        receipt = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert receipt["files_still_mentioning"] == 0 and receipt["removed"]["interrupted_drops"] == 1
