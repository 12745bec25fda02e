"""Passages are encoded in length-sorted batches and come back in the order they were given."""

from __future__ import annotations

import numpy as np

from models.embedding import length_sorted, load_embedder


def test_length_sorted_batches_keep_the_input_order():
    model = load_embedder("wordllama")
    texts = ["um texto bem mais longo que os outros, sobre contratos e prazos de pagamento",
             "curto", "prazo de viagem", "", "política de segurança da informação para terceiros"]
    seen: list[list[str]] = []

    def encode(batch: list[str]) -> np.ndarray:
        seen.append(batch)
        return model.embed_passages(batch)

    vectors = length_sorted(encode, texts, batch_size=2)
    assert np.allclose(vectors, model.embed_passages(texts), atol=1e-6)
    assert [len(b) for b in seen] == [2, 2, 1]
    lengths = [len(t) for b in seen for t in b]
    assert lengths == sorted(lengths)


def test_the_default_model_with_the_device_chosen_batch_size_returns_real_vectors():
    """``LAKERAG_EMBEDDING_BATCH_SIZE=0`` (the default: chosen for the device) once made e5 encode nothing."""
    model = load_embedder("e5-small", "cpu", 0)
    vectors = model.embed_passages(["O prazo é de dez dias úteis.", "Contrato CT-2024-0187 de segurança"])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert float(vectors[0] @ vectors[1]) < 0.99
