"""Erasure and gc on a copy of the indexed sample corpus: after `lakerag erase --subject` and a gc past retention,
nothing under the data root names the person or carries the erased ids, and the API still answers."""

from __future__ import annotations

import json
import shutil

import pytest

from lakerag.cli import main
from tests.fixtures.api import serve, settings_for
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

    assert main(["erase", "--home", str(home), "--subject", "thiago martins araujo", "--yes",
                 "--requested-by", "dpo"]) == 0
    receipt = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert receipt["chunks"] == len(plan.chunks) and receipt["files_still_mentioning"] == 0
    assert main(["gc", "--home", str(home), "--retention-days", "0"]) == 0

    assert traces(home, [PERSON, "thiago martins", *erased_ids]) == {}
    log = (home / "erasures" / "receipts.jsonl").read_text(encoding="utf-8").splitlines()
    erased = [json.loads(line) for line in log if json.loads(line)["action"] == "erase"]
    assert erased[0]["requested_by"] == "dpo" and erased[0]["subject_sha256"]

    with serve(settings_for(home)) as api:
        hits = api.client.post("/v1/search", json={"question": f"{PERSON} recebimento de materiais",
                                                   "top_k": 10}, headers=api.key("k-all"))
        assert hits.status_code == 200 and hits.json()["hits"]
        assert "thiago martins" not in json.dumps(hits.json()["hits"], ensure_ascii=False).lower()
        answer = api.client.post("/v1/query", json={"question": "Quem recebe os materiais no almoxarifado?"},
                                 headers=api.key("k-all"))
        assert answer.status_code == 200
