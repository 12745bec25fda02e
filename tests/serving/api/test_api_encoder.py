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
