"""The judge credits a short gold (a bare number, year, date or code with no content word to count) when the
answer states it after normalisation, instead of "only 0% of the gold words"; a near miss stays wrong."""

from __future__ import annotations

import pytest

from serving.evaluation.judge import gold_of, judge


def _label(gold: str, answer: str, cited: tuple[str, ...] = ("d1",)) -> tuple[str, str]:
    verdict = judge(gold_of({"expected_answer": gold, "relevant_document_ids": ["d1"]}), answer, "answered",
                    list(cited))
    return verdict.label, verdict.reason


@pytest.mark.parametrize(("gold", "answer"), [
    ("1946", "The club was founded in 1946 [1]."),
    ("35", "He was 35 years old when the album came out."),
    ("Dec. 10, 1817", "Mississippi became a state on December 10, 1817."),
    ("Dec. 10, 1817", "It was admitted on Dec. 10, 1817."),
    ("U.S.", "She is a U.S. citizen."),
    ("U.S.", "Both are US films."),
    ("1,000", "About 1000 soldiers took part."),
    ("yes", "Yes, both bands are from England."),
])
def test_a_short_gold_stated_in_the_answer_is_correct(gold: str, answer: str) -> None:
    label, reason = _label(gold, answer)
    assert label == "correct", reason
    assert "found" in reason


@pytest.mark.parametrize(("gold", "answer"), [
    ("35", "About 350 people attended."),
    ("1946", "The club was founded in 1947."),
    ("Dec. 10, 1817", "Mississippi became a state on December 11, 1817."),
    ("no", "I know of none."),  # "no" is neither "know" nor "none"
])
def test_a_short_gold_not_stated_is_wrong(gold: str, answer: str) -> None:
    label, reason = _label(gold, answer)
    assert label == "wrong" and "not found" in reason


def test_a_short_gold_without_a_relevant_citation_is_partly() -> None:
    assert _label("1946", "Founded in 1946.", cited=())[0] == "partly"


def test_golds_with_words_or_values_are_judged_as_before() -> None:
    assert gold_of({"expected_answer": "Stephen King"}).short == ()
    assert gold_of({"expected_answer": "10 de março de 2025"}).short == ()
    assert _label("Stephen King", "It was directed by Stephen King.")[0] == "correct"
