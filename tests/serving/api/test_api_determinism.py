"""The same question over the same snapshot gets the same answer in every process. Python salts the hash of each
string per process (``PYTHONHASHSEED``), so the order a set of terms is iterated in changes from one server start
to the next; a score summed in that order can differ in its last bit, and a tie between two passages (a table's
level I and level II rows hold the same words of a salary question) then falls either way. A restarted server, or
a second worker behind the load balancer, must not answer differently."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.fixtures.paths import REPO

# one in three of the dev split's questions and rewordings (about 150), each with its groups, and a question whose
# two best rows tie on the words they hold (it was refused in one process in three before scores were summed exactly)
_ASK = """
import json, sys
from pathlib import Path
from tests.fixtures.api import settings_for
from serving.answers import AnswerService, SnapshotHolder
from serving.answers.access import Caller
from serving.answers.types import QueryRequest

holder = SnapshotHolder(settings_for(Path(sys.argv[1])))
holder.refresh()
service = AnswerService(holder)
rows = [json.loads(line) for name in ("questions.jsonl", "variants.jsonl")
        for line in (Path("sample_corpus") / name).read_text().splitlines() if line.strip()]
rows = [r for r in rows if r["split"] == "dev"][::3] + [
    {"id": "tie", "groups": ["rh"], "question": "Qual é a faixa salarial do Técnico de Enfermagem nível II?"}]
out = {}
for r in rows:
    caller = Caller("t", frozenset(r["groups"]) | {"public"})
    answer = service.query(QueryRequest(r["question"], mode="auto"), caller, "r")
    out[r["id"]] = [answer.status, answer.mode_used, answer.answer]
print(json.dumps(out))
"""


def _answers(home, seed: str) -> dict:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "PYTHONHASHSEED": seed, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", _ASK, str(home)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_answers_do_not_depend_on_the_process_hash_seed(sample_home):
    first, second = _answers(sample_home, "1"), _answers(sample_home, "2")
    assert len(first) > 100
    differing = {k: (first[k], second[k]) for k in first if first[k] != second[k]}
    assert not differing, json.dumps(differing, ensure_ascii=False, indent=1)[:3000]
