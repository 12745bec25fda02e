"""Every mode on the sample corpus's labelled questions, over HTTP, with the labelled caller's groups: the right
documents cited, governance questions answered from the catalog, refusals measured."""

from __future__ import annotations

import json

import pytest

from tests.fixtures.api import AS_OF
from tests.fixtures.paths import REPO

QUESTIONS = [json.loads(line) for line in (REPO / "sample_corpus" / "questions.jsonl").read_text().splitlines()]
KEY_FOR = {frozenset(): None, frozenset({"juridico"}): "k-juridico", frozenset({"compras"}): "k-compras",
           frozenset({"rh"}): "k-rh", frozenset({"diretoria"}): "k-diretoria", frozenset({"gestores"}): "k-diretoria"}


def _key(groups: list[str]) -> str | None:
    wanted = frozenset(groups) - {"public"}
    return KEY_FOR.get(wanted, "k-all")


def _ask(server, q: dict, mode: str) -> dict:
    response = server.client.post("/v1/query", json={"question": q["question"], "mode": mode, "as_of": AS_OF},
                                  headers=server.key(_key(q["groups"])))
    assert response.status_code == 200, response.text
    return response.json()


def _cited_right(body: dict, q: dict) -> bool:
    return bool({c["document_id"] for c in body["citations"]} & set(q["relevant_document_ids"]))


@pytest.mark.parametrize("mode, floor", [("basic", 0.85), ("hybrid", 0.85), ("local", 0.8)])
def test_answerable_questions_cite_a_relevant_document(api, mode, floor):
    """Fact, code and multi-hop questions: the share answered with a relevant document cited."""
    cases = [q for q in QUESTIONS if q["answerable"] and q["kind"] in ("fact", "code_lookup", "multi_hop")]
    bodies = [_ask(api, q, mode) for q in cases]
    assert all(b["mode_used"] == mode for b in bodies)
    right = sum(b["status"] in ("answered", "partial") and _cited_right(b, q)  # partial: ambiguous evidence, cited
                for b, q in zip(bodies, cases, strict=True))
    assert right / len(cases) >= floor, f"{mode}: {right}/{len(cases)}"
    for body in bodies:  # citations point into the evidence, and the answer carries each marker
        numbered = {e["n"]: e["id"] for e in body["evidence"] if e["n"] is not None}
        assert all(numbered[c["n"]] == c["id"] and f"[{c['n']}]" in body["answer"] for c in body["citations"])


def test_global_mode_on_corpus_wide_questions(api):
    cases = [q for q in QUESTIONS if q["kind"] == "global"]
    bodies = [_ask(api, q, "global") for q in cases]
    assert all(b["mode_used"] == "global" for b in bodies)
    answered = [b for b in bodies if b["status"] == "answered"]
    assert len(answered) >= 3
    for body in answered:  # themes quote the caller's chunks: every citation has its document
        assert body["citations"] and all(c["kind"] == "chunk" and c["document_id"] for c in body["citations"])
        assert "(None)" not in body["answer"]


def test_auto_routes_corpus_wide_questions_to_global_when_a_graph_exists(api, nograph_api):
    q = next(q for q in QUESTIONS if q["id"] == "q090")
    assert _ask(api, q, "auto")["mode_used"] == "global"
    assert _ask(nograph_api, q, "auto")["mode_used"] == "basic"  # no graph in that snapshot


@pytest.mark.parametrize("qid, expected", [
    ("q080", {"doc_788a8f78115a85dc", "doc_88b5e12e48b019a0", "doc_cc93ee06796d001e", "doc_9b60ef10542d416a",
              "doc_b94e3f61f26b0e81"}),
    ("q082", {"doc_ceae46b626d244a3", "doc_e299b2e39e5a32aa", "doc_bf7238abe8f4cd16", "doc_9bb6d74d8ff52f23",
              "doc_dbbeb6dbec0fda52", "doc_e5075dfba3fdfe1e"}),
    ("q083", {"doc_3571e7bde78273c3"}),
    ("q087", None),
    ("q088", {"doc_8d8e0e54f99904d8", "doc_bf7238abe8f4cd16", "doc_f8dae77c03f1d628"}),
])
def test_governance_questions_answered_from_the_catalog(api, qid, expected):
    q = next(q for q in QUESTIONS if q["id"] == qid)
    body = _ask(api, q, "auto")
    assert body["mode_used"] == "catalog" and body["status"] == "answered"
    cited = {c["document_id"] for c in body["citations"]}
    assert (expected or set(q["relevant_document_ids"])) <= cited


def test_refusal_precision_and_recall(api):
    """Measured at the configured threshold (tuned on this set: see docs/adr/0005). Near misses (topic in the
    corpus, asked fact absent) came later and are not part of that tuning: `lakerag eval --answers` reports them."""
    cases = [q for q in QUESTIONS if q["kind"] not in ("governance",) and not q.get("near_miss")]
    bodies = {q["id"]: _ask(api, q, "auto") for q in cases}
    refused = {i for i, b in bodies.items() if b["status"] == "not_found"}
    unanswerable = {q["id"] for q in cases if not q["answerable"]}
    precision = len(refused & unanswerable) / max(len(refused), 1)
    recall = len(refused & unanswerable) / len(unanswerable)
    assert recall >= 0.8 and precision >= 0.8, (sorted(refused - unanswerable),
                                                sorted(unanswerable - refused))
    for i in refused:  # the fixed refusal; at most a line naming the documents on the topic, each cited
        first, *where = bodies[i]["answer"].splitlines()
        assert first in ("Não encontrei essa informação nos documentos disponíveis.",
                         "I could not find this information in the available documents.")
        assert len(where) <= 1 and all(f"[{c['n']}]" in where[0] for c in bodies[i]["citations"])
