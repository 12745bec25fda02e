"""The API encodes questions through its shared encoder: concurrent requests are answered, and /ready shows
the batches and the cache."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.fixtures.api import TRAVEL


def test_concurrent_questions_go_through_the_shared_encoder(api):
    questions = [f"{TRAVEL} ({n})" for n in range(12)]

    def ask(question: str) -> int:
        return httpx.post(f"{api.url}/v1/query", json={"question": question, "mode": "basic"},
                          timeout=60).status_code

    with ThreadPoolExecutor(12) as pool:
        assert set(pool.map(ask, questions)) == {200}
    before = api.client.get("/ready").json()["encoder"]
    assert api.client.post("/v1/query", json={"question": questions[0], "mode": "basic"}).status_code == 200
    after = api.client.get("/ready").json()["encoder"]
    assert before["encoded"] >= len(questions) and sum(before["batch_sizes"].values()) == before["batches"]
    assert after["cache_hits"] > before["cache_hits"] and after["encoded"] == before["encoded"]


def test_every_concurrent_question_can_join_one_batch(api):
    """Questions wait for their vectors on the event loop, not in the 6 worker threads of a 2-core machine: 16
    questions sent together while the encoder is busy are encoded in one batch after it."""
    import threading
    import time
    import uuid

    shared = api.holder.require().embedder
    encoder, model = api.holder.encoder, shared.inner
    count = 16

    class Gated:  # the real model; its first call waits until the other questions are queued (or 20 s)
        model_id, dim, calls = model.model_id, model.dim, 0

        def embed_queries(self, texts):
            Gated.calls += 1
            deadline = time.monotonic() + 20
            while Gated.calls == 1 and encoder.stats()["queued"] < count - 1 and time.monotonic() < deadline:
                time.sleep(0.01)
            return model.embed_queries(texts)

    questions = [f"{TRAVEL} ({uuid.uuid4().hex[:8]})" for _ in range(count)]
    before = encoder.stats()["batch_sizes"]
    shared.inner = Gated()
    try:
        def ask(question: str) -> int:
            return httpx.post(f"{api.url}/v1/query", json={"question": question, "mode": "basic"},
                              timeout=60).status_code

        first = threading.Thread(target=ask, args=(questions[0],))
        first.start()
        while Gated.calls == 0:
            time.sleep(0.01)
        with ThreadPoolExecutor(count - 1) as pool:
            assert set(pool.map(ask, questions[1:])) == {200}
        first.join()
    finally:
        shared.inner = model
    after = encoder.stats()["batch_sizes"]
    new = {size: n - before.get(size, 0) for size, n in after.items() if n > before.get(size, 0)}
    assert max(new) == count - 1, new
