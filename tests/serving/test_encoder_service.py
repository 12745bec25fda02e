"""The API process's shared query encoder: concurrent questions share batched calls, repeated questions come
from the cache, vectors equal the model's own, and the thread rule never oversubscribes the cores."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from models.embedding import load_embedder
from serving.search.encoder_service import EncoderService, encoder_threads

QUESTIONS = [f"qual é o prazo do contrato número {n}?" for n in range(24)]


@pytest.fixture(scope="module")
def embedder():
    return load_embedder("wordllama")


def test_concurrent_questions_share_batches_and_match_the_model(embedder):
    service = EncoderService(window_ms=50, max_batch=32)
    results: dict[int, np.ndarray] = {}
    start = threading.Barrier(len(QUESTIONS))

    def ask(i: int) -> None:
        start.wait()
        results[i] = service.encode(embedder, [QUESTIONS[i]])[0]

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(QUESTIONS))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    service.close()
    direct = embedder.embed_queries(QUESTIONS)
    assert np.allclose(np.stack([results[i] for i in range(len(QUESTIONS))]), direct, atol=1e-5)
    stats = service.stats()
    assert stats["encoded"] == len(QUESTIONS)
    assert stats["batches"] < len(QUESTIONS)  # questions arriving together were encoded together
    assert max(stats["batch_sizes"]) > 1


def test_repeated_questions_come_from_the_cache(embedder):
    service = EncoderService(window_ms=0)
    first = service.bind(embedder).embed_queries(["Prazo  de\tviagem"])
    again = service.bind(embedder).embed_queries(["Prazo de viagem"])  # the same text once normalised
    service.close()
    assert np.array_equal(first, again)
    assert service.stats()["cache_hits"] == 1 and service.stats()["encoded"] == 1


def test_a_failing_model_fails_the_waiting_requests_not_the_service(embedder):
    class Broken:
        model_id, dim = "broken", 3

        def embed_queries(self, texts):
            raise RuntimeError("engine failed")

    service = EncoderService(window_ms=0)
    with pytest.raises(RuntimeError, match="engine failed"):
        service.encode(Broken(), ["x"])
    assert service.encode(embedder, ["still works"]).shape == (1, embedder.dim)
    service.close()


@pytest.mark.parametrize(("workers", "configured", "cores", "threads"),
                         [(1, 0, 2, 2), (2, 0, 2, 1), (2, 4, 2, 1), (1, 1, 16, 1), (3, 0, 16, 5), (4, 0, 2, 1)])
def test_workers_times_encoder_threads_never_exceeds_the_cores(workers, configured, cores, threads):
    assert encoder_threads(workers, configured, cores) == threads
