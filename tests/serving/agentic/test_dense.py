"""The dense similarity of a question's part to sentences in another language, measured only when asked."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from serving.answers.agentic.dense import Measure
from serving.answers.agentic.parts import Part

TOPICS = ("dias", "days", "encarregad", "officer")  # two meanings, each in two languages


def _vector(text: str) -> np.ndarray:
    folded = text.lower()
    v = np.array([any(w in folded for w in TOPICS[:2]), any(w in folded for w in TOPICS[2:]), 0.1], dtype=float)
    return (v / np.linalg.norm(v)).astype(np.float32)


class _Embedder:
    def __init__(self) -> None:
        self.passages: list[str] = []

    def embed_queries(self, texts):
        return np.stack([_vector(t) for t in texts])

    def embed_passages(self, texts):
        self.passages += texts
        return np.stack([_vector(t) for t in texts])


SOURCES = [("Política", "O Encarregado é a Sra. Ana. As solicitações são respondidas em até 15 dias."),
           ("Ata", "Reunião sem deliberações em 3 dias úteis."), ("Outro", "Texto sem relação."),
           ("Quarto", "Nada aqui, 9 dias.")]
DAYS = (1, "As solicitações são respondidas em até 15 dias.")


def _measure(embedder):
    vectors = np.stack([_vector("Encarregado dias"), _vector("Reunião"), _vector("Texto"), _vector("officer")])
    engine = SimpleNamespace(index=SimpleNamespace(vectors=vectors), embedder=embedder)
    parts = [Part("Who is the officer", "Who is the officer"), Part("within how many days", "within how many days")]
    return Measure(engine, parts, [0, 1, 2, 3], SOURCES)


def test_a_part_scores_the_sentences_of_its_closest_chunks_in_another_language():
    embedder = _Embedder()
    measure = _measure(embedder)
    officer = (1, "O Encarregado é a Sra. Ana.")
    far = (4, "Nada aqui, 9 dias.")
    days = measure(1, [officer, DAYS, (2, "Reunião sem deliberações em 3 dias úteis."), (3, "Texto sem relação."),
                       far])
    assert days[DAYS] == pytest.approx(1.0) and days[officer] < 0.5
    assert far not in days  # its chunk is not among the part's closest
    assert measure(1, [DAYS]) == {DAYS: 1.0} and embedder.passages.count(DAYS[1]) == 1  # once


def test_nothing_is_encoded_until_asked_nor_without_a_dense_model():
    embedder = _Embedder()
    _measure(embedder)
    assert embedder.passages == []
    engine = SimpleNamespace(index=SimpleNamespace(vectors=np.zeros((0, 3), dtype=np.float32)), embedder=None)
    assert Measure(engine, [Part("a", "a")], [0], [("T", "Texto.")])(0, [(1, "Texto.")]) == {}
