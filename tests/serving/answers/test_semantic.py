"""Sentence similarity in the grade: an English or reworded question meets a Portuguese passage through the
encoder; units are encoded once, in one batch, for the first chunks only."""

from __future__ import annotations

import numpy as np

from models.analysis import analyze
from serving.answers import semantic
from serving.answers.grading import INCORRECT, Question, grade
from serving.answers.semantic import unit_similarities
from serving.answers.types import EvidenceItem

RULE = ("6.1 A prestação de contas deve ser apresentada no sistema de viagens em até 10 (dez) dias úteis após o "
        "retorno da viagem.\n\n6.3 O reembolso é creditado em até 7 dias úteis após a aprovação.")
POLICY = "Política de Reembolso de Despesas de Viagem — 6. Prestação de contas"
ASKED = "What is the rule for submitting the travel expense report after returning?"


def _q(text: str, language: str) -> Question:
    return Question.of(text, language, {t: 1.0 for t in analyze(text, language)})


def test_an_english_question_is_answered_by_the_portuguese_unit_that_means_it():
    q = _q(ASKED, "en")
    unit = RULE.split("\n\n")
    without = grade(q, RULE, POLICY, dense=0.8)
    assert without.grade == INCORRECT  # no word of the question in the passage
    sims = {unit[0]: 0.91, unit[1]: 0.84}
    g = grade(q, RULE, POLICY, dense=0.8, sims=sims)
    assert [s.text for s in g.strips] == [unit[0]] and "best sentence 0.91" in g.reason
    assert g.score > without.score


class _Counting:
    model_id = f"{semantic.FITTED[0]}test"  # the encoder the feature's scale and weights were fitted with
    dim = 3

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return np.array([[1.0, 0.0, 0.0] if "10 (dez)" in t else [0.0, 1.0, 0.0] for t in texts])

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return np.array([[1.0, 0.0, 0.0] for _ in texts])


def test_units_are_encoded_in_one_batch_once_and_only_for_the_first_chunks():
    semantic._cache.clear()
    items = [EvidenceItem("chunk", f"c{i}", 1.0, RULE, n=i + 1, title=f"Política {i}") for i in range(7)]
    encoder = _Counting()
    first = unit_similarities(encoder, np.array([1.0, 0.0, 0.0]), items)
    assert len(encoder.batches) == 1 and set(first) == {f"c{i}" for i in range(semantic.TOP_CHUNKS)}
    assert max(first["c0"], key=first["c0"].get).startswith("6.1")
    again = unit_similarities(encoder, np.array([1.0, 0.0, 0.0]), items)
    assert again == first and len(encoder.batches) == 1  # every unit came from the cache
    assert unit_similarities(None, np.array([1.0, 0.0, 0.0]), items) == {}
    other = _Counting()
    other.model_id = "wordllama-256"  # cosines on another scale: the feature is not computed for it
    assert unit_similarities(other, np.array([1.0, 0.0, 0.0]), items) == {} and not other.batches


def test_a_unit_standing_above_the_questions_other_units_gives_its_chunk_contrast():
    from serving.answers.grading import features

    q = _q(ASKED, "en")
    unit = RULE.split("\n\n")
    high, _, _, _ = features(q, RULE, POLICY, 0.8, sims={unit[0]: 0.88, unit[1]: 0.82}, median=0.82)
    level_, _, _, _ = features(q, RULE, POLICY, 0.8, sims={unit[0]: 0.82, unit[1]: 0.81}, median=0.82)
    assert high["contrast"] > 1.0 and level_["contrast"] == 0.0


def test_across_languages_the_words_are_read_through_the_encoder():
    from serving.answers.grading import features

    q = _q("What is the rule for submitting the travel expense report after returning?", "en")
    unit = RULE.split("\n\n")
    measured, strips, _, _ = features(q, RULE, POLICY, 0.85, sims={unit[0]: 0.9, unit[1]: 0.83}, median=0.83)
    assert measured["coverage"] > 0.5 and [s.text for s in strips] == [unit[0]]
