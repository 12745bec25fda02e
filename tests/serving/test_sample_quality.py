"""The shipped default model on the bundled corpus: the labelled questions find their documents, exact codes
win, and restricted documents never reach callers without the group. Slow: it embeds the corpus with e5."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lakehouse.settings import IndexSettings, Settings

pytestmark = [pytest.mark.slow, pytest.mark.model]

REPO = Path(__file__).resolve().parents[2]
DEFAULT_MODEL = IndexSettings.model_fields["embedding_model"].default


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    from serving.search.service import build_retriever
    from transforms.pipeline import run_index

    root = tmp_path_factory.mktemp("quality")
    source = root / "source"
    shutil.copytree(REPO / "sample_corpus" / "documents", source, symlinks=True)
    settings = Settings(home=root / "home", source=source, embedding_model=DEFAULT_MODEL)
    run_index(settings)
    questions = [json.loads(line) for line in
                 (REPO / "sample_corpus" / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    return build_retriever(settings), questions


def test_answerable_questions_find_their_documents(sample):
    retriever, questions = sample
    answerable = [q for q in questions if q["answerable"]]
    found = {}
    for q in answerable:
        hits = retriever.search(q["question"], set(q["groups"]), top_k=5)
        found[q["id"]] = bool(set(q["relevant_document_ids"]) & {h.document_id for h in hits})
    assert sum(found.values()) / len(found) >= 0.9, [k for k, v in found.items() if not v]
    codes = [q["id"] for q in answerable if q["kind"] == "code_lookup"]
    assert all(found[c] for c in codes)


def test_restricted_documents_never_reach_callers_without_the_group(sample):
    retriever, questions = sample
    index = retriever.index
    for q in questions:
        groups = set(q["groups"]) | {"public"}
        for hit in retriever.search(q["question"], set(q["groups"]), top_k=50):
            assert index.group_sets[index.group_codes[hit.row]] & groups, (q["id"], hit.path)


def test_contract_code_beats_its_one_digit_neighbour(sample):
    retriever, _ = sample
    for code, wrong in (("CT-2024-0187", "CT-2024-0178"), ("CT-2024-0178", "CT-2024-0187")):
        hits = retriever.search(f"Qual o valor do contrato {code}?", {"juridico"}, top_k=3)
        assert code in hits[0].path and wrong not in hits[0].path
