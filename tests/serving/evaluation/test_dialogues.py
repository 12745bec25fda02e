"""The sample set's two-turn dialogues and their evaluation (rewritten, as asked, self-contained)."""

from __future__ import annotations

import json

from tests.fixtures.paths import SAMPLE


def test_dialogues_are_labelled_like_the_questions():
    from serving.evaluation.dialogues import read_dialogues

    rows = read_dialogues(SAMPLE.parent / "dialogues.jsonl")
    questions = {json.loads(line)["question"] for line in (SAMPLE.parent / "questions.jsonl").open()}
    assert len(rows) >= 20 and {r["kind"] for r in rows} == {"dependent", "topic_change"}
    assert len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        assert row["self_contained"] in questions and row["relevant_document_ids"] and row["expected_answer"]
        assert (row["question"] == row["self_contained"]) == (row["kind"] == "topic_change")
