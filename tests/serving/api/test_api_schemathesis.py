"""Schemathesis over the served OpenAPI document (bounded for CI): no generated request answers 5xx, and the
document says request bodies reject unknown fields. The full run with every check is
``benchmarks/schemathesis_run.py``."""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, Phase, given, settings

EXAMPLES = 12  # per operation; about a dozen operations


def test_request_bodies_say_unknown_fields_are_rejected(api):
    schemas = api.client.get("/schema/openapi.json").json()["components"]["schemas"]
    for name in ("QueryRequest", "SearchRequest", "Filters", "ErasureRequest"):
        assert schemas[name]["additionalProperties"] is False, name
    refused = api.client.post("/v1/search", json={"question": "férias", "unknown": 1})
    assert refused.status_code == 400 and "unknown" in refused.text


def test_no_generated_request_answers_a_server_error(api):
    schema = schemathesis.openapi.from_url(f"{api.url}/schema/openapi.json")
    failures: list[str] = []
    calls: list[int] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 8
    for operation in operations:
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def check(case) -> None:
            response = case.call(base_url=api.url, timeout=30)
            calls.append(response.status_code)
            if response.status_code >= 500:
                failures.append(f"{case.method} {case.formatted_path} {case.body!r} -> {response.status_code}")

        check()
    assert failures == [] and len(calls) >= 3 * len(operations)
