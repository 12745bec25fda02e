"""The permission property of the new modes: randomised requests across agentic, global and auto with every
key; no id, title, entity name or sentence of a chunk the caller cannot read appears in any response (the
1,000-request run is ``benchmarks/agentic.py --permissions``)."""

from __future__ import annotations

import json
import os
import random

import pytest

from serving.answers.agentic.tools import Toolbox, ToolError
from tests.fixtures.api import KEYS
from tests.fixtures.leaks import Restricted, random_request
from tests.fixtures.paths import REPO

SEED = int(os.environ.get("LAKERAG_PERMISSION_SEED", "20261202"))
REQUESTS = 150
QUESTIONS = [json.loads(line)["question"] for line in
             (REPO / "sample_corpus" / "questions.jsonl").read_text().splitlines()]


def test_no_restricted_name_or_text_reaches_a_caller_of_the_new_modes(api):
    engine = api.holder.require()
    callers = [None, *KEYS]
    restricted = {k: Restricted(engine, frozenset(KEYS.get(k, [])) | {"public"}) for k in callers}
    assert restricted[None].ids and restricted[None].texts  # the probe has something to find
    rng = random.Random(SEED)
    modes: dict[str, int] = {}
    for i in range(REQUESTS):
        key, body = random_request(rng, QUESTIONS, callers)
        response = api.client.post("/v1/query", json=body, headers=api.key(key))
        assert response.status_code in (200, 400), (i, body, response.text[:300])
        answer = response.json()
        modes[answer.get("mode_used", "error")] = modes.get(answer.get("mode_used", "error"), 0) + 1
        leaked = restricted[key].leaks(answer, body["question"])
        assert not leaked, f"seed {SEED} request {i} as {key}: {body} leaked {leaked[:3]}"
    assert modes.get("agentic", 0) > 20 and modes.get("global", 0) > 20, modes


def test_tools_refuse_what_the_caller_cannot_read(api):
    engine = api.holder.require()
    box = Toolbox(engine, frozenset({"public", "rh"}))
    assert "search_contracts" not in box.search_tools and "search_hr_documents" in box.search_tools
    with pytest.raises(ToolError, match="no document"):
        box.read_document("doc_21af0599cddc0347")  # the contract annex: juridico and compras only
    found = box.lookup_catalog("CT-2024-0187 Anexo III")
    assert "doc_21af0599cddc0347" not in found.ids and "Anexo III" not in found.text
    hits = box.search("notificação de incidentes em 72 horas", top_k=10)
    assert all(engine.row_readable(r, box.groups) for r in hits.hits)
