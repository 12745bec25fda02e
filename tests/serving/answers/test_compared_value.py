"""A value the question gives to compare ("if a supplier notifies incidents within 72 hours, does it meet the
checklist?") is not a fact the evidence must hold: the checklist states its own deadline (24 hours) and the
question is answered from it, not refused as a near miss. A real engine over a small corpus."""

from __future__ import annotations

import pytest

from serving.answers.constraints import measured
from tests.fixtures.corpora import markdown, write_corpus

CONFIG = "default_groups: [public]\n"
DOCS = {
    "Compras/Vendor Checklist.md": markdown(
        "# Vendor Security Checklist",
        "## Items\n\n| # | Control area | Expected answer |\n| --- | --- | --- |\n"
        "| 1 | Incident notification | Suppliers notify incidents within 24 hours |\n"
        "| 2 | Encryption | Data encrypted at rest with AES-256 |\n"
        "| 3 | Access | Multi-factor authentication for administrators |",
        "## Rating\n\nA supplier with a non-compliant answer is rated high risk."),
    "RH/Leave Policy.md": markdown(
        "# Leave Policy", "## Vacation\n\nEmployees take 30 days of vacation per year."),
}


def test_a_number_with_its_unit_is_read_in_either_language():
    assert measured("within 72 hours, or 2,5 horas and 3 dias") == {("72", "hour"), ("2.5", "hour"), ("3", "day")}


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    from lakehouse.settings import Settings
    from serving.answers import AnswerService
    from serving.answers.reloader import SnapshotHolder
    from transforms.pipeline import run_index

    root = tmp_path_factory.mktemp("compared")
    settings = Settings(home=root / "home", source=write_corpus(root / "source", DOCS, CONFIG),
                        embedding_model="wordllama")
    run_index(settings)
    holder = SnapshotHolder(settings)
    holder.refresh()
    return AnswerService(holder)


def test_a_value_the_question_compares_is_answered_from_the_one_the_document_states(service):
    from serving.answers import Caller, QueryRequest

    answer = service.query(QueryRequest("If a supplier notifies incidents within 72 hours, does it meet the vendor "
                                        "checklist?", mode="basic"), Caller("analyst", frozenset({"public"})), "r")
    assert answer.status != "not_found" and "24 hours" in answer.answer
