"""The dense similarity of a question's parts to the sentences of the read chunks closest to them."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from serving.answers.agentic import dense
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


def test_each_part_scores_the_sentences_of_its_closest_chunks():
    sources = [("Política", "O Encarregado é a Sra. Ana. As solicitações são respondidas em até 15 dias."),
               ("Manual", "O sistema fica no ar. O suporte funciona sempre."),
               ("Ata", "Reunião sem deliberações."), ("Outro", "Texto sem relação."),
               ("Playbook", "The officer answers in 3 days.")]
    chunk_vectors = np.stack([_vector(t) for _, t in sources])
    embedder = _Embedder()
    engine = SimpleNamespace(index=SimpleNamespace(vectors=chunk_vectors), embedder=embedder)
    parts = [Part("Who is the officer", "Who is the officer"), Part("within how many days", "within how many days")]
    similar = dense.unit_similarity(engine, parts, [0, 1, 2, 3, 4], sources)
    assert similar is not None and len(similar) == 2
    officer, days = similar
    assert officer[(1, "O Encarregado é a Sra. Ana.")] == pytest.approx(1.0)  # across languages
    assert days[(1, "As solicitações são respondidas em até 15 dias.")] == pytest.approx(1.0)
    assert days[(1, "O Encarregado é a Sra. Ana.")] < 0.5
    assert not any(n == 4 for n, _ in officer | days)  # a chunk far from every part is not encoded
    assert len(embedder.passages) == len(set(embedder.passages))  # one encoding per sentence for all parts


def test_without_a_dense_model_nothing_is_measured():
    engine = SimpleNamespace(index=SimpleNamespace(vectors=np.zeros((0, 3), dtype=np.float32)), embedder=None)
    assert dense.unit_similarity(engine, [Part("a", "a")], [0], [("T", "Texto.")]) is None
