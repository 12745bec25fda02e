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


def test_engine_threads_sleep_at_barriers_unless_told_otherwise():
    """OMP_WAIT_POLICY is PASSIVE once the embedding module is imported (before any engine loads), and an
    operator's own value is kept."""
    import os
    import subprocess
    import sys

    from tests.fixtures.paths import REPO

    code = "import os, models.embedding; print(os.environ['OMP_WAIT_POLICY'])"
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"} | {"PYTHONPATH": str(REPO)}
    for given, expected in ((None, "PASSIVE"), ("ACTIVE", "ACTIVE")):
        run_env = env if given is None else env | {"OMP_WAIT_POLICY": given}
        out = subprocess.run([sys.executable, "-c", code], env=run_env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == expected
